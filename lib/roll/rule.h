/*
 * rule — the transparent candidate provider `rolling-workload-rule-v1` (docs/rolling-rules.md
 * "Workload rule"): catalog roles by field match, three branches on the cutoff observation,
 * deduplicate, pad to the budget. It sees only the observation (never an outcome).
 *   roles (first catalog match, catalog order):
 *     fifo_g  = fifo + enforce
 *     pre_g   = priority_preemptive + enforce + delay 0
 *     pre_o   = priority_preemptive + bypass + delay 0 + longest_remaining
 *     delay_o = priority_preemptive + bypass + delay > 0
 *     loss_o  = priority_preemptive + bypass + delay 0 + lowest_checkpoint_loss
 *   risk high, queued HP > 0, HP peak pressure >= 0.85 or recent/prior >= 1.25
 *                      → [base, pre_o, loss_o or pre_g]       "high-hp-or-forecast-risk"
 *   elif Spot share >= 0.55 → [base, pre_o, delay_o or fifo_g] "spot-heavy-history"
 *   else               → [base, fifo_g, pre_o]                 "balanced-or-low-pressure-history"
 *   then fifo_g, pre_g, pre_o, delay_o, loss_o and the sorted catalog pad the list; an id
 *   is taken once and only if it is in the catalog; stop at the budget (exactly 3).
 * Ids point into the catalog. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_RULE_H
#define SCHEDNAV_ROLL_RULE_H
#include "roll/config.h"
#include "roll/observe.h"
#include <stddef.h>

#define ROLL_RULE_ID "rolling-workload-rule-v1"

enum roll_role { ROLE_FIFO_G, ROLE_PRE_G, ROLE_PRE_O, ROLE_DELAY_O, ROLE_LOSS_O, ROLE_COUNT };
extern const char *const roll_role_names[ROLE_COUNT];

/* What the rule reads from the observation. */
struct roll_rule_inputs {
	enum roll_risk risk;               /* multi_timescale_state.regime.risk_level */
	long long queued_hp;               /* scheduler_state.queue.hp_job_count */
	double hp_peak_pressure;           /* workload_signals.hp_peak_active_pressure */
	double spot_share;                 /* workload_signals.spot_requested_gpu_share */
	double recent_to_prior;            /* workload_signals.hp_recent_to_prior_requested_gpu_ratio */
};

struct roll_rule_result {
	const char *ids[5];
	size_t n;
	const char *reason_code;
	const char *roles[ROLE_COUNT];     /* the action filling each role, NULL if none */
};

/* The rule's inputs from an observation. */
void roll_rule_inputs_of(const struct roll_observation *ob, struct roll_rule_inputs *in);
/* Role of each catalog action (first match in catalog order). */
void roll_rule_roles(const struct roll_catalog *cat, const char *roles[ROLE_COUNT]);
/* Candidates for budget (must be 3) with base = the safety action. -1 + message when the
 * budget is not 3 or the catalog cannot fill it. */
int roll_rule_candidates(const struct roll_catalog *cat, const char *base, int budget, const struct roll_rule_inputs *in,
			 struct roll_rule_result *out, char *err, size_t errlen);
#endif
