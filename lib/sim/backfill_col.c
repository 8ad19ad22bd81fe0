/*
 * backfill_col — one column of conservative backfill's fast plan (backfill.c, issue 37;
 * docs/simulator.md §3.10): the free GPUs of one model over its own breakpoints. The
 * operations are those of backfill.c's full profile on one column, with the same doubles.
 */
#include "sim/backfill_col.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void col_push(struct col *c, double t, double f)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->t = xrealloc(c->t, c->cap * sizeof *c->t);
		c->f = xrealloc(c->f, c->cap * sizeof *c->f);
	}
	c->t[c->n] = t;
	c->f[c->n++] = f;
}

void sim_col_begin(struct col *c, double now, double free_now)
{
	c->n = 0;
	col_push(c, now, free_now);
}

/* As the full profile's build: a second row at now for the first release even when it is
 * due now (an end already passed: not free now, the first thing to be). */
void sim_col_release(struct col *c, double t, double g)
{
	if (c->n == 1 || t > c->t[c->n - 1])
		col_push(c, t, c->f[c->n - 1]);
	c->f[c->n - 1] += g;
}

void sim_col_end(struct col *c)
{
	c->lo = c->f[0];
	for (size_t i = 1; i < c->n; i++)
		if (c->f[i] < c->lo)
			c->lo = c->f[i];
	c->built = true;
}

void sim_col_free(struct col *c)
{
	free(c->t);
	free(c->f);
}

/* point_at of one column. */
size_t sim_col_point_at(struct col *c, double t)
{
	size_t lo = 0, hi = c->n;       /* first index with t[i] > t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->t[mid] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0 && c->t[lo - 1] == t)
		return lo - 1;
	col_push(c, 0, 0);
	memmove(c->t + lo + 1, c->t + lo, (c->n - 1 - lo) * sizeof *c->t);
	memmove(c->f + lo + 1, c->f + lo, (c->n - 1 - lo) * sizeof *c->f);
	c->t[lo] = t;
	c->f[lo] = c->f[lo - 1];
	return lo;
}

/* Take g GPUs over [t[i0], end) (a reservation, or a job started now with i0 = 0). */
void sim_col_take(struct col *c, size_t i0, double end, double g)
{
	size_t e = isfinite(end) ? sim_col_point_at(c, end) : c->n;
	for (size_t i = i0; i < e; i++) {
		c->f[i] -= g;
		if (c->f[i] < c->lo)
			c->lo = c->f[i];
	}
}

/* sim_col_take of a whole-node reservation: up to `upto` at each row, whatever of it is free
 * there and never less than g (backfill.c's take). upto <= g: sim_col_take. */
void sim_col_take_upto(struct col *c, size_t i0, double end, double g, double upto)
{
	if (!(upto > g)) {
		sim_col_take(c, i0, end, g);
		return;
	}
	size_t e = isfinite(end) ? sim_col_point_at(c, end) : c->n;
	for (size_t i = i0; i < e; i++) {
		c->f[i] -= fmax(g, fmin(upto, c->f[i]));
		if (c->f[i] < c->lo)
			c->lo = c->f[i];
	}
}

/* The first row from which g stay free for L seconds (n: never), as backfill.c's earliest(). */
size_t sim_col_earliest(const struct col *p, double g, double L, double res, double ph)
{
	size_t c = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (i > c && col_past(p->t[c], p->t[i], c == 0, L, res, ph))
			return c;
		if (p->f[i] < g)
			c = i + 1;
	}
	return c;
}

/* Whether g stay free from now for L seconds, stopping at the first row that fails. */
bool sim_col_holds_now(const struct col *p, double g, double L, bool closed)
{
	if (p->lo >= g)
		return true;
	for (size_t i = 0; i < p->n && (i == 0 || p->t[i] < p->t[0] + L || (closed && p->t[i] == p->t[0] + L)); i++)
		if (p->f[i] < g)
			return false;
	return true;
}


double sim_bf_memo_bound(const struct bf_memo *m, double g, double L)
{
	double t = -INFINITY;
	for (unsigned k = 0; k < m->n; k++)
		if (m->g[k] <= g && m->L[k] <= L && m->t[k] > t)
			t = m->t[k];
	return t;
}

void sim_bf_memo_note(struct bf_memo *m, double g, double L, double t)
{
	unsigned k = m->n < 8 ? m->n++ : m->next++ % 8;
	m->g[k] = g;
	m->L[k] = L;
	m->t[k] = t;
}
