/* Number formatting and the decision facts shared by the text table and the HTML page. */
#include "report/report.h"
#include "report/format.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

void rp_fmt_seconds(struct strbuf *sb, double v)
{
	if (isnan(v))
		sb_adds(sb, "n/a");
	else if (fabs(v) >= 100.0)
		sb_addf(sb, "%.0f s", v);
	else
		sb_addf(sb, "%.3g s", v);
}

void rp_fmt_percent(struct strbuf *sb, double v)
{
	if (isnan(v))
		sb_adds(sb, "n/a");
	else
		sb_addf(sb, "%.2f%%", v * 100.0);
}

void rp_fmt_plain(struct strbuf *sb, double v)
{
	if (isnan(v))
		sb_adds(sb, "n/a");
	else if (v == floor(v) && fabs(v) < 1e15)
		sb_addf(sb, "%.0f", v);
	else
		sb_addf(sb, "%.4g", v);
}

void rp_fmt_metric(struct strbuf *sb, const char *metric, double v)
{
	if (metric && ends_with(metric, "_seconds"))
		rp_fmt_seconds(sb, v);
	else if (metric && !strcmp(metric, "allocation_rate_mean"))
		rp_fmt_percent(sb, v);
	else
		rp_fmt_plain(sb, v);
}

const struct rp_rec *rp_decision_approval(const struct rp_model *m, const struct rp_rec *ranking)
{
	const struct rp_rec *hit = NULL;
	const char *want = ranking ? rp_str(ranking->rec, "ranking_fingerprint") : NULL;
	for (size_t i = 0; want && i < m->napprovals; i++) {
		const char *fp = rp_str(m->approvals[i].rec, "ranking_fingerprint");
		if (fp && !strcmp(fp, want))
			hit = &m->approvals[i];
	}
	return hit;
}

/* Quote for a POSIX shell only when needed. */
static void shell_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == strlen(s)) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_addc(sb, *s);
	sb_addc(sb, '\'');
}

void rp_approve_command(struct strbuf *sb, const struct rp_model *m, const struct rp_rec *ranking, const char *action_id)
{
	shell_word(sb, m->approve_program ? m->approve_program : "approve");
	sb_adds(sb, " --ranking ");
	shell_word(sb, ranking->path);
	sb_adds(sb, " --action ");
	shell_word(sb, action_id);
	if (m->approvals_log) {
		sb_adds(sb, " --log ");
		shell_word(sb, m->approvals_log);
	}
	sb_adds(sb, " --by 'YOUR NAME' --reason 'WHY'");
}

const char *rp_ranking_fingerprint(const struct rp_rec *ranking)
{
	const char *fp = rp_str(ranking->rec, "ranking_fingerprint");
	return fp ? fp : ranking->fingerprint;
}

const char *rp_policy_outcome(const struct rp_model *m, const char *action_id, struct strbuf *why)
{
	const struct rp_rec *rk = rp_model_ranking(m);
	if (!rk)
		return "";
	const char *status = rp_ranking_status(rk->rec);
	const struct json *sel = rp_ranking_selected(rk->rec);
	if (rp_json_has_str(sel, action_id)) {
		if (!strcmp(status, "selected"))
			return "selected";
		return "tied";
	}
	/* The first stage that dropped it. */
	const struct json *stages = json_get(rk->rec, "stages");
	bool was_candidate = false;
	const struct json *cands = json_get(rk->rec, "candidates");
	for (size_t i = 0; cands && cands->kind == JSON_ARRAY && i < cands->u.arr.n; i++) {
		const struct json *c = cands->u.arr.items[i];
		const char *id = rp_str(json_get(c, "action"), "action_id");
		if (!id)
			id = rp_str(c, "action_id");
		if (id && !strcmp(id, action_id))
			was_candidate = true;
	}
	for (size_t i = 0; stages && stages->kind == JSON_ARRAY && i < stages->u.arr.n; i++) {
		const struct json *st = stages->u.arr.items[i];
		if (!rp_json_has_str(json_get(st, "remaining_action_ids"), action_id)) {
			const char *name = rp_str(st, "stage");
			if (!name)
				name = rp_str(st, "name");
			if (i > 0 || was_candidate || !cands) {
				if (why)
					sb_adds(why, name ? name : "?");
				return "out";
			}
			return "";
		}
	}
	return "";
}
