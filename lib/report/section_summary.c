/* The summary table: per policy the headline metrics and its outcome badge. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		rp_html_esc(sb, why.buf);
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
		sb_addf(sb, "<tr><th><span class=\"swatch\" style=\"color:%s\">&#9632;</span> ", rp_palette[i % RP_NPALETTE]);
		rp_html_esc(sb, p->action_id);
		sb_adds(sb, "</th>");
		for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
			sb_adds(sb, "<td class=\"num\">");
			rp_html_metric(sb, cols[c].metric, rp_num(p->metrics->rec, cols[c].metric));
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

const struct rp_section rp_section_summary = { NULL, summary_section };
