/* The page header: title, trace and data set, the time axis, the date when asked. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void header_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	sb_adds(sb, "<header>\n<h1>");
	rp_html_esc(sb, pg->o->title);
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
		rp_html_esc(sb, dataset);
	}
	if (trace && (!dataset || strcmp(trace, dataset))) {
		sb_adds(sb, " &middot; trace ");
		rp_html_esc(sb, trace);
	}
	if (!isnan(cap))
		sb_addf(sb, " &middot; %.0f GPUs", cap);
	if (pg->has_window)
		sb_addf(sb, " &middot; evaluation window %.9g&ndash;%.9g s", pg->eval_start, pg->eval_end);
	if (pg->o->date) {
		sb_adds(sb, " &middot; ");
		rp_html_esc(sb, pg->o->date);
	}
	sb_adds(sb, "</p>\n</header>\n");
}

/* The common time axis: from the earliest simulation start to the latest end. */

const struct rp_section rp_section_header = { NULL, header_section };
