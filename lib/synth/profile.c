/* Load and validate a schednav.synth-profile/1 or /2 document (docs/profiles.md). */
#include "synth/synth.h"
#include "core/text.h"
#include "core/die.h"
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
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s", c->p->path, msg);
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

static int load_models(struct ctx *c, const struct json *root)
{
	static const char *const keys1[] = { "model", "jobs", "gpus_per_worker", "reference", NULL };
	static const char *const keys2[] = { "model", "jobs", "workers", "gpu_seconds", "reference", NULL };
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
		if ((p->version == 2 ? nd_check_keys(x, ND_KEYS(keys2), msg, sizeof msg) : nd_check_keys(x, ND_KEYS(keys1), msg, sizeof msg)))
			return fail(c, "%s: %s", where, msg);
		struct json *name = need(c, x, "model", JSON_STRING, where), *jobs, *gpw = NULL, *cells = NULL;
		if (!name || !(jobs = need(c, x, "jobs", JSON_INT, where)))
			return -1;
		if (p->version == 2 ? !(cells = need(c, x, "workers", JSON_ARRAY, where)) : !(gpw = need(c, x, "gpus_per_worker", JSON_ARRAY, where)))
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
	for (size_t i = 0; i < p->n_workers && p->version == 2; i++) {
		long long sum = 0;
		for (size_t m = 0; m < p->n_models; m++)
			for (size_t k = 0; k < p->models[m].n_cells; k++)
				sum += p->models[m].cell_workers[k] == p->worker_value[i] ? p->models[m].cell_jobs[k] : 0;
		if (sum != p->worker_jobs[i])
			return fail(c, "'worker_counts[%zu]': %lld jobs with %lld workers, the models' tables have %lld", i,
				p->worker_jobs[i], p->worker_value[i], sum);
	}
	for (size_t m = 0; m < p->n_models && p->version == 2; m++)
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
		if (p->version == 2 && x->kind == JSON_ARRAY && x->u.arr.n == 4) {
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

int synth_profile_load(struct synth_profile *p, const char *path, char *err, size_t errlen)
{
	static const char *const keys1[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "reference", "nodes", NULL };
	static const char *const keys2[] = { "schema", "name", "description", "attribution", "builder", "built_from",
		"time_origin", "hourly_jobs", "daily_class_jobs", "gpu_models", "worker_counts", "duration_quantiles",
		"organizations", "classes", "reference", "nodes", NULL };
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
	else
		return fail(&c, "unsupported schema '%s' (want '%s' or '%s')", schema->u.str.s, SYNTH_PROFILE_SCHEMA, SYNTH_PROFILE_SCHEMA2);
	if ((p->version == 2 ? nd_check_keys(root, ND_KEYS(keys2), msg, sizeof msg) : nd_check_keys(root, ND_KEYS(keys1), msg, sizeof msg)))
		return fail(&c, "%s", msg);
	if (!(name = need(&c, root, "name", JSON_STRING, "profile")) || !(origin = need(&c, root, "time_origin", JSON_STRING, "profile")))
		return -1;
	if (!name->u.str.len || !origin->u.str.len)
		return fail(&c, "'name' and 'time_origin' must not be empty");
	p->name = dup(&c, name);
	p->time_origin = dup(&c, origin);
	p->attribution = json_get(root, "attribution");
	if (load_counts(&c, root) || load_nodes(&c, root) || load_models(&c, root) || load_workers(&c, root) ||
	    load_quantiles(&c, root) || load_orgs(&c, root) || load_classes(&c, root))
		return -1;
	return 0;
}

void synth_profile_release(struct synth_profile *p)
{
	arena_release(&p->arena);
	memset(p, 0, sizeof *p);
}

int synth_profile_model(const struct synth_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_models; i++)
		if (!strcmp(p->models[i].name, name))
			return (int)i;
	return -1;
}
