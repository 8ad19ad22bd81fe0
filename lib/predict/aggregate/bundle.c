/*
 * The past-only cutoff bundle (docs/predictive-rules.md §3, the original's
 * build_observation_bundle). Only jobs with submit <= cutoff + EPS are read. Their offline
 * occupancy is two running totals (HP, Spot): + demand at submit, - demand at submit +
 * duration when that end is <= cutoff + EPS, applied in the order of the key (time, ends
 * before arrivals, class HP < Spot, signed amount) — the totals, not a re-sum, carry the
 * original's last bits. The controller replays the update grid
 *   start = cutoff - interval * floor((cutoff - max(first, cutoff - lookback)) / interval + EPS),
 * then += interval up to the cutoff, with backlog = outstanding Spot and running Spot 0.
 * The record holds the last decision's snapshot, forecast and quota plan; each nested
 * document carries the original's SHA-256 fingerprint, and no fingerprint covers anything
 * after the cutoff (the prefix fingerprint hashes the observed jobs, the trace id and the
 * capacity only).
 */
#include "predict/predict.h"
#include "core/fp.h"
#include "core/num.h"
#include "core/xalloc.h"
#include "predict/aggregate/aggregate.h"
#include "predict/internal.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct occ_event {
	double t;
	int order;             /* 0 end, 1 arrival */
	bool spot;
	double delta;
};

static int event_cmp(const void *pa, const void *pb)
{
	const struct occ_event *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->order != b->order)
		return a->order - b->order;
	if (a->spot != b->spot)
		return a->spot ? 1 : -1;
	if (a->delta != b->delta)
		return a->delta < b->delta ? -1 : 1;
	return 0;
}

/* SHA-256 of the observed prefix, streamed in canonical sorted-key form. */
static void prefix_fingerprint(const struct trace *t, long long capacity, double cutoff, char out[65])
{
	struct fp_sha256 h;
	struct strbuf sb;
	fp_sha256_init(&h);
	sb_init(&sb);
	sb_adds(&sb, "{\"capacity_gpus\":");
	sb_add_int(&sb, capacity);
	sb_adds(&sb, ",\"cutoff_time_seconds\":");
	sb_add_double(&sb, cutoff);
	sb_adds(&sb, ",\"jobs\":[");
	bool first = true;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (j->submit > cutoff + PC_EPS)
			continue;
		sb_adds(&sb, first ? "{\"completed_by_cutoff\":" : ",{\"completed_by_cutoff\":");
		first = false;
		sb_adds(&sb, j->submit + j->duration <= cutoff + PC_EPS ? "true" : "false");
		sb_adds(&sb, ",\"gpu_count\":");
		sb_add_double(&sb, j->gpus);
		sb_adds(&sb, ",\"gpu_model\":");
		sb_add_jstr(&sb, j->model, strlen(j->model));
		sb_adds(&sb, ",\"job_id\":");
		sb_add_jstr(&sb, j->id, strlen(j->id));
		sb_adds(&sb, ",\"service_class\":");
		sb_adds(&sb, j->hp ? "\"HP\"" : "\"Spot\"");
		sb_adds(&sb, ",\"submit_time_seconds\":");
		sb_add_double(&sb, j->submit);
		sb_addc(&sb, '}');
		if (sb.len > 65536) {
			fp_sha256_update(&h, sb.buf, sb.len);
			sb_reset(&sb);
		}
	}
	sb_adds(&sb, "],\"trace_id\":");
	sb_add_jstr(&sb, t->trace_id, strlen(t->trace_id));
	sb_addc(&sb, '}');
	fp_sha256_update(&h, sb.buf, sb.len);
	fp_sha256_hex(&h, out);
	sb_release(&sb);
}

/* Add the document's own fingerprint, computed over everything before it. */
static const char *stamp(struct arena *a, struct json *doc, const char *key)
{
	char fp[65];
	pc_canonical_sha256(doc, fp);
	struct json *v = json_str(a, fp);
	json_set(a, doc, key, v);
	return v->u.str.s;
}

static struct json *flags(struct arena *a, const char *k1, bool v1, const char *k2, bool v2, const char *k3, bool v3)
{
	struct json *o = json_object(a);
	json_set(a, o, k1, json_bool(a, v1));
	json_set(a, o, k2, json_bool(a, v2));
	if (k3)
		json_set(a, o, k3, json_bool(a, v3));
	return o;
}

static struct json *snapshot_doc(struct arena *a, const struct pc_controller *c, const struct pc_decision *d)
{
	const struct pc_config *cfg = c->cfg;
	size_t hn;
	const struct pc_bucket *h = pc_history(c, &hn);
	struct json *s = json_object(a), *w = json_object(a), *hist = json_array(a), *cur = json_object(a), *ib = json_object(a);
	json_set(a, s, "schema_version", json_str(a, PC_SNAPSHOT_SCHEMA));
	json_set(a, s, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, s, "cutoff_time_seconds", json_real(a, d->now));
	json_set(a, w, "start", json_real(a, hn ? h[0].t : d->now));
	json_set(a, w, "end", json_real(a, d->now));
	json_set(a, s, "history_window_seconds", w);
	json_set(a, s, "aggregation_interval_seconds", json_int(a, cfg->aggregation_interval_seconds));
	json_set(a, s, "minimum_history_hours", json_int(a, cfg->minimum_history_hours));
	json_set(a, s, "history_ready", json_bool(a, d->history_ready));
	for (size_t i = 0; i < hn; i++) {
		struct json *b = json_object(a);
		json_set(a, b, "time_seconds", json_real(a, h[i].t));
		json_set(a, b, "gpus", json_real(a, num_round(h[i].v, 6)));
		json_push(a, hist, b);
	}
	json_set(a, s, "hourly_max_hp_requested_gpus", hist);
	json_set(a, cur, "hp_outstanding_requested_gpus", json_real(a, d->hp_outstanding));
	json_set(a, cur, "spot_backlog_gpus", json_real(a, d->spot_backlog));
	json_set(a, cur, "running_spot_gpus", json_real(a, d->running_spot));
	json_set(a, s, "current_state", cur);
	json_set(a, ib, "maximum_observed_time_seconds", json_real(a, d->now));
	json_set(a, ib, "future_workload_fields_accepted", json_bool(a, false));
	json_set(a, ib, "source", json_str(a, "scheduler-observed state only"));
	json_set(a, s, "information_boundary", ib);
	return s;
}

static struct json *forecast_doc(struct arena *a, struct pc_controller *c, const struct pc_decision *d, const char *snapshot_fp)
{
	const struct pc_config *cfg = c->cfg;
	struct json *f = json_object(a), *m = json_object(a), *pts = json_array(a);
	json_set(a, f, "schema_version", json_str(a, PC_FORECAST_SCHEMA));
	json_set(a, f, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, f, "controller_fingerprint", json_str(a, cfg->fingerprint));
	json_set(a, f, "observation_snapshot_fingerprint", json_str(a, snapshot_fp));
	json_set(a, f, "cutoff_time_seconds", json_real(a, d->now));
	json_set(a, f, "forecast_horizon_hours", json_int(a, cfg->forecast_horizon_hours));
	json_set(a, f, "guarantee_probability", json_real(a, cfg->guarantee_probability));
	json_set(a, m, "model", json_str(a, cfg->model));
	json_set(a, m, "model_fingerprint", json_str(a, cfg->estimator->fingerprint(c->est)));
	json_set(a, m, "trained_at_seconds", json_real(a, d->trained_at));
	json_set(a, m, "training_history_point_count", json_int(a, (long long)cfg->estimator->training_count(c->est)));
	json_set(a, f, "model", m);
	for (long long k = 0; k < cfg->forecast_horizon_hours; k++) {
		const struct pc_point *p = &c->points[d->points_at + (size_t)k];
		struct json *o = json_object(a);
		json_set(a, o, "horizon_step", json_int(a, p->step));
		json_set(a, o, "target_time_seconds", json_real(a, p->target));
		json_set(a, o, "mu_gpus", json_real(a, p->mu));
		json_set(a, o, "sigma_gpus", json_real(a, p->sigma));
		json_set(a, o, "guarantee_quantile_gpus", json_real(a, p->q));
		json_push(a, pts, o);
	}
	json_set(a, f, "points", pts);
	json_set(a, f, "information_boundary", flags(a, "inputs_end_at_cutoff", true, "actual_future_demand_used_for_prediction", false, NULL, false));
	return f;
}

static struct json *quota_doc(struct arena *a, const struct pc_controller *c, const struct pc_decision *d, const char *forecast_fp)
{
	const struct pc_config *cfg = c->cfg;
	struct json *q = json_object(a), *by = json_object(a);
	char hk[24];
	json_set(a, q, "schema_version", json_str(a, PC_QUOTA_SCHEMA));
	json_set(a, q, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, q, "controller_fingerprint", json_str(a, cfg->fingerprint));
	json_set(a, q, "forecast_fingerprint", json_str(a, forecast_fp));
	json_set(a, q, "cutoff_time_seconds", json_real(a, d->now));
	json_set(a, q, "capacity_gpus", json_real(a, c->capacity));
	json_set(a, q, "eta", json_real(a, d->eta));
	json_set(a, q, "guarantee_probability", json_real(a, cfg->guarantee_probability));
	for (size_t i = 0; i < cfg->n_horizons; i++) {
		snprintf(hk, sizeof hk, "%lld", cfg->horizons[i]);
		json_set(a, by, hk, json_int(a, c->quotas[d->quotas_at + i]));
	}
	json_set(a, q, "spot_quota_gpus_by_guarantee_hour", by);
	json_set(a, q, "rule", json_str(a, PC_QUOTA_RULE));
	return q;
}

struct json *pc_aggregate_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err,
				 size_t errlen)
{
	if (t->n_jobs == 0 || t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no jobs or no nodes");
		return NULL;
	}
	double first = t->jobs[0].submit;   /* jobs are sorted by submit */
	if (cutoff < first) {
		snprintf(err, errlen, "cutoff %.17g precedes the first trace arrival %.17g", cutoff, first);
		return NULL;
	}
	long long capacity = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		capacity += t->nodes[i].gpu_count;
	double interval = (double)cfg->observation_interval_seconds;
	double back = cutoff - (double)(cfg->lookback_hours * 3600);
	double earliest = back > first ? back : first;
	long long steps = (long long)floor((cutoff - earliest) / interval + PC_EPS);
	double start = cutoff - (double)(steps * cfg->observation_interval_seconds);
	struct pc_controller c;
	if (pc_controller_init(&c, cfg, (double)capacity, start, false, 0, 0, err, errlen))
		return NULL;
	struct occ_event *ev = xmalloc((2 * t->n_jobs + 1) * sizeof *ev);
	size_t n = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (j->submit > cutoff + PC_EPS)
			continue;
		ev[n++] = (struct occ_event){ j->submit, 1, !j->hp, j->gpus };
		double end = j->submit + j->duration;
		if (end <= cutoff + PC_EPS)
			ev[n++] = (struct occ_event){ end, 0, !j->hp, -j->gpus };
	}
	qsort(ev, n, sizeof *ev, event_cmp);
	double hp = 0.0, spot = 0.0;
	size_t k = 0;
	int rc = 0;
	for (double now = start; now <= cutoff + PC_EPS; now += interval) {
		for (; k < n && ev[k].t <= now + PC_EPS; k++) {
			if (ev[k].spot)
				spot += ev[k].delta;
			else
				hp += ev[k].delta;
		}
		struct pc_observation o = { hp, spot, 0.0 };
		if ((rc = pc_update(&c, now, &o, err, errlen)))
			break;
	}
	free(ev);
	const struct pc_decision *d = pc_last_decision(&c);
	if (rc || !d) {
		if (!rc)
			snprintf(err, errlen, "the observation replay produced no controller decision");
		pc_controller_release(&c);
		return NULL;
	}
	struct json *b = json_object(a);
	json_set(a, b, "type", json_str(a, "observation_bundle"));
	json_set(a, b, "schema_version", json_str(a, PC_BUNDLE_SCHEMA));
	json_set(a, b, "trace_id", json_str(a, t->trace_id));
	char fp[65];
	prefix_fingerprint(t, capacity, cutoff, fp);
	json_set(a, b, "observed_prefix_fingerprint", json_str(a, fp));
	json_set(a, b, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, b, "controller_fingerprint", json_str(a, cfg->fingerprint));
	json_set(a, b, "cutoff_time_seconds", json_real(a, cutoff));
	struct json *snap = snapshot_doc(a, &c, d);
	const char *snap_fp = stamp(a, snap, "snapshot_fingerprint");
	struct json *fc = forecast_doc(a, &c, d, snap_fp);
	const char *fc_fp = stamp(a, fc, "forecast_fingerprint");
	struct json *qp = quota_doc(a, &c, d, fc_fp);
	stamp(a, qp, "quota_plan_fingerprint");
	json_set(a, b, "observation_snapshot", snap);
	json_set(a, b, "demand_forecast", fc);
	json_set(a, b, "spot_quota_plan", qp);
	json_set(a, b, "information_boundary", flags(a, "jobs_with_submit_time_after_cutoff_excluded", true, "full_trace_fingerprint_exposed", false,
						     "actual_future_demand_used_for_prediction", false));
	/* the original hashes the bundle without our "type" key */
	struct json *doc = json_object(a);
	for (size_t i = 1; i < b->u.obj.n; i++)
		json_set(a, doc, b->u.obj.keys[i], b->u.obj.vals[i]);
	pc_canonical_sha256(doc, fp);
	json_set(a, b, "observation_bundle_fingerprint", json_str(a, fp));
	pc_controller_release(&c);
	return b;
}

/* ---- verifying a bundle (quota) ---- */

int pc_point_check(double cutoff, const struct pc_point *p, double capacity, char *err, size_t errlen)
{
	const char *bad = NULL;
	if (!(isfinite(cutoff) && cutoff >= 0 && cutoff <= 1e12))
		bad = "cutoff_time_seconds must be in [0, 1e12]";
	else if (!(isfinite(p->target) && p->target > cutoff && p->target - cutoff <= 1e12))
		bad = "target_time_seconds must lie after the cutoff (by at most 1e12 s)";
	else if (!(isfinite(p->mu) && p->mu >= 0))
		bad = "mu_gpus must be a finite number >= 0";
	else if (!(isfinite(p->sigma) && p->sigma >= 0))
		bad = "sigma_gpus must be a finite number >= 0";
	else if (!(isfinite(p->q) && p->q >= 0))
		bad = "guarantee_quantile_gpus must be a finite number >= 0";
	else if (capacity > 0 && (p->mu > capacity || p->q > capacity))
		bad = "mu_gpus and guarantee_quantile_gpus must not exceed the capacity";
	if (!bad)
		return 0;
	snprintf(err, errlen, "%s (step %d: cutoff %.17g, target %.17g, mu %.17g, sigma %.17g, q %.17g)", bad, p->step, cutoff,
		 p->target, p->mu, p->sigma, p->q);
	return -1;
}

/* doc without key, hashed: does it equal doc's key? */
static bool self_fingerprint_ok(struct arena *a, const struct json *doc, const char *key)
{
	const struct json *fp = json_get(doc, key);
	if (!fp || fp->kind != JSON_STRING || doc->kind != JSON_OBJECT)
		return false;
	struct json *rest = json_object(a);
	for (size_t i = 0; i < doc->u.obj.n; i++)
		if (strcmp(doc->u.obj.keys[i], key) && strcmp(doc->u.obj.keys[i], "type"))
			json_set(a, rest, doc->u.obj.keys[i], doc->u.obj.vals[i]);
	char want[65];
	pc_canonical_sha256(rest, want);
	return !strcmp(want, fp->u.str.s);
}

static bool str_is(const struct json *o, const char *key, const char *want)
{
	const struct json *v = json_get(o, key);
	return v && v->kind == JSON_STRING && want && !strcmp(v->u.str.s, want);
}

static bool num_of(const struct json *o, const char *key, double *out)
{
	const struct json *v = json_get(o, key);
	if (!v || !json_is_num(v) || !isfinite(json_num(v)))
		return false;
	*out = json_num(v);
	return true;
}

static int vfail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "observation_bundle: %s", msg);
	return -1;
}

int pc_bundle_verify(const struct json *b, const struct pc_config *cfg, struct arena *a, struct pc_bundle_view *out, char *err,
		     size_t errlen)
{
	const struct json *snap = json_get(b, "observation_snapshot"), *fc = json_get(b, "demand_forecast"),
			  *plan = json_get(b, "spot_quota_plan");
	memset(out, 0, sizeof *out);
	if (!str_is(b, "controller_fingerprint", cfg->fingerprint) || !str_is(fc, "controller_fingerprint", cfg->fingerprint) ||
	    !str_is(plan, "controller_fingerprint", cfg->fingerprint))
		return pc_field_fail(err, errlen, "observation_bundle of another controller (controller_fingerprint differs from --controller)");
	if (!str_is(b, "schema_version", PC_BUNDLE_SCHEMA) || !snap || snap->kind != JSON_OBJECT || !fc || fc->kind != JSON_OBJECT ||
	    !plan || plan->kind != JSON_OBJECT)
		return vfail(err, errlen, "not a " PC_BUNDLE_SCHEMA " record with observation_snapshot, demand_forecast and spot_quota_plan");
	/* each document's own fingerprint, then the chain snapshot -> forecast -> plan, then the whole */
	if (!self_fingerprint_ok(a, snap, "snapshot_fingerprint"))
		return vfail(err, errlen, "observation_snapshot does not match its snapshot_fingerprint (edited or missing)");
	if (!self_fingerprint_ok(a, fc, "forecast_fingerprint"))
		return vfail(err, errlen, "demand_forecast does not match its forecast_fingerprint (edited or missing)");
	if (!self_fingerprint_ok(a, plan, "quota_plan_fingerprint"))
		return vfail(err, errlen, "spot_quota_plan does not match its quota_plan_fingerprint (edited or missing)");
	if (!str_is(fc, "observation_snapshot_fingerprint", json_get(snap, "snapshot_fingerprint")->u.str.s) ||
	    !str_is(plan, "forecast_fingerprint", json_get(fc, "forecast_fingerprint")->u.str.s))
		return vfail(err, errlen, "the forecast does not name its snapshot, or the plan its forecast, by fingerprint");
	if (!self_fingerprint_ok(a, b, "observation_bundle_fingerprint"))
		return vfail(err, errlen, "the record does not match its observation_bundle_fingerprint (edited or missing)");
	/* one cutoff everywhere; then the ranges */
	double cut, c2, c3, c4, cap, eta;
	if (!num_of(b, "cutoff_time_seconds", &cut) || !num_of(snap, "cutoff_time_seconds", &c2) ||
	    !num_of(fc, "cutoff_time_seconds", &c3) || !num_of(plan, "cutoff_time_seconds", &c4) || cut != c2 || cut != c3 || cut != c4)
		return vfail(err, errlen, "the bundle, snapshot, forecast and plan must carry one finite cutoff_time_seconds");
	if (!num_of(plan, "capacity_gpus", &cap) || !(cap >= 1 && cap <= PC_MAX_CAPACITY) || cap != floor(cap))
		return vfail(err, errlen, "spot_quota_plan: capacity_gpus must be an integer in [1, 2^40]");
	if (!num_of(plan, "eta", &eta) || !(eta >= cfg->minimum_eta - PC_EPS && eta <= cfg->maximum_eta + PC_EPS))
		return vfail(err, errlen, "spot_quota_plan: eta must lie within the controller's [minimum_eta, maximum_eta]");
	const struct json *pts = json_get(fc, "points"), *ffp = json_get(fc, "forecast_fingerprint");
	if (!pts || pts->kind != JSON_ARRAY || pts->u.arr.n != (size_t)cfg->forecast_horizon_hours)
		return vfail(err, errlen, "demand_forecast: points must hold one point per forecast horizon hour of the controller");
	struct pc_point *p = arena_alloc(a, (pts->u.arr.n + 1) * sizeof *p);
	for (size_t i = 0; i < pts->u.arr.n; i++) {
		const struct json *o = pts->u.arr.items[i], *step = json_get(o, "horizon_step");
		char perr[300];
		p[i].step = (int)i + 1;
		if (!step || step->kind != JSON_INT || step->u.i != (long long)i + 1 || !num_of(o, "target_time_seconds", &p[i].target) ||
		    !num_of(o, "mu_gpus", &p[i].mu) || !num_of(o, "sigma_gpus", &p[i].sigma) || !num_of(o, "guarantee_quantile_gpus", &p[i].q)) {
			snprintf(err, errlen, "observation_bundle: point %zu must have horizon_step %zu and finite target_time_seconds, mu_gpus, sigma_gpus, guarantee_quantile_gpus",
				 i + 1, i + 1);
			return -1;
		}
		if (pc_point_check(cut, &p[i], cap, perr, sizeof perr)) {
			snprintf(err, errlen, "observation_bundle: point %zu: %s", i + 1, perr);
			return -1;
		}
	}
	/* the plan's quotas are the quota function of its own inputs (the controller used eta
	 * before its 9-digit rounding: the quota at eta -+ 1e-9 brackets it) */
	const struct json *by = json_get(plan, "spot_quota_gpus_by_guarantee_hour");
	struct pc_quota_input lo = { p, pts->u.arr.n, cap, eta - PC_EPS, cfg->sw.floor_before_subtract, false, 0, 0 }, hi = lo;
	hi.eta = eta + PC_EPS;
	for (size_t i = 0; i < cfg->n_horizons; i++) {
		char hk[24];
		snprintf(hk, sizeof hk, "%lld", cfg->horizons[i]);
		const struct json *q = json_get(by, hk);
		if (!q || q->kind != JSON_INT || q->u.i < pc_quota(&lo, cfg->horizons[i]) || q->u.i > pc_quota(&hi, cfg->horizons[i])) {
			snprintf(err, errlen, "observation_bundle: spot_quota_plan: the quota of horizon %s h is not the quota function of the plan's forecast, capacity and eta",
				 hk);
			return -1;
		}
	}
	out->cutoff = cut;
	out->capacity = cap;
	out->eta = eta;
	out->points = p;
	out->n = pts->u.arr.n;
	out->forecast_fingerprint = ffp->u.str.s;
	return 0;
}
