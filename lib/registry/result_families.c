/* The families of result records (see result_families.h). */
#include "registry/result_families.h"
#include "predict/record_check.h"
#include "roll/record_check.h"
#include "sim/result_read.h"

/* In the order of the metrics record's blocks: predictive_control, rolling_control, then
 * issue 36's placement. */
const struct result_ext *const registry_result_exts[] = { &pc_control_records, &roll_rolling_records, &sim_placement_records, NULL };
