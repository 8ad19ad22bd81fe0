/* The queue as a sorted array: insertion by binary search on the queue key. */
#include "sim/internal.h"
#include "core/die.h"
#include <string.h>

/* Queue key: fifo (eo); priority_preemptive (HP first, eo). eo is unique. */
static int before(const struct sim *s, const struct sim_job *a, const struct sim_job *b)
{
	if (s->p->scheduler == SCHED_PRIORITY_PREEMPTIVE && a->hp != b->hp)
		return a->hp;
	return a->eo < b->eo;
}

void queue_insert(struct sim *s, struct sim_job *j)
{
	size_t lo = 0, hi = s->qn;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(s, j, s->queue[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	s->queue = xgrow(s->queue, &s->qcap, s->qn + 1, sizeof *s->queue);
	memmove(s->queue + lo + 1, s->queue + lo, (s->qn - lo) * sizeof *s->queue);
	s->queue[lo] = j;
	s->qn++;
	j->queued = true;
	if (j->hp)
		s->hp_queued++;
}

void queue_iter_begin(struct sim *s)
{
	s->qit = 0;
	s->qw = 0;
	s->qlast = false;
}

static void flush_last(struct sim *s)
{
	if (s->qlast && s->queue[s->qit - 1] != NULL)
		s->queue[s->qw++] = s->queue[s->qit - 1];
	s->qlast = false;
}

struct sim_job *queue_iter_next(struct sim *s)
{
	flush_last(s);
	if (s->qit == s->qn)
		return NULL;
	s->qlast = true;
	return s->queue[s->qit++];
}

void queue_iter_take(struct sim *s)
{
	struct sim_job *j = s->queue[s->qit - 1];
	j->queued = false;
	if (j->hp)
		s->hp_queued--;
	s->queue[s->qit - 1] = NULL;
}

void queue_iter_end(struct sim *s)
{
	flush_last(s);
	if (s->qw != s->qit)
		memmove(s->queue + s->qw, s->queue + s->qit, (s->qn - s->qit) * sizeof *s->queue);
	s->qn = s->qw + (s->qn - s->qit);
}

void hp_iter_begin(struct sim *s)
{
	s->hpit = 0;
}

struct sim_job *hp_iter_next(struct sim *s)
{
	if (s->hpit < s->qn && s->queue[s->hpit]->hp)
		return s->queue[s->hpit++];
	return NULL;
}

/* Only called under priority_preemptive: the HP jobs are the queue's prefix, in submit order
 * (HP jobs are never requeued, so qsince = submit), and qsince + delay is monotone along it:
 * the first one beyond thr is the minimum. */
double hp_next_wakeup(struct sim *s, double thr, double delay)
{
	for (size_t i = 0; i < s->qn && s->queue[i]->hp; i++) {
		double c = s->queue[i]->qsince + delay;
		if (c > thr)
			return c;
	}
	return 1.0 / 0.0;
}
