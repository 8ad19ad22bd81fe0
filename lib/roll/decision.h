/*
 * decision — one rolling decision at a cutoff (docs/rolling-rules.md), engine-agnostic: the
 * simulator side is reached only through struct roll_engine, so the whole procedure runs
 * the same against the live simulator session (roll) and against a scripted engine (the
 * unit tests). At each cutoff eval_start + k·I < eval_end − EPS:
 *   1. observe the live state and the inner predictor's latest decision (past only);
 *   2. candidates: the whole catalog for the oracle, else the declared list (--candidates)
 *      or the workload rule — always `budget` distinct catalog ids with the safety action;
 *   3. scenarios: `calibrated-p90` (decision) and, for dual-forecast-replay-v1, the
 *      `recent-history-replay` stress scenario; the oracle gets one `actual-future`;
 *   4. evaluate every candidate in every scenario from the live state (an enforcing
 *      candidate under the quota frozen at the cutoff), audit it against the safety
 *      candidate of the same scenario (audit.h) and apply the queue guard;
 *   5. select (select.h) — the hierarchy's pick after the hold is the recommendation;
 *   6. ask the decider (decider.h); a rejected reply is recorded and the safety action
 *      applies; the applied action is frozen before the engine advances into the future.
 * Records go out through engine->emit in this order per decision: rolling_observation,
 * scenario…, candidate_evidence…, rolling_decision. The controller's own state (index,
 * active action and since, chain fingerprint, totals) is plain data for the checkpoint.
 * Everything per decision lives in the arena passed to roll_step, except the observation
 * and scenario records, which live only until their emit returns (memory is the live state
 * plus one decision, not its records; since issue 23 no record grows with the backlog).
 * Nothing prints or exits.
 */
#ifndef SCHEDNAV_ROLL_DECISION_H
#define SCHEDNAV_ROLL_DECISION_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "eval/slo.h"
#include "roll/config.h"
#include "roll/decider.h"
#include "roll/observe.h"
#include "roll/scenario.h"
#include "roll/select.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_REPORT_SCHEMA "schednav.rolling-control-report/v1"
#define ROLL_CHECKPOINT_SCHEMA "schednav.rolling-planning-checkpoint/v1"
#define ROLL_CHECKPOINT_STREAM_SCHEMA "schednav.rolling-planning-checkpoint/1"   /* the stream holding it */

/* What one scenario evaluation of one candidate returns. */
struct roll_eval {
	struct json *metrics;              /* flat metrics record of the scenario run */
	char metrics_fp[FP_HEX_XXH3];               /* its stream fingerprint */
	char result_fp[FP_HEX_XXH3];                /* the scenario result's fingerprint */
	const double *hp_queue;            /* queue seconds of the scenario population's HP jobs */
	size_t n_hp_queue;
};

struct roll_engine {
	void *ctx;
	int (*state)(void *ctx, struct arena *a, struct roll_state *out, char *err, size_t errlen);
	const struct roll_projection *(*projection)(void *ctx, struct arena *a);   /* NULL = none yet */
	/* frozen: the quota an enforcing candidate runs under, NULL for bypass or no projection */
	int (*evaluate)(void *ctx, struct arena *a, const struct sim_policy *p, const struct roll_scenario *s,
			const struct roll_projection *frozen, struct roll_eval *out, char *err, size_t errlen);
	/* rec is valid only during the call: write it or copy what is kept */
	int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen);
};

/* The most decisions one window may hold: a whole 184-day trace at the v3 interval (7,200 s)
 * is about 2,200, so 4,096 leaves room for a year. */
#define ROLL_MAX_DECISIONS 4096

/* The controller's checkpointed state. */
struct roll_progress {
	long long index;                   /* decisions frozen so far */
	int active;                        /* catalog index of the active action */
	bool has_since;
	double since;
	char prev_fp[FP_HEX_XXH3];                  /* last decision_fingerprint, "" before the first */
	long long simulations, llm_calls, prompt_tokens, completion_tokens, rejections, holds;
	int applied[ROLL_MAX_DECISIONS];   /* catalog index applied at each decision */
	char handoff[ROLL_MAX_DECISIONS][FP_HEX_XXH3];   /* state_handoff_fingerprint of each decision */
	char request[ROLL_MAX_DECISIONS][FP_HEX_XXH3];   /* request fingerprint of each decision */
};

struct roll_controller {
	const struct roll_config *cfg;
	const struct roll_catalog *cat;
	const struct slo_spec *slo;
	const struct trace *exec, *history;
	struct roll_decider *decider;
	const char *const *fixed;          /* --candidates list (NULL = the rule) */
	size_t n_fixed;
	double guard_threshold;
	double eval_start, eval_end;
	const char *arm_id;
	struct roll_progress p;
	struct json *pending_request;      /* set when roll_step returns ROLL_STEP_PENDING */
	struct roll_samples *samples;      /* duration samples, grown cutoff to cutoff */
};

#define ROLL_STEP_DONE 0
#define ROLL_STEP_PENDING 1

/* Initialise: checks the config against the catalog and the SLO (safety action, budget,
 * candidate list, guard constraint, ranking block). 0 or -1 + message. */
int roll_controller_init(struct roll_controller *c, const struct roll_config *cfg, const struct roll_catalog *cat,
			 const struct slo_spec *slo, const struct trace *exec, const struct trace *history,
			 struct roll_decider *decider, const char *const *fixed, size_t n_fixed, const char *arm_id,
			 char *err, size_t errlen);
/* Free what the controller allocated (the duration samples). */
void roll_controller_release(struct roll_controller *c);
/* Number of decisions the window holds: ceil((end − start)/I − EPS), at least 0. */
long long roll_expected_decisions(const struct roll_controller *c);
/* Time of the next decision; valid while roll_due. */
double roll_next_cutoff(const struct roll_controller *c);
bool roll_due(const struct roll_controller *c);
/* The active policy (the safety action before the first decision). */
const struct sim_policy *roll_active(const struct roll_controller *c);
/* Make the decision due at roll_next_cutoff; the engine's clock must be there. */
int roll_step(struct roll_controller *c, const struct roll_engine *e, struct arena *a, char *err, size_t errlen);
/* plan:FILE deciders: -1 + message (PLAN:LINE) when the plan answers a request this run
 * never asked (none of the decisions made, nor the pending one); else 0. */
int roll_plan_check(const struct roll_controller *c, char *err, size_t errlen);
/* The rolling_report record after the last decision. */
struct json *roll_report(const struct roll_controller *c, struct arena *a);
/* The rolling_planning_checkpoint record for the pending request. */
struct json *roll_planning_checkpoint(const struct roll_controller *c, struct arena *a);
/* Controller state as a record / back from one (checkpoint files). */
struct json *roll_progress_json(const struct roll_controller *c, struct arena *a);
int roll_progress_load(struct roll_controller *c, const struct json *rec, char *err, size_t errlen);
#endif
