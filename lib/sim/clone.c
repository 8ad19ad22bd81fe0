/*
 * clone — copies of a session for counterfactuals (rolling scenarios, branch.c): the whole
 * session (sim_clone), or only its live state (sim_clone_live: the queued and running jobs,
 * their placements and ledgers, not the finished history nor the real future), optionally
 * into the buffers of a previous copy (sim_clone_live_reuse).
 */
#include "sim/engine.h"
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REBASE(d, s, ptr) ((ptr) ? (d)->jobs + ((ptr) - (s)->jobs) : NULL)

size_t sim_population_indices(const struct sim *s, size_t *out)
{
	size_t np, *slot = sim_present_slots(s, &np), k = 0;
	for (size_t x = 0; x < np; x++) {
		size_t i = slot ? slot[x] : x;
		if (s->jobs[i].eval_pop)
			out[k++] = i;
	}
	free(slot);
	return k;
}

/* The large buffers of a live clone, taken over by the next one. */
struct clone_buffers {
	struct sim_job *jobs;               /* cap_n slots, all zero */
	struct sim_job_result *res_jobs;    /* cap_n + 1, zero (a live clone never writes them) */
	double *dlog;                       /* log_cap entries, contents unread below the copied epoch */
	size_t *ms_idx;
	int *ms_g;
	size_t log_cap;
	size_t trim;                        /* the pages of the slots below this were given back */
};

static bool kept(const uint64_t *keep, size_t i)
{
	return keep[i / 64] >> (i % 64) & 1;
}

/* The pages of a reused slot buffer that hold no live slot are given back as the live jobs
 * leave (MADV_DONTNEED: they read as zeros again, which is what a cleared slot holds), so
 * that what stays resident follows the live set. trim_below alone frees nothing in a long
 * window: a job that runs for months keeps the lowest live slot near 0, and the slots
 * between were the whole trace (40.9 of the full window's 240 MB). Only whole pages inside
 * the buffer and below n_keep (the future slots are rewritten by every scenario), and only
 * the pages of slots just cleared: a page that held a kept slot is looked at again when that
 * slot is cleared. slot holds the cleared slots in ascending order; runs of pages are
 * given back with one call. */
static void release_pages(struct sim_job *jobs, size_t cap, const uint64_t *keep, size_t n_keep, const size_t *slot, size_t n)
{
#ifdef MADV_DONTNEED
	long pgl = sysconf(_SC_PAGESIZE);
	if (pgl <= 0 || !n)
		return;
	uintptr_t pg = (uintptr_t)pgl, base = (uintptr_t)jobs, lim = base + cap * sizeof *jobs, run = 0, run_end = 0;
	for (size_t k = 0; k < n; k++) {
		uintptr_t first = (base + slot[k] * sizeof *jobs) & ~(pg - 1), last = (base + (slot[k] + 1) * sizeof *jobs - 1) & ~(pg - 1);
		for (uintptr_t p = first < run_end ? run_end : first; p <= last; p += pg) {
			if (p < base || p + pg > lim)
				continue;
			size_t lo = (p - base) / sizeof *jobs, hi = (p + pg - 1 - base) / sizeof *jobs;
			bool busy = hi >= n_keep;
			for (size_t i = lo; i <= hi && !busy; i++)
				busy = kept(keep, i);
			if (busy)
				continue;
			if (p != run_end) {
				if (run_end > run)
					(void)madvise((void *)run, run_end - run, MADV_DONTNEED);
				run = p;
			}
			run_end = p + pg;
		}
	}
	if (run_end > run)
		(void)madvise((void *)run, run_end - run, MADV_DONTNEED);
#else
	(void)jobs, (void)cap, (void)keep, (void)n_keep, (void)slot, (void)n;
#endif
}

/* Take spare's buffers into b when they fit s (spare is then closed): its job slots are
 * cleared one by one, only those it held, except the slots marked in keep, which the next
 * copy overwrites whole (only their pieces are freed: all of them before the copy allocates,
 * which keeps the heap as compact as clearing every slot did); the pages the cleared ones
 * leave without a kept slot are given back (release_pages). */
static void take_buffers(struct sim *spare, const struct sim *s, const uint64_t *keep, size_t n_keep, struct clone_buffers *b)
{
	memset(b, 0, sizeof *b);
	if (!spare)
		return;
	if (spare->live_only && spare->cap_n == s->cap_n && spare->t == s->t && spare->jobs && spare->res.jobs) {
		size_t np, *slot = sim_present_slots(spare, &np), nc = 0;
		for (size_t k = 0; k < np; k++) {
			size_t i = slot[k];
			struct sim_job *j = &spare->jobs[i];
			free(j->alloc);
			if (keep && i < n_keep && kept(keep, i))
				j->alloc = NULL;
			else {
				memset(j, 0, sizeof *j);
				if (keep && i < n_keep)
					slot[nc++] = i;   /* (nc <= k: the list is rewritten behind the reader) */
			}
		}
		if (keep)
			release_pages(spare->jobs, spare->cap_n + 1, keep, n_keep, slot, nc);
		free(slot);
		b->jobs = spare->jobs;
		b->res_jobs = spare->res.jobs;
		b->trim = spare->jobs_trim;
		spare->jobs = NULL;
		spare->res.jobs = NULL;
		if (spare->dlog && spare->ms_idx && spare->ms_g && spare->dcap_log >= s->dcap_log) {
			b->dlog = spare->dlog;
			b->ms_idx = spare->ms_idx;
			b->ms_g = spare->ms_g;
			b->log_cap = spare->dcap_log;
			spare->dlog = NULL;
			spare->ms_idx = NULL;
			spare->ms_g = NULL;
		}
	}
	sim_close(spare);
}

/* The slots of live jobs, collected for a counterfactual clone: one bit per admitted slot,
 * read back in slot order (ascending, each once: no sort). */
struct live_set {
	const struct sim *s;
	uint64_t *bits;
	size_t n;               /* marks made (an upper bound on the slots marked) */
};

static void add_live(void *ctx, struct sim_job *j)
{
	struct live_set *ls = ctx;
	size_t i = (size_t)(j - ls->s->jobs);
	ls->bits[i / 64] |= (uint64_t)1 << (i % 64);
	ls->n++;
}

/* A live job's slot copied into d over whatever d's slot held (zero, or the same slot of the
 * previous scenario's copy, whose pieces take_buffers freed). Only a placed job's pieces mean
 * anything: the others get their buffer when placed. */
static void copy_live_slot(struct sim *d, const struct sim *s, size_t i)
{
	struct sim_job *j = &d->jobs[i];
	const struct sim_job *f = &s->jobs[i];
	*j = *f;
	j->cap_alloc = j->n_alloc;
	j->alloc = j->n_alloc ? sim_mem_dup(f->alloc, j->n_alloc * sizeof *j->alloc) : NULL;
	j->snext = REBASE(d, s, f->snext);
	j->sprev = REBASE(d, s, f->sprev);
}

/* A reused slot buffer is kept from scenario to scenario and decision to decision (its pages
 * stay mapped: the first touch of a fresh one costs a page fault per page the live jobs
 * span). The live jobs only move up the slots (a job leaves the live state for good, and
 * new ones are admitted above every earlier one), so the whole pages below the lowest live
 * slot are given back as the live state moves on: what stays resident follows the live
 * state, not every slot a window's scenarios ever wrote. The slots there are zero, and a
 * page given back reads as zeros (Linux MADV_DONTNEED on private anonymous memory). */
#define TRIM_MIN_BYTES ((size_t)1 << 20)

static void trim_below(struct sim *d, size_t lo)
{
	if (lo <= d->jobs_trim || (lo - d->jobs_trim) * sizeof *d->jobs < TRIM_MIN_BYTES)
		return;
#ifdef MADV_DONTNEED
	long pg = sysconf(_SC_PAGESIZE);
	if (pg > 0) {
		uintptr_t a = (uintptr_t)(d->jobs + d->jobs_trim), e = (uintptr_t)(d->jobs + lo), m = (uintptr_t)pg - 1;
		a = (a + m) & ~m;
		e &= ~m;
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_DONTNEED);
	}
#endif
	d->jobs_trim = lo;
}

static struct sim *clone_session(const struct sim *s, const struct sim_hooks *h, bool live, bool counterfactual, struct sim *spare,
				 char *err, size_t errlen)
{
	if ((h != NULL) != s->hooked || (h && (h->gate_limit && h->gate_admit) != s->gated)) {
		snprintf(err, errlen, "a clone must have hooks (and a gate) exactly when the session it copies has");
		sim_close(spare);
		return NULL;
	}
	/* a counterfactual live copy of a full session: its live slots are marked first, so that
	 * the previous copy's slots about to be overwritten are not cleared before */
	bool marked = live && counterfactual && !s->live_only;
	struct live_set ls = { s, NULL, 0 };
	size_t n_words = (s->next_arrival + 63) / 64;
	if (marked) {
		ls.bits = xcalloc(n_words + 1, sizeof *ls.bits);
		sim_queue_each(s, add_live, &ls);
		for (size_t i = 0; i < s->rn; i++)
			add_live(&ls, s->running[i].j);
		for (size_t i = 0; i < s->res.n_events; i++)
			if (!s->jobs[s->res.events[i].victim].done)
				add_live(&ls, &s->jobs[s->res.events[i].trigger]);
	}
	struct clone_buffers b;
	take_buffers(live ? spare : NULL, s, ls.bits, s->next_arrival, &b);
	if (!live)
		sim_close(spare);
	struct sim *d = sim_mem_dup(s, sizeof *s);
	if (h)
		d->hooks = *h;
	d->live_only = s->live_only || live;
	d->jobs_trim = 0;
	d->copied = NULL;
	d->n_copied = 0;
	if (!live && s->live_only) {   /* a full copy of a live clone holds the same slots */
		d->copied = sim_mem_dup(s->copied, s->n_copied * sizeof *s->copied);
		d->n_copied = s->n_copied;
	}
	d->out = &d->res;
	const struct sim_output *o = &s->res;
	/* res.jobs is written only by sim_finish, which fills every entry: zero pages, not a copy
	 * (the reserve too, for sim_replace_future). calloc, not xcalloc_large: a large calloc
	 * gets fresh zero pages and touches none of them */
	d->res.jobs = b.res_jobs ? b.res_jobs : xcalloc(s->cap_n + 1, sizeof *o->jobs);
	d->res.runs = sim_mem_dup(o->runs, o->cap_runs * sizeof *o->runs);
	d->res.events = sim_mem_dup(o->events, o->cap_events * sizeof *o->events);
	if (!live)
		d->jobs = sim_mem_dup(s->jobs, s->cap_n * sizeof *s->jobs);
	else if (marked) {
		/* only the queued and running jobs and the jobs that evicted one of them, found
		 * from the queue, the running set and the eviction log rather than by a scan of
		 * every slot; not the future, which sim_replace_future replaces */
		size_t lo = s->next_arrival;
		for (size_t w = 0; w < n_words; w++)
			if (ls.bits[w]) {
				lo = w * 64 + (size_t)__builtin_ctzll(ls.bits[w]);
				break;
			}
		d->jobs = b.jobs ? b.jobs : xcalloc(s->cap_n + 1, sizeof *s->jobs);
		if (b.jobs) {
			d->jobs_trim = b.trim;
			trim_below(d, lo);
		}
		d->copied = xmalloc((ls.n + 1) * sizeof *d->copied);
		for (size_t w = lo / 64; w < n_words; w++)
			for (uint64_t m = ls.bits[w]; m; m &= m - 1) {
				size_t i = w * 64 + (size_t)__builtin_ctzll(m);
				copy_live_slot(d, s, i);
				d->copied[d->n_copied++] = i;
			}
		d->n = d->fresh_from = s->next_arrival;
		d->res.n_jobs = d->n;
	} else {
		/* only the live jobs (queued, running, not admitted yet) and the jobs that evicted a
		 * live one (a scenario result names them); the finished ones stay zero pages */
		bool *need = xcalloc(s->n + 1, sizeof *need);
		for (size_t i = 0; i < o->n_events; i++)
			if (!s->jobs[o->events[i].victim].done)
				need[o->events[i].trigger] = true;
		size_t np, *from = sim_present_slots(s, &np), cap = 0;
		d->fresh_from = s->n;
		d->jobs = b.jobs ? b.jobs : xcalloc(s->cap_n + 1, sizeof *s->jobs);
		for (size_t k = 0; k < (from ? np : s->n); k++) {
			size_t i = from ? from[k] : k;
			if (!s->jobs[i].done || need[i]) {
				d->jobs[i] = s->jobs[i];
				d->copied = xgrow(d->copied, &cap, d->n_copied + 1, sizeof *d->copied);
				d->copied[d->n_copied++] = i;
			}
		}
		free(from);
		free(need);
	}
	free(ls.bits);
	size_t nslot = 0, *slot = marked ? NULL : sim_present_slots(d, &nslot);   /* (marked: fixed up by copy_live_slot) */
	for (size_t k = 0; !marked && k < (slot ? nslot : s->n); k++) {
		size_t i = slot ? slot[k] : k;
		struct sim_job *j = &d->jobs[i];
		/* only a placed job's pieces mean anything: the others get their buffer when placed */
		j->cap_alloc = j->n_alloc;
		j->alloc = j->n_alloc ? sim_mem_dup(s->jobs[i].alloc, j->n_alloc * sizeof *j->alloc) : NULL;
		j->snext = REBASE(d, s, s->jobs[i].snext);
		j->sprev = REBASE(d, s, s->jobs[i].sprev);
	}
	free(slot);
	d->nodes = sim_mem_dup(s->nodes, s->n_nodes * sizeof *s->nodes);
	d->models = sim_mem_dup(s->models, s->n_nodes * sizeof *s->models);
	d->sorted_models = sim_mem_dup(s->sorted_models, s->n_nodes * sizeof *s->sorted_models);
	d->fbm = sim_mem_dup(s->fbm, (size_t)s->n_models * sizeof *s->fbm);
	sim_queue_clone(d, s);
	d->running = sim_mem_dup(s->running, s->rcap * sizeof *s->running);
	for (size_t i = 0; i < s->rn; i++)
		d->running[i].j = REBASE(d, s, s->running[i].j);
	d->done = NULL;
	d->dn = d->dcap = 0;
	/* The step log is read only from a running job's epoch on (sim_running_rem): older steps are
	 * history, left as zero pages; the monotone stack's first ms_n entries are its state. */
	size_t from = s->steps;
	for (size_t i = 0; i < s->rn; i++)
		if (s->running[i].ep < from)
			from = s->running[i].ep;
	/* (a reused log keeps an earlier clone's entries below from: unread, as zeros would be;
	 * d->dcap_log stays s's, so the log grows and rebases exactly as s's would) */
	d->dlog = b.dlog ? b.dlog : xcalloc(s->dcap_log + 1, sizeof *s->dlog);
	if (s->steps > from)
		memcpy(d->dlog + from, s->dlog + from, (s->steps - from) * sizeof *s->dlog);
	d->ms_idx = b.ms_idx ? b.ms_idx : xmalloc((s->dcap_log + 1) * sizeof *s->ms_idx);
	d->ms_g = b.ms_g ? b.ms_g : xmalloc((s->dcap_log + 1) * sizeof *s->ms_g);
	if (s->ms_n) {
		memcpy(d->ms_idx, s->ms_idx, s->ms_n * sizeof *s->ms_idx);
		memcpy(d->ms_g, s->ms_g, s->ms_n * sizeof *s->ms_g);
	}
	d->shead = REBASE(d, s, s->shead);
	d->stail = REBASE(d, s, s->stail);
	d->gfront = REBASE(d, s, s->gfront);
	d->vl = xcalloc((size_t)s->n_models + 1, sizeof *d->vl);   /* rebuilt by every preemption call */
	d->bfx = NULL;   /* issue 37: rebuilt by the next backfill pass */
	sim_priority_clone(d, s);
	sim_placement_clone(d, s);
	d->cand = NULL;
	d->ccap = 0;
	return d;
}

struct sim *sim_clone(const struct sim *s, const struct sim_hooks *h, char *err, size_t errlen)
{
	return clone_session(s, h, false, false, NULL, err, errlen);
}

struct sim *sim_clone_live(const struct sim *s, const struct sim_hooks *h, char *err, size_t errlen)
{
	return clone_session(s, h, true, false, NULL, err, errlen);
}

struct sim *sim_clone_live_reuse(const struct sim *s, const struct sim_hooks *h, struct sim *spare, char *err, size_t errlen)
{
	return clone_session(s, h, true, true, spare, err, errlen);
}
