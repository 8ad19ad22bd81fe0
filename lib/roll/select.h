/*
 * select — from scenario evidence to one frozen action (docs/rolling-rules.md "Evaluation",
 * "Selection"):
 *   - a candidate passes iff every decision scenario passes both its audit and the queue
 *     guard; stress count = stress scenarios passing both; allocation = min over decision
 *     scenarios, HP JCT / HP queue / Spot JCT / eviction = max (nulls skipped);
 *   - hierarchy: hard filter (pass and allocation known) → allocation band (best − a < band,
 *     strict, on doubles) → min Spot p95 JCT (exact; stage only when > 1 remain and a value
 *     exists) → min eviction rate (same) → max stress count (whenever > 1 remain, recorded
 *     even when every count is 0);
 *   - none left → the safety action (`no_eligible_policy_safe_fifo`); one → `selected`; a
 *     tie (`tie_with_declared_safety_fallback`) → keep the active action if it is on the
 *     frontier → else the unique frontier action with the fewest changed control fields vs
 *     the active one (`tie_resolved_by_minimum_control_change`, a `minimize_control_changes`
 *     stage) → else the safety action if on the frontier → else the lexically smallest id;
 *   - v3 hold (Q8 kept): when the winner is the safety action, the active action is not,
 *     it has been active for less than the hold (now − since < hold − EPS) and its candidate
 *     passed, keep the active action. The hold never blocks a move between non-safety actions.
 * No weights anywhere. Arrays are caller-owned; results index the caller's candidate array.
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_SELECT_H
#define SCHEDNAV_ROLL_SELECT_H
#include "core/arena.h"
#include "core/json.h"
#include "roll/config.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_MAX_CANDIDATES ROLL_MAX_CATALOG
#define ROLL_MAX_SCENARIOS 4

/* A nullable number. */
struct roll_num { bool ok; double v; };

/* One candidate's evidence in one scenario. */
struct roll_scenario_result {
	bool stress;                       /* selection_role stress (else decision) */
	bool audit_passed, guard_passed;
	struct roll_num alloc, hp_jct_p95, hp_queue_p95, spot_jct_p95, eviction, guard_p95;
};

struct roll_candidate {
	const struct sim_policy *policy;
	struct roll_scenario_result sc[ROLL_MAX_SCENARIOS];
	size_t n_sc;
	/* filled by roll_candidate_aggregate: */
	bool hard_pass;
	int stress_pass, stress_count;
	struct roll_num alloc, hp_jct_p95, hp_queue_p95, spot_jct_p95, eviction;
};

/* Aggregate a candidate's scenarios as documented above. */
void roll_candidate_aggregate(struct roll_candidate *c);

enum roll_stage_kind { STAGE_HARD, STAGE_ALLOCATION, STAGE_SPOT_JCT, STAGE_EVICTION, STAGE_STRESS, STAGE_CONTROL };
extern const char *const roll_stage_names[6];

struct roll_stage {
	enum roll_stage_kind kind;
	double best;                       /* best_observed (allocation, JCT, eviction, stress count) */
	double band;                       /* allocation only */
	int distance;                      /* control only */
	size_t remaining[ROLL_MAX_CANDIDATES];
	size_t n;
};

struct roll_selection {
	struct roll_stage stages[6];
	size_t n_stages;
	size_t frontier[ROLL_MAX_CANDIDATES];
	size_t n_frontier;
	const char *status;
	const char *fallback;              /* declared fallback text, NULL when none was needed */
	const char *ranked_id;             /* the hierarchy's selection */
	const char *selected_id;           /* after the hold */
	bool hold_applied;
	double active_for;                 /* now − active_since when the hold applied */
};

struct roll_select_in {
	const struct roll_catalog *cat;
	const struct roll_candidate *cand;
	size_t n;
	double band;                       /* the SLO's allocation_tie_band */
	const char *safety_id, *active_id;
	double now;
	bool has_active_since;
	double active_since;
	long long hold;                    /* minimum_action_hold_seconds */
};

/* Rank and apply the hold. 0, or -1 + message when the safety action is not a candidate. */
int roll_select(const struct roll_select_in *in, struct roll_selection *out, char *err, size_t errlen);
/* The ranking object (stages, frontier, status, fallback, selected, ranking_fingerprint). */
struct json *roll_selection_json(struct arena *a, const struct roll_select_in *in, const struct roll_selection *s);
/* The minimum_hold_override object, or JSON null when the hold did not apply. */
struct json *roll_hold_json(struct arena *a, const struct roll_select_in *in, const struct roll_selection *s);
#endif
