/*
 * backfill_index — the index of running jobs by planned end kept across backfill passes
 * (backfill.c, issue 37; docs/simulator.md §3.10).
 */
#include "sim/backfill_index.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The unit test's switch to the reference (backfill_col.h): read where the index decides
 * whether conservative plans per model. */
bool sim_bf_force_full;

int sim_bf_release_cmp(const void *a, const void *b)
{
	const struct release *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* cur[job] for a job that runs (or ran): the array grown to the jobs of an open simulation. */
static void cur_set(struct sim *s, struct bf_index *x, const struct sim_job *j, size_t v)
{
	size_t k = (size_t)(j - s->jobs);
	if (k >= x->ncur) {
		x->cur = xrealloc(x->cur, s->n * sizeof *x->cur);
		memset(x->cur + x->ncur, 0, (s->n - x->ncur) * sizeof *x->cur);
		x->ncur = s->n;
	}
	x->cur[k] = v;
}

void sim_backfill_stopped(struct sim *s, struct sim_job *j)
{
	if (s->bfx)
		cur_set(s, s->bfx, j, 0);
}

static void index_insert(struct rvec *x, struct release r)
{
	size_t lo = 0, hi = x->n;       /* after every entry <= r */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sim_bf_release_cmp(&x->v[mid], &r) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	x->v = xgrow(x->v, &x->cap, x->n + 1, sizeof *x->v);
	memmove(x->v + lo + 1, x->v + lo, (x->n - lo) * sizeof *x->v);
	x->v[lo] = r;
	x->n++;
}

static size_t compact(const struct bf_index *x, struct release *v, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (live(x, &v[i]))
			v[w++] = v[i];
	return w;
}

/* Jobs [x->checked, s->n) looked at for "*" (star); false: the per-model index has to go. */
static bool check_jobs(const struct sim *s, struct bf_index *x)
{
	for (; x->checked < s->n; x->checked++)
		if (s->jobs[x->checked].model < 0) {
			if (x->fast)
				return false;
			x->star = true;
		}
	return true;
}

static struct release release_of(const struct sim *s, struct sim_job *j)
{
	return (struct release){ sim_bf_round_up(s, j->run_start + planned_run(s, j)), (size_t)(j - s->jobs), (size_t)j->runs, j, j->gpu, j->model, 0 };
}

void sim_backfill_started(struct sim *s, struct sim_job *j)
{
	struct bf_index *x = s->bfx;
	if (!x)
		return;
	if (s->p->backfill == BACKFILL_NONE) {
		sim_backfill_release(s);    /* starts under another pass: rebuilt if backfill comes back */
		return;
	}
	if (x->mode != s->p->backfill || (x->fast && j->model < 0)) {
		sim_backfill_release(s);    /* rebuilt for this policy, or as the full profile */
		return;
	}
	struct release r = release_of(s, j);
	r.seq = ++x->starts;
	cur_set(s, x, j, r.run + 1);
	if (isfinite(r.t)) {
		index_insert(x->fast ? &x->bym[j->model] : &x->all, r);
		x->count++;
	}
	if (x->count > 2 * s->rn + 64) {   /* compact: keep the live entries */
		if (!x->fast) {
			x->count = x->all.n = compact(x, x->all.v, x->all.n);
			return;
		}
		x->count = 0;
		for (size_t m = 0; m < x->nm; m++)
			x->count += x->bym[m].n = compact(x, x->bym[m].v, x->bym[m].n);
	}
}

void sim_backfill_release(struct sim *s)
{
	if (s->bfx) {
		for (size_t m = 0; s->bfx->fast && m < s->bfx->nm; m++) {
			free(s->bfx->bym[m].v);
			sim_col_free(&s->bfx->cols[m]);
		}
		free(s->bfx->bym);
		free(s->bfx->cols);
		free(s->bfx->all.v);
		free(s->bfx->cur);
		free(s->bfx);
		s->bfx = NULL;
	}
}

/* The index for this pass: built from the running set when missing or planned otherwise. */
struct bf_index *sim_bf_index_get(struct sim *s)
{
	struct bf_index *x = s->bfx;
	if (x && x->dflt == s->p->bf_default_limit && x->res == s->p->bf_resolution && x->ph == s->p->bf_res_phase && x->mode == s->p->backfill) {
		if (check_jobs(s, x))   /* jobs added since (an open simulation) */
			return x;
	}
	sim_backfill_release(s);
	x = s->bfx = xcalloc(1, sizeof *x);
	x->dflt = s->p->bf_default_limit;
	x->res = s->p->bf_resolution;
	x->ph = s->p->bf_res_phase;
	x->mode = s->p->backfill;
	check_jobs(s, x);
	x->fast = x->mode == BACKFILL_CONSERVATIVE && !sim_bf_force_full && !x->star;
	struct rvec *all = &x->all;
	all->v = xmalloc((s->rn + 1) * sizeof *all->v);
	all->cap = s->rn + 1;
	x->cur = xcalloc(s->n + 1, sizeof *x->cur);
	x->ncur = s->n;
	for (size_t i = 0; i < s->rn; i++) {
		struct release r = release_of(s, s->running[i].j);
		x->cur[r.job] = r.run + 1;
		if (isfinite(r.t))
			all->v[all->n++] = r;
	}
	qsort(all->v, all->n, sizeof *all->v, sim_bf_release_cmp);
	x->count = all->n;
	if (!x->fast)
		return x;
	x->nm = (size_t)s->n_models;    /* split by model, each in the same order */
	x->bym = xcalloc(x->nm, sizeof *x->bym);
	x->cols = xcalloc(x->nm, sizeof *x->cols);
	for (size_t i = 0; i < all->n; i++)
		index_insert(&x->bym[all->v[i].model], all->v[i]);
	free(all->v);
	*all = (struct rvec){ NULL, 0, 0 };
	return x;
}
