/* The provenance section: every input file with its schema, tool, record count and fingerprint. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void provenance_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	sb_adds(sb, "<section id=\"provenance\">\n<h2>Inputs</h2>\n<div class=\"scroll\"><table class=\"inputs\">\n"
		    "<thead><tr><th>file</th><th>schema</th><th>tool</th><th class=\"num\">records</th><th>fingerprint</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct rp_input *in = &m->inputs[i];
		sb_adds(sb, "<tr><td>");
		rp_html_esc(sb, in->path);
		sb_adds(sb, "</td><td>");
		rp_html_esc(sb, in->schema);
		sb_adds(sb, "</td><td>");
		rp_html_esc(sb, in->tool ? in->tool : "");
		sb_addf(sb, "</td><td class=\"num\">%llu</td><td><code>", in->records);
		rp_html_esc(sb, in->fingerprint);
		sb_adds(sb, "</code></td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

const struct rp_section rp_section_provenance = { NULL, provenance_section };
