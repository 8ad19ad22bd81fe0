/* The HTML page: one self-contained file, charts inline as SVG, no external resources. The
 * sections are one file each (lib/report/section_*.c, see page.h) on the helpers of html.c;
 * here the page's style and script, the common time axis and the table of sections. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;color:#1d2330;"
	"margin:0;background:#f6f7f9}\n"
	"main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff;box-shadow:0 0 0 1px #e4e7ec}\n"
	"h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:34px 0 10px;padding-bottom:4px;border-bottom:2px solid #e4e7ec}\n"
	"h3{font-size:16px;margin:20px 0 6px}.sub{color:#5b6475;margin:0 0 12px}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;width:100%}\n"
	"th,td{padding:6px 9px;border-bottom:1px solid #e4e7ec;text-align:left;vertical-align:top}\n"
	"thead th{background:#f0f2f5;font-weight:600;font-size:13px}td.num,th.num{text-align:right}\n"
	"table.summary{font-size:13.5px}table.summary tbody th,table.summary td{white-space:nowrap}"
	"table.summary th,table.summary td{padding:6px 7px}table.summary td:last-child{white-space:normal;min-width:90px}\n"
	".scroll{overflow-x:auto}\n"
	"td.pass{background:#e7f5ea}td.fail{background:#fbe5e3}td.na{background:#f1f1f1;color:#666}\n"
	".grid td,.slo td{font-size:13px;white-space:nowrap}.slo small,.grid small{display:block;color:#5b6475}\n"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}\n"
	".b-pass{background:#d4eeda;color:#1d6b32}.b-fail{background:#f8d6d2;color:#9b2418}.b-sel{background:#d7e5f7;color:#1f4f8a}"
	".b-tie{background:#fdecc8;color:#855d00}.b-out{background:#eceef1;color:#555}\n"
	".decision{border:1px solid #c9d6ea;border-left:6px solid #3d6fb6;background:#f4f8fd;padding:12px 16px;border-radius:4px}\n"
	".decision.tie,.decision.pending{border-left-color:#d79b00;background:#fffaf0;border-color:#f0dfb5}\n"
	".decision.none{border-left-color:#a33;background:#fdf4f3;border-color:#efcfcb}\n"
	".decision p{margin:4px 0}pre.cmd{background:#1d2330;color:#f3f5f8;padding:8px 12px;border-radius:4px;white-space:pre-wrap;font-size:13px}\n"
	"figure{margin:14px 0}figure svg{width:100%;height:auto;display:block}\n"
	"figcaption{color:#5b6475;font-size:13px;margin-top:4px}\n"
	".note{color:#5b6475;font-size:13px}code{font-size:12px}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}dl.facts dt{color:#5b6475}dl.facts dd{margin:0}\n"
	"@media print{body{background:#fff}main{box-shadow:none}}\n";

/* After layout, count the charts that are present with a nonzero size. */
static const char check_script[] =
	"<script>\n"
	"(function () {\n"
	"  function check() {\n"
	"    var charts = document.querySelectorAll('figure.chart-figure svg, figure.chart-figure img');\n"
	"    var ok = 0;\n"
	"    for (var i = 0; i < charts.length; i++) {\n"
	"      var r = charts[i].getBoundingClientRect();\n"
	"      if (r.width > 0 && r.height > 0) ok++;\n"
	"      else console.error('chart ' + charts[i].getAttribute('data-chart') + ' has no size');\n"
	"    }\n"
	"    var want = Number(document.body.getAttribute('data-charts-expected'));\n"
	"    if (charts.length !== want) console.error('expected ' + want + ' charts, found ' + charts.length);\n"
	"    document.body.setAttribute('data-charts-ok', String(ok));\n"
	"  }\n"
	"  check();\n"
	"  window.addEventListener('load', check);\n"
	"})();\n"
	"</script>\n";

static void time_axis(struct page *pg)
{
	const struct rp_model *m = pg->m;
	bool first = true;
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_result *r = m->policies[i].result;
		if (!r)
			continue;
		if (first || r->simulation_start < pg->t0)
			pg->t0 = r->simulation_start;
		if (first || r->simulation_end > pg->t1)
			pg->t1 = r->simulation_end;
		if (r->has_window && !pg->has_window) {
			pg->has_window = true;
			pg->eval_start = r->eval_start;
			pg->eval_end = r->eval_end;
		}
		first = false;
	}
	if (!pg->has_window)
		for (size_t i = 0; i < m->npolicies; i++) {
			const struct rp_rec *mr = m->policies[i].metrics;
			double s = mr ? rp_num(mr->rec, "evaluation_start") : NAN, e = mr ? rp_num(mr->rec, "evaluation_end") : NAN;
			if (!isnan(s) && !isnan(e)) {
				pg->has_window = true;
				pg->eval_start = s;
				pg->eval_end = e;
				break;
			}
		}
	if (!first && !(pg->t1 > pg->t0))
		pg->t1 = pg->t0 + 1.0;
	pg->z0 = pg->t0;
	pg->z1 = pg->t1;
	/* A rolling result carries its whole history: when the window is under a quarter of the
	 * simulation, the time charts zoom to it (an eighth of it as margin on each side). */
	bool rolling = false;
	for (size_t i = 0; i < m->npolicies; i++)
		rolling |= m->policies[i].result && m->policies[i].result->ndecisions > 0;
	double w = pg->eval_end - pg->eval_start;
	if (rolling && pg->has_window && w > 0 && w < 0.25 * (pg->t1 - pg->t0)) {
		pg->zoomed = true;
		pg->z0 = fmax(pg->t0, pg->eval_start - w / 8);
		pg->z1 = fmin(pg->t1, pg->eval_end + w / 8);
	}
}

/* The page, top to bottom: one row per section (lib/report/section_NAME.c, page.h). gnuplot
 * draws every chart in one session whose settings carry over from chart to chart, so the
 * drawing order is part of the output: draw is the section's place in it (1 first; 0: the
 * section has no charts). A new section is one row, drawn after the others. */
#ifdef SCHEDNAV_TEST_SECTIONS   /* the test build's toy section (tests/fixtures/report/section_toy.c) */
extern const struct rp_section rp_section_toy;
#endif
static const struct {
	const struct rp_section *section;
	unsigned draw;
} page_rows[] = {
	{ &rp_section_header, 0 }, { &rp_section_decision, 0 }, { &rp_section_summary, 0 }, { &rp_section_slo, 0 },
	{ &rp_section_ranking, 2 }, { &rp_section_timeline, 1 }, { &rp_section_control, 4 }, { &rp_section_rolling, 5 },
	{ &rp_section_study, 3 }, { &rp_section_saturation, 0 }, { &rp_section_placement, 6 }, { &rp_section_provenance, 0 },
#ifdef SCHEDNAV_TEST_SECTIONS
	{ &rp_section_toy, 7 },
#endif
};
enum { NSECTIONS = sizeof page_rows / sizeof *page_rows };

int rp_html_render(struct strbuf *sb, const struct rp_model *m, const struct rp_html_opts *o, char *err, size_t errlen)
{
	struct page pg = { .m = m, .o = o };
	sb_init(&pg.alloc_note);
	sb_init(&pg.preempt_note);
	time_axis(&pg);
	int rc = -1;
	for (unsigned d = 1; d <= NSECTIONS; d++)
		for (size_t i = 0; i < NSECTIONS; i++)
			if (page_rows[i].draw == d && page_rows[i].section->charts && page_rows[i].section->charts(&pg, err, errlen))
				goto out;
	if (rp_gnuplot_run(o->gnuplot, pg.charts, pg.ncharts, err, errlen))
		goto out;

	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	rp_html_esc(sb, o->title);
	sb_addf(sb, "</title>\n<style>\n%s.swatch{font-size:14px}\n</style>\n</head>\n", css);
	sb_addf(sb, "<body data-charts-expected=\"%zu\" data-charts-ok=\"0\">\n<main>\n", pg.ncharts);
	for (size_t i = 0; i < NSECTIONS; i++)
		page_rows[i].section->html(sb, &pg);
	sb_adds(sb, "<footer class=\"note\"><p>Generated by SchedNav <code>report</code>. Charts drawn with gnuplot.</p></footer>\n");
	sb_adds(sb, "</main>\n");
	sb_adds(sb, check_script);
	sb_adds(sb, "</body>\n</html>\n");
	rc = 0;
out:
	for (size_t i = 0; i < pg.ncharts; i++) {
		sb_release(&pg.charts[i].data);
		sb_release(&pg.charts[i].script);
		free(pg.charts[i].svg);
	}
	free(pg.charts);
	sb_release(&pg.alloc_note);
	sb_release(&pg.preempt_note);
	return rc;
}
