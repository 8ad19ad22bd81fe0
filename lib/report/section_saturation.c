/* The pool saturation section (issue 34): the pool_saturation records of trace-analyze
 * --saturation (a study's or a rolling study's saturation.ndjson), one row per pool. A pool
 * whose offered load is above its capacity has a queue without a bound: the page says so,
 * and that its whole-pool queue percentiles measure the trace length, not the policy. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool flag(const struct json *rec, const char *key)
{
	const struct json *v = json_get(rec, key);
	return v && v->kind == JSON_TRUE;
}

static void cell_num(struct strbuf *sb, double v, const char *fmt)
{
	sb_adds(sb, "<td class=\"num\">");
	if (isnan(v))
		sb_adds(sb, "&ndash;");
	else
		sb_addf(sb, fmt, v);
	sb_adds(sb, "</td>");
}

static void saturation_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_model *m = pg->m;
	if (!m->nsaturation)
		return;
	size_t unbounded = 0;
	sb_adds(sb, "<section id=\"saturation\">\n<h2>Pool saturation</h2>\n<div class=\"scroll\"><table class=\"saturation\">\n"
		    "<thead><tr><th>pool</th><th class=\"num\">capacity (GPUs)</th><th>capacity from</th><th class=\"num\">hours</th>"
		    "<th class=\"num\">demand / capacity (touched hours)</th><th class=\"num\">hours above capacity</th>"
		    "<th class=\"num\">offered load</th><th>queue</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->nsaturation; i++) {
		const struct json *r = m->saturation[i].rec;
		bool unb = flag(r, "queue_unbounded");
		unbounded += unb;
		sb_adds(sb, unb ? "<tr class=\"fail\"><td>" : "<tr><td>");
		rp_html_esc(sb, rp_str(r, "gpu_model"));
		sb_adds(sb, "</td>");
		cell_num(sb, rp_num(r, "capacity_gpus"), "%.0f");
		sb_adds(sb, "<td>");
		rp_html_esc(sb, rp_str(r, "capacity_source") ? rp_str(r, "capacity_source") : "");
		sb_adds(sb, "</td>");
		cell_num(sb, rp_num(r, "hours"), "%.0f");
		cell_num(sb, rp_num(r, "demand_over_capacity"), "%.2f&times;");
		cell_num(sb, rp_num(r, "hours_above_capacity_share") * 100.0, "%.1f %%");
		cell_num(sb, rp_num(r, "offered_load"), "%.2f&times;");
		sb_adds(sb, unb ? "<td><strong>saturated: no bound</strong></td></tr>\n" : "<td>bounded</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n");
	if (unbounded)
		sb_addf(sb, "<p class=\"note\"><strong>%zu of %zu pools saturated.</strong> Their offered load (GPU-seconds over "
			    "capacity &times; span) is above 1: the queue has no bound, so whole-pool queue percentiles measure "
			    "the trace length, not the policy. A capacity other than the trace's nodes is an explicit option "
			    "(<code>--capacity</code>, <code>CAPACITY=</code>), named in the capacity column.</p>\n",
			unbounded, m->nsaturation);
	else
		sb_adds(sb, "<p class=\"note\">No pool saturated: every offered load (GPU-seconds over capacity &times; span) "
			    "is at most 1, so the queues are bounded. The touched-hour ratio counts a job in every hour it "
			    "touches and can pass 1 on a bounded pool.</p>\n");
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_saturation = { NULL, saturation_section };
