#include "roll/select.h"
#include "eval/evidence.h"
#include <stdio.h>
#include <string.h>

const char *const roll_stage_names[6] = { "hard_slo_filter", "maximize_allocation_rate", "minimize_spot_p95_jct",
	"minimize_spot_eviction_rate_per_run", "maximize_stress_scenario_pass_count_after_slo_tie", "minimize_control_changes" };

static void take(struct roll_num *dst, struct roll_num v, bool minimize)
{
	if (!v.ok)
		return;
	if (!dst->ok || (minimize ? v.v < dst->v : v.v > dst->v))
		*dst = v;
}

void roll_candidate_aggregate(struct roll_candidate *c)
{
	c->hard_pass = true;
	c->stress_pass = c->stress_count = 0;
	c->alloc = c->hp_jct_p95 = c->hp_queue_p95 = c->spot_jct_p95 = c->eviction = (struct roll_num){ false, 0 };
	for (size_t i = 0; i < c->n_sc; i++) {
		const struct roll_scenario_result *s = &c->sc[i];
		bool pass = s->audit_passed && s->guard_passed;
		if (s->stress) {
			c->stress_count++;
			c->stress_pass += pass;
			continue;
		}
		c->hard_pass = c->hard_pass && pass;
		take(&c->alloc, s->alloc, true);
		take(&c->hp_jct_p95, s->hp_jct_p95, false);
		take(&c->hp_queue_p95, s->hp_queue_p95, false);
		take(&c->spot_jct_p95, s->spot_jct_p95, false);
		take(&c->eviction, s->eviction, false);
	}
}

static struct roll_stage *stage(struct roll_selection *s, enum roll_stage_kind k, const size_t *rem, size_t n)
{
	struct roll_stage *st = &s->stages[s->n_stages++];
	memset(st, 0, sizeof *st);
	st->kind = k;
	memcpy(st->remaining, rem, n * sizeof *rem);
	st->n = n;
	return st;
}

/* Keep the remaining candidates whose metric equals the exact minimum (or maximum) of those
 * that have one; the stage is recorded only when some value exists. */
static size_t extreme_stage(struct roll_selection *s, const struct roll_candidate *c, size_t *rem, size_t n,
			    enum roll_stage_kind k, bool minimize)
{
	struct roll_num best = { false, 0 };
	for (size_t i = 0; i < n; i++) {
		const struct roll_candidate *x = &c[rem[i]];
		struct roll_num v = k == STAGE_SPOT_JCT ? x->spot_jct_p95 : k == STAGE_EVICTION ? x->eviction :
				    (struct roll_num){ true, (double)x->stress_pass };
		take(&best, v, minimize);
	}
	if (!best.ok)
		return n;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct roll_candidate *x = &c[rem[i]];
		struct roll_num v = k == STAGE_SPOT_JCT ? x->spot_jct_p95 : k == STAGE_EVICTION ? x->eviction :
				    (struct roll_num){ true, (double)x->stress_pass };
		if (v.ok && v.v == best.v)
			rem[m++] = rem[i];
	}
	stage(s, k, rem, m)->best = best.v;
	return m;
}

static int find(const struct roll_select_in *in, const char *id)
{
	for (size_t i = 0; id && i < in->n; i++)
		if (!strcmp(in->cand[i].policy->action_id, id))
			return (int)i;
	return -1;
}

int roll_select(const struct roll_select_in *in, struct roll_selection *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	int safety = find(in, in->safety_id);
	if (safety < 0) {
		snprintf(err, errlen, "the safety action '%s' is not among the candidates", in->safety_id);
		return -1;
	}
	const struct roll_candidate *c = in->cand;
	size_t rem[ROLL_MAX_CANDIDATES], n = 0;
	for (size_t i = 0; i < in->n; i++)
		if (c[i].hard_pass && c[i].alloc.ok)
			rem[n++] = i;
	stage(s, STAGE_HARD, rem, n);
	if (n > 0) {
		double best = c[rem[0]].alloc.v;
		for (size_t i = 1; i < n; i++)
			if (c[rem[i]].alloc.v > best)
				best = c[rem[i]].alloc.v;
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (best - c[rem[i]].alloc.v < in->band)
				rem[m++] = rem[i];
		n = m;
		struct roll_stage *st = stage(s, STAGE_ALLOCATION, rem, n);
		st->best = best;
		st->band = in->band;
	}
	if (n > 1)
		n = extreme_stage(s, c, rem, n, STAGE_SPOT_JCT, true);
	if (n > 1)
		n = extreme_stage(s, c, rem, n, STAGE_EVICTION, true);
	if (n > 1)
		n = extreme_stage(s, c, rem, n, STAGE_STRESS, false);
	memcpy(s->frontier, rem, n * sizeof *rem);
	s->n_frontier = n;
	if (n == 0) {
		s->ranked_id = in->safety_id;
		s->status = "no_eligible_policy_safe_fifo";
		s->fallback = "no candidate passed every hard constraint in every decision scenario: the safety action applies";
	} else if (n == 1) {
		s->ranked_id = c[rem[0]].policy->action_id;
		s->status = "selected";
	} else {
		s->status = "tie_with_declared_safety_fallback";
		int active = find(in, in->active_id);
		bool active_on = false, safety_on = false;
		for (size_t i = 0; i < n; i++) {
			active_on = active_on || (int)rem[i] == active;
			safety_on = safety_on || (int)rem[i] == safety;
		}
		size_t nearest[ROLL_MAX_CANDIDATES], nn = 0;
		int min_d = -1;
		if (!active_on && active >= 0) {
			for (size_t i = 0; i < n; i++) {
				int d = roll_control_distance(in->cat, c[rem[i]].policy, c[active].policy);
				if (min_d < 0 || d < min_d)
					min_d = d, nn = 0;
				if (d == min_d)
					nearest[nn++] = rem[i];
			}
		}
		if (active_on) {
			s->ranked_id = in->active_id;
			s->fallback = "keep the active action: it is on the tied frontier";
		} else if (nn == 1) {
			s->ranked_id = c[nearest[0]].policy->action_id;
			s->status = "tie_resolved_by_minimum_control_change";
			s->fallback = "the tied action with the fewest changed control fields relative to the active action";
			stage(s, STAGE_CONTROL, nearest, 1)->distance = min_d;
		} else if (safety_on) {
			s->ranked_id = in->safety_id;
			s->fallback = "the safety action is on the unresolved tied frontier";
		} else {
			const char *low = NULL;
			for (size_t i = 0; i < n; i++)
				if (!low || strcmp(c[rem[i]].policy->action_id, low) < 0)
					low = c[rem[i]].policy->action_id;
			s->ranked_id = low;
			s->fallback = "the lexically smallest action id, the last declared fallback";
		}
	}
	s->selected_id = s->ranked_id;
	int active = find(in, in->active_id);
	if (!strcmp(s->ranked_id, in->safety_id) && in->active_id && strcmp(in->active_id, in->safety_id) && in->has_active_since &&
	    in->now - in->active_since < (double)in->hold - ROLL_EPS && active >= 0 && c[active].hard_pass) {
		s->hold_applied = true;
		s->active_for = in->now - in->active_since;
		s->selected_id = in->active_id;
	}
	return 0;
}

static struct json *ids_json(struct arena *a, const struct roll_select_in *in, const size_t *idx, size_t n)
{
	struct json *arr = json_array(a);
	for (size_t i = 0; i < n; i++)
		json_push(a, arr, json_str(a, in->cand[idx[i]].policy->action_id));
	return arr;
}

struct json *roll_selection_json(struct arena *a, const struct roll_select_in *in, const struct roll_selection *s)
{
	struct json *o = json_object(a), *stages = json_array(a);
	json_set(a, o, "selection_status", json_str(a, s->status));
	for (size_t i = 0; i < s->n_stages; i++) {
		const struct roll_stage *st = &s->stages[i];
		struct json *x = json_object(a);
		json_set(a, x, "stage", json_str(a, roll_stage_names[st->kind]));
		if (st->kind == STAGE_ALLOCATION || st->kind == STAGE_SPOT_JCT || st->kind == STAGE_EVICTION)
			json_set(a, x, "best_observed", json_real(a, st->best));
		if (st->kind == STAGE_STRESS)
			json_set(a, x, "best_observed", json_int(a, (long long)st->best));
		if (st->kind == STAGE_ALLOCATION)
			json_set(a, x, "strict_tie_band", json_real(a, st->band));
		if (st->kind == STAGE_CONTROL)
			json_set(a, x, "distance", json_int(a, st->distance));
		json_set(a, x, "remaining_action_ids", ids_json(a, in, st->remaining, st->n));
		json_push(a, stages, x);
	}
	json_set(a, o, "stages", stages);
	json_set(a, o, "frontier_action_ids", ids_json(a, in, s->frontier, s->n_frontier));
	json_set(a, o, "selected_action_id", json_str(a, s->ranked_id));
	json_set(a, o, "execution_fallback", s->fallback ? json_str(a, s->fallback) : json_null(a));
	json_set(a, o, "weighted_score_used", json_bool(a, false));
	ev_self_fp_stamp(a, o, "ranking_fingerprint");
	return o;
}

struct json *roll_hold_json(struct arena *a, const struct roll_select_in *in, const struct roll_selection *s)
{
	if (!s->hold_applied)
		return json_null(a);
	struct json *o = json_object(a);
	json_set(a, o, "original_selected_action_id", json_str(a, s->ranked_id));
	json_set(a, o, "retained_action_id", json_str(a, s->selected_id));
	json_set(a, o, "active_for_seconds", json_real(a, s->active_for));
	json_set(a, o, "minimum_action_hold_seconds", json_int(a, in->hold));
	json_set(a, o, "reason", json_str(a, "keep a still-eligible non-safety action for the minimum hold to avoid control chatter"));
	return o;
}
