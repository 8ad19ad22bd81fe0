/*
 * workload — the workload summary the Workload Analyst reads (docs/evaluation.md §9,
 * the original's analyze-trace, schednav.workload-summary/v2) plus our per-class profile
 * (share, arrival rate, pressure, carry-in, GPU-model mix, tenant concentration) and a
 * regime label. With a cutoff only jobs submitted by it are read, the window ends by it and
 * nothing that is known only later (a running job's end) enters the record.
 * The record is built in the caller's arena; nothing here prints or exits (0 / -1 + message).
 */
#ifndef SCHEDNAV_EVAL_WORKLOAD_H
#define SCHEDNAV_EVAL_WORKLOAD_H
#include "core/arena.h"
#include "core/json.h"
#include "trace/trace.h"
#include <stdbool.h>

#define WORKLOAD_SCHEMA "schednav.workload/1"               /* the stream */
#define WORKLOAD_SUMMARY_VERSION "schednav.workload-summary/v2" /* the record's schema_version */

struct workload_opts {
	long long sample_interval;   /* seconds, 60..86400 for the tool (any > 0 here) */
	bool has_start, has_end, has_cutoff;
	double start, end, cutoff;
};

/* The workload_summary record of t (fingerprint stamped last as workload_fingerprint). */
int ev_workload_summary(struct arena *a, const struct trace *t, const struct workload_opts *o, struct json **out,
		     char *err, size_t errlen);
#endif
