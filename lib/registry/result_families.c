/* The families of result records (see result_families.h). */
#include "registry/result_families.h"
#include "predict/record_check.h"
#include "roll/record_check.h"

/* predictive_control, then rolling_control */
const struct result_ext *const registry_result_exts[] = { &pc_control_records, &roll_rolling_records, NULL };
