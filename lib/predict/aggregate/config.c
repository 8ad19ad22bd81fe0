/* The controller configuration (predictive.md §1): the original's exact key set, coercions
 * and validation rules, its to_dict() and the SHA-256 fingerprint of that dict. */
#include "predict/predict.h"
#include "predict/internal.h"
#include "predict/aggregate/aggregate.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const config_keys[] = { "schema_version", "controller_id", "model", "observation_interval_seconds",
	"aggregation_interval_seconds", "lookback_hours", "forecast_horizon_hours", "retrain_interval_seconds",
	"guarantee_probability", "guarantee_horizons_hours", "minimum_history_hours", "minimum_sigma_gpus", "initial_eta",
	"minimum_eta", "maximum_eta", "feedback_window_seconds", "starvation_increase_after_seconds", "high_eviction_ratio",
	"low_eviction_ratio", "eta_increase_step", NULL };

/* Bounds the original does not have: they keep every table and product finite. */
#define MAX_SECONDS 3153600000LL   /* 100 years */
#define MAX_HOURS 876000LL

static int validate(const struct pc_config *c, char *err, size_t errlen)
{
	if (!*c->controller_id)
		return pcf_fail(err, errlen, "controller_id cannot be empty");
	if (strcmp(c->model, pc_seasonal_gaussian.model)) {
		snprintf(err, errlen, "unknown model '%s' (want '%s')", c->model, pc_seasonal_gaussian.model);
		return -1;
	}
	if (c->observation_interval_seconds <= 0)
		return pcf_fail(err, errlen, "observation_interval_seconds must be positive");
	if (c->aggregation_interval_seconds <= 0 || c->aggregation_interval_seconds % c->observation_interval_seconds != 0)
		return pcf_fail(err, errlen, "aggregation_interval_seconds must be a positive multiple of the observation interval");
	if (c->aggregation_interval_seconds != 3600)
		return pcf_fail(err, errlen, "predictive-controller/v1 requires hourly aggregation (aggregation_interval_seconds 3600)");
	if (c->lookback_hours <= 0 || c->forecast_horizon_hours <= 0)
		return pcf_fail(err, errlen, "lookback_hours and forecast_horizon_hours must be positive");
	if (c->retrain_interval_seconds < c->aggregation_interval_seconds)
		return pcf_fail(err, errlen, "retrain_interval_seconds cannot be shorter than aggregation");
	if (!(0.5 < c->guarantee_probability && c->guarantee_probability < 1.0))
		return pcf_fail(err, errlen, "guarantee_probability must be between 0.5 and 1");
	if (c->n_horizons == 0 || c->horizons[0] <= 0 || c->horizons[c->n_horizons - 1] > c->forecast_horizon_hours)
		return pcf_fail(err, errlen, "guarantee_horizons_hours must be unique, increasing, positive, and inside the forecast horizon");
	for (size_t i = 1; i < c->n_horizons; i++)
		if (c->horizons[i] <= c->horizons[i - 1])
			return pcf_fail(err, errlen, "guarantee_horizons_hours must be unique, increasing, positive, and inside the forecast horizon");
	if (!(1 <= c->minimum_history_hours && c->minimum_history_hours <= c->lookback_hours))
		return pcf_fail(err, errlen, "minimum_history_hours must be inside the lookback");
	if (c->minimum_sigma_gpus < 0)
		return pcf_fail(err, errlen, "minimum_sigma_gpus cannot be negative");
	if (!(0 < c->minimum_eta && c->minimum_eta <= c->initial_eta && c->initial_eta <= c->maximum_eta))
		return pcf_fail(err, errlen, "expected 0 < minimum_eta <= initial_eta <= maximum_eta");
	if (c->feedback_window_seconds <= 0)
		return pcf_fail(err, errlen, "feedback_window_seconds must be positive");
	if (c->starvation_increase_after_seconds <= 0)
		return pcf_fail(err, errlen, "starvation_increase_after_seconds must be positive");
	if (!(1.0 <= c->high_eviction_ratio))
		return pcf_fail(err, errlen, "high_eviction_ratio must be at least 1");
	if (!(0.0 <= c->low_eviction_ratio && c->low_eviction_ratio <= 1.0))
		return pcf_fail(err, errlen, "low_eviction_ratio must be between 0 and 1");
	if (!(0.0 < c->eta_increase_step && c->eta_increase_step <= 1.0))
		return pcf_fail(err, errlen, "eta_increase_step must be between 0 and 1");
	if (c->observation_interval_seconds > MAX_SECONDS || c->retrain_interval_seconds > MAX_SECONDS ||
	    c->feedback_window_seconds > MAX_SECONDS || c->starvation_increase_after_seconds > MAX_SECONDS ||
	    c->lookback_hours > MAX_HOURS || c->forecast_horizon_hours > 168)
		return pcf_fail(err, errlen, "an interval is out of range (at most 100 years; forecast_horizon_hours at most 168)");
	return 0;
}

static struct json *canonical(struct arena *a, const struct pc_config *c)
{
	struct json *d = json_object(a), *h = json_array(a);
	json_set(a, d, "schema_version", json_str(a, c->schema_version));
	json_set(a, d, "controller_id", json_str(a, c->controller_id));
	json_set(a, d, "observation_interval_seconds", json_int(a, c->observation_interval_seconds));
	json_set(a, d, "aggregation_interval_seconds", json_int(a, c->aggregation_interval_seconds));
	json_set(a, d, "lookback_hours", json_int(a, c->lookback_hours));
	json_set(a, d, "forecast_horizon_hours", json_int(a, c->forecast_horizon_hours));
	json_set(a, d, "retrain_interval_seconds", json_int(a, c->retrain_interval_seconds));
	json_set(a, d, "guarantee_probability", json_real(a, c->guarantee_probability));
	for (size_t i = 0; i < c->n_horizons; i++)
		json_push(a, h, json_int(a, c->horizons[i]));
	json_set(a, d, "guarantee_horizons_hours", h);
	json_set(a, d, "minimum_history_hours", json_int(a, c->minimum_history_hours));
	json_set(a, d, "minimum_sigma_gpus", json_real(a, c->minimum_sigma_gpus));
	json_set(a, d, "initial_eta", json_real(a, c->initial_eta));
	json_set(a, d, "minimum_eta", json_real(a, c->minimum_eta));
	json_set(a, d, "maximum_eta", json_real(a, c->maximum_eta));
	json_set(a, d, "feedback_window_seconds", json_int(a, c->feedback_window_seconds));
	json_set(a, d, "starvation_increase_after_seconds", json_int(a, c->starvation_increase_after_seconds));
	json_set(a, d, "high_eviction_ratio", json_real(a, c->high_eviction_ratio));
	json_set(a, d, "low_eviction_ratio", json_real(a, c->low_eviction_ratio));
	json_set(a, d, "eta_increase_step", json_real(a, c->eta_increase_step));
	json_set(a, d, "model", json_str(a, c->model));
	return d;
}

int pc_aggregate_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (pcf_keys(doc, config_keys, NULL, err, errlen))
		return -1;
#define S(k, f) if (pcf_str(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define I(k, f) if (pcf_int(json_get(doc, k), k, &c->f, err, errlen)) return -1
#define R(k, f) if (pcf_real(json_get(doc, k), k, &c->f, err, errlen)) return -1
	S("schema_version", schema_version);
	if (strcmp(c->schema_version, PC_CONFIG_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema_version '%s' (want '%s')", c->schema_version, PC_CONFIG_SCHEMA);
		return -1;
	}
	S("controller_id", controller_id);
	S("model", model);
	I("observation_interval_seconds", observation_interval_seconds);
	I("aggregation_interval_seconds", aggregation_interval_seconds);
	I("lookback_hours", lookback_hours);
	I("forecast_horizon_hours", forecast_horizon_hours);
	I("retrain_interval_seconds", retrain_interval_seconds);
	R("guarantee_probability", guarantee_probability);
	I("minimum_history_hours", minimum_history_hours);
	R("minimum_sigma_gpus", minimum_sigma_gpus);
	R("initial_eta", initial_eta);
	R("minimum_eta", minimum_eta);
	R("maximum_eta", maximum_eta);
	I("feedback_window_seconds", feedback_window_seconds);
	I("starvation_increase_after_seconds", starvation_increase_after_seconds);
	R("high_eviction_ratio", high_eviction_ratio);
	R("low_eviction_ratio", low_eviction_ratio);
	R("eta_increase_step", eta_increase_step);
#undef S
#undef I
#undef R
	if (pcf_horizons(json_get(doc, "guarantee_horizons_hours"), a, &c->horizons, &c->n_horizons, err, errlen))
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
	c->canonical = canonical(a, c);
	pc_canonical_sha256(c->canonical, c->fingerprint);
	return 0;
}
