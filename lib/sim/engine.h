/*
 * engine — the discrete-event simulator of the original SchedNav engine (simulator.md §3):
 * admission, greedy in-order backfill start pass, largest-free-first placement,
 * HP-first preemption with Spot guarantees, eviction budgets, checkpoint rollback and
 * the three allocation integrals. Numbers match the original bit for bit: the float
 * operations that decide the bits run in the original's order (see engine.c).
 *
 * sim_run reads the trace (not modified) and the policy, and fills a sim_output whose
 * arrays are malloc'd and owned by the output (sim_output_release frees them).
 * Job indices in the output refer to trace->jobs. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_SIM_ENGINE_H
#define SCHEDNAV_SIM_ENGINE_H
#include "sim/policy.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define SIM_EPS 1e-9
/* Consecutive futile eviction steps (reached only by a guarantee expiring; no HP job the
 * evictions were for could start) after which sim_run stops with an error naming the jobs:
 * the original repeats such a step every guarantee period until the Spot work is done. */
#define SIM_MAX_FUTILE_STEPS 100000

struct sim_job_result {
	double start;              /* first start */
	double completion;
	double queue_seconds;      /* summed over every wait, from submit or from eviction */
	long long preemptions, runs;
	bool evaluation_population;
};

struct sim_spot_run {           /* one closed Spot run, in ledger order */
	size_t job;
	long long ordinal;          /* the job's run counter when the run started */
	double start, end, uninterrupted;
	bool completed;             /* end_reason "completed" (else "preempted") */
	long long guarantee;        /* policy spot_guarantee_seconds */
	bool guarantee_succeeded;
};

struct sim_preemption {         /* one eviction, in event order */
	double time;
	size_t victim, trigger;
	double rollback, overhead, added_gpu_seconds;
};

struct sim_output {
	size_t n_jobs;
	struct sim_job_result *jobs;          /* indexed like trace->jobs */
	struct sim_spot_run *runs;
	size_t n_runs, cap_runs;
	struct sim_preemption *events;
	size_t n_events, cap_events;
	size_t node_count;
	long long capacity_gpus;
	double evaluation_start, evaluation_end;
	double simulation_start, simulation_end;  /* min submit, final clock */
	double allocated, warmup_allocated, evaluation_allocated, drain_allocated;
	double allocation_rate_mean;
	unsigned long long iterations;         /* main-loop steps, for benchmarks */
};

/* Run the simulation. 0, or -1 with a message naming the jobs ("cannot make progress ...",
 * "futile eviction cycle ..."). */
int sim_run(const struct trace *t, const struct sim_policy *p, struct sim_output *out, char *err, size_t errlen);
void sim_output_release(struct sim_output *out);
#endif
