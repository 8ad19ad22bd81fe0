/* The tenant controller configuration: the original's key set and rules (its
 * TenantPredictiveControllerConfig), our estimator ids, the v2 calibration key. */
#include "predict/tenant_config.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/zio.h"
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

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static int get_int(const struct json *v, const char *key, long long *out, char *err, size_t errlen)
{
	if (v->kind == JSON_INT)
		*out = v->u.i;
	else if (v->kind == JSON_REAL && isfinite(v->u.d) && v->u.d == floor(v->u.d) && fabs(v->u.d) < 9e15)
		*out = (long long)v->u.d;
	else {
		snprintf(err, errlen, "'%s' must be an integer", key);
		return -1;
	}
	return 0;
}

static int get_real(const struct json *v, const char *key, double *out, char *err, size_t errlen)
{
	if (!json_is_num(v) || !isfinite(json_num(v))) {
		snprintf(err, errlen, "'%s' must be a finite number", key);
		return -1;
	}
	*out = json_num(v);
	return 0;
}

static int get_bool(const struct json *v, const char *key, bool *out, char *err, size_t errlen)
{
	if (v->kind != JSON_TRUE && v->kind != JSON_FALSE) {
		snprintf(err, errlen, "'%s' must be true or false", key);
		return -1;
	}
	*out = v->kind == JSON_TRUE;
	return 0;
}

static int get_str(const struct json *v, const char *key, const char **out, char *err, size_t errlen)
{
	if (v->kind != JSON_STRING || strlen(v->u.str.s) != v->u.str.len) {
		snprintf(err, errlen, "'%s' must be a string", key);
		return -1;
	}
	for (size_t i = 0; i < v->u.str.len; i++)
		if ((unsigned char)v->u.str.s[i] < 0x20 || v->u.str.s[i] == 0x7f) {
			snprintf(err, errlen, "'%s' must not contain control characters", key);
			return -1;
		}
	*out = v->u.str.s;
	return 0;
}

static int validate(const struct tc_config *c, char *err, size_t errlen)
{
	if (!*c->controller_id)
		return fail(err, errlen, "controller_id cannot be empty");
	if (c->sample_interval_seconds <= 0)
		return fail(err, errlen, "demand_sample_interval_seconds must be positive");
	if (c->aggregation_interval_seconds % c->sample_interval_seconds)
		return fail(err, errlen, "aggregation must be a multiple of demand sampling");
	if (c->aggregation_interval_seconds != 3600)
		return fail(err, errlen, "tenant-predictive-controller/v1 requires hourly aggregation");
	if (c->quota_interval_seconds <= 0 || c->stride_seconds <= 0 ||
	    c->quota_interval_seconds % c->sample_interval_seconds || c->stride_seconds % c->sample_interval_seconds)
		return fail(err, errlen, "quota and training cadence must align with sampling");
	long long positive[] = { c->lookback_hours, c->horizon_hours, c->retrain_interval_seconds, c->validation_hours,
		                 c->moving_average_window, c->embedding_dimension, c->attention_hidden_dimension,
		                 c->train_epochs, c->batch_size, c->early_stopping_patience, c->feedback_window_seconds,
		                 c->queue_wait_threshold_seconds };
	for (size_t i = 0; i < sizeof positive / sizeof *positive; i++)
		if (positive[i] <= 0)
			return fail(err, errlen, "model, training, and feedback dimensions must be positive");
	if (!(c->learning_rate > 0))
		return fail(err, errlen, "model, training, and feedback dimensions must be positive");
	if (c->moving_average_window % 2 == 0)
		return fail(err, errlen, "moving_average_window must be odd");
	if (c->retrain_interval_seconds < c->quota_interval_seconds)
		return fail(err, errlen, "retraining cannot be more frequent than quota updates");
	if (!(0.5 < c->guarantee_probability && c->guarantee_probability < 1.0))
		return fail(err, errlen, "guarantee_probability must be between 0.5 and 1");
	if (!c->n_horizons || c->horizons[0] <= 0 || c->horizons[c->n_horizons - 1] > c->horizon_hours)
		return fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	for (size_t i = 1; i < c->n_horizons; i++)
		if (c->horizons[i] <= c->horizons[i - 1])
			return fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	if (strcmp(c->business_calendar, "china") && strcmp(c->business_calendar, "weekday"))
		return fail(err, errlen, "business_calendar must be china or weekday");
	if (!(0 < c->minimum_eta && c->minimum_eta <= c->initial_eta && c->initial_eta <= c->maximum_eta))
		return fail(err, errlen, "expected 0 < minimum_eta <= initial_eta <= maximum_eta");
	if (!(c->high_eviction_multiple >= 1.0))
		return fail(err, errlen, "high_eviction_multiple must be at least one");
	if (!(0.0 <= c->low_eviction_multiple && c->low_eviction_multiple <= 1.0))
		return fail(err, errlen, "low_eviction_multiple must be between zero and one");
	/* ours: the offset-aligned hourly maxima and the decision grid of the estimators */
	long long points = 3600 / c->sample_interval_seconds, stride = c->stride_seconds / c->sample_interval_seconds;
	if (points % stride || points / stride > TH_MAX_OFFSETS || c->quota_interval_seconds % c->stride_seconds)
		return fail(err, errlen, "training_stride_seconds must divide the hour into at most 60 offsets and the quota interval");
	if (c->sample_interval_seconds > MAX_SECONDS || c->retrain_interval_seconds > MAX_SECONDS ||
	    c->feedback_window_seconds > MAX_SECONDS || c->queue_wait_threshold_seconds > MAX_SECONDS ||
	    c->quota_interval_seconds > MAX_SECONDS || c->lookback_hours > 100000 || c->validation_hours > 100000 ||
	    c->horizon_hours > EST_MAX_STEPS)
		return fail(err, errlen, "an interval is out of range (forecast_horizon_hours at most 24, intervals at most 100 years)");
	if (c->lookback_hours < 48 || 2 * c->moving_average_window - 1 > c->lookback_hours ||
	    c->validation_hours < c->horizon_hours)
		return fail(err, errlen, "the estimators need lookback_hours >= 48, 2 * moving_average_window - 1 <= lookback_hours "
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

void tc_canonical_sha256(const struct json *v, char out[FP_HEX_SHA256])
{
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, v);
	fp_sha256_of(sb.buf, sb.len, out);
	sb_release(&sb);
}

bool tc_config_is_tenant(const struct json *doc)
{
	const struct json *sv = json_get(doc, "schema_version");
	return sv && sv->kind == JSON_STRING && !strcmp(sv->u.str.s, TC_CONFIG_SCHEMA);
}

int tc_config_from_json(struct tc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (!doc || doc->kind != JSON_OBJECT)
		return fail(err, errlen, "controller config must be a JSON object");
	for (size_t i = 0; i < doc->u.obj.n; i++) {
		const char *const *k = keys;
		while (*k && strcmp(*k, doc->u.obj.keys[i]))
			k++;
		if (!*k && strcmp(doc->u.obj.keys[i], CALIBRATION_KEY)) {
			snprintf(err, errlen, "unknown key '%s'", doc->u.obj.keys[i]);
			return -1;
		}
	}
	for (const char *const *k = keys; *k; k++)
		if (!json_get(doc, *k)) {
			snprintf(err, errlen, "missing required key '%s'", *k);
			return -1;
		}
#define S(k, f) if (get_str(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define I(k, f) if (get_int(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define R(k, f) if (get_real(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define B(k, f) if (get_bool(json_get(doc, k), k, &c->f, err, errlen)) return -1
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
		if (get_str(m, CALIBRATION_KEY, &c->calibration_method, err, errlen))
			return -1;
		if (strcmp(c->calibration_method, TC_CALIBRATION_METHOD)) {
			snprintf(err, errlen, "'%s' must be '%s'", CALIBRATION_KEY, TC_CALIBRATION_METHOD);
			return -1;
		}
	}
	if (est_kind_from_id(c->model, &c->estimator)) {
		if (!strcmp(c->model, "tenant-linear-gaussian-v1"))
			snprintf(err, errlen, "model 'tenant-linear-gaussian-v1' is the original's PyTorch network, which this "
			         "build does not have; use '%s' or '%s'", EST_LINEAR_ID, EST_SEASONAL_ID);
		else
			snprintf(err, errlen, "unknown model '%s' (want '%s' or '%s')", c->model, EST_LINEAR_ID, EST_SEASONAL_ID);
		return -1;
	}
	const struct json *h = json_get(doc, "guarantee_horizons_hours");
	if (h->kind != JSON_ARRAY)
		return fail(err, errlen, "guarantee_horizons_hours must be a list");
	if (h->u.arr.n > 64)
		return fail(err, errlen, "guarantee_horizons_hours holds more than 64 horizons");
	c->n_horizons = h->u.arr.n;
	c->horizons = arena_alloc(a, (c->n_horizons + 1) * sizeof *c->horizons);
	if (!c->horizons)
		return fail(err, errlen, "out of memory");
	for (size_t i = 0; i < c->n_horizons; i++)
		if (get_int(h->u.arr.items[i], "guarantee_horizons_hours", &c->horizons[i], err, errlen))
			return -1;
	if (validate(c, err, errlen))
		return -1;
	c->quirks_fixed = !strncmp(c->controller_id, TC_OWN_ID_PREFIX, strlen(TC_OWN_ID_PREFIX));
	c->canonical = canonical(a, c);
	tc_canonical_sha256(c->canonical, c->fingerprint);
	return 0;
}

int tc_config_load(struct tc_config *c, const char *path, struct arena *a, char *err, size_t errlen)
{
	char *buf, perr[512];
	size_t len;
	struct json *doc;
	if (zio_slurp(path, &buf, &len, perr, sizeof perr)) {
		snprintf(err, errlen, "%s", perr);
		return -1;
	}
	int rc = json_parse(a, buf, len, &doc, perr, sizeof perr);
	free(buf);
	if (rc || tc_config_from_json(c, doc, a, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	return 0;
}

long long tc_minimum_history_hours(const struct tc_config *c)
{
	return c->lookback_hours + c->validation_hours + c->horizon_hours;
}

int tc_horizon_for(const struct tc_config *c, long long guarantee_seconds)
{
	double need = ceil((double)guarantee_seconds / 3600.0);
	long long h = need > 1 ? (long long)need : 1;
	for (size_t i = 0; i < c->n_horizons; i++)
		if (c->horizons[i] >= h)
			return (int)i;
	return -1;
}
