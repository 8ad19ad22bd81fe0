/* The HTML page: one self-contained file, charts inline as SVG, no external resources. */
#include "report/report.h"
#include "report/format.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static void esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		case '\'': sb_adds(sb, "&#39;"); break;
		default: sb_addc(sb, *s);
		}
	}
}

/*
 * Data never enters gnuplot's command language: every label that comes from the input
 * (policy and arm ids, window ids, stage names, the baseline's name) is a double-quoted
 * string in a chart's data file, read back with xtic(N) or title columnheader(N). The
 * scripts hold only constants and numbers we format. In a data file gnuplot reads '\\'
 * as one backslash; a '"' would end the string and is written as '\''; a control
 * character (which the identifier rule already refuses) would end the line and becomes '?'.
 */
/* The one place a value reaches a gnuplot command (the rolling timeline's ytics labels):
 * a complete single-quoted string, where gnuplot gives no character a meaning but the
 * quote, written twice; a control character (the identifier rule refuses them) becomes
 * '?', so nothing can end the command. */
static void gp_str(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '\'');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			sb_addc(sb, '\'');
		sb_addc(sb, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	sb_addc(sb, '\'');
}

static void gp_datastr(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\')
			sb_adds(sb, "\\\\");
		else
			sb_addc(sb, c == '"' ? '\'' : c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
	sb_addc(sb, '"');
}

static void metric_html(struct strbuf *sb, const char *metric, double v)
{
	struct strbuf t;
	sb_init(&t);
	rp_fmt_metric(&t, metric, v);
	esc(sb, t.buf);
	sb_release(&t);
}

static const char *op_html(const char *op)
{
	if (!op)
		return "?";
	if (!strcmp(op, "<="))
		return "&le;";
	if (!strcmp(op, ">="))
		return "&ge;";
	if (!strcmp(op, "<"))
		return "&lt;";
	if (!strcmp(op, ">"))
		return "&gt;";
	return "?";
}

/* Colours shared by every chart so a policy keeps its colour across the page. */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
enum { NPALETTE = sizeof palette / sizeof *palette };

static void chart_preamble(struct strbuf *s)
{
	sb_adds(s, "set border 3 lc rgb '#555555'\nset tics nomirror out scale 0.6\n"
		   "set grid ytics lc rgb '#e3e3e3' lw 1 dt 1\n"
		   "set key below left horizontal Left reverse samplen 2.5 spacing 1.2 width 2\n");
	for (size_t i = 0; i < NPALETTE; i++)
		sb_addf(s, "set linetype %zu lc rgb '%s' lw 2 pt 7 ps 0.6\n", i + 1, palette[i]);
	sb_addf(s, "set linetype cycle %d\n", NPALETTE);
}

struct page {
	const struct rp_model *m;
	const struct rp_html_opts *o;
	struct rp_chart *charts;
	size_t ncharts, cap_charts;
	double t0, t1, eval_start, eval_end;   /* common time axis (seconds) */
	bool has_window;
	/* what the time charts show: [t0, t1], or for a rolling result whose window is a
	 * sliver of its history, the window with a margin (zoomed; a context chart shows all) */
	double z0, z1;
	bool zoomed;
	struct strbuf alloc_note, preempt_note;   /* what the captions add (identical policies, ...) */
	const char *diff_baseline;               /* the difference view's baseline, or NULL */
};

static struct rp_chart *new_chart(struct page *pg, const char *id, int w, int h)
{
	pg->charts = xgrow(pg->charts, &pg->cap_charts, pg->ncharts + 1, sizeof *pg->charts);
	struct rp_chart *c = &pg->charts[pg->ncharts++];
	memset(c, 0, sizeof *c);
	c->id = id;
	c->width = w;
	c->height = h;
	sb_init(&c->data);
	sb_init(&c->script);
	chart_preamble(&c->script);
	return c;
}

static const struct rp_chart *find_chart(const struct page *pg, const char *id)
{
	for (size_t i = 0; i < pg->ncharts; i++)
		if (!strcmp(pg->charts[i].id, id))
			return &pg->charts[i];
	return NULL;
}

static void figure(struct strbuf *sb, const struct page *pg, const char *id, const char *caption)
{
	const struct rp_chart *c = find_chart(pg, id);
	if (!c || !c->svg)
		return;
	sb_addf(sb, "<figure class=\"chart-figure\" id=\"fig-%s\">\n", id);
	sb_adds(sb, c->svg);
	sb_adds(sb, "\n<figcaption>");
	esc(sb, caption);
	sb_adds(sb, "</figcaption>\n</figure>\n");
}

/* ---- time-series charts ---- */

static size_t nresults_charted(const struct rp_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->npolicies; i++)
		n += m->policies[i].result != NULL;
	return n;
}

static void window_object(struct strbuf *s, const struct page *pg)
{
	if (!pg->has_window)
		return;
	sb_addf(s, "set object 1 rect from %.9g, graph 0 to %.9g, graph 1 behind fillcolor rgb '#eaf1fb' fillstyle solid 1.0 noborder\n",
		pg->eval_start / 3600.0, pg->eval_end / 3600.0);
	sb_addf(s, "set tmargin 2.2\nset label 1 'evaluation window' at %.9g, graph 1 center offset 0,0.7 textcolor rgb '#4a6488' font ',10'\n",
		(pg->eval_start + pg->eval_end) / 7200.0);
}

static const char *study_baseline(const struct rp_model *m);

/* The policy the difference view subtracts: the one the audits were made against (their
 * baseline's policy fingerprint), else the study's baseline, else native-fifo, else the first. */
static size_t baseline_index(const struct rp_model *m, const struct rp_policy *const *pol, size_t n)
{
	for (size_t i = 0; i < m->naudits; i++) {
		const char *fp = rp_str(json_get(m->audits[i].rec, "baseline"), "policy_fingerprint");
		for (size_t k = 0; fp && k < n; k++)
			if (pol[k]->result->policy_fingerprint && !strcmp(pol[k]->result->policy_fingerprint, fp))
				return k;
	}
	const char *want[] = { study_baseline(m), "native-fifo" };
	for (size_t w = 0; w < 2; w++)
		for (size_t k = 0; want[w] && k < n; k++)
			if (!strcmp(pol[k]->action_id, want[w]))
				return k;
	return 0;
}

static bool same_series(const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* One time-series chart: the x column, then one column per series (label[p] as header). */
static struct rp_chart *series_chart(struct page *pg, const char *id, int height, double x0, double x1, size_t nb, size_t n,
				     const char *const *label, const double *const *v)
{
	struct rp_chart *ch = new_chart(pg, id, 960, height);
	gp_datastr(&ch->data, "hours");
	for (size_t p = 0; p < n; p++) {
		sb_addc(&ch->data, ' ');
		gp_datastr(&ch->data, label[p]);
	}
	sb_addc(&ch->data, '\n');
	for (size_t b = 0; b <= nb; b++) {
		size_t bi = b < nb ? b : nb - 1;
		double x = b < nb ? x0 + (x1 - x0) * (double)b / (double)nb : x1;
		sb_addf(&ch->data, "%.9g", x / 3600.0);
		for (size_t p = 0; p < n; p++)
			sb_addf(&ch->data, " %.9g", v[p][bi]);
		sb_addc(&ch->data, '\n');
	}
	sb_addf(&ch->script, "set xlabel 'hours since the trace origin'\nset xrange [%.9g:%.9g]\n", x0 / 3600.0, x1 / 3600.0);
	return ch;
}

/* Plot columns 2..n+1 as steps, later ones thinner (identical series show as nested stripes);
 * color[p] is the palette line type of column p. */
static void plot_steps(struct strbuf *s, size_t n, const size_t *color, const char *dash)
{
	for (size_t p = 0; p < n; p++)
		sb_addf(s, "%sdatafile using 1:%zu with steps lt %zu lw %.1f%s title columnheader(%zu)", p ? ", " : "", p + 2, color[p] + 1,
			p < 5 ? 3.4 - 0.6 * (double)p : 1.0, dash ? dash : "", p + 2);
}

static int series_charts(struct page *pg, char *err, size_t errlen)
{
	const struct rp_model *m = pg->m;
	size_t n = nresults_charted(m);
	if (n == 0)
		return 0;
	struct rp_series *ser = xcalloc(n, sizeof *ser);
	const struct rp_policy **pol = xcalloc(n, sizeof *pol);
	const char **label = xcalloc(2 * n, sizeof *label);
	const double **col = xcalloc(2 * n, sizeof *col);
	size_t *color = xcalloc(2 * n, sizeof *color);
	double **diff = xcalloc(n, sizeof *diff);
	const char **dlabel = xcalloc(n, sizeof *dlabel);
	struct strbuf names;
	sb_init(&names);
	size_t k = 0, nb = pg->o->bins;
	int rc = -1;
	for (size_t i = 0; i < m->npolicies; i++) {
		if (!m->policies[i].result)
			continue;
		pol[k] = &m->policies[i];
		if (rp_series_build(pol[k]->result, pg->z0, pg->z1, nb, &ser[k], err, errlen))
			goto out;
		label[k] = pol[k]->action_id;
		color[k] = k;
		k++;
	}

	/* Allocation: policies whose series equal an earlier one's say so in the key. */
	const char **alabel = label + n;
	size_t off[64], noff = 0;
	for (size_t p = 0; p < n; p++) {
		alabel[p] = pol[p]->action_id;
		for (size_t q = 0; q < p; q++)
			if (same_series(ser[p].allocated, ser[q].allocated, nb)) {
				if (noff < 64)
					off[noff++] = names.len;
				sb_addf(&names, "%s (= %s)", pol[p]->action_id, pol[q]->action_id);
				sb_addc(&names, '\0');
				if (!pg->alloc_note.len)
					sb_adds(&pg->alloc_note, " Identical allocation over time:");
				sb_addf(&pg->alloc_note, " %s = %s;", pol[p]->action_id, pol[q]->action_id);
				break;
			}
	}
	for (size_t p = 0, u = 0; p < n; p++)
		for (size_t q = 0; q < p; q++)
			if (same_series(ser[p].allocated, ser[q].allocated, nb)) {
				if (u < noff)
					alabel[p] = names.buf + off[u++];
				break;
			}
	for (size_t p = 0; p < n; p++)
		col[p] = ser[p].allocated;
	struct rp_chart *ch = series_chart(pg, "allocation", 400, pg->z0, pg->z1, nb, n, alabel, col);
	struct strbuf *s = &ch->script;
	sb_adds(s, "set ylabel 'allocated GPUs (mean per bin)'\nset yrange [0:*]\n");
	window_object(s, pg);
	sb_adds(s, "plot ");
	plot_steps(s, n, color, NULL);
	double cap = pol[0]->result->capacity_gpus, amax = 0;
	bool same_cap = true;
	for (size_t p = 1; p < n; p++)
		same_cap &= pol[p]->result->capacity_gpus == cap;
	if (same_cap)
		sb_addf(s, ", %.9g with lines dt 2 lw 1.5 lc rgb '#777777' title 'capacity (%.9g GPUs)'", cap, cap);
	sb_addc(s, '\n');

	/* The difference view: each policy's allocation minus the baseline's, drawn when some
	 * policy's mean difference over the bins is under 5% of the absolute chart's scale
	 * (about 15 of its 400 pixels): most of the time its line hides under the baseline's. */
	size_t base = baseline_index(m, pol, n), nd = 0;
	double dmax = 0, dmean_min = INFINITY;
	for (size_t p = 0; p < n; p++)
		for (size_t b = 0; b < nb; b++)
			amax = fmax(amax, ser[p].allocated[b]);
	if (same_cap && cap > amax)
		amax = cap;
	for (size_t p = 0; p < n; p++) {
		if (p == base)
			continue;
		diff[nd] = xcalloc(nb, sizeof **diff);
		double sum = 0;
		for (size_t b = 0; b < nb; b++) {
			diff[nd][b] = ser[p].allocated[b] - ser[base].allocated[b];
			dmax = fmax(dmax, fabs(diff[nd][b]));
			sum += fabs(diff[nd][b]);
		}
		dmean_min = fmin(dmean_min, sum / (double)nb);
		dlabel[nd] = alabel[p];
		col[nd] = diff[nd];
		color[n + nd] = p;
		nd++;
	}
	if (nd > 0 && dmean_min < 0.05 * amax) {
		pg->diff_baseline = pol[base]->action_id;
		ch = series_chart(pg, "allocation-diff", 340, pg->z0, pg->z1, nb, nd, dlabel, col);
		s = &ch->script;
		/* the baseline is named in the caption: no label from the input in gnuplot's commands */
		sb_adds(s, "set ylabel \"allocated GPUs minus the baseline's\"\n");
		if (dmax == 0)
			sb_adds(s, "set yrange [-1:1]\n");
		window_object(s, pg);
		sb_adds(s, "plot 0 with lines lw 1 lc rgb '#999999' notitle, ");
		plot_steps(s, nd, color + n, NULL);
		sb_addc(s, '\n');
	}

	/* Queues. */
	static const struct {
		const char *id, *ylabel;
		bool hp;
	} queues[] = { { "queue-hp", "queued HP jobs (mean per bin)", true }, { "queue-spot", "queued Spot jobs (mean per bin)", false } };
	for (size_t c = 0; c < 2; c++) {
		for (size_t p = 0; p < n; p++)
			col[p] = queues[c].hp ? ser[p].queue_hp : ser[p].queue_spot;
		ch = series_chart(pg, queues[c].id, 340, pg->z0, pg->z1, nb, n, label, col);
		s = &ch->script;
		sb_addf(s, "set ylabel '%s'\nset yrange [0:*]\n", queues[c].ylabel);
		window_object(s, pg);
		sb_adds(s, "plot ");
		plot_steps(s, n, color, NULL);
		sb_addc(s, '\n');
	}

	/* Preemptions: what the table counts (victims in the evaluation population); where
	 * that differs from every event, those are drawn dashed and labelled as such. */
	size_t nall = 0;
	const char **plabel = xcalloc(2 * n, sizeof *plabel);
	size_t *pcolor = xcalloc(2 * n, sizeof *pcolor);
	for (size_t p = 0; p < n; p++) {
		col[p] = ser[p].preemptions_eval;
		plabel[p] = pol[p]->action_id;
		pcolor[p] = p;
	}
	struct strbuf all_names;
	sb_init(&all_names);
	size_t all_off[64];
	for (size_t p = 0; p < n && nall < 64; p++)
		if (ser[p].preemptions[nb - 1] != ser[p].preemptions_eval[nb - 1]) {
			all_off[nall] = all_names.len;
			sb_addf(&all_names, "%s (all events)", pol[p]->action_id);
			sb_addc(&all_names, '\0');
			col[n + nall] = ser[p].preemptions;
			pcolor[n + nall] = p;
			if (!pg->preempt_note.len)
				sb_adds(&pg->preempt_note, " Dashed: every preemption event, warm-up and drain victims included:");
			sb_addf(&pg->preempt_note, " %s %.0f against %.0f;", pol[p]->action_id, ser[p].preemptions[nb - 1],
				ser[p].preemptions_eval[nb - 1]);
			nall++;
		}
	for (size_t a = 0; a < nall; a++)
		plabel[n + a] = all_names.buf + all_off[a];
	ch = series_chart(pg, "preemptions", 340, pg->z0, pg->z1, nb, n + nall, plabel, col);
	s = &ch->script;
	sb_adds(s, "set ylabel 'preemption events (cumulative)'\nset yrange [0:*]\n");
	window_object(s, pg);
	sb_adds(s, "plot ");
	plot_steps(s, n, pcolor, NULL);
	for (size_t a = 0; a < nall; a++)
		sb_addf(s, ", datafile using 1:%zu with steps lt %zu lw 1.2 dt 2 title columnheader(%zu)", n + a + 2, pcolor[n + a] + 1,
			n + a + 2);
	sb_addc(s, '\n');
	sb_release(&all_names);
	free(plabel);
	free(pcolor);

	/* The context of a zoomed page: allocation over the whole simulation, the zoom shaded. */
	if (pg->zoomed) {
		for (size_t p = 0; p < n; p++)
			rp_series_release(&ser[p]);
		for (size_t p = 0; p < n; p++) {
			if (rp_series_build(pol[p]->result, pg->t0, pg->t1, nb, &ser[p], err, errlen))
				goto out;
			col[p] = ser[p].allocated;
		}
		ch = series_chart(pg, "allocation-context", 220, pg->t0, pg->t1, nb, n, label, col);
		s = &ch->script;
		sb_addf(s, "set ylabel 'allocated GPUs'\nset yrange [0:*]\n"
			   "set object 1 rect from %.9g, graph 0 to %.9g, graph 1 behind fillcolor rgb '#eaf1fb' fillstyle solid 1.0 noborder\n"
			   "set tmargin 2.2\nset label 1 'shown above' at %.9g, graph 1 center offset 0,0.7 textcolor rgb '#4a6488' font ',10'\nplot ",
			pg->z0 / 3600.0, pg->z1 / 3600.0, (pg->z0 + pg->z1) / 7200.0);
		plot_steps(s, n, color, NULL);
		sb_addc(s, '\n');
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++) {
		rp_series_release(&ser[i]);
		free(diff[i]);
	}
	sb_release(&names);
	free(diff);
	free(dlabel);
	free(ser);
	free(pol);
	free(label);
	free(col);
	free(color);
	return rc;
}

/* ---- ranking ---- */

static const struct json *ranking_stages(const struct rp_rec *rk)
{
	const struct json *st = rk ? json_get(rk->rec, "stages") : NULL;
	return st && st->kind == JSON_ARRAY ? st : NULL;
}

static const char *stage_name(const struct json *st)
{
	const char *s = rp_str(st, "stage");
	return s ? s : rp_str(st, "name") ? rp_str(st, "name") : "?";
}

static size_t ranking_candidates(const struct rp_model *m, const struct rp_rec *rk)
{
	const struct json *c = json_get(rk->rec, "candidates");
	if (c && c->kind == JSON_ARRAY)
		return c->u.arr.n;
	return m->naudits;
}

static void ranking_chart(struct page *pg)
{
	const struct rp_rec *rk = rp_model_ranking(pg->m);
	const struct json *stages = ranking_stages(rk);
	if (!stages)
		return;
	size_t rows = stages->u.arr.n + 1, maxn = ranking_candidates(pg->m, rk);
	struct rp_chart *ch = new_chart(pg, "ranking", 960, (int)(90 + 42 * rows));
	sb_addf(&ch->data, "0 %zu ", maxn);
	gp_datastr(&ch->data, "candidates");
	sb_addc(&ch->data, '\n');
	for (size_t i = 0; i < stages->u.arr.n; i++) {
		const struct json *ids = json_get(stages->u.arr.items[i], "remaining_action_ids");
		size_t cnt = ids && ids->kind == JSON_ARRAY ? ids->u.arr.n : 0;
		sb_addf(&ch->data, "%zu %zu ", i + 1, cnt);
		gp_datastr(&ch->data, stage_name(stages->u.arr.items[i]));
		sb_addc(&ch->data, '\n');
		if (cnt > maxn)
			maxn = cnt;
	}
	sb_addf(&ch->script, "unset key\nset xlabel 'policies remaining'\nset xrange [0:%zu.8]\nset xtics 1\n"
			     "set yrange [%zu.6:-0.6]\nset ytics scale 0 font ',11'\nset grid noytics xtics\n"
			     "set style fill solid 0.85 noborder\n"
			     "plot datafile using ($2/2):1:($2/2):(0.32):ytic(3) with boxxyerror lc rgb '#4a78b0', "
			     "'' using 2:1:(sprintf('%%d', int($2))) with labels left offset 0.6,0 font ',12'\n",
		maxn, rows - 1);
}

/* ---- study ---- */

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

static void add_arm(const char **arms, size_t *n, size_t cap, const char *id)
{
	for (size_t j = 0; j < *n; j++)
		if (!strcmp(arms[j], id))
			return;
	if (*n < cap)
		arms[(*n)++] = id;
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
				add_arm(arms, &n, cap, rp_str(p->u.arr.items[k], "action_id"));
	}
	return n;
}

static const char *study_baseline(const struct rp_model *m)
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

static void uplift_chart(struct page *pg)
{
	const struct rp_model *m = pg->m;
	const char *arms[64];
	size_t narms = study_arms(m, arms, 64);
	const char *base = study_baseline(m);
	if (!base || narms < 2)
		return;
	if (nwindow_records(m)) {
		/* Per window: each arm's allocation minus the baseline's, as clustered bars. */
		struct rp_chart *ch = new_chart(pg, "uplift", 960, 360);
		size_t row = 0;
		gp_datastr(&ch->data, "row");
		sb_addc(&ch->data, ' ');
		gp_datastr(&ch->data, "window");
		for (size_t a = 0; a < narms; a++)
			if (strcmp(arms[a], base)) {
				sb_addc(&ch->data, ' ');
				gp_datastr(&ch->data, arms[a]);
			}
		sb_addc(&ch->data, '\n');
		for (size_t i = 0; i < m->nstudy; i++) {
			const struct json *w = m->study[i].rec;
			if (!is_window_record(w))
				continue;
			double b = rp_num(window_policy(w, base), "allocation_rate_mean");
			sb_addf(&ch->data, "%zu ", row++);
			gp_datastr(&ch->data, rp_str(w, "window_id"));
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
		return;
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
			ch = new_chart(pg, "uplift", 960, 340);
		sb_addf(&ch->data, "%zu %.9g %.9g %.9g ", row++, mean * 100.0, lo * 100.0, hi * 100.0);
		gp_datastr(&ch->data, id);
		sb_addc(&ch->data, '\n');
	}
	if (ch)
		sb_addf(&ch->script, "unset key\nset ylabel 'allocation minus the baseline (pp)'\nset xrange [-0.6:%zu.6]\nset boxwidth 0.55\n"
				     "set style fill solid 0.85 noborder\nset xzeroaxis lt -1 lw 1\nset xtics font ',10'\n"
				     "plot datafile using 1:2:xtic(5) with boxes lc rgb '#4a78b0', '' using 1:2:3:4 with yerrorbars lc rgb '#333333' pt -1\n",
			row ? row - 1 : 0);
}

static void stage_table(struct strbuf *sb, const struct json *stages)
{
	sb_adds(sb, "<table class=\"stages\">\n<thead><tr><th>stage</th><th>remaining</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; stages && stages->kind == JSON_ARRAY && i < stages->u.arr.n; i++) {
		const struct json *st = stages->u.arr.items[i];
		const struct json *ids = json_get(st, "remaining_action_ids");
		const char *name = rp_str(st, "stage");
		sb_adds(sb, "<tr><th>");
		esc(sb, name ? name : "?");
		sb_adds(sb, "</th><td>");
		for (size_t k = 0; ids && ids->kind == JSON_ARRAY && k < ids->u.arr.n; k++) {
			if (k)
				sb_adds(sb, ", ");
			if (ids->u.arr.items[k]->kind == JSON_STRING)
				esc(sb, ids->u.arr.items[k]->u.str.s);
		}
		if (!ids || ids->kind != JSON_ARRAY || ids->u.arr.n == 0)
			sb_adds(sb, "<em>none</em>");
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
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
		esc(sb, arms[a]);
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
		esc(sb, rp_str(w, "window_id"));
		sb_adds(sb, "</th><td>");
		esc(sb, rp_str(w, "partition"));
		sb_adds(sb, "</td>");
		for (size_t a = 0; a < narms; a++) {
			const struct json *p = window_policy(w, arms[a]);
			const struct json *ok = p ? json_get(p, "hard_slo_passed") : NULL;
			const char *cls = !ok || ok->kind == JSON_NULL ? "na" : ok->kind == JSON_TRUE ? "pass" : "fail";
			sb_addf(sb, "<td class=\"%s\">%s ", cls, pass_mark(cls));
			if (p)
				metric_html(sb, "allocation_rate_mean", rp_num(p, "allocation_rate_mean"));
			if (rp_json_has_str(sel, arms[a]))
				sb_adds(sb, " &#9733;");
			sb_adds(sb, "</td>");
		}
		sb_adds(sb, "<td>");
		esc(sb, rk ? rp_ranking_status(rk) : "");
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
		esc(sb, rp_str(cands->u.arr.items[a], "action_id"));
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr></thead>\n<tbody>\n");
	for (size_t w = 0; w < wids->u.arr.n; w++) {
		const struct json *wid = wids->u.arr.items[w];
		if (wid->kind != JSON_STRING)
			continue;
		sb_adds(sb, "<tr><th>");
		esc(sb, wid->u.str.s);
		sb_adds(sb, "</th>");
		for (size_t a = 0; a < cands->u.arr.n; a++) {
			bool failed = rp_json_has_str(json_get(cands->u.arr.items[a], "hard_slo_failed_window_ids"), wid->u.str.s);
			sb_addf(sb, "<td class=\"%s\">%s</td>", failed ? "fail" : "pass", pass_mark(failed ? "fail" : "pass"));
		}
		sb_adds(sb, "</tr>\n");
	}
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
		esc(sb, rp_str(r, "action_id"));
		sb_addf(sb, "</th><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">", rp_num(r, "window_count"),
			rp_num(r, "hard_pass_window_count"));
		metric_html(sb, "allocation_rate_mean", rp_num(json_get(json_get(r, "allocation_rate_mean"), "stats"), "mean"));
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
		study_baseline(m) ? study_baseline(m) : "");
	figure(sb, pg, "uplift", cap.buf);   /* escaped there, as every caption */
	sb_release(&cap);
	aggregate_table(sb, m);
	if (sel) {
		const struct json *ids = rp_ranking_selected(sel);
		sb_adds(sb, "<h3>Calibration selection</h3>\n<p>Status <code>");
		esc(sb, rp_ranking_status(sel));
		sb_adds(sb, "</code>");
		for (size_t k = 0; ids && k < ids->u.arr.n; k++)
			if (ids->u.arr.items[k]->kind == JSON_STRING) {
				sb_adds(sb, k ? ", " : " &mdash; ");
				sb_adds(sb, "<strong>");
				esc(sb, ids->u.arr.items[k]->u.str.s);
				sb_adds(sb, "</strong>");
			}
		sb_adds(sb, "</p>\n");
		stage_table(sb, json_get(sel, "stages"));
	}
	sb_adds(sb, "</section>\n");
}

/* ---- rolling control (roll): the active action over time, quota and HP demand, decisions ---- */

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
					add_arm(ids, &n, cap, c->u.arr.items[k]->u.str.s);
			add_arm(ids, &n, cap, rp_str(dec, "selected_action_id"));
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

static void rolling_charts(struct page *pg)
{
	const struct rp_model *m = pg->m;
	if (!nrolling(m))
		return;
	const char *ids[64];
	size_t na = rolling_actions(m, ids, 64);
	struct rp_chart *act = new_chart(pg, "rolling-actions", 960, 120 + 46 * (int)na);
	struct rp_chart *dem = new_chart(pg, "rolling-demand", 960, 360);
	struct strbuf *s = &act->script, *t = &dem->script;
	sb_adds(s, "set xlabel 'hours since the trace origin'\nset ylabel 'active action'\n");
	sb_addf(s, "set yrange [-0.6:%zu.6]\nset ytics (", na ? na - 1 : 0);
	for (size_t i = 0; i < na; i++) {
		sb_addf(s, "%s", i ? ", " : "");
		gp_str(s, ids[i]);
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
		lt = arm % NPALETTE + 1;
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
		gp_str(s, r->action_id);
		sb_addf(s, ", datafile index %zu using 1:($3 == 1 ? $2 : NaN) with points lt %zu pt 6 ps 1.6 notitle", arm, lt);
		sb_addf(t, "%sdatafile index %zu using 1:2 with linespoints lt %zu dt 2 title ", arm ? ", " : "", arm, lt);
		gp_str(t, r->action_id);
		sb_adds(t, "." " ' Spot quota (1 h)'");
		sb_addf(t, ", datafile index %zu using 1:3 with linespoints lt %zu title ", arm, lt);
		gp_str(t, r->action_id);
		sb_adds(t, "." " ' HP demand (running + queued)'");
		arm++;
	}
	sb_addc(s, '\n');
	sb_addc(t, '\n');
}

static void rolling_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	if (!nrolling(m))
		return;
	sb_adds(sb, "<section id=\"rolling\">\n<h2>Rolling control</h2>\n");
	sb_adds(sb, "<p class=\"note\">Each decision saw only the past: the candidates were simulated in past-only scenarios from the live state at the cutoff, one action was frozen, and only then did the simulator advance. "
		    "Open circles mark decisions whose reply was rejected (the safety action applied).</p>\n");
	figure(sb, pg, "rolling-actions", "Active action over the evaluation window, per rolling arm.");
	figure(sb, pg, "rolling-demand", "Spot quota of the shortest horizon and HP demand (running + queued GPUs) at each cutoff.");
	for (size_t i = 0; i < m->nresults; i++) {
		const struct rp_result *r = &m->results[i];
		if (!r->ndecisions)
			continue;
		const struct json *rep = r->rolling_report;
		sb_adds(sb, "<h3>");
		esc(sb, r->action_id);
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
				esc(sb, c->u.arr.items[k]->kind == JSON_STRING ? c->u.arr.items[k]->u.str.s : "?");
			}
			sb_adds(sb, "</td><td>");
			esc(sb, rp_str(json_get(dec, "ranking"), "selection_status"));
			const struct json *hold = json_get(dec, "minimum_hold_override");
			if (hold && hold->kind == JSON_OBJECT)
				sb_adds(sb, "<br>minimum hold kept the active action");
			sb_adds(sb, "</td><td>");
			esc(sb, rp_str(dec, "recommended_action_id"));
			const char *st = rp_str(reply, "status");
			bool rejected = st && !strcmp(st, "rejected");
			sb_addf(sb, "</td><td class=\"%s\">", rejected ? "fail" : "pass");
			esc(sb, st);
			if (rejected) {
				sb_adds(sb, ": ");
				esc(sb, rp_str(reply, "rejection_reason"));
			}
			sb_adds(sb, "</td><td>");
			esc(sb, rp_str(reply, "reason_code") ? rp_str(reply, "reason_code") : "");
			sb_adds(sb, "</td><td><strong>");
			esc(sb, rp_str(dec, "selected_action_id"));
			sb_adds(sb, "</strong></td></tr>\n");
		}
		sb_adds(sb, "</tbody></table></div>\n");
	}
	sb_adds(sb, "</section>\n");
}

/* ---- page sections ---- */

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;color:#1d2330;"
	"margin:0;background:#f6f7f9}\n"
	"main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff;box-shadow:0 0 0 1px #e4e7ec}\n"
	"h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:34px 0 10px;padding-bottom:4px;border-bottom:2px solid #e4e7ec}\n"
	"h3{font-size:16px;margin:20px 0 6px}.sub{color:#5b6475;margin:0 0 12px}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;width:100%}\n"
	"th,td{padding:6px 9px;border-bottom:1px solid #e4e7ec;text-align:left;vertical-align:top}\n"
	"thead th{background:#f0f2f5;font-weight:600;font-size:13px}td.num,th.num{text-align:right}\n"
	"table.summary{font-size:13.5px}table.summary tbody th,table.summary td{white-space:nowrap}"
	"table.summary th,table.summary td{padding:6px 7px}table.summary td:last-child{white-space:normal;min-width:90px}\n"
	".scroll{overflow-x:auto}\n"
	"td.pass{background:#e7f5ea}td.fail{background:#fbe5e3}td.na{background:#f1f1f1;color:#666}\n"
	".grid td,.slo td{font-size:13px;white-space:nowrap}.slo small,.grid small{display:block;color:#5b6475}\n"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}\n"
	".b-pass{background:#d4eeda;color:#1d6b32}.b-fail{background:#f8d6d2;color:#9b2418}.b-sel{background:#d7e5f7;color:#1f4f8a}"
	".b-tie{background:#fdecc8;color:#855d00}.b-out{background:#eceef1;color:#555}\n"
	".decision{border:1px solid #c9d6ea;border-left:6px solid #3d6fb6;background:#f4f8fd;padding:12px 16px;border-radius:4px}\n"
	".decision.tie,.decision.pending{border-left-color:#d79b00;background:#fffaf0;border-color:#f0dfb5}\n"
	".decision.none{border-left-color:#a33;background:#fdf4f3;border-color:#efcfcb}\n"
	".decision p{margin:4px 0}pre.cmd{background:#1d2330;color:#f3f5f8;padding:8px 12px;border-radius:4px;white-space:pre-wrap;font-size:13px}\n"
	"figure{margin:14px 0}figure svg{width:100%;height:auto;display:block}\n"
	"figcaption{color:#5b6475;font-size:13px;margin-top:4px}\n"
	".note{color:#5b6475;font-size:13px}code{font-size:12px}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}dl.facts dt{color:#5b6475}dl.facts dd{margin:0}\n"
	"@media print{body{background:#fff}main{box-shadow:none}}\n";

/* After layout, count the charts that are present with a nonzero size. */
static const char check_script[] =
	"<script>\n"
	"(function () {\n"
	"  function check() {\n"
	"    var charts = document.querySelectorAll('figure.chart-figure svg, figure.chart-figure img');\n"
	"    var ok = 0;\n"
	"    for (var i = 0; i < charts.length; i++) {\n"
	"      var r = charts[i].getBoundingClientRect();\n"
	"      if (r.width > 0 && r.height > 0) ok++;\n"
	"      else console.error('chart ' + charts[i].getAttribute('data-chart') + ' has no size');\n"
	"    }\n"
	"    var want = Number(document.body.getAttribute('data-charts-expected'));\n"
	"    if (charts.length !== want) console.error('expected ' + want + ' charts, found ' + charts.length);\n"
	"    document.body.setAttribute('data-charts-ok', String(ok));\n"
	"  }\n"
	"  check();\n"
	"  window.addEventListener('load', check);\n"
	"})();\n"
	"</script>\n";

static void decision_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	const struct rp_rec *rk = rp_model_ranking(m);
	if (!rk)
		return;
	const char *status = rp_ranking_status(rk->rec);
	const struct json *sel = rp_ranking_selected(rk->rec);
	const struct rp_rec *ap = rp_decision_approval(m, rk);
	size_t nsel = sel ? sel->u.arr.n : 0;
	const char *cls = ap ? "" : nsel == 0 ? "none" : !strcmp(status, "selected") ? "pending" : "tie";
	sb_addf(sb, "<section id=\"decision\">\n<h2>Decision</h2>\n<div class=\"decision %s\">\n<p><strong>Ranking status:</strong> <code>", cls);
	esc(sb, status);
	sb_adds(sb, "</code>");
	for (size_t i = 0; i < nsel; i++)
		if (sel->u.arr.items[i]->kind == JSON_STRING) {
			sb_adds(sb, i ? ", " : " &mdash; ");
			sb_adds(sb, "<strong>");
			esc(sb, sel->u.arr.items[i]->u.str.s);
			sb_adds(sb, "</strong>");
		}
	sb_adds(sb, "</p>\n");
	if (ap) {
		sb_adds(sb, "<p><strong>Approved:</strong> ");
		esc(sb, rp_str(ap->rec, "action_id"));
		sb_adds(sb, " by ");
		esc(sb, rp_str(ap->rec, "approved_by"));
		sb_adds(sb, " at ");
		esc(sb, rp_str(ap->rec, "approved_at"));
		sb_adds(sb, "</p>\n");
	} else if (nsel == 0) {
		sb_adds(sb, "<p>No policy passed the hard SLOs: nothing to approve; keep the current policy.</p>\n");
	} else {
		sb_adds(sb, !strcmp(status, "selected") ? "<p><strong>Pending human approval</strong> of the selection. To approve it, run:</p>\n"
							 : "<p><strong>Pending human approval:</strong> the ranking cannot separate these policies; a person chooses one and runs one of:</p>\n");
		sb_adds(sb, "<pre class=\"cmd\">");
		for (size_t i = 0; i < nsel; i++) {
			if (sel->u.arr.items[i]->kind != JSON_STRING)
				continue;
			struct strbuf c;
			sb_init(&c);
			rp_approve_command(&c, m, rk, sel->u.arr.items[i]->u.str.s);
			esc(sb, c.buf);
			sb_release(&c);
			sb_addc(sb, '\n');
		}
		sb_adds(sb, "</pre>\n");
	}
	sb_adds(sb, "<p class=\"note\">Ranking fingerprint <code>");
	esc(sb, rp_ranking_fingerprint(rk));
	sb_adds(sb, "</code></p>\n</div>\n</section>\n");
}

static void badge_outcome(struct strbuf *sb, const struct rp_model *m, const char *action)
{
	struct strbuf why;
	sb_init(&why);
	const char *o = rp_policy_outcome(m, action, &why);
	if (!strcmp(o, "selected"))
		sb_adds(sb, "<span class=\"badge b-sel\">selected</span>");
	else if (!strcmp(o, "tied"))
		sb_adds(sb, "<span class=\"badge b-tie\">tied</span>");
	else if (!strcmp(o, "out")) {
		sb_adds(sb, "<span class=\"badge b-out\">out</span> <small>at ");
		esc(sb, why.buf);
		sb_adds(sb, "</small>");
	} else
		sb_adds(sb, "&ndash;");
	sb_release(&why);
}

static void summary_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	size_t with_metrics = 0;
	for (size_t i = 0; i < m->npolicies; i++)
		with_metrics += m->policies[i].metrics != NULL;
	if (!with_metrics)
		return;
	static const struct { const char *metric, *head; } cols[] = {
		{ "allocation_rate_mean", "allocation" },
		{ "hp_jct_p95_seconds", "HP p95 JCT" },
		{ "spot_jct_p95_seconds", "Spot p95 JCT" },
		{ "hp_queue_p95_seconds", "HP p95 queue" },
		{ "spot_eviction_rate_per_run", "evictions / Spot run" },
		{ "preemption_event_count", "preemptions" },
		{ "spot_guarantee_success_rate", "guarantee success" },
	};
	sb_adds(sb, "<section id=\"summary\">\n<h2>Policies</h2>\n<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th>policy</th>");
	for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
		sb_addf(sb, "<th class=\"num\">%s</th>", cols[c].head);
	sb_adds(sb, "<th>hard SLOs</th><th>ranking</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_policy *p = &m->policies[i];
		if (!p->metrics)
			continue;
		sb_addf(sb, "<tr><th><span class=\"swatch\" style=\"color:%s\">&#9632;</span> ", palette[i % NPALETTE]);
		esc(sb, p->action_id);
		sb_adds(sb, "</th>");
		for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
			sb_adds(sb, "<td class=\"num\">");
			metric_html(sb, cols[c].metric, rp_num(p->metrics->rec, cols[c].metric));
			sb_adds(sb, "</td>");
		}
		sb_adds(sb, "<td>");
		if (!p->audit)
			sb_adds(sb, "&ndash;");
		else if (json_get(p->audit->rec, "audit_passed") && json_get(p->audit->rec, "audit_passed")->kind == JSON_TRUE)
			sb_adds(sb, "<span class=\"badge b-pass\">pass</span>");
		else
			sb_adds(sb, "<span class=\"badge b-fail\">fail</span>");
		sb_adds(sb, "</td><td>");
		badge_outcome(sb, m, p->action_id);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

static void threshold_head(struct strbuf *sb, const struct json *r)
{
	const struct json *src = json_get(r, "threshold_source");
	const char *kind = rp_str(src, "kind");
	sb_addf(sb, "<small>%s ", op_html(rp_str(r, "operator")));
	if (kind && !strcmp(kind, "baseline_relative")) {
		double mul = rp_num(src, "multiplier"), add = rp_num(src, "addend");
		if (!isnan(mul) && mul != 1.0)
			sb_addf(sb, "%.4g &times; ", mul);
		sb_adds(sb, "FIFO");
		if (!isnan(add) && add != 0.0)
			sb_addf(sb, " %+.4g", add);
	} else
		metric_html(sb, rp_str(r, "metric"), rp_num(r, "threshold"));
	sb_adds(sb, " &middot; ");
	esc(sb, rp_str(r, "severity") ? rp_str(r, "severity") : "?");
	sb_adds(sb, "</small>");
}

static void slo_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	const struct json *first = NULL;
	for (size_t i = 0; i < m->npolicies && !first; i++)
		if (m->policies[i].audit)
			first = rp_audit_constraints(m->policies[i].audit->rec);
	if (!first)
		return;
	sb_adds(sb, "<section id=\"slo\">\n<h2>SLO audit</h2>\n");
	const char *slo = NULL;
	for (size_t i = 0; i < m->npolicies && !slo; i++)
		if (m->policies[i].audit)
			slo = rp_str(m->policies[i].audit->rec, "slo_name");
	if (slo) {
		sb_adds(sb, "<p class=\"sub\">");
		esc(sb, slo);
		sb_adds(sb, " &mdash; each cell: the observed value, the threshold below it; red = failed, grey = unavailable.</p>\n");
	}
	sb_adds(sb, "<div class=\"scroll\"><table class=\"slo\">\n<thead><tr><th>policy</th>");
	for (size_t k = 0; k < first->u.arr.n; k++) {
		const struct json *r = first->u.arr.items[k];
		sb_adds(sb, "<th>");
		esc(sb, rp_str(r, "id"));
		threshold_head(sb, r);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "<th>audit</th></tr></thead>\n<tbody>\n");  /* rows: policies in input order */
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_policy *p = &m->policies[i];
		if (!p->audit)
			continue;
		const struct json *res = rp_audit_constraints(p->audit->rec);
		sb_adds(sb, "<tr><th>");
		esc(sb, p->action_id);
		sb_adds(sb, "</th>");
		for (size_t k = 0; k < first->u.arr.n; k++) {
			const char *id = rp_str(first->u.arr.items[k], "id");
			const struct json *r = NULL;
			for (size_t j = 0; j < res->u.arr.n && !r; j++)
				if (id && rp_str(res->u.arr.items[j], "id") && !strcmp(rp_str(res->u.arr.items[j], "id"), id))
					r = res->u.arr.items[j];
			if (!r) {
				sb_adds(sb, "<td class=\"na\">&ndash;</td>");
				continue;
			}
			const char *st = rp_str(r, "status");
			const char *cls = st && !strcmp(st, "passed") ? "pass" : st && !strcmp(st, "failed") ? "fail" : "na";
			sb_addf(sb, "<td class=\"%s\" title=\"", cls);
			esc(sb, st ? st : "?");
			sb_addf(sb, "\">%s ", !strcmp(cls, "pass") ? "&#10003;" : !strcmp(cls, "fail") ? "&#10007;" : "?");
			metric_html(sb, rp_str(r, "metric"), rp_num(r, "observed"));
			sb_addf(sb, "<small>%s ", op_html(rp_str(r, "operator")));
			metric_html(sb, rp_str(r, "metric"), rp_num(r, "threshold"));
			sb_adds(sb, "</small></td>");
		}
		const struct json *ok = json_get(p->audit->rec, "audit_passed");
		bool pass = ok && ok->kind == JSON_TRUE;
		sb_addf(sb, "<td class=\"%s\">%s</td></tr>\n", pass ? "pass" : "fail", pass ? "passed" : "failed");
	}
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

static void ranking_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_rec *rk = rp_model_ranking(pg->m);
	const struct json *stages = ranking_stages(rk);
	if (!stages)
		return;
	sb_adds(sb, "<section id=\"ranking\">\n<h2>Ranking stages</h2>\n");
	figure(sb, pg, "ranking", "Policies remaining after each stage of the declared hierarchy; a stage runs only while more than one policy remains.");
	stage_table(sb, stages);
	sb_adds(sb, "</section>\n");
}

static void series_section(struct strbuf *sb, const struct page *pg)
{
	if (!find_chart(pg, "allocation"))
		return;
	sb_adds(sb, "<section id=\"timeline\">\n<h2>Over time</h2>\n");
	sb_addf(sb, "<p class=\"note\">From the simulation ledgers (job results and Spot runs), averaged over %zu equal time bins; "
		    "the shaded band is the evaluation window, before it the warm-up, after it the drain. Later policies are drawn with thinner lines, so policies that behave identically show as nested stripes.%s</p>\n",
		pg->o->bins, pg->zoomed ? " The charts show the evaluation window with a margin; the first chart shows the whole simulation, the history before the window included." : "");
	struct strbuf cap;
	sb_init(&cap);
	if (pg->zoomed)
		figure(sb, pg, "allocation-context", "Allocated GPUs over the whole simulation, per policy; the shaded part is what the charts below show.");
	sb_addf(&cap, "Allocated GPUs over time, per policy.%s", pg->alloc_note.buf ? pg->alloc_note.buf : "");
	figure(sb, pg, "allocation", cap.buf);
	if (pg->diff_baseline) {
		sb_reset(&cap);
		sb_addf(&cap, "Allocated GPUs minus the baseline %s's, over time, per policy: the differences the chart above is too coarse to show "
			      "(0 = the same allocation as %s).", pg->diff_baseline, pg->diff_baseline);
		figure(sb, pg, "allocation-diff", cap.buf);
	}
	figure(sb, pg, "queue-hp", "Queued HP jobs over time, per policy.");
	figure(sb, pg, "queue-spot", "Queued Spot jobs over time (evicted jobs re-enter the queue), per policy.");
	sb_reset(&cap);
	sb_addf(&cap, "Preemption events so far, per policy, counted as the table counts them: the events whose victim is a Spot job of the evaluation population.%s",
		pg->preempt_note.buf ? pg->preempt_note.buf : "");
	figure(sb, pg, "preemptions", cap.buf);
	sb_release(&cap);
	sb_adds(sb, "</section>\n");
}

/* ---- predictive control: one chart per controlled result and pool, the forecast quality ---- */

static const char *const control_ids[] = { "control-0", "control-1", "control-2", "control-3", "control-4", "control-5",
	"control-6", "control-7", "control-8", "control-9", "control-10", "control-11" };
enum { NCONTROL = sizeof control_ids / sizeof *control_ids };

static void control_charts(struct page *pg)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->m->npolicies; i++) {
		const struct rp_result *r = pg->m->policies[i].result;
		for (size_t p = 0; r && p < r->control.npools && r->control.ndecisions && k < NCONTROL; p++)
			rp_control_chart(r, p, new_chart(pg, control_ids[k++], 960, 760), gp_datastr);
	}
}

static void control_section(struct strbuf *sb, const struct page *pg)
{
	struct strbuf table, cap;
	sb_init(&table);
	sb_init(&cap);
	size_t rows = rp_control_quality_table(&table, pg->m, esc);
	if (rows || find_chart(pg, control_ids[0])) {
		sb_adds(sb, "<section id=\"predictive\">\n<h2>Predictive control</h2>\n");
		if (rows) {
			sb_adds(sb, "<p class=\"note\">Forecast quality inside each evidence window, from the controller's report: every "
				    "forecast point whose target lies in the window, scored against the demand sample at its target time "
				    "(mean error = actual &minus; mu, so a negative value is an over-forecast; coverage counts actual &le; the P90 "
				    "guarantee quantile; pinball loss at p = 0.9). The tenant controller scores each pool's running HP GPUs, "
				    "the aggregate controller the cluster's HP outstanding GPUs.</p>\n");
			sb_add(sb, table.buf, table.len);
		}
		size_t k = 0;
		for (size_t i = 0; i < pg->m->npolicies; i++) {
			const struct rp_result *r = pg->m->policies[i].result;
			for (size_t p = 0; r && p < r->control.npools && r->control.ndecisions && k < NCONTROL; p++) {
				sb_reset(&cap);
				sb_addf(&cap, "%s, pool %s: actual HP demand against the 1-hour-ahead mu and its P90 band (drawn at each "
					      "forecast's target time), the Spot quota of the shortest horizon, eta, and per decision the Spot "
					      "runs started and the queued Spot jobs the quota held back.", r->action_id, r->control.pools[p]);
				figure(sb, pg, control_ids[k++], cap.buf);   /* escaped there, as every caption */
			}
		}
		sb_adds(sb, "</section>\n");
	}
	sb_release(&table);
	sb_release(&cap);
}

static void provenance_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	sb_adds(sb, "<section id=\"provenance\">\n<h2>Inputs</h2>\n<div class=\"scroll\"><table class=\"inputs\">\n"
		    "<thead><tr><th>file</th><th>schema</th><th>tool</th><th class=\"num\">records</th><th>fingerprint</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct rp_input *in = &m->inputs[i];
		sb_adds(sb, "<tr><td>");
		esc(sb, in->path);
		sb_adds(sb, "</td><td>");
		esc(sb, in->schema);
		sb_adds(sb, "</td><td>");
		esc(sb, in->tool ? in->tool : "");
		sb_addf(sb, "</td><td class=\"num\">%llu</td><td><code>", in->records);
		esc(sb, in->fingerprint);
		sb_adds(sb, "</code></td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

static void header_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	sb_adds(sb, "<header>\n<h1>");
	esc(sb, pg->o->title);
	sb_adds(sb, "</h1>\n<p class=\"sub\">");
	const char *trace = NULL, *dataset = NULL;
	double cap = NAN;
	for (size_t i = 0; i < m->npolicies && !trace; i++)
		if (m->policies[i].metrics) {
			trace = rp_str(m->policies[i].metrics->rec, "trace_id");
			dataset = rp_str(m->policies[i].metrics->rec, "dataset");
			cap = rp_num(m->policies[i].metrics->rec, "capacity_gpus");
		}
	size_t npol = 0;
	for (size_t i = 0; i < m->npolicies; i++)
		npol += m->policies[i].metrics || m->policies[i].result;
	sb_addf(sb, "%zu polic%s", npol, npol == 1 ? "y" : "ies");
	if (dataset) {
		sb_adds(sb, " &middot; dataset ");
		esc(sb, dataset);
	}
	if (trace && (!dataset || strcmp(trace, dataset))) {
		sb_adds(sb, " &middot; trace ");
		esc(sb, trace);
	}
	if (!isnan(cap))
		sb_addf(sb, " &middot; %.0f GPUs", cap);
	if (pg->has_window)
		sb_addf(sb, " &middot; evaluation window %.9g&ndash;%.9g s", pg->eval_start, pg->eval_end);
	if (pg->o->date) {
		sb_adds(sb, " &middot; ");
		esc(sb, pg->o->date);
	}
	sb_adds(sb, "</p>\n</header>\n");
}

/* The common time axis: from the earliest simulation start to the latest end. */
static void time_axis(struct page *pg)
{
	const struct rp_model *m = pg->m;
	bool first = true;
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_result *r = m->policies[i].result;
		if (!r)
			continue;
		if (first || r->simulation_start < pg->t0)
			pg->t0 = r->simulation_start;
		if (first || r->simulation_end > pg->t1)
			pg->t1 = r->simulation_end;
		if (r->has_window && !pg->has_window) {
			pg->has_window = true;
			pg->eval_start = r->eval_start;
			pg->eval_end = r->eval_end;
		}
		first = false;
	}
	if (!pg->has_window)
		for (size_t i = 0; i < m->npolicies; i++) {
			const struct rp_rec *mr = m->policies[i].metrics;
			double s = mr ? rp_num(mr->rec, "evaluation_start") : NAN, e = mr ? rp_num(mr->rec, "evaluation_end") : NAN;
			if (!isnan(s) && !isnan(e)) {
				pg->has_window = true;
				pg->eval_start = s;
				pg->eval_end = e;
				break;
			}
		}
	if (!first && !(pg->t1 > pg->t0))
		pg->t1 = pg->t0 + 1.0;
	pg->z0 = pg->t0;
	pg->z1 = pg->t1;
	/* A rolling result carries its whole history: when the window is under a quarter of the
	 * simulation, the time charts zoom to it (an eighth of it as margin on each side). */
	bool rolling = false;
	for (size_t i = 0; i < m->npolicies; i++)
		rolling |= m->policies[i].result && m->policies[i].result->ndecisions > 0;
	double w = pg->eval_end - pg->eval_start;
	if (rolling && pg->has_window && w > 0 && w < 0.25 * (pg->t1 - pg->t0)) {
		pg->zoomed = true;
		pg->z0 = fmax(pg->t0, pg->eval_start - w / 8);
		pg->z1 = fmin(pg->t1, pg->eval_end + w / 8);
	}
}

int rp_html_render(struct strbuf *sb, const struct rp_model *m, const struct rp_html_opts *o, char *err, size_t errlen)
{
	struct page pg = { .m = m, .o = o };
	sb_init(&pg.alloc_note);
	sb_init(&pg.preempt_note);
	time_axis(&pg);
	int rc = -1;
	if (series_charts(&pg, err, errlen))
		goto out;
	ranking_chart(&pg);
	uplift_chart(&pg);
	control_charts(&pg);
	rolling_charts(&pg);
	if (rp_gnuplot_run(o->gnuplot, pg.charts, pg.ncharts, err, errlen))
		goto out;

	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	esc(sb, o->title);
	sb_addf(sb, "</title>\n<style>\n%s.swatch{font-size:14px}\n</style>\n</head>\n", css);
	sb_addf(sb, "<body data-charts-expected=\"%zu\" data-charts-ok=\"0\">\n<main>\n", pg.ncharts);
	header_section(sb, &pg);
	decision_section(sb, &pg);
	summary_section(sb, &pg);
	slo_section(sb, &pg);
	ranking_section(sb, &pg);
	series_section(sb, &pg);
	control_section(sb, &pg);
	rolling_section(sb, &pg);
	study_section(sb, &pg);
	provenance_section(sb, &pg);
	sb_adds(sb, "<footer class=\"note\"><p>Generated by SchedNav <code>report</code>. Charts drawn with gnuplot.</p></footer>\n");
	sb_adds(sb, "</main>\n");
	sb_adds(sb, check_script);
	sb_adds(sb, "</body>\n</html>\n");
	rc = 0;
out:
	for (size_t i = 0; i < pg.ncharts; i++) {
		sb_release(&pg.charts[i].data);
		sb_release(&pg.charts[i].script);
		free(pg.charts[i].svg);
	}
	free(pg.charts);
	sb_release(&pg.alloc_note);
	sb_release(&pg.preempt_note);
	return rc;
}
