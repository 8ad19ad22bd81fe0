/*
 * page — what the sections of the HTML page share (lib/report internal): the page being built,
 * its charts, and the helpers every section writes with. A section is one file
 * (lib/report/section_NAME.c) and one row of the table in html.c: a charts function that adds
 * the section's charts to the page before gnuplot runs (NULL: none), and an html function that
 * writes the section, placing each chart by its id (rp_page_figure). Adding a section is that
 * file plus that row. Everything the page holds is freed by rp_html_render.
 */
#ifndef SCHEDNAV_REPORT_PAGE_H
#define SCHEDNAV_REPORT_PAGE_H
#include "report/format.h"
#include "report/report.h"
#include "core/xalloc.h"

struct page {
	const struct rp_model *m;
	const struct rp_html_opts *o;
	struct rp_chart *charts;
	size_t ncharts, cap_charts;
	double t0, t1, eval_start, eval_end;   /* common time axis (seconds) */
	bool has_window;
	/* what the time charts show: [t0, t1], or for a rolling result whose window is a
	 * sliver of its history, the window with a margin (zoomed; a context chart shows all) */
	double z0, z1;
	bool zoomed;
	struct strbuf alloc_note, preempt_note;   /* what the captions add (identical policies, ...) */
	const char *diff_baseline;               /* the difference view's baseline, or NULL */
};

/* One section of the page. charts: add this section's charts (0, or -1 and a message);
 * html: write the section (nothing when it has nothing to show). */
struct rp_section {
	int (*charts)(struct page *pg, char *err, size_t errlen);
	void (*html)(struct strbuf *sb, const struct page *pg);
};

/* The sections, each defined in its own file (the page order is html.c's table). */
extern const struct rp_section rp_section_header, rp_section_decision, rp_section_summary, rp_section_slo, rp_section_ranking,
	rp_section_timeline, rp_section_control, rp_section_rolling, rp_section_study, rp_section_saturation, rp_section_placement,
	rp_section_provenance;

/* Colours shared by every chart so a policy keeps its colour across the page (gnuplot line
 * type k + 1 is rp_palette[k]; the summary table's swatches use the same). */
enum { RP_NPALETTE = 8 };
extern const char *const rp_palette[RP_NPALETTE];

/* Append id to ids[0..*n) unless it is there already (at most cap ids): first-seen order. */
void rp_add_id(const char **ids, size_t *n, size_t cap, const char *id);
/* Append s HTML-escaped (& < > " '); NULL appends nothing. */
void rp_html_esc(struct strbuf *sb, const char *s);
/* Append a metric value formatted as the tables show it (rp_fmt_metric), escaped. */
void rp_html_metric(struct strbuf *sb, const char *metric, double v);
/* The HTML entity of a threshold operator (<=, >=, <, >), "?" for anything else. */
const char *rp_html_op(const char *op);
/* A new chart of the page (id: a constant; w x h pixels), its script begun with the page's style. */
struct rp_chart *rp_page_chart(struct page *pg, const char *id, int w, int h);
/* The chart of that id, or NULL. */
const struct rp_chart *rp_page_find_chart(const struct page *pg, const char *id);
/* The chart of that id as a figure with its caption (escaped here); nothing when it was not drawn. */
void rp_page_figure(struct strbuf *sb, const struct page *pg, const char *id, const char *caption);
/* The study's baseline action id (its first baseline_action_id), or NULL (section_study.c). */
const char *rp_study_baseline(const struct rp_model *m);
/* The stages of a ranking as a table: stage, remaining action ids (section_ranking.c). */
void rp_stage_table(struct strbuf *sb, const struct json *stages);
#endif
