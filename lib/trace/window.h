/*
 * window — the original trace slicers (docs/traces.md §1), applied in place to a loaded trace.
 *
 * trace_window_prefix_slice keeps the jobs submitted at or before max_submit (optionally only
 * those of some GPU models, '*' jobs always) and the nodes a kept job names; a parent
 * window survives, clipped, only when it starts before max_submit.
 * trace_window_eval_slice keeps the jobs submitted in [warmup_start, eval_end] on every node and
 * declares the evaluation window [eval_start, eval_end].
 * Both record their provenance in t->source (keys canonical_slice and
 * canonical_evaluation_slice) naming the parent by trace_id and fingerprint; every new
 * string or JSON value lives in t->arena. Neither re-runs trace_validate: the caller does,
 * once, after the last slice.
 * Return 0, or -1 with a message in err (the trace is then unusable: release it).
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_WINDOW_H
#define SCHEDNAV_WINDOW_H
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

struct window_prefix {
	double max_submit;                /* >= 0 */
	const char *const *models;        /* GPU model filter; NULL (n_models 0) = every model */
	size_t n_models;
};

struct window_eval {
	double warmup_start, eval_start, eval_end;   /* 0 <= warmup_start <= eval_start < eval_end */
	bool include_warmup_spot;                    /* false drops Spot jobs submitted before eval_start */
};

/* Prefix slice of t; parent_fp is the fingerprint recorded for the parent trace. */
int trace_window_prefix_slice(struct trace *t, const struct window_prefix *p, const char *parent_fp, char *err, size_t errlen);
/* Evaluation slice of t (which must have no window); parent_fp as above. */
int trace_window_eval_slice(struct trace *t, const struct window_eval *e, const char *parent_fp, char *err, size_t errlen);
#endif
