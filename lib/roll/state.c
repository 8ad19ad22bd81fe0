/* state — what the rolling session knows at a cutoff: the scheduler state and its
 * fingerprints (docs/rolling-rules.md "Observation"), the inner predictor's latest decision,
 * and the engine_state records of a checkpoint. */
#include "roll/session.h"
#include "core/clock.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/metrics.h"
#include "roll/record_check.h"
#include "roll/session_internal.h"
#include "sim/result.h"
#include "sim/result_read.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the scheduler state at the cutoff ---- */

static void prefix_feed(struct roll_live *l)
{
	size_t n = sim_admitted(l->sim);
	struct strbuf sb;
	sb_init(&sb);
	for (; l->prefix_n < n; l->prefix_n++) {
		const struct trace_job *j = &l->exec->jobs[l->prefix_n];
		sb_reset(&sb);
		sb_adds(&sb, "{\"job_id\":");
		sb_add_jstr(&sb, j->id, strlen(j->id));
		sb_adds(&sb, ",\"submit_time_seconds\":");
		sb_add_double(&sb, j->submit);
		sb_adds(&sb, ",\"duration_seconds\":");
		sb_add_double(&sb, j->duration);
		sb_adds(&sb, ",\"gpu_count\":");
		sb_add_double(&sb, j->gpus);
		sb_adds(&sb, j->hp ? ",\"service_class\":\"HP\",\"gpu_model\":" : ",\"service_class\":\"Spot\",\"gpu_model\":");
		sb_add_jstr(&sb, j->model, strlen(j->model));
		sb_adds(&sb, ",\"tenant_id\":");
		if (j->tenant)
			sb_add_jstr(&sb, j->tenant, strlen(j->tenant));
		else
			sb_adds(&sb, "null");
		sb_adds(&sb, "}\n");
		fp_xxh3_update(&l->prefix, sb.buf, sb.len);
	}
	sb_release(&sb);
}

struct collect { struct roll_live *l; size_t *idx; size_t n, cap; };

static void collect_job(void *ctx, const struct sim_job_view *v)
{
	struct collect *c = ctx;
	c->idx = xgrow(c->idx, &c->cap, c->n + 1, sizeof *c->idx);
	c->idx[c->n++] = v->index;
}

static const struct trace *sort_trace;

static int by_job_id(const void *a, const void *b)
{
	return strcmp(sort_trace->jobs[*(const size_t *)a].id, sort_trace->jobs[*(const size_t *)b].id);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The trace's jobs by id, once (job ids are unique: trace_read refuses duplicates); 32-bit
 * ranks, 8 bytes a job for both arrays. False for a trace past 2^32 - 1 jobs. */
static bool id_ranks(struct roll_live *l)
{
	const struct trace *t = l->exec;
	if (t->n_jobs > UINT32_MAX)
		return false;
	if (l->id_order && l->id_n == t->n_jobs)
		return true;
	free(l->id_order);
	free(l->id_rank);
	l->id_n = t->n_jobs;
	l->id_order = xmalloc((t->n_jobs + 1) * sizeof *l->id_order);
	l->id_rank = xmalloc((t->n_jobs + 1) * sizeof *l->id_rank);
	size_t *order = result_id_order(t, t->n_jobs);   /* strcmp's order, by integer keys */
	for (size_t r = 0; r < t->n_jobs; r++)
		l->id_order[r] = (uint32_t)order[r];
	free(order);
	for (size_t r = 0; r < t->n_jobs; r++)
		l->id_rank[l->id_order[r]] = (uint32_t)r;
	return true;
}

/* The queued and running jobs, by job id (malloc'd); *n_queued of them are queued. */
static size_t *carry_indices(struct roll_live *l, size_t *n, size_t *n_queued)
{
	struct collect c = { l, NULL, 0, 0 };
	sim_each_queued(l->sim, collect_job, &c);
	*n_queued = c.n;
	sim_each_running(l->sim, collect_job, &c);
	if (c.n && id_ranks(l)) {
		/* by rank: the same order as by id, with integer comparisons */
		for (size_t i = 0; i < c.n; i++)
			c.idx[i] = l->id_rank[c.idx[i]];
		qsort(c.idx, c.n, sizeof *c.idx, size_cmp);
		for (size_t i = 0; i < c.n; i++)
			c.idx[i] = l->id_order[c.idx[i]];
	} else if (c.n) {
		sort_trace = l->exec;
		qsort(c.idx, c.n, sizeof *c.idx, by_job_id);
	}
	*n = c.n;
	return c.idx;
}

static int pool_cmp(const void *a, const void *b)
{
	return strcmp(((const struct roll_pool_gpus *)a)->pool, ((const struct roll_pool_gpus *)b)->pool);
}

struct running_sum { const struct sim *s; double *by_model; size_t n; };

static void sum_running(void *ctx, const struct sim_job_view *v)
{
	struct running_sum *r = ctx;
	if (v->hp)
		return;
	for (size_t i = 0; i < v->n_alloc; i++)
		r->by_model[sim_node_model(r->s, v->alloc[i].node)] += v->alloc[i].x;
}

/* Every running job's allocation pieces, in placement order (checkpoint files). */
struct alloc_log { size_t *job; size_t n, cap; struct sim_alloc *piece; size_t pcap; };

static void log_alloc(void *ctx, const struct sim_job_view *v)
{
	struct alloc_log *al = ctx;
	for (size_t i = 0; i < v->n_alloc; i++) {
		size_t c1 = al->cap, c2 = al->pcap;
		al->job = xgrow(al->job, &c1, al->n + 1, sizeof *al->job);
		al->piece = xgrow(al->piece, &c2, al->n + 1, sizeof *al->piece);
		al->cap = c1, al->pcap = c2;
		al->job[al->n] = v->index;
		al->piece[al->n++] = v->alloc[i];
	}
}

/* The pieces of job index job in a log sorted by job (binary search). */
static size_t alloc_find(const struct alloc_log *al, size_t job, size_t *n)
{
	size_t lo = 0, hi = al->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (al->job[mid] < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < al->n && al->job[e] == job)
		e++;
	*n = e - lo;
	return lo;
}

struct alloc_key { size_t job, at; };

static int alloc_key_cmp(const void *a, const void *b)
{
	const struct alloc_key *x = a, *y = b;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Sort the log by job, keeping each job's pieces in placement order (a sort by job, then
 * by position in the log: stable, and O(n log n) at any number of running jobs). */
static void alloc_sort(struct alloc_log *al)
{
	size_t i = 1;
	while (i < al->n && al->job[i] >= al->job[i - 1])   /* runs of one job are contiguous already: check */
		i++;
	if (i >= al->n)
		return;
	/* not sorted (sim_each_running is not in index order) */
	struct alloc_key *k = xmalloc(al->n * sizeof *k);
	struct sim_alloc *piece = xmalloc(al->n * sizeof *piece);
	for (i = 0; i < al->n; i++)
		k[i] = (struct alloc_key){ al->job[i], i };
	qsort(k, al->n, sizeof *k, alloc_key_cmp);
	for (i = 0; i < al->n; i++) {
		al->job[i] = k[i].job;
		piece[i] = al->piece[k[i].at];
	}
	memcpy(al->piece, piece, al->n * sizeof *piece);
	free(piece);
	free(k);
}

static void hash_bytes(struct fp_xxh3 *h, const void *p, size_t n) { fp_xxh3_update(h, p, n); }
static void hash_double(struct fp_xxh3 *h, double v) { hash_bytes(h, &v, sizeof v); }
static void hash_int(struct fp_xxh3 *h, long long v) { hash_bytes(h, &v, sizeof v); }

int roll_live_state(void *ctx, struct arena *a, struct roll_state *st, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	struct sim *s = l->sim;
	const struct trace *t = l->exec;
	memset(st, 0, sizeof *st);
	double now = sim_now(s);
	st->cutoff = now;
	st->trace_id = t->trace_id;
	prefix_feed(l);
	char *pfx = arena_alloc(a, 33);
	fp_xxh3_hex(&l->prefix, pfx);
	st->visible_prefix_fp = pfx;
	st->visible_count = (long long)l->prefix_n;
	if (l->prefix_n) {
		st->has_max_visible = true;
		st->max_visible_submit = t->jobs[l->prefix_n - 1].submit;
	}
	st->capacity = sim_capacity_gpus(s);
	st->free_total = sim_free_gpus(s, -1);
	int nm = sim_model_count(s);
	struct roll_pool_gpus *fr = arena_alloc(a, (size_t)(nm + 1) * sizeof *fr), *rs = arena_alloc(a, (size_t)(nm + 1) * sizeof *rs);
	double *by_model = arena_alloc(a, (size_t)(nm + 1) * sizeof *by_model);
	memset(by_model, 0, (size_t)(nm + 1) * sizeof *by_model);
	struct running_sum rsum = { s, by_model, 0 };
	sim_each_running(s, sum_running, &rsum);
	for (int m = 0; m < nm; m++) {
		fr[m] = (struct roll_pool_gpus){ sim_model_name(s, m), sim_free_gpus(s, m) };
		rs[m] = (struct roll_pool_gpus){ sim_model_name(s, m), by_model[m] };
	}
	qsort(fr, (size_t)nm, sizeof *fr, pool_cmp);
	qsort(rs, (size_t)nm, sizeof *rs, pool_cmp);
	st->free_by_pool = fr;
	st->running_spot_by_pool = rs;
	st->n_free_pools = st->n_running_pools = (size_t)nm;
	st->running_spot_gpus = sim_running_spot_gpus(s);

	/* carryover: queued and running jobs, by job id */
	struct collect c = { l, NULL, 0, 0 };
	size_t nq;
	c.idx = carry_indices(l, &c.n, &nq);
	st->running_jobs = (long long)(c.n - nq);
	struct roll_carry *cv = arena_alloc(a, (c.n + 1) * sizeof *cv);
	/* The private handoff state, hashed as binary (IEEE-754 doubles and 64-bit integers in
	 * the machine's byte order, ids NUL-terminated): never shown, only fingerprinted. */
	struct fp_xxh3 hh;
	fp_xxh3_init(&hh);
	struct alloc_log al = { NULL, 0, 0, NULL, 0 };
	sim_each_running(s, log_alloc, &al);
	alloc_sort(&al);
	for (size_t i = 0; i < c.n; i++) {
		const struct trace_job *tj = &t->jobs[c.idx[i]];
		struct sim_job_state js;
		sim_job_state(s, c.idx[i], &js);
		struct roll_carry *x = &cv[i];
		memset(x, 0, sizeof *x);
		x->id = tj->id;
		x->hp = tj->hp;
		x->running = js.running;
		x->gpus = tj->gpus;
		x->model = tj->model;
		x->tenant = tj->tenant;
		x->queue_wait = js.queued ? now - js.queued_since : 0.0;
		x->run_elapsed = js.running ? now - js.run_start : 0.0;
		x->has_guarantee = js.running && !tj->hp;
		x->guarantee = (long long)js.run_guarantee;
		x->allocated = js.running ? tj->gpus : 0.0;
		double wait = js.queue_seconds + now - js.queued_since;
		if (js.queued) {
			st->queue_jobs++;
			st->queue_gpus += tj->gpus;
			if (tj->hp) {
				st->queue_hp++;
				st->queue_hp_gpus += tj->gpus;
				if (wait > st->max_hp_wait)
					st->max_hp_wait = wait;
			} else {
				st->queue_spot++;
				st->queue_spot_gpus += tj->gpus;
				if (wait > st->max_spot_wait)
					st->max_spot_wait = wait;
			}
		}
		hash_bytes(&hh, tj->id, strlen(tj->id) + 1);
		hash_double(&hh, js.remaining);
		hash_double(&hh, js.queued_since);
		hash_double(&hh, js.queue_seconds);
		hash_double(&hh, js.running ? js.run_start : -1.0);
		hash_int(&hh, js.preemptions);
		hash_int(&hh, js.runs);
		size_t np, first = alloc_find(&al, c.idx[i], &np);
		hash_int(&hh, (long long)np);
		for (size_t k = first; k < first + np; k++) {
			hash_int(&hh, (long long)al.piece[k].node);
			hash_double(&hh, al.piece[k].x);
		}
	}
	char *hfp = arena_alloc(a, 33);
	fp_xxh3_hex(&hh, hfp);
	fp_xxh3_release(&hh);
	free(al.job);
	free(al.piece);
	free(c.idx);
	st->carry = cv;
	st->n_carry = c.n;
	st->handoff_fp = hfp;
	const struct sim_policy *active = sim_policy(s);
	st->active_id = active->action_id;
	st->active_fp = active->fingerprint;
	/* completed jobs: a job once done stays done, so only the jobs admitted since the last
	 * cutoff and those not done then are looked at (the live state, not the history) */
	size_t adm = sim_admitted(s), keep = 0;
	for (size_t x = 0; x < l->n_undone; x++) {
		struct sim_job_state js;
		sim_job_state(s, l->undone[x], &js);
		if (js.done)
			l->n_done++;
		else
			l->undone[keep++] = l->undone[x];
	}
	l->n_undone = keep;
	for (; l->done_seen < adm; l->done_seen++) {
		struct sim_job_state js;
		sim_job_state(s, l->done_seen, &js);
		if (js.done)
			l->n_done++;
		else {
			l->undone = xgrow(l->undone, &l->cap_undone, l->n_undone + 1, sizeof *l->undone);
			l->undone[l->n_undone++] = l->done_seen;
		}
	}
	st->completed_jobs = (long long)l->n_done;
	st->preemption_events = l->evictions;
	st->spot_runs = l->closed_spot_runs;
	st->hp_completed_queue = l->hp_queue;
	st->hp_completed_jct = l->hp_jct;
	st->n_hp_completed = st->n_hp_jct = l->n_hp;
	(void)err, (void)errlen;
	return 0;
}

/* ---- the inner predictor's latest decision (Q2: the last one, never lost off the grid) ---- */

const struct roll_projection *roll_live_projection(void *ctx, struct arena *a)
{
	struct roll_live *l = ctx;
	(void)a;
	return l->pred ? roll_predictor_projection(l->pred) : NULL;
}

/* ---- the checkpoint's engine state ---- */

int roll_live_state_records(struct roll_live *l, struct arena *a, int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen),
			    void *ctx, char *err, size_t errlen)
{
	struct sim *s = l->sim;
	struct roll_state st;
	if (roll_live_state(l, a, &st, err, errlen))
		return -1;
	struct json *o = json_object(a), *fr = json_object(a);
	json_set(a, o, "type", json_str(a, "engine_state"));
	json_set(a, o, "now", json_real(a, sim_now(s)));
	json_set(a, o, "active_action_id", json_str(a, sim_policy(s)->action_id));
	json_set(a, o, "admitted_jobs", json_int(a, (long long)sim_admitted(s)));
	json_set(a, o, "completed_jobs", json_int(a, st.completed_jobs));
	json_set(a, o, "closed_spot_runs", json_int(a, l->closed_spot_runs));
	json_set(a, o, "evictions", json_int(a, l->evictions));
	for (int m = 0; m < sim_model_count(s); m++)
		json_set(a, fr, sim_model_name(s, m), json_real(a, sim_free_gpus(s, m)));
	json_set(a, o, "free_gpus_by_model", fr);
	json_set(a, o, "running_spot_gpus", json_real(a, sim_running_spot_gpus(s)));
	json_set(a, o, "hp_outstanding_gpus", json_real(a, sim_hp_outstanding_gpus(s)));
	json_set(a, o, "visible_prefix_fingerprint", json_str(a, st.visible_prefix_fp));
	json_set(a, o, "state_handoff_fingerprint", json_str(a, st.handoff_fp));
	if (emit(ctx, o, err, errlen))
		return -1;
	size_t n, nq, *idx = carry_indices(l, &n, &nq);
	struct alloc_log al = { NULL, 0, 0, NULL, 0 };
	sim_each_running(s, log_alloc, &al);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct sim_job_state js;
		sim_job_state(s, idx[i], &js);
		struct json *j = json_object(a), *alloc = json_array(a);
		json_set(a, j, "type", json_str(a, "engine_job"));
		json_set(a, j, "job_id", json_str(a, l->exec->jobs[idx[i]].id));
		json_set(a, j, "status", json_str(a, js.running ? "running" : "queued"));
		json_set(a, j, "remaining_seconds", json_real(a, js.remaining));
		json_set(a, j, "queued_since_seconds", json_real(a, js.queued_since));
		json_set(a, j, "queue_seconds", json_real(a, js.queue_seconds));
		json_set(a, j, "run_start_seconds", js.running ? json_real(a, js.run_start) : json_null(a));
		json_set(a, j, "run_guarantee_seconds", js.running ? json_real(a, js.run_guarantee) : json_null(a));
		json_set(a, j, "enqueue_order", json_int(a, js.eo));
		json_set(a, j, "run_count", json_int(a, js.runs));
		json_set(a, j, "preemption_count", json_int(a, js.preemptions));
		for (size_t k = 0; k < al.n; k++)
			if (al.job[k] == idx[i]) {
				struct json *p = json_array(a);
				json_push(a, p, json_str(a, l->exec->nodes[al.piece[k].node].id));
				json_push(a, p, json_real(a, al.piece[k].x));
				json_push(a, alloc, p);
			}
		json_set(a, j, "allocation", alloc);
		rc = emit(ctx, j, err, errlen);
	}
	free(idx);
	free(al.job);
	free(al.piece);
	if (!rc && l->pred)
		rc = emit(ctx, roll_predictor_state_json(l->pred, a), err, errlen);
	return rc;
}
