/* The tenant controller configuration: the original's key set and rules (its
 * TenantPredictiveControllerConfig), our estimator ids, the v2 calibration key. */
#include "predict/tenant_config.h"
#include "predict/internal.h"
#include "predict/predict.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = { "schema_version", "controller_id", "model", "demand_sample_interval_seconds",
	"quota_update_interval_seconds", "aggregation_interval_seconds", "lookback_hours", "forecast_horizon_hours",
	"retrain_interval_seconds", "validation_hours", "training_stride_seconds", "guarantee_probability",
	"guarantee_horizons_hours", "business_calendar", "moving_average_window", "embedding_dimension",
	"attention_hidden_dimension", "train_epochs", "batch_size", "learning_rate", "early_stopping_patience",
	"random_seed", "nonzero_targets_only", "initial_eta", "minimum_eta", "maximum_eta", "feedback_window_seconds",
	"queue_wait_threshold_seconds", "high_eviction_multiple", "low_eviction_multiple", "runtime_inventory_cap", NULL };
#define CALIBRATION_KEY "quantile_calibration_method"
#define MAX_SECONDS 3153600000LL   /* 100 years: keeps every product finite */

static int validate(const struct tc_config *c, char *err, size_t errlen)
{
	if (!*c->controller_id)
		return pcf_fail(err, errlen, "controller_id cannot be empty");
	if (c->sample_interval_seconds <= 0)
		return pcf_fail(err, errlen, "demand_sample_interval_seconds must be positive");
	if (c->aggregation_interval_seconds % c->sample_interval_seconds)
		return pcf_fail(err, errlen, "aggregation must be a multiple of demand sampling");
	if (c->aggregation_interval_seconds != 3600)
		return pcf_fail(err, errlen, "tenant-predictive-controller/v1 requires hourly aggregation");
	if (c->quota_interval_seconds <= 0 || c->stride_seconds <= 0 ||
	    c->quota_interval_seconds % c->sample_interval_seconds || c->stride_seconds % c->sample_interval_seconds)
		return pcf_fail(err, errlen, "quota and training cadence must align with sampling");
	long long positive[] = { c->lookback_hours, c->horizon_hours, c->retrain_interval_seconds, c->validation_hours,
		                 c->moving_average_window, c->embedding_dimension, c->attention_hidden_dimension,
		                 c->train_epochs, c->batch_size, c->early_stopping_patience, c->feedback_window_seconds,
		                 c->queue_wait_threshold_seconds };
	for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
		if (positive[i] <= 0)
			return pcf_fail(err, errlen, "model, training, and feedback dimensions must be positive");
	if (!(c->learning_rate > 0))
		return pcf_fail(err, errlen, "model, training, and feedback dimensions must be positive");
	if (c->moving_average_window % 2 == 0)
		return pcf_fail(err, errlen, "moving_average_window must be odd");
	if (c->retrain_interval_seconds < c->quota_interval_seconds)
		return pcf_fail(err, errlen, "retraining cannot be more frequent than quota updates");
	if (!(0.5 < c->guarantee_probability && c->guarantee_probability < 1.0))
		return pcf_fail(err, errlen, "guarantee_probability must be between 0.5 and 1");
	if (!c->n_horizons || c->horizons[0] <= 0 || c->horizons[c->n_horizons - 1] > c->horizon_hours)
		return pcf_fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	for (size_t i = 1; i < c->n_horizons; i++)
		if (c->horizons[i] <= c->horizons[i - 1])
			return pcf_fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	if (strcmp(c->business_calendar, "china") && strcmp(c->business_calendar, "weekday"))
		return pcf_fail(err, errlen, "business_calendar must be china or weekday");
	if (!(0 < c->minimum_eta && c->minimum_eta <= c->initial_eta && c->initial_eta <= c->maximum_eta))
		return pcf_fail(err, errlen, "expected 0 < minimum_eta <= initial_eta <= maximum_eta");
	if (!(c->high_eviction_multiple >= 1.0))
		return pcf_fail(err, errlen, "high_eviction_multiple must be at least one");
	if (!(0.0 <= c->low_eviction_multiple && c->low_eviction_multiple <= 1.0))
		return pcf_fail(err, errlen, "low_eviction_multiple must be between zero and one");
	/* ours: the offset-aligned hourly maxima and the decision grid of the estimators */
	long long points = 3600 / c->sample_interval_seconds, stride = c->stride_seconds / c->sample_interval_seconds;
	if (points % stride || points / stride > TH_MAX_OFFSETS || c->quota_interval_seconds % c->stride_seconds)
		return pcf_fail(err, errlen, "training_stride_seconds must divide the hour into at most 60 offsets and the quota interval");
	if (c->sample_interval_seconds > MAX_SECONDS || c->retrain_interval_seconds > MAX_SECONDS ||
	    c->feedback_window_seconds > MAX_SECONDS || c->queue_wait_threshold_seconds > MAX_SECONDS ||
	    c->quota_interval_seconds > MAX_SECONDS || c->lookback_hours > 100000 || c->validation_hours > 100000 ||
	    c->horizon_hours > EST_MAX_STEPS)
		return pcf_fail(err, errlen, "an interval is out of range (forecast_horizon_hours at most 24, intervals at most 100 years)");
	if (c->lookback_hours < 48 || 2 * c->moving_average_window - 1 > c->lookback_hours ||
	    c->validation_hours < c->horizon_hours)
		return pcf_fail(err, errlen, "the estimators need lookback_hours >= 48, 2 * moving_average_window - 1 <= lookback_hours "
		                         "and validation_hours >= forecast_horizon_hours");
	return 0;
}

static struct json *canonical(struct arena *a, const struct tc_config *c)
{
	struct json *d = json_object(a), *h = json_array(a);
#define I(k, v) json_set(a, d, k, json_int(a, c->v))
#define R(k, v) json_set(a, d, k, json_real(a, c->v))
#define B(k, v) json_set(a, d, k, json_bool(a, c->v))
#define S(k, v) json_set(a, d, k, json_str(a, c->v))
	S("schema_version", schema_version);
	S("controller_id", controller_id);
	I("demand_sample_interval_seconds", sample_interval_seconds);
	I("quota_update_interval_seconds", quota_interval_seconds);
	I("aggregation_interval_seconds", aggregation_interval_seconds);
	I("lookback_hours", lookback_hours);
	I("forecast_horizon_hours", horizon_hours);
	I("retrain_interval_seconds", retrain_interval_seconds);
	I("validation_hours", validation_hours);
	I("training_stride_seconds", stride_seconds);
	R("guarantee_probability", guarantee_probability);
	for (size_t i = 0; i < c->n_horizons; i++)
		json_push(a, h, json_int(a, c->horizons[i]));
	json_set(a, d, "guarantee_horizons_hours", h);
	S("business_calendar", business_calendar);
	I("moving_average_window", moving_average_window);
	I("embedding_dimension", embedding_dimension);
	I("attention_hidden_dimension", attention_hidden_dimension);
	I("train_epochs", train_epochs);
	I("batch_size", batch_size);
	R("learning_rate", learning_rate);
	I("early_stopping_patience", early_stopping_patience);
	I("random_seed", random_seed);
	B("nonzero_targets_only", nonzero_targets_only);
	R("initial_eta", initial_eta);
	R("minimum_eta", minimum_eta);
	R("maximum_eta", maximum_eta);
	I("feedback_window_seconds", feedback_window_seconds);
	I("queue_wait_threshold_seconds", queue_wait_threshold_seconds);
	R("high_eviction_multiple", high_eviction_multiple);
	R("low_eviction_multiple", low_eviction_multiple);
	B("runtime_inventory_cap", runtime_inventory_cap);
	S("model", model);
	if (c->calibration_method)
		S(CALIBRATION_KEY, calibration_method);
#undef I
#undef R
#undef B
#undef S
	return d;
}

bool tc_config_is_tenant(const struct json *doc)
{
	const struct json *sv = json_get(doc, "schema_version");
	return sv && sv->kind == JSON_STRING && !strcmp(sv->u.str.s, TC_CONFIG_SCHEMA);
}

int tc_config_from_json(struct tc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	static const char *const optional[] = { CALIBRATION_KEY, NULL };
	memset(c, 0, sizeof *c);
	if (pcf_keys(doc, keys, optional, err, errlen))
		return -1;
#define S(k, f) if (pcf_str(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define I(k, f) if (pcf_int(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define R(k, f) if (pcf_real(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define B(k, f) if (pcf_bool(json_get(doc, k), k, &c->f, err, errlen)) return -1
	S("schema_version", schema_version);
	if (strcmp(c->schema_version, TC_CONFIG_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema_version '%s' (want '%s')", c->schema_version, TC_CONFIG_SCHEMA);
		return -1;
	}
	S("controller_id", controller_id);
	S("model", model);
	I("demand_sample_interval_seconds", sample_interval_seconds);
	I("quota_update_interval_seconds", quota_interval_seconds);
	I("aggregation_interval_seconds", aggregation_interval_seconds);
	I("lookback_hours", lookback_hours);
	I("forecast_horizon_hours", horizon_hours);
	I("retrain_interval_seconds", retrain_interval_seconds);
	I("validation_hours", validation_hours);
	I("training_stride_seconds", stride_seconds);
	R("guarantee_probability", guarantee_probability);
	S("business_calendar", business_calendar);
	I("moving_average_window", moving_average_window);
	I("embedding_dimension", embedding_dimension);
	I("attention_hidden_dimension", attention_hidden_dimension);
	I("train_epochs", train_epochs);
	I("batch_size", batch_size);
	R("learning_rate", learning_rate);
	I("early_stopping_patience", early_stopping_patience);
	I("random_seed", random_seed);
	B("nonzero_targets_only", nonzero_targets_only);
	R("initial_eta", initial_eta);
	R("minimum_eta", minimum_eta);
	R("maximum_eta", maximum_eta);
	I("feedback_window_seconds", feedback_window_seconds);
	I("queue_wait_threshold_seconds", queue_wait_threshold_seconds);
	R("high_eviction_multiple", high_eviction_multiple);
	R("low_eviction_multiple", low_eviction_multiple);
	B("runtime_inventory_cap", runtime_inventory_cap);
#undef S
#undef I
#undef R
#undef B
	const struct json *m = json_get(doc, CALIBRATION_KEY);
	if (m) {
		if (pcf_str(m, CALIBRATION_KEY, &c->calibration_method, err, errlen))
			return -1;
		if (strcmp(c->calibration_method, TC_CALIBRATION_METHOD)) {
			snprintf(err, errlen, "'%s' must be '%s'", CALIBRATION_KEY, TC_CALIBRATION_METHOD);
			return -1;
		}
	}
	if (!(c->estimator = est_find(c->model))) {
		char ids[256];
		est_id_list(ids, sizeof ids);
		if (!strcmp(c->model, "tenant-linear-gaussian-v1"))
			snprintf(err, errlen, "model 'tenant-linear-gaussian-v1' is the original's PyTorch network, which this "
			         "build does not have; use %s", ids);
		else
			snprintf(err, errlen, "unknown model '%s' (want %s)", c->model, ids);
		return -1;
	}
	if (pcf_horizons(json_get(doc, "guarantee_horizons_hours"), a, &c->horizons, &c->n_horizons, err, errlen))
		return -1;
	if (validate(c, err, errlen))
		return -1;
	c->quirks_fixed = !strncmp(c->controller_id, TC_OWN_ID_PREFIX, strlen(TC_OWN_ID_PREFIX));
	c->canonical = canonical(a, c);
	pc_canonical_sha256(c->canonical, c->fingerprint);
	return 0;
}

long long tc_minimum_history_hours(const struct tc_config *c)
{
	return c->lookback_hours + c->validation_hours + c->horizon_hours;
}
