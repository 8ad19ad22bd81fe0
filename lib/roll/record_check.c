/* The rolling records of an arm's result stream (see record_check.h). */
#include "roll/record_check.h"
#include <stdio.h>

/* The rolling_report keys metrics carries into rolling_control (roll(1)), checked for kind. */
static const char *const rolling_keys[] = { "controller_id", "controller_fingerprint", "arm_id", "decider_kind", "deployable",
	"non_deployable", "decision_count", "expected_decision_count", "candidate_budget_per_decision", "baseline_action_id",
	"candidate_scenario_set_id", "candidate_simulation_count", "llm_usage", "rejected_reply_count", "minimum_hold_override_count",
	"selected_action_sequence", "report_fingerprint", NULL };

static int check(const struct json *hdr, const struct json *v, char *why, size_t whylen)
{
	static const char *const strs[] = { "controller_id", "controller_fingerprint", "arm_id", "decider_kind", "baseline_action_id",
		"candidate_scenario_set_id", "report_fingerprint", NULL };
	static const char *const counts[] = { "decision_count", "expected_decision_count", "candidate_budget_per_decision",
		"candidate_simulation_count", "rejected_reply_count", "minimum_hold_override_count", NULL };
	const char *bad = NULL;
	for (const char *const *k = strs; !bad && *k; k++)
		if (!json_get(v, *k) || json_get(v, *k)->kind != JSON_STRING)
			bad = "rolling_report: ids and fingerprints must be strings";
	for (const char *const *k = counts; !bad && *k; k++)
		if (!json_has_count(v, *k))
			bad = "rolling_report: counts must be non-negative integers";
	const struct json *u = json_get(v, "llm_usage"), *seq = json_get(v, "selected_action_sequence");
	if (!bad && (!json_has_bool(v, "deployable") || !json_has_bool(v, "non_deployable")))
		bad = "rolling_report: 'deployable' and 'non_deployable' must be booleans";
	if (!bad && (!u || u->kind != JSON_OBJECT || !json_has_count(u, "call_count") || !json_has_count(u, "prompt_tokens") ||
		     !json_has_count(u, "completion_tokens")))
		bad = "rolling_report: 'llm_usage' must hold three counts";
	if (!bad && (!seq || seq->kind != JSON_ARRAY))
		bad = "rolling_report: 'selected_action_sequence' must be an array";
	if (bad) {
		snprintf(why, whylen, "%s", bad);
		return -1;
	}
	return 0;
}

static const char *missing(const struct json *hdr, bool counted)
{
	return counted ? "result stream with rolling records has no rolling_report record" : NULL;
}

/* The rolling controller's summary in the metrics record (roll(1)). */
static struct json *metrics_block(struct arena *a, const struct json *hdr, const struct json *report)
{
	struct json *rcb = json_object(a);
	json_set(a, rcb, "available", json_bool(a, true));
	for (const char *const *k = rolling_keys; *k; k++)
		json_set(a, rcb, *k, json_clone(a, json_get(report, *k)));
	return rcb;
}

/* roll's decision records: read by report, only counted here */
static const char *const counted[] = { "rolling_observation", "scenario", "candidate_evidence", "rolling_decision", NULL };

const struct result_ext roll_rolling_records = {
	.counted = counted,
	.summary = "rolling_report",
	.check = check,
	.missing = missing,
	.metrics_key = "rolling_control",
	.metrics_block = metrics_block,
};
