/* The decision section: the ranking status, the approval or the approve command(s) still to run. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	rp_html_esc(sb, status);
	sb_adds(sb, "</code>");
	for (size_t i = 0; i < nsel; i++)
		if (sel->u.arr.items[i]->kind == JSON_STRING) {
			sb_adds(sb, i ? ", " : " &mdash; ");
			sb_adds(sb, "<strong>");
			rp_html_esc(sb, sel->u.arr.items[i]->u.str.s);
			sb_adds(sb, "</strong>");
		}
	sb_adds(sb, "</p>\n");
	if (ap) {
		sb_adds(sb, "<p><strong>Approved:</strong> ");
		rp_html_esc(sb, rp_str(ap->rec, "action_id"));
		sb_adds(sb, " by ");
		rp_html_esc(sb, rp_str(ap->rec, "approved_by"));
		sb_adds(sb, " at ");
		rp_html_esc(sb, rp_str(ap->rec, "approved_at"));
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
			rp_html_esc(sb, c.buf);
			sb_release(&c);
			sb_addc(sb, '\n');
		}
		sb_adds(sb, "</pre>\n");
	}
	sb_adds(sb, "<p class=\"note\">Ranking fingerprint <code>");
	rp_html_esc(sb, rp_ranking_fingerprint(rk));
	sb_adds(sb, "</code></p>\n</div>\n</section>\n");
}

const struct rp_section rp_section_decision = { NULL, decision_section };
