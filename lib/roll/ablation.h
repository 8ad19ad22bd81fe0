/*
 * ablation — the rolling ablation evidence (docs/rolling-rules.md "Record", "Pairwise comparison",
 * "Gates", "Closeout") over per-(window, arm) facts that the caller reads from the metrics,
 * audit and result streams:
 *   - arm summary: windows, hard-SLO pass count, mean allocation / Spot p95 JCT / eviction
 *     over the windows where the value is known, scenario simulations and LLM calls;
 *   - pairwise comparison (left vs right): more passing windows wins → |Δ mean allocation|
 *     >= 0.01 → any Δ Spot p95 JCT (lower wins) → any Δ eviction (lower wins) → tie;
 *   - gates, with the agent arm (the study's `role: agent` arm, an exec: decider standing
 *     in for the original's multi-agent arm):
 *       agent_superiority_gate: supported iff the agent passes at least as many windows as
 *         every deployable comparator, has the same scenario-simulation count as every
 *         same-budget arm (the other rolling deciders with its budget) and is `better` than
 *         each of them; `incomplete` when a comparator is missing;
 *       agent_vs_ordinary_gate: supported iff the agent is `better` than the baseline;
 *       analyst_causal_value_gate: needs a masked arm (`role: masked`): supported iff window,
 *         simulation and LLM-call counts are equal and the agent is `better`; else
 *         `not_established`, or `incomplete` without a masked arm;
 *   - closeout: eligible = deployable arms passing every window; recommended = the eligible
 *     arm better than every other eligible arm (null when none is, e.g. the top two tie);
 *     the claim is supported only if both agent gates are; always `approval_pending` with
 *     production_change_applied false.
 * Records live in the caller's arena. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_ABLATION_H
#define SCHEDNAV_ROLL_ABLATION_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_ABLATION_MAX_ARMS 8
#define ROLL_ABLATION_STREAM_SCHEMA "schednav.rolling-ablation/1"        /* roll-ablation's stream */
#define ROLL_ABLATION_RECORD_SCHEMA "schednav.rolling-ablation-record/v1" /* one window x arm */

enum roll_arm_role { ARM_BASELINE, ARM_COMPARATOR, ARM_AGENT, ARM_MASKED, ARM_ORACLE };

struct roll_arm_def {
	const char *id;
	enum roll_arm_role role;
	bool rolling;                  /* a roll arm (has a rolling report) */
	bool deployable;               /* false for the oracle */
	long long budget;              /* candidates per decision (rolling arms) */
};

/* One (window, arm) as read from its streams. */
struct roll_cell {
	bool present, passed;
	bool has_alloc, has_jct, has_evict;
	double alloc, jct, evict;
	long long simulations, llm_calls;
};

struct roll_arm_summary {
	long long windows, passes, simulations, llm_calls;
	bool has_alloc, has_jct, has_evict;
	double alloc, jct, evict;      /* means */
};

/* Summarise arm a over n windows of cells[window]. */
void roll_arm_summarise(const struct roll_cell *cells, size_t n, struct roll_arm_summary *out);
/* "better", "worse" or "tie" of left against right (documented rule). */
const char *roll_compare_arms(const struct roll_arm_summary *l, const struct roll_arm_summary *r);

struct roll_gates {
	const char *superiority, *vs_ordinary, *analyst;
	const char *pairwise[ROLL_ABLATION_MAX_ARMS];   /* agent vs arm i, NULL when not compared */
	const char *eligible[ROLL_ABLATION_MAX_ARMS];
	size_t n_eligible;
	const char *recommended;       /* NULL = none */
	bool claim_supported;
};

/* Gates and closeout over the arms' summaries (n_arms <= ROLL_ABLATION_MAX_ARMS). */
void roll_gates_evaluate(const struct roll_arm_def *arms, const struct roll_arm_summary *sum, size_t n_arms, long long windows,
			 struct roll_gates *out);
#endif
