/*
 * The event loop (docs/simulator.md §3.3). Parity notes, i.e. why the code looks the way it does:
 * - fbm/tfree are caches updated incrementally in allocation order; placement sums node
 *   frees left to right in node order; both drift exactly as in the original.
 * - rem is updated as rem = max(0, rem - delta) at every step for every running job;
 *   completions at one instant are processed in job_id order.
 * - the queue order is (eo, id) or (HP first, eo, id); a victim gets eo = N + k.
 * Hooks (engine.h) are called at the points the original calls its predictive controller;
 * with none attached nothing else runs, and the output is that of the plain engine.
 */
#include "sim/engine.h"
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max0(double x) { return x > 0 ? x : 0.0; }

/* ---- hook helpers ---- */

static void alloc_account(struct sim *s, const struct sim_job *j, int sign)
{
	for (size_t i = 0; i < j->n_alloc; i++)
		sim_xsum_add(&s->running_spot, j->alloc[i].x, sign);
}

/* A run ends (completion or eviction), before its GPUs are released. */
static void run_closed(struct sim *s, struct sim_job *j, bool evicted)
{
	if (!j->hp)
		alloc_account(s, j, -1);
	if (s->hooks.run_closed) {
		struct sim_job_view v;
		sim_job_view_of(s, j, &v);
		s->hooks.run_closed(s->hooks.ctx, s, &v, evicted);
	}
}

/* ---- ledgers ---- */

static void close_spot_run(struct sim *s, struct sim_job *j, bool completed)
{
	struct sim_output *o = s->out;
	o->runs = xgrow(o->runs, &o->cap_runs, o->n_runs + 1, sizeof *o->runs);
	struct sim_spot_run *r = &o->runs[o->n_runs++];
	r->job = (size_t)(j - s->jobs);
	r->ordinal = j->runs;
	r->start = j->run_start;
	r->end = s->now;
	r->uninterrupted = s->now - j->run_start;
	r->completed = completed;
	r->guarantee = s->p->guarantee_seconds;
	r->guarantee_succeeded = completed || (r->end - j->run_start) + SIM_EPS >= j->rg;
}

/* ---- main loop ---- */

/* Start j now (sim_queue_remove'd, placed); also s->start_fn, backfill.c's way up (internal.h). */
static void start_job_now(struct sim *s, struct sim_job *j)
{
	j->qsec += s->now - j->qsince;
	if (!j->started) {
		j->started = true;
		j->first_start = s->now;
	}
	j->run_start = s->now;
	j->runs++;
	if (!j->hp) {
		s->spot_runs_total++;
		if (j->eval_spot)
			s->eval_spot_runs++;
	}
	j->rg = j->hp ? 0.0 : (double)s->p->guarantee_seconds;
	sim_running_add(s, j);
	if (s->bfx || s->p->backfill != BACKFILL_NONE)
		sim_backfill_started(s, j);   /* issue 37 */
	if (s->hooked) {
		if (!j->hp)
			alloc_account(s, j, +1);
		if (s->hooks.run_started) {
			struct sim_job_view v;
			sim_job_view_of(s, j, &v);
			s->hooks.run_started(s->hooks.ctx, s, &v);
		}
	}
}

/* §3.5: greedy in-order backfill over the queue. The queue hands out, in key order, only the
 * jobs whose eligible free covers their demand: the ones the original skips at the elig test
 * are never visited (queue.c). Returns the number of jobs started. */
static size_t start_pass(struct sim *s)
{
	if (s->p->backfill != BACKFILL_NONE)
		return sim_backfill_pass(s);   /* issue 37: backfill.c */
	if (s->tfree <= SIM_EPS)
		return 0;
	size_t started = 0;
	sim_queue_pass_begin(s);
	struct sim_job *j;
	while ((j = sim_queue_pass_next(s))) {
		if (s->gated && !j->hp) {
			struct sim_job_view v;
			sim_job_view_of(s, j, &v);
			if (!s->hooks.gate_admit(s->hooks.ctx, s, &v))
				continue;
		}
		if (sim_place(s, j))
			continue;
		sim_queue_remove(s, j);
		start_job_now(s, j);
		started++;
		if (s->tfree <= SIM_EPS)
			break;
	}
	return started;
}

static void evict(struct sim *s, struct sim_job *v, struct sim_job *trigger)
{
	double rb = fmod(s->now - v->run_start, (double)s->p->checkpoint_seconds);
	double ov = (double)s->p->overhead_seconds;
	double rem = sim_running_rem(s, v);
	sim_running_remove(s, v);
	v->rem = rem + (rb + ov);
	close_spot_run(s, v, false);
	if (s->hooked)
		run_closed(s, v, true);
	struct sim_output *o = s->out;
	o->events = xgrow(o->events, &o->cap_events, o->n_events + 1, sizeof *o->events);
	struct sim_preemption *e = &o->events[o->n_events++];
	e->time = s->now;
	e->victim = (size_t)(v - s->jobs);
	e->trigger = (size_t)(trigger - s->jobs);
	e->rollback = rb;
	e->overhead = ov;
	e->added_gpu_seconds = (rb + ov) * v->gpu;
	if (v->eval_spot)
		s->eval_events++;
	sim_release(s, v);
	v->preemptions++;
	v->qsince = s->now;
	v->eo = s->eo_base + s->k++;
	sim_queue_insert(s, v);
}

/* §3.13 (issue 36): on the physical model hp's victims are those whose release makes it fit
 * (physical.c), evicted in victim order while the budget allows. */
static size_t preempt_physical(struct sim *s, struct sim_job *hp, double limit)
{
	struct sim_job **set;
	size_t nv = sim_phys_victims(s, hp, sim_victims_for(s, -1), &set), evicted = 0;
	for (size_t i = 0; i < nv; i++) {
		struct sim_job *v = set[i];
		if (s->p->has_budget && ((double)(s->out->n_events + 1) / (double)(s->spot_runs_total + 1) > limit ||
					 (v->eval_spot && (double)(s->eval_events + 1) / (double)(s->eval_spot_runs + 1) > limit)))
			break;
		evict(s, v, hp);
		evicted++;
	}
	return evicted;
}

/* §3.7. Returns the number of evictions. */
static size_t preempt(struct sim *s)
{
	const struct sim_policy *p = s->p;
	if (p->scheduler != SCHED_PRIORITY_PREEMPTIVE || s->hp_queued == 0)
		return 0;
	double limit = p->budget + SIM_EPS;
	/* The budget ratio is the same for every HP until an eviction happens: when it blocks,
	 * every HP's search consumes one victim and stops, which changes nothing. */
	if (p->has_budget && (double)(s->out->n_events + 1) / (double)(s->spot_runs_total + 1) > limit)
		return 0;
	size_t evicted = 0;
	sim_victims_reset(s);
	sim_hp_iter_begin(s);
	struct sim_job *hp;
	while ((hp = sim_hp_iter_next(s))) {
		if (s->now + SIM_EPS < hp->qsince + (double)p->hp_delay_seconds)
			break;   /* HP qsince = submit and the HP queue is in submit order */
		if (s->phys) {
			evicted += preempt_physical(s, hp, limit);
			continue;
		}
		double elig = hp->model < 0 ? s->tfree : s->fbm[hp->model];
		if (elig >= hp->gpu)
			continue;
		struct victim_list *vl = sim_victims_for(s, hp->model);
		while ((hp->model < 0 ? s->tfree : s->fbm[hp->model]) < hp->gpu) {
			while (vl->off < vl->n && !vl->v[vl->off]->running)
				vl->off++;
			if (vl->off == vl->n)
				break;
			struct sim_job *v = vl->v[vl->off++];
			if (p->has_budget) {
				if ((double)(s->out->n_events + 1) / (double)(s->spot_runs_total + 1) > limit)
					break;
				if (v->eval_spot && (double)(s->eval_events + 1) / (double)(s->eval_spot_runs + 1) > limit)
					break;
			}
			evict(s, v, hp);
			evicted++;
		}
		if (vl->off == vl->n)
			sim_hp_iter_skip_model(s, hp->model);
	}
	return evicted;
}

static int stuck(struct sim *s, char *err, size_t errlen)
{
	size_t len = 0;
	int n = snprintf(err, errlen, "cannot make progress at time %.17g: %zu pending job(s):", s->now, s->n - s->completed);
	len = n > 0 ? (size_t)n : 0;
	size_t shown = 0;
	for (size_t i = 0; i < s->n && len + 1 < errlen; i++) {
		struct sim_job *j = &s->jobs[i];
		if (j->done || !j->tj)   /* !tj: a finished job a live clone left out */
			continue;
		if (shown++ == 8) {
			snprintf(err + len, errlen - len, " ...");
			break;
		}
		const char *m = j->model < 0 ? "*" : s->models[j->model];
		double elig = j->model < 0 ? s->tfree : s->fbm[j->model];
		n = snprintf(err + len, errlen - len, " '%s' needs %.17g GPU of model '%s' (%.17g free)%s", j->tj->id, j->gpu, m, elig,
			j->running ? " [running]" : "");
		if (n > 0)
			len += (size_t)n;
	}
	return -1;
}

/* Nothing runs and nothing arrives: only a gate can still hold jobs back. Would any queued
 * job start if the gate let it? (Frees cannot change while idle, so asked once.) */
static void idle_probe(void *ctx, struct sim_job *j)
{
	struct sim *s = ctx;
	if (!s->idle_fits && (j->model < 0 ? s->tfree : s->fbm[j->model]) >= j->gpu && sim_placement_fits(s, j))
		s->idle_fits = true;
}

static int idle_check(struct sim *s, char *err, size_t errlen)
{
	if (!s->gated)
		return stuck(s, err, errlen);
	if (isnan(s->idle_since)) {
		s->idle_fits = false;
		sim_queue_each(s, idle_probe, s);
		if (!s->idle_fits)
			return stuck(s, err, errlen);
		s->idle_since = s->now;
	}
	double limit = s->hooks.idle_limit_seconds > 0 ? s->hooks.idle_limit_seconds : 60 * 86400.0;
	if (s->now - s->idle_since > limit) {
		snprintf(err, errlen, "cannot make progress: the admission gate held %zu queued job(s) back for %.17g s with nothing running",
			 s->n - s->completed, s->now - s->idle_since);
		return -1;
	}
	return 0;
}

/* A futile eviction cycle: the step was reached only through a Spot guarantee expiring,
 * it evicted, and no HP job it evicted for could start. The original repeats such a step
 * every guarantee period until the Spot work is done (forever when rollback and overhead
 * eat the progress); after SIM_MAX_FUTILE_STEPS in a row sim-run stops and names the jobs. */
static int futile_check(struct sim *s, size_t first_event, char *err, size_t errlen)
{
	const struct sim_output *o = s->out;
	bool futile = s->by_guarantee;
	for (size_t i = first_event; i < o->n_events && futile; i++)
		futile = !s->jobs[o->events[i].trigger].running;
	s->futile_steps = futile ? s->futile_steps + 1 : 0;
	if (s->futile_steps < SIM_MAX_FUTILE_STEPS)
		return 0;
	const struct sim_preemption *e = &o->events[o->n_events - 1];
	snprintf(err, errlen, "futile eviction cycle: %d guarantee expiries in a row each evicted Spot work for HP jobs that still "
		 "could not start (last at time %.17g: Spot '%s' evicted for HP '%s', %zu eviction(s) in that step); the original engine "
		 "repeats this every %lld s until the Spot jobs finish: stopped (limit SIM_MAX_FUTILE_STEPS, see sim-run(1) LIMITS)",
		 SIM_MAX_FUTILE_STEPS, s->now, s->jobs[e->victim].tj->id, s->jobs[e->trigger].tj->id, o->n_events - first_event,
		 s->p->guarantee_seconds);
	return -1;
}

/* One loop iteration (docs/simulator.md §3.3): the instant at now, then the clock moves to the
 * next event time and that time's completions are processed. */
static int step(struct sim *s, char *err, size_t errlen)
{
	const struct sim_policy *p = s->p;
	struct sim_output *o = s->out;
	double es = o->evaluation_start, ee = o->evaluation_end;
	o->iterations++;
	while (s->next_arrival < s->n && s->jobs[s->next_arrival].submit <= s->now + SIM_EPS) {
		struct sim_job *j = &s->jobs[s->next_arrival++];
		j->qsince = j->submit;
		sim_queue_insert(s, j);
		s->bf_idle_cycles = 0;   /* issue 37: a new job, so the idle cycles count again */
		if (s->hooked && j->hp)
			s->hp_outstanding += j->gpu;
	}
	if (s->hooks.at_instant && s->hooks.at_instant(s->hooks.ctx, s, err, errlen))
		return -1;
	start_pass(s);
	size_t first_event = o->n_events;
	if (preempt(s)) {
		start_pass(s);
		if (futile_check(s, first_event, err, errlen))
			return -1;
	} else
		s->futile_steps = 0;
	if (s->phys)
		sim_phys_sample(s);   /* issue 36: fragmentation over time */
	bool by_guarantee = false;     /* the next step's time comes from a guarantee expiry alone */
	double thr = s->now + SIM_EPS, next = INFINITY;
	if (s->next_arrival < s->n && s->jobs[s->next_arrival].submit > thr)
		next = s->jobs[s->next_arrival].submit;
	double c = sim_running_next_completion(s, thr);
	if (c < next)
		next = c;
	if (p->backfill != BACKFILL_NONE && (c = sim_backfill_next_cycle(s, thr)) < next)
		next = c;   /* issue 37: Slurm's bf_interval */
	if (p->scheduler == SCHED_PRIORITY_PREEMPTIVE && s->hp_queued > 0) {
		c = sim_hp_next_wakeup(s, thr, (double)p->hp_delay_seconds);
		if (c < next)
			next = c;
		c = sim_running_next_guarantee(s, thr);
		if (c < next) {
			next = c;
			by_guarantee = true;
		}
	}
	if (s->hooked) {
		if (next == INFINITY) {
			if (idle_check(s, err, errlen))
				return -1;
		} else
			s->idle_since = NAN;
		s->next_event = next;
		if (s->hooks.next_wakeup) {
			c = s->hooks.next_wakeup(s->hooks.ctx, s, thr);
			if (c > thr && c < next) {
				next = c;
				by_guarantee = false;
			}
		}
	}
	if (next == INFINITY)
		return stuck(s, err, errlen);
	s->by_guarantee = by_guarantee;
	double delta = next - s->now;
	double a = s->cap - s->tfree;
	o->allocated += a * delta;
	o->warmup_allocated += a * max0((next < es ? next : es) - s->now);
	o->evaluation_allocated += a * max0((next < ee ? next : ee) - (es > s->now ? es : s->now));
	if (p->mf)
		sim_priority_step(s, next);   /* issue 37: fair-share usage over this step */
	sim_running_advance(s, next, delta);
	s->now = next;
	if (s->hooks.after_advance)
		s->hooks.after_advance(s->hooks.ctx, s);
	size_t nd;
	struct sim_job **done = sim_running_collect_done(s, &nd);
	for (size_t i = 0; i < nd; i++) {
		struct sim_job *j = done[i];
		if (!j->hp)
			close_spot_run(s, j, true);
		if (s->hooked)
			run_closed(s, j, false);
		sim_release(s, j);
		/* done is final: its piece buffer is never used again (a finished job would
		 * otherwise hold it to the end, a small block per job of the trace) */
		free(j->alloc);
		j->alloc = NULL;
		j->cap_alloc = 0;
		j->done = true;
		j->completion = s->now;
		s->completed++;
		if (s->hooked && j->hp) {
			double x = s->hp_outstanding - j->gpu;
			s->hp_outstanding = x > 0 ? x : 0.0;
		}
	}
	return 0;
}

static int model_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sim_model_of(const struct sim *s, const char *model)
{
	if (!strcmp(model, "*"))
		return -1;
	const char **hit = bsearch(&model, s->sorted_models, (size_t)s->n_models, sizeof model, model_cmp);
	if (!hit)
		return -2;
	for (int k = 0; k < s->n_models; k++)
		if (s->models[k] == *hit)
			return k;
	return -2;
}

int sim_job_init(const struct sim *s, struct sim_job *j, const struct trace_job *tj, long long eo, double eval_start, double eval_end)
{
	j->tj = tj;
	j->submit = tj->submit;
	j->gpu = tj->gpus;
	j->hp = tj->hp;
	j->rem = trace_job_run_seconds(tj);   /* a time limit ends the job there, as Slurm's TIMEOUT */
	j->qsince = tj->submit;
	j->eo = eo;
	j->model = sim_model_of(s, tj->model);
	j->eval_pop = tj->submit >= eval_start && tj->submit <= eval_end;
	j->eval_spot = j->eval_pop && !j->hp;
	return j->model == -2 ? -1 : 0;
}

static int check_policy(struct sim *s, const struct sim_policy *p, char *err, size_t errlen)
{
	return s->hooks.check_policy ? s->hooks.check_policy(s->hooks.ctx, p, err, errlen) : 0;
}

struct sim *sim_open(const struct trace *t, const struct sim_policy *p, const struct sim_hooks *h, char *err, size_t errlen)
{
	return sim_open_reserve(t, p, h, 0, err, errlen);
}

struct sim *sim_open_reserve(const struct trace *t, const struct sim_policy *p, const struct sim_hooks *h, size_t reserve, char *err,
			     size_t errlen)
{
	struct sim *s = xcalloc(1, sizeof *s);
	struct sim_output *out = &s->res;
	s->p = p;
	s->t = t;
	s->out = out;
	s->n = t->n_jobs;
	s->idle_since = NAN;
	s->bf_last = NAN;   /* issue 37: no backfill cycle yet */
	s->start_fn = start_job_now;   /* sim_start_job (internal.h) for the layers below */
	if (h) {
		s->hooks = *h;
		s->hooked = true;
		s->gated = h->gate_limit && h->gate_admit;
	}
	if (s->n == 0 || t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no jobs or no nodes");
		goto fail;
	}
	if (check_policy(s, p, err, errlen))
		goto fail;
	/* Models in first-seen node order (fbm/tfree initialisation order). */
	s->models = xcalloc(t->n_nodes, sizeof *s->models);
	s->sorted_models = xcalloc(t->n_nodes, sizeof *s->sorted_models);
	s->nodes = xcalloc(t->n_nodes, sizeof *s->nodes);
	s->n_nodes = t->n_nodes;
	for (size_t i = 0; i < t->n_nodes; i++) {
		int m = -1;
		for (int k = 0; k < s->n_models; k++)
			if (!strcmp(s->models[k], t->nodes[i].model)) {
				m = k;
				break;
			}
		if (m < 0) {
			m = s->n_models++;
			s->models[m] = t->nodes[i].model;
		}
		s->nodes[i].model = m;
		s->nodes[i].free = (double)t->nodes[i].gpu_count;
		s->nodes[i].id = t->nodes[i].id;
		out->capacity_gpus += t->nodes[i].gpu_count;
	}
	out->node_count = t->n_nodes;
	s->cap = (double)out->capacity_gpus;
	s->fbm = xcalloc((size_t)s->n_models, sizeof *s->fbm);
	for (size_t i = 0; i < t->n_nodes; i++)
		s->fbm[s->nodes[i].model] += s->nodes[i].free;
	for (int k = 0; k < s->n_models; k++) {
		s->tfree += s->fbm[k];
		s->sorted_models[k] = s->models[k];
	}
	qsort(s->sorted_models, (size_t)s->n_models, sizeof *s->sorted_models, model_cmp);
	/* Window: the declared evaluation window, else (min submit, max submit). */
	out->simulation_start = t->jobs[0].submit;
	if (t->has_window) {
		out->evaluation_start = t->eval_start;
		out->evaluation_end = t->eval_end;
	} else {
		out->evaluation_start = t->jobs[0].submit;
		out->evaluation_end = t->jobs[t->n_jobs - 1].submit;
	}
	out->n_jobs = s->n;
	s->cap_n = s->n + reserve;
	s->eo_base = (long long)s->cap_n;
	/* written only by sim_finish: calloc's fresh zero pages, untouched until then (a
	 * cleared huge block would be resident for the whole run) */
	out->jobs = xcalloc(s->cap_n, sizeof *out->jobs);
	s->jobs = xcalloc_large(s->cap_n, sizeof *s->jobs);
	for (size_t i = 0; i < s->n; i++)
		if (sim_job_init(s, &s->jobs[i], &t->jobs[i], (long long)i, out->evaluation_start, out->evaluation_end)) {
			snprintf(err, errlen, "job '%s' asks for model '%s' that no node has", t->jobs[i].id, t->jobs[i].model);
			goto fail;
		}
	if (sim_structures_init(s, err, errlen))
		goto fail;
	s->now = s->jobs[0].submit;
	return s;
fail:
	sim_close(s);
	return NULL;
}

int sim_advance(struct sim *s, double until, char *err, size_t errlen)
{
	while (s->completed < s->n && !(s->now + SIM_EPS >= until))
		if (step(s, err, errlen))
			return -1;
	return 0;
}

int sim_set_policy(struct sim *s, const struct sim_policy *p, char *err, size_t errlen)
{
	if (check_policy(s, p, err, errlen))
		return -1;
	if (p->placement != s->p->placement || p->placement_seed != s->p->placement_seed) {   /* issue 36 */
		snprintf(err, errlen, "placement_strategy '%s' (seed %lld) cannot change within a session started with '%s' (seed %lld)",
			 policy_placement_name(p->placement), p->placement_seed, policy_placement_name(s->p->placement), s->p->placement_seed);
		return -1;
	}
	s->p = p;
	sim_queue_rebuild(s);
	return 0;
}

int sim_drain(struct sim *s, char *err, size_t errlen)
{
	if (sim_advance(s, INFINITY, err, errlen))
		return -1;
	struct sim_output *o = s->out;
	o->simulation_end = s->now;
	o->drain_allocated = o->allocated - o->warmup_allocated - o->evaluation_allocated;
	o->allocation_rate_mean = o->evaluation_end > o->evaluation_start ?
		o->evaluation_allocated / ((double)o->capacity_gpus * (o->evaluation_end - o->evaluation_start)) : 0.0;
	return 0;
}

void sim_job_result_of(const struct sim *s, size_t index, struct sim_job_result *r)
{
	const struct sim_job *j = &s->jobs[index];
	r->start = j->first_start;
	r->completion = j->completion;
	r->queue_seconds = j->qsec;
	r->preemptions = j->preemptions;
	r->runs = j->runs;
	r->evaluation_population = j->eval_pop;
}

int sim_finish(struct sim *s, struct sim_output *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (s->live_only) {
		snprintf(err, errlen, "a live-state clone holds no finished jobs: it can be drained, not finished");
		return -1;
	}
	if (sim_drain(s, err, errlen))
		return -1;
	struct sim_output *o = s->out;
	for (size_t i = 0; i < s->n; i++)
		sim_job_result_of(s, i, &o->jobs[i]);
	if (s->phys)
		sim_phys_finish(s, o);   /* issue 36: the placement records */
	*out = *o;
	memset(o, 0, sizeof *o);
	return 0;
}

void sim_close(struct sim *s)
{
	if (!s)
		return;
	sim_output_release(&s->res);
	sim_structures_release(s);
	free(s);
}

int sim_run(const struct trace *t, const struct sim_policy *p, struct sim_output *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct sim *s = sim_open(t, p, NULL, err, errlen);
	if (!s)
		return -1;
	int rc = sim_finish(s, out, err, errlen);
	sim_close(s);
	return rc;
}

/* ---- read-only state ---- */

bool sim_done(const struct sim *s) { return s->completed == s->n; }
double sim_now(const struct sim *s) { return s->now; }
double sim_next_event(const struct sim *s) { return s->next_event; }
const struct sim_policy *sim_policy(const struct sim *s) { return s->p; }
const struct trace *sim_trace(const struct sim *s) { return s->t; }
double sim_evaluation_start(const struct sim *s) { return s->out->evaluation_start; }
double sim_evaluation_end(const struct sim *s) { return s->out->evaluation_end; }
long long sim_capacity_gpus(const struct sim *s) { return s->out->capacity_gpus; }
int sim_model_count(const struct sim *s) { return s->n_models; }
const char *sim_model_name(const struct sim *s, int model) { return model < 0 ? "*" : s->models[model]; }
int sim_node_model(const struct sim *s, size_t node) { return s->nodes[node].model; }
double sim_free_gpus(const struct sim *s, int model) { return model < 0 ? s->tfree : s->fbm[model]; }
double sim_hp_outstanding_gpus(const struct sim *s) { return s->hp_outstanding; }
size_t sim_queued_spot_count(const struct sim *s) { return s->queued_spot; }

static void add_queued_spot(void *ctx, struct sim_job *j)
{
	if (!j->hp)
		*(double *)ctx += j->gpu;
}

double sim_spot_backlog_gpus(const struct sim *s)
{
	if (s->spot_backlog.fine == 0)
		return sim_xsum_value(&s->spot_backlog);
	double sum = 0.0;   /* a value that is not a multiple of 2^-60: plain sum, lane order */
	sim_queue_each(s, add_queued_spot, &sum);
	return sum;
}

double sim_running_spot_gpus(const struct sim *s)
{
	if (s->running_spot.fine == 0)
		return sim_xsum_value(&s->running_spot);
	double sum = 0.0;   /* plain sum in start order */
	for (const struct sim_job *j = s->shead; j; j = j->snext)
		for (size_t i = 0; i < j->n_alloc; i++)
			sum += j->alloc[i].x;
	return sum;
}

void sim_each_running(const struct sim *s, void (*fn)(void *ctx, const struct sim_job_view *j), void *ctx)
{
	struct sim_job_view v;
	for (size_t i = 0; i < s->rn; i++) {
		sim_job_view_of(s, s->running[i].j, &v);
		fn(ctx, &v);
	}
}

struct each_ctx {
	const struct sim *s;
	void (*fn)(void *ctx, const struct sim_job_view *j);
	void *ctx;
};

static void each_queued(void *ctx, struct sim_job *j)
{
	struct each_ctx *e = ctx;
	struct sim_job_view v;
	sim_job_view_of(e->s, j, &v);
	e->fn(e->ctx, &v);
}

void sim_each_queued(const struct sim *s, void (*fn)(void *ctx, const struct sim_job_view *j), void *ctx)
{
	struct each_ctx e = { s, fn, ctx };
	sim_queue_each(s, each_queued, &e);
}

void sim_output_release(struct sim_output *out)
{
	if (out->placement)
		free(out->placement->samples);
	free(out->placement);
	free(out->jobs);
	free(out->runs);
	free(out->events);
	memset(out, 0, sizeof *out);
}
