/* The running set: an unordered array; remaining work updated eagerly at every step. */
#include "sim/internal.h"
#include "core/die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void running_add(struct sim *s, struct sim_job *j)
{
	s->running = xgrow(s->running, &s->rcap, s->rn + 1, sizeof *s->running);
	j->pos = s->rn;
	s->running[s->rn++] = j;
	j->running = true;
}

void running_remove(struct sim *s, struct sim_job *j)
{
	struct sim_job *last = s->running[--s->rn];
	s->running[j->pos] = last;
	last->pos = j->pos;
	j->running = false;
}

double running_rem(struct sim *s, struct sim_job *j)
{
	(void)s;
	return j->rem;
}

void running_advance(struct sim *s, double delta)
{
	for (size_t i = 0; i < s->rn; i++) {
		double r = s->running[i]->rem - delta;
		s->running[i]->rem = r > 0 ? r : 0.0;
	}
}

double running_next_completion(struct sim *s, double thr)
{
	double best = INFINITY;
	for (size_t i = 0; i < s->rn; i++) {
		double c = s->now + s->running[i]->rem;
		if (c > thr && c < best)
			best = c;
	}
	return best;
}

double running_next_guarantee(struct sim *s, double thr)
{
	double best = INFINITY;
	for (size_t i = 0; i < s->rn; i++) {
		struct sim_job *j = s->running[i];
		if (j->hp)
			continue;
		double c = j->run_start + j->rg;
		if (c > thr && c < best)
			best = c;
	}
	return best;
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp((*(struct sim_job *const *)a)->tj->id, (*(struct sim_job *const *)b)->tj->id);
}

struct sim_job **running_collect_done(struct sim *s, size_t *n)
{
	s->dn = 0;
	for (size_t i = 0; i < s->rn; i++)
		if (s->running[i]->rem <= SIM_EPS) {
			s->done = xgrow(s->done, &s->dcap, s->dn + 1, sizeof *s->done);
			s->done[s->dn++] = s->running[i];
		}
	qsort(s->done, s->dn, sizeof *s->done, id_cmp);
	*n = s->dn;
	return s->done;
}
