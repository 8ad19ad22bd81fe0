#include "roll/predictor.h"
#include "core/die.h"
#include "core/strbuf.h"
#include "predict/predict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PRED_AGGREGATE = 1 };

struct aggregate {
	struct pc_config cfg;
	struct pc_controller c;
	struct pc_sim bind;
	bool started;
};

int roll_predictor_load(struct roll_predictor *p, const char *path, struct arena *a, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	struct aggregate *g = xcalloc(1, sizeof *g);
	if (pc_config_load(&g->cfg, path, a, err, errlen)) {
		free(g);
		return -1;
	}
	p->kind = PRED_AGGREGATE;
	p->impl = g;
	p->controller_id = g->cfg.controller_id;
	p->canonical = g->cfg.canonical;
	p->fingerprint = g->cfg.fingerprint;
	return 0;
}

int roll_predictor_check(const struct roll_predictor *p, const struct sim_policy *pol, char *err, size_t errlen)
{
	const struct aggregate *g = p->impl;
	return pc_check_guarantee(&g->cfg, pol, err, errlen);
}

int roll_predictor_start(struct roll_predictor *p, const struct trace *t, char *err, size_t errlen)
{
	struct aggregate *g = p->impl;
	if (!t->n_jobs || !t->has_window) {
		snprintf(err, errlen, "the inner predictor needs a trace with jobs and an evaluation window");
		return -1;
	}
	if (pc_controller_init(&g->c, &g->cfg, (double)trace_capacity(t, "*"), t->jobs[0].submit, true, t->eval_start, t->eval_end, err, errlen))
		return -1;
	g->started = true;
	pc_sim_bind(&g->bind, &g->c, &p->hooks);
	return 0;
}

const struct roll_projection *roll_predictor_projection(struct roll_predictor *p)
{
	struct aggregate *g = p->impl;
	const struct pc_decision *d = g->started ? pc_last_decision(&g->c) : NULL;
	if (!d)
		return NULL;
	const struct pc_controller *c = &g->c;
	size_t H = (size_t)c->cfg->forecast_horizon_hours, np = H * c->n_pools;
	p->pts = xgrow(p->pts, &p->cap_pts, np + 1, sizeof *p->pts);
	for (size_t k = 0; k < np; k++) {
		const struct pc_point *x = &c->points[d->points_at + k];
		const char *pool = c->pools[k / H].name;
		p->pts[k] = (struct roll_point){ x->target, x->step, pool && strcmp(pool, "*") ? pool : NULL, x->mu, x->sigma, x->q,
			false, false, 0, 0, NULL };
	}
	struct roll_projection *pr = &p->proj;
	memset(pr, 0, sizeof *pr);
	pr->cutoff = d->now;
	pr->history_ready = d->history_ready;
	pr->points = p->pts;
	pr->n_points = np;
	for (size_t i = 0; i < c->cfg->n_horizons && i < sizeof pr->quota / sizeof *pr->quota; i++) {
		long long q = 0;
		for (size_t k = 0; k < c->n_pools; k++)
			q += c->quotas[d->quotas_at + k * c->cfg->n_horizons + i];
		pr->quota[pr->n_quota++] = (struct roll_quota){ c->cfg->horizons[i], q };
	}
	pr->has_eta = true;
	pr->eta = d->eta;
	return pr;
}

int roll_predictor_write(const struct roll_predictor *p, struct nd_writer *w, char *err, size_t errlen)
{
	const struct aggregate *g = p->impl;
	struct strbuf sb;
	struct pc_report rep;
	int rc = 0;
	sb_init(&sb);
	for (size_t i = 0; i < g->c.n_decisions && !rc; i++) {
		sb_reset(&sb);
		pc_write_decision(&sb, &g->c, &g->c.decisions[i]);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	if (!rc) {
		pc_report(&g->c, &rep);
		sb_reset(&sb);
		pc_write_report(&sb, &g->c, &rep);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	sb_release(&sb);
	return rc;
}

void roll_predictor_release(struct roll_predictor *p)
{
	struct aggregate *g = p->impl;
	if (g && g->started)
		pc_controller_release(&g->c);
	free(g);
	free(p->pts);
	memset(p, 0, sizeof *p);
}
