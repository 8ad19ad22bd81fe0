/* The rolling section (roll): the active action over time, quota and HP demand, one row per decision. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct json *jpath(const struct json *o, const char *a, const char *b)
{
	const struct json *x = json_get(o, a);
	return b ? json_get(x, b) : x;
}

/* The action ids the rolling arms ever name (candidates and selections), first-seen order. */
static size_t rolling_actions(const struct rp_model *m, const char **ids, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nresults; i++)
		for (size_t d = 0; d < m->results[i].ndecisions; d++) {
			const struct json *dec = m->results[i].decisions[d], *c = jpath(dec, "candidate_selection", "candidate_action_ids");
			for (size_t k = 0; c && c->kind == JSON_ARRAY && k < c->u.arr.n; k++)
				if (c->u.arr.items[k]->kind == JSON_STRING)
					rp_add_id(ids, &n, cap, c->u.arr.items[k]->u.str.s);
			rp_add_id(ids, &n, cap, rp_str(dec, "selected_action_id"));
		}
	return n;
}

static size_t action_index(const char **ids, size_t n, const char *id)
{
	for (size_t i = 0; id && i < n; i++)
		if (!strcmp(ids[i], id))
			return i;
	return n;
}

static size_t nrolling(const struct rp_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nresults; i++)
		n += m->results[i].ndecisions > 0;
	return n;
}

static int rolling_charts(struct page *pg, char *err, size_t errlen)
{
	const struct rp_model *m = pg->m;
	if (!nrolling(m))
		return 0;
	const char *ids[64];
	size_t na = rolling_actions(m, ids, 64);
	struct rp_chart *act = rp_page_chart(pg, "rolling-actions", 960, 120 + 46 * (int)na);
	struct rp_chart *dem = rp_page_chart(pg, "rolling-demand", 960, 360);
	struct strbuf *s = &act->script, *t = &dem->script;
	sb_adds(s, "set xlabel 'hours since the trace origin'\nset ylabel 'active action'\n");
	sb_addf(s, "set yrange [-0.6:%zu.6]\nset ytics (", na ? na - 1 : 0);
	for (size_t i = 0; i < na; i++) {
		sb_addf(s, "%s", i ? ", " : "");
		rp_gp_str(s, ids[i]);
		sb_addf(s, " %zu", i);
	}
	sb_adds(s, ")\n");
	sb_adds(t, "set xlabel 'hours since the trace origin'\nset ylabel 'GPUs at the cutoff'\nset yrange [0:*]\n");
	double x0 = pg->has_window ? pg->eval_start : pg->t0, x1 = pg->has_window ? pg->eval_end : pg->t1;
	sb_addf(s, "set xrange [%.9g:%.9g]\n", x0 / 3600.0, x1 / 3600.0);
	sb_addf(t, "set xrange [%.9g:%.9g]\n", x0 / 3600.0, x1 / 3600.0);
	sb_adds(s, "plot ");
	sb_adds(t, "plot ");
	size_t arm = 0, lt = 0;
	for (size_t i = 0; i < m->nresults; i++) {
		const struct rp_result *r = &m->results[i];
		if (!r->ndecisions)
			continue;
		lt = arm % RP_NPALETTE + 1;
		/* one block per arm: time, action index (+ a small offset per arm), quota, HP demand, rejected flag */
		for (size_t d = 0; d <= r->ndecisions; d++) {
			const struct json *dec = r->decisions[d < r->ndecisions ? d : r->ndecisions - 1];
			double x = d < r->ndecisions ? rp_num(dec, "cutoff_time_seconds") : rp_num(dec, "execution_end_time_seconds");
			double y = (double)action_index(ids, na, rp_str(dec, "selected_action_id")) + 0.08 * (double)arm;
			const struct json *sum = json_get(dec, "cutoff_state_summary");
			double quota = rp_num(json_get(sum, "spot_quota_gpus_by_guarantee_hour"), "1");
			double hp = rp_num(json_get(sum, "runtime_pressure"), "running_hp_gpus") + rp_num(sum, "queued_hp_requested_gpus");
			const char *st = rp_str(json_get(dec, "decider_reply"), "status");
			bool rejected = st && !strcmp(st, "rejected");
			sb_addf(&act->data, "%.9g %.9g %s\n", x / 3600.0, y, rejected && d < r->ndecisions ? "1" : "NaN");
			if (d == r->ndecisions)
				continue;
			sb_addf(&dem->data, "%.9g", x / 3600.0);
			if (isnan(quota))
				sb_adds(&dem->data, " NaN");
			else
				sb_addf(&dem->data, " %.9g", quota);
			if (isnan(hp))
				sb_adds(&dem->data, " NaN\n");
			else
				sb_addf(&dem->data, " %.9g\n", hp);
		}
		sb_adds(&act->data, "\n\n");
		sb_adds(&dem->data, "\n\n");
		sb_addf(s, "%sdatafile index %zu using 1:2 with steps lt %zu lw 3 title ", arm ? ", " : "", arm, lt);
		rp_gp_str(s, r->action_id);
		sb_addf(s, ", datafile index %zu using 1:($3 == 1 ? $2 : NaN) with points lt %zu pt 6 ps 1.6 notitle", arm, lt);
		sb_addf(t, "%sdatafile index %zu using 1:2 with linespoints lt %zu dt 2 title ", arm ? ", " : "", arm, lt);
		rp_gp_str(t, r->action_id);
		sb_adds(t, "." " ' Spot quota (1 h)'");
		sb_addf(t, ", datafile index %zu using 1:3 with linespoints lt %zu title ", arm, lt);
		rp_gp_str(t, r->action_id);
		sb_adds(t, "." " ' HP demand (running + queued)'");
		arm++;
	}
	sb_addc(s, '\n');
	sb_addc(t, '\n');
	return 0;
}

static void rolling_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	if (!nrolling(m))
		return;
	sb_adds(sb, "<section id=\"rolling\">\n<h2>Rolling control</h2>\n");
	sb_adds(sb, "<p class=\"note\">Each decision saw only the past: the candidates were simulated in past-only scenarios from the live state at the cutoff, one action was frozen, and only then did the simulator advance. "
		    "Open circles mark decisions whose reply was rejected (the safety action applied).</p>\n");
	rp_page_figure(sb, pg, "rolling-actions", "Active action over the evaluation window, per rolling arm.");
	rp_page_figure(sb, pg, "rolling-demand", "Spot quota of the shortest horizon and HP demand (running + queued GPUs) at each cutoff.");
	for (size_t i = 0; i < m->nresults; i++) {
		const struct rp_result *r = &m->results[i];
		if (!r->ndecisions)
			continue;
		const struct json *rep = r->rolling_report;
		sb_adds(sb, "<h3>");
		rp_html_esc(sb, r->action_id);
		const struct json *nd = rep ? json_get(rep, "non_deployable") : NULL;
		if (nd && nd->kind == JSON_TRUE)
			sb_adds(sb, " <span class=\"fail\">non-deployable (sees the future)</span>");
		sb_adds(sb, "</h3>\n");
		if (rep)
			sb_addf(sb, "<p class=\"note\">%.0f decisions of %.0f expected, %.0f scenario simulations, %.0f rejected replies, %.0f minimum-hold overrides.</p>\n",
				rp_num(rep, "decision_count"), rp_num(rep, "expected_decision_count"), rp_num(rep, "candidate_simulation_count"),
				rp_num(rep, "rejected_reply_count"), rp_num(rep, "minimum_hold_override_count"));
		sb_adds(sb, "<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th class=\"num\">hour</th><th>candidates</th><th>hierarchy</th>"
			    "<th>recommended</th><th>reply</th><th>reason code</th><th>frozen action</th></tr></thead>\n<tbody>\n");
		for (size_t d = 0; d < r->ndecisions; d++) {
			const struct json *dec = r->decisions[d], *reply = json_get(dec, "decider_reply");
			const struct json *c = jpath(dec, "candidate_selection", "candidate_action_ids");
			sb_addf(sb, "<tr><td class=\"num\">%.2f</td><td>", rp_num(dec, "cutoff_time_seconds") / 3600.0);
			for (size_t k = 0; c && c->kind == JSON_ARRAY && k < c->u.arr.n; k++) {
				if (k)
					sb_adds(sb, "<br>");
				rp_html_esc(sb, c->u.arr.items[k]->kind == JSON_STRING ? c->u.arr.items[k]->u.str.s : "?");
			}
			sb_adds(sb, "</td><td>");
			rp_html_esc(sb, rp_str(json_get(dec, "ranking"), "selection_status"));
			const struct json *hold = json_get(dec, "minimum_hold_override");
			if (hold && hold->kind == JSON_OBJECT)
				sb_adds(sb, "<br>minimum hold kept the active action");
			sb_adds(sb, "</td><td>");
			rp_html_esc(sb, rp_str(dec, "recommended_action_id"));
			const char *st = rp_str(reply, "status");
			bool rejected = st && !strcmp(st, "rejected");
			sb_addf(sb, "</td><td class=\"%s\">", rejected ? "fail" : "pass");
			rp_html_esc(sb, st);
			if (rejected) {
				sb_adds(sb, ": ");
				rp_html_esc(sb, rp_str(reply, "rejection_reason"));
			}
			sb_adds(sb, "</td><td>");
			rp_html_esc(sb, rp_str(reply, "reason_code") ? rp_str(reply, "reason_code") : "");
			sb_adds(sb, "</td><td><strong>");
			rp_html_esc(sb, rp_str(dec, "selected_action_id"));
			sb_adds(sb, "</strong></td></tr>\n");
		}
		sb_adds(sb, "</tbody></table></div>\n");
	}
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_rolling = { rolling_charts, rolling_section };
