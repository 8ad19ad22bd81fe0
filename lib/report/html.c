/* The helpers every section of the HTML page shares (lib/report/section_*.c, see page.h):
 * escaping, metric cells, the charts and their figures. The page itself, its style and
 * script, the common time axis and the table of sections are page.c, which uses the
 * sections, which use this file: no file here uses one that uses it back. */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

void rp_html_esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		case '\'': sb_adds(sb, "&#39;"); break;
		default: sb_addc(sb, *s);
		}
	}
}

void rp_html_metric(struct strbuf *sb, const char *metric, double v)
{
	struct strbuf t;
	sb_init(&t);
	rp_fmt_metric(&t, metric, v);
	rp_html_esc(sb, t.buf);
	sb_release(&t);
}

const char *rp_html_op(const char *op)
{
	if (!op)
		return "?";
	if (!strcmp(op, "<="))
		return "&le;";
	if (!strcmp(op, ">="))
		return "&ge;";
	if (!strcmp(op, "<"))
		return "&lt;";
	if (!strcmp(op, ">"))
		return "&gt;";
	return "?";
}

void rp_add_id(const char **ids, size_t *n, size_t cap, const char *id)
{
	for (size_t j = 0; j < *n; j++)
		if (!strcmp(ids[j], id))
			return;
	if (*n < cap)
		ids[(*n)++] = id;
}

/* Colours shared by every chart so a policy keeps its colour across the page (page.h). */
const char *const rp_palette[RP_NPALETTE] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static void chart_preamble(struct strbuf *s)
{
	sb_adds(s, "set border 3 lc rgb '#555555'\nset tics nomirror out scale 0.6\n"
		   "set grid ytics lc rgb '#e3e3e3' lw 1 dt 1\n"
		   "set key below left horizontal Left reverse samplen 2.5 spacing 1.2 width 2\n");
	for (size_t i = 0; i < RP_NPALETTE; i++)
		sb_addf(s, "set linetype %zu lc rgb '%s' lw 2 pt 7 ps 0.6\n", i + 1, rp_palette[i]);
	sb_addf(s, "set linetype cycle %d\n", RP_NPALETTE);
}

struct rp_chart *rp_page_chart(struct page *pg, const char *id, int w, int h)
{
	pg->charts = xgrow(pg->charts, &pg->cap_charts, pg->ncharts + 1, sizeof *pg->charts);
	struct rp_chart *c = &pg->charts[pg->ncharts++];
	memset(c, 0, sizeof *c);
	c->id = id;
	c->width = w;
	c->height = h;
	sb_init(&c->data);
	sb_init(&c->script);
	chart_preamble(&c->script);
	return c;
}

const struct rp_chart *rp_page_find_chart(const struct page *pg, const char *id)
{
	for (size_t i = 0; i < pg->ncharts; i++)
		if (!strcmp(pg->charts[i].id, id))
			return &pg->charts[i];
	return NULL;
}

void rp_page_figure(struct strbuf *sb, const struct page *pg, const char *id, const char *caption)
{
	const struct rp_chart *c = rp_page_find_chart(pg, id);
	if (!c || !c->svg)
		return;
	sb_addf(sb, "<figure class=\"chart-figure\" id=\"fig-%s\">\n", id);
	sb_adds(sb, c->svg);
	sb_adds(sb, "\n<figcaption>");
	rp_html_esc(sb, caption);
	sb_adds(sb, "</figcaption>\n</figure>\n");
}
