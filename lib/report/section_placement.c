/* issue 36: the placement section: per policy run on the physical node model (a metrics record
 * with a `placement` block, docs/simulator.md §3.13) its strategy, the time-weighted means of
 * the GPU allocation ratio, fragmented GPUs and fragmentation ratio, the largest fragmented
 * amount, and the jobs refused for fragmentation against those that waited for capacity. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

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
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

const struct rp_section rp_section_placement = { NULL, placement_section };
