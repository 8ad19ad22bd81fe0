/*
 * result — the result stream (schema "schednav.result/1") that sim-run writes and
 * metrics reads. Record types and key order:
 *   header:     type, schema, tool, version, inputs, params, policy (canonical dict),
 *               policy_fingerprint, trace_id, trace_fingerprint, time_origin, source,
 *               evaluation_start, evaluation_end
 *   job_result: type, job_id, service_class, submit_time_seconds, start_time_seconds,
 *               completion_time_seconds, duration_seconds, gpu_count, gpu_model,
 *               [tenant_id (trace/2 only)], queue_seconds, jct_seconds, preemption_count,
 *               run_count, evaluation_population            (every job, by job_id bytewise)
 *   run:        type, job_id, run_ordinal, start_time_seconds, end_time_seconds, end_reason,
 *               uninterrupted_seconds, guarantee_seconds, guarantee_succeeded (Spot runs, ledger order)
 *   preemption: type, time_seconds, preempted_job_id, triggering_job_id, rollback_seconds,
 *               overhead_seconds, added_gpu_seconds                      (event order)
 *   cluster:    type, node_count, capacity_gpus, simulation_start, simulation_end,
 *               allocated_gpu_seconds, warmup_allocated_gpu_seconds,
 *               evaluation_allocated_gpu_seconds, drain_allocated_gpu_seconds,
 *               allocation_rate_mean, drain_end                          (exactly one)
 *   placement_sample: type, time_seconds, allocated_gpus, free_gpus, fragmented_gpus,
 *               fragmentation_ratio        (issue 36: a physical placement_strategy only, time order)
 *   placement_summary: type, placement_strategy, placement_seed, sample_count,
 *               allocation_ratio_mean, fragmented_gpus_mean, fragmented_gpus_max,
 *               fragmentation_ratio_mean, unplaced_fragmentation_job_count,
 *               unplaced_capacity_job_count                 (exactly one, with the samples)
 * Counts and policy seconds are integers, times and amounts floats.
 */
#ifndef SCHEDNAV_SIM_RESULT_H
#define SCHEDNAV_SIM_RESULT_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"

#define RESULT_SCHEMA "schednav.result/1"

/* The result header for trace t (read from input_name) and policy p, built in a. */
struct json *result_header(struct arena *a, const struct trace *t, const struct sim_policy *p, const struct sim_output *o);
/* The job_id order of t's first n jobs, the order of the job_result records (malloc'd, n + 1
 * entries; the identity when the ids already increase: they are unique). */
size_t *result_id_order(const struct trace *t, size_t n);
/* Write header, body records and end. 0 or -1 + message. */
int result_write(struct nd_writer *w, const struct json *hdr, const struct trace *t, const struct sim_output *o, char *err, size_t errlen);
/* The same without the end record, for a caller that appends records of its own (sim-run
 * --controller adds control_decision and control_report records after the cluster record). */
int result_write_records(struct nd_writer *w, const struct json *hdr, const struct trace *t, const struct sim_output *o, char *err, size_t errlen);
/* The fingerprint of the body result_write would write for t and o (the end record's, what
 * ndr_fingerprint gives a reader), without writing it. */
void result_fingerprint(const struct trace *t, const struct sim_output *o, char fp[FP_HEX_XXH3]);
/* The same with the job order already known (result_id_order(t, o->n_jobs), not recomputed). */
void result_fingerprint_ordered(const struct trace *t, const struct sim_output *o, const size_t *order, char fp[FP_HEX_XXH3]);
/* Python repr of v (as sb_add_double), with a fast path for short decimals. */
void result_add_double(struct strbuf *sb, double v);
/* Record writing helpers: ,"k": then a value (the record's first key is written by hand). */
void result_key(struct strbuf *sb, const char *k);
void result_kstr(struct strbuf *sb, const char *k, const char *v);
void result_kdbl(struct strbuf *sb, const char *k, double v);
void result_kint(struct strbuf *sb, const char *k, long long v);
#endif
