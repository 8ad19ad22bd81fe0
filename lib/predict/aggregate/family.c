/* The aggregate family's row of the family table (predict.h "controller families"), and the
 * operations that are only glue: its records and its learned state. */
#include "predict/predict.h"
#include "predict/aggregate/aggregate.h"
#include "core/xalloc.h"
#include <math.h>
#include <string.h>

static void spool_decision(void *ctx, const struct pc_controller *c, const struct pc_decision *d)
{
	struct pc_records *r = ctx;
	sb_reset(&r->line);
	pc_write_decision(&r->line, c, d);
	pc_records_add(r);
}

static void spool(struct pc_controller *c, struct pc_records *r)
{
	pc_controller_set_sink(c, spool_decision, r);
}

static void write_report(struct strbuf *sb, const struct pc_controller *c)
{
	struct pc_report rep;
	pc_report(c, &rep);
	pc_write_report(sb, c, &rep);
}

/* Its control_report (docs/predictive.md "The records"): eta final, the evaluated points,
 * the future-workload boundary flag. */
static const char *check_report(const struct json *report)
{
	const struct json *ib = json_get(report, "information_boundary"), *eta = json_get(report, "eta"),
			  *f = json_get(report, "forecast_evaluation");
	if (!json_has_bool(ib, "future_workload_fields_accepted") || !json_has_num_or_null(eta, "final") ||
	    !json_has_count(f, "evaluated_point_count"))
		return PC_REPORT_WRONG_TYPE;
	return NULL;
}

/* The fit and the one pool "*" (eta null before the first decision). */
static void learned_state(const struct pc_controller *c, struct arena *a, struct json *model, struct json *pools)
{
	json_set(a, model, "trained", json_bool(a, c->fitted));
	json_set(a, model, "next_retrain_seconds", json_real(a, c->next_retrain));
	json_set(a, model, "demand_sample_count", json_int(a, (long long)c->n_samples));
	const struct pc_decision *d = pc_last_decision(c);
	struct json *x = json_object(a);
	json_set(a, x, "resource_pool", json_str(a, "*"));
	json_set(a, x, "eta", d ? json_real(a, d->eta) : json_null(a));
	json_set(a, x, "feedback_event_count", json_int(a, c->events_total));
	json_set(a, x, "feedback_evicted_count", json_int(a, c->events_evicted));
	json_push(a, pools, x);
}

/* The forecast of the one pool "*" (a pool without a name), the quota per horizon. */
static bool last_decision(const struct pc_controller *c, struct pc_view *v)
{
	const struct pc_decision *d = pc_last_decision(c);
	if (!d)
		return false;
	size_t H = (size_t)c->cfg->forecast_horizon_hours, np = H * c->n_pools;
	v->points = xgrow(v->points, &v->cap_points, np + 1, sizeof *v->points);
	for (size_t k = 0; k < np; k++) {
		const struct pc_point *x = &c->points[d->points_at + k];
		const char *pool = c->pools[k / H].name;
		v->points[k] = (struct pc_view_point){ x->target, x->step, pool && strcmp(pool, "*") ? pool : NULL, x->mu, x->sigma, x->q,
			false, 0, 0, NULL };
	}
	v->n_points = np;
	v->now = d->now;
	v->history_ready = d->history_ready;
	v->n_quota = 0;
	for (size_t i = 0; i < c->cfg->n_horizons && i < sizeof v->quota / sizeof *v->quota; i++) {
		long long q = 0;
		for (size_t k = 0; k < c->n_pools; k++)
			q += c->quotas[d->quotas_at + k * c->cfg->n_horizons + i];
		v->quota[v->n_quota++] = q;
	}
	v->eta = d->eta;
	return true;
}

/* Its control_decision records: one pool, the cluster, the values at the top level. */
static int decision_shape(const struct json *rec, char *err, size_t errlen)
{
	return !json_get(rec, "resource_pools");
}

static size_t decision_pools(const struct json *rec, const char **names, size_t max)
{
	if (!max)
		return 0;
	names[0] = "cluster";
	return 1;
}

static int decision_point(const struct json *rec, const char *pool, struct pc_decision_point *x, char *err, size_t errlen)
{
	x->hp = pc_decision_num(rec, "hp_outstanding_requested_gpus");
	x->quota = pc_decision_first_quota(json_get(rec, "spot_quota_gpus_by_guarantee_hour"));
	x->eta = pc_decision_num(rec, "eta");
	x->admitted = x->held = NAN;
	pc_decision_forecast(rec, NULL, x);
	return 0;
}

static const struct pc_decision_reader decision_reader = {
	.shape = decision_shape,
	.pools = decision_pools,
	.point = decision_point,
	.hp_title = "actual HP demand (HP outstanding GPUs)",
	.scored = "the cluster's HP outstanding GPUs",
	.gate_counts = false,   /* no per-pool gate counts: three chart panels */
};

const struct pc_family pc_family_aggregate = {
	.name = "aggregate",
	.schema = NULL,   /* the fallback: its parser names PC_CONFIG_SCHEMA when the document is not it */
	.config_schema = PC_CONFIG_SCHEMA,
	.from_json = pc_aggregate_from_json,
	.open = pc_aggregate_open,
	.clone = pc_aggregate_clone,
	.close = pc_aggregate_close,
	.bind_sim = pc_aggregate_bind,
	.spool = spool,
	.write_report = write_report,
	.bundle = pc_aggregate_bundle,
	.learned_state = learned_state,
	.last_decision = last_decision,
	.quota_refusal = NULL,
	.check_report = check_report,
	.report_keys = NULL,
	.decision_reader = &decision_reader,
	.scenario_pool = "*",   /* one pool, the cluster: its points name none */
	.scenario_tenant = "forecast-aggregate",
};
