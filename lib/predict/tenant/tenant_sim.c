/*
 * The tenant controller inside a simulation session (docs/predictive-rules.md §2), hook by hook:
 * - next_wakeup: the next 60-s sample, the evidence end (the gate switches off exactly
 *   there) and the end of every running Spot run's current guarantee period;
 * - after_advance: the guarantee periods completed by the new time, before the
 *   completions at that time (the original's order);
 * - at_instant (after the arrivals of the instant, before the start pass): the sample
 *   and, on the decision grid, the decision, from each pool's free GPUs, running Spot
 *   GPUs, queued Spot demand and longest current Spot wait (kept incrementally, below);
 * - the gate (enforce mode, inside the evidence window): a Spot job starts only if its
 *   pool's running Spot GPUs + its demand <= the pool's quota of the policy's horizon + EPS;
 * - run_started / run_closed: HP runs move their series' running GPUs (a series is
 *   registered at its first run); Spot runs are feedback events weighted by the distinct
 *   nodes of the allocation (completion = success, eviction = failure).
 */
#include "core/xalloc.h"
#include "predict/internal.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_controller.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void map_models(struct pc_sim *b, const struct sim *s)
{
	if (b->mapped)
		return;
	for (int p = 0; p < PC_SIM_MAX_MODELS; p++)
		b->model_of_pool[p] = -2;
	for (int m = 0; m < sim_model_count(s) && m < PC_SIM_MAX_MODELS; m++) {
		b->pool_of_model[m] = pt_pool_index(b->c->tenant, sim_model_name(s, m));
		if (b->pool_of_model[m] >= 0)
			b->model_of_pool[b->pool_of_model[m]] = m;
	}
	b->mapped = true;
}

static int pool_of(struct pc_sim *b, const struct sim *s, int model)
{
	map_models(b, s);
	return model >= 0 && model < PC_SIM_MAX_MODELS && model < sim_model_count(s) ? b->pool_of_model[model] : -1;
}

static double next_wakeup(void *ctx, const struct sim *s, double after)
{
	struct pc_sim *b = ctx;
	return pt_next_wakeup_idle(b->c->tenant, after, sim_next_event(s));
}

static void after_advance(void *ctx, struct sim *s)
{
	struct pc_sim *b = ctx;
	pt_after_advance(b->c->tenant, sim_now(s));
}

static bool gating(const struct pc_sim *b, const struct sim *s)
{
	return b->enforce && pt_gate_active(b->c->tenant, sim_now(s));
}

/*
 * The queued Spot jobs per pool, kept incrementally from what the hooks see (a pass over
 * the whole queue at every decision costs more than the simulation itself on a long
 * queue): arrivals enter at their submit time (the trace is sorted by submit, and
 * at_instant runs after the arrivals of its instant), a started run leaves, an evicted one
 * re-enters at the eviction time. Per pool: the count and GPUs queued, the longest wait (a
 * min-heap of entry times with lazy deletion) and a Fenwick tree over the pool's distinct
 * Spot demands (how many queued jobs ask for at most x GPUs).
 */
struct pt_queue_entry { double since; size_t job; unsigned epoch; };
struct pt_queue_pool {
	size_t count;
	double gpus;
	struct pt_queue_entry *heap;
	size_t nheap, capheap;
	double *values;               /* sorted distinct Spot demands of the pool */
	long long *tree;              /* Fenwick tree over values, 1-based */
	size_t nvalues;
};
struct pt_queue {
	const struct trace *t;
	size_t next_arrival, njobs, npools;
	int *pool_of_job;             /* -1: HP or no pool */
	unsigned *epoch;
	bool *queued;
	size_t *value_of_job;
	struct pt_queue_pool *pools;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct pt_queue *pt_queue_new(const struct trace *t, const struct pt_controller *tc)
{
	struct pt_queue *q = xcalloc(1, sizeof *q);
	q->t = t;
	q->njobs = t->n_jobs;
	q->npools = pt_pool_count(tc);
	q->pool_of_job = xcalloc(t->n_jobs + 1, sizeof *q->pool_of_job);
	q->epoch = xcalloc(t->n_jobs + 1, sizeof *q->epoch);
	q->queued = xcalloc(t->n_jobs + 1, sizeof *q->queued);
	q->value_of_job = xcalloc(t->n_jobs + 1, sizeof *q->value_of_job);
	q->pools = xcalloc(q->npools, sizeof *q->pools);
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		int p = j->hp ? -1 : pt_pool_index(tc, j->model);
		q->pool_of_job[i] = p;
		if (p >= 0)
			q->pools[p].nvalues++;
	}
	for (size_t p = 0; p < q->npools; p++) {
		q->pools[p].values = xmalloc((q->pools[p].nvalues + 1) * sizeof *q->pools[p].values);
		q->pools[p].nvalues = 0;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		if (q->pool_of_job[i] >= 0) {
			struct pt_queue_pool *pp = &q->pools[q->pool_of_job[i]];
			pp->values[pp->nvalues++] = t->jobs[i].gpus;
		}
	for (size_t p = 0; p < q->npools; p++) {
		struct pt_queue_pool *pp = &q->pools[p];
		qsort(pp->values, pp->nvalues, sizeof *pp->values, cmp_double);
		size_t u = 0;
		for (size_t k = 0; k < pp->nvalues; k++)
			if (!u || pp->values[u - 1] != pp->values[k])
				pp->values[u++] = pp->values[k];
		pp->nvalues = u;
		pp->tree = xcalloc(u + 1, sizeof *pp->tree);
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		if (q->pool_of_job[i] >= 0) {
			const struct pt_queue_pool *pp = &q->pools[q->pool_of_job[i]];
			const double *hit = bsearch(&t->jobs[i].gpus, pp->values, pp->nvalues, sizeof *pp->values, cmp_double);
			q->value_of_job[i] = (size_t)(hit - pp->values);
		}
	return q;
}

static void *dup(const void *p, size_t n)
{
	void *d = xmalloc(n ? n : 1);
	if (n)
		memcpy(d, p, n);
	return d;
}

struct pt_queue *pt_queue_clone(const struct pt_queue *s)
{
	struct pt_queue *q = dup(s, sizeof *s);
	size_t n = s->njobs + 1;
	q->pool_of_job = dup(s->pool_of_job, n * sizeof *s->pool_of_job);
	q->epoch = dup(s->epoch, n * sizeof *s->epoch);
	q->queued = dup(s->queued, n * sizeof *s->queued);
	q->value_of_job = dup(s->value_of_job, n * sizeof *s->value_of_job);
	q->pools = dup(s->pools, s->npools * sizeof *s->pools);
	for (size_t p = 0; p < s->npools; p++) {
		const struct pt_queue_pool *sp = &s->pools[p];
		q->pools[p].heap = dup(sp->heap, sp->capheap * sizeof *sp->heap);
		q->pools[p].values = dup(sp->values, (sp->nvalues + 1) * sizeof *sp->values);
		q->pools[p].tree = dup(sp->tree, (sp->nvalues + 1) * sizeof *sp->tree);
	}
	return q;
}

void pt_queue_free(struct pt_queue *q)
{
	if (!q)
		return;
	for (size_t p = 0; p < q->npools; p++) {
		free(q->pools[p].heap);
		free(q->pools[p].values);
		free(q->pools[p].tree);
	}
	free(q->pools);
	free(q->pool_of_job);
	free(q->epoch);
	free(q->queued);
	free(q->value_of_job);
	free(q);
}

static void tree_add(struct pt_queue_pool *pp, size_t k, long long d)
{
	for (size_t i = k + 1; i <= pp->nvalues; i += i & (~i + 1))
		pp->tree[i] += d;
}

/* queued jobs of the pool asking for at most x GPUs */
static long long tree_at_most(const struct pt_queue_pool *pp, double x)
{
	size_t lo = 0, hi = pp->nvalues;   /* count of values <= x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pp->values[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	long long c = 0;
	for (size_t i = lo; i > 0; i -= i & (~i + 1))
		c += pp->tree[i];
	return c;
}

static bool entry_less(const struct pt_queue_entry *a, const struct pt_queue_entry *b)
{
	return a->since < b->since || (a->since == b->since && a->job < b->job);
}

static void heap_push(struct pt_queue_pool *pp, struct pt_queue_entry e)
{
	pp->heap = xgrow(pp->heap, &pp->capheap, pp->nheap + 1, sizeof *pp->heap);
	size_t i = pp->nheap++;
	pp->heap[i] = e;
	while (i && entry_less(&pp->heap[i], &pp->heap[(i - 1) / 2])) {
		struct pt_queue_entry x = pp->heap[i];
		pp->heap[i] = pp->heap[(i - 1) / 2];
		pp->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct pt_queue_pool *pp)
{
	pp->heap[0] = pp->heap[--pp->nheap];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < pp->nheap && entry_less(&pp->heap[l], &pp->heap[m]))
			m = l;
		if (r < pp->nheap && entry_less(&pp->heap[r], &pp->heap[m]))
			m = r;
		if (m == i)
			break;
		struct pt_queue_entry x = pp->heap[i];
		pp->heap[i] = pp->heap[m];
		pp->heap[m] = x;
		i = m;
	}
}

static void pt_queue_enter(struct pt_queue *q, size_t job, double since)
{
	int p = job < q->njobs ? q->pool_of_job[job] : -1;
	if (p < 0 || q->queued[job])
		return;
	struct pt_queue_pool *pp = &q->pools[p];
	q->queued[job] = true;
	q->epoch[job]++;
	heap_push(pp, (struct pt_queue_entry){ since, job, q->epoch[job] });
	pp->count++;
	pp->gpus += q->t->jobs[job].gpus;
	tree_add(pp, q->value_of_job[job], +1);
}

static void pt_queue_leave(struct pt_queue *q, size_t job)
{
	int p = job < q->njobs ? q->pool_of_job[job] : -1;
	if (p < 0 || !q->queued[job])
		return;
	struct pt_queue_pool *pp = &q->pools[p];
	q->queued[job] = false;
	pp->count--;
	/* no drift: an empty queue holds exactly 0 GPUs */
	pp->gpus = pp->count ? pp->gpus - q->t->jobs[job].gpus : 0;
	tree_add(pp, q->value_of_job[job], -1);
}

static void pt_queue_arrivals(struct pt_queue *q, double now)
{
	while (q->next_arrival < q->njobs && q->t->jobs[q->next_arrival].submit <= now + SIM_EPS) {
		size_t i = q->next_arrival++;
		pt_queue_enter(q, i, q->t->jobs[i].submit);
	}
}

static double pt_queue_longest_wait(struct pt_queue *q, size_t p, double now)
{
	struct pt_queue_pool *pp = &q->pools[p];
	while (pp->nheap && !(q->queued[pp->heap[0].job] && q->epoch[pp->heap[0].job] == pp->heap[0].epoch))
		heap_pop(pp);
	return pp->nheap ? now - pp->heap[0].since : 0;
}

static long long pt_queue_count(const void *ctx, size_t p, double above, double at_most)
{
	const struct pt_queue *q = ctx;
	const struct pt_queue_pool *pp = &q->pools[p];
	return at_most > above ? tree_at_most(pp, at_most) - tree_at_most(pp, above) : 0;
}

static int at_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct pc_sim *b = ctx;
	struct pt_controller *tc = b->c->tenant;
	struct pt_queue *q = b->c->tenant_queue;
	double now = sim_now(s);
	if (b->failure[0]) {
		snprintf(err, errlen, "%s", b->failure);
		return -1;
	}
	pt_queue_arrivals(q, now);
	if (!pt_update_due(tc, now))
		return 0;
	struct pt_observation o = { sim_hp_outstanding_gpus(s), sim_spot_backlog_gpus(s), sim_running_spot_gpus(s),
				    b->c->tenant_obs, gating(b, s), b->horizon, pt_queue_count, q };
	if (pt_update_decides(tc, now)) {
		map_models(b, s);
		for (size_t p = 0; p < pt_pool_count(tc); p++) {
			int m = b->model_of_pool[p];
			b->c->tenant_obs[p] = (struct pt_pool_observation){ .idle_gpus = m >= 0 ? sim_free_gpus(s, m) : 0,
				.running_spot_gpus = pt_running_spot(tc, p), .spot_backlog_gpus = q->pools[p].gpus,
				.maximum_spot_wait_seconds = pt_queue_longest_wait(q, p, now) };
		}
	}
	return pt_update(tc, now, &o, err, errlen) < 0 ? -1 : 0;
}

static double gate_limit(void *ctx, const struct sim *s, int model)
{
	struct pc_sim *b = ctx;
	int p = gating(b, s) ? pool_of(b, s, model) : -1;
	if (p < 0)
		return INFINITY;
	const struct pt_controller *tc = b->c->tenant;
	double q = (double)pt_decision_quota(pt_last_decision(tc), (size_t)p, b->horizon);
	return q - pt_running_spot(tc, (size_t)p) + 2 * PC_EPS;
}

static bool gate_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct pc_sim *b = ctx;
	int p = gating(b, s) ? pool_of(b, s, j->model) : -1;
	if (p < 0)
		return true;
	const struct pt_controller *tc = b->c->tenant;
	return pt_allows_spot(tc, (size_t)p, b->horizon, j->gpu, pt_running_spot(tc, (size_t)p));
}

static double distinct_nodes(const struct sim_job_view *j, double *gpus)
{
	double n = 0;
	*gpus = 0;
	for (size_t i = 0; i < j->n_alloc; i++) {
		size_t k = 0;
		while (k < i && j->alloc[k].node != j->alloc[i].node)
			k++;
		n += k == i;
		*gpus += j->alloc[i].x;
	}
	return n;
}

static void hp_run(struct pc_sim *b, const struct sim *s, const struct sim_job_view *j, bool started)
{
	char err[200];
	if (b->failure[0])
		return;
	if (pt_hp_run(b->c->tenant, sim_model_name(s, j->model), j->tj->tenant, j->gpu, started, err, sizeof err))
		snprintf(b->failure, sizeof b->failure, "%s", err);
}

static void run_started(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct pc_sim *b = ctx;
	if (j->hp) {
		hp_run(b, s, j, true);
		return;
	}
	int p = pool_of(b, s, j->model);
	double gpus, nodes = distinct_nodes(j, &gpus);
	pt_queue_leave(b->c->tenant_queue, j->index);
	if (p >= 0)
		pt_spot_run_started(b->c->tenant, j->index, (size_t)p, nodes, gpus, j->run_start,
				    (double)sim_policy(s)->guarantee_seconds);
}

static void run_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct pc_sim *b = ctx;
	if (j->hp) {
		hp_run(b, s, j, false);
		return;
	}
	pt_spot_run_closed(b->c->tenant, j->index, sim_now(s), evicted);
	if (evicted)   /* back in the queue from the eviction on */
		pt_queue_enter(b->c->tenant_queue, j->index, sim_now(s));
}

void pt_sim_bind(struct pc_sim *b, struct sim_hooks *h)
{
	h->check_policy = pc_sim_check_policy;
	h->next_wakeup = next_wakeup;
	h->after_advance = after_advance;
	h->at_instant = at_instant;
	h->gate_limit = gate_limit;
	h->gate_admit = gate_admit;
	h->run_started = run_started;
	h->run_closed = run_closed;
	/* the gate is off outside the evidence window: after its end queued Spot jobs may run */
	const struct pt_controller *tc = b->c->tenant;
	double span = pt_evidence_end(tc) - pt_evidence_start(tc);
	h->idle_limit_seconds = (span > 0 ? span : 0) + 2.0 * 86400.0;
}
