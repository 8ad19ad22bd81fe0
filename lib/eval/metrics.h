/*
 * metrics — the flat metrics record (evaluation.md §4, BRIEF "metrics stream") computed
 * from a result stream (lib/sim/result.h). metrics_read loads and checks one result
 * stream; metrics_record builds the record in the caller's arena. The loaded result is
 * owned by struct metrics_result (metrics_result_release frees it). Nothing here prints
 * or exits; errors come back as "PATH:LINE: message".
 */
#ifndef SCHEDNAV_EVAL_METRICS_H
#define SCHEDNAV_EVAL_METRICS_H
#include "core/arena.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define METRICS_SCHEMA "schednav.metrics/1"
/* Float noise in a result's times (docs/hardening.md): the engine matches events within
 * SIM_EPS (1e-9 s), so a job can start a hair before its submit and queue_seconds be a hair
 * below 0. A time difference may fall short by at most METRICS_TIME_EPS; a derived field
 * (jct, queue) may differ from what it derives from by METRICS_TIME_EPS plus 2^-40 of the
 * largest time involved (a few hundred units in the last place). */
#define METRICS_TIME_EPS 1e-6

struct mres_job {
	char *id;
	bool hp, eval_pop;
	double jct, queue;
	long long preemptions, runs;
};

struct mres_run {
	size_t job;                 /* index into jobs */
	double start;
	bool preempted, succeeded;
};

struct mres_event {
	size_t victim;
	double time, rollback, overhead, added;
};

struct metrics_result {
	struct arena arena;         /* header values, ids */
	struct json *header;
	struct sim_policy policy;
	char fingerprint[33];       /* the result stream's end fingerprint */
	struct mres_job *jobs;
	size_t n_jobs, cap_jobs;
	struct mres_run *runs;
	size_t n_runs, cap_runs;
	struct mres_event *events;
	size_t n_events, cap_events;
	struct json *cluster;       /* the cluster record */
	struct json *control;       /* the control_report record (sim-run --controller), or NULL */
	struct json *rolling;       /* the rolling_report record (roll), or NULL */
	bool rolling_records;       /* the stream holds rolling_* records */
};

/* Read exactly one result stream from r into m (initialised here). 0 or -1 + message. */
int metrics_read(struct metrics_result *m, struct nd_reader *r, char *err, size_t errlen);
/* The same from a result never written: hdr as result_header builds it, p the run's policy
 * (borrowed, as are t's job ids: they must outlive m), t and o as result_write takes them.
 * Equal to metrics_read of the stream result_write would write. 0 or -1 + message. */
int metrics_from_output(struct metrics_result *m, const struct json *hdr, const struct sim_policy *p, const struct trace *t,
			const struct sim_output *o, char *err, size_t errlen);
void metrics_result_release(struct metrics_result *m);
/* The metrics record {"type":"metrics",...} in the documented key order. */
struct json *metrics_record(struct arena *a, const struct metrics_result *m);
/* Q(v, p) of evaluation.md §0: sorts v in place; linear interpolation. n > 0. */
double metrics_quantile(double *v, size_t n, double p);
#endif
