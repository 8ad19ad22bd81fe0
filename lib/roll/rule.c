#include "roll/rule.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const roll_role_names[ROLE_COUNT] = { "fifo_guarded", "preemptive_guarded", "preemptive_open", "delayed_open",
	"loss_aware_open" };

void roll_rule_inputs_of(const struct roll_observation *ob, struct roll_rule_inputs *in)
{
	in->risk = ob->risk;
	in->queued_hp = ob->risk_in.queued_hp;
	in->hp_peak_pressure = ob->signals.hp_peak_pressure;
	in->spot_share = ob->signals.spot_share;
	in->recent_to_prior = ob->signals.recent_to_prior;
}

static bool enforce(const struct sim_policy *p) { return !roll_bypass(p); }
static bool bypass(const struct sim_policy *p) { return roll_bypass(p); }

static bool has_role(const struct sim_policy *p, enum roll_role r)
{
	bool pre = p->scheduler == SCHED_PRIORITY_PREEMPTIVE;
	switch (r) {
	case ROLE_FIFO_G: return p->scheduler == SCHED_FIFO && enforce(p);
	case ROLE_PRE_G: return pre && enforce(p) && p->hp_delay_seconds == 0;
	case ROLE_PRE_O: return pre && bypass(p) && p->hp_delay_seconds == 0 && p->victim_order == VICTIM_LONGEST_REMAINING;
	case ROLE_DELAY_O: return pre && bypass(p) && p->hp_delay_seconds > 0;
	default: return pre && bypass(p) && p->hp_delay_seconds == 0 && p->victim_order == VICTIM_LOWEST_CHECKPOINT_LOSS;
	}
}

void roll_rule_roles(const struct roll_catalog *cat, const char *roles[ROLE_COUNT])
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		roles[r] = NULL;
		for (size_t i = 0; i < cat->n && !roles[r]; i++)
			if (has_role(&cat->actions[i], (enum roll_role)r))
				roles[r] = cat->actions[i].action_id;
	}
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int roll_rule_candidates(const struct roll_catalog *cat, const char *base, int budget, const struct roll_rule_inputs *in,
			 struct roll_rule_result *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (budget != 3) {
		snprintf(err, errlen, "%s requires candidate_budget 3, not %d", ROLL_RULE_ID, budget);
		return -1;
	}
	const char **role = out->roles;
	roll_rule_roles(cat, role);
	const char *desired[3];
	if (in->risk == ROLL_RISK_HIGH || in->queued_hp > 0 || in->hp_peak_pressure >= 0.85 || in->recent_to_prior >= 1.25) {
		out->reason_code = "high-hp-or-forecast-risk";
		desired[0] = base, desired[1] = role[ROLE_PRE_O], desired[2] = role[ROLE_LOSS_O] ? role[ROLE_LOSS_O] : role[ROLE_PRE_G];
	} else if (in->spot_share >= 0.55) {
		out->reason_code = "spot-heavy-history";
		desired[0] = base, desired[1] = role[ROLE_PRE_O], desired[2] = role[ROLE_DELAY_O] ? role[ROLE_DELAY_O] : role[ROLE_FIFO_G];
	} else {
		out->reason_code = "balanced-or-low-pressure-history";
		desired[0] = base, desired[1] = role[ROLE_FIFO_G], desired[2] = role[ROLE_PRE_O];
	}
	const char *order[3 + ROLE_COUNT + ROLL_MAX_CATALOG], *sorted[ROLL_MAX_CATALOG];
	size_t n = 0;
	for (int i = 0; i < 3; i++)
		order[n++] = desired[i];
	for (int r = 0; r < ROLE_COUNT; r++)
		order[n++] = role[r];
	for (size_t i = 0; i < cat->n; i++)
		sorted[i] = cat->actions[i].action_id;
	qsort(sorted, cat->n, sizeof *sorted, cmp_str);
	for (size_t i = 0; i < cat->n; i++)
		order[n++] = sorted[i];
	for (size_t i = 0; i < n && out->n < (size_t)budget; i++) {
		const char *id = order[i];
		if (!id || roll_catalog_index(cat, id) < 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < out->n; k++)
			dup = dup || !strcmp(out->ids[k], id);
		if (!dup)
			out->ids[out->n++] = id;
	}
	bool has_base = false;
	for (size_t k = 0; k < out->n; k++)
		has_base = has_base || !strcmp(out->ids[k], base);
	if (!has_base || out->n != (size_t)budget) {
		snprintf(err, errlen, "workload rule could not form %d candidates including '%s' from the catalog", budget, base);
		return -1;
	}
	return 0;
}
