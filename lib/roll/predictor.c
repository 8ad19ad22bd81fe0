#include "roll/predictor.h"
#include "core/xalloc.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "eval/evidence.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_control.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PRED_AGGREGATE = 1, PRED_TENANT };

/* Both families run in the one controller engine (pc_controller); the tenant family's state
 * machine keeps only its last decision and hands every decision to a sink as it is made,
 * so its records wait in a temporary file until the plain records are out (as in sim-run). */
struct inner {
	struct pc_config cfg;
	struct pc_controller c;
	struct pc_sim bind;
	bool started;
	FILE *spool;
	bool spool_failed;
	struct strbuf line;
	struct fp_xxh3 spooled;           /* XXH3 of the decision records so far (checkpoints) */
	long long spooled_bytes;
};

static void spool_decision(void *ctx, const struct tenant_control *tc, const struct tc_decision *d)
{
	struct inner *g = ctx;
	sb_reset(&g->line);
	tc_write_decision(&g->line, tc, d);
	sb_addc(&g->line, '\n');
	fp_xxh3_update(&g->spooled, g->line.buf, g->line.len);
	g->spooled_bytes += (long long)g->line.len;
	if (fwrite(g->line.buf, 1, g->line.len, g->spool) != g->line.len)
		g->spool_failed = true;
}

int roll_predictor_load(struct roll_predictor *p, const char *path, struct arena *a, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	struct inner *g = xcalloc(1, sizeof *g);
	if (pc_config_load(&g->cfg, path, a, err, errlen)) {
		free(g);
		return -1;
	}
	sb_init(&g->line);
	fp_xxh3_init(&g->spooled);
	p->kind = g->cfg.tenant ? PRED_TENANT : PRED_AGGREGATE;
	p->impl = g;
	p->controller_id = g->cfg.controller_id;
	p->canonical = g->cfg.canonical;
	p->fingerprint = g->cfg.fingerprint;
	return 0;
}

int roll_predictor_check(const struct roll_predictor *p, const struct sim_policy *pol, char *err, size_t errlen)
{
	const struct inner *g = p->impl;
	return pc_check_guarantee(&g->cfg, pol, err, errlen);
}

int roll_predictor_start(struct roll_predictor *p, const struct trace *t, char *err, size_t errlen)
{
	struct inner *g = p->impl;
	if (!t->n_jobs || !t->has_window) {
		snprintf(err, errlen, "the inner predictor needs a trace with jobs and an evaluation window");
		return -1;
	}
	/* evidence window = the trace's evaluation window; the aggregate on the cluster's
	 * capacity, the tenant family on one pool per GPU model */
	if (pc_controller_open(&g->c, &g->cfg, t, err, errlen))
		return -1;
	g->started = true;
	if (g->c.tenant) {
		if (!(g->spool = tmpfile())) {
			snprintf(err, errlen, "cannot create a temporary file for the inner predictor's decisions");
			return -1;
		}
		tc_set_sink(g->c.tenant, spool_decision, g);
	}
	pc_sim_bind(&g->bind, &g->c, &p->hooks);
	return 0;
}

static const struct roll_projection *aggregate_projection(struct roll_predictor *p, const struct pc_controller *c)
{
	const struct pc_decision *d = pc_last_decision(c);
	if (!d)
		return NULL;
	size_t H = (size_t)c->cfg->forecast_horizon_hours, np = H * c->n_pools;
	p->pts = xgrow(p->pts, &p->cap_pts, np + 1, sizeof *p->pts);
	for (size_t k = 0; k < np; k++) {
		const struct pc_point *x = &c->points[d->points_at + k];
		const char *pool = c->pools[k / H].name;
		p->pts[k] = (struct roll_point){ x->target, x->step, pool && strcmp(pool, "*") ? pool : NULL, x->mu, x->sigma, x->q,
			false, false, 0, 0, NULL };
	}
	struct roll_projection *pr = &p->proj;
	memset(pr, 0, sizeof *pr);
	pr->cutoff = d->now;
	pr->history_ready = d->history_ready;
	pr->points = p->pts;
	pr->n_points = np;
	for (size_t i = 0; i < c->cfg->n_horizons && i < sizeof pr->quota / sizeof *pr->quota; i++) {
		long long q = 0;
		for (size_t k = 0; k < c->n_pools; k++)
			q += c->quotas[d->quotas_at + k * c->cfg->n_horizons + i];
		pr->quota[pr->n_quota++] = (struct roll_quota){ c->cfg->horizons[i], q };
	}
	pr->has_eta = true;
	pr->eta = d->eta;
	return pr;
}

/* The tenant decision as a projection: its points (pool then step, with the raw quantile,
 * the calibration offset and the method), the quota summed over pools per horizon (the
 * frozen aggregate quota of Q6) and the minimum eta over pools. */
static const struct roll_projection *tenant_projection(struct roll_predictor *p, const struct pc_controller *c)
{
	const struct tc_decision *d = tc_last_decision(c->tenant);
	if (!d)
		return NULL;
	const struct tenant_history *h = tc_history(c->tenant);
	const struct tc_config *tcfg = tc_config(c->tenant);
	const char *method = tcfg->calibration_method ? tcfg->calibration_method : "gaussian-validation-rms";
	p->pts = xgrow(p->pts, &p->cap_pts, d->n_points + 1, sizeof *p->pts);
	for (size_t k = 0; k < d->n_points; k++) {
		const struct est_point *x = &d->points[k];
		p->pts[k] = (struct roll_point){ x->target, x->step, h->pools[x->pool], x->mu, x->sigma, x->quantile, true, true, x->raw,
			x->offset, method };
	}
	struct roll_projection *pr = &p->proj;
	memset(pr, 0, sizeof *pr);
	pr->cutoff = d->now;
	pr->history_ready = d->history_ready;
	pr->points = p->pts;
	pr->n_points = d->n_points;
	for (size_t i = 0; i < c->cfg->n_horizons && i < sizeof pr->quota / sizeof *pr->quota; i++)
		pr->quota[pr->n_quota++] = (struct roll_quota){ c->cfg->horizons[i], d->quota[i] };
	pr->has_eta = true;
	pr->eta = d->eta;
	return pr;
}

const struct roll_projection *roll_predictor_projection(struct roll_predictor *p)
{
	struct inner *g = p->impl;
	if (!g->started)
		return NULL;
	return g->c.tenant ? tenant_projection(p, &g->c) : aggregate_projection(p, &g->c);
}

/* The spooled tenant decisions, line by line, into w. */
static int copy_spool(struct inner *g, struct nd_writer *w, char *err, size_t errlen)
{
	if (g->spool_failed || fflush(g->spool) || fseek(g->spool, 0, SEEK_SET)) {
		snprintf(err, errlen, "cannot write the temporary file of the inner predictor's decisions");
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, g->spool)) > 0)
		rc = ndw_raw(w, line, (size_t)n - 1, err, errlen);
	free(line);
	/* appending continues at the end (a writer is called once, but keep the file whole) */
	if (!rc && fseek(g->spool, 0, SEEK_END)) {
		snprintf(err, errlen, "cannot seek the temporary file of the inner predictor's decisions");
		rc = -1;
	}
	return rc;
}

int roll_predictor_write(const struct roll_predictor *p, struct nd_writer *w, char *err, size_t errlen)
{
	struct inner *g = p->impl;
	struct strbuf sb;
	int rc = 0;
	sb_init(&sb);
	if (g->c.tenant) {
		rc = copy_spool(g, w, err, errlen);
		if (!rc) {
			tc_write_report(&sb, g->c.tenant);
			rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
		}
		sb_release(&sb);
		return rc;
	}
	struct pc_report rep;
	for (size_t i = 0; i < g->c.n_decisions && !rc; i++) {
		sb_reset(&sb);
		pc_write_decision(&sb, &g->c, &g->c.decisions[i]);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	if (!rc) {
		pc_report(&g->c, &rep);
		sb_reset(&sb);
		pc_write_report(&sb, &g->c, &rep);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	sb_release(&sb);
	return rc;
}

void roll_predictor_release(struct roll_predictor *p)
{
	struct inner *g = p->impl;
	if (g) {
		if (g->started)
			pc_controller_release(&g->c);
		if (g->spool)
			fclose(g->spool);
		sb_release(&g->line);
		fp_xxh3_release(&g->spooled);
	}
	free(g);
	free(p->pts);
	memset(p, 0, sizeof *p);
}

/* The learned state (rolling.md "Handoff": predictor weights, eta and feedback) as one
 * record: the decision records so far (count, bytes, XXH3: every quota, eta and forecast the
 * controller gave), the fit (generation, time, model fingerprint, samples, series) and per
 * pool eta and the feedback window (events, weights, version counters), then the record's
 * own fingerprint. A deterministic replay reproduces it byte for byte. */
struct json *roll_predictor_state_json(const struct roll_predictor *p, struct arena *a)
{
	struct inner *g = p->impl;
	struct json *o = json_object(a);
	json_set(a, o, "type", json_str(a, "predictor_state"));
	json_set(a, o, "controller_id", json_str(a, p->controller_id));
	json_set(a, o, "family", json_str(a, g->c.tenant ? "tenant" : "aggregate"));
	char fp[FP_HEX_XXH3];
	struct json *pools = json_array(a), *model = json_object(a);
	if (g->c.tenant) {
		const struct tenant_control *tc = g->c.tenant;
		fp_xxh3_hex(&g->spooled, fp);
		json_set(a, o, "decision_count", json_int(a, (long long)tc_decision_count(tc)));
		json_set(a, o, "decision_records_bytes", json_int(a, g->spooled_bytes));
		const struct tenant_estimator *e = tc_estimator(tc);
		const struct tenant_history *h = tc_history(tc);
		json_set(a, model, "trained", json_bool(a, e->trained));
		json_set(a, model, "generation", json_int(a, e->generation));
		json_set(a, model, "trained_at_seconds", e->trained ? json_real(a, e->trained_at) : json_null(a));
		json_set(a, model, "model_fingerprint", e->trained ? json_str(a, e->fingerprint) : json_null(a));
		json_set(a, model, "demand_sample_count", json_int(a, (long long)h->n_samples));
		json_set(a, model, "series_count", json_int(a, (long long)h->n_series));
		for (size_t k = 0; k < tc_pool_count(tc); k++) {
			const struct tf_window *f = tc_feedback(tc, k);
			struct json *x = json_object(a);
			json_set(a, x, "resource_pool", json_str(a, tc_pool_name(tc, k)));
			json_set(a, x, "eta", json_real(a, tc_eta(tc, k)));
			json_set(a, x, "running_spot_gpus", json_real(a, tc_running_spot(tc, k)));
			json_set(a, x, "feedback_window_event_count", json_int(a, (long long)f->n));
			json_set(a, x, "feedback_event_count", json_int(a, f->event_count));
			json_set(a, x, "feedback_success_weight", json_real(a, f->success_weight));
			json_set(a, x, "feedback_failure_weight", json_real(a, f->failure_weight));
			json_set(a, x, "feedback_version", json_int(a, (long long)f->version));
			json_set(a, x, "feedback_evaluated_version", json_int(a, (long long)f->evaluated));
			json_push(a, pools, x);
		}
	} else {
		struct strbuf sb;
		sb_init(&sb);
		for (size_t i = 0; i < g->c.n_decisions; i++) {
			pc_write_decision(&sb, &g->c, &g->c.decisions[i]);
			sb_addc(&sb, '\n');
		}
		fp_xxh3_of(sb.buf, sb.len, fp);
		json_set(a, o, "decision_count", json_int(a, (long long)g->c.n_decisions));
		json_set(a, o, "decision_records_bytes", json_int(a, (long long)sb.len));
		sb_release(&sb);
		json_set(a, model, "trained", json_bool(a, g->c.fitted));
		json_set(a, model, "next_retrain_seconds", json_real(a, g->c.next_retrain));
		json_set(a, model, "demand_sample_count", json_int(a, (long long)g->c.n_samples));
		const struct pc_decision *d = g->started ? pc_last_decision(&g->c) : NULL;
		struct json *x = json_object(a);
		json_set(a, x, "resource_pool", json_str(a, "*"));
		json_set(a, x, "eta", d ? json_real(a, d->eta) : json_null(a));
		json_set(a, x, "feedback_event_count", json_int(a, g->c.events_total));
		json_set(a, x, "feedback_evicted_count", json_int(a, g->c.events_evicted));
		json_push(a, pools, x);
	}
	json_set(a, o, "decision_records_fingerprint", json_str(a, fp));
	json_set(a, o, "model", model);
	json_set(a, o, "pools", pools);
	ev_self_fp_stamp(a, o, "predictor_state_fingerprint");
	return o;
}
