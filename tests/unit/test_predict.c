/* Unit tests for lib/predict: the normal quantile, the seasonal fit (week, else day, else
 * global), the sigma floor, the trend clamp, the level offset, the quota function and its
 * floor with EPS, every eta path of the feedback and the update order, on hand-made
 * histories whose expected values follow from docs/predictive-rules.md §1 by hand. */
#include "core/die.h"
#include "core/json.h"
#include "core/num.h"
#include "predict/predict.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const char config_json[] =
	"{\"schema_version\":\"schednav.predictive-controller/v1\",\"controller_id\":\"predictive-spot-v1\","
	"\"model\":\"seasonal-gaussian-v1\",\"observation_interval_seconds\":300,\"aggregation_interval_seconds\":3600,"
	"\"lookback_hours\":672,\"forecast_horizon_hours\":4,\"retrain_interval_seconds\":86400,\"guarantee_probability\":0.9,"
	"\"guarantee_horizons_hours\":[1,2,4],\"minimum_history_hours\":24,\"minimum_sigma_gpus\":1.0,\"initial_eta\":1.0,"
	"\"minimum_eta\":0.25,\"maximum_eta\":1.25,\"feedback_window_seconds\":14400,\"starvation_increase_after_seconds\":3600,"
	"\"high_eviction_ratio\":1.5,\"low_eviction_ratio\":0.5,\"eta_increase_step\":0.1}";

static struct arena A;
static struct pc_config CFG;

static void load_config(void)
{
	struct json *doc;
	char err[300];
	arena_init(&A);
	if (json_parse(&A, config_json, strlen(config_json), &doc, err, sizeof err) || pc_config_from_json(&CFG, doc, &A, err, sizeof err)) {
		fprintf(stderr, "bad test config: %s\n", err);
		exit(1);
	}
}

static void config_rules(void)
{
	CHECK(!strcmp(CFG.fingerprint, "efe5a0c84905f24e2cc9c2dad5e0ced857a56fc53d5999f883daf875efe854d8"), "fingerprint %s", CFG.fingerprint);
	CHECK(pc_config_horizon_for(&CFG, 0) == 0 && pc_config_horizon_for(&CFG, 3600) == 0 && pc_config_horizon_for(&CFG, 3601) == 1 &&
	      pc_config_horizon_for(&CFG, 7200) == 1 && pc_config_horizon_for(&CFG, 7201) == 2 && pc_config_horizon_for(&CFG, 14400) == 2 &&
	      pc_config_horizon_for(&CFG, 14401) == -1, "horizon lookup");
	static const struct { const char *from, *to, *msg; } bad[] = {
		{ "\"lookback_hours\":672,", "\"lookback_hours\":672,\"extra\":1,", "unknown key 'extra'" },
		{ "\"lookback_hours\":672,", "", "missing required key 'lookback_hours'" },
		{ "\"aggregation_interval_seconds\":3600", "\"aggregation_interval_seconds\":1800", "requires hourly aggregation" },
		{ "[1,2,4]", "[1,4,2]", "guarantee_horizons_hours must be unique, increasing" },
		{ "[1,2,4]", "[1,2,5]", "inside the forecast horizon" },
		{ "\"guarantee_probability\":0.9", "\"guarantee_probability\":0.5", "between 0.5 and 1" },
		{ "\"minimum_eta\":0.25", "\"minimum_eta\":1.5", "minimum_eta <= initial_eta" },
		{ "\"observation_interval_seconds\":300", "\"observation_interval_seconds\":300.5", "must be an integer" },
		{ "\"model\":\"seasonal-gaussian-v1\"", "\"model\":\"torch\"", "unknown model 'torch'" },
		{ "\"forecast_horizon_hours\":4", "\"forecast_horizon_hours\":169", "forecast_horizon_hours at most 168" },
		{ "\"lookback_hours\":672", "\"lookback_hours\":1e300", "must be an integer" },
		{ "\"guarantee_probability\":0.9", "\"guarantee_probability\":\"0.9\"", "must be a finite number" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char buf[2048], err[300];
		const char *at = strstr(config_json, bad[i].from);
		snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - config_json), config_json, bad[i].to, at + strlen(bad[i].from));
		struct json *doc;
		struct pc_config c;
		int rc = json_parse(&A, buf, strlen(buf), &doc, err, sizeof err) == 0 ? pc_config_from_json(&c, doc, &A, err, sizeof err) : -2;
		CHECK(rc == -1 && strstr(err, bad[i].msg), "config %zu: rc %d, '%s' (want '%s')", i, rc, err, bad[i].msg);
	}
	/* int() and float() coercions: 300.0 and 1 give the same dict and fingerprint */
	char buf[2048], err[300];
	snprintf(buf, sizeof buf, "%s", config_json);
	char *at = strstr(buf, "\"minimum_sigma_gpus\":1.0");
	memcpy(at, "\"minimum_sigma_gpus\":1  ", 24);
	struct json *doc;
	struct pc_config c;
	CHECK(json_parse(&A, buf, strlen(buf), &doc, err, sizeof err) == 0 && pc_config_from_json(&c, doc, &A, err, sizeof err) == 0 &&
	      !strcmp(c.fingerprint, CFG.fingerprint), "an integer sigma must coerce to 1.0: %s", c.fingerprint);
}

static void normal_quantile(void)
{
	static const struct { double p, z; } t[] = {
		{ 0.9, 1.2815515655446008 }, { 0.5, 0.0 }, { 0.95, 1.6448536269514715 }, { 0.975, 1.9599639845400536 },
		{ 0.99, 2.3263478740408408 }, { 0.999, 3.090232306167813 }, { 0.6, 0.2533471031357998 }, { 0.925, 1.439531470938456 },
		{ 0.926, 1.4466320671589785 }, { 0.9999999999, 6.361340889697421 }, { 0.1, -1.2815515655446008 },
		{ 1e-30, -11.464024688443617 }, { 0.3, -0.5244005127080407 }, { 0.0751, -1.4388253927525398 },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		double z = pc_normal_quantile(t[i].p);
		CHECK(z == t[i].z, "z(%.17g) = %.17g, Python says %.17g", t[i].p, z, t[i].z);
	}
}

/* ---- the estimator on hand-made histories ---- */

static struct pc_bucket H[400];

static void fill(size_t n, double v)
{
	for (size_t i = 0; i < n; i++) {
		H[i].t = 3600.0 * (double)i;
		H[i].v = v;
	}
}

static void fit_forecast(double capacity, size_t fit_n, size_t fc_n, double cutoff, struct pc_point *p)
{
	const struct pc_estimator_ops *e = &pc_seasonal_gaussian;
	void *est = e->create(&CFG, capacity);
	e->fit(est, H, fit_n, cutoff);
	e->forecast(est, H, fc_n, cutoff, p);
	e->destroy(est);
}

#define NEAR6(x, want) (fabs((x) - (want)) < 5e-7)

static void fit_paths(void)
{
	struct pc_point p[4];
	double z = 1.2815515655446008;
	/* global: 5 buckets 2,4,6,8,10; the targets' hours of day have no bucket -> global 6 */
	fill(5, 0);
	for (int i = 0; i < 5; i++)
		H[i].v = 2.0 * (i + 1);
	fit_forecast(100, 5, 5, 4 * 3600.0, p);
	CHECK(p[0].mu == 6 && p[3].mu == 6 && p[0].sigma == 1 && p[0].q == num_round(6 + z, 6), "global: mu %g %g sigma %g q %g", p[0].mu, p[3].mu, p[0].sigma, p[0].q);
	CHECK(p[0].target == 5 * 3600.0 && p[3].target == 8 * 3600.0 && p[3].step == 4, "targets %g %g", p[0].target, p[3].target);
	/* day: hours 0..25 at 1 except hour 2 at 5; no hour of week has 2 points.
	 * trend = (mean(hours 2..25) - mean(hours 0..1)) / 24 = (28/24 - 1) / 24 = 1/144 */
	fill(26, 1);
	H[2].v = 5;
	fit_forecast(100, 26, 26, 25 * 3600.0, p);
	CHECK(NEAR6(p[0].mu, 5 + 1.0 / 144) && NEAR6(p[1].mu, 1 + 2.0 / 144) && NEAR6(p[3].mu, 1 + 4.0 / 144),
	      "day: mu %.9g %.9g %.9g", p[0].mu, p[1].mu, p[3].mu);
	/* week: hours 0..168 at 1 except 0 and 168 at 9: hour-of-week 0 has two points (mean 9),
	 * hour-of-day 0 has eight (mean 3). Target hour 336 -> week 9; hour 337 -> day 1.
	 * trend = (32/24 - 1) / 24 = 1/72; the last 24 residuals are 0, so the level is 0. */
	fill(169, 1);
	H[0].v = H[168].v = 9;
	fit_forecast(100, 169, 169, 335 * 3600.0, p);
	CHECK(NEAR6(p[0].mu, 9 + 1.0 / 72) && NEAR6(p[1].mu, 1 + 2.0 / 72), "week: mu %.9g %.9g", p[0].mu, p[1].mu);
	/* sigma: two points of one hour of day, 0 and 4 -> residuals -2, +2 -> sigma 2 */
	H[0] = (struct pc_bucket){ 0, 0 };
	H[1] = (struct pc_bucket){ 24 * 3600.0, 4 };
	fit_forecast(100, 2, 2, 24 * 3600.0, p);
	CHECK(p[0].sigma == 2, "sigma %g, want 2", p[0].sigma);
	CFG.minimum_sigma_gpus = 3;
	fit_forecast(100, 2, 2, 24 * 3600.0, p);
	CHECK(p[0].sigma == 3, "sigma floor: %g, want 3", p[0].sigma);
	CFG.minimum_sigma_gpus = 1;
	/* trend clamp: a day at 100, then a day at 10. Day means 55, last-day residuals -45, so
	 * mu_k = 10 + trend k with trend = -90/24 clamped to -max(1, 0.05 C) */
	fill(48, 10);
	for (int i = 0; i < 24; i++)
		H[i].v = 100;
	fit_forecast(20, 48, 48, 47 * 3600.0, p);     /* limit 1 */
	CHECK(NEAR6(p[0].mu, 9) && NEAR6(p[1].mu, 8) && NEAR6(p[3].mu, 6), "trend clamped at 1: %g %g %g", p[0].mu, p[1].mu, p[3].mu);
	fit_forecast(40, 48, 48, 47 * 3600.0, p);     /* limit 0.05 * 40 = 2 */
	CHECK(NEAR6(p[0].mu, 8) && NEAR6(p[3].mu, 2), "trend clamped at 2: %g %g", p[0].mu, p[3].mu);
	fit_forecast(1000, 48, 48, 47 * 3600.0, p);   /* limit 50: -3.75 per hour, mu floors at 0 */
	CHECK(NEAR6(p[0].mu, 6.25) && NEAR6(p[1].mu, 2.5) && p[2].mu == 0 && p[3].mu == 0, "unclamped trend: %g %g %g", p[0].mu, p[1].mu, p[2].mu);
	/* no previous block (24 buckets or fewer): trend 0 */
	fill(24, 3);
	H[23].v = 27;   /* level = 24 / 24 = 1 over day means 3 ... 27 */
	fit_forecast(100, 23, 24, 23 * 3600.0, p);
	CHECK(NEAR6(p[0].mu, 3 + 1) && NEAR6(p[3].mu, 3 + 1), "no trend without a previous block: %g %g", p[0].mu, p[3].mu);
}

/* The level offset: a model fitted on one bucket (global 4) forecasts 4 + the mean residual
 * of the last 24 buckets: with 4 of them at 8, 16/24 (docs/predictive-rules.md §1 "Forecast"; an
 * example, t=86100). */
static void level_offset(void)
{
	const struct pc_estimator_ops *e = &pc_seasonal_gaussian;
	void *est = e->create(&CFG, 12);
	struct pc_point p[4];
	fill(24, 4);
	e->fit(est, H, 1, 0);
	for (int i = 8; i < 12; i++)
		H[i].v = 8;
	e->forecast(est, H, 24, 23 * 3600.0 + 2700, p);
	CHECK(p[0].mu == 4.666667 && p[0].q == 5.948218, "level: mu %.9g q %.9g", p[0].mu, p[0].q);
	e->destroy(est);
}

/* ---- the quota function ---- */

static long long quota(const double *q, size_t n, double C, double eta, bool floor_first, bool cap, double idle, double running, long long h)
{
	struct pc_point p[8];
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pc_point){ (int)i + 1, 0, 0, 0, q[i] };
	struct pc_quota_input in = { p, n, C, eta, floor_first, cap, idle, running };
	return pc_quota(&in, h);
}

static void quota_function(void)
{
	double q1[] = { 5.281552 };
	CHECK(quota(q1, 1, 12, 1.0, false, false, 0, 0, 1) == 6, "free 6.718448 -> 6");
	CHECK(quota(q1, 1, 12, 1.1, false, false, 0, 0, 1) == 7, "1.1 * 6.718448 -> 7");
	CHECK(quota(q1, 1, 12, 1.0, true, false, 0, 0, 1) == 7, "floor before subtract: 12 - 5 -> 7");
	double q5[] = { 5.0 };
	CHECK(quota(q5, 1, 12, 1.0 - 1e-11, false, false, 0, 0, 1) == 7, "7 - 7e-11: floor(x + EPS) = 7");
	CHECK(quota(q5, 1, 12, 1.0 - 1e-9, false, false, 0, 0, 1) == 6, "7 - 7e-9: floor(x + EPS) = 6");
	double qk[] = { 5.309329, 5.337107, 9.364885, 9.392663 };
	CHECK(quota(qk, 4, 12, 1.21, false, false, 0, 0, 1) == 8 && quota(qk, 4, 12, 1.21, false, false, 0, 0, 2) == 8 &&
	      quota(qk, 4, 12, 1.21, false, false, 0, 0, 4) == 3, "min over the horizon (worked example step 6)");
	double full[] = { 13, 2 };
	CHECK(quota(full, 2, 12, 1.25, false, false, 0, 0, 2) == 0, "q above capacity: free 0");
	double none[] = { 0 };
	CHECK(quota(none, 1, 12, 1.25, false, false, 0, 0, 1) == 12, "clipped at capacity");
	CHECK(quota(qk, 2, 12, 1.0, false, false, 0, 0, 4) == 0, "fewer points than hours: 0");
	double tv[] = { 30.8, 40.2 };
	CHECK(quota(tv, 2, 100, 1.0, true, true, 20, 5, 2) == 25, "tenant test vector: free 60, capped at 25");
	CHECK(quota(tv, 2, 100, 1.0, true, false, 20, 5, 2) == 60, "tenant without the cap: 60");
}

/* ---- feedback and the update order ---- */

static struct pc_controller C;

static void update(double now, double hp, double backlog, double running)
{
	char err[200];
	struct pc_observation o = { hp, backlog, running };
	CHECK(pc_update(&C, now, &o, err, sizeof err) == 0, "update at %g: %s", now, err);
}

static const struct pc_decision *last(void)
{
	return pc_last_decision(&C);
}

static long long last_quota(size_t h)
{
	return C.quotas[last()->quotas_at + h];
}

static void start(double capacity)
{
	char err[200];
	CHECK(pc_controller_init(&C, &CFG, capacity, 0, false, 0, 0, err, sizeof err) == 0, "%s", err);
}

static void eta_paths(void)
{
	/* the worked example's first hour (C 12, HP 4): feedback runs before the quota */
	start(12);
	update(0, 4, 10, 0);
	CHECK(last()->eta == 1 && last_quota(0) == 6 && last()->feedback.reason == PC_NO_NEW_COMPLETED_RUNS, "t=0");
	CHECK(!last()->feedback.has_rate && last()->spot_backlog == 10, "t=0 feedback");
	for (double t = 300; t < 1800; t += 300)
		update(t, 4, 4, 6);
	pc_observe_run_end(&C, 0, 1800, false, 1);   /* s01 and s02 end */
	pc_observe_run_end(&C, 0, 1800, false, 1);
	update(1800, 4, 4, 6);
	CHECK(last()->feedback.reason == PC_LOW_EVICTION_BACKLOG_INCREASE && last()->eta == 1.1 && last_quota(0) == 7,
	      "t=1800: low eviction with backlog: %s eta %.17g Q %lld", pc_reason_name(last()->feedback.reason), last()->eta, last_quota(0));
	CHECK(last()->feedback.completed == 2 && last()->feedback.rate == 0, "t=1800 counts");
	update(2100, 4, 4, 6);
	CHECK(last()->feedback.reason == PC_NO_NEW_COMPLETED_RUNS && last()->eta == 1.1, "no new runs: no re-evaluation");
	for (double t = 2400; t < 3600; t += 300)
		update(t, 4, 4, 6);
	update(3600, 4, 4, 6);   /* backlog since t = 0 for 3600 s (no EPS) */
	CHECK(last()->feedback.reason == PC_STARVATION_BACKLOG_INCREASE && last()->eta == 1.21 && last_quota(0) == 8,
	      "t=3600 starvation: %s eta %.17g Q %lld", pc_reason_name(last()->feedback.reason), last()->eta, last_quota(0));
	update(3900, 4, 4, 6);
	update(4200, 4, 4, 6);
	CHECK(last()->eta == 1.25, "starvation compounds at every update up to the maximum: %.17g", last()->eta);
	update(4500, 4, 4, 6);
	CHECK(last()->feedback.reason == PC_NO_NEW_COMPLETED_RUNS && last()->eta == 1.25, "starvation at the maximum reports no-new-completed-runs");
	/* high eviction: two evicted runs -> rate 1 >= 1.5 * 0.1: eta * 0.1 / 1, clamped at 0.25 */
	pc_observe_run_end(&C, 0, 4600, true, 1);
	pc_observe_run_end(&C, 0, 4600, true, 1);
	update(4800, 4, 4, 6);
	CHECK(last()->feedback.reason == PC_HIGH_EVICTION_DECREASE && last()->eta == 0.25 && last()->feedback.rate == 0.5,
	      "high eviction: %s eta %.17g rate %.17g", pc_reason_name(last()->feedback.reason), last()->eta, last()->feedback.rate);
	/* every new closed run re-evaluates the whole window (quirk Q1): another decrease */
	pc_observe_run_end(&C, 0, 4900, false, 1);
	update(5100, 4, 0, 6);
	CHECK(last()->feedback.reason == PC_HIGH_EVICTION_DECREASE, "re-evaluated: %s", pc_reason_name(last()->feedback.reason));
	/* backlog 0 resets the starvation clock; a later backlog starts it again */
	for (double t = 5400; t < 9000; t += 300)
		update(t, 4, t < 6000 ? 0 : 1, 6);
	update(9300, 4, 1, 6);   /* backlog since 6000: 3300 s */
	CHECK(last()->feedback.reason == PC_NO_NEW_COMPLETED_RUNS, "clock restarted at 6000: %s", pc_reason_name(last()->feedback.reason));
	update(9600, 4, 1, 6);
	CHECK(last()->feedback.reason == PC_STARVATION_BACKLOG_INCREASE, "3600 s after 6000: %s", pc_reason_name(last()->feedback.reason));
	/* the window: runs older than 14400 s are dropped; a version change without runs left does not evaluate */
	pc_observe_run_end(&C, 0, 9700, false, 1);
	update(9900 + 14400, 4, 0, 6);
	CHECK(last()->feedback.completed == 0 && last()->feedback.reason == PC_NO_NEW_COMPLETED_RUNS, "window drop: %lld runs, %s",
	      last()->feedback.completed, pc_reason_name(last()->feedback.reason));
	pc_controller_release(&C);
	/* 1 evicted of 20 is 0.05: not low (0.5 * (1 - 0.9) = 0.04999999999999999), not high: the band */
	start(12);
	for (int i = 0; i < 20; i++)
		pc_observe_run_end(&C, 0, 0, i == 0, 1);
	update(0, 4, 3, 0);
	CHECK(last()->feedback.reason == PC_INSIDE_FEEDBACK_BAND && last()->eta == 1, "rate 1/20: %s", pc_reason_name(last()->feedback.reason));
	/* low rate without backlog: the band too */
	pc_observe_run_end(&C, 0, 100, false, 1);
	update(300, 4, 0, 0);
	CHECK(last()->feedback.reason == PC_INSIDE_FEEDBACK_BAND, "low without backlog: %s", pc_reason_name(last()->feedback.reason));
	pc_controller_release(&C);
	/* the per-decision law of the tenant family */
	enum pc_reason r;
	CHECK(pc_eta_per_decision(1.0, 0, 0, 1e9, &CFG, 3600, &r) == 1.0 && r == PC_NO_NEW_COMPLETED_RUNS, "no events: unchanged");
	CHECK(pc_eta_per_decision(1.0, 1, 2, 0, &CFG, 3600, &r) == 0.25 && r == PC_HIGH_EVICTION_DECREASE, "r 0.5 -> 0.2 -> 0.25");
	CHECK(pc_eta_per_decision(1.0, 0, 4, 3601, &CFG, 3600, &r) == 1.25 && r == PC_LOW_EVICTION_BACKLOG_INCREASE, "r 0, long wait -> 1.5 -> 1.25");
	CHECK(pc_eta_per_decision(1.0, 0, 4, 3600, &CFG, 3600, &r) == 1.0 && r == PC_INSIDE_FEEDBACK_BAND, "r 0, wait not above 3600 -> unchanged");
}

/* Sample -> refit if due -> forecast: the update's own sample is in the history it forecasts
 * from, and the daily refit happens at the update that reaches it (worked example t=86400). */
static void update_order(void)
{
	start(12);
	for (double t = 0; t <= 86400; t += 300) {
		double hp = fmod(t, 86400) >= 8 * 3600 && fmod(t, 86400) < 12 * 3600 ? 8 : 4;
		update(t, hp, 0, 0);
		if (t == 0)
			CHECK(last()->history_count == 1 && last()->trained_at == 0, "t=0: history %zu", last()->history_count);
		if (t == 86100) {
			const struct pc_point *p = &C.points[last()->points_at];
			CHECK(last()->trained_at == 0 && p[0].mu == 4.666667 && p[0].q == 5.948218 && last_quota(0) == 6,
			      "t=86100: trained %g mu %.9g q %.9g Q %lld", last()->trained_at, p[0].mu, p[0].q, last_quota(0));
			CHECK(last()->history_count == 24 && last()->history_ready, "t=86100: %zu buckets", last()->history_count);
		}
		if (t == 82500)
			CHECK(last()->history_count == 23 && !last()->history_ready, "t=82500: 23 buckets, not ready");
	}
	const struct pc_point *p = &C.points[last()->points_at];
	CHECK(last()->trained_at == 86400 && last()->history_count == 25 && last()->history_ready, "t=86400: refit, 25 buckets");
	CHECK(p[0].q == 5.309329 && p[1].q == 5.337107 && p[2].q == 5.364885 && p[3].q == 5.392663, "t=86400 q %.9g %.9g %.9g %.9g",
	      p[0].q, p[1].q, p[2].q, p[3].q);
	CHECK(!pc_update_due(&C, 86400 + 299) && pc_update_due(&C, 86700 - 5e-10), "next update at now + 300, EPS early");
	char err[200];
	struct pc_observation o = { 4, 0, 0 };
	CHECK(pc_update(&C, 86500, &o, err, sizeof err) == -1, "an update before it is due is refused");
	pc_controller_release(&C);
}

/* A controlled session forked at t = 100000 (simulator and controller) finishes with the
 * same decisions, quotas and results as the straight run: the worked example's trace. */
static void fork_controlled(void)
{
	struct trace t;
	struct sim_policy pol;
	struct arena a;
	struct json *doc;
	char err[500];
	static const char policy[] = "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"p\",\"scheduler\":\"priority_preemptive\","
		"\"spot_guarantee_seconds\":3600,\"checkpoint_interval_seconds\":3600,\"preemption_overhead_seconds\":80,\"placement_strategy\":\"deterministic_best_fit\"}";
	arena_init(&a);
	trace_init(&t);
	if (trace_load(&t, "tests/data/sim/micro-quota.trace.ndjson", err, sizeof err) || json_parse(&a, policy, strlen(policy), &doc, err, sizeof err) ||
	    policy_from_json(&pol, doc, &a, err, sizeof err)) {
		fprintf(stderr, "fork_controlled: %s\n", err);
		exit(1);
	}
	struct pc_controller c1, c2, c3;
	struct pc_sim b1, b2, b3;
	struct sim_hooks h1, h2, h3;
	struct sim_output o1, o2, o3;
	double es = t.jobs[0].submit, ee = t.jobs[t.n_jobs - 1].submit;
	CHECK(pc_controller_init(&c1, &CFG, 12, es, true, es, ee, err, sizeof err) == 0, "%s", err);
	CHECK(pc_controller_init(&c3, &CFG, 12, es, true, es, ee, err, sizeof err) == 0, "%s", err);
	pc_sim_bind(&b1, &c1, &h1);
	pc_sim_bind(&b3, &c3, &h3);
	struct sim *s1 = sim_open(&t, &pol, &h1, err, sizeof err), *s3 = sim_open(&t, &pol, &h3, err, sizeof err);
	CHECK(s1 && s3 && sim_finish(s3, &o3, err, sizeof err) == 0, "%s", err);
	CHECK(sim_advance(s1, 100000, err, sizeof err) == 0, "%s", err);
	pc_controller_clone(&c2, &c1);
	b2 = b1;
	pc_sim_bind(&b2, &c2, &h2);
	b2.horizon = b1.horizon;
	b2.enforce = b1.enforce;
	struct sim *s2 = sim_clone(s1, &h2, err, sizeof err);
	CHECK(s2 && sim_finish(s1, &o1, err, sizeof err) == 0 && sim_finish(s2, &o2, err, sizeof err) == 0, "%s", err);
	CHECK(c1.n_decisions == c3.n_decisions && c2.n_decisions == c3.n_decisions && c3.n_decisions == 864, "decisions %zu %zu %zu",
	      c1.n_decisions, c2.n_decisions, c3.n_decisions);
	bool same = c1.n_quotas == c3.n_quotas && c2.n_quotas == c3.n_quotas;
	for (size_t i = 0; same && i < c3.n_quotas; i++)
		same = c1.quotas[i] == c3.quotas[i] && c2.quotas[i] == c3.quotas[i];
	for (size_t i = 0; same && i < c3.n_decisions; i++)
		same = c1.decisions[i].eta == c3.decisions[i].eta && c2.decisions[i].eta == c3.decisions[i].eta;
	for (size_t i = 0; same && i < t.n_jobs; i++)
		same = o1.jobs[i].start == o3.jobs[i].start && o2.jobs[i].start == o3.jobs[i].start && o2.jobs[i].completion == o3.jobs[i].completion;
	CHECK(same && o2.allocated == o3.allocated && o2.n_runs == o3.n_runs && o2.n_events == o3.n_events, "the fork diverged");
	struct pc_report r2, r3;
	pc_report(&c2, &r2);
	pc_report(&c3, &r3);
	CHECK(r2.quota_mean == r3.quota_mean && r2.mae == r3.mae && r2.eta_final == r3.eta_final && r2.evaluated == r3.evaluated, "fork report differs");
	sim_close(s1);
	sim_close(s2);
	sim_close(s3);
	sim_output_release(&o1);
	sim_output_release(&o2);
	sim_output_release(&o3);
	pc_controller_release(&c1);
	pc_controller_release(&c2);
	pc_controller_release(&c3);
	trace_release(&t);
	arena_release(&a);
}

int main(void)
{
	set_progname("test_predict");
	load_config();
	config_rules();
	normal_quantile();
	fit_paths();
	level_offset();
	quota_function();
	eta_paths();
	update_order();
	fork_controlled();
	arena_release(&A);
	printf("test_predict: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
