/*
 * seasonal-gaussian-v1 (docs/predictive-rules.md §1): global mean, hour-of-day means, hour-of-week
 * means (keys with >= 2 points), a trend from the last two 24-bucket blocks and a Gaussian
 * sigma from the residuals; the forecast adds a level offset (mean residual of the last 24
 * buckets). Bucket keys are absolute hour indices (floor(t / 3600 + EPS)), not calendar
 * hours. Every mean is a left-to-right sum in time order divided by the count.
 */
#include "predict/predict.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seasonal {
	const struct pc_config *cfg;
	double capacity, z;
	double global_mean, sigma, trend;
	double day[24], week[168];
	bool has_day[24], has_week[168];
	double trained_at;
	size_t count;
	bool fitted, hashed;
	char fingerprint[65];
};

static long long bucket_number(double t, double interval)
{
	return (long long)floor(t / interval + PC_EPS);
}

static int mod(long long x, int m)
{
	long long r = x % m;
	return (int)(r < 0 ? r + m : r);
}

/* week.get(b % 168, day.get(b % 24, global)) */
static double expected(const struct seasonal *s, long long b)
{
	int w = mod(b, 168), d = mod(b, 24);
	if (s->has_week[w])
		return s->week[w];
	if (s->has_day[d])
		return s->day[d];
	return s->global_mean;
}

static double mean_of(const double *v, size_t n)
{
	if (n == 0)
		return 0.0;
	double sum = 0.0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

/* Python's x ** 2 is libm's pow(x, 2.0), which is not always x * x rounded (glibc's pow
 * is within 0.52 ulp, not correctly rounded): call it, and keep the compiler from folding it. */
static double py_square(double x)
{
	volatile double two = 2.0;
	return pow(x, two);
}

static void *seasonal_create(const struct pc_config *c, double capacity)
{
	struct seasonal *s = xcalloc(1, sizeof *s);
	s->cfg = c;
	s->capacity = capacity;
	s->sigma = c->minimum_sigma_gpus;
	s->z = pc_normal_quantile(c->guarantee_probability);
	return s;
}

static void *seasonal_clone(const void *e)
{
	struct seasonal *s = xmalloc(sizeof *s);
	memcpy(s, e, sizeof *s);
	return s;
}

static void seasonal_destroy(void *e)
{
	free(e);
}

/* The original's model payload, hashed: values round9, keys as strings. */
static void model_fingerprint(struct seasonal *s)
{
	struct arena a;
	arena_init(&a);
	struct json *d = json_object(&a), *day = json_object(&a), *week = json_object(&a);
	char key[16];   /* an int in decimal, as the compiler counts it */
	json_set(&a, d, "model", json_str(&a, s->cfg->model));
	json_set(&a, d, "trained_at_seconds", json_real(&a, s->trained_at));
	json_set(&a, d, "history_point_count", json_int(&a, (long long)s->count));
	json_set(&a, d, "global_mean", json_real(&a, num_round(s->global_mean, 9)));
	json_set(&a, d, "sigma", json_real(&a, num_round(s->sigma, 9)));
	json_set(&a, d, "trend_per_hour", json_real(&a, num_round(s->trend, 9)));
	for (int k = 0; k < 24; k++)
		if (s->has_day[k]) {
			snprintf(key, sizeof key, "%d", k);
			json_set(&a, day, key, json_real(&a, num_round(s->day[k], 9)));
		}
	for (int k = 0; k < 168; k++)
		if (s->has_week[k]) {
			snprintf(key, sizeof key, "%d", k);
			json_set(&a, week, key, json_real(&a, num_round(s->week[k], 9)));
		}
	json_set(&a, d, "hour_of_day", day);
	json_set(&a, d, "hour_of_week", week);
	pc_canonical_sha256(d, s->fingerprint);
	arena_release(&a);
}

static void seasonal_fit(void *e, const struct pc_bucket *h, size_t n, double trained_at)
{
	struct seasonal *s = e;
	struct pc_bucket none = { trained_at, 0.0 };
	if (n == 0) {
		h = &none;
		n = 1;
	}
	double interval = (double)s->cfg->aggregation_interval_seconds;
	double *v = xmalloc(n * sizeof *v), *res = xmalloc(n * sizeof *res);
	double dsum[24] = { 0 }, wsum[168] = { 0 };
	size_t dn[24] = { 0 }, wn[168] = { 0 };
	for (size_t i = 0; i < n; i++)
		v[i] = h[i].v;
	s->global_mean = mean_of(v, n);
	for (size_t i = 0; i < n; i++) {
		long long b = bucket_number(h[i].t, interval);
		int d = mod(b, 24), w = mod(b, 168);
		dsum[d] += h[i].v;
		dn[d]++;
		wsum[w] += h[i].v;
		wn[w]++;
	}
	for (int k = 0; k < 24; k++) {
		s->has_day[k] = dn[k] > 0;
		s->day[k] = dn[k] ? dsum[k] / (double)dn[k] : 0.0;
	}
	for (int k = 0; k < 168; k++) {
		s->has_week[k] = wn[k] >= 2;
		s->week[k] = wn[k] >= 2 ? wsum[k] / (double)wn[k] : 0.0;
	}
	for (size_t i = 0; i < n; i++)
		res[i] = h[i].v - expected(s, bucket_number(h[i].t, interval));
	double rm = mean_of(res, n), ss = 0.0;
	for (size_t i = 0; i < n; i++) {
		ss += py_square(res[i] - rm);
	}
	double pop = sqrt(ss / (double)n);
	s->sigma = pop > s->cfg->minimum_sigma_gpus ? pop : s->cfg->minimum_sigma_gpus;
	/* recent = values[-24:], previous = values[-48:-24] */
	size_t rn = n < 24 ? n : 24, pn = n > 24 ? (n - 24 < 24 ? n - 24 : 24) : 0;
	double raw = 0.0;
	if (pn > 0)
		raw = (mean_of(v + n - rn, rn) - mean_of(v + n - rn - pn, pn)) / 24;
	double lim = s->capacity * 0.05;
	lim = lim > 1.0 ? lim : 1.0;
	double t = raw < lim ? raw : lim;
	s->trend = t > -lim ? t : -lim;
	s->trained_at = trained_at;
	s->count = n;
	s->fitted = true;
	free(v);
	free(res);
	s->hashed = false;
}

static void seasonal_forecast(void *e, const struct pc_bucket *h, size_t n, double cutoff, struct pc_point *out)
{
	struct seasonal *s = e;
	double interval = (double)s->cfg->aggregation_interval_seconds, C = s->capacity;
	size_t rn = n < 24 ? n : 24;
	double sum = 0.0;
	for (size_t i = n - rn; i < n; i++)
		sum += h[i].v - expected(s, bucket_number(h[i].t, interval));
	double level = rn ? sum / (double)rn : 0.0;
	for (long long step = 1; step <= s->cfg->forecast_horizon_hours; step++) {
		double target = cutoff + (double)(step * s->cfg->aggregation_interval_seconds);
		double seasonal = expected(s, bucket_number(target, interval));
		double x = seasonal + level + s->trend * (double)step;
		double mu = x < C ? x : C;
		mu = mu > 0.0 ? mu : 0.0;
		double y = mu + s->z * s->sigma;
		double q = y < C ? y : C;
		q = q > 0.0 ? q : 0.0;
		struct pc_point *p = &out[step - 1];
		p->step = (int)step;
		p->target = target;
		p->mu = num_round(mu, 6);
		p->sigma = num_round(s->sigma, 6);
		p->q = num_round(q, 6);
	}
}

static double seasonal_trained_at(const void *e)
{
	return ((const struct seasonal *)e)->trained_at;
}

static size_t seasonal_count(const void *e)
{
	return ((const struct seasonal *)e)->count;
}

static const char *seasonal_fp(void *e)
{
	struct seasonal *s = e;
	if (!s->hashed) {
		model_fingerprint(s);
		s->hashed = true;
	}
	return s->fingerprint;
}

const struct pc_estimator_ops pc_seasonal_gaussian = {
	.model = "seasonal-gaussian-v1",
	.create = seasonal_create,
	.clone = seasonal_clone,
	.destroy = seasonal_destroy,
	.fit = seasonal_fit,
	.forecast = seasonal_forecast,
	.trained_at = seasonal_trained_at,
	.training_count = seasonal_count,
	.fingerprint = seasonal_fp,
};
