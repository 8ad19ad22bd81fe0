/* The plain-text decision table: one row per policy, then the decision and its approval. */
#include "report/report.h"
#include "report/format.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

enum { NCOLS = 8 };

static const char *const heads[NCOLS] = {
	"policy", "allocation", "HP p95 JCT", "Spot p95 JCT", "evictions/run", "preemptions", "SLO", "decision",
};

static void cell_metric(struct strbuf *sb, const struct rp_policy *p, const char *metric)
{
	if (!p->metrics) {
		sb_adds(sb, "-");
		return;
	}
	rp_fmt_metric(sb, metric, rp_num(p->metrics->rec, metric));
}

static void audit_cell(struct strbuf *sb, const struct rp_policy *p)
{
	if (!p->audit) {
		sb_adds(sb, "-");
		return;
	}
	const struct json *ok = json_get(p->audit->rec, "audit_passed");
	if (ok && ok->kind == JSON_TRUE) {
		sb_adds(sb, "pass");
		return;
	}
	size_t hard = 0;
	const struct json *res = rp_audit_constraints(p->audit->rec);
	for (size_t i = 0; i < res->u.arr.n; i++) {
		const struct json *r = res->u.arr.items[i];
		const char *sev = rp_str(r, "severity"), *st = rp_str(r, "status");
		if (sev && st && !strcmp(sev, "hard") && strcmp(st, "passed"))
			hard++;
	}
	if (hard)
		sb_addf(sb, "fail (%zu hard)", hard);
	else
		sb_adds(sb, "fail (evidence)");
}

static void outcome_cell(struct strbuf *sb, const struct rp_model *m, const struct rp_policy *p)
{
	struct strbuf why;
	sb_init(&why);
	const char *o = rp_policy_outcome(m, p->action_id, &why);
	if (!strcmp(o, "out"))
		sb_addf(sb, "out at %s", why.buf);
	else
		sb_adds(sb, *o ? o : "-");
	sb_release(&why);
}

/* Width of a cell in characters (UTF-8 continuation bytes do not count). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void pad(struct strbuf *sb, const char *s, size_t w, bool right)
{
	size_t n = width(s);
	if (right)
		for (; n < w; n++)
			sb_addc(sb, ' ');
	sb_adds(sb, s);
	if (!right)
		for (; n < w; n++)
			sb_addc(sb, ' ');
}

static void failures(struct strbuf *sb, const struct rp_model *m, const struct rp_policy *const *order)
{
	bool any = false;
	for (size_t i = 0; i < m->npolicies; i++) {
		const struct rp_policy *p = order[i];
		if (!p->audit)
			continue;
		const struct json *res = rp_audit_constraints(p->audit->rec);
		for (size_t k = 0; k < res->u.arr.n; k++) {
			const struct json *r = res->u.arr.items[k];
			const char *st = rp_str(r, "status"), *metric = rp_str(r, "metric");
			if (!st || !strcmp(st, "passed"))
				continue;
			if (!any)
				sb_adds(sb, "\nSLO constraints not met:\n");
			any = true;
			sb_addf(sb, "  %s: %s %s (%s): observed ", p->action_id, rp_str(r, "id") ? rp_str(r, "id") : "?",
				st, rp_str(r, "severity") ? rp_str(r, "severity") : "?");
			rp_fmt_metric(sb, metric, rp_num(r, "observed"));
			sb_addf(sb, ", needs %s ", rp_str(r, "operator") ? rp_str(r, "operator") : "?");
			rp_fmt_metric(sb, metric, rp_num(r, "threshold"));
			sb_addc(sb, '\n');
		}
	}
}

static void decision(struct strbuf *sb, const struct rp_model *m)
{
	const struct rp_rec *rk = rp_model_ranking(m);
	if (!rk) {
		sb_adds(sb, "\ndecision: none (no ranking in the input)\n");
		return;
	}
	const char *status = rp_ranking_status(rk->rec);
	const struct json *sel = rp_ranking_selected(rk->rec);
	sb_addf(sb, "\ndecision: %s", status);
	for (size_t i = 0; sel && i < sel->u.arr.n; i++)
		if (sel->u.arr.items[i]->kind == JSON_STRING)
			sb_addf(sb, "%s%s", i ? ", " : ": ", sel->u.arr.items[i]->u.str.s);
	sb_addf(sb, "\nranking: %s (fingerprint %s)\n", rk->path, rp_ranking_fingerprint(rk));
	const struct rp_rec *ap = rp_decision_approval(m, rk);
	if (ap) {
		const char *who = rp_str(ap->rec, "approved_by"), *when = rp_str(ap->rec, "approved_at");
		const char *act = rp_str(ap->rec, "action_id");
		sb_addf(sb, "approval: approved %s by %s at %s\n", act ? act : "?", who ? who : "?", when ? when : "?");
		return;
	}
	if (!sel || sel->u.arr.n == 0) {
		sb_adds(sb, "approval: nothing to approve (no policy passed the hard SLOs; keep the current policy)\n");
		return;
	}
	if (!strcmp(status, "selected"))
		sb_adds(sb, "approval: PENDING human approval of the selection; to approve it run:\n");
	else
		sb_adds(sb, "approval: PENDING human approval: a person must choose one of the tied policies; run one of:\n");
	for (size_t i = 0; i < sel->u.arr.n; i++) {
		if (sel->u.arr.items[i]->kind != JSON_STRING)
			continue;
		sb_adds(sb, "  ");
		rp_approve_command(sb, m, rk, sel->u.arr.items[i]->u.str.s);
		sb_addc(sb, '\n');
	}
}

static int by_action_id(const void *a, const void *b)
{
	const struct rp_policy *const *x = a, *const *y = b;
	return strcmp((*x)->action_id ? (*x)->action_id : "", (*y)->action_id ? (*y)->action_id : "");
}

/* The rows in action-id order, whatever order the files came in (a shell glob's). */
static const struct rp_policy **policy_order(const struct rp_model *m)
{
	const struct rp_policy **order = xcalloc(m->npolicies + 1, sizeof *order);
	for (size_t i = 0; i < m->npolicies; i++)
		order[i] = &m->policies[i];
	qsort(order, m->npolicies, sizeof *order, by_action_id);
	return order;
}

void rp_table_write(struct strbuf *sb, const struct rp_model *m)
{
	size_t rows = m->npolicies;
	const struct rp_policy **order = policy_order(m);
	struct strbuf *cells = xcalloc((rows + 1) * NCOLS, sizeof *cells);
	for (size_t c = 0; c < NCOLS; c++) {
		sb_init(&cells[c]);
		sb_adds(&cells[c], heads[c]);
	}
	for (size_t r = 0; r < rows; r++) {
		const struct rp_policy *p = order[r];
		struct strbuf *row = &cells[(r + 1) * NCOLS];
		for (size_t c = 0; c < NCOLS; c++)
			sb_init(&row[c]);
		sb_adds(&row[0], p->action_id);
		cell_metric(&row[1], p, "allocation_rate_mean");
		cell_metric(&row[2], p, "hp_jct_p95_seconds");
		cell_metric(&row[3], p, "spot_jct_p95_seconds");
		cell_metric(&row[4], p, "spot_eviction_rate_per_run");
		cell_metric(&row[5], p, "preemption_event_count");
		audit_cell(&row[6], p);
		outcome_cell(&row[7], m, p);
	}
	size_t w[NCOLS] = { 0 };
	for (size_t r = 0; r <= rows; r++)
		for (size_t c = 0; c < NCOLS; c++)
			if (width(cells[r * NCOLS + c].buf) > w[c])
				w[c] = width(cells[r * NCOLS + c].buf);
	for (size_t r = 0; r <= rows; r++) {
		for (size_t c = 0; c < NCOLS; c++) {
			bool right = c >= 1 && c <= 5;
			if (c)
				sb_adds(sb, "  ");
			pad(sb, cells[r * NCOLS + c].buf, c + 1 == NCOLS ? 0 : w[c], right);
		}
		sb_addc(sb, '\n');
	}
	for (size_t i = 0; i < (rows + 1) * NCOLS; i++)
		sb_release(&cells[i]);
	free(cells);
	failures(sb, m, order);
	free((void *)order);
	decision(sb, m);
}
