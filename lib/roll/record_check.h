/*
 * record_check — the records roll adds to an arm's result stream, as the result reader
 * (lib/sim/result_read.h) checks them: rolling_observation, scenario, candidate_evidence and
 * rolling_decision, counted and never parsed (report reads them, metrics does not), and one
 * rolling_report, checked for the kinds of the keys metrics carries into rolling_control.
 */
#ifndef SCHEDNAV_ROLL_RECORD_CHECK_H
#define SCHEDNAV_ROLL_RECORD_CHECK_H
#include "sim/result_read.h"

extern const struct result_ext roll_rolling_records;   /* a row of registry_result_exts (lib/registry) */
#endif
