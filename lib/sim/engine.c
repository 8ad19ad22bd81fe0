/*
 * The event loop (simulator.md §3.3). Parity notes, i.e. why the code looks the way it does:
 * - fbm/tfree are caches updated incrementally in allocation order; placement sums node
 *   frees left to right in node order; both drift exactly as in the original.
 * - rem is updated as rem = max(0, rem - delta) at every step for every running job;
 *   completions at one instant are processed in job_id order.
 * - the queue order is (eo, id) or (HP first, eo, id); a victim gets eo = N + k.
 */
#include "sim/engine.h"
#include "sim/internal.h"
#include "core/die.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max0(double x) { return x > 0 ? x : 0.0; }

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

static void start_job(struct sim *s, struct sim_job *j)
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
	running_add(s, j);
}

/* §3.5: greedy in-order backfill over the queue. The queue hands out, in key order, only the
 * jobs whose eligible free covers their demand: the ones the original skips at the elig test
 * are never visited (queue.c). Returns the number of jobs started. */
static size_t start_pass(struct sim *s)
{
	if (s->tfree <= SIM_EPS)
		return 0;
	size_t started = 0;
	queue_pass_begin(s);
	struct sim_job *j;
	while ((j = queue_pass_next(s))) {
		if (place(s, j))
			continue;
		reserve(s, j);
		queue_remove(s, j);
		start_job(s, j);
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
	double rem = running_rem(s, v);
	running_remove(s, v);
	v->rem = rem + (rb + ov);
	close_spot_run(s, v, false);
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
	release(s, v);
	v->preemptions++;
	v->qsince = s->now;
	v->eo = (long long)s->n + s->k++;
	queue_insert(s, v);
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
	victims_reset(s);
	hp_iter_begin(s);
	struct sim_job *hp;
	while ((hp = hp_iter_next(s))) {
		if (s->now + SIM_EPS < hp->qsince + (double)p->hp_delay_seconds)
			break;   /* HP qsince = submit and the HP queue is in submit order */
		double elig = hp->model < 0 ? s->tfree : s->fbm[hp->model];
		if (elig >= hp->gpu)
			continue;
		struct victim_list *vl = victims_for(s, hp->model);
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
			hp_iter_skip_model(s, hp->model);
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
		if (j->done)
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

/* A futile eviction cycle: the step was reached only through a Spot guarantee expiring,
 * it evicted, and no HP job it evicted for could start. The original repeats such a step
 * every guarantee period until the Spot work is done (forever when rollback and overhead
 * eat the progress); after SIM_MAX_FUTILE_STEPS in a row sim-run stops and names the jobs. */
static int futile_cycle(struct sim *s, size_t first_event, char *err, size_t errlen)
{
	const struct sim_preemption *e = &s->out->events[s->out->n_events - 1];
	snprintf(err, errlen, "futile eviction cycle: %d guarantee expiries in a row each evicted Spot work for HP jobs that still "
		 "could not start (last at time %.17g: Spot '%s' evicted for HP '%s', %zu eviction(s) in that step); the original engine "
		 "repeats this every %lld s until the Spot jobs finish: stopped (limit SIM_MAX_FUTILE_STEPS, see sim-run(1) LIMITS)",
		 SIM_MAX_FUTILE_STEPS, s->now, s->jobs[e->victim].tj->id, s->jobs[e->trigger].tj->id, s->out->n_events - first_event,
		 s->p->guarantee_seconds);
	return -1;
}

static int run_loop(struct sim *s, char *err, size_t errlen)
{
	const struct sim_policy *p = s->p;
	struct sim_output *o = s->out;
	double es = o->evaluation_start, ee = o->evaluation_end;
	double cap = (double)o->capacity_gpus;
	size_t next_arrival = 0;
	bool by_guarantee = false;     /* this step's time came from a guarantee expiry alone */
	long futile_steps = 0;         /* consecutive such steps whose evictions were futile */
	s->now = s->jobs[0].submit;
	while (s->completed < s->n) {
		o->iterations++;
		while (next_arrival < s->n && s->jobs[next_arrival].submit <= s->now + SIM_EPS) {
			struct sim_job *j = &s->jobs[next_arrival++];
			j->qsince = j->submit;
			queue_insert(s, j);
		}
		start_pass(s);
		size_t first_event = o->n_events;
		if (preempt(s)) {
			start_pass(s);
			bool futile = by_guarantee;
			for (size_t i = first_event; i < o->n_events && futile; i++)
				futile = !s->jobs[o->events[i].trigger].running;
			futile_steps = futile ? futile_steps + 1 : 0;
			if (futile_steps >= SIM_MAX_FUTILE_STEPS)
				return futile_cycle(s, first_event, err, errlen);
		} else
			futile_steps = 0;
		by_guarantee = false;
		double thr = s->now + SIM_EPS, next = INFINITY;
		if (next_arrival < s->n && s->jobs[next_arrival].submit > thr)
			next = s->jobs[next_arrival].submit;
		double c = running_next_completion(s, thr);
		if (c < next)
			next = c;
		if (p->scheduler == SCHED_PRIORITY_PREEMPTIVE && s->hp_queued > 0) {
			c = hp_next_wakeup(s, thr, (double)p->hp_delay_seconds);
			if (c < next)
				next = c;
			c = running_next_guarantee(s, thr);
			if (c < next) {
				next = c;
				by_guarantee = true;
			}
		}
		if (next == INFINITY)
			return stuck(s, err, errlen);
		double delta = next - s->now;
		double a = cap - s->tfree;
		o->allocated += a * delta;
		o->warmup_allocated += a * max0((next < es ? next : es) - s->now);
		o->evaluation_allocated += a * max0((next < ee ? next : ee) - (es > s->now ? es : s->now));
		running_advance(s, next, delta);
		s->now = next;
		size_t nd;
		struct sim_job **done = running_collect_done(s, &nd);
		for (size_t i = 0; i < nd; i++) {
			struct sim_job *j = done[i];
			if (!j->hp)
				close_spot_run(s, j, true);
			release(s, j);
			j->done = true;
			j->completion = s->now;
			s->completed++;
		}
	}
	return 0;
}

static int model_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sim_run(const struct trace *t, const struct sim_policy *p, struct sim_output *out, char *err, size_t errlen)
{
	struct sim s;
	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.p = p;
	s.out = out;
	s.n = t->n_jobs;
	if (s.n == 0 || t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no jobs or no nodes");
		return -1;
	}
	/* Models in first-seen node order (fbm/tfree initialisation order). */
	s.models = xcalloc(t->n_nodes, sizeof *s.models);
	s.sorted_models = xcalloc(t->n_nodes, sizeof *s.sorted_models);
	s.nodes = xcalloc(t->n_nodes, sizeof *s.nodes);
	s.n_nodes = t->n_nodes;
	for (size_t i = 0; i < t->n_nodes; i++) {
		int m = -1;
		for (int k = 0; k < s.n_models; k++)
			if (!strcmp(s.models[k], t->nodes[i].model)) {
				m = k;
				break;
			}
		if (m < 0) {
			m = s.n_models++;
			s.models[m] = t->nodes[i].model;
		}
		s.nodes[i].model = m;
		s.nodes[i].free = (double)t->nodes[i].gpu_count;
		s.nodes[i].id = t->nodes[i].id;
		out->capacity_gpus += t->nodes[i].gpu_count;
	}
	out->node_count = t->n_nodes;
	s.fbm = xcalloc((size_t)s.n_models, sizeof *s.fbm);
	for (size_t i = 0; i < t->n_nodes; i++)
		s.fbm[s.nodes[i].model] += s.nodes[i].free;
	for (int k = 0; k < s.n_models; k++) {
		s.tfree += s.fbm[k];
		s.sorted_models[k] = s.models[k];
	}
	qsort(s.sorted_models, (size_t)s.n_models, sizeof *s.sorted_models, model_cmp);
	/* Window: the declared evaluation window, else (min submit, max submit). */
	out->simulation_start = t->jobs[0].submit;
	if (t->has_window) {
		out->evaluation_start = t->eval_start;
		out->evaluation_end = t->eval_end;
	} else {
		out->evaluation_start = t->jobs[0].submit;
		out->evaluation_end = t->jobs[t->n_jobs - 1].submit;
	}
	out->n_jobs = s.n;
	out->jobs = xcalloc_large(s.n, sizeof *out->jobs);
	s.jobs = xcalloc_large(s.n, sizeof *s.jobs);
	for (size_t i = 0; i < s.n; i++) {
		const struct trace_job *tj = &t->jobs[i];
		struct sim_job *j = &s.jobs[i];
		j->tj = tj;
		j->submit = tj->submit;
		j->gpu = tj->gpus;
		j->hp = tj->hp;
		j->rem = tj->duration;
		j->qsince = tj->submit;
		j->eo = (long long)i;
		j->model = -1;
		if (strcmp(tj->model, "*")) {
			const char *key = tj->model;
			const char **hit = bsearch(&key, s.sorted_models, (size_t)s.n_models, sizeof key, model_cmp);
			if (!hit) {
				snprintf(err, errlen, "job '%s' asks for model '%s' that no node has", tj->id, tj->model);
				goto fail;
			}
			for (int k = 0; k < s.n_models; k++)
				if (s.models[k] == *hit)
					j->model = k;
		}
		j->eval_pop = tj->submit >= out->evaluation_start && tj->submit <= out->evaluation_end;
		j->eval_spot = j->eval_pop && !j->hp;
	}
	if (structures_init(&s, err, errlen))
		goto fail;
	int rc = run_loop(&s, err, errlen);
	if (rc)
		goto fail;
	out->simulation_end = s.now;
	out->drain_allocated = out->allocated - out->warmup_allocated - out->evaluation_allocated;
	out->allocation_rate_mean = out->evaluation_end > out->evaluation_start ?
		out->evaluation_allocated / ((double)out->capacity_gpus * (out->evaluation_end - out->evaluation_start)) : 0.0;
	for (size_t i = 0; i < s.n; i++) {
		struct sim_job *j = &s.jobs[i];
		struct sim_job_result *r = &out->jobs[i];
		r->start = j->first_start;
		r->completion = j->completion;
		r->queue_seconds = j->qsec;
		r->preemptions = j->preemptions;
		r->runs = j->runs;
		r->evaluation_population = j->eval_pop;
	}
	structures_release(&s);
	return 0;
fail:
	structures_release(&s);
	sim_output_release(out);
	return -1;
}

void sim_output_release(struct sim_output *out)
{
	free(out->jobs);
	free(out->runs);
	free(out->events);
	memset(out, 0, sizeof *out);
}
