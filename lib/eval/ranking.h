/*
 * ranking — the declared hierarchy of docs/evaluation.md §6 "Rank": hard-SLO filter, the
 * allocation tie band (absolute, strict, judged on the double difference), then exact
 * minimum of the second and third metrics; what remains is selected, a tie for a person,
 * or nothing. No weights, no undeclared tie-breaker.
 * Records live in the caller's arena. Nothing prints or exits: NULL / -1 + message.
 */
#ifndef SCHEDNAV_EVAL_RANKING_H
#define SCHEDNAV_EVAL_RANKING_H
#include "core/arena.h"
#include "core/json.h"
#include "eval/evidence.h"
#include "eval/slo.h"
#include <stdbool.h>
#include <stddef.h>

#define RANK_MIN_CANDIDATES 3
#define RANK_MAX_CANDIDATES 5      /* the portfolio bound of the original (default) */
#define RANK_LIMIT_CANDIDATES 8    /* the largest bound a caller may ask for (a study's arms) */

/* Called after each stage of ev_rank_narrow that ran: stage 1 = the allocation band, 2 = the
 * minimum of the second metric, 3 = of the third; alive holds the survivors. */
typedef void rank_stage_fn(void *ctx, int stage, const bool *alive);

/* The hierarchy after the hard-SLO filter, shared by rank, study-select and adaptive-eval:
 * alive[i] (the filter's verdict) is narrowed in place to the candidates whose v[i][0] is
 * within band of the best (max - v < band, strict, on the double difference; band 0 keeps
 * the exact maximum), then to the exact minimum of v[i][1], then of v[i][2], the last two
 * only while more than one remains. stage (may be NULL) sees each stage that ran. Returns
 * the number of survivors. Values of candidates that are not alive are never read. */
size_t ev_rank_narrow(const double (*v)[3], bool *alive, size_t n, double band, rank_stage_fn *stage, void *ctx);

/* Build the ranking record from the audit items and metrics items of in (audit order).
 * Errors: a spec without ranking, an audit for another SLO or for metrics not supplied,
 * a metrics record without audit, a count outside 3..max (max in 3..RANK_LIMIT_CANDIDATES,
 * normally RANK_MAX_CANDIDATES), duplicate actions, a null ranking metric on a candidate
 * that passes stage 1. Messages name "PATH:LINE". */
struct json *ev_rank_build(const struct slo_spec *s, const struct ev_input *in, size_t max, struct arena *a, char *err,
                        size_t errlen);

/* Check a ranking record's shape and its ranking_fingerprint. */
int ev_rank_check(const struct json *rec, char *err, size_t errlen);
#endif
