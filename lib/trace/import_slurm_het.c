/* import_slurm_het — heterogeneous jobs as one job (issue 37; trace-import slurm's default,
 * --hetjob split keeps the components apart): the components 123+0, 123+1, ... that were
 * kept become one job 123 whose components start together or not at all, as Slurm starts them. The job: the earliest submit, the sum of
 * the GPUs, the longest run (it holds every component's GPUs until the last ends), the
 * longest time_limit (none when a component has none), the components' model when they share
 * one, else "*", and the class of the first component in the file. A joined job has no
 * resource fields (issue 36): its components' workers need not be alike. */
#include "core/xalloc.h"
#include "trace/import_slurm_internal.h"
#include "trace/import_util.h"
#include <stdlib.h>
#include <string.h>

struct het { size_t prefix_len, index; const char *id; };

static int het_cmp(const void *a, const void *b)
{
	const struct het *x = a, *y = b;
	size_t n = x->prefix_len < y->prefix_len ? x->prefix_len : y->prefix_len;
	int c = memcmp(x->id, y->id, n);
	if (c)
		return c;
	if (x->prefix_len != y->prefix_len)
		return x->prefix_len < y->prefix_len ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void imp_slurm_join_hetjobs(struct trace *t, size_t first, struct json *kinds)
{
	struct het *h = xmalloc((t->n_jobs - first + 1) * sizeof *h);
	size_t nh = 0;
	for (size_t i = first; i < t->n_jobs; i++) {
		const char *plus = strchr(t->jobs[i].id, '+');
		if (plus)
			h[nh++] = (struct het){ (size_t)(plus - t->jobs[i].id), i, t->jobs[i].id };
	}
	qsort(h, nh, sizeof *h, het_cmp);
	bool *gone = xcalloc(t->n_jobs + 1, sizeof *gone);
	for (size_t a = 0; a < nh;) {
		size_t b = a + 1;
		while (b < nh && h[b].prefix_len == h[a].prefix_len && !memcmp(h[b].id, h[a].id, h[a].prefix_len))
			b++;
		struct trace_job *j = &t->jobs[h[a].index];   /* the first component in file order */
		bool limits = j->time_limit > 0;
		for (size_t k = a + 1; k < b; k++) {
			const struct trace_job *c = &t->jobs[h[k].index];
			if (c->submit < j->submit)
				j->submit = c->submit;
			if (c->duration > j->duration)
				j->duration = c->duration;
			j->gpus += c->gpus;
			limits = limits && c->time_limit > 0;
			if (c->time_limit > j->time_limit)
				j->time_limit = c->time_limit;
			if (strcmp(c->model, j->model))
				j->model = (char *)"*";
			j->res = 0;     /* issue 36: the components' workers differ; no resource fields */
			gone[h[k].index] = true;
		}
		if (!limits)
			j->time_limit = 0;
		char *id = arena_alloc(&t->arena, h[a].prefix_len + 1);
		memcpy(id, j->id, h[a].prefix_len);
		id[h[a].prefix_len] = 0;
		j->id = id;
		imp_count(&t->arena, kinds, "heterogeneous_jobs");
		a = b;
	}
	size_t w = first;
	for (size_t i = first; i < t->n_jobs; i++)
		if (!gone[i])
			t->jobs[w++] = t->jobs[i];
	t->n_jobs = w;
	free(gone);
	free(h);
}
