/*
 * result_families — the table of every family of records above sim that a result stream
 * may hold (one struct result_ext each, defined by the layer that writes them: the
 * controller's in lib/predict/record_check.c, roll's in lib/roll/record_check.c). It sits
 * above both, so that a reader of result streams (metrics, the fuzz harness) names no
 * family: a new family is its struct result_ext and one row here.
 */
#ifndef SCHEDNAV_REGISTRY_RESULT_FAMILIES_H
#define SCHEDNAV_REGISTRY_RESULT_FAMILIES_H
#include "sim/result_read.h"

/* NULL-terminated, in the order of the metrics record's blocks: what result_read is handed. */
extern const struct result_ext *const registry_result_exts[];
#endif
