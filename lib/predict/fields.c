/* The field tables of the controller configs and their checked readers, shared by both
 * controller families. */
#include "predict/internal.h"
#include "core/text.h"
#include "predict/predict.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int pc_field_fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static int pc_field_int(const struct json *v, const char *key, long long *out, char *err, size_t errlen)
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

static int pc_field_real(const struct json *v, const char *key, double *out, char *err, size_t errlen)
{
	if (!json_is_num(v) || !isfinite(json_num(v))) {
		snprintf(err, errlen, "'%s' must be a finite number", key);
		return -1;
	}
	*out = json_num(v);
	return 0;
}

static int pc_field_bool(const struct json *v, const char *key, bool *out, char *err, size_t errlen)
{
	if (v->kind != JSON_TRUE && v->kind != JSON_FALSE) {
		snprintf(err, errlen, "'%s' must be true or false", key);
		return -1;
	}
	*out = v->kind == JSON_TRUE;
	return 0;
}

static int pc_field_str(const struct json *v, const char *key, const char **out, char *err, size_t errlen)
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

static bool listed(const struct pc_field *f, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].key, k))
			return true;
	return false;
}

static int check_keys(const struct pc_field *f, size_t n, const struct json *doc, char *err, size_t errlen)
{
	if (!doc || doc->kind != JSON_OBJECT)
		return pc_field_fail(err, errlen, "controller config must be a JSON object");
	for (size_t i = 0; i < doc->u.obj.n; i++)
		if (!listed(f, n, doc->u.obj.keys[i])) {
			snprintf(err, errlen, "unknown key '%s'", doc->u.obj.keys[i]);
			return -1;
		}
	for (size_t i = 0; i < n; i++)
		if (!(f[i].flags & PC_FIELD_OPTIONAL) && !json_get(doc, f[i].key)) {
			snprintf(err, errlen, "missing required key '%s'", f[i].key);
			return -1;
		}
	return 0;
}

static int pc_field_horizons(const struct json *h, struct arena *a, long long **out, size_t *n, char *err, size_t errlen)
{
	if (h->kind != JSON_ARRAY)
		return pc_field_fail(err, errlen, "guarantee_horizons_hours must be a list");
	if (h->u.arr.n > 64)
		return pc_field_fail(err, errlen, "guarantee_horizons_hours holds more than 64 horizons");
	*n = h->u.arr.n;
	*out = arena_alloc(a, (*n + 1) * sizeof **out);
	for (size_t i = 0; i < *n; i++)
		if (pc_field_int(h->u.arr.items[i], "guarantee_horizons_hours", &(*out)[i], err, errlen))
			return -1;
	return 0;
}

#define AT(config, row, type) ((type *)((char *)(config) + (row)->offset))
#define AT_CONST(config, row, type) ((const type *)((const char *)(config) + (row)->offset))

static int read_scalar(const struct pc_field *r, const struct json *v, void *config, char *err, size_t errlen)
{
	switch (r->type) {
	case PC_FIELD_STR: return pc_field_str(v, r->key, AT(config, r, const char *), err, errlen);
	case PC_FIELD_INT: return pc_field_int(v, r->key, AT(config, r, long long), err, errlen);
	case PC_FIELD_REAL: return pc_field_real(v, r->key, AT(config, r, double), err, errlen);
	case PC_FIELD_BOOL: return pc_field_bool(v, r->key, AT(config, r, bool), err, errlen);
	case PC_FIELD_HORIZONS: break;
	}
	return 0;
}

int pc_field_read(const struct pc_field *f, size_t n, const struct json *doc, void *config, struct arena *a, char *err,
             size_t errlen)
{
	if (check_keys(f, n, doc, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct json *v = json_get(doc, f[i].key);
		if (f[i].type == PC_FIELD_HORIZONS || !v)
			continue;
		if (read_scalar(&f[i], v, config, err, errlen))
			return -1;
		if (f[i].check && !(f[i].flags & PC_FIELD_CHECK_LATE) && f[i].check(config, err, errlen))
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (f[i].check && (f[i].flags & PC_FIELD_CHECK_LATE) && f[i].check(config, err, errlen))
			return -1;
	for (size_t i = 0; i < n; i++)
		if (f[i].type == PC_FIELD_HORIZONS &&
		    pc_field_horizons(json_get(doc, f[i].key), a, AT(config, &f[i], long long *),
		                 (size_t *)((char *)config + f[i].count_offset), err, errlen))
			return -1;
	return 0;
}

static void dict_row(const struct pc_field *r, const void *config, struct arena *a, struct json *d)
{
	struct json *v = NULL;
	switch (r->type) {
	case PC_FIELD_STR:
		if (!*AT_CONST(config, r, const char *))
			return;   /* an absent optional row */
		v = json_str(a, *AT_CONST(config, r, const char *));
		break;
	case PC_FIELD_INT: v = json_int(a, *AT_CONST(config, r, long long)); break;
	case PC_FIELD_REAL: v = json_real(a, *AT_CONST(config, r, double)); break;
	case PC_FIELD_BOOL: v = json_bool(a, *AT_CONST(config, r, bool)); break;
	case PC_FIELD_HORIZONS: {
		const long long *h = *AT_CONST(config, r, long long *);
		size_t count = *(const size_t *)((const char *)config + r->count_offset);
		v = json_array(a);
		for (size_t i = 0; i < count; i++)
			json_push(a, v, json_int(a, h[i]));
		break;
	}
	}
	json_set(a, d, r->key, v);
}

struct json *pc_field_dict(const struct pc_field *f, size_t n, const void *config, struct arena *a)
{
	struct json *d = json_object(a);
	for (size_t i = 0; i < n; i++)
		if (!(f[i].flags & PC_FIELD_DICT_LAST))
			dict_row(&f[i], config, a, d);
	for (size_t i = 0; i < n; i++)
		if (f[i].flags & PC_FIELD_DICT_LAST)
			dict_row(&f[i], config, a, d);
	return d;
}

bool pc_field_any_not_positive(const struct pc_field *f, size_t n, const void *config)
{
	for (size_t i = 0; i < n; i++)
		if ((f[i].flags & PC_FIELD_POSITIVE) &&
		    ((f[i].type == PC_FIELD_INT && *AT_CONST(config, &f[i], long long) <= 0) ||
		     (f[i].type == PC_FIELD_REAL && !(*AT_CONST(config, &f[i], double) > 0))))
			return true;
	return false;
}

bool pc_field_any_over_max(const struct pc_field *f, size_t n, const void *config)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].type == PC_FIELD_INT && f[i].max > 0 && *AT_CONST(config, &f[i], long long) > f[i].max)
			return true;
	return false;
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
