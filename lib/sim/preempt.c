/* Victim lists for §3.7: built once per preemption call and HP model, then consumed in order. */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct vkey {
	struct sim_job *j;
	double a, b;     /* longest_remaining: rem; loss-aware: rollback, -rem */
};

static int cmp_ids(const struct sim_job *x, const struct sim_job *y)
{
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return strcmp(x->tj->id, y->tj->id);
}

/* descending by (rem, submit, id) */
static int longest_cmp(const void *pa, const void *pb)
{
	const struct vkey *x = pa, *y = pb;
	if (x->a != y->a)
		return x->a > y->a ? -1 : 1;
	return -cmp_ids(x->j, y->j);
}

/* ascending by (rollback, -rem, submit, id) */
static int loss_cmp(const void *pa, const void *pb)
{
	const struct vkey *x = pa, *y = pb;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return cmp_ids(x->j, y->j);
}

void sim_victims_reset(struct sim *s)
{
	for (int m = 0; m <= s->n_models; m++) {
		s->vl[m].built = false;
		s->vl[m].n = 0;
		s->vl[m].off = 0;
	}
}

struct victim_list *sim_victims_for(struct sim *s, int model)
{
	struct victim_list *vl = &s->vl[model + 1];
	if (vl->built)
		return vl;
	vl->built = true;
	vl->n = vl->off = 0;
	double thr = s->now + SIM_EPS, ck = (double)s->p->checkpoint_seconds;
	struct vkey *keys = xmalloc((s->rn + 1) * sizeof *keys);
	size_t n = 0;
	struct sim_job *front = sim_running_guarantee_frontier(s, thr);
	for (struct sim_job *v = s->shead; v != front; v = v->snext) {
		bool on = false;
		for (size_t k = 0; k < v->n_alloc && !on; k++)
			on = v->alloc[k].x > 0 && (model < 0 || s->nodes[v->alloc[k].node].model == model);
		if (!on)
			continue;
		double rem = sim_running_rem(s, v);
		keys[n].j = v;
		if (s->p->victim_order == VICTIM_LONGEST_REMAINING) {
			keys[n].a = rem;
			keys[n].b = 0;
		} else {
			keys[n].a = fmod(s->now - v->run_start, ck);
			keys[n].b = -rem;
		}
		n++;
	}
	qsort(keys, n, sizeof *keys, s->p->victim_order == VICTIM_LONGEST_REMAINING ? longest_cmp : loss_cmp);
	vl->v = xgrow(vl->v, &vl->cap, n + 1, sizeof *vl->v);
	for (size_t i = 0; i < n; i++)
		vl->v[i] = keys[i].j;
	vl->n = n;
	free(keys);
	return vl;
}

int sim_structures_init(struct sim *s, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	s->vl = xcalloc((size_t)s->n_models + 1, sizeof *s->vl);
	sim_queue_init(s);
	if (s->p->placement != PLACEMENT_POOL)
		return sim_phys_init(s, err, errlen);   /* issue 36: the physical node model */
	return sim_placement_init(s);
}

void sim_structures_release(struct sim *s)
{
	sim_placement_release(s);
	sim_backfill_release(s);
	sim_priority_release(s);
	if (s->jobs) {
		size_t np, *slot = sim_present_slots(s, &np);
		for (size_t k = 0; k < np; k++)
			free(s->jobs[slot ? slot[k] : k].alloc);
		free(slot);
	}
	free(s->copied);
	if (s->vl)
		for (int m = 0; m <= s->n_models; m++)
			free(s->vl[m].v);
	free(s->vl);
	free(s->jobs);
	free(s->nodes);
	free(s->models);
	free(s->sorted_models);
	free(s->fbm);
	sim_queue_release(s);
	free(s->running);
	free(s->done);
	free(s->cand);
	free(s->dlog);
	free(s->ms_idx);
	free(s->ms_g);
	memset(s, 0, sizeof *s);
}
