/* The tenant controller configuration: the original's key set and rules (its
 * TenantPredictiveControllerConfig), our estimator ids, the v2 calibration key. One row of
 * fields[] per key; validate() holds the rules that relate several fields. */
#include "predict/tenant/tenant_config.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "predict/internal.h"
#include "predict/predict.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIBRATION_KEY "quantile_calibration_method"
#define MAX_SECONDS 3153600000LL   /* 100 years: keeps every product finite */

/* Either spelling of the id is read (nd_schema_is), and the config keeps the new one
 * whichever was read: schema_version is a field of the canonical config, so a config in the
 * old spelling has the same fingerprint as the same config in the new one. */
static int check_schema(void *config, char *err, size_t errlen)
{
	struct pt_config *c = config;
	if (!nd_schema_is(c->schema_version, PT_CONFIG_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema_version '%s' (want '%s')", c->schema_version, PT_CONFIG_SCHEMA);
		return -1;
	}
	c->schema_version = PT_CONFIG_SCHEMA;
	return 0;
}

static int check_calibration(void *config, char *err, size_t errlen)
{
	const struct pt_config *c = config;
	if (strcmp(c->calibration_method, PT_CALIBRATION_METHOD)) {
		snprintf(err, errlen, "'%s' must be '%s'", CALIBRATION_KEY, PT_CALIBRATION_METHOD);
		return -1;
	}
	return 0;
}

/* After the calibration key (the original's order of errors): the estimator of model. */
static int find_estimator(void *config, char *err, size_t errlen)
{
	struct pt_config *c = config;
	if (!(c->estimator = pt_est_find(c->model))) {
		char ids[256];
		pt_est_id_list(ids, sizeof ids);
		if (!strcmp(c->model, "tenant-linear-gaussian-v1"))
			snprintf(err, errlen, "model 'tenant-linear-gaussian-v1' is the original's PyTorch network, which this "
			         "build does not have; use %s", ids);
		else
			snprintf(err, errlen, "unknown model '%s' (want %s)", c->model, ids);
		return -1;
	}
	return 0;
}

/* The original's key set in its order (the order of "missing required key" and of the
 * reads), with its to_dict() order (model and the v2 key last). */
#define ROW(key, type, ctype, member, flags, max, check) \
	{ key, type, PC_FIELD_MEMBER(struct pt_config, member, ctype), 0, flags, max, check }
#define S(key, member, flags, check) ROW(key, PC_FIELD_STR, const char *, member, flags, 0, check)
#define I(key, member, flags, max) ROW(key, PC_FIELD_INT, long long, member, flags, max, NULL)
#define R(key, member, flags) ROW(key, PC_FIELD_REAL, double, member, flags, 0, NULL)
#define B(key, member) ROW(key, PC_FIELD_BOOL, bool, member, 0, 0, NULL)
#define POS PC_FIELD_POSITIVE
static const struct pc_field fields[] = {
	S("schema_version", schema_version, 0, check_schema),
	S("controller_id", controller_id, 0, NULL),
	S("model", model, PC_FIELD_DICT_LAST | PC_FIELD_CHECK_LATE, find_estimator),
	I("demand_sample_interval_seconds", sample_interval_seconds, 0, MAX_SECONDS),
	I("quota_update_interval_seconds", quota_interval_seconds, 0, MAX_SECONDS),
	I("aggregation_interval_seconds", aggregation_interval_seconds, 0, 0),
	I("lookback_hours", lookback_hours, POS, 100000),
	I("forecast_horizon_hours", horizon_hours, POS, PT_EST_MAX_STEPS),
	I("retrain_interval_seconds", retrain_interval_seconds, POS, MAX_SECONDS),
	I("validation_hours", validation_hours, POS, 100000),
	I("training_stride_seconds", stride_seconds, 0, 0),
	R("guarantee_probability", guarantee_probability, 0),
	{ "guarantee_horizons_hours", PC_FIELD_HORIZONS, PC_FIELD_MEMBER(struct pt_config, horizons, long long *),
	  PC_FIELD_MEMBER(struct pt_config, n_horizons, size_t), 0, 0, NULL },
	S("business_calendar", business_calendar, 0, NULL),
	I("moving_average_window", moving_average_window, POS, 0),
	I("embedding_dimension", embedding_dimension, POS, 0),
	I("attention_hidden_dimension", attention_hidden_dimension, POS, 0),
	I("train_epochs", train_epochs, POS, 0),
	I("batch_size", batch_size, POS, 0),
	R("learning_rate", learning_rate, POS),
	I("early_stopping_patience", early_stopping_patience, POS, 0),
	I("random_seed", random_seed, 0, 0),
	B("nonzero_targets_only", nonzero_targets_only),
	R("initial_eta", initial_eta, 0),
	R("minimum_eta", minimum_eta, 0),
	R("maximum_eta", maximum_eta, 0),
	I("feedback_window_seconds", feedback_window_seconds, POS, MAX_SECONDS),
	I("queue_wait_threshold_seconds", queue_wait_threshold_seconds, POS, MAX_SECONDS),
	R("high_eviction_multiple", high_eviction_multiple, 0),
	R("low_eviction_multiple", low_eviction_multiple, 0),
	B("runtime_inventory_cap", runtime_inventory_cap),
	S(CALIBRATION_KEY, calibration_method, PC_FIELD_OPTIONAL | PC_FIELD_DICT_LAST, check_calibration),
};
#undef ROW
#undef S
#undef I
#undef R
#undef B
#undef POS
#define N_FIELDS (sizeof fields / sizeof *fields)

static int validate(const struct pt_config *c, char *err, size_t errlen)
{
	if (!*c->controller_id)
		return pc_field_fail(err, errlen, "controller_id cannot be empty");
	if (c->sample_interval_seconds <= 0)
		return pc_field_fail(err, errlen, "demand_sample_interval_seconds must be positive");
	if (c->aggregation_interval_seconds % c->sample_interval_seconds)
		return pc_field_fail(err, errlen, "aggregation must be a multiple of demand sampling");
	if (c->aggregation_interval_seconds != 3600)
		return pc_field_fail(err, errlen, "tenant-predictive-controller/1 requires hourly aggregation");
	if (c->quota_interval_seconds <= 0 || c->stride_seconds <= 0 ||
	    c->quota_interval_seconds % c->sample_interval_seconds || c->stride_seconds % c->sample_interval_seconds)
		return pc_field_fail(err, errlen, "quota and training cadence must align with sampling");
	if (pc_field_any_not_positive(fields, N_FIELDS, c))
		return pc_field_fail(err, errlen, "model, training, and feedback dimensions must be positive");
	if (c->moving_average_window % 2 == 0)
		return pc_field_fail(err, errlen, "moving_average_window must be odd");
	if (c->retrain_interval_seconds < c->quota_interval_seconds)
		return pc_field_fail(err, errlen, "retraining cannot be more frequent than quota updates");
	if (!(0.5 < c->guarantee_probability && c->guarantee_probability < 1.0))
		return pc_field_fail(err, errlen, "guarantee_probability must be between 0.5 and 1");
	if (!c->n_horizons || c->horizons[0] <= 0 || c->horizons[c->n_horizons - 1] > c->horizon_hours)
		return pc_field_fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	for (size_t i = 1; i < c->n_horizons; i++)
		if (c->horizons[i] <= c->horizons[i - 1])
			return pc_field_fail(err, errlen, "guarantee horizons must be increasing and inside forecast");
	if (strcmp(c->business_calendar, "china") && strcmp(c->business_calendar, "weekday"))
		return pc_field_fail(err, errlen, "business_calendar must be china or weekday");
	if (!(0 < c->minimum_eta && c->minimum_eta <= c->initial_eta && c->initial_eta <= c->maximum_eta))
		return pc_field_fail(err, errlen, "expected 0 < minimum_eta <= initial_eta <= maximum_eta");
	if (!(c->high_eviction_multiple >= 1.0))
		return pc_field_fail(err, errlen, "high_eviction_multiple must be at least one");
	if (!(0.0 <= c->low_eviction_multiple && c->low_eviction_multiple <= 1.0))
		return pc_field_fail(err, errlen, "low_eviction_multiple must be between zero and one");
	/* ours: the offset-aligned hourly maxima and the decision grid of the estimators */
	long long points = 3600 / c->sample_interval_seconds, stride = c->stride_seconds / c->sample_interval_seconds;
	if (points % stride || points / stride > PT_HIST_MAX_OFFSETS || c->quota_interval_seconds % c->stride_seconds)
		return pc_field_fail(err, errlen, "training_stride_seconds must divide the hour into at most 60 offsets and the quota interval");
	if (pc_field_any_over_max(fields, N_FIELDS, c))
		return pc_field_fail(err, errlen, "an interval is out of range (forecast_horizon_hours at most 24, intervals at most 100 years)");
	if (c->lookback_hours < 48 || 2 * c->moving_average_window - 1 > c->lookback_hours ||
	    c->validation_hours < c->horizon_hours)
		return pc_field_fail(err, errlen, "the estimators need lookback_hours >= 48, 2 * moving_average_window - 1 <= lookback_hours "
		                         "and validation_hours >= forecast_horizon_hours");
	return 0;
}

bool pt_config_is_tenant(const struct json *doc)
{
	const struct json *sv = json_get(doc, "schema_version");
	return sv && sv->kind == JSON_STRING && nd_schema_is(sv->u.str.s, PT_CONFIG_SCHEMA);
}

int pt_config_from_json(struct pt_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (pc_field_read(fields, N_FIELDS, doc, c, a, err, errlen))
		return -1;
	if (validate(c, err, errlen))
		return -1;
	c->quirks_fixed = !strncmp(c->controller_id, PT_OWN_ID_PREFIX, strlen(PT_OWN_ID_PREFIX));
	c->canonical = pc_field_dict(fields, N_FIELDS, c, a);
	pc_canonical_sha256(c->canonical, c->fingerprint);
	return 0;
}

long long pt_minimum_history_hours(const struct pt_config *c)
{
	return c->lookback_hours + c->validation_hours + c->horizon_hours;
}
