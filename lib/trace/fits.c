/*
 * fits — trace_check_fits (trace.h, issue 36): for the physical placement, every job's
 * workers must fit the empty cluster. A worker takes, on one node, gpus / workers whole GPUs
 * (or one GPU's share when the job has gpu_milli), its cpu_milli and memory_mib, on a node of
 * its gpu_model ('*' = any) and, with a gpu_spec, of one of the spec's models. A node field
 * that is absent does not limit (the trace does not model it); a job field that is absent asks
 * for nothing. Jobs with the same request are checked once, so the cost is distinct requests
 * x nodes, not jobs x nodes.
 */
#include "trace/trace.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A worker's request. */
struct req {
	const char *model, *spec;       /* spec NULL = any */
	long long gpus, share;          /* whole GPUs per worker (a share: gpus 1, share its milli) */
	long long cpu, mem, workers;
};

static struct req req_of(const struct trace_job *j)
{
	struct req r = { .model = j->model, .spec = (j->res & TRACE_RES_GPU_SPEC) ? j->gpu_spec : NULL };
	r.workers = (j->res & TRACE_RES_WORKERS) ? j->workers : 1;
	if (j->res & TRACE_RES_GPU_MILLI) {
		r.gpus = 1;
		r.share = j->gpu_milli;
	} else
		r.gpus = (long long)ceil(j->gpus / (double)r.workers);   /* a pool trace's fraction needs one GPU */
	r.cpu = (j->res & TRACE_RES_CPU) ? j->cpu_milli : 0;
	r.mem = (j->res & TRACE_RES_MEM) ? j->memory_mib : 0;
	return r;
}

static int strcmp0(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int req_cmp(const struct req *a, const struct req *b)
{
	int c;
	if ((c = strcmp(a->model, b->model)) || (c = strcmp0(a->spec, b->spec)))
		return c;
	const long long x[] = { a->gpus, a->share, a->cpu, a->mem, a->workers }, y[] = { b->gpus, b->share, b->cpu, b->mem, b->workers };
	for (size_t i = 0; i < sizeof x / sizeof *x; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

struct item { struct req r; size_t idx; };

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	int c = req_cmp(&a->r, &b->r);
	return c ? c : a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Whether model is one of spec's '|'-separated names. */
static bool in_spec(const char *spec, const char *model)
{
	size_t n = strlen(model);
	for (const char *p = spec;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !memcmp(p, model, n))
			return true;
		if (!bar)
			return false;
		p = bar + 1;
	}
}

/* Workers of r one empty node holds (0 when none; capped, the caller compares with workers). */
static long long node_holds(const struct trace_node *n, const struct req *r)
{
	long long k = n->gpu_count / r->gpus;
	if (r->share)
		k = n->gpu_count * (1000 / r->share);
	if ((n->res & TRACE_RES_CPU) && r->cpu > 0 && n->cpu_milli / r->cpu < k)
		k = n->cpu_milli / r->cpu;
	if ((n->res & TRACE_RES_MEM) && r->mem > 0 && n->memory_mib / r->mem < k)
		k = n->memory_mib / r->mem;
	return k;
}

/* 0, or -1 and why r can never be placed. */
static int check_req(const struct trace *t, const struct req *r, const char *id, char *err, size_t errlen)
{
	long long max_gpus = -1, max_cpu = -1, max_mem = -1, holds = 0;
	bool cpu_limited = false, mem_limited = false;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct trace_node *n = &t->nodes[i];
		if ((strcmp(r->model, "*") && strcmp(r->model, n->model)) || (r->spec && !in_spec(r->spec, n->model)))
			continue;
		if (n->gpu_count > max_gpus)
			max_gpus = n->gpu_count;
		if (n->gpu_count < r->gpus)
			continue;
		long long cpu = (n->res & TRACE_RES_CPU) ? n->cpu_milli : TRACE_MAX_RES;
		cpu_limited |= (n->res & TRACE_RES_CPU) != 0;
		if (cpu > max_cpu)
			max_cpu = cpu;
		if (cpu < r->cpu)
			continue;
		long long mem = (n->res & TRACE_RES_MEM) ? n->memory_mib : TRACE_MAX_RES;
		mem_limited |= (n->res & TRACE_RES_MEM) != 0;
		if (mem > max_mem)
			max_mem = mem;
		if (mem < r->mem)
			continue;
		holds += node_holds(n, r);
		if (holds >= r->workers)
			return 0;
	}
	if (max_gpus < 0) {
		if (r->spec)
			snprintf(err, errlen, "job '%s' can never be placed: no node has a model of its gpu_spec '%s'%s%s%s", id, r->spec,
				 strcmp(r->model, "*") ? " and gpu_model '" : "", strcmp(r->model, "*") ? r->model : "", strcmp(r->model, "*") ? "'" : "");
		else
			snprintf(err, errlen, "job '%s' can never be placed: no node has GPU model '%s'", id, r->model);
	} else if (max_cpu < 0)
		snprintf(err, errlen, "job '%s' can never be placed: a worker needs %lld GPUs on one node, and the largest node of its models has %lld", id,
			 r->gpus, max_gpus);
	else if (max_mem < 0)
		snprintf(err, errlen, "job '%s' can never be placed: a worker needs %lld milli-CPUs, and the most a node with its GPUs has is %lld", id, r->cpu,
			 cpu_limited ? max_cpu : 0);
	else if (holds == 0)
		snprintf(err, errlen, "job '%s' can never be placed: a worker needs %lld MiB of memory, and the most a node with its GPUs and CPUs has is %lld", id,
			 r->mem, mem_limited ? max_mem : 0);
	else
		snprintf(err, errlen, "job '%s' can never be placed: its %lld workers fit the empty cluster only %lld at a time", id, r->workers, holds);
	return -1;
}

int trace_check_fits(const struct trace *t, char *err, size_t errlen)
{
	size_t n = t->n_jobs, first_bad = n;
	struct item *it = xmalloc((n + 1) * sizeof *it);
	for (size_t i = 0; i < n; i++)
		it[i] = (struct item){ req_of(&t->jobs[i]), i };
	qsort(it, n, sizeof *it, item_cmp);
	char why[512];
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && !req_cmp(&it[a].r, &it[b].r); b++)
			;
		/* it[a] is the group's first job in trace order (ties sort by index) */
		if (it[a].idx < first_bad && check_req(t, &it[a].r, t->jobs[it[a].idx].id, why, sizeof why)) {
			first_bad = it[a].idx;
			snprintf(err, errlen, "%s", why);
		}
	}
	free(it);
	return first_bad < n ? -1 : 0;
}
