/* The study section: per window the arms' verdicts and uplift, the calibration selection, the aggregate. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The study pipeline's records: `window_result` (one per window: each arm's hard-SLO
 * verdict and headline metrics, the window's ranking), `selection` (calibration choice:
 * per arm the windows it failed), `aggregate_action` / `aggregate_summary` (aggregate(1)). */
static bool is_type(const struct json *r, const char *type)
{
	const char *t = rp_str(r, "type");
	return t && !strcmp(t, type);
}

static bool is_window_record(const struct json *r)
{
	const struct json *p = json_get(r, "policies");
	return is_type(r, "window_result") && rp_str(r, "window_id") && p && p->kind == JSON_ARRAY;
}

static const struct json *window_policy(const struct json *w, const char *action)
{
	const struct json *p = json_get(w, "policies");
	for (size_t i = 0; i < p->u.arr.n; i++)
		if (rp_str(p->u.arr.items[i], "action_id") && !strcmp(rp_str(p->u.arr.items[i], "action_id"), action))
			return p->u.arr.items[i];
	return NULL;
}

static const struct json *study_record(const struct rp_model *m, const char *type)
{
	const struct json *hit = NULL;
	for (size_t i = 0; i < m->nstudy; i++)
		if (is_type(m->study[i].rec, type))
			hit = m->study[i].rec;
	return hit;
}

/* Arms in the order of first appearance (window records, else the selection's candidates). */
static size_t study_arms(const struct rp_model *m, const char **arms, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nstudy; i++) {
		const struct json *r = m->study[i].rec;
		const struct json *p = is_window_record(r) ? json_get(r, "policies") : is_type(r, "selection") ? json_get(r, "candidates") : NULL;
		for (size_t k = 0; p && p->kind == JSON_ARRAY && k < p->u.arr.n; k++)
			if (rp_str(p->u.arr.items[k], "action_id"))
				rp_add_id(arms, &n, cap, rp_str(p->u.arr.items[k], "action_id"));
	}
	return n;
}

const char *rp_study_baseline(const struct rp_model *m)
{
	for (size_t i = 0; i < m->nstudy; i++) {
		const char *b = rp_str(m->study[i].rec, "baseline_action_id");
		if (b)
			return b;
	}
	return NULL;
}

static size_t nwindow_records(const struct rp_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nstudy; i++)
		n += is_window_record(m->study[i].rec);
	return n;
}

static int uplift_chart(struct page *pg, char *err, size_t errlen)
{
	const struct rp_model *m = pg->m;
	const char *arms[64];
	size_t narms = study_arms(m, arms, 64);
	const char *base = rp_study_baseline(m);
	if (!base || narms < 2)
		return 0;
	if (nwindow_records(m)) {
		/* Per window: each arm's allocation minus the baseline's, as clustered bars. */
		struct rp_chart *ch = rp_page_chart(pg, "uplift", 960, 360);
		size_t row = 0;
		rp_gp_datastr(&ch->data, "row");
		sb_addc(&ch->data, ' ');
		rp_gp_datastr(&ch->data, "window");
		for (size_t a = 0; a < narms; a++)
			if (strcmp(arms[a], base)) {
				sb_addc(&ch->data, ' ');
				rp_gp_datastr(&ch->data, arms[a]);
			}
		sb_addc(&ch->data, '\n');
		for (size_t i = 0; i < m->nstudy; i++) {
			const struct json *w = m->study[i].rec;
			if (!is_window_record(w))
				continue;
			double b = rp_num(window_policy(w, base), "allocation_rate_mean");
			sb_addf(&ch->data, "%zu ", row++);
			rp_gp_datastr(&ch->data, rp_str(w, "window_id"));
			for (size_t a = 0; a < narms; a++) {
				if (!strcmp(arms[a], base))
					continue;
				const struct json *p = window_policy(w, arms[a]);
				double v = p ? rp_num(p, "allocation_rate_mean") : NAN;
				if (isnan(v) || isnan(b))
					sb_adds(&ch->data, " NaN");
				else
					sb_addf(&ch->data, " %.9g", (v - b) * 100.0);
			}
			sb_addc(&ch->data, '\n');
		}
		struct strbuf *s = &ch->script;
		sb_addf(s, "set ylabel 'allocation minus the baseline (pp)'\nset xlabel 'evaluation window'\n"
			   "set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.85 noborder\n"
			   "set xrange [-0.6:%zu.6]\nset xtics rotate by -30 left font ',10'\nset xzeroaxis lt -1 lw 1\nplot ", row ? row - 1 : 0);
		size_t col = 3;
		for (size_t a = 0; a < narms; a++) {
			if (!strcmp(arms[a], base))
				continue;
			sb_addf(s, "%sdatafile using %zu%s lt %zu title columnheader(%zu)", col > 3 ? ", " : "", col, col == 3 ? ":xtic(2)" : "",
				a + 1, col);
			col++;
		}
		sb_addc(s, '\n');
		return 0;
	}
	/* Only aggregate records: per arm the mean uplift with its min..max range. */
	struct rp_chart *ch = NULL;
	size_t row = 0;
	for (size_t i = 0; i < m->nstudy; i++) {
		const struct json *r = m->study[i].rec;
		const char *id = rp_str(r, "action_id");
		const struct json *st = json_get(json_get(r, "allocation_minus_fifo"), "stats");
		if (!is_type(r, "aggregate_action") || !id || !strcmp(id, base) || !st)
			continue;
		double mean = rp_num(st, "mean"), lo = rp_num(st, "min"), hi = rp_num(st, "max");
		if (isnan(mean) || isnan(lo) || isnan(hi))
			continue;
		if (!ch)
			ch = rp_page_chart(pg, "uplift", 960, 340);
		sb_addf(&ch->data, "%zu %.9g %.9g %.9g ", row++, mean * 100.0, lo * 100.0, hi * 100.0);
		rp_gp_datastr(&ch->data, id);
		sb_addc(&ch->data, '\n');
	}
	if (ch)
		sb_addf(&ch->script, "unset key\nset ylabel 'allocation minus the baseline (pp)'\nset xrange [-0.6:%zu.6]\nset boxwidth 0.55\n"
				     "set style fill solid 0.85 noborder\nset xzeroaxis lt -1 lw 1\nset xtics font ',10'\n"
				     "plot datafile using 1:2:xtic(5) with boxes lc rgb '#4a78b0', '' using 1:2:3:4 with yerrorbars lc rgb '#333333' pt -1\n",
			row ? row - 1 : 0);
	return 0;
}

static const char *pass_mark(const char *cls)
{
	return !strcmp(cls, "pass") ? "&#10003;" : !strcmp(cls, "fail") ? "&#10007;" : "&ndash;";
}

static void grid_from_windows(struct strbuf *sb, const struct rp_model *m, const char **arms, size_t narms)
{
	sb_adds(sb, "<p class=\"note\">Each cell: all hard SLOs passed (&#10003;) or not (&#10007;) in that window, with the "
		    "arm&rsquo;s mean allocation; &#9733; marks the window ranking&rsquo;s survivors.</p>\n"
		    "<div class=\"scroll\"><table class=\"grid\">\n<thead><tr><th>window</th><th>partition</th>");
	for (size_t a = 0; a < narms; a++) {
		sb_adds(sb, "<th>");
		rp_html_esc(sb, arms[a]);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "<th>ranking</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->nstudy; i++) {
		const struct json *w = m->study[i].rec;
		if (!is_window_record(w))
			continue;
		const struct json *rk = json_get(w, "ranking");
		const struct json *sel = rp_ranking_selected(rk);
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, rp_str(w, "window_id"));
		sb_adds(sb, "</th><td>");
		rp_html_esc(sb, rp_str(w, "partition"));
		sb_adds(sb, "</td>");
		for (size_t a = 0; a < narms; a++) {
			const struct json *p = window_policy(w, arms[a]);
			const struct json *ok = p ? json_get(p, "hard_slo_passed") : NULL;
			const char *cls = !ok || ok->kind == JSON_NULL ? "na" : ok->kind == JSON_TRUE ? "pass" : "fail";
			sb_addf(sb, "<td class=\"%s\">%s ", cls, pass_mark(cls));
			if (p)
				rp_html_metric(sb, "allocation_rate_mean", rp_num(p, "allocation_rate_mean"));
			if (rp_json_has_str(sel, arms[a]))
				sb_adds(sb, " &#9733;");
			sb_adds(sb, "</td>");
		}
		sb_adds(sb, "<td>");
		rp_html_esc(sb, rk ? rp_ranking_status(rk) : "");
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n");
}

static void grid_from_selection(struct strbuf *sb, const struct json *sel)
{
	const struct json *wids = json_get(sel, "window_ids"), *cands = json_get(sel, "candidates");
	if (!wids || wids->kind != JSON_ARRAY || !cands || cands->kind != JSON_ARRAY)
		return;
	sb_adds(sb, "<p class=\"note\">From the calibration selection: all hard SLOs passed (&#10003;) or not (&#10007;) per window.</p>\n"
		    "<div class=\"scroll\"><table class=\"grid\">\n<thead><tr><th>window</th>");
	for (size_t a = 0; a < cands->u.arr.n; a++) {
		sb_adds(sb, "<th>");
		rp_html_esc(sb, rp_str(cands->u.arr.items[a], "action_id"));
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr></thead>\n<tbody>\n");
	for (size_t w = 0; w < wids->u.arr.n; w++) {
		const struct json *wid = wids->u.arr.items[w];
		if (wid->kind != JSON_STRING)
			continue;
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, wid->u.str.s);
		sb_adds(sb, "</th>");
		for (size_t a = 0; a < cands->u.arr.n; a++) {
			bool failed = rp_json_has_str(json_get(cands->u.arr.items[a], "hard_slo_failed_window_ids"), wid->u.str.s);
			sb_addf(sb, "<td class=\"%s\">%s</td>", failed ? "fail" : "pass", pass_mark(failed ? "fail" : "pass"));
		}
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n");
}

/* Per arm, each SLO constraint it failed and in how many of its windows (the window records'
 * failed_constraint_ids, hard and soft): why an arm is out, without opening the audits. */
static void failures_table(struct strbuf *sb, const struct rp_model *m, const char **arms, size_t narms)
{
	bool any = false;
	for (size_t a = 0; a < narms; a++) {
		const char *ids[64];
		size_t nids = 0, count[64] = { 0 }, windows = 0;
		for (size_t i = 0; i < m->nstudy; i++) {
			const struct json *w = m->study[i].rec;
			const struct json *p = is_window_record(w) ? window_policy(w, arms[a]) : NULL;
			const struct json *f = p ? json_get(p, "failed_constraint_ids") : NULL;
			windows += p != NULL;
			for (size_t k = 0; f && f->kind == JSON_ARRAY && k < f->u.arr.n; k++) {
				if (f->u.arr.items[k]->kind != JSON_STRING)
					continue;
				/* kept sorted by id, as summary.txt lists them */
				const char *id = f->u.arr.items[k]->u.str.s;
				size_t j = 0;
				while (j < nids && strcmp(ids[j], id) < 0)
					j++;
				if ((j == nids || strcmp(ids[j], id)) && nids < 64) {
					memmove(&ids[j + 1], &ids[j], (nids - j) * sizeof *ids);
					memmove(&count[j + 1], &count[j], (nids - j) * sizeof *count);
					ids[j] = id;
					count[j] = 0;
					nids++;
				}
				if (j < nids && !strcmp(ids[j], id))
					count[j]++;
			}
		}
		if (!nids)
			continue;
		if (!any)
			sb_adds(sb, "<h3>SLO constraints not met</h3>\n<p class=\"note\">Per arm, each constraint it failed (hard or soft) "
				    "and in how many of its windows.</p>\n<div class=\"scroll\"><table class=\"summary\">\n"
				    "<thead><tr><th>arm</th><th>constraints failed (windows)</th></tr></thead>\n<tbody>\n");
		any = true;
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, arms[a]);
		sb_adds(sb, "</th><td>");
		for (size_t j = 0; j < nids; j++) {
			sb_adds(sb, j ? ", <code>" : "<code>");
			rp_html_esc(sb, ids[j]);
			sb_addf(sb, "</code> %zu/%zu", count[j], windows);
		}
		sb_adds(sb, "</td></tr>\n");
	}
	if (any)
		sb_adds(sb, "</tbody></table></div>\n");
}

static void aggregate_table(struct strbuf *sb, const struct rp_model *m)
{
	bool any = false;
	for (size_t i = 0; i < m->nstudy; i++) {
		const struct json *r = m->study[i].rec;
		if (!is_type(r, "aggregate_action"))
			continue;
		if (!any)
			sb_adds(sb, "<h3>Across windows</h3>\n<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th>arm</th>"
				    "<th class=\"num\">windows</th><th class=\"num\">hard pass</th><th class=\"num\">mean allocation</th>"
				    "<th class=\"num\">mean minus FIFO</th><th class=\"num\">better / same / worse</th></tr></thead>\n<tbody>\n");
		any = true;
		const struct json *d = json_get(r, "allocation_minus_fifo");
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, rp_str(r, "action_id"));
		sb_addf(sb, "</th><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">", rp_num(r, "window_count"),
			rp_num(r, "hard_pass_window_count"));
		rp_html_metric(sb, "allocation_rate_mean", rp_num(json_get(json_get(r, "allocation_rate_mean"), "stats"), "mean"));
		sb_adds(sb, "</td><td class=\"num\">");
		double up = rp_num(json_get(d, "stats"), "mean");
		if (isnan(up))
			sb_adds(sb, "n/a");
		else
			sb_addf(sb, "%+.2f pp", up * 100.0);
		sb_addf(sb, "</td><td class=\"num\">%.0f / %.0f / %.0f</td></tr>\n", rp_num(d, "positive_count"), rp_num(d, "zero_count"),
			rp_num(d, "negative_count"));
	}
	if (any)
		sb_adds(sb, "</tbody></table></div>\n");
}

static void study_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	if (!m->nstudy)
		return;
	const char *arms[64];
	size_t narms = study_arms(m, arms, 64);
	const struct json *sel = study_record(m, "selection");
	sb_adds(sb, "<section id=\"study\">\n<h2>Study: windows &times; arms</h2>\n");
	if (nwindow_records(m))
		grid_from_windows(sb, m, arms, narms);
	else if (sel)
		grid_from_selection(sb, sel);
	struct strbuf cap;
	sb_init(&cap);
	sb_addf(&cap, nwindow_records(m) ? "Allocation uplift over the baseline %s per window and arm (percentage points of capacity)."
					 : "Mean allocation uplift over the baseline %s per arm, with the range over windows (percentage points).",
		rp_study_baseline(m) ? rp_study_baseline(m) : "");
	rp_page_figure(sb, pg, "uplift", cap.buf);   /* escaped there, as every caption */
	sb_release(&cap);
	failures_table(sb, m, arms, narms);
	aggregate_table(sb, m);
	if (sel) {
		const struct json *ids = rp_ranking_selected(sel);
		sb_adds(sb, "<h3>Calibration selection</h3>\n<p>Status <code>");
		rp_html_esc(sb, rp_ranking_status(sel));
		sb_adds(sb, "</code>");
		for (size_t k = 0; ids && k < ids->u.arr.n; k++)
			if (ids->u.arr.items[k]->kind == JSON_STRING) {
				sb_adds(sb, k ? ", " : " &mdash; ");
				sb_adds(sb, "<strong>");
				rp_html_esc(sb, ids->u.arr.items[k]->u.str.s);
				sb_adds(sb, "</strong>");
			}
		sb_adds(sb, "</p>\n");
		rp_stage_table(sb, json_get(sel, "stages"));
	}
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_study = { uplift_chart, study_section };
