/*
 * res — the optional physical resource fields of trace nodes and jobs (issue 36; trace.h,
 * docs/traces.md "Physical resources"): their rules, their stream form and their cells in
 * the interchange directory. Internal to lib/trace.
 */
#ifndef SCHEDNAV_TRACE_RES_H
#define SCHEDNAV_TRACE_RES_H
#include "trace/trace.h"
#include "core/strbuf.h"

/* The rules (docs/hardening.md): 0, or -1 and a message naming the record. */
int trace_res_check_node(const struct trace_node *n, char *err, size_t errlen);
int trace_res_check_job(const struct trace_job *j, char *err, size_t errlen);
/* Read the fields present in a parsed record into n / j (res set); a present field of the
 * wrong type is -1 and a message. j->gpu_spec points into v (the caller copies it). */
int trace_res_node_json(struct trace_node *n, const struct json *v, char *err, size_t errlen);
int trace_res_job_json(struct trace_job *j, const struct json *v, char *err, size_t errlen);
/* The stream keys, each when present, in trace.h's order (",\"cpu_milli\":..."). */
void trace_res_node_write(struct strbuf *sb, const struct trace_node *n);
void trace_res_job_write(struct strbuf *sb, const struct trace_job *j);
/* The same fields (gpu_spec by pointer, as trace_load_sharing interns it). */
bool trace_res_same(const struct trace_job *a, const struct trace_job *b);

/* The interchange directory's optional trailing columns, written when any record has one
 * of the fields (empty cell = absent). */
extern const char *const TRACE_RES_NODE_COLS[2];
extern const char *const TRACE_RES_JOB_COLS[5];
bool trace_res_any_node(const struct trace *t);
bool trace_res_any_job(const struct trace *t);
void trace_res_node_csv(struct strbuf *sb, const struct trace_node *n);   /* ",cpu,mem" */
void trace_res_job_csv(struct strbuf *sb, const struct trace_job *j);     /* ",workers,...,gpu_spec" */
/* Read the trailing cells (trimmed; empty = absent); j->gpu_spec points into the cell.
 * -1 and a message (without PATH:LINE) on a cell that is not a plain integer. */
int trace_res_node_cells(struct trace_node *n, char *const *cells, char *err, size_t errlen);
int trace_res_job_cells(struct trace_job *j, char *const *cells, char *err, size_t errlen);
#endif
