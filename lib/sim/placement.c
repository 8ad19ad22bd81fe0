/*
 * Placement (docs/simulator.md §3.6), "deterministic_best_fit" = largest free first, and the
 * reservation of the pieces found.
 * The original sums the eligible nodes' frees left to right in node order (that sum, bits
 * included, decides whether the job fits), sorts them by (-free, node order) and takes from
 * the front until the demand is met; any job may split across nodes.
 *
 * Here the same answers come from indexes:
 * - a max segment tree over each model's nodes and one over all nodes (for "*") in node
 *   order: repeatedly taking the leftmost maximum is exactly the (-free, node order) order;
 * - the fit test: while every relevant node's free is a multiple of 2^-20 in [0, 2^31) the
 *   left-to-right sum is exact, so it equals an exactly maintained fixed-point sum; as soon as
 *   one node holds another value (fractional residues, slivers, drift) the left-to-right sum
 *   is recomputed over that model's nodes in node order, as the original does.
 */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FX_SCALE 1048576.0     /* 2^20 */

struct maxtree {
	double *t;
	size_t size;           /* leaves, a power of two */
};

static bool same_bits(double a, double b)
{
	uint64_t x, y;
	memcpy(&x, &a, sizeof x);
	memcpy(&y, &b, sizeof y);
	return x == y;
}

static void tree_init(struct maxtree *m, size_t n)
{
	m->size = 1;
	while (m->size < n)
		m->size *= 2;
	m->t = xmalloc(2 * m->size * sizeof *m->t);
	for (size_t i = 0; i < 2 * m->size; i++)
		m->t[i] = -INFINITY;
}

/* An inner node whose value keeps its bits leaves every ancestor's as it was: stop there. */
static void tree_set(struct maxtree *m, size_t i, double v)
{
	i += m->size;
	m->t[i] = v;
	for (i /= 2; i >= 1; i /= 2) {
		double l = m->t[2 * i], r = m->t[2 * i + 1], x = l >= r ? l : r;
		if (same_bits(m->t[i], x))
			break;
		m->t[i] = x;
	}
}

/* Leftmost leaf holding the maximum. */
static size_t tree_argmax(const struct maxtree *m)
{
	size_t i = 1;
	while (i < m->size)
		i = m->t[2 * i] >= m->t[2 * i + 1] ? 2 * i : 2 * i + 1;
	return i - m->size;
}

struct placement_index {
	struct maxtree all;             /* leaf = node index; unused (all -inf) with one model */
	struct maxtree *model;          /* leaf = position within the model */
	size_t **model_nodes;           /* node indices of each model, in node order */
	size_t *model_n;
	size_t *pos;                    /* node -> position within its model */
	long long *fx;                  /* exact fixed-point sum of the coarse frees, per model */
	size_t *fine;                   /* nodes per model whose free is not coarse */
	size_t fine_total;
	bool one_model;                 /* model 0's tree is every node in node order: it serves "*" too */
};

static bool coarse(double f, long long *units)
{
	if (!(f >= 0 && f < 2147483648.0))
		return false;
	double u = f * FX_SCALE;
	if (u != floor(u))
		return false;
	*units = (long long)u;
	return true;
}

static void account(struct placement_index *ix, int m, double f, int sign)
{
	long long u;
	if (coarse(f, &u))
		ix->fx[m] += sign * u;
	else {
		ix->fine[m] += sign;
		ix->fine_total += sign;
	}
}

int sim_placement_init(struct sim *s)
{
	struct placement_index *ix = xcalloc(1, sizeof *ix);
	size_t nm = (size_t)s->n_models;
	s->pix = ix;
	tree_init(&ix->all, s->n_nodes);
	ix->model = xcalloc(nm, sizeof *ix->model);
	ix->model_nodes = xcalloc(nm, sizeof *ix->model_nodes);
	ix->model_n = xcalloc(nm, sizeof *ix->model_n);
	ix->pos = xcalloc(s->n_nodes, sizeof *ix->pos);
	ix->fx = xcalloc(nm, sizeof *ix->fx);
	ix->fine = xcalloc(nm, sizeof *ix->fine);
	for (size_t i = 0; i < s->n_nodes; i++)
		ix->model_n[s->nodes[i].model]++;
	for (size_t m = 0; m < nm; m++) {
		ix->model_nodes[m] = xmalloc((ix->model_n[m] + 1) * sizeof **ix->model_nodes);
		tree_init(&ix->model[m], ix->model_n[m]);
		ix->model_n[m] = 0;
	}
	ix->one_model = nm == 1;
	for (size_t i = 0; i < s->n_nodes; i++) {
		int m = s->nodes[i].model;
		ix->pos[i] = ix->model_n[m];
		ix->model_nodes[m][ix->model_n[m]++] = i;
		if (!ix->one_model)
			tree_set(&ix->all, i, s->nodes[i].free);
		tree_set(&ix->model[m], ix->pos[i], s->nodes[i].free);
		account(ix, m, s->nodes[i].free, +1);
	}
	return 0;
}

void sim_placement_release(struct sim *s)
{
	sim_phys_release(s);
	struct placement_index *ix = s->pix;
	if (!ix)
		return;
	for (int m = 0; m < s->n_models; m++) {
		free(ix->model[m].t);
		free(ix->model_nodes[m]);
	}
	free(ix->all.t);
	free(ix->model);
	free(ix->model_nodes);
	free(ix->model_n);
	free(ix->pos);
	free(ix->fx);
	free(ix->fine);
	free(ix);
	s->pix = NULL;
}

static void set_free(struct sim *s, size_t node, double f)
{
	struct placement_index *ix = s->pix;
	int m = s->nodes[node].model;
	account(ix, m, s->nodes[node].free, -1);
	s->nodes[node].free = f;
	account(ix, m, f, +1);
	if (!ix->one_model)
		tree_set(&ix->all, node, f);
	tree_set(&ix->model[m], ix->pos[node], f);
}

/* The original's left-to-right sum of the eligible frees, compared with the demand. */
bool sim_placement_fits(struct sim *s, const struct sim_job *j)
{
	if (s->phys)
		return sim_phys_fits(s, j);
	struct placement_index *ix = s->pix;
	double sum = 0.0;
	if (j->model >= 0) {
		int m = j->model;
		if (ix->fine[m] == 0)
			return (double)ix->fx[m] / FX_SCALE >= j->gpu;
		for (size_t k = 0; k < ix->model_n[m]; k++) {
			double f = s->nodes[ix->model_nodes[m][k]].free;
			if (f > 0)
				sum += f;
		}
		return !(sum < j->gpu);
	}
	if (ix->fine_total == 0) {
		long long t = 0;
		for (int m = 0; m < s->n_models; m++)
			t += ix->fx[m];
		return (double)t / FX_SCALE >= j->gpu;
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].free > 0)
			sum += s->nodes[i].free;
	return !(sum < j->gpu);
}

int sim_place(struct sim *s, struct sim_job *j)
{
	if (s->phys)
		return sim_phys_place(s, j);
	struct placement_index *ix = s->pix;
	if (!sim_placement_fits(s, j))
		return -1;
	int tm = j->model < 0 && ix->one_model ? 0 : j->model;
	struct maxtree *t = tm < 0 ? &ix->all : &ix->model[tm];
	const size_t *map = tm < 0 ? NULL : ix->model_nodes[tm];
	double r = j->gpu;
	j->n_alloc = 0;
	for (;;) {
		if (!(t->t[1] > 0))
			break;                         /* no eligible node left */
		size_t leaf = tree_argmax(t), node = map ? map[leaf] : leaf;
		double f = s->nodes[node].free, x = r < f ? r : f;
		tree_set(t, leaf, -INFINITY);          /* taken: skip it for the rest of this pass */
		if (x != 0) {
			j->alloc = xgrow(j->alloc, &j->cap_alloc, j->n_alloc + 1, sizeof *j->alloc);
			j->alloc[j->n_alloc].node = node;
			j->alloc[j->n_alloc++].x = x;
			r -= x;
			if (r == 0)
				break;
		}
	}
	/* reserve: each taken leaf goes from -inf straight to its node's new free (the trees end
	 * as a restore of the old frees followed by the reservation would leave them) */
	for (size_t i = 0; i < j->n_alloc; i++) {
		size_t n = j->alloc[i].node;
		set_free(s, n, s->nodes[n].free - j->alloc[i].x);
	}
	for (size_t i = 0; i < j->n_alloc; i++) {
		s->fbm[s->nodes[j->alloc[i].node].model] -= j->alloc[i].x;
		s->tfree -= j->alloc[i].x;
	}
	return 0;
}

void sim_release(struct sim *s, struct sim_job *j)
{
	if (s->phys) {
		sim_phys_unplace(s, j);
		return;
	}
	for (size_t i = 0; i < j->n_alloc; i++) {
		size_t n = j->alloc[i].node;
		set_free(s, n, s->nodes[n].free + j->alloc[i].x);
	}
	for (size_t i = 0; i < j->n_alloc; i++) {
		s->fbm[s->nodes[j->alloc[i].node].model] += j->alloc[i].x;
		s->tfree += j->alloc[i].x;
	}
	j->n_alloc = 0;
}

void sim_placement_clone(struct sim *d, const struct sim *s)
{
	if (s->phys) {
		sim_phys_clone(d, s);
		return;
	}
	const struct placement_index *ix = s->pix;
	size_t nm = (size_t)s->n_models;
	struct placement_index *c = sim_mem_dup(ix, sizeof *ix);
	c->all.t = sim_mem_dup(ix->all.t, 2 * ix->all.size * sizeof *ix->all.t);
	c->model = sim_mem_dup(ix->model, nm * sizeof *ix->model);
	c->model_nodes = xcalloc(nm, sizeof *c->model_nodes);
	for (size_t m = 0; m < nm; m++) {
		c->model[m].t = sim_mem_dup(ix->model[m].t, 2 * ix->model[m].size * sizeof *ix->model[m].t);
		c->model_nodes[m] = sim_mem_dup(ix->model_nodes[m], (ix->model_n[m] + 1) * sizeof **ix->model_nodes);
	}
	c->model_n = sim_mem_dup(ix->model_n, nm * sizeof *ix->model_n);
	c->pos = sim_mem_dup(ix->pos, s->n_nodes * sizeof *ix->pos);
	c->fx = sim_mem_dup(ix->fx, nm * sizeof *ix->fx);
	c->fine = sim_mem_dup(ix->fine, nm * sizeof *ix->fine);
	d->pix = c;
}
