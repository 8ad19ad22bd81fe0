/*
 * backfill — the start pass under `backfill: easy | conservative` (issue 37,
 * docs/simulator.md §3.10), in place of the original's greedy in-order pass (§3.5).
 *
 * The queue is walked in key order. Jobs start in order while they fit (nothing ahead of them
 * to protect). From the first job that cannot start on, a plan decides: a step function of
 * the free GPUs over time (per model and in total) built from every running job's planned end
 * (its start plus its time limit, never its recorded run) and the reservations made so far.
 * A blocked job gets a reservation at the earliest time the plan can hold it for its limit
 * (easy: the first blocked job only; conservative: every one, within backfill_window_seconds).
 * A later job starts now only if the plan holds it from now for its whole limit, i.e. it
 * delays no reservation. A job without time_limit is planned with
 * backfill_default_time_limit_seconds, or as never ending when that is 0.
 *
 * The plan is built lazily, only when a job behind a blocked one could start now; nothing is
 * kept between passes (a pass is a pure function of the state, so clones need nothing).
 */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct profile {
	double *t;      /* breakpoint times, ascending (t[0] = now, the actual state) */
	double *f;      /* n rows of w: free GPUs per model, then in total, from t[i] to t[i + 1] */
	size_t n, cap, w;
};

struct release {
	double t;
	size_t job;     /* index into s->jobs (ties in job order: deterministic) */
	struct sim_job *j;
};

struct bf {
	struct sim *s;
	struct profile pr;
	bool built;
	struct sim_job **pending;       /* blocked before the plan was built, in key order */
	size_t np, capp;
	size_t reservations, max_reservations;
};

static double planned_run(const struct sim *s, const struct sim_job *j)
{
	if (j->tj->time_limit > 0)
		return (double)j->tj->time_limit;
	return s->p->bf_default_limit > 0 ? (double)s->p->bf_default_limit : INFINITY;
}

/* bf_resolution: planned ends rounded up to its grid (Slurm plans in such steps). */
static double round_up(const struct sim *s, double t)
{
	double r = (double)s->p->bf_resolution;
	return r > 0 && isfinite(t) ? ceil(t / r) * r : t;
}

static void profile_grow(struct profile *p)
{
	if (p->n < p->cap)
		return;
	p->cap = p->cap ? 2 * p->cap : 64;
	p->t = xrealloc(p->t, p->cap * sizeof *p->t);
	p->f = xrealloc(p->f, p->cap * p->w * sizeof *p->f);
}

/* A new last breakpoint at t, a copy of the last one's frees. */
static void profile_push(struct profile *p, double t)
{
	profile_grow(p);
	p->t[p->n] = t;
	if (p->n)
		memcpy(p->f + p->n * p->w, p->f + (p->n - 1) * p->w, p->w * sizeof *p->f);
	p->n++;
}

/* The breakpoint at time t (> t[0]), inserted as a copy of its predecessor when absent. */
static size_t point_at(struct profile *p, double t)
{
	size_t lo = 0, hi = p->n;       /* first index with t[i] > t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->t[mid] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0 && p->t[lo - 1] == t)
		return lo - 1;
	profile_grow(p);
	memmove(p->t + lo + 1, p->t + lo, (p->n - lo) * sizeof *p->t);
	memmove(p->f + (lo + 1) * p->w, p->f + lo * p->w, (p->n - lo) * p->w * sizeof *p->f);
	p->t[lo] = t;
	memcpy(p->f + lo * p->w, p->f + (lo - 1) * p->w, p->w * sizeof *p->f);
	p->n++;
	return lo;
}

static int release_cmp(const void *a, const void *b)
{
	const struct release *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static void add_alloc(struct bf *b, double *row, const struct sim_job *j, double sign)
{
	for (size_t k = 0; k < j->n_alloc; k++) {
		row[b->s->nodes[j->alloc[k].node].model] += sign * j->alloc[k].x;
		row[b->pr.w - 1] += sign * j->alloc[k].x;
	}
}

/* Point 0 is now as it is; each running job gives its GPUs back at its planned end (an end
 * already passed, a job running beyond the default it was planned with, at a second point
 * at now: not free now, the first thing to be). */
static void profile_build(struct bf *b)
{
	struct sim *s = b->s;
	struct profile *p = &b->pr;
	p->w = (size_t)s->n_models + 1;
	p->n = 0;
	profile_push(p, s->now);
	memcpy(p->f, s->fbm, (size_t)s->n_models * sizeof *p->f);
	p->f[p->w - 1] = s->tfree;
	struct release *r = xmalloc((s->rn + 1) * sizeof *r);
	size_t nr = 0;
	for (size_t i = 0; i < s->rn; i++) {
		struct sim_job *j = s->running[i].j;
		double e = round_up(s, j->run_start + planned_run(s, j));
		if (!isfinite(e))
			continue;
		r[nr++] = (struct release){ e > s->now ? e : s->now, (size_t)(j - s->jobs), j };
	}
	qsort(r, nr, sizeof *r, release_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (p->n == 1 || r[i].t > p->t[p->n - 1])
			profile_push(p, r[i].t);
		add_alloc(b, p->f + (p->n - 1) * p->w, r[i].j, +1);
	}
	free(r);
	b->built = true;
}

static bool holds(const struct profile *p, size_t i, int model, double g)
{
	const double *f = p->f + i * p->w;
	return f[p->w - 1] >= g && (model < 0 || f[model] >= g);
}

/* The first breakpoint from which g GPUs of model are free for L seconds (n: never). */
static size_t earliest(const struct profile *p, int model, double g, double L)
{
	size_t c = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (i > c && p->t[i] >= p->t[c] + L)
			return c;
		if (!holds(p, i, model, g))
			c = i + 1;
	}
	return c;
}

/* Take g GPUs of model (-1: any, from the total only) over [t[c], end). */
static void take(struct profile *p, size_t c, double end, int model, double g)
{
	size_t e = isfinite(end) ? point_at(p, end) : p->n;
	for (size_t i = c; i < e; i++) {
		p->f[i * p->w + p->w - 1] -= g;
		if (model >= 0)
			p->f[i * p->w + model] -= g;
	}
}

/* A blocked job's reservation at the earliest time the plan holds it, within the window. */
static void reserve(struct bf *b, struct sim_job *j)
{
	struct sim *s = b->s;
	if (b->reservations >= b->max_reservations)
		return;
	double L = planned_run(s, j);
	size_t c = earliest(&b->pr, j->model, j->gpu, L);
	if (c == b->pr.n || (s->p->bf_window > 0 && b->pr.t[c] > s->now + (double)s->p->bf_window))
		return;     /* never within the plan, or beyond the window: no reservation */
	take(&b->pr, c, round_up(s, b->pr.t[c] + L), j->model, j->gpu);
	b->reservations++;
}

static bool admitted(struct sim *s, struct sim_job *j)
{
	if (!s->gated || j->hp)
		return true;
	struct sim_job_view v;
	job_view(s, j, &v);
	return s->hooks.gate_admit(s->hooks.ctx, s, &v);
}

/* A job behind a blocked one that fits now: it starts if the plan holds it from now for
 * its whole limit. 1 = started. */
static int try_backfill(struct bf *b, struct sim_job *j)
{
	struct sim *s = b->s;
	if (!b->built) {
		profile_build(b);
		for (size_t k = 0; k < b->np; k++)
			reserve(b, b->pending[k]);
	}
	double L = planned_run(s, j);
	if (earliest(&b->pr, j->model, j->gpu, L) != 0 || place(s, j))
		return 0;
	queue_remove(s, j);
	start_job(s, j);
	double end = round_up(s, s->now + L);
	size_t e = isfinite(end) ? point_at(&b->pr, end) : b->pr.n;
	for (size_t i = 0; i < e; i++)
		add_alloc(b, b->pr.f + i * b->pr.w, j, -1);
	return 1;
}

size_t backfill_pass(struct sim *s)
{
	if (s->tfree <= SIM_EPS)
		return 0;
	queue_pass_begin(s);
	if (!queue_pass_next(s))
		return 0;               /* no queued job fits its eligible free GPUs: none can start */
	struct bf b = { .s = s };
	b.max_reservations = s->p->backfill == BACKFILL_EASY ? 1 : SIZE_MAX;
	size_t *cur = xcalloc(queue_lane_count(s), sizeof *cur);
	size_t started = 0, tested = 0;
	size_t max_test = s->p->bf_max_job_test > 0 ? (size_t)s->p->bf_max_job_test : SIZE_MAX;
	bool blocked = false;
	struct sim_job *j;
	while (s->tfree > SIM_EPS && (j = queue_order_next(s, cur))) {
		if (!admitted(s, j))
			continue;       /* held by the admission gate: neither started nor protected */
		bool fits = (j->model < 0 ? s->tfree : s->fbm[j->model]) >= j->gpu;
		if (!blocked) {         /* in order while every job ahead has started */
			if (fits && !place(s, j)) {
				queue_remove(s, j);
				start_job(s, j);
				started++;
				continue;
			}
			blocked = true;
		}
		if (tested++ >= max_test)
			break;
		if (fits && try_backfill(&b, j)) {
			started++;
			continue;
		}
		if (b.built)
			reserve(&b, j);
		else {
			b.pending = xgrow(b.pending, &b.capp, b.np + 1, sizeof *b.pending);
			b.pending[b.np++] = j;
		}
	}
	free(cur);
	free(b.pending);
	free(b.pr.t);
	free(b.pr.f);
	return started;
}
