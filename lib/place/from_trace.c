/* from_trace — a canonical trace into the physical model (from_trace.h, issue 36). */
#include "place/from_trace.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_nodes(struct place_cluster *c, const struct trace *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct trace_node *n = &t->nodes[i];
		if ((n->res & (TRACE_RES_CPU | TRACE_RES_MEM)) != (TRACE_RES_CPU | TRACE_RES_MEM)) {
			snprintf(err, errlen, "node '%s': no cpu_milli or memory_mib (the physical model needs both: trace-import --resources)", n->id);
			return -1;
		}
		if (n->gpu_count > PLACE_MAX_GPUS) {
			snprintf(err, errlen, "node '%s': %lld GPUs; the physical model holds 1..%d per node", n->id, n->gpu_count, PLACE_MAX_GPUS);
			return -1;
		}
		int m = place_model_index(c, n->model);
		if (m < 0) {
			snprintf(err, errlen, "node '%s': more than %d GPU models", n->id, PLACE_MAX_MODELS);
			return -1;
		}
		place_add_node(c, n->cpu_milli, n->memory_mib, (int)n->gpu_count, m);
	}
	if (c->gpu_capacity == 0) {
		snprintf(err, errlen, "no node");
		return -1;
	}
	return 0;
}

/* The models a job may use as a mask (0 = any); names no node has are left out. */
static uint64_t job_mask(const struct place_cluster *c, const struct trace_job *j)
{
	uint64_t model = 0, spec = 0;
	if (strcmp(j->model, "*")) {
		int m = place_model_find(c, j->model);
		model = m >= 0 ? 1ULL << m : 0;
	}
	if (j->res & TRACE_RES_GPU_SPEC)
		for (const char *p = j->gpu_spec;;) {
			size_t n = strcspn(p, "|");
			char name[TRACE_MAX_SPEC + 1];
			memcpy(name, p, n);
			name[n] = 0;
			int m = place_model_find(c, name);
			if (m >= 0)
				spec |= 1ULL << m;
			if (!p[n])
				break;
			p += n + 1;
		}
	if (strcmp(j->model, "*") && (j->res & TRACE_RES_GPU_SPEC))
		return model & spec;
	return strcmp(j->model, "*") ? model : spec;
}

/* A job's worker as a pod: 0, or -1 and why the physical model cannot hold it. */
static int job_pod(const struct place_cluster *c, const struct trace_job *j, struct place_pod *pod, char *err, size_t errlen)
{
	long long workers = (j->res & TRACE_RES_WORKERS) ? j->workers : 1;
	*pod = (struct place_pod){ .cpu = (j->res & TRACE_RES_CPU) ? j->cpu_milli : 0, .mem = (j->res & TRACE_RES_MEM) ? j->memory_mib : 0 };
	if (j->res & TRACE_RES_GPU_MILLI) {
		pod->num_gpu = 1;
		pod->gpu_milli = (int)j->gpu_milli;
	} else {
		double per = j->gpus / (double)workers;
		if (per != (double)(long long)per) {
			snprintf(err, errlen, "job '%s': %.17g GPUs per worker is not a whole number, and the job has no gpu_milli (trace-import --resources gives shares one)",
				 j->id, per);
			return -1;
		}
		if (per > PLACE_MAX_GPUS) {
			snprintf(err, errlen, "job '%s': %.0f GPUs per worker; the physical model holds 1..%d", j->id, per, PLACE_MAX_GPUS);
			return -1;
		}
		pod->num_gpu = (int)per;
		pod->gpu_milli = PLACE_GPU_MILLI;
	}
	bool restricted = strcmp(j->model, "*") || (j->res & TRACE_RES_GPU_SPEC);
	pod->spec_mask = job_mask(c, j);
	if (restricted && !pod->spec_mask) {
		snprintf(err, errlen, "job '%s': no node has a GPU model it may use", j->id);
		return -1;
	}
	return 0;
}

struct named { const char *id; size_t index; };

static int by_id(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int d = strcmp(x->id, y->id);
	return d ? d : (x->index > y->index) - (x->index < y->index);
}

int place_from_trace(struct place_cluster *c, const struct trace *t, struct place_pod **pods, size_t *npods, char *err, size_t errlen)
{
	*pods = NULL;
	*npods = 0;
	if (add_nodes(c, t, err, errlen) || trace_check_fits(t, err, errlen))
		return -1;
	struct named *order = xmalloc((t->n_jobs + 1) * sizeof *order);
	for (size_t i = 0; i < t->n_jobs; i++)
		order[i] = (struct named){ t->jobs[i].id, i };
	qsort(order, t->n_jobs, sizeof *order, by_id);
	struct place_pod *out = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (size_t k = 0; k < t->n_jobs && !rc; k++) {
		const struct trace_job *j = &t->jobs[order[k].index];
		struct place_pod pod;
		if ((rc = job_pod(c, j, &pod, err, errlen)))
			break;
		long long workers = (j->res & TRACE_RES_WORKERS) ? j->workers : 1;
		for (long long w = 0; w < workers; w++) {
			out = xgrow(out, &cap, n + 1, sizeof *out);
			out[n++] = pod;
		}
	}
	free(order);
	if (rc) {
		free(out);
		return -1;
	}
	*pods = out;
	*npods = n;
	return 0;
}
