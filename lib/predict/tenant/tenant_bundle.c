/* The tenant controller outside a simulation: the trace checks it needs, and the
 * past-only cutoff bundle replayed over the offline occupancy of the jobs submitted by
 * the cutoff (docs/predictive-rules.md §2 "The cutoff bundle"). */
#include "core/xalloc.h"
#include "core/fp.h"
#include "core/num.h"
#include "predict/tenant/tenant_controller.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS PT_EPS

int pt_check_trace(const struct trace *t, char *err, size_t errlen)
{
	if (t->version != 2) {
		snprintf(err, errlen, "the tenant controller requires a schednav.trace/2 trace with a tenant on every job");
		return -1;
	}
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (!j->tenant || !*j->tenant) {
			snprintf(err, errlen, "job '%s' has no tenant: every job requires a tenant for tenant-aware prediction", j->id);
			return -1;
		}
		if (!strcmp(j->model, "*")) {
			snprintf(err, errlen, "job '%s' has gpu_model '*': the tenant controller requires a concrete gpu_model "
			         "(its resource pool)", j->id);
			return -1;
		}
	}
	if (!t->n_jobs) {
		snprintf(err, errlen, "the trace has no jobs");
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t pt_trace_pools(const struct trace *t, char ***pools_out, double **caps_out)
{
	char **pools = xmalloc((t->n_nodes ? t->n_nodes : 1) * sizeof *pools);
	size_t n = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		pools[n++] = t->nodes[i].model;
	qsort(pools, n, sizeof *pools, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || strcmp(pools[u - 1], pools[i]))
			pools[u++] = pools[i];
	double *caps = xcalloc(u ? u : 1, sizeof *caps);
	for (size_t i = 0; i < t->n_nodes; i++) {
		char *m = t->nodes[i].model;
		char **hit = bsearch(&m, pools, u, sizeof *pools, cmp_str);
		caps[hit - pools] += (double)t->nodes[i].gpu_count;
	}
	*pools_out = pools;
	*caps_out = caps;
	return u;
}

/* ---- the offline replay ---- */

struct event { double t; int dir; size_t job; const struct trace *tr; };

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->tr->jobs[x->job].id, y->tr->jobs[y->job].id);
}

static bool on_grid(double x, double step)
{
	return fabs(x / step - nearbyint(x / step)) <= EPS;
}

static void sha_doc(struct arena *a, struct json *doc, const char *key)
{
	char hex[FP_HEX_SHA256];
	pc_canonical_sha256(doc, hex);
	json_set(a, doc, key, json_str(a, hex));
}

static struct json *r6(struct arena *a, double v)
{
	return json_real(a, num_round(v, 6));
}

static struct json *by_hour(struct arena *a, const struct pt_config *c, const long long *q)
{
	struct json *o = json_object(a);
	char k[32];
	for (size_t hi = 0; hi < c->n_horizons; hi++) {
		snprintf(k, sizeof k, "%lld", c->horizons[hi]);
		json_set(a, o, k, json_int(a, q[hi]));
	}
	return o;
}

static struct json *training_json(struct arena *a, const struct pt_controller *tc)
{
	const struct pt_estimator *e = pt_estimator(tc);
	const struct pt_history *h = pt_history(tc);
	struct json *t = json_object(a), *cal = json_object(a);
	json_set(a, t, "trained_at_seconds", json_real(a, e->trained_at));
	json_set(a, t, "training_generation", json_int(a, e->generation));
	json_set(a, t, "series_count", json_int(a, (long long)e->fit_series));
	json_set(a, t, "history_sample_count", json_int(a, (long long)e->history_samples));
	json_set(a, t, "train_window_count", json_int(a, (long long)e->train_windows));
	json_set(a, t, "validation_window_count", json_int(a, (long long)e->validation_windows));
	json_set(a, t, "train_row_count", json_int(a, (long long)e->train_rows));
	for (size_t p = 0; p < h->n_pools; p++) {
		if (!e->pool_fitted[p])
			continue;
		struct json *steps = json_array(a);
		for (int k = 0; k < e->cfg.horizon_hours; k++) {
			const struct pt_est_calibration *c = &e->cal[p * (size_t)e->cfg.horizon_hours + (size_t)k];
			struct json *x = json_object(a);
			json_set(a, x, "horizon_step", json_int(a, k + 1));
			json_set(a, x, "n", json_int(a, (long long)c->n));
			json_set(a, x, "rank", e->cfg.calibrate ? json_int(a, (long long)c->rank) : json_null(a));
			json_set(a, x, "sigma", r6(a, c->sigma));
			json_set(a, x, "offset", json_real(a, c->offset));
			json_set(a, x, "raw_coverage", json_real(a, num_round(c->raw_coverage, 9)));
			json_set(a, x, "calibrated_coverage", json_real(a, num_round(c->calibrated_coverage, 9)));
			json_push(a, steps, x);
		}
		json_set(a, cal, h->pools[p], steps);
	}
	json_set(a, t, "calibration", cal);
	return t;
}

/* The bundle's observation snapshot: the history's extent and the scheduler's state at the cutoff. */
static struct json *snapshot_doc(struct arena *a, const struct pt_config *cfg, const struct pt_history *h, const struct pt_decision *d,
				 double cutoff)
{
	struct json *snap = json_object(a), *hist = json_object(a), *cur = json_object(a), *ib = json_object(a);
	json_set(a, snap, "schema_version", json_str(a, PC_SNAPSHOT_SCHEMA));
	json_set(a, snap, "cutoff_time_seconds", json_real(a, cutoff));
	json_set(a, hist, "sample_interval_seconds", json_int(a, cfg->sample_interval_seconds));
	json_set(a, hist, "sample_count", json_int(a, (long long)h->n_samples));
	json_set(a, hist, "first_sample_time_seconds", json_real(a, h->first_time));
	json_set(a, hist, "last_sample_time_seconds", json_real(a, h->last_time));
	json_set(a, hist, "series_count", json_int(a, (long long)h->n_series));
	json_set(a, hist, "history_ready", json_bool(a, d->history_ready));
	json_set(a, snap, "history", hist);
	json_set(a, cur, "hp_outstanding_requested_gpus", r6(a, d->hp_outstanding_gpus));
	json_set(a, cur, "hp_running_requested_gpus", r6(a, d->hp_running_gpus));
	json_set(a, cur, "spot_backlog_gpus", r6(a, d->spot_backlog_gpus));
	json_set(a, cur, "running_spot_gpus", r6(a, d->running_spot_gpus));
	struct json *bb = json_object(a), *rs = json_object(a), *idle = json_object(a), *wait = json_object(a);
	for (size_t p = 0; p < h->n_pools; p++) {
		json_set(a, bb, h->pools[p], r6(a, d->pools[p].obs.spot_backlog_gpus));
		json_set(a, rs, h->pools[p], r6(a, d->pools[p].obs.running_spot_gpus));
		json_set(a, idle, h->pools[p], r6(a, d->pools[p].obs.idle_gpus));
		json_set(a, wait, h->pools[p], r6(a, d->pools[p].obs.maximum_spot_wait_seconds));
	}
	json_set(a, cur, "spot_backlog_gpus_by_resource_pool", bb);
	json_set(a, cur, "running_spot_gpus_by_resource_pool", rs);
	json_set(a, cur, "idle_gpus_by_resource_pool", idle);
	json_set(a, cur, "maximum_spot_queue_wait_seconds_by_resource_pool", wait);
	json_set(a, snap, "current_state", cur);
	json_set(a, ib, "actual_future_demand_used_for_prediction", json_bool(a, false));
	json_set(a, ib, "scheduler_observations_not_trace_future", json_bool(a, true));
	json_set(a, snap, "information_boundary", ib);
	sha_doc(a, snap, "snapshot_fingerprint");
	return snap;
}

/* The bundle's demand forecast: the model and every (pool, step) point. */
static struct json *forecast_doc(struct arena *a, const struct pt_controller *tc, const struct pt_config *cfg, const struct pt_history *h,
				 const struct pt_estimator *e, const struct pt_decision *d, double cutoff)
{
	struct json *fc = json_object(a), *model = json_object(a), *pts = json_array(a), *fib = json_object(a);
	json_set(a, fc, "schema_version", json_str(a, PC_FORECAST_SCHEMA));
	json_set(a, fc, "cutoff_time_seconds", json_real(a, cutoff));
	json_set(a, fc, "horizon_hours", json_int(a, cfg->horizon_hours));
	json_set(a, fc, "guarantee_probability", json_real(a, cfg->guarantee_probability));
	json_set(a, model, "model", json_str(a, pt_est_id(cfg->estimator)));
	json_set(a, model, "model_fingerprint", e->trained ? json_str(a, e->fingerprint) : json_null(a));
	json_set(a, model, "trained_at_seconds", e->trained ? json_real(a, e->trained_at) : json_null(a));
	json_set(a, model, "series_count", json_int(a, (long long)h->n_series));
	if (e->trained) {
		json_set(a, model, "training", training_json(a, tc));
		json_set(a, model, "aggregation", json_str(a, "tenant means sum; pool spread and conformal offset from the "
		                                             "validation residuals of the pool total"));
	}
	json_set(a, model, "history_ready", json_bool(a, d->history_ready));
	json_set(a, fc, "model", model);
	for (size_t i = 0; i < d->n_points; i++) {
		const struct pt_est_point *pt = &d->points[i];
		struct json *x = json_object(a);
		json_set(a, x, "resource_pool", json_str(a, h->pools[pt->pool]));
		json_set(a, x, "horizon_step", json_int(a, pt->step));
		json_set(a, x, "target_time_seconds", json_real(a, pt->target));
		json_set(a, x, "mu_gpus", json_real(a, pt->mu));
		json_set(a, x, "sigma_gpus", json_real(a, pt->sigma));
		json_set(a, x, "guarantee_quantile_gpus", json_real(a, pt->quantile));
		json_set(a, x, "raw_quantile_gpus", json_real(a, pt->raw));
		json_set(a, x, "calibration_offset_gpus", json_real(a, pt->offset));
		json_set(a, x, "method", json_str(a, cfg->calibration_method ? cfg->calibration_method : "gaussian-validation-rms"));
		json_push(a, pts, x);
	}
	json_set(a, fc, "points", pts);
	json_set(a, fib, "history_inclusive_cutoff_seconds", json_real(a, cutoff));
	json_set(a, fib, "actual_future_demand_used_for_prediction", json_bool(a, false));
	json_set(a, fc, "information_boundary", fib);
	sha_doc(a, fc, "forecast_fingerprint");
	return fc;
}

/* The bundle's Spot quota plan from the forecast fc. */
static struct json *quota_doc(struct arena *a, const struct pt_config *cfg, const struct pt_history *h, const struct pt_decision *d,
			      double cutoff, const struct json *fc)
{
	struct json *qp = json_object(a), *etas = json_object(a), *free_by = json_object(a), *qpool = json_object(a);
	json_set(a, qp, "schema_version", json_str(a, PC_QUOTA_SCHEMA));
	json_set(a, qp, "cutoff_time_seconds", json_real(a, cutoff));
	json_set(a, qp, "forecast_fingerprint", json_clone(a, json_get(fc, "forecast_fingerprint")));
	json_set(a, qp, "eta", json_real(a, num_round(d->eta, 9)));
	for (size_t p = 0; p < h->n_pools; p++) {
		struct json *f = json_object(a);
		char key[32];
		for (size_t hi = 0; hi < cfg->n_horizons; hi++) {
			snprintf(key, sizeof key, "%lld", cfg->horizons[hi]);
			json_set(a, f, key, json_real(a, d->pools[p].free[hi]));
		}
		json_set(a, etas, h->pools[p], json_real(a, num_round(d->pools[p].eta_after, 9)));
		json_set(a, free_by, h->pools[p], f);
		json_set(a, qpool, h->pools[p], by_hour(a, cfg, d->pools[p].quota));
	}
	json_set(a, qp, "eta_by_resource_pool", etas);
	json_set(a, qp, "predicted_free_gpus_by_resource_pool_and_guarantee_hour", free_by);
	json_set(a, qp, "spot_quota_gpus_by_guarantee_hour", by_hour(a, cfg, d->quota));
	json_set(a, qp, "spot_quota_gpus_by_resource_pool_and_guarantee_hour", qpool);
	json_set(a, qp, "runtime_inventory_cap", json_bool(a, cfg->runtime_inventory_cap));
	json_set(a, qp, "rule", json_str(a, "per pool: eta * min over the horizon of (capacity - floor(quantile)), "
	                                    "capped by idle + running Spot GPUs"));
	sha_doc(a, qp, "quota_plan_fingerprint");
	return qp;
}

/* The fingerprint of the observed prefix: the nodes and every job submitted by the cutoff. */
static void prefix_fingerprint(struct arena *a, const struct trace *t, const struct pt_config *cfg, double cutoff,
			       char prefix_fp[FP_HEX_SHA256])
{
	struct json *prefix = json_object(a), *nodes = json_array(a), *jobs = json_array(a);
	json_set(a, prefix, "trace_id", json_str(a, t->trace_id));
	json_set(a, prefix, "time_origin", json_str(a, t->time_origin));
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct json *x = json_object(a);
		json_set(a, x, "node_id", json_str(a, t->nodes[i].id));
		json_set(a, x, "gpu_model", json_str(a, t->nodes[i].model));
		json_set(a, x, "gpu_count", json_int(a, t->nodes[i].gpu_count));
		json_push(a, nodes, x);
	}
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (!(j->submit <= cutoff))
			continue;
		bool ended = j->submit + j->duration <= cutoff + EPS;
		struct json *x = json_object(a);
		json_set(a, x, "job_id", json_str(a, j->id));
		json_set(a, x, "submit_time_seconds", json_real(a, j->submit));
		json_set(a, x, "duration_seconds", ended || !cfg->quirks_fixed ? json_real(a, j->duration) : json_null(a));
		json_set(a, x, "gpu_count", json_real(a, j->gpus));
		json_set(a, x, "service_class", json_str(a, j->hp ? "HP" : "Spot"));
		json_set(a, x, "gpu_model", json_str(a, j->model));
		json_set(a, x, "tenant_id", json_str(a, j->tenant));
		json_push(a, jobs, x);
	}
	json_set(a, prefix, "nodes", nodes);
	json_set(a, prefix, "jobs", jobs);
	json_set(a, prefix, "cutoff_time_seconds", json_real(a, cutoff));
	pc_canonical_sha256(prefix, prefix_fp);
}

struct json *pt_bundle(struct arena *a, const struct trace *t, const struct pc_config *pcfg, double cutoff, char *err,
                       size_t errlen)
{
	const struct pt_config *cfg = pcfg->tenant;
	if (pt_check_trace(t, err, errlen))
		return NULL;
	double first = INFINITY, interval = (double)cfg->sample_interval_seconds;
	for (size_t i = 0; i < t->n_jobs; i++)
		first = fmin(first, t->jobs[i].submit);
	if (!isfinite(cutoff) || cutoff < first) {
		snprintf(err, errlen, "cutoff %.17g precedes the first trace arrival (%.17g)", cutoff, first);
		return NULL;
	}
	double start = floor(first / interval) * interval;
	if (!on_grid(cutoff, interval)) {
		snprintf(err, errlen, "cutoff %.17g must align with the %lld-s demand sampling", cutoff, cfg->sample_interval_seconds);
		return NULL;
	}
	if (!on_grid(cutoff - start, (double)cfg->quota_interval_seconds)) {
		snprintf(err, errlen, "cutoff %.17g must align with the %lld-s quota updates from %.17g", cutoff,
		         cfg->quota_interval_seconds, start);
		return NULL;
	}
	char **pools;
	double *caps;
	size_t np = pt_trace_pools(t, &pools, &caps);
	struct pt_controller *tc = pt_open(pcfg, (const char *const *)pools, caps, np, t->time_origin, start, cutoff, cutoff, 0,
	                                    err, errlen);
	if (!tc) {
		free(pools), free(caps);
		return NULL;
	}
	/* the prefix and its events */
	struct event *ev = xmalloc(2 * t->n_jobs * sizeof *ev);
	size_t ne = 0, n_prefix = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (!(j->submit <= cutoff))
			continue;
		n_prefix++;
		ev[ne++] = (struct event){ j->submit, 1, i, t };
		if (j->submit + j->duration <= cutoff + EPS)
			ev[ne++] = (struct event){ j->submit + j->duration, -1, i, t };
	}
	qsort(ev, ne, sizeof *ev, cmp_event);
	double *spot = xcalloc(np, sizeof *spot), *hp = xcalloc(np, sizeof *hp);
	struct pt_pool_observation *po = xcalloc(np, sizeof *po);
	size_t k = 0;
	struct json *out = NULL;
	for (double sample = start; sample <= cutoff + EPS; sample += interval) {
		for (; k < ne && ev[k].t <= sample + EPS; k++) {
			const struct trace_job *j = &t->jobs[ev[k].job];
			int p = pt_pool_index(tc, j->model);
			if (p < 0) {
				snprintf(err, errlen, "job '%s' names gpu_model '%s', which no node has", j->id, j->model);
				goto done;
			}
			if (j->hp) {
				if (pt_hp_run(tc, j->model, j->tenant, j->gpus, ev[k].dir > 0, err, errlen))
					goto done;
			} else {
				spot[p] += (double)ev[k].dir * j->gpus;
				if (spot[p] <= EPS)
					spot[p] = 0;
			}
		}
		const struct pt_history *h = pt_history(tc);
		double hp_all = 0, spot_all = 0;
		for (size_t p = 0; p < np; p++)
			hp[p] = 0;
		for (size_t si = 0; si < h->n_series; si++) {
			const struct pt_hist_series *s = &h->series[h->sorted[si]];
			hp[s->pool_index] += s->current;
			hp_all += s->current;
		}
		for (size_t p = 0; p < np; p++) {
			size_t q = (size_t)pt_pool_index(tc, pools[p]);
			double idle = caps[p] - hp[q] - spot[q];
			po[q] = (struct pt_pool_observation){ .idle_gpus = idle > 0 ? idle : 0, .running_spot_gpus = spot[q] };
			spot_all += spot[q];
		}
		struct pt_observation obs = { .hp_outstanding_gpus = hp_all, .running_spot_gpus = spot_all, .pools = po };
		if (pt_update(tc, sample, &obs, err, errlen) < 0)
			goto done;
	}
	const struct pt_decision *d = pt_last_decision(tc);
	if (!d || d->now != cutoff) {
		snprintf(err, errlen, "no predictive decision was produced at the requested cutoff %.17g", cutoff);
		goto done;
	}
	const struct pt_history *h = pt_history(tc);
	const struct pt_estimator *e = pt_estimator(tc);
	struct json *snap = snapshot_doc(a, cfg, h, d, cutoff);
	struct json *fc = forecast_doc(a, tc, cfg, h, e, d, cutoff);
	struct json *qp = quota_doc(a, cfg, h, d, cutoff, fc);
	char prefix_fp[FP_HEX_SHA256];
	prefix_fingerprint(a, t, cfg, cutoff, prefix_fp);
	/* the bundle */
	out = json_object(a);
	struct json *bib = json_object(a);
	json_set(a, out, "type", json_str(a, "observation_bundle"));
	json_set(a, out, "schema_version", json_str(a, PC_BUNDLE_SCHEMA));
	json_set(a, out, "trace_id", json_str(a, t->trace_id));
	json_set(a, out, "cutoff_time_seconds", json_real(a, cutoff));
	json_set(a, out, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, out, "controller_fingerprint", json_str(a, cfg->fingerprint));
	json_set(a, out, "observed_prefix_fingerprint", json_str(a, prefix_fp));
	json_set(a, out, "observed_job_count", json_int(a, (long long)n_prefix));
	json_set(a, out, "observation_snapshot", snap);
	json_set(a, out, "demand_forecast", fc);
	json_set(a, out, "spot_quota_plan", qp);
	json_set(a, bib, "actual_future_demand_used_for_prediction", json_bool(a, false));
	json_set(a, bib, "jobs_with_submit_time_after_cutoff_excluded", json_bool(a, true));
	json_set(a, bib, "full_trace_fingerprint_exposed", json_bool(a, false));
	json_set(a, bib, "running_job_durations_exposed", json_bool(a, !cfg->quirks_fixed));
	json_set(a, bib, "offline_state_approximation", json_str(a, "submit-to-submit-plus-duration occupancy"));
	json_set(a, out, "information_boundary", bib);
	/* the bundle's own fingerprint covers everything but the record type */
	struct json *body = json_object(a);
	for (size_t i = 1; i < out->u.obj.n; i++)
		json_set(a, body, out->u.obj.keys[i], out->u.obj.vals[i]);
	sha_doc(a, body, "observation_bundle_fingerprint");
	json_set(a, out, "observation_bundle_fingerprint", json_clone(a, json_get(body, "observation_bundle_fingerprint")));
done:
	free(ev), free(spot), free(hp), free(po), free(pools), free(caps);
	pt_close(tc);
	return out;
}
