/*
 * result_read — the reader of the result stream that result.c writes (lib/sim/result.h),
 * validated as strictly as a trace: every record's exact key set, the kind of each value and
 * its range, then the cross-record rules (jobs sorted and unique, runs and preemptions of
 * known jobs, one cluster whose capacity and allocation are possible). metrics reads its
 * input with it, and roll the result of every arm it scores.
 *
 * Records that a layer above sim adds to the stream (a controlled run's control_decision and
 * control_report, roll's rolling records) are not known here: the caller hands in one
 * struct result_ext per family of such records, which checks its own records (see
 * lib/predict/record_check.h, lib/roll/record_check.h; registry_result_exts in
 * lib/registry/result_families.h lists every family a result stream may hold). Errors come back as "PATH:LINE: message"; nothing here prints
 * or exits.
 */
#ifndef SCHEDNAV_SIM_RESULT_READ_H
#define SCHEDNAV_SIM_RESULT_READ_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

/* Float noise in a result's times (docs/hardening.md): the engine matches events within
 * SIM_EPS (1e-9 s), so a job can start a hair before its submit and queue_seconds be a hair
 * below 0. A time difference may fall short by at most RESULT_TIME_EPS; a derived field
 * (jct, queue) may differ from what it derives from by RESULT_TIME_EPS plus 2^-40 of the
 * largest time involved (a few hundred units in the last place). */
#define RESULT_TIME_EPS 1e-6

/*
 * A family of records added to the result stream above sim: some records the reader only
 * counts (it need not parse them: a line its fast path can skim is never parsed) and at most
 * one summary record, which the reader keeps whole.
 */
struct result_ext {
	const char *const *counted;  /* the counted record types, NULL-terminated */
	const char *summary;         /* the summary record's type */
	/* A counted record of type in a stream with header hdr: 0, or -1 + what is wrong
	 * (the reader puts PATH:LINE before it). NULL: nothing to check. */
	int (*count)(const struct json *hdr, const char *type, char *why, size_t whylen);
	/* The summary record, parsed: 0, or -1 + what is wrong. */
	int (*check)(const struct json *hdr, const struct json *rec, char *why, size_t whylen);
	/* At the end of a stream without the summary record: the message when it needs one
	 * (counted: whether it held a counted record), or NULL. */
	const char *(*missing)(const struct json *hdr, bool counted);
	/* What the metrics record carries of the summary: the key and its block (eval/metrics). */
	const char *metrics_key;
	struct json *(*metrics_block)(struct arena *a, const struct json *hdr, const struct json *summary);
};

#define RESULT_EXT_MAX 4

/* issue 36: the physical placement model's records (result_placement.c): placement_sample
 * counted, placement_summary into the metrics record's `placement` block. */
extern const struct result_ext sim_placement_records;

struct result_job {
	char *id;
	bool hp, eval_pop;
	double jct, queue;
	long long preemptions, runs;
	bool timed_out;             /* issue 37: ended at its time limit (job_result timed_out) */
};

struct result_run {
	size_t job;                 /* index into jobs */
	double start;
	bool preempted, succeeded;
};

struct result_event {
	size_t victim;
	double time, rollback, overhead, added;
};

struct result_data {
	struct arena arena;         /* header values, ids */
	struct json *header;
	struct sim_policy policy;
	char fingerprint[FP_HEX_XXH3];       /* the result stream's end fingerprint */
	struct result_job *jobs;
	size_t n_jobs, cap_jobs;
	struct result_run *runs;
	size_t n_runs, cap_runs;
	struct result_event *events;
	size_t n_events, cap_events;
	struct json *cluster;       /* the cluster record */
	bool any_time_out;          /* some job_result has timed_out: true (metrics then counts them) */
	const struct result_ext *const *exts;  /* as handed to result_read; NULL from result_from_output */
	struct json *summary[RESULT_EXT_MAX];  /* exts[i]'s summary record, or NULL */
	bool counted[RESULT_EXT_MAX];          /* the stream holds a counted record of exts[i] */
};

/*
 * One record of a result stream, decoded: the fields of a job_result, run, preemption or
 * cluster record that its readers use. result_read decodes each record it has checked with
 * these; report's model (lib/report/model.c) decodes with them every result record of the
 * streams it charts, which result_read would refuse whole. Strings are borrowed from the
 * record. The decoder checks only what it decodes: a required value of the right kind and,
 * for numbers, finite (the strict key set, ranges and cross-record rules are result_read's).
 * Errors come back as "PATH:LINE: 'TYPE' record: ..." at r's line; 0 or -1.
 */
/* One required field of rec, as the decoders read it (for a reader's own records beside the
 * result records, as report's model reads roll's): a finite number, or a string; otherwise
 * "'TYPE' record: 'KEY' is ..." at r's line and -1. */
int result_field_num(struct nd_reader *r, const struct json *rec, const char *key, double *out, char *err, size_t errlen);
int result_field_str(struct nd_reader *r, const struct json *rec, const char *key, const char **out, char *err, size_t errlen);
#define RESULT_LENIENT 1u   /* a job_result's start and completion may be null (NAN then) */

struct result_job_fields {
	const char *id;
	bool hp, eval_pop;          /* eval_pop: evaluation_population is not false */
	double submit, start, completion, gpus;
};

struct result_run_fields {
	const char *id, *reason;
	double start, end;
	bool preempted;
};

struct result_preemption_fields {
	double time;
	const char *victim;         /* NULL when the record names none */
};

struct result_cluster_fields {
	double capacity, start, end;
};

int result_decode_job(struct nd_reader *r, const struct json *rec, unsigned flags, struct result_job_fields *out, char *err,
		      size_t errlen);
int result_decode_run(struct nd_reader *r, const struct json *rec, struct result_run_fields *out, char *err, size_t errlen);
int result_decode_preemption(struct nd_reader *r, const struct json *rec, struct result_preemption_fields *out, char *err,
			     size_t errlen);
int result_decode_cluster(struct nd_reader *r, const struct json *rec, struct result_cluster_fields *out, char *err, size_t errlen);

/* Read exactly one result stream from r into d (initialised here); exts (NULL-terminated, at
 * most RESULT_EXT_MAX, or NULL) are the families of records above sim the stream may hold.
 * 0 or -1 + message. */
int result_read(struct result_data *d, struct nd_reader *r, const struct result_ext *const *exts, char *err, size_t errlen);
/* The same from a result never written: hdr as result_header builds it, p the run's policy
 * (borrowed, as are t's job ids: they must outlive d), t and o as result_write takes them.
 * Equal to result_read of the stream result_write would write. 0 or -1 + message. */
int result_from_output(struct result_data *d, const struct json *hdr, const struct sim_policy *p, const struct trace *t,
		       const struct sim_output *o, char *err, size_t errlen);
void result_data_release(struct result_data *d);
/* The same without any of the checks of a finished result, for a result that is not one (a
 * rolling scenario closed at its horizon: a job completes at cut + H before its queue and
 * duration would let it). */
void result_from_output_unchecked(struct result_data *d, const struct json *hdr, const struct sim_policy *p,
				  const struct trace *t, const struct sim_output *o);
#endif
