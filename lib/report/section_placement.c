/* issue 36: the placement section: per policy run on the physical node model (a metrics record
 * with a `placement` block, docs/simulator.md §3.13) its strategy, the time-weighted means of
 * the GPU allocation ratio, fragmented GPUs and fragmentation ratio, the largest fragmented
 * amount, and the jobs refused for fragmentation against those that waited for capacity. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The fragmentation chart: each physical policy's fragmented GPUs over time (hours), as
 * steps on the union of their sample times (a policy's value holds until its next sample).
 * Labels go through the data file's header (columnheader), the script holds only numbers. */
static int placement_charts(struct page *pg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct rp_model *m = pg->m;
	const struct rp_result *r[RP_NPALETTE];
	const char *label[RP_NPALETTE];
	size_t n = 0, total = 0;
	for (size_t i = 0; i < m->npolicies && n < RP_NPALETTE; i++)
		if (m->policies[i].result && m->policies[i].result->nfrag) {
			label[n] = m->policies[i].action_id;
			r[n++] = m->policies[i].result;
			total += m->policies[i].result->nfrag;
		}
	if (!n)
		return 0;
	struct rp_chart *ch = rp_page_chart(pg, "fragmentation", 960, 340);
	rp_gp_datastr(&ch->data, "hours");
	for (size_t p = 0; p < n; p++) {
		sb_addc(&ch->data, ' ');
		rp_gp_datastr(&ch->data, label[p]);
	}
	sb_addc(&ch->data, '\n');
	size_t at[RP_NPALETTE] = { 0 };
	for (size_t row = 0; row < total; row++) {
		double t = INFINITY;   /* the next sample time of any policy */
		for (size_t p = 0; p < n; p++)
			if (at[p] < r[p]->nfrag && r[p]->frag_t[at[p]] < t)
				t = r[p]->frag_t[at[p]];
		if (t == INFINITY)
			break;
		for (size_t p = 0; p < n; p++)
			while (at[p] < r[p]->nfrag && r[p]->frag_t[at[p]] <= t)
				at[p]++;
		sb_addf(&ch->data, "%.9g", t / 3600.0);
		for (size_t p = 0; p < n; p++)
			sb_addf(&ch->data, " %.9g", at[p] ? r[p]->frag_gpus[at[p] - 1] : 0.0);
		sb_addc(&ch->data, '\n');
	}
	/* (gnuplot's settings carry over from the charts drawn before: the ones they may set are reset) */
	sb_adds(&ch->script, "unset object\nunset label\nunset arrow\nunset logscale\nunset y2tics\nset ytics\nset xtics\nset tmargin\n"
			     "set format x '%g'\nset format y '%g'\nset xrange [*:*]\n"
			     "set xlabel 'hours since the trace origin'\nset ylabel 'fragmented GPUs'\nset yrange [0:*]\nplot ");
	for (size_t p = 0; p < n; p++)
		sb_addf(&ch->script, "%sdatafile using 1:%zu with steps lt %zu lw 2 title columnheader(%zu)", p ? ", " : "", p + 2, p + 1, p + 2);
	sb_addc(&ch->script, '\n');
	return 0;
}

static void num_cell(struct strbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		sb_adds(sb, "<td class=\"na\">&ndash;</td>");
	else
		sb_addf(sb, fmt, v);
}

static void placement_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	size_t rows = 0;
	for (size_t i = 0; i < m->npolicies; i++)
		rows += m->policies[i].metrics && json_get(m->policies[i].metrics->rec, "placement");
	if (!rows)
		return;
	sb_adds(sb, "<section id=\"placement\">\n<h2>Placement and fragmentation</h2>\n"
		    "<p class=\"note\">Policies run on the physical node model (docs/simulator.md &sect;3.13): time-weighted means "
		    "over the run of the GPU allocation ratio, the fragmented GPUs (the FGD paper's measure) and the fragmentation "
		    "ratio (fragmented over free GPUs); the largest fragmented amount; the jobs refused at least once for "
		    "fragmentation (their GPUs were free, on no nodes that could hold them) and the jobs that waited only for "
		    "capacity.</p>\n");
	sb_adds(sb, "<div class=\"scroll\"><table class=\"placement\">\n<thead><tr><th>policy</th><th>strategy</th><th>allocation</th>"
		    "<th>fragmented GPUs</th><th>max fragmented</th><th>fragmentation ratio</th><th>refused for fragmentation</th>"
		    "<th>waited for capacity</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_policy *p = &m->policies[i];
		const struct json *b = p->metrics ? json_get(p->metrics->rec, "placement") : NULL;
		if (!b)
			continue;
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, p->action_id);
		sb_adds(sb, "</th><td>");
		rp_html_esc(sb, rp_str(b, "placement_strategy"));
		sb_adds(sb, "</td>");
		num_cell(sb, 100 * rp_num(b, "allocation_ratio_mean"), "<td>%.2f %%</td>");
		num_cell(sb, rp_num(b, "fragmented_gpus_mean"), "<td>%.2f</td>");
		num_cell(sb, rp_num(b, "fragmented_gpus_max"), "<td>%.2f</td>");
		num_cell(sb, 100 * rp_num(b, "fragmentation_ratio_mean"), "<td>%.2f %%</td>");
		num_cell(sb, rp_num(b, "unplaced_fragmentation_job_count"), "<td>%.0f</td>");
		num_cell(sb, rp_num(b, "unplaced_capacity_job_count"), "<td>%.0f</td>");
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n");
	rp_page_figure(sb, pg, "fragmentation", "Fragmented GPUs over time (the FGD measure), one step line per policy on the node model.");
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_placement = { placement_charts, placement_section };
