/*
 * The queue, split so that a start pass visits only the jobs that may start.
 *
 * The queue key is (eo) under fifo and (HP first, eo) under priority_preemptive, where a
 * victim's eo is N + k. So the queue in key order is the concatenation of up to four
 * segments, each filled by appends only: never-started jobs (eo < N, admitted in eo order)
 * then victims (eo = N + k, k increasing), for HP then Spot when the class leads the key.
 * Each segment is further split by model ("*" and every concrete model): a "lane". A lane is
 * an append-only array in key order with lazy deletion and a min segment tree over the
 * jobs' GPU demands (+inf once a job has left).
 *
 * With a Spot admission gate under fifo (where HP and Spot share segments) each lane also
 * holds one class only, so a Spot lane's threshold can include the gate's limit.
 *
 * The original scans the whole queue in key order and starts a job iff its eligible free
 * (tfree for "*", else fbm[model]) is >= its demand and placement succeeds (and, with a
 * gate, the gate admits it: the gate's limit only shrinks within a pass, as frees do). Within one pass
 * frees only shrink, so each lane's first job with demand <= its current eligible free can
 * be found with the tree and cached: a job skipped for a threshold stays skipped under any
 * smaller one. The pass takes, segment by segment, the smallest-eo candidate over the
 * lanes; the jobs it never visits are exactly those the original would have skipped.
 */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENTS 4

struct lane {
	struct sim_job **v;
	double *t;              /* min tree: leaves [size, 2 size) */
	size_t n, size, live;
	size_t cur;             /* pass cursor: positions < cur have been visited */
	size_t cand;            /* cached candidate (>= cur), n = none */
	double cthr;            /* threshold the cache was computed for */
	bool cached;
	int model;              /* -1 = "*" */
	bool spot;              /* holds Spot jobs only (the gate applies to the whole lane) */
};

struct queue_index {
	struct lane *lanes;     /* SEGMENTS x per_seg, lane = seg * per_seg + [Spot: n_models + 1] + model + 1 */
	size_t n_lanes, per_seg, per_class;
	bool preemptive, class_lanes;   /* the key and the lanes' split these lanes were built for */
	int seg;                /* pass: current segment */
	/* HP iteration for preemption: per HP lane, a cursor and whether to skip it */
	size_t *hp_cur;
	bool *hp_skip;
	/* every admitted HP, in admission order (wake-ups) */
	struct sim_job **hp_all;
	size_t hp_all_n, hp_all_cap, hp_wake;
};

/* Rebuild the inner nodes over leaves already set. */
static void lane_build(struct lane *l)
{
	for (size_t i = l->size - 1; i >= 1; i--)
		l->t[i] = l->t[2 * i] <= l->t[2 * i + 1] ? l->t[2 * i] : l->t[2 * i + 1];
}

/* An inner node whose value keeps its bits leaves every ancestor's as it was: stop there. */
static void lane_set(struct lane *l, size_t i, double v)
{
	i += l->size;
	l->t[i] = v;
	for (i /= 2; i >= 1; i /= 2) {
		double a = l->t[2 * i], b = l->t[2 * i + 1], x = a <= b ? a : b;
		uint64_t u, w;
		memcpy(&u, &l->t[i], sizeof u);
		memcpy(&w, &x, sizeof w);
		if (u == w)
			break;
		l->t[i] = x;
	}
}

/* First position >= from whose demand is <= thr, or l->n. */
static size_t lane_find(const struct lane *l, size_t from, double thr)
{
	if (from >= l->n || !(l->t[1] <= thr))
		return l->n;
	/* climb from the leaf 'from' to the right, looking for a subtree that qualifies */
	size_t i = from + l->size;
	if (l->t[i] <= thr)
		return from;
	for (;;) {
		while (i & 1) {           /* right child: go up until we are a left child */
			i /= 2;
			if (i == 0)
				return l->n;
		}
		i++;                      /* the right sibling covers the next range */
		if (l->t[i] <= thr)
			break;
	}
	while (i < l->size)
		i = l->t[2 * i] <= thr ? 2 * i : 2 * i + 1;
	i -= l->size;
	return i < l->n ? i : l->n;
}

static void lane_append(struct lane *l, struct sim_job *j)
{
	if (l->n == l->size) {
		/* A leaf is +inf once its job left: the job may be queued again elsewhere (or
		 * later in this lane), so the leaf, not the job, says whether an entry is live. */
		if (l->size >= 1024 && l->live <= l->n / 2) {
			size_t w = 0;     /* drop the entries that left; no pass is active */
			for (size_t i = 0; i < l->n; i++)
				if (l->t[l->size + i] != INFINITY) {
					l->v[i]->qpos = w;
					l->t[l->size + w] = l->t[l->size + i];
					l->v[w++] = l->v[i];
				}
			l->n = w;
			for (size_t i = w; i < l->size; i++)
				l->t[l->size + i] = INFINITY;
		} else {
			size_t old = l->size;
			l->size = l->size ? 2 * l->size : 16;
			l->v = xrealloc(l->v, l->size * sizeof *l->v);
			double *t = xmalloc(2 * l->size * sizeof *t);
			for (size_t i = 0; i < l->size; i++)
				t[l->size + i] = i < old ? l->t[old + i] : INFINITY;
			free(l->t);
			l->t = t;
		}
		lane_build(l);
	}
	j->qpos = l->n;
	l->v[l->n++] = j;
	l->live++;
	lane_set(l, j->qpos, j->gpu);
}

void sim_queue_init(struct sim *s)
{
	struct queue_index *q = xcalloc(1, sizeof *q);
	bool preemptive = s->p->scheduler == SCHED_PRIORITY_PREEMPTIVE;
	s->class_lanes = s->gated && !preemptive;
	q->preemptive = preemptive;
	q->class_lanes = s->class_lanes;
	q->per_class = (size_t)s->n_models + 1;
	q->per_seg = q->per_class * (s->class_lanes ? 2 : 1);
	q->n_lanes = SEGMENTS * q->per_seg;
	q->lanes = xcalloc(q->n_lanes, sizeof *q->lanes);
	for (size_t i = 0; i < q->n_lanes; i++) {
		size_t seg = i / q->per_seg, k = i % q->per_seg;
		q->lanes[i].model = (int)(k % q->per_class) - 1;
		q->lanes[i].spot = preemptive ? seg >= 2 : s->class_lanes && k >= q->per_class;
	}
	q->hp_cur = xcalloc(q->per_seg, sizeof *q->hp_cur);
	q->hp_skip = xcalloc(q->per_seg, sizeof *q->hp_skip);
	s->qix = q;
}

void sim_queue_release(struct sim *s)
{
	struct queue_index *q = s->qix;
	if (!q)
		return;
	for (size_t i = 0; i < q->n_lanes; i++) {
		free(q->lanes[i].v);
		free(q->lanes[i].t);
	}
	free(q->lanes);
	free(q->hp_cur);
	free(q->hp_skip);
	free(q->hp_all);
	free(q);
	s->qix = NULL;
}

static size_t segment_of(const struct sim *s, const struct sim_job *j)
{
	size_t seg = j->eo >= s->eo_base ? 1 : 0;
	if (s->p->scheduler == SCHED_PRIORITY_PREEMPTIVE && !j->hp)
		seg += 2;
	return seg;
}

void sim_queue_insert(struct sim *s, struct sim_job *j)
{
	struct queue_index *q = s->qix;
	j->qlane = segment_of(s, j) * q->per_seg + (s->class_lanes && !j->hp ? q->per_class : 0) + (size_t)(j->model + 1);
	j->queued = true;
	lane_append(&q->lanes[j->qlane], j);
	if (j->hp) {
		s->hp_queued++;
		q->hp_all = xgrow(q->hp_all, &q->hp_all_cap, q->hp_all_n + 1, sizeof *q->hp_all);
		q->hp_all[q->hp_all_n++] = j;
	} else if (s->hooked) {
		s->queued_spot++;
		sim_xsum_add(&s->spot_backlog, j->gpu, +1);
	}
}

void sim_queue_remove(struct sim *s, struct sim_job *j)
{
	struct lane *l = &s->qix->lanes[j->qlane];
	j->queued = false;
	l->live--;
	lane_set(l, j->qpos, INFINITY);
	if (j->hp)
		s->hp_queued--;
	else if (s->hooked) {
		s->queued_spot--;
		sim_xsum_add(&s->spot_backlog, j->gpu, -1);
	}
}

void sim_queue_each(const struct sim *s, void (*fn)(void *ctx, struct sim_job *j), void *ctx)
{
	const struct queue_index *q = s->qix;
	for (size_t i = 0; i < q->n_lanes; i++) {
		const struct lane *l = &q->lanes[i];
		for (size_t k = 0; k < l->n; k++)
			if (l->t[l->size + k] != INFINITY)
				fn(ctx, l->v[k]);
	}
}

/* The queued jobs in eo order. Within a lane eo ascends (a lane holds one segment: arrivals
 * enter in index order, victims with eo_base + k, k counting up, and a rebuild appends in eo
 * order), and eo is unique, so the live entries are at most one ascending run per lane:
 * merged pairwise, they give the order a sort would, in O(n log lanes). */
static struct sim_job **queued_by_eo(const struct sim *s, size_t n)
{
	const struct queue_index *q = s->qix;
	struct sim_job **v = xmalloc((n + 1) * sizeof *v), **w = xmalloc((n + 1) * sizeof *w);
	size_t *run = xmalloc((q->n_lanes + 1) * sizeof *run), nr = 0, k = 0;
	for (size_t i = 0; i < q->n_lanes; i++) {
		const struct lane *l = &q->lanes[i];
		if (l->live == 0)
			continue;
		run[nr++] = k;
		for (size_t p = 0; p < l->n; p++)
			if (l->t[l->size + p] != INFINITY)
				v[k++] = l->v[p];
	}
	run[nr] = k;
	while (nr > 1) {
		size_t m = 0;
		for (size_t r = 0; r < nr; r += 2) {
			size_t a = run[r], ae = run[r + 1], b = ae, be = r + 1 < nr ? run[r + 2] : ae, o = a;
			while (a < ae && b < be)
				w[o++] = v[a]->eo < v[b]->eo ? v[a++] : v[b++];
			while (a < ae)
				w[o++] = v[a++];
			while (b < be)
				w[o++] = v[b++];
			run[m++] = run[r];
		}
		run[m] = k;
		nr = m;
		struct sim_job **t = v;
		v = w;
		w = t;
	}
	free(w);
	free(run);
	return v;
}

/* A new key (policy switch): every lane is rebuilt by appending the queued jobs in eo order,
 * which is key order within each (segment, class, model) lane. Counters stay as they are.
 * When the key and the lanes' class split stay what they were, every queued job would go
 * back to its lane in the order it holds there: the lanes are kept (a rolling scenario
 * switches hooks and policy on a backlog of tens of thousands of jobs, twice). */
void sim_queue_rebuild(struct sim *s)
{
	bool preemptive = s->p->scheduler == SCHED_PRIORITY_PREEMPTIVE;
	if (s->qix->preemptive == preemptive && s->qix->class_lanes == (s->gated && !preemptive))
		return;
	size_t hp = s->hp_queued, spot = s->queued_spot, n = 0;
	for (size_t i = 0; i < s->qix->n_lanes; i++)
		n += s->qix->lanes[i].live;
	struct { struct sim_job **v; size_t n; } c = { queued_by_eo(s, n), n };
	struct xsum backlog = s->spot_backlog;
	sim_queue_release(s);
	sim_queue_init(s);
	for (size_t i = 0; i < c.n; i++)
		sim_queue_insert(s, c.v[i]);
	s->hp_queued = hp;
	s->queued_spot = spot;
	s->spot_backlog = backlog;
	free(c.v);
}

void sim_queue_pass_begin(struct sim *s)
{
	struct queue_index *q = s->qix;
	for (size_t i = 0; i < q->n_lanes; i++) {
		q->lanes[i].cur = 0;
		q->lanes[i].cached = false;
	}
	q->seg = 0;
}

/* The lane's first unvisited job whose demand is <= thr (its eligible free now). */
static size_t lane_candidate(struct lane *l, double thr)
{
	if (l->cached && thr <= l->cthr) {
		if (l->cand == l->n)
			return l->n;
		if (l->t[l->size + l->cand] <= thr) {
			l->cthr = thr;
			return l->cand;
		}
		l->cand = lane_find(l, l->cand + 1, thr);
	} else
		l->cand = lane_find(l, l->cur, thr);
	l->cached = true;
	l->cthr = thr;
	return l->cand;
}

struct sim_job *sim_queue_pass_next(struct sim *s)
{
	struct queue_index *q = s->qix;
	for (; q->seg < SEGMENTS; q->seg++) {
		struct lane *best = NULL;
		for (size_t m = 0; m < q->per_seg; m++) {
			struct lane *l = &q->lanes[(size_t)q->seg * q->per_seg + m];
			if (l->live == 0 || l->cur >= l->n)
				continue;
			double thr = l->model < 0 ? s->tfree : s->fbm[l->model];
			if (l->spot && s->gated) {
				double g = s->hooks.gate_limit(s->hooks.ctx, s, l->model);
				if (g < thr)
					thr = g;
			}
			size_t c = lane_candidate(l, thr);
			if (c < l->n && (!best || l->v[c]->eo < best->v[best->cand]->eo))
				best = l;
		}
		if (best) {
			struct sim_job *j = best->v[best->cand];
			best->cur = best->cand + 1;
			best->cached = false;
			return j;
		}
	}
	return NULL;
}

/* issue 37 (backfill.c): every queued job in key order, lazily: segment by segment, the
 * segment's lanes merged on eo (each lane ascends in eo). cur holds three words per lane
 * (sim_queue_lane_count of them, zeroed by the caller): the lane's cursor, whether it is known
 * to rest on a queued job, and whether the walk leaves the lane out. No insertion or removal
 * between calls other than of the job just returned. */
size_t sim_queue_lane_count(const struct sim *s)
{
	return 3 * s->qix->n_lanes;
}

/* Leave out of the walk the lanes of every concrete model none of whose queued jobs fits its
 * free GPUs now (frees only shrink within a pass: none of them can start in it). Nothing is
 * left out while a job of "*" is queued (it shares every model). */
void sim_queue_order_skip_unfit(struct sim *s, size_t *cur)
{
	struct queue_index *q = s->qix;
	size_t *skip = cur + 2 * q->n_lanes;
	for (size_t i = 0; i < q->n_lanes; i++)
		if (q->lanes[i].model < 0 && q->lanes[i].live)
			return;
	for (int m = 0; m < s->n_models; m++) {
		bool fit = false;
		for (size_t i = 0; i < q->n_lanes && !fit; i++) {
			struct lane *l = &q->lanes[i];
			fit = l->model == m && l->live && lane_find(l, 0, s->fbm[m]) < l->n;
		}
		if (!fit)
			for (size_t i = 0; i < q->n_lanes; i++)
				if (q->lanes[i].model == m)
					skip[i] = 1;
	}
}

struct sim_job *sim_queue_order_next(struct sim *s, size_t *cur)
{
	struct queue_index *q = s->qix;
	size_t *ok = cur + q->n_lanes, *skip = cur + 2 * q->n_lanes;
	for (size_t seg = 0; seg < SEGMENTS; seg++) {
		size_t best = SIZE_MAX;
		for (size_t m = 0; m < q->per_seg; m++) {
			size_t i = seg * q->per_seg + m;
			struct lane *l = &q->lanes[i];
			if (l->live == 0 || skip[i])
				continue;
			if (!ok[i]) {
				cur[i] = lane_find(l, cur[i], 1.0e308);
				ok[i] = 1;
			}
			if (cur[i] < l->n && (best == SIZE_MAX || l->v[cur[i]]->eo < q->lanes[best].v[cur[best]]->eo))
				best = i;
		}
		if (best != SIZE_MAX) {
			ok[best] = 0;
			return q->lanes[best].v[cur[best]++];
		}
	}
	return NULL;
}

/* Only under priority_preemptive, where the queued HP jobs are segment 0 (HP never requeued):
 * they are walked in key order by merging the segment's model lanes on eo. Preemption marks
 * a lane skipped once its victim list is used up: every later HP of that model would find
 * nothing to do. No insertion into segment 0 happens during the walk. */
void sim_hp_iter_begin(struct sim *s)
{
	struct queue_index *q = s->qix;
	memset(q->hp_cur, 0, q->per_seg * sizeof *q->hp_cur);
	memset(q->hp_skip, 0, q->per_seg * sizeof *q->hp_skip);
}

void sim_hp_iter_skip_model(struct sim *s, int model)
{
	s->qix->hp_skip[model + 1] = true;
}

struct sim_job *sim_hp_iter_next(struct sim *s)
{
	struct queue_index *q = s->qix;
	struct lane *best = NULL;
	size_t bm = 0;
	for (size_t m = 0; m < q->per_seg; m++) {
		struct lane *l = &q->lanes[m];
		if (q->hp_skip[m] || l->live == 0)
			continue;
		size_t c = lane_find(l, q->hp_cur[m], 1.0e308);
		q->hp_cur[m] = c;
		if (c < l->n && (!best || l->v[c]->eo < best->v[q->hp_cur[bm]]->eo)) {
			best = l;
			bm = m;
		}
	}
	if (!best)
		return NULL;
	return best->v[q->hp_cur[bm]++];
}

/* HP jobs are never requeued, so qsince = submit, and qsince + delay is monotone along the
 * admitted HP jobs; thr never decreases, so the first admitted HP beyond thr only moves
 * forward. The answer is the first queued one from there. */
double sim_hp_next_wakeup(struct sim *s, double thr, double delay)
{
	struct queue_index *q = s->qix;
	while (q->hp_wake < q->hp_all_n && !(q->hp_all[q->hp_wake]->qsince + delay > thr))
		q->hp_wake++;
	for (size_t i = q->hp_wake; i < q->hp_all_n; i++)
		if (q->hp_all[i]->queued)
			return q->hp_all[i]->qsince + delay;
	return INFINITY;
}

/* v's n job pointers into s's slots, as the same slots of d's (one constant byte offset:
 * an add per entry, which the compiler vectorises, rather than a division and a multiply). */
static void rebase_all(struct sim_job **to, struct sim_job *const *v, size_t n, const struct sim *d, const struct sim *s)
{
	uintptr_t delta = (uintptr_t)d->jobs - (uintptr_t)s->jobs;
	for (size_t k = 0; k < n; k++)
		to[k] = (struct sim_job *)((uintptr_t)v[k] + delta);
}

void sim_queue_clone(struct sim *d, const struct sim *s)
{
	const struct queue_index *q = s->qix;
	struct queue_index *c = sim_mem_dup(q, sizeof *q);
	c->lanes = sim_mem_dup(q->lanes, q->n_lanes * sizeof *q->lanes);
	for (size_t i = 0; i < q->n_lanes; i++) {
		const struct lane *l = &q->lanes[i];
		struct lane *m = &c->lanes[i];
		m->v = l->size ? xmalloc(l->size * sizeof *m->v) : NULL;
		rebase_all(m->v, l->v, l->n, d, s);
		m->t = sim_mem_dup(l->t, 2 * l->size * sizeof *l->t);
	}
	c->hp_cur = sim_mem_dup(q->hp_cur, q->per_seg * sizeof *q->hp_cur);
	c->hp_skip = sim_mem_dup(q->hp_skip, q->per_seg * sizeof *q->hp_skip);
	/* sized for the entries it holds (xgrow grows it as the source's would have) */
	c->hp_all_cap = q->hp_all_n ? q->hp_all_n + 1 : 0;
	c->hp_all = c->hp_all_cap ? xmalloc(c->hp_all_cap * sizeof *c->hp_all) : NULL;
	rebase_all(c->hp_all, q->hp_all, q->hp_all_n, d, s);
	d->qix = c;
}
