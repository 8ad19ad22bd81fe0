/* The driver the tenant estimators share: the registry lookup, split-conformal calibration,
 * the fit and forecast, the model fingerprint. Each estimator's own part is its struct
 * pt_est_ops (estimator_linear.c, estimator_seasonal.c); the features and the hashing both
 * use are features.c, so no estimator uses the driver that reaches it through the registry. */
#include "core/arena.h"
#include "core/xalloc.h"
#include "core/json.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "predict/tenant/estimator_internal.h"
#include "predict/predict.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pt_est_id(const struct pt_est_ops *kind)
{
	return kind->id;
}

const struct pt_est_ops *pt_est_find(const char *id)
{
	for (const struct pt_est_ops *const *o = pt_est_registry; *o; o++)
		if (!strcmp((*o)->id, id))
			return *o;
	return NULL;
}

void pt_est_id_list(char *buf, size_t len)
{
	size_t n = 0, used = 0;
	while (pt_est_registry[n])
		n++;
	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + used, len - used, "%s'%s'", sep, pt_est_registry[i]->id);
		used += w > 0 ? (size_t)w : 0;
	}
}

int pt_est_init(struct pt_estimator *e, const struct pt_est_config *cfg, char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	int L = cfg->lookback_hours, K = cfg->horizon_hours, w = cfg->moving_average_window;
	if (L < 48 || K < 1 || K > PT_EST_MAX_STEPS || cfg->validation_hours < K || w < 3 || w % 2 == 0 || 2 * w - 1 > L ||
	    (L >= 168 && K > 168) || !(cfg->probability > 0.5 && cfg->probability < 1) || !cfg->calendar) {
		snprintf(err, errlen, "estimator '%s' needs lookback >= 48 h, 1..%d horizon steps, validation >= horizon, "
		         "an odd moving-average window of 3..(lookback+1)/2 h and 0.5 < p < 1", pt_est_id(cfg->kind), PT_EST_MAX_STEPS);
		return -1;
	}
	e->cfg = *cfg;
	e->state = cfg->kind->create ? cfg->kind->create(cfg) : NULL;
	return 0;
}

void pt_est_release(struct pt_estimator *e)
{
	if (e->state && e->cfg.kind->destroy)
		e->cfg.kind->destroy(e->state);
	free(e->pool_fitted);
	free(e->cal);
	memset(e, 0, sizeof *e);
}

int pt_est_clone(struct pt_estimator *d, const struct pt_estimator *s)
{
	*d = *s;
	d->state = s->state ? s->cfg.kind->clone(s->state) : NULL;
	d->pool_fitted = pt_est_dup(s->pool_fitted, s->n_cal_pools * sizeof *s->pool_fitted);
	d->cal = pt_est_dup(s->cal, s->n_cal_pools * (size_t)s->cfg.horizon_hours * sizeof *s->cal);
	return 0;
}

/* ---- conformal ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void pt_est_conformal(double *res, size_t n, double probability, struct pt_est_calibration *out)
{
	memset(out, 0, sizeof *out);
	if (!n)
		return;
	qsort(res, n, sizeof *res, cmp_double);
	double want = ceil(probability * (double)n) - 1;
	size_t r = want < 0 ? 0 : want > (double)(n - 1) ? n - 1 : (size_t)want;
	out->n = n;
	out->rank = r + 1;
	out->offset = num_round(res[r], 6);
	size_t raw = 0, cal = 0;
	for (size_t i = 0; i < n; i++) {
		raw += res[i] <= 0;
		cal += res[i] <= out->offset;
	}
	out->raw_coverage = (double)raw / (double)n;
	out->calibrated_coverage = (double)cal / (double)n;
}

/* ---- fingerprint ---- */

static void fingerprint(struct pt_estimator *e, const struct pt_history *h)
{
	const struct pt_est_config *c = &e->cfg;
	struct arena a;
	arena_init(&a);
	struct json *m = json_object(&a), *series = json_array(&a), *meta = json_object(&a), *maps = json_array(&a);
	struct json *pools = json_object(&a), *clusters = json_object(&a), *tenants = json_object(&a);
	for (size_t si = 0; si < h->n_series; si++) {
		const struct pt_hist_series *s = &h->series[h->sorted[si]];
		json_push(&a, series, json_str(&a, s->id));
		struct json *md = json_object(&a);
		json_set(&a, md, "cluster", json_str(&a, "cluster"));
		json_set(&a, md, "pool", json_str(&a, s->pool));
		json_set(&a, md, "tenant", json_str(&a, s->tenant));
		json_set(&a, meta, s->id, md);
	}
	long long np = 0;
	for (size_t p = 0; p < h->n_pools; p++)
		if (h->n_pool_series[p])
			json_set(&a, pools, h->pools[p], json_int(&a, np++));
	json_set(&a, clusters, "cluster", json_int(&a, 0));
	/* tenants are indexed in name order: the sorted writer orders the keys, the
	 * values must follow that order too */
	char **names = xmalloc((h->n_tenants ? h->n_tenants : 1) * sizeof *names);
	for (size_t t = 0; t < h->n_tenants; t++)
		names[t] = h->tenants[t];
	for (size_t i = 1; i < h->n_tenants; i++) {
		char *v = names[i];
		size_t j = i;
		while (j && strcmp(names[j - 1], v) > 0) {
			names[j] = names[j - 1];
			j--;
		}
		names[j] = v;
	}
	for (size_t t = 0; t < h->n_tenants; t++)
		json_set(&a, tenants, names[t], json_int(&a, (long long)t));
	free(names);
	json_push(&a, maps, pools);
	json_push(&a, maps, clusters);
	json_push(&a, maps, tenants);
	struct json *cal = json_object(&a), *est = json_object(&a);
	json_set(&a, cal, "name", json_str(&a, c->calendar->name));
	json_set(&a, cal, "fingerprint", c->calendar->table ? json_str(&a, c->calendar->fingerprint) : json_null(&a));
	json_set(&a, est, "lookback_hours", json_int(&a, c->lookback_hours));
	json_set(&a, est, "horizon_hours", json_int(&a, c->horizon_hours));
	json_set(&a, est, "validation_hours", json_int(&a, c->validation_hours));
	json_set(&a, est, "moving_average_window", json_int(&a, c->moving_average_window));
	json_set(&a, est, "guarantee_probability", json_real(&a, c->probability));
	json_set(&a, est, "spread", json_str(&a, "RMS of the validation residuals of mu per (pool, step)"));
	json_set(&a, est, "calibration", c->calibrate ? json_str(&a, "validation-residual-nearest-rank") : json_null(&a));
	if (c->kind->describe)
		c->kind->describe(&a, est);
	json_set(&a, m, "model", json_str(&a, pt_est_id(c->kind)));
	json_set(&a, m, "controller_fingerprint", json_str(&a, c->controller_fingerprint));
	json_set(&a, m, "series", series);
	json_set(&a, m, "series_metadata", meta);
	json_set(&a, m, "category_maps", maps);
	json_set(&a, m, "trained_at_seconds", json_real(&a, e->trained_at));
	json_set(&a, m, "training_generation", json_int(&a, e->generation));
	json_set(&a, m, "calendar", cal);
	json_set(&a, m, "estimator", est);
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, m);
	struct fp_sha256 sh;
	fp_sha256_init(&sh);
	fp_sha256_update(&sh, sb.buf, sb.len);
	if (c->kind->hash)
		c->kind->hash(e, &sh);
	for (size_t p = 0; p < h->n_pools; p++)
		if (e->pool_fitted[p])
			for (int k = 0; k < c->horizon_hours; k++)
			{
				pt_est_hash_double(&sh, e->cal[p * (size_t)c->horizon_hours + (size_t)k].sigma);
				pt_est_hash_double(&sh, e->cal[p * (size_t)c->horizon_hours + (size_t)k].offset);
			}
	fp_sha256_hex(&sh, e->fingerprint);
	sb_release(&sb);
	arena_release(&a);
}

/* ---- fit ---- */

/* Per-pool, per-step actuals (the hourly maximum of the pool's total: what a reservation
 * must cover at every minute of the target hour) and mu totals of the validation windows. Each cell
 * (pool, step, window) receives the pool's series in id order whatever the loop nesting,
 * so the loops run series by series and, inside, window by window of one offset: the
 * hourly arrays are then read in order (memory, not arithmetic, is what costs here). */
static int validation_totals(const struct pt_estimator *e, const struct pt_history *h, const struct pt_hist_split *sp,
                             double *actual, double *mu, char *err, size_t errlen)
{
	const struct pt_est_config *c = &e->cfg;
	size_t L = (size_t)c->lookback_hours, K = (size_t)c->horizon_hours, span = c->kind->span_start(c);
	size_t nv = sp->validation_end - sp->validation_first;
	struct pt_est_time *times = xmalloc((nv ? nv : 1) * sizeof *times);
	struct pt_hist_window *wins = xmalloc((nv ? nv : 1) * sizeof *wins);
	for (size_t v = 0; v < nv; v++) {
		wins[v] = pt_hist_window_at(h, sp->validation_first + v, c->lookback_hours);
		if (pt_est_time_at(c, wins[v].target_start, &times[v], err, errlen)) {
			free(times), free(wins);
			return -1;
		}
	}
	for (size_t x = 0; x < h->n_pools * K * nv; x++)
		actual[x] = mu[x] = 0;
	size_t n_off = (size_t)h->n_offsets;
	for (size_t p = 0; p < h->n_pools; p++) {
		double *a = actual + p * K * nv, *m = mu + p * K * nv;
		for (size_t v = 0; v < nv; v++) {
			const double *y = pt_hist_pool_hourly(h, p, wins[v].offset_index) + wins[v].first_block + L;
			for (size_t k = 0; k < K; k++)
				a[k * nv + v] = y[k];
		}
		for (size_t q = 0; q < h->n_pool_series[p]; q++) {
			size_t i = h->pool_series[p][q];
			for (size_t r = 0; r < n_off && r < nv; r++) {
				size_t o = wins[r].offset_index;
				struct pt_hist_vals X = pt_hist_hourly(h, i, o), PX = pt_hist_prefix(h, i, o);
				long long last = h->series[i].last_nonzero[o];
				for (size_t v = r; v < nv; v += n_off) {
					if (last < (long long)(wins[v].first_block + span))
						continue;  /* no demand in the span: mu 0 */
					struct pt_est_window w = { .x = pt_hv_from(X, wins[v].first_block),
						                .P = pt_hv_from(PX, wins[v].first_block),
						                .t = &times[v] };
					for (size_t k = 0; k < K; k++)
						m[k * nv + v] += c->kind->mu(e, h, i, &w, (int)k);
				}
			}
		}
	}
	free(times), free(wins);
	return 0;
}

/* sigma, then the raw residuals and (v2) their conformal offset, of one (pool, step). */
static void calibrate_one(const struct pt_est_config *c, double z, const double *actual, const double *mu, size_t n,
                          double *res, struct pt_est_calibration *out)
{
	double ss = 0;
	for (size_t v = 0; v < n; v++) {
		double r = actual[v] - mu[v];
		ss += r * r;
	}
	double sigma = sqrt(ss / (double)n);
	for (size_t v = 0; v < n; v++)
		res[v] = actual[v] - (mu[v] + z * sigma);
	if (c->calibrate)
		pt_est_conformal(res, n, c->probability, out);
	else {
		memset(out, 0, sizeof *out);
		out->n = n;
		size_t raw = 0;
		for (size_t v = 0; v < n; v++)
			raw += res[v] <= 0;
		out->raw_coverage = out->calibrated_coverage = (double)raw / (double)n;
	}
	out->sigma = sigma;
}

int pt_est_fit(struct pt_estimator *e, const struct pt_history *h, double trained_at, char *err, size_t errlen)
{
	const struct pt_est_config *c = &e->cfg;
	struct pt_hist_split sp;
	pt_hist_split_at(h, trained_at, c->lookback_hours, c->horizon_hours, c->validation_hours, &sp);
	if (!sp.n_train || sp.validation_end == sp.validation_first) {
		snprintf(err, errlen, "insufficient history at %.17g for lookback, training targets and validation targets "
		         "(%zu train, %zu validation windows)", trained_at, sp.n_train, sp.validation_end - sp.validation_first);
		return -1;
	}
	if (!h->n_series) {
		snprintf(err, errlen, "at least one observed demand series is required");
		return -1;
	}
	size_t rows = 0;
	if (c->kind->fit && c->kind->fit(e, h, sp.n_train, &rows, err, errlen))
		return -1;
	size_t K = (size_t)c->horizon_hours, nv = sp.validation_end - sp.validation_first;
	free(e->pool_fitted);
	free(e->cal);
	e->n_cal_pools = h->n_pools;
	e->pool_fitted = xcalloc(h->n_pools, sizeof *e->pool_fitted);
	e->cal = xcalloc(h->n_pools * K, sizeof *e->cal);
	double *actual = xmalloc(h->n_pools * K * nv * sizeof *actual), *mu = xmalloc(h->n_pools * K * nv * sizeof *mu);
	double *res = xmalloc(nv * sizeof *res), z = pc_normal_quantile(c->probability);
	if (validation_totals(e, h, &sp, actual, mu, err, errlen)) {
		free(actual), free(mu), free(res);
		return -1;
	}
	for (size_t p = 0; p < h->n_pools; p++) {
		e->pool_fitted[p] = h->n_pool_series[p] > 0;
		if (e->pool_fitted[p])
			for (size_t k = 0; k < K; k++)
				calibrate_one(c, z, actual + (p * K + k) * nv, mu + (p * K + k) * nv, nv, res, &e->cal[p * K + k]);
	}
	free(actual), free(mu), free(res);
	e->trained = true;
	e->trained_at = trained_at;
	e->generation++;
	e->fit_series = h->n_series;
	e->train_windows = sp.n_train;
	e->validation_windows = nv;
	e->history_samples = h->n_samples;
	e->train_rows = rows;
	fingerprint(e, h);
	return 0;
}

/* ---- forecast ---- */

int pt_est_forecast(const struct pt_estimator *e, const struct pt_history *h, double now, struct pt_est_point *points,
                 size_t *n_points, char *err, size_t errlen)
{
	const struct pt_est_config *c = &e->cfg;
	size_t L = (size_t)c->lookback_hours, K = (size_t)c->horizon_hours, pph = (size_t)h->points_per_hour;
	*n_points = 0;
	if (!e->trained) {
		snprintf(err, errlen, "the tenant estimator must be fitted before forecasting");
		return -1;
	}
	if (e->fit_series != h->n_series) {
		snprintf(err, errlen, "the demand series changed since the last fit");
		return -1;
	}
	size_t n = h->n_samples ? h->n_samples - 1 : 0;
	if (!h->n_samples || n < L * pph || n % (size_t)h->stride_points) {
		snprintf(err, errlen, "forecast needs %zu samples of history on the %d-sample grid", L * pph + 1, h->stride_points);
		return -1;
	}
	size_t s = n - L * pph, o = (s % pph) / (size_t)h->stride_points, fb = s / pph;
	if (fb + L > h->n_blocks[o]) {
		snprintf(err, errlen, "forecast window is not complete");
		return -1;
	}
	struct pt_est_time t;
	if (pt_est_time_at(c, pt_hist_sample_time(h, n), &t, err, errlen))
		return -1;
	double z = pc_normal_quantile(c->probability);
	size_t span = c->kind->span_start(c);
	double *mu = xmalloc(K * sizeof *mu);
	for (size_t p = 0; p < h->n_pools; p++) {
		if (p >= e->n_cal_pools || !e->pool_fitted[p])
			continue;
		for (size_t k = 0; k < K; k++)
			mu[k] = 0;
		for (size_t q = 0; q < h->n_pool_series[p]; q++) {
			size_t i = h->pool_series[p][q];
			if (h->series[i].last_nonzero[o] < (long long)(fb + span))
				continue;  /* no demand in the span: mu 0 */
			struct pt_est_window w = { .x = pt_hv_from(pt_hist_hourly(h, i, o), fb),
				                .P = pt_hv_from(pt_hist_prefix(h, i, o), fb), .t = &t };
			for (size_t k = 0; k < K; k++)
				mu[k] += c->kind->mu(e, h, i, &w, (int)k);
		}
		for (size_t k = 0; k < K; k++) {
			const struct pt_est_calibration *cal = &e->cal[p * K + k];
			struct pt_est_point *pt = &points[(*n_points)++];
			double raw = mu[k] + z * cal->sigma, q = raw + cal->offset;
			pt->pool = p;
			pt->step = (int)k + 1;
			pt->target = now + 3600.0 * (double)(k + 1);
			pt->mu = num_round(mu[k], 6);
			pt->sigma = num_round(cal->sigma, 6);
			pt->raw = num_round(raw, 6);
			pt->offset = cal->offset;
			pt->quantile = num_round(q > 0 ? q : 0, 6);
		}
	}
	free(mu);
	return 0;
}
