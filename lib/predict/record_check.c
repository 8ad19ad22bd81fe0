/* The control records of a controlled run's result stream (see record_check.h). */
#include "predict/record_check.h"
#include "predict/tenant/tenant_config.h"
#include <stdio.h>
#include <string.h>

/* The controller family of a controlled run, from the header's controller echo. */
static bool tenant_family(const struct json *hdr)
{
	const struct json *c = json_get(hdr, "controller"), *sv = c ? json_get(c, "schema_version") : NULL;
	return sv && sv->kind == JSON_STRING && !strcmp(sv->u.str.s, TC_CONFIG_SCHEMA);
}

static int count(const struct json *hdr, const char *type, char *why, size_t whylen)
{
	if (!json_get(hdr, "controller")) {
		snprintf(why, whylen, "control_decision in a result stream without a controller");
		return -1;
	}
	return 0;
}

/* The control_report keys metrics carries into predictive_control, checked for kind: the
 * aggregate family's (docs/predictive.md "The records") or the tenant family's (docs/predictive-rules.md §2:
 * eta final per pool, scored_point_count, the admission diagnostics). */
static int check(const struct json *hdr, const struct json *v, char *why, size_t whylen)
{
	static const char *const objs[] = { "information_boundary", "evidence_window_seconds", "eta", "spot_quota_gpus", "forecast_evaluation", NULL };
	const struct json *id = json_get(v, "controller_id"), *fp = json_get(v, "controller_fingerprint");
	const char *bad = NULL;
	bool tenant = tenant_family(hdr);
	if (!json_get(hdr, "controller"))
		bad = "control_report in a result stream without a controller";
	else if (!id || id->kind != JSON_STRING || !fp || fp->kind != JSON_STRING || !json_identical(fp, json_get(hdr, "controller_fingerprint")))
		bad = "control_report: controller_id and controller_fingerprint must be strings matching the header";
	else if (!json_has_count(v, "update_count") || !json_has_count(v, "total_runtime_update_count"))
		bad = "control_report: update counts must be non-negative integers";
	for (const char *const *k = objs; !bad && *k; k++)
		if (!json_has_object(v, *k))
			bad = "control_report: a summary block is missing or not an object";
	if (!bad && tenant && (!json_has_object(v, "admission_diagnostics") || !json_has_object(v, "forecast_evaluation_sums")))
		bad = "control_report: a summary block is missing or not an object";
	if (!bad) {
		const struct json *ib = json_get(v, "information_boundary"), *w = json_get(v, "evidence_window_seconds"),
				  *eta = json_get(v, "eta"), *q = json_get(v, "spot_quota_gpus"), *f = json_get(v, "forecast_evaluation");
		bool ok = json_has_bool(ib, "forecast_scoring_occurs_after_target_observation") && json_has_num_or_null(w, "start") &&
			  json_has_num_or_null(w, "end") && json_has_num_or_null(eta, "initial") &&
			  json_has_num_or_null(eta, "minimum_observed") && json_has_num_or_null(eta, "maximum_observed") &&
			  json_has_num_or_null(q, "mean") && json_has_num_or_null(q, "minimum") && json_has_num_or_null(q, "maximum") &&
			  json_has_num_or_null(f, "mae_gpus") && json_has_num_or_null(f, "wape") && json_has_num_or_null(f, "mean_error_gpus") &&
			  json_has_num_or_null(f, "guarantee_quantile_coverage") && json_has_num_or_null(f, "pinball_loss");
		if (tenant)
			ok = ok && json_has_bool(ib, "actual_future_demand_used_for_prediction") &&
			     json_has_object(eta, "final_by_resource_pool") && json_has_count(f, "scored_point_count");
		else
			ok = ok && json_has_bool(ib, "future_workload_fields_accepted") && json_has_num_or_null(eta, "final") &&
			     json_has_count(f, "evaluated_point_count");
		if (!ok)
			bad = "control_report: a summary value has the wrong type";
	}
	if (bad) {
		snprintf(why, whylen, "%s", bad);
		return -1;
	}
	return 0;
}

static const char *missing(const struct json *hdr, bool counted)
{
	return json_get(hdr, "controller") ? "result stream of a controlled run has no control_report record" : NULL;
}

/* The controller's summary in the metrics record (docs/predictive.md "The records"). */
static struct json *metrics_block(struct arena *a, const struct json *hdr, const struct json *report)
{
	static const char *const keys[] = { "controller_id", "controller_fingerprint", "update_count", "total_runtime_update_count",
		"evidence_window_seconds", "eta", "spot_quota_gpus", "forecast_evaluation", "information_boundary", NULL };
	/* the tenant family adds its estimator, the scoring sums (to pool windows exactly)
	 * and the starvation diagnostic */
	static const char *const tenant_keys[] = { "estimator", "forecast_evaluation_sums", "admission_diagnostics", NULL };
	struct json *pcb = json_object(a);
	json_set(a, pcb, "available", json_bool(a, true));
	for (const char *const *k = keys; *k; k++)
		json_set(a, pcb, *k, json_clone(a, json_get(report, *k)));
	for (const char *const *k = tenant_keys; tenant_family(hdr) && *k; k++)
		if (json_get(report, *k))
			json_set(a, pcb, *k, json_clone(a, json_get(report, *k)));
	return pcb;
}

static const char *const counted[] = { "control_decision", NULL };

const struct result_ext pc_control_records = {
	.counted = counted,
	.summary = "control_report",
	.count = count,
	.check = check,
	.missing = missing,
	.metrics_key = "predictive_control",
	.metrics_block = metrics_block,
};
