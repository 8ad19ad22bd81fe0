/* issue 36: the physical model's placement records in a result stream (result.h,
 * docs/simulator.md §3.13): placement_sample records counted, the placement_summary checked
 * and carried into the metrics record's `placement` block. */
#include "sim/result_read.h"
#include <stdio.h>
#include <string.h>

/* Whether the header's canonical policy selects a physical placement_strategy. */
static bool physical(const struct json *hdr)
{
	const struct json *s = json_get(json_get(hdr, "policy"), "placement_strategy");
	return s && s->kind == JSON_STRING && strcmp(s->u.str.s, "deterministic_best_fit");
}

static int count(const struct json *hdr, const char *type, char *why, size_t whylen)
{
	if (!physical(hdr)) {
		snprintf(why, whylen, "%s in a result stream of the pool model (placement_strategy 'deterministic_best_fit')", type);
		return -1;
	}
	return 0;
}

static const char *const amounts[] = { "allocation_ratio_mean", "fragmented_gpus_mean", "fragmented_gpus_max", "fragmentation_ratio_mean",
	NULL };
static const char *const counts[] = { "placement_seed", "sample_count", "unplaced_fragmentation_job_count", "unplaced_capacity_job_count",
	NULL };

static int check(const struct json *hdr, const struct json *v, char *why, size_t whylen)
{
	const struct json *st = json_get(v, "placement_strategy"), *want = json_get(json_get(hdr, "policy"), "placement_strategy");
	const char *bad = NULL;
	if (!physical(hdr))
		bad = "placement_summary in a result stream of the pool model (placement_strategy 'deterministic_best_fit')";
	else if (!st || st->kind != JSON_STRING || !json_identical(st, want))
		bad = "placement_summary: placement_strategy must be the header policy's";
	for (const char *const *k = counts; !bad && *k; k++)
		if (!json_has_count(v, *k))
			bad = "placement_summary: counts must be non-negative integers";
	for (const char *const *k = amounts; !bad && *k; k++)
		if (!json_get(v, *k) || !json_is_num(json_get(v, *k)) || !(json_num(json_get(v, *k)) >= 0))
			bad = "placement_summary: means and amounts must be numbers >= 0";
	if (bad) {
		snprintf(why, whylen, "%s", bad);
		return -1;
	}
	return 0;
}

static const char *missing(const struct json *hdr, bool counted)
{
	return physical(hdr) ? "result stream of a physical placement_strategy has no placement_summary record" : NULL;
}

/* The metrics record's placement block: the summary without its type. */
static struct json *metrics_block(struct arena *a, const struct json *hdr, const struct json *sum)
{
	(void)hdr;
	struct json *b = json_object(a);
	json_set(a, b, "placement_strategy", json_clone(a, json_get(sum, "placement_strategy")));
	for (const char *const *k = counts; *k; k++)
		json_set(a, b, *k, json_clone(a, json_get(sum, *k)));
	for (const char *const *k = amounts; *k; k++)
		json_set(a, b, *k, json_clone(a, json_get(sum, *k)));
	return b;
}

static const char *const counted[] = { "placement_sample", NULL };

const struct result_ext sim_placement_records = {
	.counted = counted,
	.summary = "placement_summary",
	.count = count,
	.check = check,
	.missing = missing,
	.metrics_key = "placement",
	.metrics_block = metrics_block,
};
