/*
 * engine — the discrete-event simulator of the original SchedNav engine (docs/simulator.md §3):
 * admission, greedy in-order backfill start pass, largest-free-first placement,
 * HP-first preemption with Spot guarantees, eviction budgets, checkpoint rollback and
 * the three allocation integrals. Numbers match the original bit for bit: the float
 * operations that decide the bits run in the original's order (see engine.c).
 *
 * Two ways in:
 * - sim_run: one whole simulation, no hooks (a thin wrapper over the session below);
 * - a session: sim_open → sim_advance (as often as needed, e.g. to a cutoff) →
 *   sim_set_policy and sim_clone (optional, between advances) → sim_finish → sim_close. A session may
 *   carry hooks (struct sim_hooks): a controller's scheduled wake-ups, a call at every
 *   instant before the start pass, a Spot admission gate and run start/close
 *   notifications. lib/sim knows nothing about what the hooks do.
 *
 * The trace and policies are read, never modified, and must outlive the session. The
 * sim_output arrays are malloc'd and owned by the output (sim_output_release frees them).
 * Job indices in the output and in hook views refer to trace->jobs. Nothing here prints
 * or exits.
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

/* issue 36: the physical node model's placement over time (docs/simulator.md §3.13), the
 * result stream's placement_sample and placement_summary records. GPUs in whole GPUs. */
struct sim_frag_sample {
	double time, allocated_gpus, fragmented_gpus, free_gpus;
};

struct sim_placement_out {
	const char *strategy;                 /* placement_strategy */
	long long seed;                       /* placement_seed */
	struct sim_frag_sample *samples;      /* at each instant the state changed, in time order */
	size_t n_samples;
	double allocation_ratio_mean, fragmented_gpus_mean, fragmented_gpus_max, fragmentation_ratio_mean;
	long long fragmentation_jobs, capacity_jobs;   /* jobs refused for fragmentation; jobs that waited otherwise */
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
	struct sim_placement_out *placement;   /* issue 36: NULL on the pool model; owned */
};

/* Run the simulation. 0, or -1 with a message naming the jobs ("cannot make progress ...",
 * "futile eviction cycle ..."). */
int sim_run(const struct trace *t, const struct sim_policy *p, struct sim_output *out, char *err, size_t errlen);
void sim_output_release(struct sim_output *out);

/* ---- sessions and hooks ---- */

struct sim;                      /* a live simulation (opaque) */

struct sim_alloc {               /* one piece of a job's allocation */
	size_t node;             /* index into trace->nodes */
	double x;                /* GPUs taken on it */
};

struct sim_job_view {            /* what a hook may read about one job; valid during the call only */
	size_t index;            /* into trace->jobs */
	const struct trace_job *tj;
	bool hp;
	int model;               /* sim model index (sim_model_name), -1 = "*" */
	double gpu;
	double queued_since;     /* submit, or the time of its last eviction */
	double run_start;        /* current (or just closed) run */
	const struct sim_alloc *alloc;   /* the run's allocation, in placement order */
	size_t n_alloc;
};

/*
 * Hooks. Any member may be NULL; ctx is passed back untouched. The order inside one loop
 * iteration at time now is: arrivals with submit <= now + EPS are queued → at_instant →
 * start pass (gate consulted) → preemption → second start pass (if anything was evicted) →
 * the next event time is the minimum of the engine's candidates and next_wakeup → the
 * clock advances → after_advance → completions at the new time (run_closed, by job_id).
 * Evictions call run_closed(evicted = true) at the eviction, before the victim's GPUs are
 * released. A failing at_instant or check_policy stops the session with its message.
 */
struct sim_hooks {
	void *ctx;
	/* At sim_open and sim_set_policy: refuse a policy this controller cannot serve. */
	int (*check_policy)(void *ctx, const struct sim_policy *p, char *err, size_t errlen);
	/* The earliest scheduled wake-up strictly after 'after' (INFINITY: none). It joins the
	 * event-time minimum exactly like an arrival or a completion. */
	double (*next_wakeup)(void *ctx, const struct sim *s, double after);
	/* Every instant, after arrivals, before the start pass. */
	int (*at_instant)(void *ctx, struct sim *s, char *err, size_t errlen);
	/* After the clock moved to sim_now(s), before the completions at that time. */
	void (*after_advance)(void *ctx, struct sim *s);
	/*
	 * Spot admission gate, consulted by the start pass for every queued Spot job it
	 * reaches (in queue order) that fits its eligible free GPUs. gate_limit(model) is a
	 * demand above which no Spot job of that model would be admitted now (it may be
	 * generous, never too small); within one start pass it must never grow (it may shrink
	 * as Spot jobs start). gate_admit is the exact test. Both NULL: no gate.
	 */
	double (*gate_limit)(void *ctx, const struct sim *s, int model);
	bool (*gate_admit)(void *ctx, const struct sim *s, const struct sim_job_view *j);
	void (*run_started)(void *ctx, const struct sim *s, const struct sim_job_view *j);
	void (*run_closed)(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted);
	/* With a gate, the longest simulated time (s) the session keeps running while nothing
	 * runs, nothing arrives and only the gate holds queued jobs back (0: 30 days). */
	double idle_limit_seconds;
};

/* A session at the first arrival, nothing processed yet; hooks may be NULL (copied). NULL + message. */
struct sim *sim_open(const struct trace *t, const struct sim_policy *p, const struct sim_hooks *h, char *err, size_t errlen);
/* sim_open with room for `reserve` more jobs than the trace holds, for sim_replace_future. */
struct sim *sim_open_reserve(const struct trace *t, const struct sim_policy *p, const struct sim_hooks *h, size_t reserve, char *err,
			     size_t errlen);
/*
 * Run loop iterations while the current instant is before 'until' (INFINITY: to the end).
 * On return either sim_done(s), or sim_now(s) >= until - EPS and the instant at sim_now(s)
 * is not processed yet (its completions are). No event is injected at 'until': register
 * it as a hook wake-up when the stop must fall exactly there. 0, or -1 + message.
 */
int sim_advance(struct sim *s, double until, char *err, size_t errlen);
/* Switch the policy between two advances: the queue is re-sorted under the new key; runs
 * in progress keep their guarantee; check_policy may refuse. 0, or -1 + message. */
int sim_set_policy(struct sim *s, const struct sim_policy *p, char *err, size_t errlen);
/* Fork a session between two advances: an independent deep copy of the whole state (queue,
 * running set, remaining work, placement indexes, ledgers so far) that continues exactly as
 * the original would; h replaces the hooks (its context is the caller's copy of theirs) and
 * must be given exactly when the original has hooks, with a gate exactly when it has one.
 * Both sessions are closed separately. NULL + message. */
struct sim *sim_clone(const struct sim *s, const struct sim_hooks *h, char *err, size_t errlen);
/* sim_clone of the live state only, for a counterfactual (sim_replace_future + sim_drain):
 * the queued, running and not yet admitted jobs and the jobs that evicted a live one are
 * copied, the finished ones are not (their slots read as zero: not in the population, no
 * result), nor the step log before the oldest running job's epoch. Its cost follows the
 * live state, not the history. sim_finish refuses it. NULL + message. */
struct sim *sim_clone_live(const struct sim *s, const struct sim_hooks *h, char *err, size_t errlen);
/* sim_clone_live for a counterfactual whose future replaces s's at once: the jobs not yet
 * admitted are not copied either (the clone holds none until sim_replace_future), the live
 * ones are found from the queue and the running set, not by a scan of every slot, and the
 * large buffers are those of spare, an earlier such clone of s the caller is done with
 * (NULL: none), which is consumed (closed) either way: only the slots spare held are cleared.
 * A run of clones then costs the live state each, not the trace (issue 23). */
struct sim *sim_clone_live_reuse(const struct sim *s, const struct sim_hooks *h, struct sim *spare, char *err, size_t errlen);
/* The jobs in the evaluation population, ascending, into out (room for sim_job_count(s));
 * returns their number. On a live clone it reads only the slots the clone holds. */
size_t sim_population_indices(const struct sim *s, size_t *out);
/* Run to the end and move the results into out (the session can only be closed then). */
int sim_finish(struct sim *s, struct sim_output *out, char *err, size_t errlen);
void sim_close(struct sim *s);   /* accepts NULL */

/* Read-only state for hooks and drivers (O(1) unless noted). */
bool sim_done(const struct sim *s);
double sim_now(const struct sim *s);
/* Inside next_wakeup: the step's own next event time (an arrival, a completion, an HP
 * wake-up or a guarantee expiry; INFINITY: none), so a controller can skip an idle span. */
double sim_next_event(const struct sim *s);
const struct sim_policy *sim_policy(const struct sim *s);
const struct trace *sim_trace(const struct sim *s);
double sim_evaluation_start(const struct sim *s);
double sim_evaluation_end(const struct sim *s);
long long sim_capacity_gpus(const struct sim *s);
int sim_model_count(const struct sim *s);
const char *sim_model_name(const struct sim *s, int model);     /* "*" for -1 */
int sim_node_model(const struct sim *s, size_t node);
double sim_free_gpus(const struct sim *s, int model);           /* cached free of a model, -1 = all */
/* HP demand queued or running, kept as the original engine keeps it: + demand at
 * admission (trace order), then max(0, x - demand) at each completion (job_id order). */
double sim_hp_outstanding_gpus(const struct sim *s);
double sim_spot_backlog_gpus(const struct sim *s);   /* queued Spot demand, summed exactly */
double sim_running_spot_gpus(const struct sim *s);   /* running Spot allocations, summed exactly */
size_t sim_queued_spot_count(const struct sim *s);
/* Visit every running / queued job (deterministic order, not key order; O(n)). */
void sim_each_running(const struct sim *s, void (*fn)(void *ctx, const struct sim_job_view *j), void *ctx);
void sim_each_queued(const struct sim *s, void (*fn)(void *ctx, const struct sim_job_view *j), void *ctx);

/* ---- counterfactual branches (lib/sim/branch.c; sim_drain and sim_job_result_of: engine.c) ---- */

struct sim_job_state {           /* a job's private state (remaining work is never shown to agents) */
	bool queued, running, done;
	double remaining;            /* current remaining work */
	double queued_since, queue_seconds, run_start, run_guarantee, first_start, completion;
	long long preemptions, runs, eo;
	bool evaluation_population;
};
size_t sim_admitted(const struct sim *s);           /* jobs admitted so far (trace order prefix) */
size_t sim_job_count(const struct sim *s);          /* jobs of the session (after sim_replace_future: admitted + new) */
const struct trace_job *sim_job_trace(const struct sim *s, size_t index);
bool sim_job_in_population(const struct sim *s, size_t index);   /* in the evaluation population */
void sim_job_state(struct sim *s, size_t index, struct sim_job_state *out);
/*
 * Replace the future of a session (opened with sim_open_reserve): the jobs not admitted yet
 * are dropped and jobs[0..n) take their place (submit >= now, in (submit, id) order, the
 * array outliving the session; models must exist). Everything admitted keeps its state.
 * The evaluation population becomes the admitted jobs still queued or running that were in
 * it plus the new jobs with start <= submit <= end; the window is [start, end] and the
 * allocation integrals restart at zero. Meant for a fork()ed copy of a live session.
 */
int sim_replace_future(struct sim *s, const struct trace_job *jobs, size_t n, double start, double end, char *err, size_t errlen);
/* Run to the end and finalise the integrals like sim_finish, without collecting a result
 * per job (the session stays open: read it with the functions below). */
int sim_drain(struct sim *s, char *err, size_t errlen);
/* The ledgers and integrals so far (jobs[] is filled only by sim_finish). */
const struct sim_output *sim_output_so_far(const struct sim *s);
/* The result of one job as sim_finish would give it. */
void sim_job_result_of(const struct sim *s, size_t index, struct sim_job_result *r);
/* Replace the hooks of a session opened with hooks (h NULL: none from now on); the queue is
 * rebuilt since its lanes depend on the gate. 0, or -1 + message. */
int sim_set_hooks(struct sim *s, const struct sim_hooks *h, char *err, size_t errlen);
#endif
