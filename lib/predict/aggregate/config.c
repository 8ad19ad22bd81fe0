/* The controller configuration (docs/predictive-rules.md §1): the original's exact key set, coercions
 * and validation rules, its to_dict() and the SHA-256 fingerprint of that dict. */
#include "predict/predict.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "predict/aggregate/aggregate.h"
#include "predict/internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds the original does not have: they keep every table and product finite. */
#define MAX_SECONDS 3153600000LL   /* 100 years */
#define MAX_HOURS 876000LL

static int check_schema(void *config, char *err, size_t errlen)
{
	const struct pc_config *c = config;
	if (strcmp(c->schema_version, PC_CONFIG_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema_version '%s' (want '%s')", c->schema_version, PC_CONFIG_SCHEMA);
		return -1;
	}
	return 0;
}

/* The original's key set in its order (the order of "missing required key" and of the
 * reads), with its to_dict() order (model last). */
#define ROW(key, type, ctype, member, flags, max, check) \
	{ key, type, PC_FIELD_MEMBER(struct pc_config, member, ctype), 0, flags, max, check }
#define S(key, member, flags, check) ROW(key, PC_FIELD_STR, const char *, member, flags, 0, check)
#define I(key, member, max) ROW(key, PC_FIELD_INT, long long, member, 0, max, NULL)
#define R(key, member) ROW(key, PC_FIELD_REAL, double, member, 0, 0, NULL)
static const struct pc_field fields[] = {
	S("schema_version", schema_version, 0, check_schema),
	S("controller_id", controller_id, 0, NULL),
	S("model", model, PC_FIELD_DICT_LAST, NULL),
	I("observation_interval_seconds", observation_interval_seconds, MAX_SECONDS),
	I("aggregation_interval_seconds", aggregation_interval_seconds, 0),
	I("lookback_hours", lookback_hours, MAX_HOURS),
	I("forecast_horizon_hours", forecast_horizon_hours, 168),
	I("retrain_interval_seconds", retrain_interval_seconds, MAX_SECONDS),
	R("guarantee_probability", guarantee_probability),
	{ "guarantee_horizons_hours", PC_FIELD_HORIZONS, PC_FIELD_MEMBER(struct pc_config, horizons, long long *),
	  PC_FIELD_MEMBER(struct pc_config, n_horizons, size_t), 0, 0, NULL },
	I("minimum_history_hours", minimum_history_hours, 0),
	R("minimum_sigma_gpus", minimum_sigma_gpus),
	R("initial_eta", initial_eta),
	R("minimum_eta", minimum_eta),
	R("maximum_eta", maximum_eta),
	I("feedback_window_seconds", feedback_window_seconds, MAX_SECONDS),
	I("starvation_increase_after_seconds", starvation_increase_after_seconds, MAX_SECONDS),
	R("high_eviction_ratio", high_eviction_ratio),
	R("low_eviction_ratio", low_eviction_ratio),
	R("eta_increase_step", eta_increase_step),
};
#undef ROW
#undef S
#undef I
#undef R
#define N_FIELDS (sizeof fields / sizeof *fields)

static int validate(const struct pc_config *c, char *err, size_t errlen)
{
	if (!*c->controller_id)
		return pc_field_fail(err, errlen, "controller_id cannot be empty");
	if (strcmp(c->model, pc_seasonal_gaussian.model)) {
		snprintf(err, errlen, "unknown model '%s' (want '%s')", c->model, pc_seasonal_gaussian.model);
		return -1;
	}
	if (c->observation_interval_seconds <= 0)
		return pc_field_fail(err, errlen, "observation_interval_seconds must be positive");
	if (c->aggregation_interval_seconds <= 0 || c->aggregation_interval_seconds % c->observation_interval_seconds != 0)
		return pc_field_fail(err, errlen, "aggregation_interval_seconds must be a positive multiple of the observation interval");
	if (c->aggregation_interval_seconds != 3600)
		return pc_field_fail(err, errlen, "predictive-controller/v1 requires hourly aggregation (aggregation_interval_seconds 3600)");
	if (c->lookback_hours <= 0 || c->forecast_horizon_hours <= 0)
		return pc_field_fail(err, errlen, "lookback_hours and forecast_horizon_hours must be positive");
	if (c->retrain_interval_seconds < c->aggregation_interval_seconds)
		return pc_field_fail(err, errlen, "retrain_interval_seconds cannot be shorter than aggregation");
	if (!(0.5 < c->guarantee_probability && c->guarantee_probability < 1.0))
		return pc_field_fail(err, errlen, "guarantee_probability must be between 0.5 and 1");
	if (c->n_horizons == 0 || c->horizons[0] <= 0 || c->horizons[c->n_horizons - 1] > c->forecast_horizon_hours)
		return pc_field_fail(err, errlen, "guarantee_horizons_hours must be unique, increasing, positive, and inside the forecast horizon");
	for (size_t i = 1; i < c->n_horizons; i++)
		if (c->horizons[i] <= c->horizons[i - 1])
			return pc_field_fail(err, errlen, "guarantee_horizons_hours must be unique, increasing, positive, and inside the forecast horizon");
	if (!(1 <= c->minimum_history_hours && c->minimum_history_hours <= c->lookback_hours))
		return pc_field_fail(err, errlen, "minimum_history_hours must be inside the lookback");
	if (c->minimum_sigma_gpus < 0)
		return pc_field_fail(err, errlen, "minimum_sigma_gpus cannot be negative");
	if (!(0 < c->minimum_eta && c->minimum_eta <= c->initial_eta && c->initial_eta <= c->maximum_eta))
		return pc_field_fail(err, errlen, "expected 0 < minimum_eta <= initial_eta <= maximum_eta");
	if (c->feedback_window_seconds <= 0)
		return pc_field_fail(err, errlen, "feedback_window_seconds must be positive");
	if (c->starvation_increase_after_seconds <= 0)
		return pc_field_fail(err, errlen, "starvation_increase_after_seconds must be positive");
	if (!(1.0 <= c->high_eviction_ratio))
		return pc_field_fail(err, errlen, "high_eviction_ratio must be at least 1");
	if (!(0.0 <= c->low_eviction_ratio && c->low_eviction_ratio <= 1.0))
		return pc_field_fail(err, errlen, "low_eviction_ratio must be between 0 and 1");
	if (!(0.0 < c->eta_increase_step && c->eta_increase_step <= 1.0))
		return pc_field_fail(err, errlen, "eta_increase_step must be between 0 and 1");
	if (pc_field_any_over_max(fields, N_FIELDS, c))
		return pc_field_fail(err, errlen, "an interval is out of range (at most 100 years; forecast_horizon_hours at most 168)");
	return 0;
}

int pc_aggregate_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (pc_field_read(fields, N_FIELDS, doc, c, a, err, errlen))
		return -1;
	if (validate(c, err, errlen))
		return -1;
	c->estimator = &pc_seasonal_gaussian;
	c->sw.pools = PC_POOLS_CLUSTER;
	c->sw.eta_law = PC_ETA_EVENT_TRIGGERED;
	c->sw.floor_before_subtract = false;
	c->sw.inventory_cap = false;
	c->sw.control_window_only = false;
	c->sw.gate_scope = PC_GATE_CLUSTER;
	c->canonical = pc_field_dict(fields, N_FIELDS, c, a);
	pc_canonical_sha256(c->canonical, c->fingerprint);
	return 0;
}
