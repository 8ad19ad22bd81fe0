#include "roll/config.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const roll_field_names[RF_COUNT] = {
	"scheduler", "spot_guarantee_seconds", "checkpoint_interval_seconds", "hp_preemption_delay_seconds",
	"spot_eviction_budget_rate", "preemption_victim_strategy", "predictive_admission_mode",
};

static int fail(char *err, size_t errlen, const char *path, const char *msg)
{
	snprintf(err, errlen, "%s: %s", path, msg);
	return -1;
}

bool roll_id_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!p || !*p)
		return false;
	while (*p) {
		unsigned c = *p;
		int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
		if (c < 0x20 || c == 0x7F || extra < 0 || (c >= 0x80 && c < 0xC2) || c > 0xF4)
			return false;
		if (extra == 0 && c >= 0x80)
			return false;
		unsigned cp = extra == 0 ? c : c & (0x3F >> extra);
		p++;
		for (int i = 0; i < extra; i++, p++) {
			if ((*p & 0xC0) != 0x80)
				return false;
			cp = cp << 6 | (*p & 0x3F);
		}
		if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
		if (cp >= 0x80 && cp < 0xA0)   /* C1 controls */
			return false;
	}
	return true;
}

int roll_json_load(const char *path, struct arena *a, struct json **out, char *err, size_t errlen)
{
	if (json_parse_file(a, path, out, err, errlen))
		return -1;
	if ((*out)->kind != JSON_OBJECT)
		return fail(err, errlen, path, "not a JSON object");
	return 0;
}

/* The first existing ancestor-directory candidate dir/ref of from_file, or NULL. */
static const char *walk_up(struct arena *a, const char *ref, const char *from_file)
{
	char *dir = arena_strndup(a, from_file, strlen(from_file));
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
		size_t need = strlen(dir) + strlen(ref) + 2;
		char *cand = arena_alloc(a, need);
		snprintf(cand, need, "%s/%s", *dir ? dir : "", ref);
		if (access(cand, F_OK) == 0)
			return cand;
	}
}

const char *roll_resolve_path(struct arena *a, const char *ref, const char *from_file)
{
	if (ref[0] == '/' || access(ref, F_OK) == 0 || !from_file)
		return ref;
	const char *found = walk_up(a, ref, from_file);
	/* A copied configs tree under another name (schednav-mcp --configs DIR): the
	 * shipped files name each other as "configs/...", so look the rest up in its
	 * ancestors too. */
	if (!found && !strncmp(ref, "configs/", 8) && ref[8])
		found = walk_up(a, ref + 8, from_file);
	return found ? found : ref;
}

static const char *str_key(const struct json *doc, const char *key, bool required, char *e, size_t elen)
{
	struct json *v = json_get(doc, key);
	if (!v) {
		if (required)
			snprintf(e, elen, "missing key '%s'", key);
		return NULL;
	}
	if (v->kind != JSON_STRING || !roll_id_ok(v->u.str.s) || strlen(v->u.str.s) != v->u.str.len) {
		snprintf(e, elen, "'%s' must be a non-empty string without control characters", key);
		return NULL;
	}
	return v->u.str.s;
}

static int int_key(const struct json *doc, const char *key, long long lo, long long hi, long long *out, char *e, size_t elen)
{
	struct json *v = json_get(doc, key);
	if (!v) {
		snprintf(e, elen, "missing key '%s'", key);
		return -1;
	}
	if (v->kind != JSON_INT || v->u.i < lo || v->u.i > hi) {
		snprintf(e, elen, "'%s' must be an integer in [%lld, %lld]", key, lo, hi);
		return -1;
	}
	*out = v->u.i;
	return 0;
}

int roll_config_load(struct roll_config *c, const char *path, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "controller_id", "description", "decision_interval_seconds",
		"minimum_action_hold_seconds", "scenario_horizon_seconds", "history_window_seconds", "candidate_budget",
		"scenario_set_id", "action_space", "safety_action_id", "slo", "queue_guard_constraint_id", "fixes", "inner_predictor", NULL };
	char e[300];
	memset(c, 0, sizeof *c);
	c->path = path;
	if (roll_json_load(path, a, &c->doc, err, errlen))
		return -1;
	const struct json *d = c->doc;
	if (nd_check_keys(d, ND_KEYS(keys), e, sizeof e))
		return fail(err, errlen, path, e);
	const char *schema = str_key(d, "schema_version", true, e, sizeof e);
	if (!schema)
		return fail(err, errlen, path, e);
	if (!nd_schema_is(schema, ROLL_CONFIG_SCHEMA)) {
		snprintf(e, sizeof e, "unsupported schema_version '%s' (expected '%s')", schema, ROLL_CONFIG_SCHEMA);
		return fail(err, errlen, path, e);
	}
	/* the fingerprint hashes the document: it holds the new spelling whichever was read, so
	 * a config in the old one has the same fingerprint (docs/design.md "Schema ids") */
	json_set(a, c->doc, "schema_version", json_str(a, ROLL_CONFIG_SCHEMA));
	long long budget;
	if (!(c->controller_id = str_key(d, "controller_id", true, e, sizeof e)) ||
	    int_key(d, "decision_interval_seconds", 1, 86400 * 366, &c->interval, e, sizeof e) ||
	    int_key(d, "minimum_action_hold_seconds", 0, 86400 * 366, &c->hold, e, sizeof e) ||
	    int_key(d, "scenario_horizon_seconds", 1, 86400 * 366, &c->horizon, e, sizeof e) ||
	    int_key(d, "history_window_seconds", 1, 86400 * 366, &c->history, e, sizeof e) ||
	    int_key(d, "candidate_budget", 3, 5, &budget, e, sizeof e))
		return fail(err, errlen, path, e);
	c->budget = (int)budget;
	if (c->history < c->horizon)
		return fail(err, errlen, path, "'history_window_seconds' must cover 'scenario_horizon_seconds'");
	if (!(c->scenario_set_id = str_key(d, "scenario_set_id", true, e, sizeof e)))
		return fail(err, errlen, path, e);
	if (!strcmp(c->scenario_set_id, ROLL_SET_DUAL_ID))
		c->dual = true;
	else if (strcmp(c->scenario_set_id, ROLL_SET_SINGLE_ID)) {
		snprintf(e, sizeof e, "unknown scenario_set_id '%s' (expected '%s' or '%s')", c->scenario_set_id, ROLL_SET_SINGLE_ID, ROLL_SET_DUAL_ID);
		return fail(err, errlen, path, e);
	}
	const char *space = str_key(d, "action_space", true, e, sizeof e), *slo;
	if (!space || !(slo = str_key(d, "slo", true, e, sizeof e)) || !(c->safety_id = str_key(d, "safety_action_id", true, e, sizeof e)))
		return fail(err, errlen, path, e);
	c->action_space_path = roll_resolve_path(a, space, path);
	c->slo_path = roll_resolve_path(a, slo, path);
	if (json_get(d, "inner_predictor")) {
		const char *ip = str_key(d, "inner_predictor", true, e, sizeof e);
		if (!ip)
			return fail(err, errlen, path, e);
		c->inner_predictor_path = roll_resolve_path(a, ip, path);
	}
	c->queue_guard_id = "hp-p95-queue-seconds";
	if (json_get(d, "queue_guard_constraint_id") && !(c->queue_guard_id = str_key(d, "queue_guard_constraint_id", true, e, sizeof e)))
		return fail(err, errlen, path, e);
	struct json *desc = json_get(d, "description"), *fixes = json_get(d, "fixes");
	if (desc && desc->kind != JSON_STRING)
		return fail(err, errlen, path, "'description' must be a string");
	if (fixes && fixes->kind != JSON_ARRAY)
		return fail(err, errlen, path, "'fixes' must be an array of strings");
	for (size_t i = 0; fixes && i < fixes->u.arr.n; i++)
		if (fixes->u.arr.items[i]->kind != JSON_STRING)
			return fail(err, errlen, path, "'fixes' must be an array of strings");
	ev_sorted_fp(d, c->fingerprint);
	return 0;
}

/* The effective value of control field f of p, as JSON. */
static struct json *field_value(struct arena *a, const struct sim_policy *p, enum roll_field f)
{
	switch (f) {
	case RF_SCHEDULER: return json_str(a, policy_scheduler_name(p->scheduler));
	case RF_GUARANTEE: return json_int(a, p->guarantee_seconds);
	case RF_CHECKPOINT: return json_int(a, p->checkpoint_seconds);
	case RF_DELAY: return json_int(a, p->hp_delay_seconds);
	case RF_BUDGET: return p->has_budget ? json_real(a, p->budget) : json_null(a);
	case RF_VICTIM: return json_str(a, policy_victim_name(p->victim_order));
	default: return json_str(a, roll_bypass(p) ? "bypass" : "enforce");
	}
}

static bool field_differs(const struct sim_policy *x, const struct sim_policy *y, enum roll_field f)
{
	switch (f) {
	case RF_SCHEDULER: return x->scheduler != y->scheduler;
	case RF_GUARANTEE: return x->guarantee_seconds != y->guarantee_seconds;
	case RF_CHECKPOINT: return x->checkpoint_seconds != y->checkpoint_seconds;
	case RF_DELAY: return x->hp_delay_seconds != y->hp_delay_seconds;
	case RF_BUDGET: return x->has_budget != y->has_budget || (x->has_budget && x->budget != y->budget);
	case RF_VICTIM: return x->victim_order != y->victim_order;
	default: return roll_bypass(x) != roll_bypass(y);
	}
}

struct json *roll_control_profile(struct arena *a, const struct sim_policy *p)
{
	struct json *o = json_object(a);
	json_set(a, o, "action_id", json_str(a, p->action_id));
	for (int f = 0; f < RF_COUNT; f++)
		json_set(a, o, roll_field_names[f], field_value(a, p, (enum roll_field)f));
	return o;
}

int roll_control_distance(const struct roll_catalog *cat, const struct sim_policy *x, const struct sim_policy *y)
{
	int d = 0;
	for (int f = 0; f < RF_COUNT; f++)
		if (cat->controlled[f] && field_differs(x, y, (enum roll_field)f))
			d++;
	return d;
}

const struct sim_policy *roll_catalog_find(const struct roll_catalog *cat, const char *id)
{
	int i = roll_catalog_index(cat, id);
	return i < 0 ? NULL : &cat->actions[i];
}

int roll_catalog_index(const struct roll_catalog *cat, const char *id)
{
	for (size_t i = 0; id && i < cat->n; i++)
		if (!strcmp(cat->actions[i].action_id, id))
			return (int)i;
	return -1;
}

bool roll_bypass(const struct sim_policy *p)
{
	return p->admission == ADMISSION_BYPASS;
}

int roll_catalog_load(struct roll_catalog *cat, const char *path, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "name", "safety_baseline_action_id", "controlled_fields",
		"fixed_execution_controls", "profiles", "forbidden", NULL };
	static const char *const fixed_keys[] = { "preemption_overhead_seconds", "placement_strategy", "predictive_model",
		"predictive_model_switching", NULL };
	char e[600];
	struct json *d;
	memset(cat, 0, sizeof *cat);
	if (roll_json_load(path, a, &d, err, errlen))
		return -1;
	if (nd_check_keys(d, ND_KEYS(keys), e, sizeof e))
		return fail(err, errlen, path, e);
	const char *schema = str_key(d, "schema_version", true, e, sizeof e);
	if (!schema)
		return fail(err, errlen, path, e);
	if (!nd_schema_is(schema, ROLL_ACTION_SPACE_SCHEMA)) {
		snprintf(e, sizeof e, "unsupported schema_version '%s' (expected '%s')", schema, ROLL_ACTION_SPACE_SCHEMA);
		return fail(err, errlen, path, e);
	}
	json_set(a, d, "schema_version", json_str(a, ROLL_ACTION_SPACE_SCHEMA));   /* as in roll_config_load */
	if (!(cat->name = str_key(d, "name", true, e, sizeof e)) || !(cat->safety_id = str_key(d, "safety_baseline_action_id", true, e, sizeof e)))
		return fail(err, errlen, path, e);
	struct json *cf = json_get(d, "controlled_fields");
	if (!cf || cf->kind != JSON_ARRAY || cf->u.arr.n == 0)
		return fail(err, errlen, path, "'controlled_fields' must be a non-empty array");
	for (size_t i = 0; i < cf->u.arr.n; i++) {
		struct json *v = cf->u.arr.items[i];
		int f = 0;
		while (f < RF_COUNT && !(v->kind == JSON_STRING && !strcmp(v->u.str.s, roll_field_names[f])))
			f++;
		if (f == RF_COUNT || cat->controlled[f]) {
			snprintf(e, sizeof e, "controlled_fields[%zu] is not a known control field or repeats one", i);
			return fail(err, errlen, path, e);
		}
		cat->controlled[f] = true;
	}
	struct json *fx = json_get(d, "fixed_execution_controls");
	if (!fx || fx->kind != JSON_OBJECT)
		return fail(err, errlen, path, "'fixed_execution_controls' must be an object");
	if (nd_check_keys(fx, ND_KEYS(fixed_keys), e, sizeof e))
		return fail(err, errlen, path, e);
	struct json *fb = json_get(d, "forbidden");
	if (fb && fb->kind != JSON_ARRAY)
		return fail(err, errlen, path, "'forbidden' must be an array");
	struct json *pr = json_get(d, "profiles");
	if (!pr || pr->kind != JSON_ARRAY || pr->u.arr.n < 1 || pr->u.arr.n > ROLL_MAX_CATALOG) {
		snprintf(e, sizeof e, "'profiles' must be an array of 1 to %d policy paths", ROLL_MAX_CATALOG);
		return fail(err, errlen, path, e);
	}
	for (size_t i = 0; i < pr->u.arr.n; i++) {
		struct json *v = pr->u.arr.items[i];
		if (v->kind != JSON_STRING || !roll_id_ok(v->u.str.s))
			return fail(err, errlen, path, "'profiles' must hold policy file paths");
		const char *pp = roll_resolve_path(a, v->u.str.s, path);
		struct sim_policy *p = &cat->actions[i];
		if (policy_load(p, pp, a, e, sizeof e))
			return fail(err, errlen, path, e);
		if (!roll_id_ok(p->action_id)) {
			snprintf(e, sizeof e, "%s: action_id must not contain control characters", pp);
			return fail(err, errlen, path, e);
		}
		if (roll_catalog_index(cat, p->action_id) >= 0) {
			snprintf(e, sizeof e, "duplicate action id '%s'", p->action_id);
			return fail(err, errlen, path, e);
		}
		struct json *ov = json_get(fx, "preemption_overhead_seconds"), *pl = json_get(fx, "placement_strategy");
		/* issue 36: every action places as the fixed control says (else as the first action):
		 * a session's placement model cannot change (docs/simulator.md §3.13) */
		const char *place = policy_placement_name(p->placement);
		if ((ov && !(ov->kind == JSON_INT && ov->u.i == p->overhead_seconds)) ||
		    (pl && !(pl->kind == JSON_STRING && !strcmp(pl->u.str.s, place))) ||
		    (i > 0 && (p->placement != cat->actions[0].placement || p->placement_seed != cat->actions[0].placement_seed))) {
			snprintf(e, sizeof e, "action '%s' does not keep the fixed execution controls", p->action_id);
			return fail(err, errlen, path, e);
		}
		cat->paths[i] = pp;
		cat->n = i + 1;
	}
	const struct sim_policy *safety = roll_catalog_find(cat, cat->safety_id);
	if (!safety) {
		snprintf(e, sizeof e, "safety action '%s' is not one of the profiles", cat->safety_id);
		return fail(err, errlen, path, e);
	}
	if (safety->scheduler != SCHED_FIFO || (strcmp(safety->action_id, "native-fifo") && !roll_bypass(safety))) {
		snprintf(e, sizeof e, "safety action '%s' must be FIFO (FIFO + bypass unless it is native-fifo)", cat->safety_id);
		return fail(err, errlen, path, e);
	}
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, d);
	for (size_t i = 0; i < cat->n; i++)
		sb_addf(&sb, "\n%s", cat->actions[i].fingerprint);
	fp_xxh3_of(sb.buf, sb.len, cat->fingerprint);
	sb_release(&sb);
	return 0;
}
