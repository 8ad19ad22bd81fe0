/* The predictive controller in the report: the decisions of a controlled result stream
 * (either family), their chart (actual HP demand against mu and the P90 band, the quota,
 * eta, admitted and held Spot), and the forecast quality table of the metrics records. */
#include "report/report.h"
#include "report/format.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num_or_nan(const struct json *o, const char *key)
{
	const struct json *v = o ? json_get(o, key) : NULL;
	return v && json_is_num(v) && isfinite(json_num(v)) ? json_num(v) : NAN;
}

/* The first quota of a spot_quota_gpus_by_guarantee_hour object (the shortest horizon). */
static double first_quota(const struct json *q)
{
	return q && q->kind == JSON_OBJECT && q->u.obj.n ? num_or_nan(q, q->u.obj.keys[0]) : NAN;
}

/* The step-1 point of pool (NULL: the aggregate family's only pool). */
static const struct json *step1(const struct json *points, const char *pool)
{
	if (!points || points->kind != JSON_ARRAY)
		return NULL;
	for (size_t i = 0; i < points->u.arr.n; i++) {
		const struct json *pt = points->u.arr.items[i];
		const char *p = rp_str(pt, "resource_pool");
		if (num_or_nan(pt, "horizon_step") == 1 && (!pool || (p && !strcmp(p, pool))))
			return pt;
	}
	return NULL;
}

int rp_control_add(struct rp_model *m, struct rp_result *res, const struct json *rec, char *err, size_t errlen)
{
	struct rp_control *c = &res->control;
	const struct json *retained = json_get(rec, "retained"), *pools = json_get(rec, "resource_pools");
	double now = num_or_nan(rec, "cutoff_time_seconds");
	if (!isfinite(now)) {
		snprintf(err, errlen, "'control_decision' record: 'cutoff_time_seconds' is missing or not a number");
		return -1;
	}
	if (pools && pools->kind != JSON_OBJECT) {
		snprintf(err, errlen, "'control_decision' record: 'resource_pools' is not an object");
		return -1;
	}
	if (retained && retained->kind == JSON_FALSE)
		return 0;   /* outside the evidence window */
	if (!c->ndecisions) {
		/* the pools of the first decision (the aggregate family: one, the cluster) */
		c->per_pool = pools != NULL;
		c->npools = pools ? (pools->u.obj.n < RP_CONTROL_MAX_POOLS ? pools->u.obj.n : RP_CONTROL_MAX_POOLS) : 1;
		for (size_t p = 0; p < c->npools; p++)
			c->pools[p] = pools ? arena_strndup(&m->a, pools->u.obj.keys[p], strlen(pools->u.obj.keys[p])) : "cluster";
	}
	if (c->per_pool != (pools != NULL)) {
		snprintf(err, errlen, "'control_decision' record: decisions of two controller families in one result stream");
		return -1;
	}
	for (size_t p = 0; p < c->npools; p++) {
		struct rp_control_point x = { .t = now };
		const struct json *pt;
		if (c->per_pool) {
			const struct json *pool = json_get(pools, c->pools[p]);
			if (!pool || pool->kind != JSON_OBJECT) {
				snprintf(err, errlen, "'control_decision' record: resource pool '%s' missing", c->pools[p]);
				return -1;
			}
			const struct json *fb = json_get(pool, "feedback"), *gate = json_get(pool, "gate");
			x.hp = num_or_nan(pool, "hp_running_gpus");
			x.quota = first_quota(json_get(pool, "spot_quota_gpus_by_guarantee_hour"));
			x.eta = num_or_nan(fb, "eta_after");
			x.admitted = num_or_nan(gate, "admitted_spot_runs");
			x.held = num_or_nan(gate, "held_spot_jobs");
			pt = step1(json_get(rec, "points"), c->pools[p]);
		} else {
			x.hp = num_or_nan(rec, "hp_outstanding_requested_gpus");
			x.quota = first_quota(json_get(rec, "spot_quota_gpus_by_guarantee_hour"));
			x.eta = num_or_nan(rec, "eta");
			x.admitted = x.held = NAN;
			pt = step1(json_get(rec, "points"), NULL);
		}
		x.target = num_or_nan(pt, "target_time_seconds");
		x.mu = num_or_nan(pt, "mu_gpus");
		x.q = num_or_nan(pt, "guarantee_quantile_gpus");
		c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
		c->v[c->n++] = x;
	}
	c->ndecisions++;
	return 0;
}

void rp_control_release(struct rp_control *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}

static void num_col(struct strbuf *sb, double v, double scale)
{
	if (isfinite(v))
		sb_addf(sb, " %.10g", v * scale);
	else
		sb_adds(sb, " NaN");
}

void rp_control_chart(const struct rp_result *res, size_t pool, struct rp_chart *ch, void (*datastr)(struct strbuf *, const char *))
{
	const struct rp_control *c = &res->control;
	/* column titles come from the data file (title columnheader), never the script */
	static const char *const head[] = { "hours", "actual HP demand (running HP GPUs)", "target hours", "mu (1 h ahead)",
		"P90 guarantee quantile", "Spot quota (shortest horizon)", "eta", "Spot runs started", "Spot jobs held by the quota" };
	for (size_t k = 0; k < sizeof head / sizeof *head; k++) {
		if (k)
			sb_addc(&ch->data, ' ');
		datastr(&ch->data, k == 1 && !c->per_pool ? "actual HP demand (HP outstanding GPUs)" : head[k]);
	}
	sb_addc(&ch->data, '\n');
	for (size_t d = 0; d < c->ndecisions; d++) {
		const struct rp_control_point *x = &c->v[d * c->npools + pool];
		num_col(&ch->data, x->t, 1 / 3600.0);
		num_col(&ch->data, x->hp, 1);
		num_col(&ch->data, x->target, 1 / 3600.0);
		num_col(&ch->data, x->mu, 1);
		num_col(&ch->data, x->q, 1);
		num_col(&ch->data, x->quota, 1);
		num_col(&ch->data, x->eta, 1);
		num_col(&ch->data, x->admitted, 1);
		num_col(&ch->data, x->held, 1);
		sb_addc(&ch->data, '\n');
	}
	double t0 = c->ndecisions ? c->v[pool].t / 3600.0 : 0, t1 = c->ndecisions ? c->v[(c->ndecisions - 1) * c->npools + pool].t / 3600.0 + 1 : 1;
	struct strbuf *s = &ch->script;
	/* the aggregate family has no per-pool gate counts: three panels, not four */
	sb_addf(s, "set datafile missing 'NaN'\nset multiplot layout %d,1 margins 0.08,0.97,0.07,0.98 spacing 0,0.045\n"
		   "set xrange [%.9g:%.9g]\nset format x ''\nset key inside top left horizontal\nset offsets 0,0,graph 0.35,0\n"
		   "set ylabel 'GPUs'\nset yrange [0:*]\n"
		   "plot datafile using 3:4:5 with filledcurves lc rgb '#9ecae1' fs transparent solid 0.45 title columnheader(5), "
		   "'' using 3:4 with lines lt 1 lw 1.6 title columnheader(4), "
		   "'' using 1:2 with steps lc rgb '#222222' lw 1.4 title columnheader(2)\n"
		   "set ylabel 'GPUs'\nplot datafile using 1:6 with steps lt 3 lw 1.8 title columnheader(6)\n",
		c->per_pool ? 4 : 3, t0, t1 > t0 ? t1 : t0 + 1);
	if (!c->per_pool)
		sb_adds(s, "set format x '%g'\nset xlabel 'hours since the trace origin'\n");
	sb_adds(s, "set ylabel 'eta'\nset yrange [0:1.35]\nplot datafile using 1:7 with steps lt 2 lw 1.8 title columnheader(7)\n");
	if (c->per_pool)
		sb_adds(s, "set ylabel 'Spot jobs'\nset yrange [0:*]\nset format x '%g'\nset xlabel 'hours since the trace origin'\n"
			   "plot datafile using 1:8 with impulses lt 3 lw 2 title columnheader(8), '' using 1:9 with impulses lt 2 lw 2 title columnheader(9)\n");
	sb_adds(s, "unset multiplot\n");
}

/* ---- the forecast quality table ---- */

static void cell(struct strbuf *sb, double v, int digits)
{
	if (isfinite(v))
		sb_addf(sb, "<td class=\"num\">%.*f</td>", digits, v);
	else
		sb_adds(sb, "<td class=\"num\">n/a</td>");
}

size_t rp_control_quality_table(struct strbuf *sb, const struct rp_model *m, void (*esc)(struct strbuf *, const char *))
{
	size_t rows = 0;
	for (size_t i = 0; i < m->nmetrics; i++) {
		const struct json *r = m->metrics[i].rec, *pc = json_get(r, "predictive_control");
		const struct json *f = pc ? json_get(pc, "forecast_evaluation") : NULL;
		if (!f || f->kind != JSON_OBJECT)
			continue;
		if (!rows++)
			sb_adds(sb, "<table class=\"grid\"><thead><tr><th>policy</th><th>window (h)</th><th>controller</th><th>estimator</th>"
				    "<th>scored points</th><th>MAE (GPUs)</th><th>WAPE</th><th>mean error (GPUs)</th><th>P90 coverage</th>"
				    "<th>pinball</th></tr></thead><tbody>\n");
		const char *est = rp_str(pc, "estimator");
		double n = num_or_nan(f, "scored_point_count");
		if (!isfinite(n))
			n = num_or_nan(f, "evaluated_point_count");
		sb_adds(sb, "<tr><td>");
		esc(sb, rp_str(r, "action_id"));
		sb_addf(sb, "</td><td class=\"num\">%.6g&ndash;%.6g</td><td>", rp_num(r, "evaluation_start") / 3600.0,
			rp_num(r, "evaluation_end") / 3600.0);
		esc(sb, rp_str(pc, "controller_id"));
		sb_adds(sb, "</td><td>");
		esc(sb, est ? est : "seasonal-gaussian-v1");
		sb_adds(sb, "</td>");
		cell(sb, n, 0);
		cell(sb, num_or_nan(f, "mae_gpus"), 3);
		cell(sb, num_or_nan(f, "wape"), 4);
		cell(sb, num_or_nan(f, "mean_error_gpus"), 3);
		cell(sb, num_or_nan(f, "guarantee_quantile_coverage"), 4);
		cell(sb, num_or_nan(f, "pinball_loss"), 3);
		sb_adds(sb, "</tr>\n");
	}
	if (rows)
		sb_adds(sb, "</tbody></table>\n");
	return rows;
}
