/* The SLO section: per audit every constraint, its threshold and its verdict. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void threshold_head(struct strbuf *sb, const struct json *r)
{
	const struct json *src = json_get(r, "threshold_source");
	const char *kind = rp_str(src, "kind");
	sb_addf(sb, "<small>%s ", rp_html_op(rp_str(r, "operator")));
	if (kind && !strcmp(kind, "baseline_relative")) {
		double mul = rp_num(src, "multiplier"), add = rp_num(src, "addend");
		if (!isnan(mul) && mul != 1.0)
			sb_addf(sb, "%.4g &times; ", mul);
		sb_adds(sb, "FIFO");
		if (!isnan(add) && add != 0.0)
			sb_addf(sb, " %+.4g", add);
	} else
		rp_html_metric(sb, rp_str(r, "metric"), rp_num(r, "threshold"));
	sb_adds(sb, " &middot; ");
	rp_html_esc(sb, rp_str(r, "severity") ? rp_str(r, "severity") : "?");
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
		rp_html_esc(sb, slo);
		sb_adds(sb, " &mdash; each cell: the observed value, the threshold below it; red = failed, grey = unavailable.</p>\n");
	}
	sb_adds(sb, "<div class=\"scroll\"><table class=\"slo\">\n<thead><tr><th>policy</th>");
	for (size_t k = 0; k < first->u.arr.n; k++) {
		const struct json *r = first->u.arr.items[k];
		sb_adds(sb, "<th>");
		rp_html_esc(sb, rp_str(r, "id"));
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
		rp_html_esc(sb, p->action_id);
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
			rp_html_esc(sb, st ? st : "?");
			sb_addf(sb, "\">%s ", !strcmp(cls, "pass") ? "&#10003;" : !strcmp(cls, "fail") ? "&#10007;" : "?");
			rp_html_metric(sb, rp_str(r, "metric"), rp_num(r, "observed"));
			sb_addf(sb, "<small>%s ", rp_html_op(rp_str(r, "operator")));
			rp_html_metric(sb, rp_str(r, "metric"), rp_num(r, "threshold"));
			sb_adds(sb, "</small></td>");
		}
		const struct json *ok = json_get(p->audit->rec, "audit_passed");
		bool pass = ok && ok->kind == JSON_TRUE;
		sb_addf(sb, "<td class=\"%s\">%s</td></tr>\n", pass ? "pass" : "fail", pass ? "passed" : "failed");
	}
	sb_adds(sb, "</tbody></table></div>\n</section>\n");
}

const struct rp_section rp_section_slo = { NULL, slo_section };
