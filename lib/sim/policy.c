#include "sim/policy.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const policy_keys[] = { "schema_version", "action_id", "scheduler", "spot_guarantee_seconds",
	"checkpoint_interval_seconds", "preemption_overhead_seconds", "placement_strategy", "hp_preemption_delay_seconds",
	"spot_eviction_budget_rate", "preemption_victim_strategy", "predictive_admission_mode", NULL };

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

int policy_from_json(struct sim_policy *p, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	const char *s;
	memset(p, 0, sizeof *p);
	if (!doc || doc->kind != JSON_OBJECT) {
		snprintf(err, errlen, "policy must be a JSON object");
		return -1;
	}
	for (size_t i = 0; i < doc->u.obj.n; i++) {
		const char *const *k = policy_keys;
		while (*k && strcmp(*k, doc->u.obj.keys[i]))
			k++;
		if (!*k) {
			snprintf(err, errlen, "unknown key '%s'", doc->u.obj.keys[i]);
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
	if (!(s = get_string(doc, "scheduler", err, errlen)))
		return -1;
	if (!strcmp(s, "fifo"))
		p->scheduler = SCHED_FIFO;
	else if (!strcmp(s, "priority_preemptive"))
		p->scheduler = SCHED_PRIORITY_PREEMPTIVE;
	else {
		snprintf(err, errlen, "unknown scheduler '%s' (want 'fifo' or 'priority_preemptive')", s);
		return -1;
	}
	if (get_seconds(doc, "spot_guarantee_seconds", true, 0, &p->guarantee_seconds, err, errlen) ||
	    get_seconds(doc, "checkpoint_interval_seconds", true, 0, &p->checkpoint_seconds, err, errlen) ||
	    get_seconds(doc, "preemption_overhead_seconds", true, 0, &p->overhead_seconds, err, errlen) ||
	    get_seconds(doc, "hp_preemption_delay_seconds", false, 0, &p->hp_delay_seconds, err, errlen))
		return -1;
	if (p->guarantee_seconds < 0) {
		snprintf(err, errlen, "'spot_guarantee_seconds' must be >= 0");
		return -1;
	}
	if (p->checkpoint_seconds <= 0) {
		snprintf(err, errlen, "'checkpoint_interval_seconds' must be > 0");
		return -1;
	}
	if (p->overhead_seconds < 0) {
		snprintf(err, errlen, "'preemption_overhead_seconds' must be >= 0");
		return -1;
	}
	if (p->hp_delay_seconds < 0) {
		snprintf(err, errlen, "'hp_preemption_delay_seconds' must be >= 0");
		return -1;
	}
	/* the trace model's time bound: sums of policy seconds and trace times stay exact */
	const long long *secs[] = { &p->guarantee_seconds, &p->checkpoint_seconds, &p->overhead_seconds, &p->hp_delay_seconds };
	static const char *const names[] = { "spot_guarantee_seconds", "checkpoint_interval_seconds", "preemption_overhead_seconds",
		"hp_preemption_delay_seconds" };
	for (int i = 0; i < 4; i++)
		if (*secs[i] > POLICY_MAX_SECONDS) {
			snprintf(err, errlen, "'%s' must be at most %lld", names[i], POLICY_MAX_SECONDS);
			return -1;
		}
	if (!(s = get_string(doc, "placement_strategy", err, errlen)))
		return -1;
	if (strcmp(s, "deterministic_best_fit")) {
		snprintf(err, errlen, "unknown placement_strategy '%s' (want 'deterministic_best_fit')", s);
		return -1;
	}
	struct json *b = json_get(doc, "spot_eviction_budget_rate");
	if (b && b->kind != JSON_NULL) {
		if (!json_is_num(b) || !isfinite(json_num(b))) {
			snprintf(err, errlen, "'spot_eviction_budget_rate' must be a number or null");
			return -1;
		}
		p->has_budget = true;
		p->budget = json_num(b);
		if (!(p->budget >= 0 && p->budget <= 1)) {
			snprintf(err, errlen, "'spot_eviction_budget_rate' must be in [0, 1], not %.17g", p->budget);
			return -1;
		}
	}
	p->victim_order = VICTIM_LONGEST_REMAINING;
	if (json_get(doc, "preemption_victim_strategy")) {
		if (!(s = get_string(doc, "preemption_victim_strategy", err, errlen)))
			return -1;
		if (!strcmp(s, "lowest_checkpoint_loss"))
			p->victim_order = VICTIM_LOWEST_CHECKPOINT_LOSS;
		else if (strcmp(s, "longest_remaining")) {
			snprintf(err, errlen, "unknown preemption_victim_strategy '%s'", s);
			return -1;
		}
	}
	p->admission = ADMISSION_ENFORCE;
	if (json_get(doc, "predictive_admission_mode")) {
		if (!(s = get_string(doc, "predictive_admission_mode", err, errlen)))
			return -1;
		if (!strcmp(s, "bypass"))
			p->admission = ADMISSION_BYPASS;
		else if (strcmp(s, "enforce")) {
			snprintf(err, errlen, "unknown predictive_admission_mode '%s' (want 'enforce' or 'bypass')", s);
			return -1;
		}
	}
	/* Canonical dict: required keys, then optional keys only when not default. */
	struct json *c = json_object(a);
	json_set(a, c, "action_id", json_str(a, p->action_id));
	json_set(a, c, "scheduler", json_str(a, policy_scheduler_name(p->scheduler)));
	json_set(a, c, "spot_guarantee_seconds", json_int(a, p->guarantee_seconds));
	json_set(a, c, "checkpoint_interval_seconds", json_int(a, p->checkpoint_seconds));
	json_set(a, c, "preemption_overhead_seconds", json_int(a, p->overhead_seconds));
	json_set(a, c, "placement_strategy", json_str(a, "deterministic_best_fit"));
	if (p->hp_delay_seconds != 0)
		json_set(a, c, "hp_preemption_delay_seconds", json_int(a, p->hp_delay_seconds));
	if (p->has_budget)
		json_set(a, c, "spot_eviction_budget_rate", json_real(a, p->budget));
	if (p->victim_order != VICTIM_LONGEST_REMAINING)
		json_set(a, c, "preemption_victim_strategy", json_str(a, policy_victim_name(p->victim_order)));
	if (p->admission != ADMISSION_ENFORCE)
		json_set(a, c, "predictive_admission_mode", json_str(a, policy_admission_name(p->admission)));
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
	char perr[512];
	struct json *doc;
	if (json_parse_file(a, path, &doc, err, errlen))
		return -1;
	if (policy_from_json(p, doc, a, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	return 0;
}
