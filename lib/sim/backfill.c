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
 * The plan is built lazily, only when a job behind a blocked one could start now. The only
 * state kept between passes is the index of running jobs by planned end (struct bf_index),
 * which can always be rebuilt from the running set: a clone or another policy drops it.
 * Easy needs no plan at all: its one reservation is Slurm's shadow time (easy_rest).
 * Conservative on a trace whose jobs are all of concrete models (no "*") plans per model
 * instead, one column each (backfill_col.c): the same starts, byte for byte, without reading
 * the other models' running jobs (there the total does not bind a job, see holds()).
 */
#include "sim/internal.h"
#include "sim/backfill_col.h"
#include "sim/backfill_index.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct profile {
	double *t;      /* breakpoint times, ascending (t[0] = now, the actual state) */
	double *f;      /* n rows of w: free GPUs per model, then in total, from t[i] to t[i + 1] */
	size_t n, cap, w;
	double *lo;     /* w: no row of a column is below it (a job it covers holds at every point) */
};

/* lo of each column over rows [0, e) merged in (after those rows went down). */
static void lower(struct profile *p, size_t e)
{
	for (size_t i = 0; i < e; i++)
		for (size_t k = 0; k < p->w; k++)
			if (p->f[i * p->w + k] < p->lo[k])
				p->lo[k] = p->f[i * p->w + k];
}

struct bf {
	struct sim *s;
	struct profile pr;
	bool built;
	struct col *cols;               /* the fast plan, per model (NULL: the full profile) */
	struct bf_memo *memo;           /* the full profile: per model + 1 ("*" last), this pass's searches */
	struct sim_job **pending;       /* the blocked jobs, in the pass's order; reserved when flushed */
	size_t np, capp;
	size_t reservations, max_reservations;
	bool *col;                      /* per model + 1 ("*" last): some blocked job of it is pending or reserved */
	size_t *ccur;                   /* per model + 1: pending entries before it are reserved for that column */
	unsigned char *done;            /* per pending entry: reserved (or found no room) */
	size_t capd;
	/* fast: the free per model and the index's starts when the plan is first asked for (the
	 * full profile's build), and the starts since of jobs whose column was not built yet */
	double *fbm0;
	size_t snap;
	struct late { int model; double end, g; } *late;
	size_t nlate, caplate;
};

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

static void add_alloc(struct bf *b, double *row, const struct sim_job *j, double sign)
{
	if (j->model >= 0) {            /* every piece on its model's nodes */
		row[j->model] += sign * j->gpu;
		row[b->pr.w - 1] += sign * j->gpu;
		return;
	}
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
	struct bf_index *ix = sim_bf_index_get(s);
	struct rvec *x = &ix->all;
	size_t w = 0;                   /* stale entries are dropped as they are read */
	for (size_t i = 0; i < x->n; i++) {
		const struct release *r = &x->v[i];
		if (!live(ix, r))
			continue;
		x->v[w++] = *r;
		r = &x->v[w - 1];
		double t = r->t > s->now ? r->t : s->now;
		if (p->n == 1 || t > p->t[p->n - 1])
			profile_push(p, t);
		double *row = p->f + (p->n - 1) * p->w;
		if (r->model >= 0) {    /* add_alloc's, from the entry */
			row[r->model] += r->gpu;
			row[p->w - 1] += r->gpu;
		} else
			add_alloc(b, row, r->j, +1);
	}
	ix->count -= x->n - w;
	x->n = w;
	p->lo = xmalloc(p->w * sizeof *p->lo);
	memcpy(p->lo, p->f, p->w * sizeof *p->lo);
	lower(p, p->n);
	b->built = true;
}

/* tot: the total binds too ("*" jobs, and every job of a trace that has "*" jobs: their
 * reservations are in the total only). On a trace of concrete models only the total is the sum
 * of the columns, and where it is below the job's column that is no GPU of its model
 * (floating-point drift of amounts not exact in binary, or another column overdrawn by a
 * reservation's start rounded down to the grid under backfill_plan_times slurm, or by a start's
 * end rounded up to it): there it does not bind, as in the per-model plan. */
static bool holds(const struct profile *p, size_t i, int model, double g, bool tot)
{
	const double *f = p->f + i * p->w;
	return (!tot || f[p->w - 1] >= g) && (model < 0 || f[model] >= g);
}

/* The first breakpoint from which g GPUs of model are free for L seconds (n: never), from
 * breakpoint c on (0, or one whose predecessor does not hold g: the scan from 0 gets there). */
static size_t earliest(const struct profile *p, size_t c, int model, double g, double L, double res, double ph, bool tot)
{
	for (size_t i = c; i < p->n; i++) {
		if (i > c && col_past(p->t[c], p->t[i], c == 0, L, res, ph))
			return c;
		if (!holds(p, i, model, g, tot))
			c = i + 1;
	}
	return c;
}

/* Whether g GPUs of model stay free from now for L seconds: earliest() == 0, stopping at the
 * first breakpoint that fails. */
static bool holds_now(const struct profile *p, int model, double g, double L, bool closed, bool tot)
{
	if ((!tot || p->lo[p->w - 1] >= g) && (model < 0 || p->lo[model] >= g))
		return true;    /* no point of the plan is below it */
	for (size_t i = 0; i < p->n && (i == 0 || p->t[i] < p->t[0] + L || (closed && p->t[i] == p->t[0] + L)); i++)
		if (!holds(p, i, model, g, tot))
			return false;
	return true;
}

/* Take g GPUs of model (-1: any, from the total only) over [t[c], end); whole nodes (upto > g):
 * up to upto at each point, what the model's column has free there, never less than g. */
static void take(struct profile *p, size_t c, double end, int model, double g, double upto)
{
	size_t e = isfinite(end) ? point_at(p, end) : p->n;
	for (size_t i = c; i < e; i++) {
		double *row = p->f + i * p->w, x = g;
		if (upto > g)
			x = fmax(g, fmin(upto, row[model >= 0 ? (size_t)model : p->w - 1]));
		row[p->w - 1] -= x;
		if (row[p->w - 1] < p->lo[p->w - 1])
			p->lo[p->w - 1] = row[p->w - 1];
		if (model >= 0) {
			row[model] -= x;
			if (row[model] < p->lo[model])
				p->lo[model] = row[model];
		}
	}
}

/* What a reservation of j holds: its GPUs, or (backfill_reservation whole_nodes) its nodes whole. */
static double reserve_upto(const struct bf *b, const struct sim_job *j)
{
	return b->s->p->bf_reservation == BF_RESERVE_WHOLE_NODES ? sim_bf_whole_nodes(b->s, j->model, j->gpu) : j->gpu;
}

/* A blocked job's reservation at the earliest time the plan holds it, within the window. */
static void reserve(struct bf *b, struct sim_job *j)
{
	struct sim *s = b->s;
	if (b->reservations >= b->max_reservations)
		return;
	double L = planned_run(s, j), window = s->p->bf_window > 0 ? s->now + (double)s->p->bf_window : INFINITY;
	struct bf_memo *memo = &b->memo[j->model < 0 ? s->n_models : j->model];
	double bound = sim_bf_memo_bound(memo, j->gpu, L);
	if (bound > window || bound == INFINITY)
		return;     /* an easier search found nothing within the window (or at all) */
	size_t c = bound > b->pr.t[0] ? point_at(&b->pr, bound) : 0;   /* a breakpoint already */
	c = earliest(&b->pr, c, j->model, j->gpu, L, sim_bf_test_res(s), sim_bf_phase(s), j->model < 0 || s->bfx->star);
	sim_bf_memo_note(memo, j->gpu, L, c == b->pr.n ? INFINITY : b->pr.t[c]);
	if (c == b->pr.n || b->pr.t[c] > window)
		return;     /* never within the plan, or beyond the window: no reservation */
	double end = sim_bf_round_up(s, sim_bf_res_down(s, b->pr.t[c] + L)), from = sim_bf_res_down(s, b->pr.t[c]);
	if (from < b->pr.t[c])          /* rounded down: from the grid point before (now at the earliest) */
		c = from > b->pr.t[0] ? point_at(&b->pr, from) : 0;
	take(&b->pr, c, end, j->model, j->gpu, reserve_upto(b, j));
	b->reservations++;
}

/* ---- the fast plan: one column per model ----
 * When every job is of a concrete model (struct bf_index.fast), the columns are independent:
 * a job reads its model's column only (the total does not bind it, holds()), and a
 * reservation or start changes only its model's. Each column then keeps only its own
 * breakpoints, built from its model's part of the index when a job of it first asks in a pass
 * (stale entries dropped as they are read), with the same doubles in the same order as the full
 * profile's column: from the frees at the moment the full profile is built (the pass's first
 * ask, fbm0), then the starts since (late), so amounts not exact in binary give the same bits.
 * The starts are those of the full profile: another column's breakpoint leaves this column as
 * it was, so a job's earliest start is always at one of its own column's breakpoints (or now). */
static void col_build(struct bf *b, struct col *c, int m)
{
	struct sim *s = b->s;
	struct rvec *r = &s->bfx->bym[m];
	sim_col_begin(c, s->now, b->fbm0[m]);
	size_t w = 0;
	for (size_t i = 0; i < r->n; i++)
		if (live(s->bfx, &r->v[i])) {
			r->v[w++] = r->v[i];
			if (r->v[i].seq <= b->snap)     /* not a start since: the full profile's build */
				sim_col_release(c, r->v[i].t > s->now ? r->v[i].t : s->now, r->v[i].gpu);
		}
	s->bfx->count -= r->n - w;
	r->n = w;
	sim_col_end(c);
	for (size_t k = 0; k < b->nlate; k++)   /* then the starts since, in order, as the full profile */
		if (b->late[k].model == m)
			sim_col_take(c, 0, b->late[k].end, b->late[k].g);
}

/* reserve() in j's column. */
static void col_reserve(struct bf *b, struct col *c, struct sim_job *j)
{
	struct sim *s = b->s;
	double L = planned_run(s, j);
	size_t i = sim_col_earliest(c, j->gpu, L, sim_bf_test_res(s), sim_bf_phase(s));
	if (i == c->n || (s->p->bf_window > 0 && c->t[i] > s->now + (double)s->p->bf_window))
		return;
	double end = sim_bf_round_up(s, sim_bf_res_down(s, c->t[i] + L)), from = sim_bf_res_down(s, c->t[i]);
	if (from < c->t[i])
		i = from > c->t[0] ? sim_col_point_at(c, from) : 0;
	sim_col_take_upto(c, i, end, j->gpu, reserve_upto(b, j));
	b->reservations++;
}

/* A blocked job: its reservation is made when a job behind it in its column (or any, with
 * "*") asks the plan (flush), so a column without such a job costs nothing. */
static void blocked_job(struct bf *b, struct sim_job *j)
{
	b->col[j->model < 0 ? b->s->n_models : j->model] = true;
	b->pending = xgrow(b->pending, &b->capp, b->np + 1, sizeof *b->pending);
	b->done = xgrow(b->done, &b->capd, b->np + 1, sizeof *b->done);
	b->done[b->np] = 0;
	b->pending[b->np++] = j;
}

/* The plan as j must see it: built, with the reservations of every blocked job ahead of j
 * that can share GPUs with it, in key order. Columns of concrete models are independent
 * (a reservation fits its column, so the total never binds a concrete job); "*" binds all. */
static void flush(struct bf *b, const struct sim_job *j)
{
	struct sim *s = b->s;
	if (b->cols) {          /* fast: j's column only (no "*" job anywhere) */
		struct col *cl = &b->cols[j->model];
		size_t m = (size_t)j->model;
		if (!b->fbm0) {         /* the moment the full profile is built */
			b->fbm0 = xmalloc((size_t)s->n_models * sizeof *b->fbm0);
			memcpy(b->fbm0, s->fbm, (size_t)s->n_models * sizeof *b->fbm0);
			b->snap = s->bfx->starts;
		}
		if (!cl->built)
			col_build(b, cl, j->model);
		for (size_t k = b->ccur[m]; k < b->np; k++)
			if (!b->done[k] && b->pending[k]->model == j->model) {
				col_reserve(b, cl, b->pending[k]);
				b->done[k] = 1;
			}
		b->ccur[m] = b->np;
		return;
	}
	if (!b->built)
		profile_build(b);
	size_t nm = (size_t)s->n_models, c = j->model < 0 || b->col[nm] ? nm : (size_t)j->model;
	for (size_t k = b->ccur[c]; k < b->np; k++)
		if (!b->done[k] && (c == nm || b->pending[k]->model == (int)c)) {
			reserve(b, b->pending[k]);
			b->done[k] = 1;
		}
	b->ccur[c] = b->np;
	if (c == nm)
		for (size_t m = 0; m < nm; m++)
			b->ccur[m] = b->np;
}

/* Whether the plan can matter to j: a job of a concrete model whose column holds no
 * reservation, with none of "*" either, fits the plan from now on iff it fits now (its
 * column only grows with time, and the total is never below it while every reservation fits
 * its own column), so it needs no plan. */
static bool needs_plan(const struct bf *b, const struct sim_job *j)
{
	return j->model < 0 || b->col[j->model] || b->col[b->s->n_models];
}

static bool admitted(struct sim *s, struct sim_job *j)
{
	if (!s->gated || j->hp)
		return true;
	struct sim_job_view v;
	sim_job_view_of(s, j, &v);
	return s->hooks.gate_admit(s->hooks.ctx, s, &v);
}

/* A job behind a blocked one that fits now: it starts if the plan holds it from now for
 * its whole limit. 1 = started. */
static int try_backfill(struct bf *b, struct sim_job *j)
{
	struct sim *s = b->s;
	if (!needs_plan(b, j)) {
		if (sim_place(s, j))
			return 0;
		sim_queue_remove(s, j);
		sim_start_job(s, j);
		if (b->cols) {
			double end = sim_bf_round_up(s, s->now + planned_run(s, j));
			if (b->cols[j->model].built)
				sim_col_take(&b->cols[j->model], 0, end, j->gpu);
			else if (b->fbm0) {     /* in the full profile already: taken when the column is built */
				b->late = xgrow(b->late, &b->caplate, b->nlate + 1, sizeof *b->late);
				b->late[b->nlate++] = (struct late){ j->model, end, j->gpu };
			}
		} else if (b->built) {  /* keep the plan true: j holds its GPUs until its planned end */
			double end = sim_bf_round_up(s, s->now + planned_run(s, j));
			size_t e = isfinite(end) ? point_at(&b->pr, end) : b->pr.n;
			for (size_t i = 0; i < e; i++)
				add_alloc(b, b->pr.f + i * b->pr.w, j, -1);
			lower(&b->pr, e);
		}
		return 1;
	}
	flush(b, j);
	double L = planned_run(s, j);
	if (b->cols) {
		if (!sim_col_holds_now(&b->cols[j->model], j->gpu, L, sim_bf_closed(s)) || sim_place(s, j))
			return 0;
		sim_queue_remove(s, j);
		sim_start_job(s, j);
		sim_col_take(&b->cols[j->model], 0, sim_bf_round_up(s, s->now + L), j->gpu);
		return 1;
	}
	if (!holds_now(&b->pr, j->model, j->gpu, L, sim_bf_closed(s), j->model < 0 || s->bfx->star) || sim_place(s, j))
		return 0;
	sim_queue_remove(s, j);
	sim_start_job(s, j);
	double end = sim_bf_round_up(s, s->now + L);
	size_t e = isfinite(end) ? point_at(&b->pr, end) : b->pr.n;
	for (size_t i = 0; i < e; i++)
		add_alloc(b, b->pr.f + i * b->pr.w, j, -1);
	lower(&b->pr, e);
	return 1;
}

/* Easy's one reservation as Slurm's classic shadow: the first planned end at which the blocked
 * job B fits (its model's column, and the total), and the GPUs left over then beside it. */
struct shadow {
	double t;                       /* INFINITY: no reservation */
	double extra_m, extra_t;        /* free beyond B at t in B's model and in total */
};

static struct shadow shadow_of(struct sim *s, const struct sim_job *B)
{
	struct shadow sh = { INFINITY, INFINITY, INFINITY };
	int m = B->model;
	double fm = m < 0 ? s->tfree : s->fbm[m], ft = s->tfree;
	const struct bf_index *ix = sim_bf_index_get(s);
	const struct rvec *x = &ix->all;
	size_t i = 0;
	double t = s->now;
	while (!(fm >= B->gpu && ft >= B->gpu)) {
		while (i < x->n && !live(ix, &x->v[i]))
			i++;
		if (i == x->n)
			return sh;      /* never fits within the plan */
		t = x->v[i].t > s->now ? x->v[i].t : s->now;
		for (; i < x->n && !(x->v[i].t > t); i++) {   /* every release at t */
			const struct sim_job *j = x->v[i].j;
			if (!live(ix, &x->v[i]))
				continue;
			if (j->model >= 0) {    /* every piece on its model's nodes */
				if (m < 0 || j->model == m)
					fm += j->gpu;
				ft += j->gpu;
				continue;
			}
			for (size_t k = 0; k < j->n_alloc; k++) {
				if (m < 0 || s->nodes[j->alloc[k].node].model == m)
					fm += j->alloc[k].x;
				ft += j->alloc[k].x;
			}
		}
	}
	if (s->p->bf_window > 0 && t > s->now + (double)s->p->bf_window)
		return sh;              /* beyond the window: no reservation */
	sh.t = t;
	double held = B->gpu;           /* whole_nodes: B's nodes whole, whatever of them is free at t */
	if (s->p->bf_reservation == BF_RESERVE_WHOLE_NODES)
		held = fmax(B->gpu, fmin(sim_bf_whole_nodes(s, m, B->gpu), m < 0 ? ft : fm));
	sh.extra_m = fm - held;
	sh.extra_t = ft - held;
	return sh;
}

/* Easy: behind the one reservation only jobs that fit now matter, and the queue hands out
 * exactly those, in key order (sim_queue_pass_next); B is the blocked job already visited. A job
 * starts if it ends (by its plan) before the shadow time, or takes only GPUs the reservation
 * leaves over, or cannot touch B's GPUs (another concrete model): the plan of §3.10 with one
 * reservation, computed in O(1) per job. */
/* The order of a pass: the queue's key order (cur), or the multifactor order (v). */
struct order {
	size_t *cur;
	struct sim_job **v;
	size_t n, i;
};

static struct sim_job *order_next(struct sim *s, struct order *o)
{
	if (o->v)
		return o->i < o->n ? o->v[o->i++] : NULL;
	return sim_queue_order_next(s, o->cur);
}

/* Easy's candidates: the jobs after B that fit now, in the pass's order. */
static struct sim_job *fitting_next(struct sim *s, struct order *o)
{
	if (!o->v)
		return sim_queue_pass_next(s);
	while (o->i < o->n) {
		struct sim_job *j = o->v[o->i++];
		if ((j->model < 0 ? s->tfree : s->fbm[j->model]) >= j->gpu)
			return j;
	}
	return NULL;
}

static size_t easy_rest(struct sim *s, struct sim_job *B, struct order *o, size_t max_test)
{
	struct shadow sh = { INFINITY, INFINITY, INFINITY };
	bool have = false;              /* the shadow is computed for the first job it matters to */
	size_t started = 0, tested = 1;
	struct sim_job *j;
	sim_queue_pass_begin(s);
	while (s->tfree > SIM_EPS && (j = fitting_next(s, o))) {
		if (j == B || !admitted(s, j))
			continue;
		if (tested++ >= max_test)
			break;
		bool apart = j->model >= 0 && B->model >= 0 && j->model != B->model;
		if (!apart && !have) {
			sh = shadow_of(s, B);
			have = true;
		}
		double jend = sim_bf_round_up(s, s->now + planned_run(s, j));
		bool before = !apart && (sim_bf_closed(s) ? jend < sh.t : !(jend > sh.t));
		bool same = j->model >= 0 && j->model == B->model;
		bool within = !apart && (same ? j->gpu <= sh.extra_m && j->gpu <= sh.extra_t : j->gpu <= sh.extra_t);
		if (!(apart || before || within) || sim_place(s, j))
			continue;
		sim_queue_remove(s, j);
		sim_start_job(s, j);
		started++;
		if (!apart && !before) {
			sh.extra_t -= j->gpu;
			if (same)
				sh.extra_m -= j->gpu;
		}
	}
	return started;
}

size_t sim_backfill_pass(struct sim *s)
{
	bool cycle = sim_bf_cycle_now(s);
	s->bf_blocked = false;
	if (s->tfree <= SIM_EPS)
		return 0;               /* nothing starts before a completion, itself an event */
	sim_queue_pass_begin(s);
	if (!sim_queue_pass_next(s))
		return 0;               /* no queued job fits its eligible free GPUs: none can start */
	struct bf b = { .s = s };
	bool easy = s->p->backfill == BACKFILL_EASY;
	b.max_reservations = easy ? 1 : SIZE_MAX;
	b.col = xcalloc((size_t)s->n_models + 1, sizeof *b.col);
	b.ccur = xcalloc((size_t)s->n_models + 1, sizeof *b.ccur);
	b.memo = xcalloc((size_t)s->n_models + 1, sizeof *b.memo);
	if (!easy && sim_bf_index_get(s)->fast) {
		b.cols = s->bfx->cols;
		for (size_t m = 0; m < s->bfx->nm; m++)
			b.cols[m].built = false;
	}
	size_t *cur = xcalloc(sim_queue_lane_count(s), sizeof *cur);
	struct order o = { cur, NULL, 0, 0 };
	if (s->p->mf) {         /* priority/multifactor: every queued job, sorted by priority */
		struct sim_job *q;
		size_t cap = 0;
		while ((q = sim_queue_order_next(s, cur))) {
			o.v = xgrow(o.v, &cap, o.n + 1, sizeof *o.v);
			o.v[o.n++] = q;
		}
		if (o.n)
			sim_priority_sort(s, o.v, o.n);
		else
			o.v = xmalloc(sizeof *o.v);
	} else if (!easy)
		sim_queue_order_skip_unfit(s, cur);   /* their jobs cannot start, their plans bind none that can */
	size_t started = 0, tested = 0;
	size_t max_test = s->p->bf_max_job_test > 0 ? (size_t)s->p->bf_max_job_test : SIZE_MAX;
	bool blocked = false;
	struct sim_job *j;
	while (s->tfree > SIM_EPS && (j = order_next(s, &o))) {
		if (!admitted(s, j))
			continue;       /* held by the admission gate: neither started nor protected */
		bool fits = (j->model < 0 ? s->tfree : s->fbm[j->model]) >= j->gpu;
		if (!blocked) {         /* in order while every job ahead has started */
			if (fits && !sim_place(s, j)) {
				sim_queue_remove(s, j);
				sim_start_job(s, j);
				started++;
				continue;
			}
			blocked = true;
			s->bf_blocked = true;
			if (!cycle)
				break;  /* between cycles: the main scheduler stops at the first blocked job */
			tested++;
			blocked_job(&b, j);
			if (easy) {
				started += easy_rest(s, j, &o, max_test);
				break;
			}
			continue;
		}
		if (tested++ >= max_test)
			break;
		if (fits && try_backfill(&b, j)) {
			started++;
			continue;
		}
		blocked_job(&b, j);
	}
	if (cycle)
		s->bf_idle_cycles = started == 0 && s->rn == 0 && s->next_arrival >= s->n ? s->bf_idle_cycles + 1 : 0;
	free(cur);
	free(o.v);
	free(b.col);
	free(b.ccur);
	free(b.memo);
	free(b.done);
	free(b.fbm0);
	free(b.late);
	free(b.pending);
	free(b.pr.t);
	free(b.pr.f);
	free(b.pr.lo);
	return started;
}
