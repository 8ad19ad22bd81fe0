/*
 * import_util — pieces the source-format importers share: CSV files with a header row
 * and strict field counts, Python-compatible int()/float() cell parsing, skip counters,
 * a string set for duplicate ids, and the
 * seeded SplitMix64 node subset. Every source file is hashed as it is read (raw bytes:
 * size, XXH3-128, SHA-256) and recorded in the header's inputs when finished.
 * Nothing here prints or exits; errors come back as "PATH:LINE: message" in err.
 * Strings handed out live in the caller's arena unless stated otherwise.
 */
#ifndef SCHEDNAV_IMPORT_UTIL_H
#define SCHEDNAV_IMPORT_UTIL_H
#include "core/arena.h"
#include "core/csv.h"
#include "core/json.h"
#include "core/zio.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A CSV source: the header row is read by imp_csv_open (unless has_header is false),
 * every later row must have the header's field count; blank lines are skipped. */
struct imp_csv {
	const char *path;            /* as given ("-" = stdin) */
	struct zio_reader *z;
	struct csv_reader c;
	char **cols;                 /* trimmed header names (malloc'd), NULL without header */
	size_t ncols;
	bool has_header;
};

int imp_csv_open(struct imp_csv *f, const char *path, bool has_header, char *err, size_t errlen);
/* imp_csv_open for a file declared ISO-8859-1 (latin1: every line is transcoded to UTF-8;
 * otherwise invalid UTF-8 is an error with its PATH:LINE, see core/csv.h). */
int imp_csv_open_enc(struct imp_csv *f, const char *path, bool has_header, bool latin1, char *err, size_t errlen);
/* Index of a header column (trimmed name) or -1 with "PATH:1: missing column 'NAME'". */
int imp_csv_col(const struct imp_csv *f, const char *name, char *err, size_t errlen);
/* imp_csv_col of each of cols[0..n) into idx[0..n): 0, or -1 at the first missing one. */
int imp_csv_cols(const struct imp_csv *f, const char *const *cols, size_t n, int *idx, char *err, size_t errlen);
/* 1 = a row in f->c.fields[0..f->c.nfields), 0 = end of input, -1 = error. */
int imp_csv_next(struct imp_csv *f, char *err, size_t errlen);
const char *imp_csv_name(const struct imp_csv *f);      /* path or "<stdin>" */
unsigned long imp_csv_line(const struct imp_csv *f);    /* first line of the current row */
/* Drain to end of input, append the file to hdr.inputs and copy its SHA-256 into sha. */
int imp_csv_finish(struct imp_csv *f, struct arena *a, struct json *hdr, char sha[65], char *err, size_t errlen);
void imp_csv_close(struct imp_csv *f);                  /* safe after a failed open */

/* Append a source file read through z (opened with want_sha256) to hdr.inputs: its path,
 * raw size, XXH3-128 and SHA-256 (copied into sha). Call once, after the last read. */
void imp_record_file(struct zio_reader *z, struct arena *a, struct json *hdr, const char *path, char sha[65]);

/* Python int(): surrounding whitespace, a sign and single '_' between digits allowed. */
int imp_py_int(const char *s, long long *out);
/* Python float() of a finite decimal (no nan/inf); *is_int (may be NULL) = no '.'/exponent. */
int imp_py_float(const char *s, double *out, bool *is_int);

/* "PATH:LINE: message" into err. */
void imp_errf(char *err, size_t errlen, const char *path, unsigned long line, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Add 1 to obj[reason] (created at 0 first); imp_reason only creates it. */
void imp_count(struct arena *a, struct json *obj, const char *reason);
void imp_reason(struct arena *a, struct json *obj, const char *reason);
long long imp_counter(const struct json *obj, const char *reason);

/* Set of strings (pointers are kept, not copied). 1 = already present, 0 = added. */
struct imp_strset { const char **slots; size_t cap, n; };
void imp_strset_init(struct imp_strset *s);
int imp_strset_add(struct imp_strset *s, const char *str);
void imp_strset_release(struct imp_strset *s);
/* A job file being read: its CSV, the ids seen, the nodes' capacities, the columns. */
struct imp_jobs_in {
	struct imp_csv f;
	struct imp_strset seen;
	struct trace_caps caps;
	int idx[8];
};
/* Start reading the job file at path: seen empty, caps built from t's nodes, the CSV open
 * (header row read) and cols[0..n) found (idx, n <= 8). 0, or -1 + message; imp_jobs_close
 * is due either way. */
int imp_jobs_open(struct imp_jobs_in *in, const struct trace *t, const char *path, const char *const *cols, size_t n, char *err,
		  size_t errlen);
void imp_jobs_close(struct imp_jobs_in *in);
/* A class rule as the header's parameters list it: "FIELD:VALUE=HP" or "*=Spot" (field NULL). */
void imp_push_rule(struct arena *a, struct json *rules, const char *field, const char *value, bool hp);
/* A job's id from its cell (trimmed in place) into t's arena, added to seen; NULL with
 * "PATH:LINE: empty EMPTY_WHAT" or "PATH:LINE: duplicate DUP_WHAT 'ID'" in err. */
char *imp_new_id(struct trace *t, struct imp_strset *seen, char *cell, const char *empty_what, const char *dup_what, char *err,
		 size_t errlen, const char *path, unsigned long line);

/* The trace model's rules applied row by row, so that every error names PATH:LINE:
 * imp_node checks a node (identifier rule, 1..TRACE_MAX_NODE_GPUS, a node_id seen before,
 * the capacity sum) and appends it to dst, its strings copied into owner's arena;
 * imp_job_check checks a filled job (trace_check_job, and its GPUs against the capacity
 * of its model: "no node has GPU model 'X'"). */
struct imp_nodes { struct imp_strset ids; long long total; };
void imp_nodes_init(struct imp_nodes *s);
void imp_nodes_release(struct imp_nodes *s);
int imp_node(struct trace *dst, struct trace *owner, struct imp_nodes *s, const char *id, const char *model, long long gpus,
	     const char *path, unsigned long line, char *err, size_t errlen);
int imp_job_check(const struct trace *t, const struct trace_caps *caps, const struct trace_job *j, const char *path,
		  unsigned long line, char *err, size_t errlen);
/* issue 36 (--resources): a cell holding an integer in lo..hi (after x scale), for the record
 * named rec ("node 'n1'", "job 'j'"); "PATH:LINE: REC: 'COL' ..." on anything else. */
int imp_res_cell(const char *cell, const char *col, long long scale, long long lo, long long hi, long long *out, const char *rec,
		 const char *path, unsigned long line, char *err, size_t errlen);
/* The last node added gets cpu_milli (cpu >= 0) and memory_mib (mem >= 0), checked. */
int imp_node_res(struct trace *t, long long cpu, long long mem, const char *path, unsigned long line, char *err, size_t errlen);

/* A node list read from a CSV file (the loop three importers shared, issue 38): open it
 * (has_header), find cols (in order: the first missing one is the error) into idx, call row
 * for each row, pass each node it gives to imp_node, finish the file into hdr.inputs and sha.
 * row returns 1 with *n filled (a node), 0 (skip the row) or -1 + message (f names the row).
 * After the last row: no_rows (if not NULL) when there was no row at all, else no_nodes
 * when no node was kept; each a format with one %s for the file's name. */
/* One node row as a row callback reads it; cpu_milli and memory_mib (issue 36, --resources)
 * start at -1, absent, and are set on the node after it is added when >= 0. */
struct imp_node_row { const char *id, *model; long long gpus, cpu_milli, memory_mib; };
struct imp_node_file {
	const char *path;
	bool has_header;
	const char *const *cols;
	size_t n_cols;
	int (*row)(void *ctx, struct trace *t, const struct imp_csv *f, const int *idx, struct imp_node_row *n, char *err, size_t errlen);
	void *ctx;
	const char *no_rows, *no_nodes;
};
int imp_read_nodes(struct trace *t, const struct imp_node_file *nf, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen);

/* Deterministic seeded subset: Fisher-Yates shuffle of indices 0..n-1 driven by SplitMix64(seed),
 * then the shortest prefix whose gpu sum reaches target. order gets the chosen indices;
 * returns how many (n when the whole list is smaller than target). */
size_t imp_seeded_subset(const long long *gpus, size_t n, long long target, uint64_t seed, size_t *order);

/* params[key] = value for the importer's header */
void imp_param(struct arena *a, struct json *hdr, const char *key, struct json *v);
/* The provenance lines of a trace's source (or one of its objects): obj[KEY] = VALUE as a
 * string for each KEY, VALUE pair of the arguments, in order, up to a NULL key. */
void imp_provenance(struct arena *a, struct json *obj, ...) __attribute__((sentinel));
#endif
