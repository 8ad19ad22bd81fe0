/*
 * metrics — the flat metrics record (docs/evaluation.md §4, docs/evaluation.md §4 "The flat record") computed
 * from a result stream as lib/sim/result_read.h reads it (result_read, or result_from_output
 * for a result never written). metrics_record builds the record in the caller's arena.
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_EVAL_METRICS_H
#define SCHEDNAV_EVAL_METRICS_H
#include "core/arena.h"
#include "core/json.h"
#include "sim/result_read.h"
#include <stddef.h>


/* The metrics record {"type":"metrics",...} in the documented key order; each family of
 * records above sim that d holds a summary of adds its block (struct result_ext). */
struct json *ev_metrics_record(struct arena *a, const struct result_data *d);
/* Q(v, p) of docs/simulator.md §0: sorts v in place; linear interpolation. n > 0. */
double ev_metrics_quantile(double *v, size_t n, double p);
/* The same Q(v, p) of a v already in ascending order (not touched). n > 0. */
double ev_metrics_quantile_sorted(const double *v, size_t n, double p);
/* Where Q(·, p) reads n ascending values: v[lo] and v[hi] (hi = lo + 1, or lo at the end),
 * mixed as ev_metrics_quantile_mix(v[lo], v[hi], frac). For callers that find the two order
 * statistics without sorting everything. n > 0. */
struct metrics_rank { size_t lo, hi; double frac; };
struct metrics_rank ev_metrics_quantile_rank(size_t n, double p);
double ev_metrics_quantile_mix(double vlo, double vhi, double frac);
/* Q(v, p1) and Q(v, p2), p1 <= p2, the same doubles as ev_metrics_quantile gives, without sorting
 * all of v (v is scratch: its order afterwards is unspecified). n > 0. */
void ev_metrics_quantile_pair(double *v, size_t n, double p1, double p2, double *q1, double *q2);
#endif
