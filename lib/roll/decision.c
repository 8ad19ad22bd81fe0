#include "roll/decision.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "eval/evidence.h"
#include "roll/audit.h"
#include "roll/rule.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DECISIONS ((long long)ROLL_MAX_DECISIONS)

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

int roll_controller_init(struct roll_controller *c, const struct roll_config *cfg, const struct roll_catalog *cat,
			 const struct slo_spec *slo, const struct trace *exec, const struct trace *history,
			 struct roll_decider *decider, const char *const *fixed, size_t n_fixed, const char *arm_id,
			 char *err, size_t errlen)
{
	char e[300];
	memset(c, 0, sizeof *c);
	c->cfg = cfg, c->cat = cat, c->slo = slo, c->exec = exec, c->history = history, c->decider = decider;
	c->fixed = fixed, c->n_fixed = n_fixed, c->arm_id = arm_id;
	int safety = roll_catalog_index(cat, cfg->safety_id);
	if (safety < 0) {
		snprintf(e, sizeof e, "safety action '%s' of the rolling config is not in the action space", cfg->safety_id);
		return fail(err, errlen, e);
	}
	if (strcmp(cat->safety_id, cfg->safety_id)) {
		snprintf(e, sizeof e, "the rolling config's safety action '%s' differs from the action space's '%s'", cfg->safety_id, cat->safety_id);
		return fail(err, errlen, e);
	}
	if (!slo->has_ranking)
		return fail(err, errlen, "the SLO spec has no 'ranking' block");
	if (roll_guard_threshold(slo, cfg->queue_guard_id, &c->guard_threshold, err, errlen))
		return -1;
	bool oracle = !roll_decider_deployable(decider);
	if (oracle && fixed)
		return fail(err, errlen, "the oracle evaluates the whole catalog: --candidates does not apply");
	if (!oracle && (size_t)cfg->budget > cat->n) {
		snprintf(e, sizeof e, "candidate_budget %d exceeds the %zu actions of the action space", cfg->budget, cat->n);
		return fail(err, errlen, e);
	}
	if (fixed) {
		bool has_safety = false;
		if (n_fixed != (size_t)cfg->budget) {
			snprintf(e, sizeof e, "--candidates must name exactly %d actions", cfg->budget);
			return fail(err, errlen, e);
		}
		for (size_t i = 0; i < n_fixed; i++) {
			if (roll_catalog_index(cat, fixed[i]) < 0) {
				snprintf(e, sizeof e, "candidate '%s' is not in the action space", fixed[i]);
				return fail(err, errlen, e);
			}
			for (size_t k = 0; k < i; k++)
				if (!strcmp(fixed[k], fixed[i])) {
					snprintf(e, sizeof e, "candidate '%s' is named twice", fixed[i]);
					return fail(err, errlen, e);
				}
			has_safety = has_safety || !strcmp(fixed[i], cfg->safety_id);
		}
		if (!has_safety) {
			snprintf(e, sizeof e, "--candidates must include the safety action '%s'", cfg->safety_id);
			return fail(err, errlen, e);
		}
	} else if (!oracle && cfg->budget != 3)
		return fail(err, errlen, "the workload rule needs candidate_budget 3 (or give --candidates)");
	if (exec->has_window) {
		c->eval_start = exec->eval_start;
		c->eval_end = exec->eval_end;
	} else
		return fail(err, errlen, "the execution trace declares no evaluation window");
	if (!(c->eval_end > c->eval_start))
		return fail(err, errlen, "the evaluation window must have a positive duration");
	/* A history without a window was not cut for this window by trace-window (so it can hold
	 * jobs the cut leaves out) and gave other decisions: the same window is required. */
	if (!history->has_window) {
		snprintf(e, sizeof e, "the workload-history trace declares no evaluation window; it must share the execution trace's [%.17g, %.17g] "
			 "(trace-window --eval-start %.17g --eval-end %.17g ...)", c->eval_start, c->eval_end, c->eval_start, c->eval_end);
		return fail(err, errlen, e);
	}
	if (history->eval_start != c->eval_start || history->eval_end != c->eval_end)
		return fail(err, errlen, "the workload-history trace must share the execution trace's evaluation window");
	if (trace_capacity(history, "*") != trace_capacity(exec, "*"))
		return fail(err, errlen, "the workload-history trace must have the execution trace's capacity");
	if (roll_expected_decisions(c) > MAX_DECISIONS) {
		snprintf(e, sizeof e, "the window holds more than %lld decisions", MAX_DECISIONS);
		return fail(err, errlen, e);
	}
	c->p.active = safety;
	return 0;
}

void roll_controller_release(struct roll_controller *c)
{
	roll_samples_free(c->samples);
	c->samples = NULL;
}

long long roll_expected_decisions(const struct roll_controller *c)
{
	double k = ceil((c->eval_end - c->eval_start) / (double)c->cfg->interval - ROLL_EPS);
	return k > 0 ? (long long)k : 0;
}

double roll_next_cutoff(const struct roll_controller *c)
{
	return c->eval_start + (double)(c->p.index * c->cfg->interval);
}

bool roll_due(const struct roll_controller *c)
{
	return c->p.index < MAX_DECISIONS && roll_next_cutoff(c) < c->eval_end - ROLL_EPS;
}

const struct sim_policy *roll_active(const struct roll_controller *c)
{
	return &c->cat->actions[c->p.active];
}

static struct json *num_or_null(struct arena *a, struct roll_num v)
{
	return v.ok ? json_real(a, v.v) : json_null(a);
}

/* A metrics value as a roll_num. */
static struct roll_num metric(const struct json *m, const char *key)
{
	struct json *v = json_get(m, key);
	return v && json_is_num(v) ? (struct roll_num){ true, json_num(v) } : (struct roll_num){ false, 0 };
}

struct scn_run {
	struct roll_scenario s;
	struct json *record;
	struct roll_eval ev[ROLL_MAX_CANDIDATES];
	struct json *audit[ROLL_MAX_CANDIDATES];
	struct roll_guard guard[ROLL_MAX_CANDIDATES];
	bool passed[ROLL_MAX_CANDIDATES];
};

static struct json *scenario_evidence_json(struct arena *a, const struct scn_run *r, size_t k)
{
	const struct json *m = r->ev[k].metrics;
	struct json *o = json_object(a);
	json_set(a, o, "scenario_profile_id", json_str(a, r->s.profile_id));
	json_set(a, o, "selection_role", json_str(a, r->s.stress ? "stress" : "decision"));
	json_set(a, o, "scenario_fingerprint", json_str(a, r->s.fp));
	json_set(a, o, "result_fingerprint", json_str(a, r->ev[k].result_fp));
	json_set(a, o, "metrics_fingerprint", json_str(a, r->ev[k].metrics_fp));
	json_set(a, o, "audit_fingerprint", json_clone(a, json_get(r->audit[k], "audit_fingerprint")));
	json_set(a, o, "hard_slo_passed", json_bool(a, r->passed[k]));
	json_set(a, o, "failed_constraint_ids", json_clone(a, json_get(r->audit[k], "failed_constraint_ids")));
	json_set(a, o, "unavailable_constraint_ids", json_clone(a, json_get(r->audit[k], "unavailable_constraint_ids")));
	static const char *const keys[] = { "allocation_rate_mean", "hp_job_count", "spot_job_count", "hp_jct_p95_seconds",
		"hp_queue_p95_seconds", "spot_jct_p95_seconds", "spot_eviction_rate_per_run", "spot_guarantee_success_rate", NULL };
	for (const char *const *key = keys; *key; key++) {
		struct json *v = json_get(m, *key);
		json_set(a, o, *key, v ? json_clone(a, v) : json_null(a));
	}
	struct json *src = json_get(m, "source"), *cen = src ? json_get(src, "horizon_censoring") : NULL;
	json_set(a, o, "horizon_censoring", cen ? json_clone(a, cen) : json_null(a));
	const struct roll_guard *g = &r->guard[k];
	json_set(a, o, "projected_terminal_hp_queue_p95_seconds", g->has_p95 ? json_real(a, num_round(g->p95, 6)) : json_null(a));
	json_set(a, o, "prospective_queue_guard_threshold_seconds", json_real(a, g->threshold));
	json_set(a, o, "prospective_queue_guard_passed", json_bool(a, g->passed));
	json_set(a, o, "audit", r->audit[k]);
	return o;
}

static struct json *candidate_json(struct arena *a, const struct roll_controller *c, const struct roll_candidate *cd,
				   struct scn_run *runs, size_t n_runs, size_t k, double cut)
{
	struct json *o = json_object(a), *sc = json_array(a);
	json_set(a, o, "type", json_str(a, "candidate_evidence"));
	json_set(a, o, "decision_index", json_int(a, c->p.index));
	json_set(a, o, "cutoff_time_seconds", json_real(a, cut));
	json_set(a, o, "action_id", json_str(a, cd->policy->action_id));
	json_set(a, o, "policy_fingerprint", json_str(a, cd->policy->fingerprint));
	json_set(a, o, "control_profile", roll_control_profile(a, cd->policy));
	json_set(a, o, "hard_slo_passed", json_bool(a, cd->hard_pass));
	json_set(a, o, "stress_scenario_pass_count", json_int(a, cd->stress_pass));
	json_set(a, o, "stress_scenario_count", json_int(a, cd->stress_count));
	json_set(a, o, "allocation_rate_mean", num_or_null(a, cd->alloc));
	json_set(a, o, "hp_jct_p95_seconds", num_or_null(a, cd->hp_jct_p95));
	json_set(a, o, "hp_queue_p95_seconds", num_or_null(a, cd->hp_queue_p95));
	json_set(a, o, "spot_jct_p95_seconds", num_or_null(a, cd->spot_jct_p95));
	json_set(a, o, "spot_eviction_rate_per_run", num_or_null(a, cd->eviction));
	struct json *agg = json_object(a);
	json_set(a, agg, "hard_slo", json_str(a, "must pass the audit and the queue guard in every decision scenario"));
	json_set(a, agg, "stress_scenarios", json_str(a, "counted; used only after the declared hierarchy is tied"));
	json_set(a, agg, "allocation_rate_mean", json_str(a, "minimum across decision scenarios"));
	json_set(a, agg, "latency_and_eviction", json_str(a, "maximum across decision scenarios"));
	json_set(a, o, "robust_aggregation", agg);
	for (size_t i = 0; i < n_runs; i++)
		json_push(a, sc, scenario_evidence_json(a, &runs[i], k));
	json_set(a, o, "scenario_evidence", sc);
	json_set(a, o, "non_deployable", json_bool(a, !roll_decider_deployable(c->decider)));
	ev_self_fp_stamp(a, o, "evidence_fingerprint");
	return o;
}

static const struct sim_policy *policy_of(const struct roll_controller *c, const char *id)
{
	return roll_catalog_find(c->cat, id);
}

/* Step 2: the candidate ids. */
static int candidates(const struct roll_controller *c, const struct roll_observation *ob, const char **ids, size_t *n,
		      struct json **selection, struct arena *a, char *err, size_t errlen)
{
	struct json *o = json_object(a), *arr = json_array(a), *roles = json_object(a);
	const char *provider, *reason;
	*n = 0;
	if (!roll_decider_deployable(c->decider)) {
		provider = "post-hoc-catalog-oracle-v1";
		reason = "post-hoc-full-catalog-upper-bound";
		for (size_t i = 0; i < c->cat->n; i++)
			ids[(*n)++] = c->cat->actions[i].action_id;
	} else if (c->fixed) {
		provider = "declared-candidate-list";
		reason = "declared-candidate-list";
		for (size_t i = 0; i < c->n_fixed; i++)
			ids[(*n)++] = c->fixed[i];
	} else {
		struct roll_rule_inputs in;
		struct roll_rule_result rr;
		roll_rule_inputs_of(ob, &in);
		if (roll_rule_candidates(c->cat, c->cfg->safety_id, c->cfg->budget, &in, &rr, err, errlen))
			return -1;
		provider = ROLL_RULE_ID;
		reason = rr.reason_code;
		for (size_t i = 0; i < rr.n; i++)
			ids[(*n)++] = rr.ids[i];
		for (int r = 0; r < ROLE_COUNT; r++)
			json_set(a, roles, roll_role_names[r], rr.roles[r] ? json_str(a, rr.roles[r]) : json_null(a));
	}
	for (size_t i = 0; i < *n; i++)
		json_push(a, arr, json_str(a, ids[i]));
	json_set(a, o, "provider_id", json_str(a, provider));
	json_set(a, o, "observation_fingerprint", json_str(a, ob->fp));
	json_set(a, o, "candidate_action_ids", arr);
	json_set(a, o, "reason_code", json_str(a, reason));
	json_set(a, o, "roles", roles);
	ev_self_fp_stamp(a, o, "selection_fingerprint");
	*selection = o;
	return 0;
}

static bool enforcing(const struct sim_policy *p)
{
	return !roll_bypass(p);
}

/* The scenarios of this cutoff (the actual future for the oracle; else the calibrated
 * one and, with dual, the stress replay) into runs; returns how many. */
static size_t build_scenarios(struct roll_controller *c, struct arena *a, const struct roll_state *st,
	const struct roll_projection *proj, const struct roll_observation *ob, double cut, bool oracle,
	const char *proj_fp, struct scn_run *runs, char *stress_fp)
{
	size_t n_runs = 0;
	struct roll_carry_est *carry_est = arena_alloc(a, sizeof *carry_est);
	memset(carry_est, 0, sizeof *carry_est);
	/* the scenarios of this cutoff share their carryover's estimates */
	struct roll_scenario_in sin = { c->exec, c->history, cut, c->cfg->horizon, st, NULL, 0, proj_fp, NULL, false, false,
		NULL, carry_est, NULL, NULL };
	if (!c->samples)
		c->samples = roll_samples_new(c->exec, c->history);
	roll_samples_advance(c->samples, cut);
	sin.samples = c->samples;
	if (oracle) {
		sin.profile_id = "actual-future";
		sin.actual_future = true;
		roll_scenario_build(a, &sin, &runs[n_runs++].s);
	} else {
		sin.profile_id = "calibrated-p90";
		sin.points = proj ? proj->points : NULL;
		sin.n_points = proj ? proj->n_points : 0;
		sin.scenario_pool = proj ? proj->scenario_pool : NULL;
		sin.scenario_tenant = proj ? proj->scenario_tenant : NULL;
		roll_scenario_build(a, &sin, &runs[n_runs++].s);
		if (c->cfg->dual) {
			if (proj)
				roll_projection_stress_json(a, proj, ob->projection_fp, stress_fp);
			sin.profile_id = "recent-history-replay";
			sin.stress = true;
			sin.points = NULL;
			sin.n_points = 0;
			sin.projection_fp = proj ? stress_fp : NULL;
			roll_scenario_build(a, &sin, &runs[n_runs++].s);
		}
	}
	return n_runs;
}

/* The decision request (stamped), or NULL with err when the rebuilt observation differs. */
static struct json *decision_request(struct roll_controller *c, struct arena *a, double cut, bool oracle,
	const struct roll_observation_in *oin, const struct roll_observation *ob, struct json **evidence, size_t nc,
	struct json *ranking, struct json *hold, const struct roll_selection *sel, char *err, size_t errlen)
{
	struct json *req = json_object(a), *cands = json_array(a);
	json_set(a, req, "type", json_str(a, "decision_request"));
	json_set(a, req, "protocol", json_str(a, ROLL_PROTOCOL));
	json_set(a, req, "decision_index", json_int(a, c->p.index));
	json_set(a, req, "cutoff_time_seconds", json_real(a, cut));
	json_set(a, req, "non_deployable", json_bool(a, oracle));
	json_set(a, req, "required_safety_action_id", json_str(a, c->cfg->safety_id));
	json_set(a, req, "active_action_id", json_str(a, roll_active(c)->action_id));
	/* The request's observation: the whole record again for a decider that reads the request
	 * (exec: its line; plan: the planning checkpoint), rebuilt from the same state (the same
	 * bytes, checked by its fingerprint); else the fingerprint standing in for it, which is
	 * all the request's own fingerprint hashes of it (roll_request_stamp). */
	struct json *obs_rec;
	if (roll_decider_full_request(c->decider)) {
		struct roll_observation ob2;
		roll_observe(a, oin, &ob2);
		if (strcmp(ob2.fp, ob->fp)) {
			snprintf(err, errlen, "the observation at %.17g rebuilt for the decision request differs from the one written", cut);
			return NULL;
		}
		obs_rec = ob2.record;
	} else {
		obs_rec = json_object(a);
		json_set(a, obs_rec, "observation_fingerprint", json_str(a, ob->fp));
	}
	json_set(a, req, "observation", obs_rec);
	for (size_t k = 0; k < nc; k++)
		json_push(a, cands, evidence[k]);
	json_set(a, req, "candidates", cands);
	json_set(a, req, "ranking", ranking);
	json_set(a, req, "minimum_hold_override", hold);
	json_set(a, req, "recommended_action_id", json_str(a, sel->selected_id));
	struct json *rc = json_object(a), *keys = json_array(a);
	static const char *const reply_keys[] = { "type", "request_id", "action_id", "reason_code", NULL };
	for (const char *const *k = reply_keys; *k; k++)
		json_push(a, keys, json_str(a, *k));
	json_set(a, rc, "type", json_str(a, "decision"));
	json_set(a, rc, "required_keys", keys);
	struct json *opt = json_array(a);
	json_set(a, rc, "optional_integer_keys", opt);
	json_push(a, opt, json_str(a, "llm_call_count"));
	json_push(a, opt, json_str(a, "prompt_tokens"));
	json_push(a, opt, json_str(a, "completion_tokens"));
	json_set(a, rc, "action_id_must_be_a_candidate", json_bool(a, true));
	json_set(a, rc, "reason_code_max_characters", json_int(a, ROLL_REASON_MAX));
	json_set(a, rc, "on_rejection", json_str(a, "the safety action applies and the rejection is recorded"));
	json_set(a, req, "reply_contract", rc);
	roll_request_stamp(a, req);
	return req;
}

/* The frozen decision's record (stamped). */
static struct json *decision_json(const struct roll_controller *c, struct arena *a, double cut, bool oracle,
	const struct roll_observation *ob, const struct roll_state *st, const struct roll_projection *proj,
	struct json *quota_by_hour, struct json *selection, size_t nc, const struct scn_run *runs, size_t n_runs,
	struct json *ev_fps, struct json *ranking, struct json *hold, const struct roll_selection *sel,
	const char *request_id, const struct roll_reply *reply, const struct sim_policy *applied)
{
	struct json *d = json_object(a), *x;
	json_set(a, d, "type", json_str(a, "rolling_decision"));
	json_set(a, d, "decision_index", json_int(a, c->p.index));
	json_set(a, d, "cutoff_time_seconds", json_real(a, cut));
	double end = cut + (double)c->cfg->interval;
	json_set(a, d, "execution_end_time_seconds", json_real(a, end < c->eval_end ? end : c->eval_end));
	json_set(a, d, "previous_decision_fingerprint", c->p.prev_fp[0] ? json_str(a, c->p.prev_fp) : json_null(a));
	json_set(a, d, "scheduler_snapshot_fingerprint", json_str(a, ob->snapshot_fp));
	json_set(a, d, "state_handoff_fingerprint", st->handoff_fp ? json_str(a, st->handoff_fp) : json_null(a));
	json_set(a, d, "observation_fingerprint", json_str(a, ob->fp));
	json_set(a, d, "predictive_projection_fingerprint", proj ? json_str(a, ob->projection_fp) : json_null(a));
	x = json_object(a);
	json_set(a, x, "regime", json_clone(a, json_get(ob->mts, "regime")));
	json_set(a, x, "change", json_clone(a, json_get(ob->mts, "change")));
	json_set(a, x, "runtime_pressure", json_clone(a, json_get(ob->mts, "runtime_pressure")));
	json_set(a, x, "forecast_risk", json_clone(a, json_get(ob->mts, "forecast_risk")));
	json_set(a, x, "maximum_hp_queue_wait_seconds", json_real(a, st->max_hp_wait));
	json_set(a, x, "spot_quota_gpus_by_guarantee_hour",
		 proj ? quota_by_hour : json_null(a));
	json_set(a, x, "queued_hp_requested_gpus", json_real(a, st->queue_hp_gpus));
	json_set(a, d, "cutoff_state_summary", x);
	json_set(a, d, "candidate_selection", selection);
	json_set(a, d, "candidate_budget_consumed", json_int(a, (long long)nc));
	json_set(a, d, "candidate_simulation_count", json_int(a, (long long)(nc * n_runs)));
	x = json_object(a);
	json_set(a, x, "scenario_set_id", json_str(a, oracle ? "actual-future-oracle" : c->cfg->scenario_set_id));
	json_set(a, x, "scenario_count", json_int(a, (long long)n_runs));
	struct json *pids = json_array(a), *sfps = json_array(a);
	for (size_t i = 0; i < n_runs; i++) {
		json_push(a, pids, json_str(a, runs[i].s.profile_id));
		json_push(a, sfps, json_str(a, runs[i].s.fp));
	}
	json_set(a, x, "scenario_profile_ids", pids);
	json_set(a, x, "scenario_fingerprints", sfps);
	json_set(a, x, "start_state", json_str(a, "live-simulator-state-at-cutoff"));
	json_set(a, x, "future_arrivals_visible", json_bool(a, oracle));
	json_set(a, x, "carryover_runtime_estimator", json_str(a, "cutoff-visible-conditional-survival-median/v1"));
	json_set(a, x, "robust_hard_slo_requires_every_decision_scenario", json_bool(a, true));
	json_set(a, x, "predictive_admission_mode_evaluated_per_action", json_bool(a, true));
	json_set(a, d, "scenario", x);
	json_set(a, d, "candidate_evidence_fingerprints", ev_fps);
	json_set(a, d, "ranking", ranking);
	json_set(a, d, "minimum_hold_override", hold);
	json_set(a, d, "recommended_action_id", json_str(a, sel->selected_id));
	json_set(a, d, "request_fingerprint", json_str(a, request_id));
	x = json_object(a);
	json_set(a, x, "kind", json_str(a, roll_decider_kind_name(c->decider)));
	json_set(a, x, "deployable", json_bool(a, !oracle));
	json_set(a, d, "decider", x);
	json_set(a, d, "decider_reply", roll_reply_json(a, reply));
	json_set(a, d, "safety_action_applied_after_rejection", json_bool(a, !reply->accepted));
	json_set(a, d, "selected_action_id", json_str(a, applied->action_id));
	json_set(a, d, "selected_policy_fingerprint", json_str(a, applied->fingerprint));
	json_set(a, d, "non_deployable", json_bool(a, oracle));
	json_set(a, d, "real_future_execution_frozen_after_selection", json_bool(a, true));
	ev_self_fp_stamp(a, d, "decision_fingerprint");
	return d;
}

/* Freeze the applied action and count the decision. */
static int freeze(struct roll_controller *c, double cut, const struct sim_policy *applied, const struct roll_state *st,
	const char *request_id, struct json *d, const struct roll_reply *reply, const struct roll_selection *sel,
	long long sims, char *err, size_t errlen)
{
	int applied_k = roll_catalog_index(c->cat, applied->action_id);
	if (applied_k != c->p.active || !c->p.has_since) {
		c->p.since = cut;
		c->p.has_since = true;
	}
	c->p.active = applied_k;
	long long i = c->p.index;
	c->p.applied[i] = applied_k;
	snprintf(c->p.handoff[i], 33, "%s", st->handoff_fp ? st->handoff_fp : "");
	snprintf(c->p.request[i], 33, "%s", request_id);
	snprintf(c->p.prev_fp, sizeof c->p.prev_fp, "%s", json_get_str(d, "decision_fingerprint"));
	/* Each count is at most ROLL_USAGE_MAX (protocol.c); the sums are bounded too. */
	if (c->p.llm_calls > ROLL_USAGE_SUM_MAX - reply->llm_calls || c->p.prompt_tokens > ROLL_USAGE_SUM_MAX - reply->prompt_tokens ||
	    c->p.completion_tokens > ROLL_USAGE_SUM_MAX - reply->completion_tokens) {
		snprintf(err, errlen, "decision %lld: the run's llm_usage would exceed %lld (2^53) calls or tokens", c->p.index,
			 ROLL_USAGE_SUM_MAX);
		return -1;
	}
	c->p.simulations += sims;
	c->p.llm_calls += reply->llm_calls;
	c->p.prompt_tokens += reply->prompt_tokens;
	c->p.completion_tokens += reply->completion_tokens;
	c->p.rejections += !reply->accepted;
	c->p.holds += sel->hold_applied;
	c->p.index++;
	return 0;
}

int roll_step(struct roll_controller *c, const struct roll_engine *e, struct arena *a, char *err, size_t errlen)
{
	double cut = roll_next_cutoff(c);
	bool oracle = !roll_decider_deployable(c->decider);
	struct roll_state st;
	if (e->state(e->ctx, a, &st, err, errlen))
		return -1;
	const struct roll_projection *proj = e->projection(e->ctx, a);
	struct roll_observation ob;
	struct roll_observation_in oin = { c->cfg, c->cat, c->history, &st, proj, oracle };
	/* The observation (a few KB since issue 23's lean records: the carryover and the completed
	 * HP jobs as counts, fingerprints and summaries) lives in an arena of its own until it is
	 * written; the decision keeps only its fingerprints and the parts it reads later (memory
	 * bounded by the live state plus one decision). */
	struct arena oa;
	arena_init(&oa);
	roll_observe(&oa, &oin, &ob);
	if (e->emit(e->ctx, ob.record, err, errlen)) {
		arena_release(&oa);
		return -1;
	}
	ob.mts = json_clone(a, ob.mts);
	struct json *quota_by_hour =
		proj ? json_clone(a, json_get(json_get(ob.record, "predictive_projection"), "spot_quota_gpus_by_guarantee_hour")) : NULL;
	ob.record = NULL;
	arena_release(&oa);

	const char *ids[ROLL_MAX_CANDIDATES];
	size_t nc;
	struct json *selection;
	if (candidates(c, &ob, ids, &nc, &selection, a, err, errlen))
		return -1;

	/* Scenarios. */
	struct scn_run *runs = arena_alloc(a, ROLL_MAX_SCENARIOS * sizeof *runs);
	size_t n_runs = 0;
	char stress_fp[FP_HEX_XXH3] = "";
	const char *proj_fp = proj ? ob.projection_fp : NULL;
	n_runs = build_scenarios(c, a, &st, proj, &ob, cut, oracle, proj_fp, runs, stress_fp);
	int safety_k = -1;
	for (size_t k = 0; k < nc; k++)
		if (!strcmp(ids[k], c->cfg->safety_id))
			safety_k = (int)k;
	for (size_t i = 0; i < n_runs; i++) {
		struct scn_run *r = &runs[i];
		/* the record is written and dropped: only its fingerprint (r->s.fp) is read later */
		struct arena ra;
		arena_init(&ra);
		r->record = roll_scenario_json(&ra, &r->s, c->exec->trace_id, ob.snapshot_fp, r->s.stress ? (proj ? stress_fp : NULL) : proj_fp,
					       c->p.index);
		int erc = e->emit(e->ctx, r->record, err, errlen);
		r->record = NULL;
		arena_release(&ra);
		if (erc)
			return -1;
		for (size_t k = 0; k < nc; k++) {
			const struct sim_policy *p = policy_of(c, ids[k]);
			const struct roll_projection *frozen = enforcing(p) && proj && proj->n_quota ? proj : NULL;
			if (e->evaluate(e->ctx, a, p, &r->s, frozen, &r->ev[k], err, errlen))
				return -1;
		}
		for (size_t k = 0; k < nc; k++) {
			r->audit[k] = roll_scenario_audit(c->slo, a, r->ev[k].metrics, r->ev[k].metrics_fp, r->ev[safety_k].metrics,
							  r->ev[safety_k].metrics_fp, &r->passed[k]);
			roll_queue_guard(c->guard_threshold, st.hp_completed_queue, st.n_hp_completed, r->ev[k].hp_queue, r->ev[k].n_hp_queue,
					 &r->guard[k]);
		}
	}

	/* Candidate evidence, selection. */
	struct roll_candidate *cand = arena_alloc(a, nc * sizeof *cand);
	struct json *ev_fps = json_array(a), *evidence[ROLL_MAX_CANDIDATES];
	for (size_t k = 0; k < nc; k++) {
		struct roll_candidate *cd = &cand[k];
		memset(cd, 0, sizeof *cd);
		cd->policy = policy_of(c, ids[k]);
		for (size_t i = 0; i < n_runs; i++) {
			const struct json *m = runs[i].ev[k].metrics;
			cd->sc[cd->n_sc++] = (struct roll_scenario_result){ runs[i].s.stress, runs[i].passed[k], runs[i].guard[k].passed,
				metric(m, "allocation_rate_mean"), metric(m, "hp_jct_p95_seconds"), metric(m, "hp_queue_p95_seconds"),
				metric(m, "spot_jct_p95_seconds"), metric(m, "spot_eviction_rate_per_run"),
				{ runs[i].guard[k].has_p95, runs[i].guard[k].p95 } };
		}
		roll_candidate_aggregate(cd);
		evidence[k] = candidate_json(a, c, cd, runs, n_runs, k, cut);
		if (e->emit(e->ctx, evidence[k], err, errlen))
			return -1;
		json_push(a, ev_fps, json_clone(a, json_get(evidence[k], "evidence_fingerprint")));
	}
	struct roll_select_in si = { c->cat, cand, nc, c->slo->tie_band, c->cfg->safety_id, roll_active(c)->action_id, cut,
		c->p.has_since, c->p.since, c->cfg->hold };
	struct roll_selection sel;
	if (roll_select(&si, &sel, err, errlen))
		return -1;
	struct json *ranking = roll_selection_json(a, &si, &sel), *hold = roll_hold_json(a, &si, &sel);

	/* The decision request. */
	struct json *req = decision_request(c, a, cut, oracle, &oin, &ob, evidence, nc, ranking, hold, &sel, err, errlen);
	if (!req)
		return -1;
	const char *request_id = json_get_str(req, "request_id");
	struct strbuf line;
	sb_init(&line);
	if (roll_decider_reads_request(c->decider))   /* only a coprocess reads the request line */
		json_write(&line, req);
	char why[300];
	snprintf(why, sizeof why, "declared-hierarchy:%s%s", sel.status, sel.hold_applied ? "+minimum-hold" : "");
	struct roll_reply reply;
	int dr = roll_decide(c->decider, a, line.buf, line.len, request_id, ids, nc, sel.selected_id, why, &reply);
	sb_release(&line);
	if (dr == ROLL_DECIDE_PENDING) {
		c->pending_request = req;
		return ROLL_STEP_PENDING;
	}
	const char *applied_id = reply.accepted ? reply.action_id : c->cfg->safety_id;
	const struct sim_policy *applied = policy_of(c, applied_id);

	/* The frozen decision. */
	struct json *d = decision_json(c, a, cut, oracle, &ob, &st, proj, quota_by_hour, selection, nc, runs, n_runs, ev_fps,
		ranking, hold, &sel, request_id, &reply, applied);
	long long sims = (long long)(nc * n_runs);
	if (e->emit(e->ctx, d, err, errlen))
		return -1;

	/* Freeze. */
	if (freeze(c, cut, applied, &st, request_id, d, &reply, &sel, sims, err, errlen))
		return -1;
	return ROLL_STEP_DONE;
}

int roll_plan_check(const struct roll_controller *c, char *err, size_t errlen)
{
	const char *asked[MAX_DECISIONS + 1];
	size_t n = 0;
	for (long long i = 0; i < c->p.index && i < MAX_DECISIONS; i++)
		asked[n++] = c->p.request[i];
	const char *pending = c->pending_request ? json_get_str(c->pending_request, "request_id") : NULL;
	if (pending)
		asked[n++] = pending;
	const struct roll_plan_entry *e = roll_decider_plan_unasked(c->decider, asked, n);
	if (e) {
		snprintf(err, errlen, "%s:%zu: a reply to request '%.40s', which this run did not ask%s", c->decider->spec + 5, e->lineno,
			 e->request_id, pending ? " (answer the pending request of the planning checkpoint)" : "");
		return -1;
	}
	return 0;
}

struct json *roll_report(const struct roll_controller *c, struct arena *a)
{
	bool oracle = !roll_decider_deployable(c->decider);
	struct json *o = json_object(a), *x, *arr;
	json_set(a, o, "type", json_str(a, "rolling_report"));
	json_set(a, o, "schema_version", json_str(a, ROLL_REPORT_SCHEMA));
	json_set(a, o, "controller_id", json_str(a, c->cfg->controller_id));
	json_set(a, o, "controller_fingerprint", json_str(a, c->cfg->fingerprint));
	json_set(a, o, "action_space_fingerprint", json_str(a, c->cat->fingerprint));
	json_set(a, o, "arm_id", json_str(a, c->arm_id));
	json_set(a, o, "decider_kind", json_str(a, roll_decider_kind_name(c->decider)));
	json_set(a, o, "deployable", json_bool(a, !oracle));
	json_set(a, o, "non_deployable", json_bool(a, oracle));
	x = json_object(a);
	json_set(a, x, "start", json_real(a, c->eval_start));
	json_set(a, x, "end", json_real(a, c->eval_end));
	json_set(a, o, "evidence_window_seconds", x);
	json_set(a, o, "decision_interval_seconds", json_int(a, c->cfg->interval));
	json_set(a, o, "minimum_action_hold_seconds", json_int(a, c->cfg->hold));
	json_set(a, o, "decision_count", json_int(a, c->p.index));
	json_set(a, o, "expected_decision_count", json_int(a, roll_expected_decisions(c)));
	json_set(a, o, "candidate_budget_per_decision", json_int(a, oracle ? (long long)c->cat->n : c->cfg->budget));
	json_set(a, o, "baseline_action_id", json_str(a, c->cfg->safety_id));
	json_set(a, o, "candidate_scenario_set_id", json_str(a, oracle ? "actual-future-oracle" : c->cfg->scenario_set_id));
	json_set(a, o, "candidate_simulation_count", json_int(a, c->p.simulations));
	x = json_object(a);
	json_set(a, x, "call_count", json_int(a, c->p.llm_calls));
	json_set(a, x, "prompt_tokens", json_int(a, c->p.prompt_tokens));
	json_set(a, x, "completion_tokens", json_int(a, c->p.completion_tokens));
	json_set(a, o, "llm_usage", x);
	json_set(a, o, "rejected_reply_count", json_int(a, c->p.rejections));
	json_set(a, o, "minimum_hold_override_count", json_int(a, c->p.holds));
	x = json_object(a);
	json_set(a, x, "agent_future_arrivals_visible", json_bool(a, false));
	json_set(a, x, "candidate_actual_future_visible", json_bool(a, oracle));
	json_set(a, x, "candidate_scenarios", json_str(a, oracle ? "post-hoc actual future; non-deployable upper bound" :
		c->cfg->dual ? "cutoff-safe calibrated-P90 and recent-history scenarios from the live simulator state" :
		"cutoff-safe calibrated-P90 scenario from the live simulator state"));
	json_set(a, x, "real_future_executed_only_after_each_selection", json_bool(a, true));
	json_set(a, o, "information_boundary", x);
	x = json_object(a);
	json_set(a, x, "single_simulator_session", json_bool(a, true));
	json_set(a, x, "state_reinitialized_between_cutoffs", json_bool(a, false));
	arr = json_array(a);
	static const char *const kept[] = { "running allocations", "queue order and wait", "remaining work",
		"preemption and Spot-run ledgers", "predictive model and quota feedback", NULL };
	for (const char *const *k = kept; *k; k++)
		json_push(a, arr, json_str(a, *k));
	json_set(a, x, "preserved_state", arr);
	arr = json_array(a);
	for (long long i = 0; i < c->p.index; i++)
		json_push(a, arr, json_str(a, c->p.handoff[i]));
	json_set(a, x, "decision_state_fingerprints", arr);
	json_set(a, o, "state_handoff", x);
	arr = json_array(a);
	for (long long i = 0; i < c->p.index; i++)
		json_push(a, arr, json_str(a, c->cat->actions[c->p.applied[i]].action_id));
	json_set(a, o, "selected_action_sequence", arr);
	json_set(a, o, "last_decision_fingerprint", c->p.prev_fp[0] ? json_str(a, c->p.prev_fp) : json_null(a));
	json_set(a, o, "weighted_score_used", json_bool(a, false));
	ev_self_fp_stamp(a, o, "report_fingerprint");
	return o;
}

struct json *roll_planning_checkpoint(const struct roll_controller *c, struct arena *a)
{
	struct json *o = json_object(a), *arr = json_array(a);
	json_set(a, o, "type", json_str(a, "rolling_planning_checkpoint"));
	json_set(a, o, "schema_version", json_str(a, ROLL_CHECKPOINT_SCHEMA));
	json_set(a, o, "controller_id", json_str(a, c->cfg->controller_id));
	json_set(a, o, "controller_fingerprint", json_str(a, c->cfg->fingerprint));
	json_set(a, o, "arm_id", json_str(a, c->arm_id));
	json_set(a, o, "completed_decision_count", json_int(a, c->p.index));
	for (long long i = 0; i < c->p.index; i++)
		json_push(a, arr, json_str(a, c->p.request[i]));
	json_set(a, o, "completed_request_fingerprints", arr);
	json_set(a, o, "latest_decision_fingerprint", c->p.prev_fp[0] ? json_str(a, c->p.prev_fp) : json_null(a));
	json_set(a, o, "pending_request", c->pending_request);
	json_set(a, o, "pending_request_fingerprint", json_clone(a, json_get(c->pending_request, "request_fingerprint")));
	json_set(a, o, "pending_observation_fingerprint",
		 json_clone(a, json_get(json_get(c->pending_request, "observation"), "observation_fingerprint")));
	struct json *ib = json_object(a);
	json_set(a, ib, "future_arrivals_visible", json_bool(a, false));
	json_set(a, ib, "real_execution_stopped_at_pending_cutoff", json_bool(a, true));
	json_set(a, o, "information_boundary", ib);
	ev_self_fp_stamp(a, o, "checkpoint_fingerprint");
	return o;
}

struct json *roll_progress_json(const struct roll_controller *c, struct arena *a)
{
	const struct roll_progress *p = &c->p;
	struct json *o = json_object(a), *ap = json_array(a), *hf = json_array(a), *rq = json_array(a);
	json_set(a, o, "type", json_str(a, "rolling_controller_state"));
	json_set(a, o, "decision_index", json_int(a, p->index));
	json_set(a, o, "active_action_id", json_str(a, c->cat->actions[p->active].action_id));
	json_set(a, o, "active_since_seconds", p->has_since ? json_real(a, p->since) : json_null(a));
	json_set(a, o, "last_decision_fingerprint", p->prev_fp[0] ? json_str(a, p->prev_fp) : json_null(a));
	json_set(a, o, "candidate_simulation_count", json_int(a, p->simulations));
	json_set(a, o, "llm_call_count", json_int(a, p->llm_calls));
	json_set(a, o, "prompt_tokens", json_int(a, p->prompt_tokens));
	json_set(a, o, "completion_tokens", json_int(a, p->completion_tokens));
	json_set(a, o, "rejected_reply_count", json_int(a, p->rejections));
	json_set(a, o, "minimum_hold_override_count", json_int(a, p->holds));
	for (long long i = 0; i < p->index; i++) {
		json_push(a, ap, json_str(a, c->cat->actions[p->applied[i]].action_id));
		json_push(a, hf, json_str(a, p->handoff[i]));
		json_push(a, rq, json_str(a, p->request[i]));
	}
	json_set(a, o, "applied_action_ids", ap);
	json_set(a, o, "state_handoff_fingerprints", hf);
	json_set(a, o, "request_fingerprints", rq);
	return o;
}

static int get_count(const struct json *rec, const char *key, long long *out, char *err, size_t errlen)
{
	struct json *v = json_get(rec, key);
	if (!v || v->kind != JSON_INT || v->u.i < 0) {
		snprintf(err, errlen, "controller state: '%s' must be a non-negative integer", key);
		return -1;
	}
	*out = v->u.i;
	return 0;
}

static int fp_list(const struct json *rec, const char *key, long long n, char (*dst)[FP_HEX_XXH3], char *err, size_t errlen)
{
	struct json *v = json_get(rec, key);
	if (!v || v->kind != JSON_ARRAY || (long long)v->u.arr.n != n) {
		snprintf(err, errlen, "controller state: '%s' must hold %lld entries", key, n);
		return -1;
	}
	for (long long i = 0; i < n; i++) {
		struct json *s = v->u.arr.items[i];
		if (s->kind != JSON_STRING || s->u.str.len > 32) {
			snprintf(err, errlen, "controller state: '%s' entries must be fingerprints", key);
			return -1;
		}
		snprintf(dst[i], 33, "%s", s->u.str.s);
	}
	return 0;
}

int roll_progress_load(struct roll_controller *c, const struct json *rec, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "decision_index", "active_action_id", "active_since_seconds",
		"last_decision_fingerprint", "candidate_simulation_count", "llm_call_count", "prompt_tokens", "completion_tokens",
		"rejected_reply_count", "minimum_hold_override_count", "applied_action_ids", "state_handoff_fingerprints",
		"request_fingerprints", NULL };
	struct roll_progress p;
	memset(&p, 0, sizeof p);
	if (nd_check_keys(rec, ND_KEYS(keys), err, errlen))
		return -1;
	if (get_count(rec, "decision_index", &p.index, err, errlen) || get_count(rec, "candidate_simulation_count", &p.simulations, err, errlen) ||
	    get_count(rec, "llm_call_count", &p.llm_calls, err, errlen) || get_count(rec, "prompt_tokens", &p.prompt_tokens, err, errlen) ||
	    get_count(rec, "completion_tokens", &p.completion_tokens, err, errlen) ||
	    get_count(rec, "rejected_reply_count", &p.rejections, err, errlen) ||
	    get_count(rec, "minimum_hold_override_count", &p.holds, err, errlen))
		return -1;
	if (p.index > MAX_DECISIONS)
		return fail(err, errlen, "controller state: too many decisions");
	if (p.llm_calls > ROLL_USAGE_SUM_MAX || p.prompt_tokens > ROLL_USAGE_SUM_MAX || p.completion_tokens > ROLL_USAGE_SUM_MAX)
		return fail(err, errlen, "controller state: an llm_usage count is larger than 2^53");
	p.active = roll_catalog_index(c->cat, json_get_str(rec, "active_action_id"));
	if (p.active < 0)
		return fail(err, errlen, "controller state: the active action is not in the action space");
	struct json *since = json_get(rec, "active_since_seconds"), *prev = json_get(rec, "last_decision_fingerprint");
	if (!since || (since->kind != JSON_NULL && !json_is_num(since)))
		return fail(err, errlen, "controller state: 'active_since_seconds' must be a number or null");
	p.has_since = since->kind != JSON_NULL;
	p.since = p.has_since ? json_num(since) : 0;
	if (!prev || (prev->kind != JSON_NULL && (prev->kind != JSON_STRING || prev->u.str.len > 32)))
		return fail(err, errlen, "controller state: 'last_decision_fingerprint' must be a fingerprint or null");
	if (prev->kind == JSON_STRING)
		snprintf(p.prev_fp, sizeof p.prev_fp, "%s", prev->u.str.s);
	struct json *ap = json_get(rec, "applied_action_ids");
	if (!ap || ap->kind != JSON_ARRAY || (long long)ap->u.arr.n != p.index)
		return fail(err, errlen, "controller state: 'applied_action_ids' must hold one id per decision");
	for (long long i = 0; i < p.index; i++) {
		struct json *s = ap->u.arr.items[i];
		p.applied[i] = s->kind == JSON_STRING ? roll_catalog_index(c->cat, s->u.str.s) : -1;
		if (p.applied[i] < 0)
			return fail(err, errlen, "controller state: an applied action is not in the action space");
	}
	if (fp_list(rec, "state_handoff_fingerprints", p.index, p.handoff, err, errlen) ||
	    fp_list(rec, "request_fingerprints", p.index, p.request, err, errlen))
		return -1;
	c->p = p;
	return 0;
}
