/* The predictive control section: the forecast quality table and one chart per controlled result and pool. */
#include "report/page.h"
#include "predict/predict.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const control_ids[] = { "control-0", "control-1", "control-2", "control-3", "control-4", "control-5",
	"control-6", "control-7", "control-8", "control-9", "control-10", "control-11" };
enum { NCONTROL = sizeof control_ids / sizeof *control_ids };

static int control_charts(struct page *pg, char *err, size_t errlen)
{
	size_t k = 0;
	for (size_t i = 0; i < pg->m->npolicies; i++) {
		const struct rp_result *r = pg->m->policies[i].result;
		for (size_t p = 0; r && p < r->control.npools && r->control.ndecisions && k < NCONTROL; p++)
			rp_control_chart(r, p, rp_page_chart(pg, control_ids[k++], 960, 760), rp_gp_datastr);
	}
	return 0;
}

static void control_section(struct strbuf *sb, const struct page *pg)
{
	struct strbuf table, cap;
	sb_init(&table);
	sb_init(&cap);
	size_t rows = rp_control_quality_table(&table, pg->m, rp_html_esc);
	if (rows || rp_page_find_chart(pg, control_ids[0])) {
		sb_adds(sb, "<section id=\"predictive\">\n<h2>Predictive control</h2>\n");
		if (rows) {
			sb_adds(sb, "<p class=\"note\">Forecast quality inside each evidence window, from the controller's report: every "
				    "forecast point whose target lies in the window, scored against the demand sample at its target time "
				    "(mean error = actual &minus; mu, so a negative value is an over-forecast; coverage counts actual &le; the P90 "
				    "guarantee quantile; pinball loss at p = 0.9). ");
			pc_families_scored(sb);   /* the families' own constant text, HTML as it stands */
			sb_adds(sb, "</p>\n");
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
				rp_page_figure(sb, pg, control_ids[k++], cap.buf);   /* escaped there, as every caption */
			}
		}
		sb_adds(sb, "</section>\n");
	}
	sb_release(&table);
	sb_release(&cap);
}

const struct rp_section rp_section_control = { control_charts, control_section };
