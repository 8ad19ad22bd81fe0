/*
 * The controller inside a simulation session, at the points the original calls it:
 * - wake-ups: the next update time joins the event-time minimum, so the update grid is
 *   first arrival, then now + interval of the loop's own clock;
 * - at_instant (after the arrivals of the instant, before the start pass): the update,
 *   when due, from the simulator's HP outstanding, queued Spot and running Spot GPUs;
 * - the gate: a Spot job starts only if cluster running Spot GPUs + its demand <= the quota
 *   of the policy's horizon + EPS (bypass: always);
 * - run_closed: every Spot run that closes (completion or eviction) is one feedback event.
 */
#include "predict/predict.h"
#include "core/xalloc.h"
#include "predict/internal.h"
#include "predict/aggregate/aggregate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The aggregate family on the cluster's capacity ("*"), its evidence window the trace's
 * evaluation window, else [first, last arrival]. */
int pc_aggregate_open(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen)
{
	double es, ee;
	pc_evidence_window(t, &es, &ee);
	return pc_controller_init(c, cfg, (double)trace_capacity(t, "*"), t->jobs[0].submit, true, es, ee, err, errlen);
}

int pc_check_guarantee(const struct pc_config *cfg, const struct sim_policy *p, char *err, size_t errlen)
{
	if (pc_config_horizon_for(cfg, p->guarantee_seconds) < 0) {
		snprintf(err, errlen, "policy guarantee exceeds the predictive controller's declared horizons ('%s' guarantees %lld s, '%s' forecasts at most %lld h)",
			 p->action_id, p->guarantee_seconds, cfg->controller_id, cfg->horizons[cfg->n_horizons - 1]);
		return -1;
	}
	return 0;
}

static double next_wakeup(void *ctx, const struct sim *s, double after)
{
	struct pc_sim *b = ctx;
	if (b->c->next_update > after && pc_idle_candidate(b->c, sim_next_event(s))) {
		/* an idle span to the simulator's next event: skip the updates that would repeat */
		struct pc_observation o = { sim_hp_outstanding_gpus(s), sim_spot_backlog_gpus(s), sim_running_spot_gpus(s) };
		pc_idle_next_update(b->c, sim_next_event(s), &o);
	}
	return b->c->next_update > after ? b->c->next_update : INFINITY;
}

static int at_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct pc_sim *b = ctx;
	double now = sim_now(s);
	if (!pc_update_due(b->c, now))
		return 0;
	struct pc_observation o = { sim_hp_outstanding_gpus(s), sim_spot_backlog_gpus(s), sim_running_spot_gpus(s) };
	return pc_update(b->c, now, &o, err, errlen);
}

static double gate_limit(void *ctx, const struct sim *s, int model)
{
	struct pc_sim *b = ctx;
	return b->enforce ? pc_gate_limit(b->c, 0, b->horizon, sim_running_spot_gpus(s)) : INFINITY;
}

static bool gate_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct pc_sim *b = ctx;
	return !b->enforce || pc_allows_spot(b->c, 0, b->horizon, j->gpu, sim_running_spot_gpus(s));
}

static void run_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct pc_sim *b = ctx;
	if (!j->hp)
		pc_observe_run_end(b->c, 0, sim_now(s), evicted, 1.0);
}

void pc_aggregate_bind(struct pc_sim *b, struct sim_hooks *h)
{
	const struct pc_controller *c = b->c;
	h->check_policy = pc_sim_check_policy;
	h->next_wakeup = next_wakeup;
	h->at_instant = at_instant;
	h->gate_limit = gate_limit;
	h->gate_admit = gate_admit;
	h->run_closed = run_closed;
	/* long enough for the forecast to forget every busy hour and eta to climb back */
	h->idle_limit_seconds = 2.0 * ((double)c->cfg->lookback_hours * 3600 + (double)c->cfg->retrain_interval_seconds) +
				(double)c->cfg->feedback_window_seconds + 100.0 * (double)c->cfg->observation_interval_seconds;
}
