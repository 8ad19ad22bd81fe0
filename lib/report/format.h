/*
 * format — display formatting shared by the report renderers (text table and HTML).
 * Everything appends to a caller-owned strbuf; a missing value (NAN) prints "n/a".
 */
#ifndef SCHEDNAV_REPORT_FORMAT_H
#define SCHEDNAV_REPORT_FORMAT_H
#include "report/report.h"

void rp_fmt_seconds(struct strbuf *sb, double v);   /* "5432 s", "12.5 s" */
void rp_fmt_percent(struct strbuf *sb, double v);   /* 0.7123 -> "71.23%" */
void rp_fmt_plain(struct strbuf *sb, double v);     /* integers exactly, else 4 significant digits */
void rp_fmt_metric(struct strbuf *sb, const char *metric, double v); /* by the metric's unit */
/* The approval record that names this ranking's fingerprint (the last one), or NULL. */
const struct rp_rec *rp_decision_approval(const struct rp_model *m, const struct rp_rec *ranking);
/* The command a person runs to approve action_id for this ranking. */
void rp_approve_command(struct strbuf *sb, const struct rp_model *m, const struct rp_rec *ranking, const char *action_id);
/* The ranking's own ranking_fingerprint (else its stream's). */
const char *rp_ranking_fingerprint(const struct rp_rec *ranking);
/* "selected", "tied", "out" (why gets the stage that dropped it) or "" (not ranked). */
const char *rp_policy_outcome(const struct rp_model *m, const char *action_id, struct strbuf *why);
#endif
