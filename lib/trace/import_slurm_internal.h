/* import_slurm_internal — what the two files of the Slurm importer share: import_slurm.c
 * (sacct's jobs, the job builder and trace_import_slurm) and import_slurm_nodes.c (the node
 * inventory of scontrol show node -o). Not part of the trace API. */
#ifndef SCHEDNAV_IMPORT_SLURM_INTERNAL_H
#define SCHEDNAV_IMPORT_SLURM_INTERNAL_H
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One input read a line at a time. */
struct lines {
	struct zio_reader *z;
	const char *name;
	unsigned long line;
	struct strbuf buf;              /* the current line, NUL-terminated, fields cut in place */
};

/* 1 = a line in l->buf (without '\r\n'), 0 = end, -1 = error (not UTF-8, NUL, too long). */
int imp_slurm_next_line(struct lines *l, char *err, size_t errlen);
/* Close l's input (if open) and free its line buffer. */
void imp_slurm_lines_close(struct lines *l);
/* Read the node inventory at path (scontrol show node -o) into t's nodes, count nodes
 * without GPUs in t->skipped_rows, and record the file in hdr.inputs (SHA-256 into sha). */
int imp_slurm_read_nodes(struct trace *t, const char *path, bool res, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen);

/* ---- sacct's records (import_slurm_jobs.c) ---- */

enum slurm_rule { SLURM_RAN, SLURM_PENDING, SLURM_RUNNING };
/* The State word at the start of s ("CANCELLED by 1000" -> CANCELLED): its index, or -1. */
int imp_slurm_state_index(const char *s);
const char *imp_slurm_state_name(int state);

/* One row of sacct (a job step is never stored). */
struct slurm_rec {
	const char *id, *cluster;       /* cluster "" without a Cluster field */
	const char *user, *account;     /* interned, "" when the field is absent or empty */
	int64_t submit, start, end;     /* start/end -1 = not set */
	long long elapsed;              /* -1 = no Elapsed field */
	long long gpus;
	const char *model;              /* "*" = untyped */
	const char *tenant;             /* NULL when not set or not wanted */
	const char *qos, *partition;
	long long limit;                /* Timelimit in seconds; 0 = UNLIMITED, Partition_Limit or no column (issue 37) */
	const char *limit_word;         /* its kind, counted in source.time_limits */
	long long cpu, mem, nnodes;     /* issue 36 (--resources): AllocTRES cpu, mem (MiB) and NNodes; -1 = absent */
	int state;
	unsigned long line;
	size_t prev, tail;              /* index + 1: the key's records, newest first (tail: in its first record) */
	bool first;                     /* the first record of its (cluster, JobID) key */
};

struct slurm_jobs {
	struct slurm_rec *r;
	size_t n, cap;
	struct slurm_slot { uint64_t hash; size_t index; } *slot;   /* index + 1 of the key's first record */
	size_t nslot;
	struct arena *strings;          /* the trace's: ids, models, tenants, QOS, partitions */
	const char **names;             /* interned names */
	size_t nnames, cap_names;
	size_t clusters;                /* distinct non-empty Cluster values (at most 2 counted) */
	const char *a_cluster;
	struct json *limit_kinds;       /* source.time_limits (with a Timelimit column only), else NULL */
	long long res_kept, res_uneven;  /* issue 36: jobs given resource fields; jobs NNodes does not divide evenly */
};

const char *imp_slurm_intern(struct slurm_jobs *j, const char *s);
/* A new record for (cluster, id), chained to the key's earlier ones. */
struct slurm_rec *imp_slurm_add_rec(struct slurm_jobs *j, const char *cluster, const char *id);
void imp_slurm_jobs_release(struct slurm_jobs *j);

struct import_slurm_opts;
struct trace_caps;
/* Every key's records into jobs of t: the rows of one attempt (one Submit) reduced to the
 * most advanced, attempts chained into requeued jobs, the final attempt through the state
 * rules (docs/slurm-import.md). kept_states/kept_kinds: the header's counters. */
int imp_slurm_finish_jobs(struct slurm_jobs *jobs, const struct import_slurm_opts *o, struct trace *t, const struct trace_caps *caps,
		      const char *path, const char *tenant_col, unsigned long rows, struct json *kept_states, struct json *kept_kinds,
		      char *err, size_t errlen);
/* Seconds since 1970 as "YYYY-MM-DDTHH:MM:SS" (sep 'T') or with a space. */
void imp_slurm_format_time(int64_t t, char sep, char *buf, size_t cap);
/* The longest span an export may have, from its earliest Submit to its latest End. */
#define SLURM_MAX_SPAN_SECONDS (3650LL * 86400)

/* issue 37 (--hetjob join): merge the kept components 123+N of t->jobs[first..] into one job
 * 123 each (import_slurm_het.c), counting them in kinds.heterogeneous_jobs. */
void imp_slurm_join_hetjobs(struct trace *t, size_t first, struct json *kinds);
#endif
