#include "trace/trace.h"
#include "trace/res.h"
#include "core/canon.h"
#include "core/ndstream.h"
#include "core/xalloc.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof *t);
	arena_init(&t->arena);
	t->version = 1;
	t->source = json_object(&t->arena);
	t->skipped_rows = json_object(&t->arena);
}

void trace_release(struct trace *t)
{
	free(t->nodes);
	if (!t->jobs_shared)
		free(t->jobs);
	free(t->extra);
	arena_release(&t->arena);
	memset(t, 0, sizeof *t);
}

struct trace_node *trace_add_node(struct trace *t)
{
	t->nodes = xgrow(t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof *t->nodes);
	struct trace_node *n = &t->nodes[t->n_nodes++];
	memset(n, 0, sizeof *n);
	return n;
}

struct trace_job *trace_add_job(struct trace *t)
{
	t->jobs = xgrow(t->jobs, &t->cap_jobs, t->n_jobs + 1, sizeof *t->jobs);
	struct trace_job *j = &t->jobs[t->n_jobs++];
	memset(j, 0, sizeof *j);
	return j;
}

void trace_reserve_jobs(struct trace *t, size_t n)
{
	t->jobs = xgrow_large(t->jobs, &t->cap_jobs, t->n_jobs + n, sizeof *t->jobs);
}

char *trace_strdup(struct trace *t, const char *s)
{
	return arena_strndup(&t->arena, s, strlen(s));
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct trace_node *)a)->id, ((const struct trace_node *)b)->id);
}

int trace_job_cmp(const struct trace_job *a, const struct trace_job *b)
{
	if (a->submit < b->submit)
		return -1;
	if (a->submit > b->submit)
		return 1;
	return strcmp(a->id, b->id);
}

static int job_cmp(const void *a, const void *b)
{
	return trace_job_cmp(a, b);
}

void trace_sort(struct trace *t)
{
	qsort(t->nodes, t->n_nodes, sizeof *t->nodes, node_cmp);
	qsort(t->jobs, t->n_jobs, sizeof *t->jobs, job_cmp);
}

void trace_assign_phases(struct trace *t)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].phase = !t->has_window ? PHASE_NONE : t->jobs[i].submit < t->eval_start ? PHASE_WARMUP : PHASE_EVAL;
}

long long trace_capacity(const struct trace *t, const char *model)
{
	long long c = 0;
	bool any = !strcmp(model, "*");
	for (size_t i = 0; i < t->n_nodes; i++)
		if (any || !strcmp(t->nodes[i].model, model))
			c += t->nodes[i].gpu_count;
	return c;
}

int trace_check_id(const char *what, const char *s, char *err, size_t errlen)
{
	const char *why = text_id_problem(s, strlen(s));
	if (!why)
		return 0;
	char q[100];
	text_quote(q, sizeof q, s, strlen(s));
	snprintf(err, errlen, "%s '%s' %s", what, q, why);
	return -1;
}

int trace_check_node(const struct trace_node *n, long long *total, char *err, size_t errlen)
{
	char e[200];
	if (trace_check_id("node_id", n->id, err, errlen))
		return -1;
	if (trace_check_id("gpu_model", n->model, e, sizeof e)) {
		snprintf(err, errlen, "node '%s': %s", n->id, e);
		return -1;
	}
	if (n->gpu_count <= 0 || n->gpu_count > TRACE_MAX_NODE_GPUS) {
		snprintf(err, errlen, "node '%s': gpu_count %lld is outside 1..%lld", n->id, n->gpu_count, TRACE_MAX_NODE_GPUS);
		return -1;
	}
	if (total) {
		if (n->gpu_count > TRACE_MAX_CAPACITY - *total) {
			snprintf(err, errlen, "node '%s': the nodes' GPUs add up to more than %lld", n->id, TRACE_MAX_CAPACITY);
			return -1;
		}
		*total += n->gpu_count;
	}
	return trace_res_check_node(n, err, errlen);
}

int trace_check_job(const struct trace_job *j, int version, char *err, size_t errlen)
{
	char e[200];
	if (trace_check_id("job_id", j->id, err, errlen))
		return -1;
	if (trace_check_id("gpu_model", j->model, e, sizeof e) || (j->tenant && trace_check_id("tenant", j->tenant, e, sizeof e))) {
		snprintf(err, errlen, "job '%s': %s", j->id, e);
		return -1;
	}
	if (version == 2 && !j->tenant) {
		snprintf(err, errlen, "job '%s': schema v2 needs a non-empty tenant", j->id);
		return -1;
	}
	if (version == 1 && j->tenant) {
		snprintf(err, errlen, "job '%s': tenant in a schema v1 trace", j->id);
		return -1;
	}
	if (!(j->gpus > 0 && j->gpus <= (double)TRACE_MAX_CAPACITY)) {
		snprintf(err, errlen, "job '%s': gpus must be in (0, %lld]", j->id, TRACE_MAX_CAPACITY);
		return -1;
	}
	if (!(j->duration > EPS && j->duration <= TRACE_MAX_SECONDS)) {
		snprintf(err, errlen, "job '%s': duration must be in (1e-9, 1e12] seconds", j->id);
		return -1;
	}
	if (!(j->submit >= 0 && j->submit <= TRACE_MAX_SECONDS)) {
		snprintf(err, errlen, "job '%s': submit must be in [0, 1e12] seconds", j->id);
		return -1;
	}
	if (j->time_limit < 0 || (double)j->time_limit > TRACE_MAX_SECONDS) {
		snprintf(err, errlen, "job '%s': time_limit must be an integer in [1, 1e12] seconds", j->id);
		return -1;
	}
	return trace_res_check_job(j, err, errlen);
}

static int mc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct trace_modelcap *)a)->model, ((const struct trace_modelcap *)b)->model);
}

void trace_caps_build(struct trace_caps *c, const struct trace *t)
{
	c->m = xmalloc((t->n_nodes + 1) * sizeof *c->m);
	c->total = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		c->m[i].model = t->nodes[i].model;
		c->m[i].cap = t->nodes[i].gpu_count;
		c->total += t->nodes[i].gpu_count;
	}
	qsort(c->m, t->n_nodes, sizeof *c->m, mc_cmp);
	size_t k = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		if (k && !strcmp(c->m[k - 1].model, c->m[i].model))
			c->m[k - 1].cap += c->m[i].cap;
		else
			c->m[k++] = c->m[i];
	}
	c->n = k;
}

long long trace_caps_get(const struct trace_caps *c, const char *model)
{
	if (!strcmp(model, "*"))
		return c->total;
	struct trace_modelcap key = { model, 0 }, *hit = bsearch(&key, c->m, c->n, sizeof *c->m, mc_cmp);
	return hit ? hit->cap : 0;
}

void trace_caps_release(struct trace_caps *c)
{
	free(c->m);
	memset(c, 0, sizeof *c);
}

static int strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int trace_validate(const struct trace *t, char *err, size_t errlen)
{
	if (!t->trace_id || trace_check_id("trace_id", t->trace_id, err, errlen))
		return -1;
	if (t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no nodes");
		return -1;
	}
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "trace has no jobs");
		return -1;
	}
	long long total = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct trace_node *n = &t->nodes[i];
		if (trace_check_node(n, &total, err, errlen))
			return -1;
		if (i && strcmp(t->nodes[i - 1].id, n->id) >= 0) {
			snprintf(err, errlen, !strcmp(t->nodes[i - 1].id, n->id) ? "duplicate node_id '%s'" : "nodes not sorted by node_id at '%s'", n->id);
			return -1;
		}
	}
	struct trace_caps caps;
	trace_caps_build(&caps, t);
	size_t in_window = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (trace_check_job(j, t->version, err, errlen))
			goto fail;
		long long cap = trace_caps_get(&caps, j->model);
		if (j->gpus > (double)cap) {
			snprintf(err, errlen, "job '%s': asks for %g GPUs of model '%s', capacity is %lld", j->id, j->gpus, j->model, cap);
			goto fail;
		}
		if (i) {
			int c = trace_job_cmp(&t->jobs[i - 1], j);
			if (c >= 0) {
				snprintf(err, errlen, c == 0 ? "duplicate job_id '%s'" : "jobs not sorted by (submit, job_id) at '%s'", j->id);
				goto fail;
			}
		}
		if (t->has_window && j->submit >= t->eval_start && j->submit <= t->eval_end)
			in_window++;
	}
	/* job ids must be unique across different submit times too (nothing to sort when the
	 * ids already increase in trace order, as in synthetic traces) */
	bool ids_increase = true;
	for (size_t i = 1; i < t->n_jobs && ids_increase; i++)
		ids_increase = strcmp(t->jobs[i - 1].id, t->jobs[i].id) < 0;
	if (!ids_increase) {
		const char **ids = xmalloc(t->n_jobs * sizeof *ids);
		for (size_t i = 0; i < t->n_jobs; i++)
			ids[i] = t->jobs[i].id;
		qsort(ids, t->n_jobs, sizeof *ids, strptr_cmp);
		for (size_t i = 1; i < t->n_jobs; i++)
			if (!strcmp(ids[i - 1], ids[i])) {
				snprintf(err, errlen, "duplicate job_id '%s'", ids[i]);
				free(ids);
				goto fail;
			}
		free(ids);
	}
	if (t->has_window) {
		if (!(t->eval_start >= 0 && t->eval_start < t->eval_end && t->eval_end <= TRACE_MAX_SECONDS)) {
			snprintf(err, errlen, "window needs 0 <= start < end <= 1e12");
			goto fail;
		}
		if (t->has_warmup && !(t->warmup_start >= 0 && t->warmup_start <= t->eval_start)) {
			snprintf(err, errlen, "window needs 0 <= warmup_start <= start");
			goto fail;
		}
		if (t->jobs[0].submit > t->eval_start) {
			snprintf(err, errlen, "first arrival is after the window start");
			goto fail;
		}
		if (t->jobs[t->n_jobs - 1].submit > t->eval_end) {
			snprintf(err, errlen, "arrival after the window end");
			goto fail;
		}
		if (in_window == 0) {
			snprintf(err, errlen, "no arrival inside the evaluation window");
			goto fail;
		}
	}
	trace_caps_release(&caps);
	return 0;
fail:
	trace_caps_release(&caps);
	return -1;
}

/* ---- stream reading ---- */

static const char *const node_keys[] = { "type", "node_id", "gpu_model", "gpu_count", "cpu_milli", "memory_mib", NULL };
static const char *const job_keys[] = { "type", "job_id", "submit", "duration", "gpus", "class", "gpu_model", "tenant", "phase", "time_limit",
	"workers", "cpu_milli", "memory_mib", "gpu_milli", "gpu_spec", NULL };
static const char *const header_keys[] = { "type", "schema", "tool", "version", "inputs", "params", "trace_id",
	"time_origin", "window", "source", "skipped_rows", NULL };

static const char *get_str(const struct json *o, const char *k)
{
	struct json *v = json_get(o, k);
	return v && v->kind == JSON_STRING ? v->u.str.s : NULL;
}

static int get_num(const struct json *o, const char *k, double *d, bool *is_int)
{
	struct json *v = json_get(o, k);
	if (!json_is_num(v))
		return -1;
	*d = json_num(v);
	if (is_int)
		*is_int = v->kind == JSON_INT;
	return 0;
}

static int read_header(struct trace *t, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	const char *schema = get_str(h, "schema");
	char kerr[128];
	if (!strcmp(schema, TRACE_SCHEMA_V1))
		t->version = 1;
	else if (!strcmp(schema, TRACE_SCHEMA_V2))
		t->version = 2;
	else {
		ndr_errorf(r, err, errlen, "not a trace stream (schema '%s')", schema);
		return -1;
	}
	if (nd_check_keys(h, ND_KEYS(header_keys), kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "trace header: %s", kerr);
		return -1;
	}
	t->header = json_clone(&t->arena, h);
	const char *id = get_str(h, "trace_id"), *origin = get_str(h, "time_origin");
	struct json *src = json_get(h, "source"), *win = json_get(h, "window"), *sk = json_get(h, "skipped_rows");
	if (!id || !origin || !src || src->kind != JSON_OBJECT || !win || (win->kind != JSON_NULL && win->kind != JSON_OBJECT)) {
		ndr_errorf(r, err, errlen, "trace header needs string 'trace_id', 'time_origin', object 'source' and 'window'");
		return -1;
	}
	char e[300];
	if (trace_check_id("trace_id", id, e, sizeof e) || trace_check_id("time_origin", origin, e, sizeof e)) {
		ndr_errorf(r, err, errlen, "trace header: %s", e);
		return -1;
	}
	t->trace_id = trace_strdup(t, id);
	t->time_origin = trace_strdup(t, origin);
	t->source = json_clone(&t->arena, src);
	if (sk && sk->kind == JSON_OBJECT)
		t->skipped_rows = json_clone(&t->arena, sk);
	if (win->kind == JSON_OBJECT) {
		static const char *const wkeys[] = { "eval_start", "eval_end", "warmup_start", NULL };
		if (nd_check_keys(win, ND_KEYS(wkeys), kerr, sizeof kerr) || get_num(win, "eval_start", &t->eval_start, NULL) ||
		    get_num(win, "eval_end", &t->eval_end, NULL)) {
			ndr_errorf(r, err, errlen, "trace header: malformed 'window'");
			return -1;
		}
		t->has_window = true;
		if (json_get(win, "warmup_start")) {
			if (get_num(win, "warmup_start", &t->warmup_start, NULL)) {
				ndr_errorf(r, err, errlen, "trace header: malformed 'window.warmup_start'");
				return -1;
			}
			t->has_warmup = true;
		}
		double hi = TRACE_MAX_SECONDS;
		if (!(t->eval_start >= 0 && t->eval_start <= hi && t->eval_end >= 0 && t->eval_end <= hi) ||
		    (t->has_warmup && !(t->warmup_start >= 0 && t->warmup_start <= hi))) {
			ndr_errorf(r, err, errlen, "trace header: window times must be in [0, 1e12] seconds");
			return -1;
		}
	}
	return 0;
}

static int read_node(struct trace *t, struct nd_reader *r, const struct json *v, long long *total, char *err, size_t errlen)
{
	char kerr[128];
	if (nd_check_keys(v, ND_KEYS(node_keys), kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "node: %s", kerr);
		return -1;
	}
	const char *id = get_str(v, "node_id"), *model = get_str(v, "gpu_model");
	struct json *c = json_get(v, "gpu_count");
	if (!id || !model || !c || c->kind != JSON_INT || c->u.i <= 0) {
		ndr_errorf(r, err, errlen, "node needs string 'node_id', 'gpu_model' and integer 'gpu_count' > 0");
		return -1;
	}
	if (t->n_jobs) {
		ndr_errorf(r, err, errlen, "node record after job records");
		return -1;
	}
	struct trace_node n = { .id = (char *)id, .model = (char *)model, .gpu_count = c->u.i };
	char e[300];
	if (trace_res_node_json(&n, v, e, sizeof e) || trace_check_node(&n, total, e, sizeof e)) {
		ndr_errorf(r, err, errlen, "%s", e);
		return -1;
	}
	/* the order is checked at the node's own line (trace_validate checks built traces) */
	if (t->n_nodes && strcmp(t->nodes[t->n_nodes - 1].id, id) >= 0) {
		if (!strcmp(t->nodes[t->n_nodes - 1].id, id))
			ndr_errorf(r, err, errlen, "node '%s': duplicate node_id", id);
		else
			ndr_errorf(r, err, errlen, "node '%s': nodes must be sorted by node_id (after '%s')", id, t->nodes[t->n_nodes - 1].id);
		return -1;
	}
	struct trace_node *nd = trace_add_node(t);
	nd->id = trace_strdup(t, id);
	nd->model = trace_strdup(t, model);
	nd->gpu_count = c->u.i;
	nd->cpu_milli = n.cpu_milli;
	nd->memory_mib = n.memory_mib;
	nd->res = n.res;
	return 0;
}

/* A job record's fields, from the parsed JSON or from the canonical fast path. Strings are
 * NULL when the key is absent or not a string; has_* say whether the key is present. */
struct jobrec {
	const char *id, *cls, *model, *tenant, *phase;
	bool has_tenant, has_phase, nums_ok;
	double submit, duration, gpus;
	bool submit_int, duration_int, gpus_int;
	long long time_limit;           /* issue 37: 0 = absent, -1 = present but not an integer > 0 */
	const struct json *v;           /* issue 36: the parsed record, for the resource fields (NULL on the fast path) */
};

/* The job of t->share with j's (submit, id), or NULL; both streams are in (submit, id)
 * order, so one cursor walks share's jobs once over a whole read (an unsorted stream only
 * finds fewer: the read fails on it anyway). */
static const struct trace_job *share_match(struct trace *t, const struct trace_job *j)
{
	const struct trace *l = t->share;
	int c = -1;
	while (t->share_pos < l->n_jobs && (c = trace_job_cmp(&l->jobs[t->share_pos], j)) < 0)
		t->share_pos++;
	return t->share_pos < l->n_jobs && c == 0 ? &l->jobs[t->share_pos] : NULL;
}

/* Every field the same: the numbers bit for bit (a -0.0 is not a 0.0), the strings by
 * pointer (share_match gave j like's strings wherever they are equal). */
static bool same_job(const struct trace_job *a, const struct trace_job *b)
{
	return !memcmp(&a->submit, &b->submit, sizeof a->submit) && !memcmp(&a->duration, &b->duration, sizeof a->duration) &&
	       !memcmp(&a->gpus, &b->gpus, sizeof a->gpus) && a->submit_int == b->submit_int && a->duration_int == b->duration_int &&
	       a->gpus_int == b->gpus_int && a->hp == b->hp && a->phase == b->phase && a->id == b->id && a->model == b->model &&
	       a->tenant == b->tenant && a->time_limit == b->time_limit && trace_res_same(a, b);
}

static int apply_job(struct trace *t, struct nd_reader *r, const struct jobrec *f, char *err, size_t errlen)
{
	const char *id = f->id, *cls = f->cls, *model = f->model, *tenant = f->tenant, *phase = f->phase;
	struct trace_job *j = trace_add_job(t);
	if (!id || !cls || !model) {
		ndr_errorf(r, err, errlen, "job needs string 'job_id', 'class' and 'gpu_model'");
		return -1;
	}
	if (!f->nums_ok) {
		ndr_errorf(r, err, errlen, "job '%s': 'submit', 'duration' and 'gpus' must be numbers", id);
		return -1;
	}
	j->submit = f->submit;
	j->submit_int = f->submit_int;
	j->duration = f->duration;
	j->duration_int = f->duration_int;
	j->gpus = f->gpus;
	j->gpus_int = f->gpus_int;
	if (f->time_limit < 0) {
		ndr_errorf(r, err, errlen, "job '%s': 'time_limit' must be an integer number of seconds > 0", id);
		return -1;
	}
	j->time_limit = f->time_limit;
	if (!strcmp(cls, "HP"))
		j->hp = true;
	else if (strcmp(cls, "Spot")) {
		ndr_errorf(r, err, errlen, "job '%s': class must be 'HP' or 'Spot', not '%s'", id, cls);
		return -1;
	}
	if ((t->version == 2) != (tenant != NULL) || (f->has_tenant && !tenant)) {
		ndr_errorf(r, err, errlen, t->version == 2 ? "job '%s': schema v2 needs a string 'tenant'" : "job '%s': 'tenant' in a schema v1 trace", id);
		return -1;
	}
	if (t->has_window != (phase != NULL) || (f->has_phase && !phase)) {
		ndr_errorf(r, err, errlen, t->has_window ? "job '%s': 'phase' missing in a windowed trace" : "job '%s': 'phase' without a window", id);
		return -1;
	}
	if (phase) {
		enum trace_phase want = j->submit < t->eval_start ? PHASE_WARMUP : PHASE_EVAL;
		j->phase = !strcmp(phase, "warmup") ? PHASE_WARMUP : !strcmp(phase, "eval") ? PHASE_EVAL : PHASE_NONE;
		if (j->phase != want) {
			ndr_errorf(r, err, errlen, "job '%s': phase '%s' does not match the window", id, phase);
			return -1;
		}
	}
	j->id = (char *)id;
	j->model = (char *)model;
	j->tenant = (char *)tenant;
	char e[300];
	if ((f->v && trace_res_job_json(j, f->v, e, sizeof e)) || trace_check_job(j, t->version, e, sizeof e)) {
		j->id = j->model = j->tenant = j->gpu_spec = NULL;
		ndr_errorf(r, err, errlen, "%s", e);
		return -1;
	}
	const struct trace_job *lj = t->share ? share_match(t, j) : NULL;
	j->id = lj ? lj->id : trace_strdup(t, id);
	j->model = lj && !strcmp(lj->model, model) ? lj->model : trace_strdup(t, model);
	j->tenant = !tenant ? NULL : lj && lj->tenant && !strcmp(lj->tenant, tenant) ? lj->tenant : trace_strdup(t, tenant);
	if (j->gpu_spec)
		j->gpu_spec = lj && lj->gpu_spec && !strcmp(lj->gpu_spec, j->gpu_spec) ? lj->gpu_spec : trace_strdup(t, j->gpu_spec);
	if (t->share_all && !(lj == &t->share->jobs[t->n_jobs - 1] && same_job(lj, j)))
		t->share_all = false;
	if (t->n_jobs > 1 && trace_job_cmp(&t->jobs[t->n_jobs - 2], j) >= 0) {
		ndr_errorf(r, err, errlen, "job '%s': jobs must be sorted by (submit, job_id) and unique", id);
		return -1;
	}
	return 0;
}

static int read_job(struct trace *t, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	char kerr[128];
	if (nd_check_keys(v, ND_KEYS(job_keys), kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "job: %s", kerr);
		return -1;
	}
	struct jobrec f = { 0 };
	f.id = get_str(v, "job_id");
	f.cls = get_str(v, "class");
	f.model = get_str(v, "gpu_model");
	f.tenant = get_str(v, "tenant");
	f.phase = get_str(v, "phase");
	f.has_tenant = json_get(v, "tenant") != NULL;
	f.has_phase = json_get(v, "phase") != NULL;
	f.v = v;
	struct json *tl = json_get(v, "time_limit");
	f.time_limit = !tl ? 0 : tl->kind == JSON_INT && tl->u.i > 0 ? tl->u.i : -1;
	f.nums_ok = !(get_num(v, "submit", &f.submit, &f.submit_int) || get_num(v, "duration", &f.duration, &f.duration_int) ||
		      get_num(v, "gpus", &f.gpus, &f.gpus_int));
	return apply_job(t, r, &f, err, errlen);
}

/*
 * Fast path for job lines exactly as trace_write emits them: the keys in canonical order,
 * strings of printable ASCII without escapes, plain decimal numbers. Such a line parses to
 * the same record as json_parse would give, so it is validated by the same apply_job. Any
 * other line is declined and goes through the general parser (same errors as before).
 */
struct fastctx {
	char *buf;
	size_t cap;
	struct jobrec f;
};

static int fast_job(void *vctx, const char *line, size_t len)
{
	struct fastctx *c = vctx;
	char *p = canon_line(&c->buf, &c->cap, line, len, "{\"type\":\"job\",\"job_id\":");
	if (!p)
		return 0;
	char *end = c->buf + len;
	struct jobrec *f = &c->f;
	memset(f, 0, sizeof *f);
	if (!canon_str(&p, end, &f->id) || !canon_lit(&p, end, ",\"submit\":", 10) || !canon_num(&p, end, &f->submit, &f->submit_int) ||
	    !canon_lit(&p, end, ",\"duration\":", 12) || !canon_num(&p, end, &f->duration, &f->duration_int) ||
	    !canon_lit(&p, end, ",\"gpus\":", 8) || !canon_num(&p, end, &f->gpus, &f->gpus_int) || !canon_lit(&p, end, ",\"class\":", 9) ||
	    !canon_str(&p, end, &f->cls) || !canon_lit(&p, end, ",\"gpu_model\":", 13) || !canon_str(&p, end, &f->model))
		return 0;
	if (canon_lit(&p, end, ",\"tenant\":", 10)) {
		if (!canon_str(&p, end, &f->tenant))
			return 0;
		f->has_tenant = true;
	}
	if (canon_lit(&p, end, ",\"phase\":", 9)) {
		if (!canon_str(&p, end, &f->phase))
			return 0;
		f->has_phase = true;
	}
	if (canon_lit(&p, end, ",\"time_limit\":", 14)) {
		double d;
		bool is_int;
		if (!canon_num(&p, end, &d, &is_int) || !is_int || !(d > 0 && d <= TRACE_MAX_SECONDS))
			return 0;
		f->time_limit = (long long)d;
	}
	if (p + 1 != end || *p != '}')
		return 0;
	f->nums_ok = true;
	return 1;
}

/* What the stream reader's callbacks share. fc comes first: ndr_read_stream hands this
 * context to fast_job, which reads it as its struct fastctx. */
struct readctx {
	struct fastctx fc;
	struct trace *t;
	long long total;
};

static int on_header(void *ctx, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	return read_header(((struct readctx *)ctx)->t, r, h, err, errlen);
}

static int on_fast(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct readctx *c = ctx;
	return apply_job(c->t, r, &c->fc.f, err, errlen);
}

static int on_record(void *ctx, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	struct readctx *c = ctx;
	struct trace *t = c->t;
	const char *type = get_str(v, "type");
	if (!strcmp(type, "node"))
		return read_node(t, r, v, &c->total, err, errlen);
	if (!strcmp(type, "job"))
		return read_job(t, r, v, err, errlen);
	size_t len;
	const char *raw = ndr_raw(r, &len);
	t->extra = xgrow(t->extra, &t->cap_extra, t->n_extra + 1, sizeof *t->extra);
	t->extra[t->n_extra++] = arena_strndup(&t->arena, raw, len);
	return 0;
}

static int on_finish(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct trace *t = ((struct readctx *)ctx)->t;
	memcpy(t->fingerprint, ndr_fingerprint(r), 33);
	snprintf(t->input_name, sizeof t->input_name, "%s", ndr_name(r));
	char verr[400];
	if (trace_validate(t, verr, sizeof verr)) {
		snprintf(err, errlen, "%s:%lu: invalid trace: %s", ndr_name(r), ndr_lineno(r), verr);
		return -1;
	}
	return 0;
}

/* what, header, fast, fast_record, record, finish (core/ndstream.h) */
static const struct ndr_stream_ops trace_stream = { "trace", on_header, fast_job, on_fast, on_record, on_finish };

int trace_read(struct trace *t, struct nd_reader *r, char *err, size_t errlen)
{
	struct readctx c = { .t = t };
	int rc = ndr_read_stream(r, &trace_stream, &c, err, errlen);
	free(c.fc.buf);
	return rc;
}

int trace_load(struct trace *t, const char *path, char *err, size_t errlen)
{
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -1;
	int rc = trace_read(t, r, err, errlen);
	ndr_close(r);
	return rc;
}

int trace_load_sharing(struct trace *t, const char *path, const struct trace *like, char *err, size_t errlen)
{
	t->share = like;
	t->share_pos = 0;
	t->share_all = true;
	int rc = trace_load(t, path, err, errlen);
	if (!rc && t->share_all && t->n_jobs == like->n_jobs && t->n_jobs) {
		free(t->jobs);
		t->jobs = like->jobs;   /* read only through t from now on (see trace.h) */
		t->cap_jobs = t->n_jobs;
		t->jobs_shared = true;
	}
	t->share = NULL;
	t->share_all = false;
	return rc;
}
