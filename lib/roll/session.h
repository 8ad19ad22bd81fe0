/*
 * session — rolling control inside one continuous simulator session (docs/rolling-rules.md
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
 * (sim_replace_future), installs the candidate and the frozen-quota gate, runs to the
 * scenario window's end cut + H (never drains: docs/rolling.md "Scenarios end at their
 * horizon"), closes what is still open there, computes the scenario population's metrics
 * with lib/eval and sends them (with the result fingerprint and the HP queue times) back
 * through a pipe. The live session is never touched.
 * The snapshot evaluator does the same on an in-memory copy of the session's live state
 * (sim_clone_live_reuse: neither the finished history nor the real future is copied, and
 * each copy takes over the previous scenario's buffers) in this process; both give the
 * same bytes (the fork path's evaluation crosses a pipe as text, so comparing them checks
 * that it arrives whole), the benchmark compares their cost.
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
#include "roll/decision.h"
#include "roll/predictor.h"
#include "sim/engine.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>


/* The live session (opaque; lib/roll/session_internal.h). */
struct roll_live;

/* How a session runs, fixed when it opens. */
struct roll_live_options {
	size_t reserve;                      /* room for scenario jobs (roll_live_reserve) */
	bool snapshot;                       /* evaluate in-process on a sim_clone instead of a fork() */
	/* the driver's sink for records */
	int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen);
	void *emit_ctx;
	/* resume: the first replay_n decisions are re-applied from the controller's plan (no
	 * scenario, no decider), each checked against its recorded state handoff fingerprint */
	long long replay_n;
	const char *pred_state_expect;       /* the checkpoint's predictor_state line (NULL: none) */
	/* called after each frozen decision (checkpoints); NULL = none */
	int (*frozen)(void *ctx, struct arena *a, char *err, size_t errlen);
	void *frozen_ctx;
};

/* Benchmark counters of a run (never in a record: they differ run to run). */
struct roll_live_timing {
	double first_cutoff_clock, first_cutoff_cpu;  /* clock_wall() and clock_rusage_cpu(2) at the first decision */
	double window_end_clock, window_end_cpu;      /* at the first instant at or after eval_end */
	double decide_seconds;                        /* whole decisions (observation, scenarios, evaluations, decider) */
	double eval_seconds, fork_seconds;            /* whole evaluations; fork() + setup */
	long long evaluations;
};

/* Open the live session with the predictor (NULL: none) and the rolling hooks: the session,
 * or NULL + message. */
struct roll_live *roll_live_open(struct roll_controller *ctl, const struct trace *exec, struct roll_predictor *pred,
				 const struct roll_live_options *o, char *err, size_t errlen);
/* Run the whole window; returns 0 when the session reached its end, ROLL_STEP_PENDING when
 * a decider stopped it (planning checkpoint), -1 + message. */
int roll_live_run(struct roll_live *l, struct sim_output *out, char *err, size_t errlen);
void roll_live_get_timing(const struct roll_live *l, struct roll_live_timing *t);
/* Close and free the session (NULL: nothing). */
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
