/*
 * base — the helpers every layer of lib/sim may use (internal.h gives the layering): exact
 * sums, a job's hook view, copies of memory and the slots of a live clone. Uses no other
 * file of lib/sim.
 */
#include "sim/engine.h"
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- exact sums ---- */

/* v * 2^60 and its inverse are exact (no overflow or underflow for these magnitudes) */
void sim_xsum_add(struct xsum *x, double v, int sign)
{
	double u = v * 0x1p60;
	if (u == floor(u) && fabs(u) < 0x1p122)
		x->units += sign * (__int128)u;
	else
		x->fine = sign > 0 ? x->fine + 1 : x->fine - 1;
}

double sim_xsum_value(const struct xsum *x)
{
	return (double)x->units * 0x1p-60;
}

/* ---- hook helpers ---- */

void sim_job_view_of(const struct sim *s, const struct sim_job *j, struct sim_job_view *v)
{
	v->index = (size_t)(j - s->jobs);
	v->tj = j->tj;
	v->hp = j->hp;
	v->model = j->model;
	v->gpu = j->gpu;
	v->queued_since = j->qsince;
	v->run_start = j->run_start;
	v->alloc = j->alloc;
	v->n_alloc = j->n_alloc;
}

/* ---- memory ---- */

void *sim_mem_dup(const void *p, size_t n)
{
	void *q = xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

size_t *sim_present_slots(const struct sim *s, size_t *n)
{
	if (!s->live_only) {
		*n = s->n;
		return NULL;
	}
	size_t k = 0, *v = xmalloc((s->n_copied + (s->n > s->fresh_from ? s->n - s->fresh_from : 0) + 1) * sizeof *v);
	for (size_t i = 0; i < s->n_copied && s->copied[i] < s->fresh_from; i++)
		v[k++] = s->copied[i];
	for (size_t i = s->fresh_from; i < s->n; i++)
		v[k++] = i;
	*n = k;
	return v;
}
