/* Checked readers of controller config fields, shared by both controller families. */
#include "predict/internal.h"
#include "core/text.h"
#include "predict/predict.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int pcf_fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

int pcf_int(const struct json *v, const char *key, long long *out, char *err, size_t errlen)
{
	if (v->kind == JSON_INT)
		*out = v->u.i;
	else if (v->kind == JSON_REAL && isfinite(v->u.d) && v->u.d == floor(v->u.d) && fabs(v->u.d) < 9e15)
		*out = (long long)v->u.d;
	else {
		snprintf(err, errlen, "'%s' must be an integer", key);
		return -1;
	}
	return 0;
}

int pcf_real(const struct json *v, const char *key, double *out, char *err, size_t errlen)
{
	if (!json_is_num(v) || !isfinite(json_num(v))) {
		snprintf(err, errlen, "'%s' must be a finite number", key);
		return -1;
	}
	*out = json_num(v);
	return 0;
}

int pcf_bool(const struct json *v, const char *key, bool *out, char *err, size_t errlen)
{
	if (v->kind != JSON_TRUE && v->kind != JSON_FALSE) {
		snprintf(err, errlen, "'%s' must be true or false", key);
		return -1;
	}
	*out = v->kind == JSON_TRUE;
	return 0;
}

int pcf_str(const struct json *v, const char *key, const char **out, char *err, size_t errlen)
{
	if (v->kind != JSON_STRING || strlen(v->u.str.s) != v->u.str.len) {
		snprintf(err, errlen, "'%s' must be a string", key);
		return -1;
	}
	/* Every string of a controller config is an identifier (ids, model and calendar
	 * names) that can reach a result header, a page or a chart: the one identifier rule
	 * (an empty one is left to the field's own check). */
	const char *why = v->u.str.len ? text_id_problem(v->u.str.s, v->u.str.len) : NULL;
	if (why) {
		char q[100];
		text_quote(q, sizeof q, v->u.str.s, v->u.str.len);
		snprintf(err, errlen, "'%s' '%s' %s", key, q, why);
		return -1;
	}
	*out = v->u.str.s;
	return 0;
}

static bool listed(const char *const *keys, const char *k)
{
	for (; keys && *keys; keys++)
		if (!strcmp(*keys, k))
			return true;
	return false;
}

int pcf_keys(const struct json *doc, const char *const *required, const char *const *optional, char *err, size_t errlen)
{
	if (!doc || doc->kind != JSON_OBJECT)
		return pcf_fail(err, errlen, "controller config must be a JSON object");
	for (size_t i = 0; i < doc->u.obj.n; i++)
		if (!listed(required, doc->u.obj.keys[i]) && !listed(optional, doc->u.obj.keys[i])) {
			snprintf(err, errlen, "unknown key '%s'", doc->u.obj.keys[i]);
			return -1;
		}
	for (const char *const *k = required; *k; k++)
		if (!json_get(doc, *k)) {
			snprintf(err, errlen, "missing required key '%s'", *k);
			return -1;
		}
	return 0;
}

int pcf_horizons(const struct json *h, struct arena *a, long long **out, size_t *n, char *err, size_t errlen)
{
	if (h->kind != JSON_ARRAY)
		return pcf_fail(err, errlen, "guarantee_horizons_hours must be a list");
	if (h->u.arr.n > 64)
		return pcf_fail(err, errlen, "guarantee_horizons_hours holds more than 64 horizons");
	*n = h->u.arr.n;
	*out = arena_alloc(a, (*n + 1) * sizeof **out);
	for (size_t i = 0; i < *n; i++)
		if (pcf_int(h->u.arr.items[i], "guarantee_horizons_hours", &(*out)[i], err, errlen))
			return -1;
	return 0;
}

int pc_sim_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen)
{
	struct pc_sim *b = ctx;
	if (pc_check_guarantee(b->c->cfg, p, err, errlen))
		return -1;
	b->horizon = pc_config_horizon_for(b->c->cfg, p->guarantee_seconds);
	b->enforce = p->admission == ADMISSION_ENFORCE;
	return 0;
}
