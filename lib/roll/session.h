/*
 * session — rolling control inside one continuous simulator session (docs/rolling.md
 * "Handoff"): the roll_engine of control.h over a live sim session with the inner
 * predictor attached. Queue, waits, allocations, remaining work, ledgers, predictor state,
 * eta and feedback persist across decisions because nothing is ever re-initialised.
 *
 * Hooks: the predictor's hooks are wrapped; at each cutoff (a wake-up of its own) the
 * rolling decision runs inside at_instant, after the arrivals of the instant and the
 * predictor's update and before the start pass, and the frozen action is installed with
 * sim_set_policy before the simulator goes on into the real future.
 *
 * Scenario evaluations start from the live state at the cutoff: the process fork()s, and
 * the child replaces the future of its copy of the session with the scenario's jobs
 * (sim_replace_future), installs the candidate and the frozen-quota gate, runs to the end
 * and streams the scenario's result (the scenario population only) back through a pipe;
 * the parent computes its metrics with lib/eval. The live session is never touched.
 * The snapshot evaluator does the same on an in-memory copy of the session's live state
 * (sim_clone_live_reuse: neither the finished history nor the real future is copied, and
 * each copy takes over the previous scenario's buffers) in this process, and computes the
 * metrics from the simulator's output (result_from_output: no stream is written); both
 * give the same bytes (the fork path reads a real stream, so comparing them checks the
 * in-process metrics), the benchmark compares their cost.
 * The frozen gate admits a Spot job while cut <= now < cut + H iff cluster running Spot +
 * its demand <= the cutoff's aggregate quota of its horizon + EPS (Q6); outside, always.
 *
 * Memory: the live structure owns its arrays; records handed to emit live in the decision
 * arena. Nothing here prints or exits (the child reports failures through its pipe and
 * _exit()s, so no exit handler of the parent runs in it).
 */
#ifndef SCHEDNAV_ROLL_SESSION_H
#define SCHEDNAV_ROLL_SESSION_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "roll/predictor.h"
#include "roll/control.h"
#include "sim/engine.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

struct roll_live {
	struct roll_controller *ctl;
	const struct trace *exec;
	struct sim *sim;
	struct roll_predictor *pred;       /* the inner predictor (NULL: none) */
	struct sim_hooks pc_hooks;         /* the predictor's hooks, wrapped */
	/* what the scheduler state needs that the session does not keep */
	double *hp_queue, *hp_jct;         /* evaluation HP completed so far (round6, sorted) */
	size_t n_hp, cap_hp;
	long long closed_spot_runs, evictions;
	struct fp_xxh3 prefix;             /* visible prefix fingerprint, fed in trace order */
	size_t prefix_n;
	/* the driver's sink for records */
	int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen);
	void *emit_ctx;
	/* resume: the first replay_n decisions are re-applied from ctl->p (no scenario, no
	 * decider), each checked against its recorded state handoff fingerprint */
	long long replay_n, replayed;
	const char *pred_state_expect;     /* the checkpoint's predictor_state line (NULL: none) */
	/* called after each frozen decision (checkpoints); NULL = none */
	int (*frozen)(void *ctx, struct arena *a, char *err, size_t errlen);
	void *frozen_ctx;
	/* set when a decision asked the run to stop (plan: pending); the pending request
	 * lives in pending_arena until roll_live_close */
	bool stopped;
	struct arena pending_arena;
	bool snapshot;                       /* evaluate in-process on a sim_clone instead of a fork() */
	struct sim *spare;                   /* snapshot: the last scenario's clone, whose buffers the next one reuses */
	double fork_seconds, eval_seconds;   /* benchmark counters: fork() + setup, whole evaluations */
	double decide_seconds;               /* whole decisions (observation, scenarios, evaluations, decider) */
	double first_cutoff_clock;           /* clock_wall() when the first decision started */
	double first_cutoff_cpu;             /* clock_rusage_cpu(2) then */
	double window_end_cpu, window_end_clock;  /* at the first instant at or after eval_end */
	long long evaluations;
	char err[1024];
};

/* Open the live session (reserve: room for scenario jobs) with the predictor and the
 * rolling hooks. 0 or -1 + message. */
int roll_live_open(struct roll_live *l, struct roll_controller *ctl, const struct trace *exec, struct roll_predictor *pred,
		   size_t reserve, char *err, size_t errlen);
/* Run the whole window; returns 0 when the session reached its end, ROLL_STEP_PENDING when
 * a decider stopped it (planning checkpoint), -1 + message. */
int roll_live_run(struct roll_live *l, struct sim_output *out, char *err, size_t errlen);
void roll_live_close(struct roll_live *l);
/* The roll_engine callbacks bound to l (for roll_step). */
void roll_live_engine(struct roll_live *l, struct roll_engine *e);
/* The engine state at the cutoff as records (checkpoint files): engine_state (with the state
 * handoff fingerprint), one engine_job per queued or running job, and with an inner
 * predictor its predictor_state (roll_predictor_state_json), which a resume checks. */
int roll_live_state_records(struct roll_live *l, struct arena *a, int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen),
			    void *ctx, char *err, size_t errlen);
/* Slots a scenario of this window can need: history jobs of any (cut − H, cut] plus the
 * forecast pieces (256 per point), an upper bound. */
size_t roll_live_reserve(const struct roll_controller *ctl, const struct trace *exec, const struct trace *history, size_t pools);
#endif
