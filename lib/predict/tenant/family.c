/* The tenant family's row of the family table (predict.h "controller families"): its config
 * as the shared fields plus cfg->tenant, its state machine (tenant_controller.c) opened on one
 * pool per gpu_model, its hooks (tenant_sim.c), records, bundle (tenant_bundle.c) and
 * learned state. */
#include "predict/predict.h"
#include "predict/internal.h"
#include "predict/tenant/tenant_controller.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Its own schema and key set (tenant_config.c), and the fields the engine reads in common,
 * with the switches that make it per pool (docs/predictive-rules.md §2). */
static int from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	struct pt_config *t = arena_alloc(a, sizeof *t);
	if (pt_config_from_json(t, doc, a, err, errlen))
		return -1;
	c->tenant = t;
	c->schema_version = t->schema_version;
	c->controller_id = t->controller_id;
	c->model = t->model;
	c->observation_interval_seconds = t->quota_interval_seconds;
	c->aggregation_interval_seconds = t->aggregation_interval_seconds;
	c->lookback_hours = t->lookback_hours;
	c->forecast_horizon_hours = t->horizon_hours;
	c->retrain_interval_seconds = t->retrain_interval_seconds;
	c->guarantee_probability = t->guarantee_probability;
	c->horizons = t->horizons;
	c->n_horizons = t->n_horizons;
	c->minimum_history_hours = pt_minimum_history_hours(t);
	c->initial_eta = t->initial_eta;
	c->minimum_eta = t->minimum_eta;
	c->maximum_eta = t->maximum_eta;
	c->feedback_window_seconds = t->feedback_window_seconds;
	c->starvation_increase_after_seconds = t->queue_wait_threshold_seconds;
	c->high_eviction_ratio = t->high_eviction_multiple;
	c->low_eviction_ratio = t->low_eviction_multiple;
	c->sw = (struct pc_switches){ .pools = PC_POOLS_PER_MODEL, .eta_law = PC_ETA_PER_DECISION, .floor_before_subtract = true,
				      .inventory_cap = t->runtime_inventory_cap, .control_window_only = true,
				      .gate_scope = PC_GATE_POOL };
	c->canonical = t->canonical;
	memcpy(c->fingerprint, t->fingerprint, sizeof c->fingerprint);
	return 0;
}

/* One pool per gpu_model of the nodes; every job's model must be one of them. */
static int open_tenant(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen)
{
	char **pools;
	double *caps, es, ee;
	if (pt_check_trace(t, err, errlen))
		return -1;
	size_t np = pt_trace_pools(t, &pools, &caps);
	int rc = -1;
	if (np > PC_SIM_MAX_MODELS) {
		snprintf(err, errlen, "the trace has %zu gpu models: the tenant controller serves at most %d resource pools", np,
			 PC_SIM_MAX_MODELS);
		goto out;
	}
	for (size_t i = 0; i < t->n_jobs; i++) {
		const char *m = t->jobs[i].model;
		size_t p = 0;
		while (p < np && strcmp(pools[p], m))
			p++;
		if (p == np) {
			snprintf(err, errlen, "job '%s' asks for gpu_model '%s', which no node has: the tenant controller's resource pools are the nodes' gpu models",
				 t->jobs[i].id, m);
			goto out;
		}
	}
	pc_evidence_window(t, &es, &ee);
	c->tenant = pt_open(cfg, (const char *const *)pools, caps, np, t->time_origin, t->jobs[0].submit, es, ee, t->n_jobs,
			    err, errlen);
	if (c->tenant) {
		c->tenant_obs = xcalloc(np, sizeof *c->tenant_obs);
		c->tenant_queue = pt_queue_new(t, c->tenant);
		rc = 0;
	}
out:
	free(pools);
	free(caps);
	return rc;
}

static void clone_tenant(struct pc_controller *d, const struct pc_controller *s)
{
	d->tenant = pt_clone(s->tenant);
	d->tenant_obs = NULL;
	if (s->tenant_obs) {
		size_t n = pt_pool_count(s->tenant) * sizeof *s->tenant_obs;
		d->tenant_obs = xmalloc(n + 1);
		memcpy(d->tenant_obs, s->tenant_obs, n);
	}
	d->tenant_queue = pt_queue_clone(s->tenant_queue);
}

static void close_tenant(struct pc_controller *c)
{
	pt_queue_free(c->tenant_queue);
	pt_close(c->tenant);
	free(c->tenant_obs);
}

static void spool_decision(void *ctx, const struct pt_controller *tc, const struct pt_decision *d)
{
	struct pc_records *r = ctx;
	sb_reset(&r->line);
	pt_write_decision(&r->line, tc, d);
	pc_records_add(r);
}

static void spool(struct pc_controller *c, struct pc_records *r)
{
	pt_set_sink(c->tenant, spool_decision, r);
}

static void write_report(struct strbuf *sb, const struct pc_controller *c)
{
	pt_write_report(sb, c->tenant);
}

/* Its control_report (docs/predictive-rules.md §2): the admission diagnostics and scoring
 * sums, eta final per pool, the scored points, the actual-demand boundary flag. */
static const char *check_report(const struct json *report)
{
	if (!json_has_object(report, "admission_diagnostics") || !json_has_object(report, "forecast_evaluation_sums"))
		return PC_REPORT_MISSING_BLOCK;
	const struct json *ib = json_get(report, "information_boundary"), *eta = json_get(report, "eta"),
			  *f = json_get(report, "forecast_evaluation");
	if (!json_has_bool(ib, "actual_future_demand_used_for_prediction") || !json_has_object(eta, "final_by_resource_pool") ||
	    !json_has_count(f, "scored_point_count"))
		return PC_REPORT_WRONG_TYPE;
	return NULL;
}

/* Its estimator, the scoring sums (to pool windows exactly) and the starvation diagnostic. */
static const char *const report_keys[] = { "estimator", "forecast_evaluation_sums", "admission_diagnostics", NULL };

/* The estimator's fit and per pool eta and the feedback window (events, weights, versions). */
static void learned_state(const struct pc_controller *c, struct arena *a, struct json *model, struct json *pools)
{
	const struct pt_controller *tc = c->tenant;
	const struct pt_estimator *e = pt_estimator(tc);
	const struct pt_history *h = pt_history(tc);
	json_set(a, model, "trained", json_bool(a, e->trained));
	json_set(a, model, "generation", json_int(a, e->generation));
	json_set(a, model, "trained_at_seconds", e->trained ? json_real(a, e->trained_at) : json_null(a));
	json_set(a, model, "model_fingerprint", e->trained ? json_str(a, e->fingerprint) : json_null(a));
	json_set(a, model, "demand_sample_count", json_int(a, (long long)h->n_samples));
	json_set(a, model, "series_count", json_int(a, (long long)h->n_series));
	for (size_t k = 0; k < pt_pool_count(tc); k++) {
		const struct pt_fb_window *f = pt_feedback(tc, k);
		struct json *x = json_object(a);
		json_set(a, x, "resource_pool", json_str(a, pt_pool_name(tc, k)));
		json_set(a, x, "eta", json_real(a, pt_eta(tc, k)));
		json_set(a, x, "running_spot_gpus", json_real(a, pt_running_spot(tc, k)));
		json_set(a, x, "feedback_window_event_count", json_int(a, (long long)f->n));
		json_set(a, x, "feedback_event_count", json_int(a, f->event_count));
		json_set(a, x, "feedback_success_weight", json_real(a, f->success_weight));
		json_set(a, x, "feedback_failure_weight", json_real(a, f->failure_weight));
		json_set(a, x, "feedback_version", json_int(a, (long long)f->version));
		json_set(a, x, "feedback_evaluated_version", json_int(a, (long long)f->evaluated));
		json_push(a, pools, x);
	}
}

/* Its points (pool then step, with the raw quantile, the calibration offset and the method),
 * the quota summed over pools per horizon and the minimum eta over pools. */
static bool last_decision(const struct pc_controller *c, struct pc_view *v)
{
	const struct pt_decision *d = pt_last_decision(c->tenant);
	if (!d)
		return false;
	const struct pt_history *h = pt_history(c->tenant);
	const struct pt_config *tcfg = pt_config(c->tenant);
	const char *method = tcfg->calibration_method ? tcfg->calibration_method : "gaussian-validation-rms";
	v->points = xgrow(v->points, &v->cap_points, d->n_points + 1, sizeof *v->points);
	for (size_t k = 0; k < d->n_points; k++) {
		const struct pt_est_point *x = &d->points[k];
		v->points[k] = (struct pc_view_point){ x->target, x->step, h->pools[x->pool], x->mu, x->sigma, x->quantile, true, x->raw,
			x->offset, method };
	}
	v->n_points = d->n_points;
	v->now = d->now;
	v->history_ready = d->history_ready;
	v->n_quota = 0;
	for (size_t i = 0; i < c->cfg->n_horizons && i < sizeof v->quota / sizeof *v->quota; i++)
		v->quota[v->n_quota++] = d->quota[i];
	v->eta = d->eta;
	return true;
}

/* Its control_decision records: one object per resource pool under resource_pools. */
static int decision_shape(const struct json *rec, char *err, size_t errlen)
{
	const struct json *pools = json_get(rec, "resource_pools");
	if (!pools)
		return 0;
	if (pools->kind != JSON_OBJECT) {
		snprintf(err, errlen, "'control_decision' record: 'resource_pools' is not an object");
		return -1;
	}
	return 1;
}

static size_t decision_pools(const struct json *rec, const char **names, size_t max)
{
	const struct json *pools = json_get(rec, "resource_pools");
	size_t n = pools->u.obj.n < max ? pools->u.obj.n : max;
	for (size_t p = 0; p < n; p++)
		names[p] = pools->u.obj.keys[p];
	return n;
}

static int decision_point(const struct json *rec, const char *pool, struct pc_decision_point *x, char *err, size_t errlen)
{
	const struct json *o = json_get(json_get(rec, "resource_pools"), pool);
	if (!o || o->kind != JSON_OBJECT) {
		snprintf(err, errlen, "'control_decision' record: resource pool '%s' missing", pool);
		return -1;
	}
	const struct json *fb = json_get(o, "feedback"), *gate = json_get(o, "gate");
	x->hp = pc_decision_num(o, "hp_running_gpus");
	x->quota = pc_decision_first_quota(json_get(o, "spot_quota_gpus_by_guarantee_hour"));
	x->eta = pc_decision_num(fb, "eta_after");
	x->admitted = pc_decision_num(gate, "admitted_spot_runs");
	x->held = pc_decision_num(gate, "held_spot_jobs");
	pc_decision_forecast(rec, pool, x);
	return 0;
}

static const struct pc_decision_reader decision_reader = {
	.shape = decision_shape,
	.pools = decision_pools,
	.point = decision_point,
	.hp_title = "actual HP demand (running HP GPUs)",
	.scored = "each pool's running HP GPUs",
	.gate_counts = true,
};

const struct pc_family pt_family = {
	.name = "tenant",
	.schema = PT_CONFIG_SCHEMA,
	.config_schema = PT_CONFIG_SCHEMA,
	.from_json = from_json,
	.open = open_tenant,
	.clone = clone_tenant,
	.close = close_tenant,
	.bind_sim = pt_sim_bind,
	.spool = spool,
	.write_report = write_report,
	.bundle = pt_bundle,
	.learned_state = learned_state,
	.last_decision = last_decision,
	.quota_refusal = "is a tenant controller: its per-pool quota plan is the bundle's spot_quota_plan (forecast), quota serves "
			 PC_CONFIG_SCHEMA,
	.check_report = check_report,
	.report_keys = report_keys,
	.decision_reader = &decision_reader,
	.scenario_pool = NULL,   /* every point names its GPU model's pool */
	.scenario_tenant = "forecast-aggregate",
};
