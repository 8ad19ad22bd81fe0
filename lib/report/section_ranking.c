/* The ranking section: how many policies each stage of the declared hierarchy leaves (chart and table). */
#include "report/page.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct json *ranking_stages(const struct rp_rec *rk)
{
	const struct json *st = rk ? json_get(rk->rec, "stages") : NULL;
	return st && st->kind == JSON_ARRAY ? st : NULL;
}

static const char *stage_name(const struct json *st)
{
	const char *s = rp_str(st, "stage");
	return s ? s : rp_str(st, "name") ? rp_str(st, "name") : "?";
}

static size_t ranking_candidates(const struct rp_model *m, const struct rp_rec *rk)
{
	const struct json *c = json_get(rk->rec, "candidates");
	if (c && c->kind == JSON_ARRAY)
		return c->u.arr.n;
	return m->naudits;
}

static int ranking_chart(struct page *pg, char *err, size_t errlen)
{
	const struct rp_rec *rk = rp_model_ranking(pg->m);
	const struct json *stages = ranking_stages(rk);
	if (!stages)
		return 0;
	size_t rows = stages->u.arr.n + 1, maxn = ranking_candidates(pg->m, rk);
	struct rp_chart *ch = rp_page_chart(pg, "ranking", 960, (int)(90 + 42 * rows));
	sb_addf(&ch->data, "0 %zu ", maxn);
	rp_gp_datastr(&ch->data, "candidates");
	sb_addc(&ch->data, '\n');
	for (size_t i = 0; i < stages->u.arr.n; i++) {
		const struct json *ids = json_get(stages->u.arr.items[i], "remaining_action_ids");
		size_t cnt = ids && ids->kind == JSON_ARRAY ? ids->u.arr.n : 0;
		sb_addf(&ch->data, "%zu %zu ", i + 1, cnt);
		rp_gp_datastr(&ch->data, stage_name(stages->u.arr.items[i]));
		sb_addc(&ch->data, '\n');
		if (cnt > maxn)
			maxn = cnt;
	}
	sb_addf(&ch->script, "unset key\nset xlabel 'policies remaining'\nset xrange [0:%zu.8]\nset xtics 1\n"
			     "set yrange [%zu.6:-0.6]\nset ytics scale 0 font ',11'\nset grid noytics xtics\n"
			     "set style fill solid 0.85 noborder\n"
			     "plot datafile using ($2/2):1:($2/2):(0.32):ytic(3) with boxxyerror lc rgb '#4a78b0', "
			     "'' using 2:1:(sprintf('%%d', int($2))) with labels left offset 0.6,0 font ',12'\n",
		maxn, rows - 1);
	return 0;
}

/* The stages of a ranking record as a table (also the study selection's). */
void rp_stage_table(struct strbuf *sb, const struct json *stages)
{
	sb_adds(sb, "<table class=\"stages\">\n<thead><tr><th>stage</th><th>remaining</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; stages && stages->kind == JSON_ARRAY && i < stages->u.arr.n; i++) {
		const struct json *st = stages->u.arr.items[i];
		const struct json *ids = json_get(st, "remaining_action_ids");
		const char *name = rp_str(st, "stage");
		sb_adds(sb, "<tr><th>");
		rp_html_esc(sb, name ? name : "?");
		sb_adds(sb, "</th><td>");
		for (size_t k = 0; ids && ids->kind == JSON_ARRAY && k < ids->u.arr.n; k++) {
			if (k)
				sb_adds(sb, ", ");
			if (ids->u.arr.items[k]->kind == JSON_STRING)
				rp_html_esc(sb, ids->u.arr.items[k]->u.str.s);
		}
		if (!ids || ids->kind != JSON_ARRAY || ids->u.arr.n == 0)
			sb_adds(sb, "<em>none</em>");
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table>\n");
}

static void ranking_section(struct strbuf *sb, const struct page *pg)
{
	const struct rp_rec *rk = rp_model_ranking(pg->m);
	const struct json *stages = ranking_stages(rk);
	if (!stages)
		return;
	sb_adds(sb, "<section id=\"ranking\">\n<h2>Ranking stages</h2>\n");
	rp_page_figure(sb, pg, "ranking", "Policies remaining after each stage of the declared hierarchy; a stage runs only while more than one policy remains.");
	rp_stage_table(sb, stages);
	sb_adds(sb, "</section>\n");
}

const struct rp_section rp_section_ranking = { ranking_chart, ranking_section };
