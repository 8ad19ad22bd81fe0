/*
 * Placement (simulator.md §3.6), "deterministic_best_fit" = largest free first:
 * the eligible nodes' frees are summed left to right in node order (the sum decides
 * whether the job fits, bits included), then taken by (-free, node order) until the
 * demand is met; any job may split across nodes.
 */
#include "sim/internal.h"
#include "core/die.h"
#include <stdlib.h>

static int cand_cmp(const void *a, const void *b)
{
	const struct sim_alloc *x = a, *y = b;
	if (x->x != y->x)
		return x->x > y->x ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

int place(struct sim *s, struct sim_job *j)
{
	size_t n = 0;
	double sum = 0.0;
	if (s->ccap < s->n_nodes) {
		s->cand = xrealloc(s->cand, s->n_nodes * sizeof *s->cand);
		s->ccap = s->n_nodes;
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct sim_node *nd = &s->nodes[i];
		if (nd->free > 0 && (j->model < 0 || nd->model == j->model)) {
			s->cand[n].node = i;
			s->cand[n++].x = nd->free;
			sum += nd->free;
		}
	}
	if (sum < j->gpu)
		return -1;
	qsort(s->cand, n, sizeof *s->cand, cand_cmp);
	double r = j->gpu;
	j->n_alloc = 0;
	for (size_t i = 0; i < n; i++) {
		double f = s->cand[i].x, x = r < f ? r : f;
		if (x != 0) {
			j->alloc = xgrow(j->alloc, &j->cap_alloc, j->n_alloc + 1, sizeof *j->alloc);
			j->alloc[j->n_alloc].node = s->cand[i].node;
			j->alloc[j->n_alloc++].x = x;
			r -= x;
			if (r == 0)
				break;
		}
	}
	return 0;
}

void reserve(struct sim *s, struct sim_job *j)
{
	for (size_t i = 0; i < j->n_alloc; i++)
		s->nodes[j->alloc[i].node].free -= j->alloc[i].x;
	for (size_t i = 0; i < j->n_alloc; i++) {
		s->fbm[s->nodes[j->alloc[i].node].model] -= j->alloc[i].x;
		s->tfree -= j->alloc[i].x;
	}
}

void release(struct sim *s, struct sim_job *j)
{
	for (size_t i = 0; i < j->n_alloc; i++)
		s->nodes[j->alloc[i].node].free += j->alloc[i].x;
	for (size_t i = 0; i < j->n_alloc; i++) {
		s->fbm[s->nodes[j->alloc[i].node].model] += j->alloc[i].x;
		s->tfree += j->alloc[i].x;
	}
	j->n_alloc = 0;
}
