/*
 * tenant_config — the tenant controller's configuration (docs/predictive-rules.md §2 "Config"):
 * schema schednav.tenant-predictive-controller/1 with the original's exact key set,
 * coercions and validation rules; v2 adds quantile_calibration_method
 * (validation-residual-nearest-rank), and omitting it keeps the v1 dict and hash.
 *
 * model names the estimator: tenant-quantile-linear-v1 or seasonal-conformal-v1 (ours,
 * estimator.h). The original's tenant-linear-gaussian-v1 (a PyTorch network) is refused
 * with a message naming ours. The network keys (embedding_dimension,
 * attention_hidden_dimension, train_epochs, batch_size, learning_rate,
 * early_stopping_patience, random_seed, nonzero_targets_only) are validated and hashed as
 * the original does, and read by no estimator of ours; moving_average_window sets the
 * slope feature.
 *
 * Quirks (docs/tenant-controller.md): a controller_id starting with "schednav-" is one of
 * ours and runs with Q1 (eta compounding), Q2 (projection lost off the 5-minute grid) and
 * Q3 (error sign) fixed; any other id keeps the original's behaviour for all three.
 *
 * fp = SHA-256 of the canonical sorted JSON of the original's to_dict() (ints as ints,
 * floats as Python floats). Strings and arrays live in the arena given to the parser.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_CONFIG_H
#define SCHEDNAV_PREDICT_TENANT_CONFIG_H
#include "core/arena.h"
#include "core/json.h"
#include "predict/tenant/estimator.h"
#include <stdbool.h>
#include <stddef.h>

#define PT_CONFIG_SCHEMA "schednav.tenant-predictive-controller/1"
#define PT_CALIBRATION_METHOD "validation-residual-nearest-rank"
#define PT_OWN_ID_PREFIX "schednav-"

struct pt_config {
	const char *schema_version, *controller_id, *model;
	const struct pt_est_ops *estimator;   /* pt_est_find(model) */
	long long sample_interval_seconds, quota_interval_seconds, aggregation_interval_seconds;
	long long lookback_hours, horizon_hours, retrain_interval_seconds, validation_hours, stride_seconds;
	double guarantee_probability;
	long long *horizons;            /* guarantee_horizons_hours, increasing */
	size_t n_horizons;
	const char *business_calendar;  /* "china" | "weekday" */
	long long moving_average_window, embedding_dimension, attention_hidden_dimension, train_epochs, batch_size;
	double learning_rate;
	long long early_stopping_patience, random_seed;
	bool nonzero_targets_only;
	double initial_eta, minimum_eta, maximum_eta;
	long long feedback_window_seconds, queue_wait_threshold_seconds;
	double high_eviction_multiple, low_eviction_multiple;
	bool runtime_inventory_cap;
	const char *calibration_method; /* NULL: v1 */
	bool quirks_fixed;              /* controller_id starts with "schednav-" */
	struct json *canonical;         /* to_dict() */
	char fingerprint[FP_HEX_SHA256];
};

/* Validate a parsed config and fill c. 0 or -1 + message. Files are read through
 * pc_config_load (predict.h), which dispatches on schema_version to this family. */
int pt_config_from_json(struct pt_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen);
/* True when doc's schema_version is the tenant controller's. */
bool pt_config_is_tenant(const struct json *doc);
/* Minimum history for readiness: lookback + validation + horizon hours (844). */
long long pt_minimum_history_hours(const struct pt_config *c);
#endif
