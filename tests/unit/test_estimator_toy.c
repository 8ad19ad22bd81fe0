/* The extension point of the tenant estimators, done once: a toy estimator (mu = the last
 * full hour of each series) that exists only in this test program. It is this file's
 * struct pt_est_ops plus one row of the program's own pt_est_registry, which takes the place of
 * the library's (lib/predict/tenant/estimators.c) at link time; nothing in lib/ names it. A
 * controller config then accepts its model id, the error messages list it, and the
 * shared driver fits, calibrates, forecasts, fingerprints and clones it. */
#include "core/arena.h"
#include "core/json.h"
#include "predict/calendar.h"
#include "predict/tenant/estimator_internal.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_config.h"
#include "predict/tenant/tenant_history.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static char err[512];

/* ---- the toy: its whole implementation ---- */

#define TOY_ID "toy-last-hour-v1"

static size_t toy_span_start(const struct pt_est_config *c)
{
	return (size_t)c->lookback_hours - 1;
}

static double toy_mu(const struct pt_estimator *e, const struct pt_history *h, size_t series, struct pt_est_window *w,
                     int k)
{
	return pt_hv_at(w->x, (size_t)e->cfg.lookback_hours - 1);
}

static const struct pt_est_ops toy_ops = { .id = TOY_ID, .span_start = toy_span_start, .mu = toy_mu };

/* ---- its one row (the library's two, then the toy) ---- */

extern const struct pt_est_ops pt_est_linear_ops, pt_est_seasonal_ops;
const struct pt_est_ops *const pt_est_registry[] = { &pt_est_linear_ops, &pt_est_seasonal_ops, &toy_ops, NULL };

/* ---- the proof ---- */

static const char *config_text(const char *model)
{
	static char buf[2048];
	snprintf(buf, sizeof buf,
		"{\"schema_version\":\"schednav.tenant-predictive-controller/1\",\"controller_id\":\"schednav-toy\",\"model\":\"%s\","
		"\"demand_sample_interval_seconds\":60,\"quota_update_interval_seconds\":300,\"aggregation_interval_seconds\":3600,"
		"\"lookback_hours\":48,\"forecast_horizon_hours\":2,\"retrain_interval_seconds\":86400,\"validation_hours\":24,"
		"\"training_stride_seconds\":300,\"guarantee_probability\":0.9,\"guarantee_horizons_hours\":[1,2],"
		"\"business_calendar\":\"weekday\",\"moving_average_window\":5,\"embedding_dimension\":8,"
		"\"attention_hidden_dimension\":16,\"train_epochs\":10,\"batch_size\":32,\"learning_rate\":4e-05,"
		"\"early_stopping_patience\":3,\"random_seed\":1,\"nonzero_targets_only\":true,\"initial_eta\":1.0,"
		"\"minimum_eta\":0.25,\"maximum_eta\":1.25,\"feedback_window_seconds\":14400,\"queue_wait_threshold_seconds\":3600,"
		"\"high_eviction_multiple\":1.5,\"low_eviction_multiple\":0.5,\"runtime_inventory_cap\":true,"
		"\"quantile_calibration_method\":\"validation-residual-nearest-rank\"}", model);
	return buf;
}

static int parse_config(struct pc_config *c, struct arena *a, const char *model)
{
	const char *text = config_text(model);
	struct json *doc;
	if (json_parse(a, text, strlen(text), &doc, err, sizeof err))
		return -1;
	return pc_config_from_json(c, doc, a, err, sizeof err);
}

/* demand of tenant t at minute n: a daily shape */
static double demand(size_t n, int t)
{
	size_t hour = n / 60 % 24;
	return (t == 0 ? 10 : 4) + (double)(hour >= 9 && hour < 18 ? 6 * (t + 1) : 0);
}

int main(void)
{
	struct arena a;
	arena_init(&a);
	char ids[256];
	pt_est_id_list(ids, sizeof ids);
	CHECK(!strcmp(ids, "'tenant-quantile-linear-v1', 'seasonal-conformal-v1' or 'toy-last-hour-v1'"), "id list: %s", ids);
	CHECK(pt_est_find(TOY_ID) == &toy_ops && !strcmp(pt_est_id(&toy_ops), TOY_ID), "toy not found");

	/* the config family knows it */
	struct pc_config cfg;
	CHECK(!parse_config(&cfg, &a, TOY_ID) && cfg.tenant && cfg.tenant->estimator == &toy_ops, "toy config: %s", err);
	CHECK(parse_config(&cfg, &a, "lstm") &&
	      !strcmp(err, "unknown model 'lstm' (want 'tenant-quantile-linear-v1', 'seasonal-conformal-v1' or "
	                   "'toy-last-hour-v1')"), "unknown model: %s", err);
	CHECK(!parse_config(&cfg, &a, TOY_ID), "toy config again: %s", err);

	/* the driver runs it */
	const struct pt_config *t = cfg.tenant;
	struct pc_calendar cal;
	CHECK(!pc_cal_load(&cal, "weekday", err, sizeof err), "calendar: %s", err);
	struct pt_est_config ec = { .kind = t->estimator, .lookback_hours = (int)t->lookback_hours,
		                 .horizon_hours = (int)t->horizon_hours, .validation_hours = (int)t->validation_hours,
		                 .moving_average_window = (int)t->moving_average_window,
		                 .probability = t->guarantee_probability, .calibrate = t->calibration_method != NULL,
		                 .calendar = &cal };
	pc_cal_origin_parse("2024-03-01 00:00:00", &ec.origin);
	strcpy(ec.controller_fingerprint, cfg.fingerprint);
	struct pt_history h;
	const char *pools[] = { "P" };
	size_t s0, s1;
	CHECK(!pt_hist_init(&h, 0, 60, 60, 5, pools, 1, err, sizeof err) && !pt_hist_series_index(&h, "P", "t0", &s0, err, sizeof err) &&
	      !pt_hist_series_index(&h, "P", "t1", &s1, err, sizeof err), "history: %s", err);
	size_t n_end = 80 * 60 + 1;   /* 80 h: lookback 48 + validation 24 + horizon 2, and a few train windows */
	for (size_t n = 0; n < n_end; n++) {
		pt_hist_set(&h, s0, demand(n, 0));
		pt_hist_set(&h, s1, demand(n, 1));
		pt_hist_sample(&h, 60.0 * (double)n, err, sizeof err);
	}
	double now = 60.0 * (double)(n_end - 1);
	struct pt_estimator e, twin;
	CHECK(!pt_est_init(&e, &ec, err, sizeof err), "init: %s", err);
	CHECK(!pt_est_fit(&e, &h, now, err, sizeof err), "fit: %s", err);
	CHECK(e.trained && e.generation == 1 && e.train_rows == 0 && e.validation_windows > 0 && strlen(e.fingerprint) == 64,
	      "fit facts");
	pt_est_clone(&twin, &e);
	struct pt_est_point p[4], q[4];
	size_t np, nq;
	CHECK(!pt_est_forecast(&e, &h, now, p, &np, err, sizeof err), "forecast: %s", err);
	CHECK(!pt_est_forecast(&twin, &h, now, q, &nq, err, sizeof err), "clone forecast: %s", err);
	/* the last full hour before now: minutes [n_end - 61, n_end - 1) */
	double last = 0;
	for (int s = 0; s < 2; s++) {
		double m = 0;
		for (size_t n = n_end - 61; n < n_end - 1; n++)
			m = fmax(m, demand(n, s));
		last += m;
	}
	CHECK(np == 2 && nq == 2, "points: %zu", np);
	for (size_t k = 0; k < np && k < 2; k++) {
		CHECK(p[k].mu == last && p[k].step == (int)k + 1 && p[k].quantile >= 0, "step %d: mu %g want %g", p[k].step,
		      p[k].mu, last);
		CHECK(p[k].pool == q[k].pool && p[k].step == q[k].step && p[k].mu == q[k].mu && p[k].sigma == q[k].sigma &&
		      p[k].quantile == q[k].quantile && p[k].offset == q[k].offset, "clone forecast differs at step %zu", k + 1);
	}
	pt_est_release(&twin);
	pt_est_release(&e);
	pt_hist_release(&h);
	pc_cal_release(&cal);
	arena_release(&a);
	printf("test_estimator_toy: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
