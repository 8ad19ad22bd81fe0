/*
 * The running set, kept as a min-heap on remaining work, with remaining work updated lazily.
 * A running job's remaining work lives in its heap entry (struct run_entry), not in the job:
 * a comparison reads two entries of the heap's array instead of following two pointers, and
 * the job's own rem is written back when it leaves the set.
 *
 * The original updates rem = max(0, rem - delta) for every running job at every step. The
 * doubles this produces are reproduced exactly without touching every job:
 * - every step's delta is logged; a job stores (rem, epoch, now at that epoch) and is brought
 *   up to date only when its value is needed ("materialised");
 * - if every delta since the job's epoch was an exact difference next - now, and the job's
 *   rem and all those deltas are multiples of 2^L with rem and their sum below 2^(53+L), then
 *   every intermediate subtraction was exact, so the result is max(0, rem - (now - now_epoch))
 *   computed in one exact subtraction; otherwise the logged deltas are replayed one by one,
 *   in order, exactly as the original did;
 * - x -> max(0, fl(x - delta)) is monotone, so the heap order stays valid as time passes;
 * - the common case (whole seconds: rem and every delta since the epoch exact whole numbers,
 *   rem and the elapsed time below 2^53) meets the exact condition with L >= 0 and is taken
 *   first, without the exponent search (the heap's comparisons materialise jobs at every step).
 * Running Spot jobs are also kept in a list in start order with a frontier at the first job
 * whose guarantee has not passed (run_start + rg is monotone along the list).
 */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Exponent of the lowest set bit of x > 0 (x = odd * 2^result). */
static int lsb_exp(double x)
{
	int e;
	double m = frexp(x, &e);
	uint64_t mant = (uint64_t)ldexp(m, 53);
	return e - 53 + __builtin_ctzll(mant);
}

/* min over logged steps [from, K) of the deltas' lowest-bit exponents (monotone stack). */
static int suffix_min(const struct sim *s, size_t from)
{
	size_t lo = 0, hi = s->ms_n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ms_idx[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->ms_g[lo];   /* lo < ms_n because from < K and the last step is on the stack */
}

static double entry_rem(struct sim *s, struct run_entry *j)
{
	size_t K = s->steps;
	if (j->ep == K)
		return j->rem;
	double r = j->rem;
	if (r > 0 && s->last_nonint <= j->ep && r < 0x1p53 && (double)(int64_t)r == r) {
		/* every delta since ep is a whole number > 0 and exact (so is now - now_ep, below
		 * 2^53): L >= 0 below, lim >= 2^53, and the same one subtraction is exact */
		double d = s->now - j->now_ep;
		if (d < 0x1p53 * (1 - 0x1p-50)) {
			double x = r - d;
			j->rem = x > 0 ? x : 0.0;
			j->ep = K;
			j->now_ep = s->now;
			return j->rem;
		}
	}
	if (r > 0) {
		bool exact = false;
		if (s->last_inexact <= j->ep) {
			int L = suffix_min(s, j->ep), lr = lsb_exp(r);
			if (lr < L)
				L = lr;
			if (L > -1000) {
				double lim = ldexp(1.0, 53 + L), d = s->now - j->now_ep;
				if (r < lim && d < lim * (1 - 0x1p-50)) {
					double x = r - d;
					r = x > 0 ? x : 0.0;
					exact = true;
				}
			}
		}
		if (!exact)
			for (size_t i = j->ep; i < K && r > 0; i++) {
				double x = r - s->dlog[i];
				r = x > 0 ? x : 0.0;
			}
	}
	j->rem = r;
	j->ep = K;
	j->now_ep = s->now;
	return r;
}

double sim_running_rem(struct sim *s, struct sim_job *j)
{
	return entry_rem(s, &s->running[j->pos]);
}

/* The delta log serves only running jobs not yet brought up to date. When it is full, bring
 * every running job up to date (materialising early gives the same doubles: the replay is
 * the same subtractions in the same order, and the exact shortcut equals it) and start the
 * log afresh: it never grows with the number of steps (a controller's 300-s grid over a
 * 1e12-s job is 3.3e9 steps). */
#define RUNNING_LOG_REBASE ((size_t)1 << 16)

static void log_rebase(struct sim *s)
{
	for (size_t i = 0; i < s->rn; i++) {
		(void)entry_rem(s, &s->running[i]);
		s->running[i].ep = 0;
	}
	s->steps = 0;
	s->ms_n = 0;
	s->last_inexact = 0;
	s->last_nonint = 0;
}

void sim_running_advance(struct sim *s, double next, double delta)
{
	size_t k = s->steps;
	if (k == s->dcap_log && k >= RUNNING_LOG_REBASE) {
		log_rebase(s);
		k = 0;
	}
	if (k == s->dcap_log) {
		s->dcap_log = s->dcap_log ? 2 * s->dcap_log : 1024;
		s->dlog = xrealloc(s->dlog, s->dcap_log * sizeof *s->dlog);
		s->ms_idx = xrealloc(s->ms_idx, s->dcap_log * sizeof *s->ms_idx);
		s->ms_g = xrealloc(s->ms_g, s->dcap_log * sizeof *s->ms_g);
	}
	s->dlog[k] = delta;
	/* Fast2Sum (|next| >= |now|): the rounding error of next - now is exactly this. */
	double z = delta - next, err = -s->now - z;
	if (err != 0 || !(delta > 0))
		s->last_inexact = k + 1;
	if (err != 0 || !(delta > 0 && delta < 0x1p53 && (double)(int64_t)delta == delta))
		s->last_nonint = k + 1;
	int g = delta > 0 ? lsb_exp(delta) : -2000;
	while (s->ms_n > 0 && s->ms_g[s->ms_n - 1] >= g)
		s->ms_n--;
	s->ms_idx[s->ms_n] = k;
	s->ms_g[s->ms_n++] = g;
	s->steps = k + 1;
}

/* ---- heap ---- */

static bool less(struct sim *s, struct run_entry *a, struct run_entry *b)
{
	return entry_rem(s, a) < entry_rem(s, b);
}

static void heap_set(struct sim *s, size_t i, const struct run_entry *e)
{
	s->running[i] = *e;
	e->j->pos = i;
}

static void sift_up(struct sim *s, size_t i)
{
	struct run_entry e = s->running[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!less(s, &e, &s->running[p]))
			break;
		heap_set(s, i, &s->running[p]);
		i = p;
	}
	heap_set(s, i, &e);
}

static void sift_down(struct sim *s, size_t i)
{
	struct run_entry e = s->running[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->rn)
			break;
		if (c + 1 < s->rn && less(s, &s->running[c + 1], &s->running[c]))
			c++;
		if (!less(s, &s->running[c], &e))
			break;
		heap_set(s, i, &s->running[c]);
		i = c;
	}
	heap_set(s, i, &e);
}

static void spot_unlink(struct sim *s, struct sim_job *j)
{
	if (s->gfront == j)
		s->gfront = j->snext;
	if (j->sprev)
		j->sprev->snext = j->snext;
	else
		s->shead = j->snext;
	if (j->snext)
		j->snext->sprev = j->sprev;
	else
		s->stail = j->sprev;
	j->snext = j->sprev = NULL;
}

void sim_running_add(struct sim *s, struct sim_job *j)
{
	struct run_entry e = { j->rem, s->now, s->steps, j };
	s->running = xgrow(s->running, &s->rcap, s->rn + 1, sizeof *s->running);
	heap_set(s, s->rn++, &e);
	sift_up(s, j->pos);
	j->running = true;
	if (!j->hp) {
		j->sprev = s->stail;
		j->snext = NULL;
		if (s->stail)
			s->stail->snext = j;
		else
			s->shead = j;
		s->stail = j;
		if (!s->gfront)
			s->gfront = j;
	}
}

void sim_running_remove(struct sim *s, struct sim_job *j)
{
	size_t i = j->pos;
	j->rem = entry_rem(s, &s->running[i]);
	struct run_entry last = s->running[--s->rn];
	j->running = false;
	if (s->bfx)
		sim_backfill_stopped(s, j);   /* issue 37: the plan's index reads its own liveness */
	if (!j->hp)
		spot_unlink(s, j);
	if (last.j == j)
		return;
	heap_set(s, i, &last);
	if (i > 0 && less(s, &s->running[i], &s->running[(i - 1) / 2]))
		sift_up(s, i);
	else
		sift_down(s, i);
}

double sim_running_next_completion(struct sim *s, double thr)
{
	if (s->rn == 0)
		return INFINITY;
	double c = s->now + entry_rem(s, &s->running[0]);
	if (c > thr)
		return c;
	/* The smallest remaining work rounds to within EPS of now: the original ignores those
	 * candidates, so take the minimum over the rest (rare). */
	double best = INFINITY;
	for (size_t i = 0; i < s->rn; i++) {
		c = s->now + entry_rem(s, &s->running[i]);
		if (c > thr && c < best)
			best = c;
	}
	return best;
}

/* Move the guarantee frontier to the first running Spot job with run_start + rg > thr. */
struct sim_job *sim_running_guarantee_frontier(struct sim *s, double thr)
{
	while (s->gfront && !(s->gfront->run_start + s->gfront->rg > thr))
		s->gfront = s->gfront->snext;
	return s->gfront;
}

double sim_running_next_guarantee(struct sim *s, double thr)
{
	struct sim_job *f = sim_running_guarantee_frontier(s, thr);
	return f ? f->run_start + f->rg : INFINITY;
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp((*(struct sim_job *const *)a)->tj->id, (*(struct sim_job *const *)b)->tj->id);
}

struct sim_job **sim_running_collect_done(struct sim *s, size_t *n)
{
	s->dn = 0;
	while (s->rn > 0 && entry_rem(s, &s->running[0]) <= SIM_EPS) {
		struct sim_job *j = s->running[0].j;
		sim_running_remove(s, j);
		s->done = xgrow(s->done, &s->dcap, s->dn + 1, sizeof *s->done);
		s->done[s->dn++] = j;
	}
	if (s->dn > 1)
		qsort(s->done, s->dn, sizeof *s->done, id_cmp);
	*n = s->dn;
	return s->done;
}
