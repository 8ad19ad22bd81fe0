/*
 * record_check — the records a controlled run (sim-run --controller, roll with a predictor)
 * adds to its result stream, as the result reader (lib/sim/result_read.h) checks them: one
 * control_decision per update, counted and never parsed, and one control_report, checked for
 * the kinds of the keys metrics carries into its predictive_control block: those every family
 * writes here, the rest by its family's check_report (struct pc_family, predict.h).
 */
#ifndef SCHEDNAV_PREDICT_RECORD_CHECK_H
#define SCHEDNAV_PREDICT_RECORD_CHECK_H
#include "sim/result_read.h"

extern const struct result_ext pc_control_records;

struct pc_family;
/* The control_report check of pc_control_records over another family table (hdr's controller
 * schema_version picks the row; a test registers a family of its own): 0, or -1 + why. */
int pc_report_check_in(const struct pc_family *const *families, size_t n, const struct json *hdr, const struct json *report,
		       char *why, size_t whylen);
#endif
