/*
 * record_check — the records a controlled run (sim-run --controller, roll with a predictor)
 * adds to its result stream, as the result reader (lib/sim/result_read.h) checks them: one
 * control_decision per update, counted and never parsed, and one control_report, checked for
 * the kinds of the keys metrics carries into its predictive_control block.
 */
#ifndef SCHEDNAV_PREDICT_RECORD_CHECK_H
#define SCHEDNAV_PREDICT_RECORD_CHECK_H
#include "sim/result_read.h"

extern const struct result_ext pc_control_records;
#endif
