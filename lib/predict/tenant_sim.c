/*
 * The tenant controller inside a simulation session (predictive.md §2), hook by hook:
 * - next_wakeup: the next 60-s sample, the evidence end (the gate switches off exactly
 *   there) and the end of every running Spot run's current guarantee period;
 * - after_advance: the guarantee periods completed by the new time, before the
 *   completions at that time (the original's order);
 * - at_instant (after the arrivals of the instant, before the start pass): the sample
 *   and, on the decision grid, the decision, from each pool's free GPUs, running Spot
 *   GPUs, queued Spot demand and longest current Spot wait;
 * - the gate (enforce mode, inside the evidence window): a Spot job starts only if its
 *   pool's running Spot GPUs + its demand <= the pool's quota of the policy's horizon + EPS;
 * - run_started / run_closed: HP runs move their series' running GPUs (a series is
 *   registered at its first run); Spot runs are feedback events weighted by the distinct
 *   nodes of the allocation (completion = success, eviction = failure).
 */
#include "core/die.h"
#include "predict/internal.h"
#include "predict/predict.h"
#include "predict/tenant_control.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static void map_models(struct pc_sim *b, const struct sim *s)
{
	if (b->mapped)
		return;
	for (int p = 0; p < PC_SIM_MAX_MODELS; p++)
		b->model_of_pool[p] = -2;
	for (int m = 0; m < sim_model_count(s) && m < PC_SIM_MAX_MODELS; m++) {
		b->pool_of_model[m] = tc_pool_index(b->c->tenant, sim_model_name(s, m));
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
	return tc_next_wakeup(b->c->tenant, after);
}

static void after_advance(void *ctx, struct sim *s)
{
	struct pc_sim *b = ctx;
	tc_after_advance(b->c->tenant, sim_now(s));
}

static bool gating(const struct pc_sim *b, const struct sim *s)
{
	return b->enforce && tc_gate_active(b->c->tenant, sim_now(s));
}

struct queued_ctx {
	struct pc_sim *b;
	const struct sim *s;
	double now;
};

static void add_queued(void *ctx, const struct sim_job_view *j)
{
	struct queued_ctx *q = ctx;
	int p = j->hp ? -1 : pool_of(q->b, q->s, j->model);
	if (p < 0)
		return;
	struct tc_pool_observation *o = &q->b->c->tenant_obs[p];
	o->spot_backlog_gpus += j->gpu;
	if (j->gpu <= o->idle_gpus + PC_EPS) {
		struct pc_spot_demands *f = &q->b->c->tenant_fit[p];
		f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
		f->v[f->n++] = j->gpu;
	}
	double wait = q->now - j->queued_since;
	if (wait > o->maximum_spot_wait_seconds)
		o->maximum_spot_wait_seconds = wait;
}

static int at_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct pc_sim *b = ctx;
	struct tenant_control *tc = b->c->tenant;
	double now = sim_now(s);
	if (b->failure[0]) {
		snprintf(err, errlen, "%s", b->failure);
		return -1;
	}
	if (!tc_update_due(tc, now))
		return 0;
	struct tc_observation o = { sim_hp_outstanding_gpus(s), sim_spot_backlog_gpus(s), sim_running_spot_gpus(s),
				    b->c->tenant_obs, gating(b, s), b->horizon };
	if (tc_update_decides(tc, now)) {
		map_models(b, s);
		size_t n = tc_pool_count(tc);
		for (size_t p = 0; p < n; p++) {
			int m = b->model_of_pool[p];
			b->c->tenant_obs[p] = (struct tc_pool_observation){ .idle_gpus = m >= 0 ? sim_free_gpus(s, m) : 0,
									    .running_spot_gpus = tc_running_spot(tc, p) };
			b->c->tenant_fit[p].n = 0;
		}
		struct queued_ctx q = { b, s, now };
		sim_each_queued(s, add_queued, &q);
		for (size_t p = 0; p < n; p++) {
			b->c->tenant_obs[p].fitting_spot_gpus = b->c->tenant_fit[p].v;
			b->c->tenant_obs[p].n_fitting_spot = b->c->tenant_fit[p].n;
		}
	}
	return tc_update(tc, now, &o, err, errlen) < 0 ? -1 : 0;
}

static double gate_limit(void *ctx, const struct sim *s, int model)
{
	struct pc_sim *b = ctx;
	int p = gating(b, s) ? pool_of(b, s, model) : -1;
	if (p < 0)
		return INFINITY;
	const struct tenant_control *tc = b->c->tenant;
	double q = (double)tc_decision_quota(tc_last_decision(tc), (size_t)p, b->horizon);
	return q - tc_running_spot(tc, (size_t)p) + 2 * PC_EPS;
}

static bool gate_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct pc_sim *b = ctx;
	int p = gating(b, s) ? pool_of(b, s, j->model) : -1;
	if (p < 0)
		return true;
	const struct tenant_control *tc = b->c->tenant;
	return tc_allows_spot(tc, (size_t)p, b->horizon, j->gpu, tc_running_spot(tc, (size_t)p));
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
	if (tc_hp_run(b->c->tenant, sim_model_name(s, j->model), j->tj->tenant, j->gpu, started, err, sizeof err))
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
	if (p >= 0)
		tc_spot_run_started(b->c->tenant, j->index, (size_t)p, nodes, gpus, j->run_start,
				    (double)sim_policy(s)->guarantee_seconds);
}

static void run_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct pc_sim *b = ctx;
	if (j->hp)
		hp_run(b, s, j, false);
	else
		tc_spot_run_closed(b->c->tenant, j->index, sim_now(s), evicted);
}

void pc_tenant_bind(struct pc_sim *b, struct sim_hooks *h)
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
	const struct tenant_control *tc = b->c->tenant;
	double span = tc_evidence_end(tc) - tc_evidence_start(tc);
	h->idle_limit_seconds = (span > 0 ? span : 0) + 2.0 * 86400.0;
}
