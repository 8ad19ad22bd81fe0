/*
 * trace — the in-memory trace: header facts, nodes sorted by node_id, jobs sorted by
 * (submit, job_id). Every string and JSON value is owned by trace->arena; node and job
 * arrays are malloc'd and owned by the trace. trace_release frees everything.
 *
 * Stream form (schednav.trace/1, /2):
 *   header: type, schema, tool, version, inputs, params, trace_id, time_origin,
 *           window (null | {eval_start, eval_end[, warmup_start]}), source, skipped_rows
 *   node:   type, node_id, gpu_model, gpu_count (integer)[, cpu_milli][, memory_mib]
 *   job:    type, job_id, submit, duration, gpus, class, gpu_model[, tenant][, phase][, time_limit]
 *           [, workers][, cpu_milli][, memory_mib][, gpu_milli][, gpu_spec]
 * Numbers keep their lexical kind (10 vs 10.0) so the original CSV cells round-trip.
 * Every identifier (trace_id, node_id, job_id, gpu_model, tenant) follows the identifier
 * rule of core/text.h: no control character, no white space at either end, so nothing
 * a reader accepts changes when trace-export and trace-import canonical trim cells.
 */
#ifndef SCHEDNAV_TRACE_H
#define SCHEDNAV_TRACE_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include <stdbool.h>
#include <stddef.h>

#define TRACE_SCHEMA_V1 "schednav.trace/1"
#define TRACE_SCHEMA_V2 "schednav.trace/2"

/* Bounds of the trace model (docs/hardening.md): every reader and importer enforces them,
 * so no sum over nodes or jobs can overflow and every time is an exact-enough double. */
#define TRACE_MAX_NODE_GPUS (1LL << 20)   /* gpu_count of one node */
#define TRACE_MAX_CAPACITY (1LL << 40)    /* sum of gpu_count over all nodes */
#define TRACE_MAX_SECONDS 1e12            /* submit, duration and window times (~31,700 years) */

enum trace_phase { PHASE_NONE, PHASE_WARMUP, PHASE_EVAL };

/* issue 36 (physical placement): the optional resource fields of nodes and jobs. Each is
 * written only when present, so traces without them keep their bytes; `res` holds one bit
 * per field present. */
#define TRACE_RES_CPU       0x01u   /* cpu_milli: node capacity, or a job's per worker */
#define TRACE_RES_MEM       0x02u   /* memory_mib: likewise */
#define TRACE_RES_WORKERS   0x04u   /* job: workers, each taking gpus / workers whole GPUs on one node */
#define TRACE_RES_GPU_MILLI 0x08u   /* job: gpu_milli, a share (1..999) of one GPU */
#define TRACE_RES_GPU_SPEC  0x10u   /* job: gpu_spec, the GPU models it may run on ('|'-separated) */
/* Their bounds (docs/hardening.md): cpu_milli and memory_mib 0..TRACE_MAX_RES (nodes and
 * jobs), workers 1..TRACE_MAX_WORKERS, gpu_milli 1..999, gpu_spec 1..TRACE_MAX_SPEC bytes. */
#define TRACE_MAX_RES (1LL << 32)
#define TRACE_MAX_WORKERS (1LL << 20)
#define TRACE_MAX_SPEC 1024

struct trace_node {
	char *id;
	char *model;
	long long gpu_count;
	long long cpu_milli, memory_mib;            /* capacities, when res says so */
	unsigned res;                               /* TRACE_RES_CPU | TRACE_RES_MEM */
};

struct trace_job {
	char *id;
	double submit, duration, gpus;
	bool submit_int, duration_int, gpus_int;   /* value was written as an integer */
	bool hp;                                    /* class: HP (true) or Spot */
	char *model;                                /* "*" = any model */
	char *tenant;                               /* NULL in schema v1 */
	enum trace_phase phase;
	/* issue 37 (cluster replay): the requested time limit in whole seconds, 0 = none (the
	 * key is written only when set, so traces without limits keep their bytes) */
	long long time_limit;
	/* issue 36: the physical request, each field when res has its TRACE_RES_* bit */
	long long workers;                          /* >= 1 */
	long long cpu_milli, memory_mib;            /* per worker */
	long long gpu_milli;                        /* 1..999: a share of one GPU (gpus = gpu_milli / 1000) */
	char *gpu_spec;                             /* allowed models, '|'-separated; arena-owned */
	unsigned res;
};

struct trace {
	struct arena arena;
	int version;                    /* 1 or 2 */
	char *trace_id, *time_origin;
	struct json *source;            /* provenance object (verbatim for canonical imports) */
	struct json *skipped_rows;      /* object reason -> count; never NULL after init */
	struct json *header;            /* the header as read (NULL for built traces) */
	bool has_window, has_warmup;
	double eval_start, eval_end, warmup_start;
	struct trace_node *nodes;
	size_t n_nodes, cap_nodes;
	struct trace_job *jobs;
	size_t n_jobs, cap_jobs;
	char **extra;                   /* raw lines of unknown record types, passed through */
	size_t n_extra, cap_extra;
	char fingerprint[FP_HEX_XXH3];           /* end fingerprint of the stream read, "" if built */
	char input_name[256];
	/* trace_load_sharing: the trace whose storage equal jobs reuse while reading, the
	 * position reached in its jobs, whether every job so far equals its job at the same
	 * position; and whether jobs is that trace's array (then not ours to free or grow) */
	const struct trace *share;
	size_t share_pos;
	bool share_all, jobs_shared;
};

void trace_init(struct trace *t);
void trace_release(struct trace *t);
struct trace_node *trace_add_node(struct trace *t);   /* zeroed, appended */
struct trace_job *trace_add_job(struct trace *t);     /* zeroed, appended */
void trace_reserve_jobs(struct trace *t, size_t n);    /* room for n more jobs (an importer that knows its count) */
char *trace_strdup(struct trace *t, const char *s);
/* Sort nodes by id and jobs by (submit, id); bytewise string order. */
void trace_sort(struct trace *t);
/* Set each job's phase from the window (NONE when there is no window). */
void trace_assign_phases(struct trace *t);
/* Original §1 validation (ids, classes, capacities, window rules). 0 or -1 + message. */
int trace_validate(const struct trace *t, char *err, size_t errlen);
/* Read exactly one trace stream from r. Errors as "PATH:LINE: message". */
int trace_read(struct trace *t, struct nd_reader *r, char *err, size_t errlen);
/* Open path ("-" = stdin) and read one trace stream; the only stream in the input. */
int trace_load(struct trace *t, const char *path, char *err, size_t errlen);
/* trace_load beside an earlier trace `like` that holds mostly the same jobs (roll's history
 * and execution traces): a job with the id of one of like's takes like's strings that are
 * equal instead of copies, and when the stream's jobs are exactly like's (every field, in
 * the same order), the trace uses like's job array itself (jobs_shared). The trace read is
 * the one trace_load gives, field for field; like must not change or be released before t. */
int trace_load_sharing(struct trace *t, const char *path, const struct trace *like, char *err, size_t errlen);
/* Header for a trace stream written by tool (inputs and params empty, for the caller to fill). */
struct json *trace_header(struct trace *t, struct arena *a, const char *tool);
/* Write header, nodes, jobs, extra records and end. fp_out (may be NULL) gets the fingerprint. */
int trace_write(const struct trace *t, const struct json *header, struct nd_writer *w, char fp_out[FP_HEX_XXH3], char *err, size_t errlen);
/* Capacity (sum of gpu_count) of a model, or of all nodes when model is "*". */
long long trace_capacity(const struct trace *t, const char *model);
int trace_job_cmp(const struct trace_job *a, const struct trace_job *b);
/* issue 37: the run a replay gives the job: its duration, cut at its time_limit when it has one. */
static inline double trace_job_run_seconds(const struct trace_job *j)
{
	return j->time_limit > 0 && (double)j->time_limit < j->duration ? (double)j->time_limit : j->duration;
}
static inline bool trace_job_times_out(const struct trace_job *j)
{
	return j->time_limit > 0 && (double)j->time_limit < j->duration;
}

/* The per-record rules, shared by the stream reader, every importer and trace_validate:
 * ids and models follow the identifier rule (core/text.h), gpu_count is 1..TRACE_MAX_NODE_GPUS;
 * a job has submit in [0, TRACE_MAX_SECONDS], duration in (1e-9, TRACE_MAX_SECONDS],
 * gpus in (0, TRACE_MAX_CAPACITY], a tenant exactly in schema v2, and time_limit 0 (none) or
 * in [1, TRACE_MAX_SECONDS]. 0, or -1 and a
 * message naming the record ("node 'n1': ..."). *total (may be NULL) is the capacity so
 * far: trace_check_node adds the node's GPUs and fails beyond TRACE_MAX_CAPACITY. */
int trace_check_node(const struct trace_node *n, long long *total, char *err, size_t errlen);
int trace_check_job(const struct trace_job *j, int version, char *err, size_t errlen);
/* An identifier's problem ("job_id 'x' contains a control character") or 0. */
int trace_check_id(const char *what, const char *s, char *err, size_t errlen);

/* issue 36 (lib/trace/fits.c): for the physical placement, whether every job's workers fit
 * the empty cluster: a worker takes gpus / workers whole GPUs (or its gpu_milli share of one)
 * with its cpu_milli and memory_mib on one node of its gpu_model and gpu_spec; absent node
 * fields do not limit. 0, or -1 and "job 'J' can never be placed: why" for the first such
 * job in trace order. Call it where a trace is loaded for a physical placement. */
int trace_check_fits(const struct trace *t, char *err, size_t errlen);

/* Capacity per GPU model, for checking jobs row by row: built from valid nodes. */
struct trace_caps {
	struct trace_modelcap { const char *model; long long cap; } *m;
	size_t n;
	long long total;
};
void trace_caps_build(struct trace_caps *c, const struct trace *t);
long long trace_caps_get(const struct trace_caps *c, const char *model);   /* "*" = all; 0 = no such model */
void trace_caps_release(struct trace_caps *c);
#endif
