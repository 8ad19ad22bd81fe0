/* The control records of a controlled run's result stream (see record_check.h). */
#include "predict/record_check.h"
#include "predict/predict.h"
#include <stdio.h>
#include <string.h>

/* The controller family of a controlled run, from the header's controller echo. */
static const struct pc_family *family_of(const struct pc_family *const *families, size_t n, const struct json *hdr)
{
	const struct json *c = json_get(hdr, "controller"), *sv = c ? json_get(c, "schema_version") : NULL;
	return pc_family_for_schema(families, n, sv && sv->kind == JSON_STRING ? sv->u.str.s : NULL);
}

static int count(const struct json *hdr, const char *type, char *why, size_t whylen)
{
	if (!json_get(hdr, "controller")) {
		snprintf(why, whylen, "control_decision in a result stream without a controller");
		return -1;
	}
	return 0;
}

/* The control_report keys metrics carries into predictive_control, checked for kind: what
 * every family's holds here, then what its family's own check_report adds
 * (docs/predictive.md "The records", docs/predictive-rules.md §2). */
int pc_report_check_in(const struct pc_family *const *families, size_t n, const struct json *hdr, const struct json *v, char *why,
		       size_t whylen)
{
	static const char *const objs[] = { "information_boundary", "evidence_window_seconds", "eta", "spot_quota_gpus", "forecast_evaluation", NULL };
	const struct json *id = json_get(v, "controller_id"), *fp = json_get(v, "controller_fingerprint");
	const char *bad = NULL;
	if (!json_get(hdr, "controller"))
		bad = "control_report in a result stream without a controller";
	else if (!id || id->kind != JSON_STRING || !fp || fp->kind != JSON_STRING || !json_identical(fp, json_get(hdr, "controller_fingerprint")))
		bad = "control_report: controller_id and controller_fingerprint must be strings matching the header";
	else if (!json_has_count(v, "update_count") || !json_has_count(v, "total_runtime_update_count"))
		bad = "control_report: update counts must be non-negative integers";
	for (const char *const *k = objs; !bad && *k; k++)
		if (!json_has_object(v, *k))
			bad = PC_REPORT_MISSING_BLOCK;
	if (!bad) {
		const struct pc_family *f = family_of(families, n, hdr);
		/* the family's missing block comes before a wrong kind of the common values, its
		 * own wrong kind after them */
		const char *own = f && f->check_report ? f->check_report(v) : NULL;
		const struct json *ib = json_get(v, "information_boundary"), *w = json_get(v, "evidence_window_seconds"),
				  *eta = json_get(v, "eta"), *q = json_get(v, "spot_quota_gpus"), *fe = json_get(v, "forecast_evaluation");
		bool ok = json_has_bool(ib, "forecast_scoring_occurs_after_target_observation") && json_has_num_or_null(w, "start") &&
			  json_has_num_or_null(w, "end") && json_has_num_or_null(eta, "initial") &&
			  json_has_num_or_null(eta, "minimum_observed") && json_has_num_or_null(eta, "maximum_observed") &&
			  json_has_num_or_null(q, "mean") && json_has_num_or_null(q, "minimum") && json_has_num_or_null(q, "maximum") &&
			  json_has_num_or_null(fe, "mae_gpus") && json_has_num_or_null(fe, "wape") && json_has_num_or_null(fe, "mean_error_gpus") &&
			  json_has_num_or_null(fe, "guarantee_quantile_coverage") && json_has_num_or_null(fe, "pinball_loss");
		bad = own && strcmp(own, PC_REPORT_WRONG_TYPE) ? own : !ok ? PC_REPORT_WRONG_TYPE : own;
	}
	if (bad) {
		snprintf(why, whylen, "%s", bad);
		return -1;
	}
	return 0;
}

static int check(const struct json *hdr, const struct json *v, char *why, size_t whylen)
{
	return pc_report_check_in(pc_families, pc_n_families, hdr, v, why, whylen);
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
	const struct pc_family *f = family_of(pc_families, pc_n_families, hdr);
	struct json *pcb = json_object(a);
	json_set(a, pcb, "available", json_bool(a, true));
	for (const char *const *k = keys; *k; k++)
		json_set(a, pcb, *k, json_clone(a, json_get(report, *k)));
	for (const char *const *k = f ? f->report_keys : NULL; k && *k; k++)   /* the family's own keys */
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
