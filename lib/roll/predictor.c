#include "roll/predictor.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/evidence.h"
#include "predict/predict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both families run in the one controller engine (pc_controller); their decisions wait in
 * a temporary file until the plain records are out (pc_records, as in sim-run), which also
 * counts and hashes them for the predictor_state. */
struct inner {
	struct pc_config cfg;
	struct pc_controller c;
	struct pc_sim bind;
	bool started;
	struct pc_records rec;
	struct pc_view view;              /* the last decision, for the projection */
};

int roll_predictor_load(struct roll_predictor *p, const char *path, struct arena *a, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	struct inner *g = xcalloc(1, sizeof *g);
	if (pc_config_load(&g->cfg, path, a, err, errlen)) {
		free(g);
		return -1;
	}
	p->family = g->cfg.family->name;
	p->impl = g;
	p->controller_id = g->cfg.controller_id;
	p->canonical = g->cfg.canonical;
	p->fingerprint = g->cfg.fingerprint;
	return 0;
}

int roll_predictor_check(const struct roll_predictor *p, const struct sim_policy *pol, char *err, size_t errlen)
{
	const struct inner *g = p->impl;
	return pc_check_guarantee(&g->cfg, pol, err, errlen);
}

int roll_predictor_start(struct roll_predictor *p, const struct trace *t, char *err, size_t errlen)
{
	struct inner *g = p->impl;
	if (!t->n_jobs || !t->has_window) {
		snprintf(err, errlen, "the inner predictor needs a trace with jobs and an evaluation window");
		return -1;
	}
	/* evidence window = the trace's evaluation window; the pools are the family's own */
	if (pc_controller_open(&g->c, &g->cfg, t, err, errlen))
		return -1;
	g->started = true;
	if (pc_records_open(&g->rec, &g->c, "the inner predictor's decisions", err, errlen))
		return -1;
	pc_sim_bind(&g->bind, &g->c, &p->hooks);
	return 0;
}

/* The family's last decision as a projection: its points, the quota summed over pools per
 * guarantee hour (the frozen aggregate quota of Q6) and the minimum eta over pools. */
const struct roll_projection *roll_predictor_projection(struct roll_predictor *p)
{
	struct inner *g = p->impl;
	struct pc_view *v = &g->view;
	if (!g->started || !g->cfg.family->last_decision(&g->c, v))
		return NULL;
	p->pts = xgrow(p->pts, &p->cap_pts, v->n_points + 1, sizeof *p->pts);
	for (size_t k = 0; k < v->n_points; k++) {
		const struct pc_view_point *x = &v->points[k];
		p->pts[k] = (struct roll_point){ x->target, x->step, x->pool, x->mu, x->sigma, x->q, x->calibrated, x->calibrated, x->raw,
			x->offset, x->method };
	}
	struct roll_projection *pr = &p->proj;
	memset(pr, 0, sizeof *pr);
	pr->cutoff = v->now;
	pr->history_ready = v->history_ready;
	pr->points = p->pts;
	pr->n_points = v->n_points;
	for (size_t i = 0; i < v->n_quota && i < sizeof pr->quota / sizeof *pr->quota; i++)
		pr->quota[pr->n_quota++] = (struct roll_quota){ g->cfg.horizons[i], v->quota[i] };
	pr->has_eta = true;
	pr->eta = v->eta;
	pr->scenario_pool = g->cfg.family->scenario_pool;
	pr->scenario_tenant = g->cfg.family->scenario_tenant;
	return pr;
}

int roll_predictor_write(const struct roll_predictor *p, struct nd_writer *w, char *err, size_t errlen)
{
	struct inner *g = p->impl;
	return pc_controller_write_records(&g->c, &g->rec, w, err, errlen);
}

void roll_predictor_release(struct roll_predictor *p)
{
	struct inner *g = p->impl;
	if (g) {
		if (g->started)
			pc_controller_release(&g->c);
		pc_records_release(&g->rec);
		free(g->view.points);
	}
	free(g);
	free(p->pts);
	memset(p, 0, sizeof *p);
}

/* The learned state (docs/rolling-rules.md "Handoff": predictor weights, eta and feedback) as one
 * record: the decision records so far (count, bytes, XXH3: every quota, eta and forecast the
 * controller gave), the fit (generation, time, model fingerprint, samples, series) and per
 * pool eta and the feedback window (events, weights, version counters), then the record's
 * own fingerprint. A deterministic replay reproduces it byte for byte. */
struct json *roll_predictor_state_json(const struct roll_predictor *p, struct arena *a)
{
	struct inner *g = p->impl;
	struct json *o = json_object(a);
	json_set(a, o, "type", json_str(a, "predictor_state"));
	json_set(a, o, "controller_id", json_str(a, p->controller_id));
	json_set(a, o, "family", json_str(a, p->family));
	char fp[FP_HEX_XXH3];
	struct json *pools = json_array(a), *model = json_object(a);
	json_set(a, o, "decision_count", json_int(a, g->rec.count));
	json_set(a, o, "decision_records_bytes", json_int(a, g->rec.bytes));
	if (g->rec.what)
		fp_xxh3_hex(&g->rec.hash, fp);
	else
		fp_xxh3_of("", 0, fp);   /* not started: no records */
	g->cfg.family->learned_state(&g->c, a, model, pools);
	json_set(a, o, "decision_records_fingerprint", json_str(a, fp));
	json_set(a, o, "model", model);
	json_set(a, o, "pools", pools);
	ev_self_fp_stamp(a, o, "predictor_state_fingerprint");
	return o;
}
