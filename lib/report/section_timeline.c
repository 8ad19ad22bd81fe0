/* The timeline section ("Over time"): allocation, its difference to the baseline, queues and preemptions per policy. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *rp_study_baseline(const struct rp_model *m);

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
	const char *want[] = { rp_study_baseline(m), "native-fifo" };
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
	struct rp_chart *ch = rp_page_chart(pg, id, 960, height);
	rp_gp_datastr(&ch->data, "hours");
	for (size_t p = 0; p < n; p++) {
		sb_addc(&ch->data, ' ');
		rp_gp_datastr(&ch->data, label[p]);
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

/* The HP and Spot queue charts: every policy's queued jobs per bin. */
static void queue_charts(struct page *pg, const struct rp_series *ser, size_t n, size_t nb, const char **label, const size_t *color,
			 const double **col)
{
	struct rp_chart *ch;
	struct strbuf *s;
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
}

/* The preemption chart: what the table counts (victims in the evaluation population); where
 * that differs from every event, those are drawn dashed and labelled as such. col is the
 * caller's scratch of 2n columns. */
static void preemption_chart(struct page *pg, const struct rp_policy **pol, const struct rp_series *ser, size_t n, size_t nb,
			     const double **col)
{
	struct rp_chart *ch;
	struct strbuf *s;
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

	queue_charts(pg, ser, n, nb, label, color, col);
	preemption_chart(pg, pol, ser, n, nb, col);

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

static void series_section(struct strbuf *sb, const struct page *pg)
{
	if (!rp_page_find_chart(pg, "allocation"))
		return;
	sb_adds(sb, "<section id=\"timeline\">\n<h2>Over time</h2>\n");
	sb_addf(sb, "<p class=\"note\">From the simulation ledgers (job results and Spot runs), averaged over %zu equal time bins; "
		    "the shaded band is the evaluation window, before it the warm-up, after it the drain. Later policies are drawn with thinner lines, so policies that behave identically show as nested stripes.%s</p>\n",
		pg->o->bins, pg->zoomed ? " The charts show the evaluation window with a margin; the first chart shows the whole simulation, the history before the window included." : "");
	struct strbuf cap;
	sb_init(&cap);
	if (pg->zoomed)
		rp_page_figure(sb, pg, "allocation-context", "Allocated GPUs over the whole simulation, per policy; the shaded part is what the charts below show.");
	sb_addf(&cap, "Allocated GPUs over time, per policy.%s", pg->alloc_note.buf ? pg->alloc_note.buf : "");
	rp_page_figure(sb, pg, "allocation", cap.buf);
	if (pg->diff_baseline) {
		sb_reset(&cap);
		sb_addf(&cap, "Allocated GPUs minus the baseline %s's, over time, per policy: the differences the chart above is too coarse to show "
			      "(0 = the same allocation as %s).", pg->diff_baseline, pg->diff_baseline);
		rp_page_figure(sb, pg, "allocation-diff", cap.buf);
	}
	rp_page_figure(sb, pg, "queue-hp", "Queued HP jobs over time, per policy.");
	rp_page_figure(sb, pg, "queue-spot", "Queued Spot jobs over time (evicted jobs re-enter the queue), per policy.");
	sb_reset(&cap);
	sb_addf(&cap, "Preemption events so far, per policy, counted as the table counts them: the events whose victim is a Spot job of the evaluation population.%s",
		pg->preempt_note.buf ? pg->preempt_note.buf : "");
	rp_page_figure(sb, pg, "preemptions", cap.buf);
	sb_release(&cap);
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_timeline = { series_charts, series_section };
