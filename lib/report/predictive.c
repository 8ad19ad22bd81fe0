/* The predictive controller in the report: the decisions of a controlled result stream
 * (any family: each reads its own records, predict.h "pc_decision_reader"), their chart (actual HP demand against mu and the P90 band, the quota,
 * eta, admitted and held Spot), and the forecast quality table of the metrics records. */
#include "report/report.h"
#include "report/format.h"
#include "predict/predict.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rp_control_add(struct rp_model *m, struct rp_result *res, const struct json *rec, char *err, size_t errlen)
{
	struct rp_control *c = &res->control;
	const struct json *retained = json_get(rec, "retained");
	double now = pc_decision_num(rec, "cutoff_time_seconds");
	if (!isfinite(now)) {
		snprintf(err, errlen, "'control_decision' record: 'cutoff_time_seconds' is missing or not a number");
		return -1;
	}
	/* the family whose record shape this is (predict.h: each family's decision reader) */
	const struct pc_decision_reader *d = pc_decision_reader_of(rec, err, errlen);
	if (!d)
		return -1;
	if (retained && retained->kind == JSON_FALSE)
		return 0;   /* outside the evidence window */
	if (!c->ndecisions) {
		/* the pools of the first decision */
		const char *names[RP_CONTROL_MAX_POOLS];
		c->reader = d;
		c->npools = d->pools(rec, names, RP_CONTROL_MAX_POOLS);
		for (size_t p = 0; p < c->npools; p++)
			c->pools[p] = arena_strndup(&m->a, names[p], strlen(names[p]));
	}
	if (c->reader != d) {
		snprintf(err, errlen, "'control_decision' record: decisions of two controller families in one result stream");
		return -1;
	}
	for (size_t p = 0; p < c->npools; p++) {
		struct pc_decision_point y;
		if (d->point(rec, c->pools[p], &y, err, errlen))
			return -1;
		c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
		c->v[c->n++] = (struct rp_control_point){ .t = now, .hp = y.hp, .target = y.target, .mu = y.mu, .q = y.q,
							  .quota = y.quota, .eta = y.eta, .admitted = y.admitted, .held = y.held };
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
	static const char *const head[] = { "hours", "actual HP demand", "target hours", "mu (1 h ahead)",
		"P90 guarantee quantile", "Spot quota (shortest horizon)", "eta", "Spot runs started", "Spot jobs held by the quota" };
	for (size_t k = 0; k < sizeof head / sizeof *head; k++) {
		if (k)
			sb_addc(&ch->data, ' ');
		datastr(&ch->data, k == 1 ? c->reader->hp_title : head[k]);
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
	/* a family without gate counts of its own: three panels, not four */
	sb_addf(s, "set datafile missing 'NaN'\nset multiplot layout %d,1 margins 0.08,0.97,0.07,0.98 spacing 0,0.045\n"
		   "set xrange [%.9g:%.9g]\nset format x ''\nset key inside top left horizontal\nset offsets 0,0,graph 0.35,0\n"
		   "set ylabel 'GPUs'\nset yrange [0:*]\n"
		   "plot datafile using 3:4:5 with filledcurves lc rgb '#9ecae1' fs transparent solid 0.45 title columnheader(5), "
		   "'' using 3:4 with lines lt 1 lw 1.6 title columnheader(4), "
		   "'' using 1:2 with steps lc rgb '#222222' lw 1.4 title columnheader(2)\n"
		   "set ylabel 'GPUs'\nplot datafile using 1:6 with steps lt 3 lw 1.8 title columnheader(6)\n",
		c->reader->gate_counts ? 4 : 3, t0, t1 > t0 ? t1 : t0 + 1);
	if (!c->reader->gate_counts)
		sb_adds(s, "set format x '%g'\nset xlabel 'hours since the trace origin'\n");
	sb_adds(s, "set ylabel 'eta'\nset yrange [0:1.35]\nplot datafile using 1:7 with steps lt 2 lw 1.8 title columnheader(7)\n");
	if (c->reader->gate_counts)
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
		double n = pc_decision_num(f, "scored_point_count");
		if (!isfinite(n))
			n = pc_decision_num(f, "evaluated_point_count");
		sb_adds(sb, "<tr><td>");
		esc(sb, rp_str(r, "action_id"));
		sb_addf(sb, "</td><td class=\"num\">%.6g&ndash;%.6g</td><td>", rp_num(r, "evaluation_start") / 3600.0,
			rp_num(r, "evaluation_end") / 3600.0);
		esc(sb, rp_str(pc, "controller_id"));
		sb_adds(sb, "</td><td>");
		esc(sb, est ? est : "seasonal-gaussian-v1");
		sb_adds(sb, "</td>");
		cell(sb, n, 0);
		cell(sb, pc_decision_num(f, "mae_gpus"), 3);
		cell(sb, pc_decision_num(f, "wape"), 4);
		cell(sb, pc_decision_num(f, "mean_error_gpus"), 3);
		cell(sb, pc_decision_num(f, "guarantee_quantile_coverage"), 4);
		cell(sb, pc_decision_num(f, "pinball_loss"), 3);
		sb_adds(sb, "</tr>\n");
	}
	if (rows)
		sb_adds(sb, "</tbody></table>\n");
	return rows;
}
