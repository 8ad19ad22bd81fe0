/*
 * saturation — is a pool's demand above its capacity (issue 34)? Per GPU model of a trace:
 * the requested GPUs of the jobs active in each hour of a window (a job counts in hours
 * floor(s/3600) .. floor((s+d-1)/3600), demand without queueing), over the model's GPUs in the
 * trace's nodes or an explicit capacity. A saturated pool's queue has no bound: its queue
 * percentiles measure the trace's length, not a policy. Records are built in the caller's
 * arena; nothing here prints or exits.
 */
#ifndef SCHEDNAV_EVAL_SATURATION_H
#define SCHEDNAV_EVAL_SATURATION_H
#include "core/arena.h"
#include "core/json.h"
#include "trace/trace.h"
#include <stddef.h>

#define SATURATION_RECORD "pool_saturation"

/* An explicit capacity for one pool: recorded in the records and the header's params. */
struct saturation_capacity { const char *model; long long gpus; };

/* One pool_saturation record per GPU model with nodes or jobs in t (sorted by model name),
 * over the hours [h0, h1) of the window; caps overrides the nodes' GPUs for the named models.
 * *out is an arena array of *n records. -1 + message when a named model is not in t. */
int ev_saturation_records(struct arena *a, const struct trace *t, long long h0, long long h1,
	const struct saturation_capacity *caps, size_t n_caps, struct json ***out, size_t *n, char *err, size_t errlen);
#endif
