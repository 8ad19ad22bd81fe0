#include "sim/policy.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/text.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *policy_scheduler_name(enum sim_scheduler s)
{
	return s == SCHED_FIFO ? "fifo" : "priority_preemptive";
}

const char *policy_victim_name(enum sim_victim_order v)
{
	return v == VICTIM_LONGEST_REMAINING ? "longest_remaining" : "lowest_checkpoint_loss";
}

const char *policy_admission_name(enum sim_admission m)
{
	return m == ADMISSION_ENFORCE ? "enforce" : "bypass";
}

const char *policy_backfill_name(enum sim_backfill b)
{
	return b == BACKFILL_NONE ? "none" : b == BACKFILL_EASY ? "easy" : "conservative";
}

static const char *get_string(const struct json *doc, const char *key, char *err, size_t errlen)
{
	struct json *v = json_get(doc, key);
	if (!v) {
		snprintf(err, errlen, "missing required key '%s'", key);
		return NULL;
	}
	if (v->kind != JSON_STRING) {
		snprintf(err, errlen, "'%s' must be a string", key);
		return NULL;
	}
	return v->u.str.s;
}

/* Whole seconds: an integer, or a float with an integral value (3600.0). */
static int get_seconds(const struct json *doc, const char *key, bool required, long long def, long long *out, char *err, size_t errlen)
{
	struct json *v = json_get(doc, key);
	if (!v) {
		if (required) {
			snprintf(err, errlen, "missing required key '%s'", key);
			return -1;
		}
		*out = def;
		return 0;
	}
	if (v->kind == JSON_INT) {
		*out = v->u.i;
		return 0;
	}
	if (v->kind == JSON_REAL) {
		double d = v->u.d;
		if (!isfinite(d) || fabs(d) > 9e15) {
			snprintf(err, errlen, "'%s' is out of range", key);
			return -1;
		}
		if (d != floor(d)) {
			snprintf(err, errlen, "'%s' must be a whole number of seconds, not %.17g (the original truncated it)", key, d);
			return -1;
		}
		*out = (long long)d;
		return 0;
	}
	snprintf(err, errlen, "'%s' must be a number", key);
	return -1;
}

/*
 * The knobs: one row each, in the order their errors are reported (a run of seconds knobs is
 * parsed together, then range-checked, then bound-checked, as the original did) and, required
 * ones first, the order of the canonical dict. A new knob is its field in policy.h and one
 * row here; the simulator code that reads it and the records that echo it are its own.
 */
enum knob_kind { KNOB_CHOICE, KNOB_SECONDS, KNOB_RATE };

struct knob {
	const char *key;
	enum knob_kind kind;
	bool required;
	size_t offset;                /* the field: an enum (CHOICE), long long (SECONDS); RATE: has_budget, budget */
	const char *const *choices;   /* CHOICE: the names, the enum's values in order (the first is the default) */
	const char *want;             /* CHOICE: what the unknown-name message adds */
	long long least;              /* SECONDS: 0 (">= 0") or 1 ("> 0") */
};

static const char *const schedulers[] = { "fifo", "priority_preemptive", NULL };
/* issue 36: the pool model, then the physical model's lib/place policies (enum sim_placement) */
static const char *const placements[] = { "deterministic_best_fit", "largest-free", "random", "dot-product", "gpu-clustering",
					  "gpu-packing", "best-fit", "fgd", NULL };

const char *policy_placement_name(enum sim_placement m)
{
	return placements[m];
}
static const char *const victims[] = { "longest_remaining", "lowest_checkpoint_loss", NULL };
static const char *const admissions[] = { "enforce", "bypass", NULL };
static const char *const backfills[] = { "none", "easy", "conservative", NULL };
static const char *const bf_reservations[] = { "jobs", "whole_nodes", NULL };
static const char *const bf_roundings[] = { "rounded_up", "slurm", NULL };

#define FIELD(f) offsetof(struct sim_policy, f)
static const struct knob knobs[] = {
	{ "scheduler", KNOB_CHOICE, true, FIELD(scheduler), schedulers, " (want 'fifo' or 'priority_preemptive')", 0 },
	{ "spot_guarantee_seconds", KNOB_SECONDS, true, FIELD(guarantee_seconds), NULL, NULL, 0 },
	{ "checkpoint_interval_seconds", KNOB_SECONDS, true, FIELD(checkpoint_seconds), NULL, NULL, 1 },
	{ "preemption_overhead_seconds", KNOB_SECONDS, true, FIELD(overhead_seconds), NULL, NULL, 0 },
	{ "hp_preemption_delay_seconds", KNOB_SECONDS, false, FIELD(hp_delay_seconds), NULL, NULL, 0 },
	{ "placement_strategy", KNOB_CHOICE, true, FIELD(placement), placements,
	  " (want 'deterministic_best_fit', 'largest-free', 'random', 'dot-product', 'gpu-clustering', 'gpu-packing', 'best-fit' or 'fgd')", 0 },
	{ "spot_eviction_budget_rate", KNOB_RATE, false, 0, NULL, NULL, 0 },
	{ "preemption_victim_strategy", KNOB_CHOICE, false, FIELD(victim_order), victims, "", 0 },
	{ "predictive_admission_mode", KNOB_CHOICE, false, FIELD(admission), admissions, " (want 'enforce' or 'bypass')", 0 },
	/* issue 37 */
	{ "backfill", KNOB_CHOICE, false, FIELD(backfill), backfills, " (want 'none', 'easy' or 'conservative')", 0 },
	{ "backfill_default_time_limit_seconds", KNOB_SECONDS, false, FIELD(bf_default_limit), NULL, NULL, 0 },
	{ "backfill_window_seconds", KNOB_SECONDS, false, FIELD(bf_window), NULL, NULL, 0 },
	{ "backfill_resolution_seconds", KNOB_SECONDS, false, FIELD(bf_resolution), NULL, NULL, 0 },
	{ "backfill_max_job_test", KNOB_SECONDS, false, FIELD(bf_max_job_test), NULL, NULL, 0 },
	{ "backfill_interval_seconds", KNOB_SECONDS, false, FIELD(bf_interval), NULL, NULL, 0 },
	/* issue 36: a whole number >= 0 (read as the seconds knobs are), left out at 0 */
	{ "placement_seed", KNOB_SECONDS, false, FIELD(placement_seed), NULL, NULL, 0 },
	{ "backfill_reservation", KNOB_CHOICE, false, FIELD(bf_reservation), bf_reservations, " (want 'jobs' or 'whole_nodes')", 0 },
	{ "backfill_plan_times", KNOB_CHOICE, false, FIELD(bf_rounding), bf_roundings, " (want 'rounded_up' or 'slurm')", 0 },
	{ "backfill_resolution_phase_seconds", KNOB_SECONDS, false, FIELD(bf_res_phase), NULL, NULL, 0 },
};
#define N_KNOBS (sizeof knobs / sizeof *knobs)

/* An enum field by offset: every enum of struct sim_policy is an int-sized enum. */
_Static_assert(sizeof(enum sim_scheduler) == sizeof(int) && sizeof(enum sim_victim_order) == sizeof(int) &&
	       sizeof(enum sim_admission) == sizeof(int) && sizeof(enum sim_backfill) == sizeof(int) &&
	       sizeof(enum sim_placement) == sizeof(int) && sizeof(enum sim_bf_reservation) == sizeof(int) &&
	       sizeof(enum sim_bf_rounding) == sizeof(int), "a CHOICE knob's field is an int");
static int *choice_field(struct sim_policy *p, const struct knob *k)
{
	return k->offset ? (int *)(void *)((char *)p + k->offset) : NULL;
}

static long long *seconds_field(struct sim_policy *p, const struct knob *k)
{
	return (long long *)(void *)((char *)p + k->offset);
}

static int parse_choice(struct sim_policy *p, const struct knob *k, const struct json *doc, char *err, size_t errlen)
{
	const char *s;
	if (!k->required && !json_get(doc, k->key))
		return 0;   /* the default, the first name */
	if (!(s = get_string(doc, k->key, err, errlen)))
		return -1;
	for (int i = 0; k->choices[i]; i++)
		if (!strcmp(s, k->choices[i])) {
			if (choice_field(p, k))
				*choice_field(p, k) = i;
			return 0;
		}
	snprintf(err, errlen, "unknown %s '%s'%s", k->key, s, k->want);
	return -1;
}

static int parse_rate(struct sim_policy *p, const struct knob *k, const struct json *doc, char *err, size_t errlen)
{
	struct json *b = json_get(doc, k->key);
	if (!b || b->kind == JSON_NULL)
		return 0;
	if (!json_is_num(b) || !isfinite(json_num(b))) {
		snprintf(err, errlen, "'%s' must be a number or null", k->key);
		return -1;
	}
	p->has_budget = true;
	p->budget = json_num(b);
	if (!(p->budget >= 0 && p->budget <= 1)) {
		snprintf(err, errlen, "'%s' must be in [0, 1], not %.17g", k->key, p->budget);
		return -1;
	}
	return 0;
}

/* The run of seconds knobs [k, end): each parsed, then each at least its least value, then
 * each within the trace model's time bound (sums of policy seconds and trace times stay exact). */
static int parse_seconds(struct sim_policy *p, const struct knob *k, const struct knob *end, const struct json *doc, char *err,
			 size_t errlen)
{
	for (const struct knob *x = k; x < end; x++)
		if (get_seconds(doc, x->key, x->required, 0, seconds_field(p, x), err, errlen))
			return -1;
	for (const struct knob *x = k; x < end; x++)
		if (*seconds_field(p, x) < x->least) {
			snprintf(err, errlen, "'%s' must be %s", x->key, x->least ? "> 0" : ">= 0");
			return -1;
		}
	for (const struct knob *x = k; x < end; x++)
		if (*seconds_field(p, x) > POLICY_MAX_SECONDS) {
			snprintf(err, errlen, "'%s' must be at most %lld", x->key, POLICY_MAX_SECONDS);
			return -1;
		}
	return 0;
}

static bool is_knob(const char *key)
{
	for (size_t i = 0; i < N_KNOBS; i++)
		if (!strcmp(knobs[i].key, key))
			return true;
	return false;
}

/* Whether k's value is its default (an optional knob left out of the canonical dict). */
static bool at_default(struct sim_policy *p, const struct knob *k)
{
	switch (k->kind) {
	case KNOB_CHOICE: return !choice_field(p, k) || *choice_field(p, k) == 0;
	case KNOB_SECONDS: return *seconds_field(p, k) == 0;
	case KNOB_RATE: return !p->has_budget;
	}
	return true;
}

static void canonical_knob(struct sim_policy *p, const struct knob *k, struct json *c, struct arena *a)
{
	switch (k->kind) {
	case KNOB_CHOICE: json_set(a, c, k->key, json_str(a, k->choices[choice_field(p, k) ? *choice_field(p, k) : 0])); break;
	case KNOB_SECONDS: json_set(a, c, k->key, json_int(a, *seconds_field(p, k))); break;
	case KNOB_RATE: json_set(a, c, k->key, json_real(a, p->budget)); break;
	}
}

int policy_from_json(struct sim_policy *p, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	const char *s;
	memset(p, 0, sizeof *p);
	if (!doc || doc->kind != JSON_OBJECT) {
		snprintf(err, errlen, "policy must be a JSON object");
		return -1;
	}
	for (size_t i = 0; i < doc->u.obj.n; i++) {
		const char *key = doc->u.obj.keys[i];
		if (strcmp(key, "schema_version") && strcmp(key, "action_id") && strcmp(key, "priority_multifactor") && !is_knob(key)) {
			snprintf(err, errlen, "unknown key '%s'", key);
			return -1;
		}
	}
	if (!(s = get_string(doc, "schema_version", err, errlen)))
		return -1;
	if (strcmp(s, POLICY_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema_version '%s' (want '%s')", s, POLICY_SCHEMA);
		return -1;
	}
	if (!(p->action_id = get_string(doc, "action_id", err, errlen)))
		return -1;
	if (!*p->action_id) {
		snprintf(err, errlen, "'action_id' must not be empty");
		return -1;
	}
	const char *why = text_id_problem(p->action_id, strlen(p->action_id));
	if (why) {
		char q[100];
		text_quote(q, sizeof q, p->action_id, strlen(p->action_id));
		snprintf(err, errlen, "'action_id' '%s' %s", q, why);
		return -1;
	}
	for (const struct knob *k = knobs; k < knobs + N_KNOBS;) {
		const struct knob *end = k + 1;
		int rc;
		if (k->kind == KNOB_SECONDS) {
			while (end < knobs + N_KNOBS && end->kind == KNOB_SECONDS)
				end++;
			rc = parse_seconds(p, k, end, doc, err, errlen);
		} else {
			rc = k->kind == KNOB_CHOICE ? parse_choice(p, k, doc, err, errlen) : parse_rate(p, k, doc, err, errlen);
		}
		if (rc)
			return -1;
		k = end;
	}
	if (p->placement_seed && p->placement == PLACEMENT_POOL) {   /* issue 36 */
		snprintf(err, errlen, "'placement_seed' seeds the physical node model: it needs a 'placement_strategy' other than "
			 "'deterministic_best_fit'");
		return -1;
	}
	if (p->bf_res_phase && p->bf_res_phase >= p->bf_resolution) {   /* issue 37 */
		snprintf(err, errlen, "'backfill_resolution_phase_seconds' (%lld) shifts the bf_resolution grid: it needs "
			 "'backfill_resolution_seconds' greater than it", p->bf_res_phase);
		return -1;
	}
	struct json *mfj = json_get(doc, "priority_multifactor");   /* issue 37 */
	if (mfj) {
		struct mf_config *mf = arena_alloc(a, sizeof *mf);
		if (sim_mf_parse(mfj, mf, a, err, errlen))
			return -1;
		if (p->backfill == BACKFILL_NONE) {
			snprintf(err, errlen, "'priority_multifactor' orders the backfill passes: it needs 'backfill' easy or conservative");
			return -1;
		}
		p->mf = mf;
	}
	/* Canonical dict: required keys, then optional keys only when not default. */
	struct json *c = json_object(a);
	json_set(a, c, "action_id", json_str(a, p->action_id));
	for (int required = 1; required >= 0; required--)
		for (const struct knob *k = knobs; k < knobs + N_KNOBS; k++)
			if (k->required == required && (required || !at_default(p, k)))
				canonical_knob(p, k, c, a);
	if (mfj)
		json_set(a, c, "priority_multifactor", json_clone(a, mfj));
	p->canonical = c;
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, c);
	fp_xxh3_of(sb.buf, sb.len, p->fingerprint);
	sb_release(&sb);
	return 0;
}

int policy_load(struct sim_policy *p, const char *path, struct arena *a, char *err, size_t errlen)
{
	return policy_load_placement(p, path, NULL, -1, a, err, errlen);
}

int policy_load_placement(struct sim_policy *p, const char *path, const char *placement, long long seed, struct arena *a, char *err,
			  size_t errlen)
{
	char perr[512];
	struct json *doc;
	if (json_parse_file(a, path, &doc, err, errlen))
		return -1;
	if (doc && doc->kind == JSON_OBJECT && placement)   /* issue 36: the caller's strategy (and seed) replace the file's */
		json_set(a, doc, "placement_strategy", json_str(a, placement));
	if (doc && doc->kind == JSON_OBJECT && seed >= 0)
		json_set(a, doc, "placement_seed", json_int(a, seed));
	if (policy_from_json(p, doc, a, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	return 0;
}
