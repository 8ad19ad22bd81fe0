/* Time series from a result's ledgers: a sweep over +/- events, averaged per time bin. */
#include "report/report.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event {
	double t, delta;
};

struct events {
	struct event *v;
	size_t n, cap;
};

static void push(struct events *e, double t, double delta)
{
	if (isnan(t))
		return;
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof *e->v);
	e->v[e->n++] = (struct event){ t, delta };
}

/* Order by time, then releases before acquisitions so a level never overshoots at an
 * instant where one job ends and another starts. */
static int cmp_event(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->delta != b->delta)
		return a->delta < b->delta ? -1 : 1;
	return 0;
}

/* out[i] = time-weighted mean of the step function over bin i. */
static void integrate(struct events *e, double t0, double t1, size_t nbins, double *out)
{
	if (e->n)
		qsort(e->v, e->n, sizeof *e->v, cmp_event);
	double width = (t1 - t0) / (double)nbins, level = 0.0;
	memset(out, 0, nbins * sizeof *out);
	for (size_t k = 0; k < e->n; k++) {
		level += e->v[k].delta;
		double a = e->v[k].t, b = k + 1 < e->n ? e->v[k + 1].t : t1;
		if (a < t0)
			a = t0;
		if (b > t1)
			b = t1;
		if (b <= a || level == 0.0)
			continue;
		size_t i = (size_t)((a - t0) / width);
		for (; i < nbins; i++) {
			double lo = t0 + width * (double)i, hi = lo + width;
			if (lo >= b)
				break;
			double from = a > lo ? a : lo, to = b < hi ? b : hi;
			if (to > from)
				out[i] += level * (to - from);
		}
	}
	for (size_t i = 0; i < nbins; i++)
		out[i] /= width;
}

static int cmp_job_id(const void *pa, const void *pb)
{
	const struct rp_job *a = pa, *b = pb;
	return strcmp(a->job_id, b->job_id);
}

static const struct rp_job *find_job(const struct rp_job *sorted, size_t n, const char *id)
{
	struct rp_job key = { .job_id = id };
	return bsearch(&key, sorted, n, sizeof *sorted, cmp_job_id);
}

int rp_series_build(const struct rp_result *r, double t0, double t1, size_t nbins, struct rp_series *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (!(t1 > t0) || nbins == 0) {
		snprintf(err, errlen, "%s: empty time range for '%s'", r->path, r->action_id);
		return -1;
	}
	s->nbins = nbins;
	s->t0 = t0;
	s->t1 = t1;
	s->allocated = xcalloc(nbins, sizeof *s->allocated);
	s->queue_hp = xcalloc(nbins, sizeof *s->queue_hp);
	s->queue_spot = xcalloc(nbins, sizeof *s->queue_spot);
	s->preemptions = xcalloc(nbins, sizeof *s->preemptions);
	s->preemptions_eval = xcalloc(nbins, sizeof *s->preemptions_eval);

	struct rp_job *jobs = xmalloc((r->njobs ? r->njobs : 1) * sizeof *jobs);
	if (r->njobs)
		memcpy(jobs, r->jobs, r->njobs * sizeof *jobs);
	if (r->njobs)
		qsort(jobs, r->njobs, sizeof *jobs, cmp_job_id);
	/* Which Spot jobs have runs in the ledger: those take their intervals from it. */
	unsigned char *has_runs = xcalloc(r->njobs ? r->njobs : 1, 1);
	for (size_t i = 0; i < r->nruns; i++) {
		const struct rp_job *j = find_job(jobs, r->njobs, r->runs[i].job_id);
		if (!j) {
			snprintf(err, errlen, "%s: run of unknown job '%s'", r->path, r->runs[i].job_id);
			free(jobs);
			free(has_runs);
			rp_series_release(s);
			return -1;
		}
		has_runs[j - jobs] = 1;
	}

	struct events alloc = { 0 }, qhp = { 0 }, qspot = { 0 };
	for (size_t i = 0; i < r->njobs; i++) {
		const struct rp_job *j = &jobs[i];
		struct events *q = j->hp ? &qhp : &qspot;
		push(q, j->submit, 1.0);
		if (has_runs[i])
			continue;
		push(q, j->start, -1.0);
		if (!isnan(j->start)) {
			push(&alloc, j->start, j->gpus);
			push(&alloc, isnan(j->completion) ? t1 : j->completion, -j->gpus);
		}
	}
	for (size_t i = 0; i < r->nruns; i++) {
		const struct rp_run *run = &r->runs[i];
		const struct rp_job *j = find_job(jobs, r->njobs, run->job_id);
		struct events *q = j->hp ? &qhp : &qspot;
		push(&alloc, run->start, j->gpus);
		push(&alloc, run->end, -j->gpus);
		push(q, run->start, -1.0);
		if (run->preempted)
			push(q, run->end, 1.0);
	}
	integrate(&alloc, t0, t1, nbins, s->allocated);
	integrate(&qhp, t0, t1, nbins, s->queue_hp);
	integrate(&qspot, t0, t1, nbins, s->queue_spot);

	/* Cumulative preemption events at each bin's end: all, and those metrics counts
	 * (the victim an evaluation-population Spot job). delta 1 marks the latter. */
	struct events pe = { 0 };
	for (size_t i = 0; i < r->npreemptions; i++) {
		const struct rp_job *v = r->preemptions[i].victim ? find_job(jobs, r->njobs, r->preemptions[i].victim) : NULL;
		push(&pe, r->preemptions[i].t, v && v->eval_pop && !v->hp ? 1.0 : 0.0);
	}
	if (pe.n)
		qsort(pe.v, pe.n, sizeof *pe.v, cmp_event);
	size_t k = 0, k_eval = 0;
	double width = (t1 - t0) / (double)nbins;
	for (size_t i = 0; i < nbins; i++) {
		double end = i + 1 == nbins ? t1 : t0 + width * (double)(i + 1);
		for (; k < pe.n && pe.v[k].t <= end; k++)
			k_eval += pe.v[k].delta > 0;
		s->preemptions[i] = (double)k;
		s->preemptions_eval[i] = (double)k_eval;
	}
	free(pe.v);
	free(alloc.v);
	free(qhp.v);
	free(qspot.v);
	free(jobs);
	free(has_runs);
	return 0;
}

void rp_series_release(struct rp_series *s)
{
	free(s->allocated);
	free(s->queue_hp);
	free(s->queue_spot);
	free(s->preemptions);
	free(s->preemptions_eval);
	memset(s, 0, sizeof *s);
}
