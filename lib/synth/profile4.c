/* Load and validate the `v4` object of a schednav.synth-profile/4 document (docs/profiles.md):
 * the submission tables (GPUs and GPU-seconds submitted per hour and per day, each GPU
 * model's GPU-seconds submitted per day as a capacity ratio) and their fingerprint, the
 * SHA-256 of every number of those tables in document order, one "%.17g\n" line each.
 * Called by synth_profile_load after the /3 part; errors as "PATH: message". */
#include "synth/synth.h"
#include "core/ndjson.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_GPUS4 1e9      /* GPUs submitted in one hour or day */
#define MAX_GS4 1e16       /* GPU-seconds submitted in one hour or day (the whole trace: 1.4e11) */
#define MAX_RATIO4 1e6     /* a model's daily capacity ratio */

struct ctx4 {
	struct synth_profile *p;
	char *err;
	size_t errlen;
	struct fp_sha256 sha;
};

static int fail4(struct ctx4 *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail4(struct ctx4 *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	synth_profile_vfail(c->p, c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A table: obj[key] with `rows`, an array of n arrays of `width` items each. */
static const struct json *rows_of(struct ctx4 *c, const struct json *v4, const char *key, size_t n, size_t width)
{
	const struct json *tab = json_get(v4, key), *rows;
	if (!tab || tab->kind != JSON_OBJECT) {
		fail4(c, "'v4': %s table '%s'", tab ? "not an object:" : "missing", key);
		return NULL;
	}
	if (!(rows = json_get(tab, "rows")) || rows->kind != JSON_ARRAY) {
		fail4(c, "'v4.%s': missing array 'rows'", key);
		return NULL;
	}
	if (rows->u.arr.n != n) {
		fail4(c, "'v4.%s.rows': %zu rows, want %zu (one per %s of 'hourly_jobs')", key, rows->u.arr.n, n,
			n == c->p->n_hours ? "hour" : "day");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct json *r = rows->u.arr.items[i];
		if (r->kind != JSON_ARRAY || r->u.arr.n != width) {
			fail4(c, "'v4.%s.rows[%zu]': must be an array of %zu numbers", key, i, width);
			return NULL;
		}
	}
	return rows;
}

/* Item k of row i: a finite number in [0, max], hashed into the fingerprint. */
static int cell(struct ctx4 *c, const struct json *rows, const char *key, size_t i, size_t k, double max, double *out)
{
	const struct json *v = rows->u.arr.items[i]->u.arr.items[k];
	if (!json_is_num(v) || !isfinite(json_num(v)))
		return fail4(c, "'v4.%s.rows[%zu][%zu]': not a finite number", key, i, k);
	double x = json_num(v);
	if (x < 0)
		return fail4(c, "'v4.%s.rows[%zu][%zu]': negative value %g", key, i, k, x);
	if (x > max)
		return fail4(c, "'v4.%s.rows[%zu][%zu]': %g is more than %g", key, i, k, x, max);
	char line[40];
	int n = snprintf(line, sizeof line, "%.17g\n", x);
	fp_sha256_update(&c->sha, line, (size_t)n);
	*out = x;
	return 0;
}

static int load_tables(struct ctx4 *c, const struct json *v4)
{
	struct synth_profile *p = c->p;
	const struct json *hr = rows_of(c, v4, "hourly_submitted", p->n_hours, 2), *dr, *mr, *tab, *models;
	if (!hr)
		return -1;
	p->sub_gpus = arena_alloc(&p->arena, p->n_hours * sizeof *p->sub_gpus);
	p->sub_gs = arena_alloc(&p->arena, p->n_hours * sizeof *p->sub_gs);
	for (size_t h = 0; h < p->n_hours; h++)
		if (cell(c, hr, "hourly_submitted", h, 0, MAX_GPUS4, &p->sub_gpus[h]) ||
		    cell(c, hr, "hourly_submitted", h, 1, MAX_GS4, &p->sub_gs[h]))
			return -1;
	if (!(dr = rows_of(c, v4, "daily_submitted", p->n_days, 4)))
		return -1;
	p->day_sub = arena_alloc(&p->arena, p->n_days * sizeof *p->day_sub);
	for (size_t d = 0; d < p->n_days; d++) {
		double hp, spot;
		if (cell(c, dr, "daily_submitted", d, 0, (double)SYNTH_MAX_COUNT, &hp) ||
		    cell(c, dr, "daily_submitted", d, 1, (double)SYNTH_MAX_COUNT, &spot) ||
		    cell(c, dr, "daily_submitted", d, 2, MAX_GPUS4, &p->day_sub[d][0]) ||
		    cell(c, dr, "daily_submitted", d, 3, MAX_GS4, &p->day_sub[d][1]))
			return -1;
		if (hp != (double)p->daily[d][0] || spot != (double)p->daily[d][1])
			return fail4(c, "'v4.daily_submitted.rows[%zu]': HP/Spot jobs %g/%g, 'daily_class_jobs' %lld/%lld", d, hp,
				spot, p->daily[d][0], p->daily[d][1]);
	}
	if (!(tab = json_get(v4, "model_daily_capacity_ratio")) || tab->kind != JSON_OBJECT ||
	    !(models = json_get(tab, "models")) || models->kind != JSON_ARRAY)
		return fail4(c, "'v4': missing table 'model_daily_capacity_ratio' with its 'models'");
	if (models->u.arr.n != p->n_models)
		return fail4(c, "'v4.model_daily_capacity_ratio.models': %zu models, the profile has %zu", models->u.arr.n, p->n_models);
	int col[SYNTH_MAX_BUCKETS];
	if (p->n_models > SYNTH_MAX_BUCKETS)
		return fail4(c, "'v4.model_daily_capacity_ratio.models': more than %d models", SYNTH_MAX_BUCKETS);
	for (size_t k = 0; k < p->n_models; k++) {
		const struct json *x = models->u.arr.items[k];
		if (x->kind != JSON_STRING || (col[k] = synth_profile_model(p, x->u.str.s)) < 0)
			return fail4(c, "'v4.model_daily_capacity_ratio.models[%zu]': not a model of the profile", k);
		for (size_t j = 0; j < k; j++)
			if (col[j] == col[k])
				return fail4(c, "'v4.model_daily_capacity_ratio.models[%zu]': model listed twice", k);
	}
	if (!(mr = rows_of(c, v4, "model_daily_capacity_ratio", p->n_days, p->n_models)))
		return -1;
	p->model_day_gs = arena_alloc(&p->arena, p->n_days * p->n_models * sizeof *p->model_day_gs);
	for (size_t d = 0; d < p->n_days; d++)
		for (size_t k = 0; k < p->n_models; k++) {
			double r;
			if (cell(c, mr, "model_daily_capacity_ratio", d, k, MAX_RATIO4, &r))
				return -1;
			p->model_day_gs[d * p->n_models + (size_t)col[k]] = r * (double)p->models[col[k]].capacity * SYNTH_DAY;
		}
	return 0;
}

int synth_profile_load4(struct synth_profile *p, const struct json *root, char *err, size_t errlen)
{
	static const char *const keys[] = { "fingerprint", "hourly_submitted", "daily_submitted", "model_daily_capacity_ratio",
		"rebalanced_sizes", NULL };
	struct ctx4 c = { .p = p, .err = err, .errlen = errlen };
	const struct json *v4 = json_get(root, "v4"), *fpo, *sha;
	char msg[160];
	if (!v4 || v4->kind != JSON_OBJECT)
		return fail4(&c, "profile: %s 'v4'", v4 ? "not an object:" : "missing key");
	if (nd_check_keys(v4, ND_KEYS(keys), msg, sizeof msg))
		return fail4(&c, "'v4': %s", msg);
	if (!(fpo = json_get(v4, "fingerprint")) || fpo->kind != JSON_OBJECT || !(sha = json_get(fpo, "sha256")) ||
	    sha->kind != JSON_STRING || sha->u.str.len != FP_HEX_SHA256 - 1 || !fp_is_hex(sha->u.str.s, sha->u.str.len))
		return fail4(&c, "'v4.fingerprint': need an object with 'sha256', 64 hex digits");
	fp_sha256_init(&c.sha);
	if (load_tables(&c, v4)) {
		fp_sha256_release(&c.sha);
		return -1;
	}
	fp_sha256_hex(&c.sha, p->v4_sha256);
	if (strcmp(p->v4_sha256, sha->u.str.s))
		return fail4(&c, "'v4.fingerprint.sha256': %s does not match the tables (%s): a damaged or edited profile", sha->u.str.s,
			p->v4_sha256);
	return 0;
}
