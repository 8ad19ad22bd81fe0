/* Load and validate a schednav.synth-profile/1, /2, /3 or /4 document (docs/profiles.md; /4's own part in profile4.c). */
#include "synth/synth.h"
#include "synth/profile_check.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	struct synth_profile *p;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	synth_profile_vfail(c->p, c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void *alloc(struct ctx *c, size_t n, size_t size)
{
	void *q = arena_alloc(&c->p->arena, n ? n * size : 1);
	if (q)
		memset(q, 0, n ? n * size : 1);
	return q;
}

/* The identifier rule (core/text.h) for a name that becomes a node id, model or tenant. */
static int id_bad(struct ctx *c, const struct json *s, const char *list, size_t i)
{
	const char *why = text_id_problem(s->u.str.s, s->u.str.len);
	if (!why)
		return 0;
	char q[100];
	text_quote(q, sizeof q, s->u.str.s, s->u.str.len);
	return fail(c, "'%s[%zu]': '%s' %s", list, i, q, why);
}

static char *dup(struct ctx *c, const struct json *s)
{
	return arena_strndup(&c->p->arena, s->u.str.s, s->u.str.len);
}

/* Unknown keys in obj are errors (docs/profiles.md). */
static int keys_ok(struct ctx *c, const struct json *obj, const char *const *keys, const char *where)
{
	size_t n = 0;
	while (keys[n])
		n++;
	char msg[200];
	if (nd_check_keys(obj, keys, n, msg, sizeof msg))
		return fail(c, "%s: %s", where, msg);
	return 0;
}

static struct json *need(struct ctx *c, const struct json *obj, const char *key, enum json_kind kind, const char *where)
{
	struct json *v = json_get(obj, key);
	if (!v) {
		fail(c, "%s: missing key '%s'", where, key);
		return NULL;
	}
	if (v->kind != kind && !(kind == JSON_REAL && v->kind == JSON_INT)) {
		fail(c, "%s: '%s' must be %s, not %s", where, key,
			kind == JSON_ARRAY ? "an array" : kind == JSON_OBJECT ? "an object" : kind == JSON_STRING ? "a string" : "a number",
			json_kind_name(v->kind));
		return NULL;
	}
	return v;
}

/* A count: a JSON integer >= 0. */
static int count(struct ctx *c, const struct json *v, const char *what, size_t i, long long *out)
{
	if (!v || v->kind != JSON_INT)
		return fail(c, "'%s[%zu]': count must be an integer", what, i);
	if (v->u.i < 0)
		return fail(c, "'%s[%zu]': negative count %lld", what, i, v->u.i);
	/* every sum of counts stays far below 2^63 (docs/hardening.md) */
	if (v->u.i > SYNTH_MAX_COUNT)
		return fail(c, "'%s[%zu]': count %lld is more than %lld", what, i, v->u.i, SYNTH_MAX_COUNT);
	*out = v->u.i;
	return 0;
}

static int number(struct ctx *c, const struct json *v, const char *what, size_t i, double *out)
{
	if (!v || !json_is_num(v) || !isfinite(json_num(v)))
		return fail(c, "'%s[%zu]': not a finite number", what, i);
	*out = json_num(v);
	return 0;
}

/* An optional non-negative finite number: NAN when absent. */
static int optional(struct ctx *c, const struct json *v, const char *what, double *out)
{
	*out = NAN;
	if (!v)
		return 0;
	if (!json_is_num(v) || !isfinite(json_num(v)) || json_num(v) < 0)
		return fail(c, "%s: must be a finite number >= 0", what);
	*out = json_num(v);
	return 0;
}

/* An array of n-element arrays. */
static int pairs(struct ctx *c, const struct json *arr, const char *what, size_t n, size_t i)
{
	const struct json *x = arr->u.arr.items[i];
	if (x->kind != JSON_ARRAY || x->u.arr.n != n)
		return fail(c, "'%s[%zu]': must be an array of %zu items", what, i, n);
	return 0;
}

static int strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int load_counts(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	struct json *h = need(c, root, "hourly_jobs", JSON_ARRAY, "profile");
	if (!h)
		return -1;
	if (h->u.arr.n == 0)
		return fail(c, "'hourly_jobs': empty");
	p->n_hours = h->u.arr.n;
	p->n_days = (p->n_hours + 23) / 24;
	p->hourly = alloc(c, p->n_hours, sizeof *p->hourly);
	for (size_t i = 0; i < p->n_hours; i++) {
		if (count(c, h->u.arr.items[i], "hourly_jobs", i, &p->hourly[i]))
			return -1;
		if (p->hourly[i] > 1000000000LL)
			return fail(c, "'hourly_jobs[%zu]': count %lld too large", i, p->hourly[i]);
		p->total_jobs += p->hourly[i];
	}
	if (p->total_jobs == 0)
		return fail(c, "'hourly_jobs': no jobs");
	struct json *d = need(c, root, "daily_class_jobs", JSON_ARRAY, "profile");
	if (!d)
		return -1;
	if (d->u.arr.n != p->n_days)
		return fail(c, "'daily_class_jobs': %zu days, 'hourly_jobs' spans %zu", d->u.arr.n, p->n_days);
	p->daily = alloc(c, p->n_days, sizeof *p->daily);
	for (size_t i = 0; i < p->n_days; i++) {
		if (pairs(c, d, "daily_class_jobs", 2, i))
			return -1;
		const struct json *x = d->u.arr.items[i];
		if (count(c, x->u.arr.items[0], "daily_class_jobs", i, &p->daily[i][0]) ||
		    count(c, x->u.arr.items[1], "daily_class_jobs", i, &p->daily[i][1]))
			return -1;
		long long sum = 0;
		for (size_t k = 24 * i; k < 24 * i + 24 && k < p->n_hours; k++)
			sum += p->hourly[k];
		if (p->daily[i][0] + p->daily[i][1] != sum)
			return fail(c, "'daily_class_jobs[%zu]': HP + Spot = %lld, the day's hours have %lld jobs", i, p->daily[i][0] + p->daily[i][1], sum);
	}
	return 0;
}

static int load_nodes(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	struct json *n = need(c, root, "nodes", JSON_ARRAY, "profile");
	if (!n)
		return -1;
	if (n->u.arr.n == 0)
		return fail(c, "'nodes': empty");
	p->n_nodes = n->u.arr.n;
	p->nodes = alloc(c, p->n_nodes, sizeof *p->nodes);
	for (size_t i = 0; i < p->n_nodes; i++) {
		if (pairs(c, n, "nodes", 3, i))
			return -1;
		struct json **x = n->u.arr.items[i]->u.arr.items;
		if (x[0]->kind != JSON_STRING || !x[0]->u.str.len || x[1]->kind != JSON_STRING || !x[1]->u.str.len)
			return fail(c, "'nodes[%zu]': node id and model must be non-empty strings", i);
		if (id_bad(c, x[0], "nodes", i) || id_bad(c, x[1], "nodes", i))
			return -1;
		if (x[2]->kind != JSON_INT || x[2]->u.i <= 0 || x[2]->u.i > 1000000)
			return fail(c, "'nodes[%zu]': GPU count must be a positive integer", i);
		p->nodes[i].id = dup(c, x[0]);
		p->nodes[i].model = dup(c, x[1]);
		p->nodes[i].gpus = x[2]->u.i;
	}
	/* Unique ids: sort a copy of the pointers. */
	const char **ids = xmalloc(p->n_nodes * sizeof *ids);
	for (size_t i = 0; i < p->n_nodes; i++)
		ids[i] = p->nodes[i].id;
	qsort(ids, p->n_nodes, sizeof *ids, strptr_cmp);
	for (size_t i = 1; i < p->n_nodes; i++)
		if (!strcmp(ids[i - 1], ids[i])) {
			fail(c, "'nodes': duplicate node id '%s'", ids[i]);
			free(ids);
			return -1;
		}
	free(ids);
	return 0;
}

/* The /2 joint table of a model: [[workers, GPUs per worker, jobs], ...] summing to its jobs. */
static int load_cells(struct ctx *c, struct synth_model *sm, const struct json *tab, const char *where)
{
	if (tab->u.arr.n == 0)
		return fail(c, "%s: 'workers' is empty", where);
	sm->n_cells = tab->u.arr.n;
	sm->cell_workers = alloc(c, sm->n_cells, sizeof *sm->cell_workers);
	sm->cell_jobs = alloc(c, sm->n_cells, sizeof *sm->cell_jobs);
	sm->cell_gpw = alloc(c, sm->n_cells, sizeof *sm->cell_gpw);
	long long sum = 0;
	for (size_t k = 0; k < sm->n_cells; k++) {
		if (pairs(c, tab, "workers", 3, k))
			return -1;
		struct json **x = tab->u.arr.items[k]->u.arr.items;
		if (count(c, x[0], "workers", k, &sm->cell_workers[k]) || number(c, x[1], "workers", k, &sm->cell_gpw[k]) ||
		    count(c, x[2], "workers", k, &sm->cell_jobs[k]))
			return -1;
		if (sm->cell_workers[k] < 1 || sm->cell_workers[k] > 1000000 || !(sm->cell_gpw[k] > 0) || sm->cell_gpw[k] > 1e6)
			return fail(c, "%s: 'workers[%zu]': need 1 <= workers <= 1000000 and 0 < GPUs per worker <= 1e6", where, k);
		sum += sm->cell_jobs[k];
	}
	if (sum != sm->jobs)
		return fail(c, "%s: 'workers' sums to %lld jobs, the model has %lld", where, sum, sm->jobs);
	return 0;
}

/* /3: a model's hourly concurrency series and its inferred Spot share and size ratio. */
static int load_v3_model(struct ctx *c, struct synth_model *sm, const struct json *x, const char *where)
{
	static const char *const spot_keys[] = { "share", "size_ratio", "inferred", "derivation", NULL };
	struct synth_profile *p = c->p;
	struct json *conc = need(c, x, "concurrency", JSON_ARRAY, where), *spot, *v;
	char msg[128];
	if (!conc || !(spot = need(c, x, "spot", JSON_OBJECT, where)))
		return -1;
	if (nd_check_keys(spot, ND_KEYS(spot_keys), msg, sizeof msg))
		return fail(c, "%s: 'spot': %s", where, msg);
	if (!(v = need(c, spot, "share", JSON_REAL, where)) || !(json_num(v) >= 0 && json_num(v) <= 1))
		return v ? fail(c, "%s: 'spot.share' must be 0..1", where) : -1;
	sm->spot_share = json_num(v);
	if (!(v = need(c, spot, "size_ratio", JSON_REAL, where)) || !(json_num(v) > 0 && json_num(v) <= 1))
		return v ? fail(c, "%s: 'spot.size_ratio' must be in (0, 1]", where) : -1;
	sm->spot_size_ratio = json_num(v);
	struct json *cap = need(c, x, "max_job_days", JSON_OBJECT, where);
	if (!cap)
		return -1;
	v = json_get(cap, "value");
	sm->max_job_days = 0;
	if (v && v->kind != JSON_NULL) {
		if (!json_is_num(v) || !(json_num(v) >= 1 && json_num(v) <= 100000))
			return fail(c, "%s: 'max_job_days.value' must be null or 1..100000 days", where);
		sm->max_job_days = json_num(v);
	}
	if (p->n_conc == 0) {
		if (conc->u.arr.n < p->n_hours || conc->u.arr.n > p->n_hours + 100000)
			return fail(c, "%s: 'concurrency' has %zu hours, 'hourly_jobs' %zu", where, conc->u.arr.n, p->n_hours);
		p->n_conc = conc->u.arr.n;
	} else if (conc->u.arr.n != p->n_conc)
		return fail(c, "%s: 'concurrency' has %zu hours, another model %zu", where, conc->u.arr.n, p->n_conc);
	sm->concurrency = alloc(c, p->n_conc, sizeof *sm->concurrency);
	for (size_t h = 0; h < p->n_conc; h++) {
		if (number(c, conc->u.arr.items[h], "concurrency", h, &sm->concurrency[h]))
			return -1;
		if (sm->concurrency[h] < 0 || sm->concurrency[h] > 1e9)
			return fail(c, "%s: 'concurrency[%zu]': must be 0..1e9 GPUs", where, h);
	}
	return 0;
}

static int load_models(struct ctx *c, const struct json *root)
{
	static const char *const keys1[] = { "model", "jobs", "gpus_per_worker", "reference", NULL };
	static const char *const keys2[] = { "model", "jobs", "workers", "gpu_seconds", "reference", NULL };
	static const char *const keys3[] = { "model", "jobs", "workers", "gpu_seconds", "reference", "spot", "concurrency",
		"concurrency_gpu_seconds", "max_job_days", NULL };
	struct synth_profile *p = c->p;
	struct json *m = need(c, root, "gpu_models", JSON_ARRAY, "profile");
	if (!m)
		return -1;
	if (m->u.arr.n == 0)
		return fail(c, "'gpu_models': empty");
	p->n_models = m->u.arr.n;
	p->models = alloc(c, p->n_models, sizeof *p->models);
	long long total = 0;
	for (size_t i = 0; i < p->n_models; i++) {
		const struct json *x = m->u.arr.items[i];
		struct synth_model *sm = &p->models[i];
		char where[64], msg[128];
		snprintf(where, sizeof where, "'gpu_models[%zu]'", i);
		if (x->kind != JSON_OBJECT)
			return fail(c, "%s: must be an object", where);
		if ((p->version >= 3 ? nd_check_keys(x, ND_KEYS(keys3), msg, sizeof msg) :
		     p->version == 2 ? nd_check_keys(x, ND_KEYS(keys2), msg, sizeof msg) : nd_check_keys(x, ND_KEYS(keys1), msg, sizeof msg)))
			return fail(c, "%s: %s", where, msg);
		if (p->version >= 3 && load_v3_model(c, sm, x, where))
			return -1;
		struct json *name = need(c, x, "model", JSON_STRING, where), *jobs, *gpw = NULL, *cells = NULL;
		if (!name || !(jobs = need(c, x, "jobs", JSON_INT, where)))
			return -1;
		if (p->version >= 2 ? !(cells = need(c, x, "workers", JSON_ARRAY, where)) : !(gpw = need(c, x, "gpus_per_worker", JSON_ARRAY, where)))
			return -1;
		if (!name->u.str.len || !strcmp(name->u.str.s, "*"))
			return fail(c, "%s: model must be a concrete model name", where);
		if (id_bad(c, name, "gpu_models", i))
			return -1;
		if (count(c, jobs, "gpu_models", i, &sm->jobs))
			return -1;
		sm->name = dup(c, name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(p->models[k].name, sm->name))
				return fail(c, "%s: duplicate model '%s'", where, sm->name);
		sm->gpu_seconds = NAN;
		if (cells) {
			char what[96];
			snprintf(what, sizeof what, "%s: 'gpu_seconds'", where);
			if (load_cells(c, sm, cells, where) || optional(c, json_get(x, "gpu_seconds"), what, &sm->gpu_seconds))
				return -1;
		} else {
			if (gpw->u.arr.n == 0)
				return fail(c, "%s: 'gpus_per_worker' is empty", where);
			sm->n_gpw = gpw->u.arr.n;
			sm->gpw_value = alloc(c, sm->n_gpw, sizeof *sm->gpw_value);
			sm->gpw_cum = alloc(c, sm->n_gpw, sizeof *sm->gpw_cum);
			double cum = 0;
			for (size_t k = 0; k < sm->n_gpw; k++) {
				double v, pr;
				if (pairs(c, gpw, "gpus_per_worker", 2, k) ||
				    number(c, gpw->u.arr.items[k]->u.arr.items[0], "gpus_per_worker", k, &v) ||
				    number(c, gpw->u.arr.items[k]->u.arr.items[1], "gpus_per_worker", k, &pr))
					return -1;
				if (!(v > 0) || v > 1e6 || pr < 0 || pr > 1)
					return fail(c, "%s: 'gpus_per_worker[%zu]': need 0 < GPUs <= 1e6 and 0 <= probability <= 1", where, k);
				cum += pr;
				sm->gpw_value[k] = v;
				sm->gpw_cum[k] = cum;
			}
			if (fabs(cum - 1.0) > 1e-6)
				return fail(c, "%s: 'gpus_per_worker' probabilities sum to %.9g, not 1", where, cum);
			sm->gpw_cum[sm->n_gpw - 1] = 1.0;
		}
		sm->ref_demand = NAN;
		struct json *ref = json_get(x, "reference"), *dem = json_get(ref, "gpu_demand");
		if (ref && ref->kind != JSON_OBJECT)
			return fail(c, "%s: 'reference' must be an object", where);
		if (dem && json_is_num(dem) && isfinite(json_num(dem)))
			sm->ref_demand = json_num(dem);
		struct json *gs = json_get(ref, "gpu_seconds");
		sm->ref_gpu_seconds = gs && json_is_num(gs) && isfinite(json_num(gs)) ? json_num(gs) : NAN;
		if (!isnan(sm->gpu_seconds))
			sm->ref_gpu_seconds = sm->gpu_seconds;
		for (size_t k = 0; k < p->n_nodes; k++)
			if (!strcmp(p->nodes[k].model, sm->name))
				sm->capacity += p->nodes[k].gpus;
		if (sm->capacity == 0 && sm->jobs > 0)
			return fail(c, "%s: model '%s' has jobs but no nodes", where, sm->name);
		total += sm->jobs;
	}
	if (total == 0)
		return fail(c, "'gpu_models': no jobs");
	return 0;
}

static int load_workers(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	struct json *w = need(c, root, "worker_counts", JSON_ARRAY, "profile");
	if (!w)
		return -1;
	p->n_workers = w->u.arr.n;
	p->worker_value = alloc(c, p->n_workers, sizeof *p->worker_value);
	p->worker_jobs = alloc(c, p->n_workers, sizeof *p->worker_jobs);
	long long total = 0;
	for (size_t i = 0; i < p->n_workers; i++) {
		if (pairs(c, w, "worker_counts", 2, i) ||
		    count(c, w->u.arr.items[i]->u.arr.items[0], "worker_counts", i, &p->worker_value[i]) ||
		    count(c, w->u.arr.items[i]->u.arr.items[1], "worker_counts", i, &p->worker_jobs[i]))
			return -1;
		if (p->worker_value[i] < 1 || p->worker_value[i] > 1000000)
			return fail(c, "'worker_counts[%zu]': worker count must be 1..1000000", i);
		total += p->worker_jobs[i];
	}
	if (total == 0)
		return fail(c, "'worker_counts': no jobs");
	/* /2: the models' tables must add up to this distribution. */
	for (size_t i = 0; i < p->n_workers && p->version >= 2; i++) {
		long long sum = 0;
		for (size_t m = 0; m < p->n_models; m++)
			for (size_t k = 0; k < p->models[m].n_cells; k++)
				sum += p->models[m].cell_workers[k] == p->worker_value[i] ? p->models[m].cell_jobs[k] : 0;
		if (sum != p->worker_jobs[i])
			return fail(c, "'worker_counts[%zu]': %lld jobs with %lld workers, the models' tables have %lld", i,
				p->worker_jobs[i], p->worker_value[i], sum);
	}
	for (size_t m = 0; m < p->n_models && p->version >= 2; m++)
		for (size_t k = 0; k < p->models[m].n_cells; k++) {
			size_t i = 0;
			while (i < p->n_workers && p->worker_value[i] != p->models[m].cell_workers[k])
				i++;
			if (i == p->n_workers)
				return fail(c, "'gpu_models[%zu]': 'workers[%zu]': %lld workers is not in 'worker_counts'", m, k,
					p->models[m].cell_workers[k]);
		}
	return 0;
}

static int load_quantiles(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	struct json *q = need(c, root, "duration_quantiles", JSON_ARRAY, "profile");
	if (!q)
		return -1;
	p->n_quant = q->u.arr.n;
	if (p->n_quant < 2)
		return fail(c, "'duration_quantiles': need at least the 0 and 1 knots");
	p->quant_p = alloc(c, p->n_quant, sizeof *p->quant_p);
	p->quant_v = alloc(c, p->n_quant, sizeof *p->quant_v);
	for (size_t i = 0; i < p->n_quant; i++) {
		if (pairs(c, q, "duration_quantiles", 2, i) ||
		    number(c, q->u.arr.items[i]->u.arr.items[0], "duration_quantiles", i, &p->quant_p[i]) ||
		    number(c, q->u.arr.items[i]->u.arr.items[1], "duration_quantiles", i, &p->quant_v[i]))
			return -1;
		if (!(p->quant_v[i] >= 1) || p->quant_v[i] > 1e12)
			return fail(c, "'duration_quantiles[%zu]': duration must be 1..1e12 seconds", i);
		if (i && !(p->quant_p[i] > p->quant_p[i - 1]))
			return fail(c, "'duration_quantiles[%zu]': probabilities must increase", i);
		if (i && p->quant_v[i] < p->quant_v[i - 1])
			return fail(c, "'duration_quantiles[%zu]': durations must not decrease", i);
	}
	if (p->quant_p[0] != 0 || p->quant_p[p->n_quant - 1] != 1)
		return fail(c, "'duration_quantiles': knots must run from probability 0 to 1");
	return 0;
}

static int load_orgs(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	struct json *o = need(c, root, "organizations", JSON_ARRAY, "profile");
	if (!o)
		return -1;
	p->n_orgs = o->u.arr.n;
	p->org_name = alloc(c, p->n_orgs, sizeof *p->org_name);
	p->org_jobs = alloc(c, p->n_orgs, sizeof *p->org_jobs);
	p->org_gpu_seconds = alloc(c, p->n_orgs, sizeof *p->org_gpu_seconds);
	p->org_median = alloc(c, p->n_orgs, sizeof *p->org_median);
	long long total = 0;
	for (size_t i = 0; i < p->n_orgs; i++) {
		const struct json *x = o->u.arr.items[i];
		if (p->version >= 2 && x->kind == JSON_ARRAY && x->u.arr.n == 4) {
			char what[64];
			snprintf(what, sizeof what, "'organizations[%zu]'", i);
			if (optional(c, x->u.arr.items[2], what, &p->org_gpu_seconds[i]) ||
			    optional(c, x->u.arr.items[3], what, &p->org_median[i]))
				return -1;
		} else {
			p->org_gpu_seconds[i] = p->org_median[i] = NAN;
			if (pairs(c, o, "organizations", 2, i))
				return -1;
		}
		const struct json *name = o->u.arr.items[i]->u.arr.items[0];
		if (name->kind != JSON_STRING || !name->u.str.len)
			return fail(c, "'organizations[%zu]': name must be a non-empty string", i);
		if (id_bad(c, name, "organizations", i))
			return -1;
		if (count(c, o->u.arr.items[i]->u.arr.items[1], "organizations", i, &p->org_jobs[i]))
			return -1;
		p->org_name[i] = dup(c, name);
		total += p->org_jobs[i];
	}
	/* Quadratic, but profiles hold tens to hundreds of organizations. */
	for (size_t i = 0; i < p->n_orgs; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(p->org_name[i], p->org_name[k]))
				return fail(c, "'organizations[%zu]': duplicate organization '%s'", i, p->org_name[i]);
	if (total == 0)
		return fail(c, "'organizations': no jobs");
	return 0;
}

/* /2: {"HP": {gpu_seconds, median_duration, p90_duration}, "Spot": {...}}, all optional. */
static int load_classes(struct ctx *c, const struct json *root)
{
	static const char *const names[] = { "HP", "Spot", NULL };
	static const char *const keys[] = { "gpu_seconds", "median_duration", "p90_duration", NULL };
	struct synth_profile *p = c->p;
	for (int k = 0; k < 2; k++)
		p->class_gpu_seconds[k] = p->class_median[k] = p->class_p90[k] = NAN;
	const struct json *cl = json_get(root, "classes");
	if (!cl)
		return 0;
	char msg[128];
	if (cl->kind != JSON_OBJECT)
		return fail(c, "'classes' must be an object");
	if (nd_check_keys(cl, ND_KEYS(names), msg, sizeof msg))
		return fail(c, "'classes': %s", msg);
	for (int k = 0; k < 2; k++) {
		const struct json *x = json_get(cl, names[k]);
		char what[64];
		if (!x)
			continue;
		snprintf(what, sizeof what, "'classes.%s'", names[k]);
		if (x->kind != JSON_OBJECT)
			return fail(c, "%s must be an object", what);
		if (nd_check_keys(x, ND_KEYS(keys), msg, sizeof msg))
			return fail(c, "%s: %s", what, msg);
		if (optional(c, json_get(x, "gpu_seconds"), what, &p->class_gpu_seconds[k]) ||
		    optional(c, json_get(x, "median_duration"), what, &p->class_median[k]) ||
		    optional(c, json_get(x, "p90_duration"), what, &p->class_p90[k]))
			return -1;
	}
	return 0;
}

static int load_buckets(struct ctx *c, const struct json *v3, const char *key, const char *edges_key, struct synth_buckets *b)
{
	char where[64];
	snprintf(where, sizeof where, "'v3.%s'", key);
	struct json *o = need(c, v3, key, JSON_OBJECT, "'v3'"), *edges, *rows;
	const char *const keys[] = { edges_key, "rows", "rule", NULL };
	if (!o || keys_ok(c, o, keys, where) || !(edges = need(c, o, edges_key, JSON_ARRAY, where)) || !(rows = need(c, o, "rows", JSON_ARRAY, where)))
		return -1;
	if (edges->u.arr.n == 0 || edges->u.arr.n > SYNTH_MAX_BUCKETS || rows->u.arr.n != edges->u.arr.n)
		return fail(c, "%s: need 1..%d edges and one row per edge", where, SYNTH_MAX_BUCKETS);
	b->n = edges->u.arr.n;
	for (size_t i = 0; i < b->n; i++) {
		if (number(c, edges->u.arr.items[i], edges_key, i, &b->edge[i]))
			return -1;
		if (!(b->edge[i] >= 0))
			return fail(c, "%s: '%s[%zu]' must be >= 0, not %g", where, edges_key, i, b->edge[i]);
		if (i && !(b->edge[i] > b->edge[i - 1]))
			return fail(c, "%s: edges must increase", where);
	}
	/* Rows name their bucket in the table's words; they are matched to edges by order of
	 * their lower bound, which the builder writes in edge order after sorting. */
	memset(b->jobs, 0, sizeof b->jobs);
	for (size_t i = 0; i < b->n; i++) {
		if (pairs(c, rows, "rows", 4, i))
			return -1;
		struct json **x = rows->u.arr.items[i]->u.arr.items;
		long long at;
		double gs;
		if (count(c, x[0], "rows", i, &at) || count(c, x[2], "rows", i, &b->jobs[i]) || number(c, x[3], "rows", i, &gs))
			return -1;
		if ((size_t)at != i || gs < 0)
			return fail(c, "%s: 'rows[%zu]': bucket index must be %zu and GPU-seconds >= 0", where, i, i);
		b->gpu_seconds[i] = gs;
	}
	return 0;
}

/* /3: the bucket tables, long-job slices and the real job rows (docs/profiles.md). */
static int load_v3(struct ctx *c, const struct json *root)
{
	struct synth_profile *p = c->p;
	static const char *const v3_keys[] = { "concurrency_rule", "duration_buckets", "gpu_demand_buckets", "hour_of_day", "long_job_slices",
					       "org_model_mix", "real_jobs", NULL };
	struct json *v3 = need(c, root, "v3", JSON_OBJECT, "profile"), *sl, *rows, *real, *rr;
	if (!v3 || keys_ok(c, v3, v3_keys, "'v3'"))
		return -1;
	if (load_buckets(c, v3, "duration_buckets", "edges_seconds", &p->dur_buckets) ||
	    load_buckets(c, v3, "gpu_demand_buckets", "edges_gpus", &p->gpu_buckets))
		return -1;
	if (!(sl = need(c, v3, "long_job_slices", JSON_OBJECT, "'v3'")) || !(rows = need(c, sl, "rows", JSON_ARRAY, "'v3.long_job_slices'")))
		return -1;
	static const char *const sl_keys[] = { "threshold_seconds", "rows", NULL }, *const mix_keys[] = { "models", "rows", NULL },
			  *const real_keys[] = { "columns", "model_inferred", "rows", NULL };
	struct json *th = need(c, sl, "threshold_seconds", JSON_REAL, "'v3.long_job_slices'");
	if (!th || keys_ok(c, sl, sl_keys, "'v3.long_job_slices'"))
		return -1;
	if (!(json_num(th) > 0 && json_num(th) <= 1e12))
		return fail(c, "'v3.long_job_slices': 'threshold_seconds' must be in (0, 1e12] seconds, not %g", json_num(th));
	p->long_threshold = json_num(th);
	for (size_t i = 0; i < rows->u.arr.n; i++) {
		if (pairs(c, rows, "long_job_slices.rows", 4, i))
			return -1;
		struct json **x = rows->u.arr.items[i]->u.arr.items;
		if (x[0]->kind != JSON_STRING || (x[1]->kind != JSON_TRUE && x[1]->kind != JSON_FALSE))
			return fail(c, "'v3.long_job_slices.rows[%zu]': need [class, is_long, jobs, gpu_seconds]", i);
		int k = !strcmp(x[0]->u.str.s, "HP") ? 0 : !strcmp(x[0]->u.str.s, "Spot") ? 1 : -1, l = x[1]->kind == JSON_TRUE;
		double gs;
		if (k < 0)
			return fail(c, "'v3.long_job_slices.rows[%zu]': class must be 'HP' or 'Spot'", i);
		if (count(c, x[2], "long_job_slices.rows", i, &p->long_jobs[k][l]) || number(c, x[3], "long_job_slices.rows", i, &gs))
			return -1;
		p->long_gs[k][l] = gs;
	}
	struct json *mix = need(c, v3, "org_model_mix", JSON_OBJECT, "'v3'"), *mm, *mr;
	if (!mix || keys_ok(c, mix, mix_keys, "'v3.org_model_mix'") || !(mm = need(c, mix, "models", JSON_ARRAY, "'v3.org_model_mix'")) ||
	    !(mr = need(c, mix, "rows", JSON_ARRAY, "'v3.org_model_mix'")))
		return -1;
	p->org_mix = alloc(c, p->n_orgs * p->n_models, sizeof *p->org_mix);
	int col[SYNTH_MAX_BUCKETS];
	if (mm->u.arr.n > SYNTH_MAX_BUCKETS)
		return fail(c, "'v3.org_model_mix.models': too many models");
	for (size_t k = 0; k < mm->u.arr.n; k++) {
		const struct json *x = mm->u.arr.items[k];
		if (x->kind != JSON_STRING || (col[k] = synth_profile_model(p, x->u.str.s)) < 0)
			return fail(c, "'v3.org_model_mix.models[%zu]': not a model of the profile", k);
		for (size_t e = 0; e < k; e++)
			if (col[e] == col[k])
				return fail(c, "'v3.org_model_mix.models[%zu]': model '%s' is also models[%zu]", k, x->u.str.s, e);
	}
	for (size_t i = 0; i < mr->u.arr.n; i++) {
		if (pairs(c, mr, "org_model_mix.rows", mm->u.arr.n + 1, i))
			return -1;
		struct json **x = mr->u.arr.items[i]->u.arr.items;
		if (x[0]->kind != JSON_STRING)
			return fail(c, "'v3.org_model_mix.rows[%zu]': organization must be a string", i);
		size_t o = 0;
		while (o < p->n_orgs && strcmp(p->org_name[o], x[0]->u.str.s))
			o++;
		if (o == p->n_orgs)
			continue;   /* an organization without jobs in the table */
		for (size_t k = 0; k < mm->u.arr.n; k++) {
			double v;
			if (number(c, x[k + 1], "org_model_mix.rows", i, &v))
				return -1;
			if (v < 0 || v > 1)
				return fail(c, "'v3.org_model_mix.rows[%zu]': shares must be 0..1", i);
			p->org_mix[o * p->n_models + (size_t)col[k]] = v;
		}
	}
	if (!(real = need(c, v3, "real_jobs", JSON_OBJECT, "'v3'")) || keys_ok(c, real, real_keys, "'v3.real_jobs'") ||
	    !(rr = need(c, real, "rows", JSON_ARRAY, "'v3.real_jobs'")))
		return -1;
	p->n_real = rr->u.arr.n;
	p->real = alloc(c, p->n_real, sizeof *p->real);
	for (size_t i = 0; i < p->n_real; i++) {
		if (pairs(c, rr, "real_jobs.rows", 8, i))
			return -1;
		struct json **x = rr->u.arr.items[i]->u.arr.items;
		struct synth_real *j = &p->real[i];
		for (int k = 0; k < 4; k++)
			if (x[k]->kind != JSON_STRING || !x[k]->u.str.len)
				return fail(c, "'v3.real_jobs.rows[%zu]': job name, organization, class and model must be non-empty strings", i);
		if (id_bad(c, x[1], "real_jobs.rows", i) || id_bad(c, x[0], "real_jobs.rows", i))
			return -1;
		j->name = dup(c, x[0]);
		j->org = dup(c, x[1]);
		if (strcmp(x[2]->u.str.s, "HP") && strcmp(x[2]->u.str.s, "Spot"))
			return fail(c, "'v3.real_jobs.rows[%zu]': class must be 'HP' or 'Spot'", i);
		j->hp = !strcmp(x[2]->u.str.s, "HP");
		j->model = synth_profile_model(p, x[3]->u.str.s);
		if (j->model < 0)
			return fail(c, "'v3.real_jobs.rows[%zu]': no GPU model '%s'", i, x[3]->u.str.s);
		if (count(c, x[4], "real_jobs.rows", i, &j->submit) || count(c, x[5], "real_jobs.rows", i, &j->duration) ||
		    number(c, x[6], "real_jobs.rows", i, &j->gpw) || count(c, x[7], "real_jobs.rows", i, &j->workers))
			return -1;
		if (j->submit >= (long long)p->n_hours * SYNTH_HOUR || j->duration < 1 || !(j->gpw > 0) || j->gpw > 1e6 ||
		    j->workers < 1 || j->workers > 1000000)
			return fail(c, "'v3.real_jobs.rows[%zu]': submit inside the hours, duration >= 1, GPUs per worker > 0, workers >= 1", i);
		if (i && (j->submit < p->real[i - 1].submit))
			return fail(c, "'v3.real_jobs.rows[%zu]': rows must be sorted by submit", i);
	}
	if (synth_check_real_names(p->path, p->real, p->n_real, c->err, c->errlen) ||
	    synth_check_real_hours(p->path, p, 1.0, c->err, c->errlen))
		return -1;
	return 0;
}

int synth_profile_load(struct synth_profile *p, const char *path, char *err, size_t errlen)
{
	static const char *const keys1[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "reference", "nodes", NULL };
	static const char *const keys2[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "classes", "reference", "nodes", NULL };
	static const char *const keys3[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "classes", "reference", "nodes", "v3", NULL };
	static const char *const keys4[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "classes", "reference", "nodes", "v3", "v4", NULL };
	memset(p, 0, sizeof *p);
	arena_init(&p->arena);
	struct ctx c = { p, err, errlen };
	p->path = arena_strndup(&p->arena, path, strlen(path));
	struct zio_reader *r = zr_open(path, false, err, errlen);
	if (!r)
		return -1;
	char *buf;
	size_t len;
	int rc = zr_slurp(r, &buf, &len, err, errlen);
	p->bytes = zr_raw_bytes(r);
	zr_raw_xxh3(r, p->xxh3);
	zr_close(r);
	if (rc < 0)
		return -1;
	struct json *root;
	char msg[400];
	rc = json_parse(&p->arena, buf, len, &root, msg, sizeof msg);
	free(buf);
	if (rc)
		return fail(&c, "%s", msg);
	if (root->kind != JSON_OBJECT)
		return fail(&c, "profile must be a JSON object");
	struct json *schema = need(&c, root, "schema", JSON_STRING, "profile"), *name, *origin;
	if (!schema)
		return -1;
	if (!strcmp(schema->u.str.s, SYNTH_PROFILE_SCHEMA))
		p->version = 1;
	else if (!strcmp(schema->u.str.s, SYNTH_PROFILE_SCHEMA2))
		p->version = 2;
	else if (!strcmp(schema->u.str.s, SYNTH_PROFILE_SCHEMA3))
		p->version = 3;
	else if (!strcmp(schema->u.str.s, SYNTH_PROFILE_SCHEMA4))
		p->version = 4;
	else
		return fail(&c, "unsupported schema '%s' (want '%s', '%s', '%s' or '%s')", schema->u.str.s, SYNTH_PROFILE_SCHEMA,
			SYNTH_PROFILE_SCHEMA2, SYNTH_PROFILE_SCHEMA3, SYNTH_PROFILE_SCHEMA4);
	if ((p->version == 4 ? nd_check_keys(root, ND_KEYS(keys4), msg, sizeof msg) : p->version == 3 ? nd_check_keys(root, ND_KEYS(keys3), msg, sizeof msg) :
	     p->version == 2 ? nd_check_keys(root, ND_KEYS(keys2), msg, sizeof msg) : nd_check_keys(root, ND_KEYS(keys1), msg, sizeof msg)))
		return fail(&c, "%s", msg);
	if (!(name = need(&c, root, "name", JSON_STRING, "profile")) || !(origin = need(&c, root, "time_origin", JSON_STRING, "profile")))
		return -1;
	if (synth_check_name(p->path, name->u.str.s, name->u.str.len, err, errlen) ||
	    synth_check_origin(p->path, origin->u.str.s, origin->u.str.len, err, errlen))
		return -1;
	p->name = dup(&c, name);
	p->time_origin = dup(&c, origin);
	p->attribution = json_get(root, "attribution");
	if (load_counts(&c, root) || load_nodes(&c, root) || load_models(&c, root) || load_workers(&c, root) ||
	    load_quantiles(&c, root) || load_orgs(&c, root) || load_classes(&c, root) || (p->version >= 3 && load_v3(&c, root)) ||
	    (p->version == 4 && synth_profile_load4(p, root, err, errlen)))
		return -1;
	return 0;
}

void synth_profile_release(struct synth_profile *p)
{
	arena_release(&p->arena);
	memset(p, 0, sizeof *p);
}
