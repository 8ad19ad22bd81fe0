/* aggregate — multi-window summary (docs/evaluation.md §6 "Aggregate"): per-window rankings,
 * metrics and audits in, one `aggregate_action` record per action and one
 * `aggregate_summary` record out. Each window is a `--window ID FILE...` group. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "eval/evidence.h"
#include "eval/ranking.h"
#include "eval/slo.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "aggregate [-o OUT] --window ID FILE... [--window ID FILE...]...\n";

static const char help[] =
	"\n"
	"Summarise several evaluation windows. Each --window ID is followed by that window's\n"
	"files: one ranking stream from rank(1), the audit stream(s) it ranked, the candidates'\n"
	"metrics streams (repetitions allowed) and the FIFO baseline's metrics. Writes one\n"
	"schednav.aggregate/1 stream: an `aggregate_action` record per action, then one\n"
	"`aggregate_summary` record. See aggregate(1) for every field and the null rules.\n"
	"\n"
	"  -w, --window ID      start a window group; the FILEs after it (operands or -i)\n"
	"                       belong to window ID\n";

static const char version_schemas[] = "reads: " EV_METRICS_SCHEMA ", " EV_AUDIT_SCHEMA ", " EV_RANKING_SCHEMA "\nwrites: " EV_AGGREGATE_SCHEMA "\n";

struct wact {                 /* one action in one window */
	const char *action_id, *policy_fp;
	bool hard, soft, deterministic;
	unsigned repetitions;
	const struct json *alloc, *p95, *evict;
};

struct window {
	const char *id;
	struct ev_input in;
	const struct json *ranking;
	const struct json *fifo;   /* baseline metrics record */
	const char *fifo_action;
	struct wact *acts;
	size_t nacts;
	const char *status;
};

static const char *const schemas[] = { EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, EV_RANKING_SCHEMA, NULL };

static const struct ev_item *find(const struct ev_input *in, const char *type, const char *fp_key, const char *fp)
{
	for (size_t i = 0; i < in->n; i++) {
		const struct ev_item *it = &in->items[i];
		if (strcmp(it->type, type))
			continue;
		const char *have = fp_key ? json_get_str(it->rec, fp_key) : it->stream_fp;
		if (have && !strcmp(have, fp))
			return it;
	}
	return NULL;
}

static bool is_true(const struct json *o, const char *k)
{
	struct json *v = json_get(o, k);
	return v && v->kind == JSON_TRUE;
}

static struct wact *act_in(struct window *w, const char *action_id);

/* Check one window's evidence and extract its per-action facts. */
static void load_window(struct window *w)
{
	char err[2048];
	const struct ev_item *rk = NULL, *second = NULL;
	size_t end = w->in.n;
	for (size_t i = 0; i < w->in.n && !second; i++) {
		if (strcmp(w->in.items[i].type, "ranking"))
			continue;
		if (rk) {
			second = &w->in.items[i];
			end = i + 1;
		} else {
			rk = &w->in.items[i];
		}
	}
	/* The records are verified here, not as each FILE is read (ev_read_verified): a later
	 * window's unreadable file is reported before an earlier window's record that does not
	 * verify, and an item that does not verify before the second ranking it would precede. */
	if (ev_verify_range(&w->in, 0, end, NULL, err, sizeof err))
		die("%s", err);
	if (second)
		die("%s: window '%s' has a second ranking", ev_where(second), w->id);
	if (!rk)
		die("window '%s' has no ranking", w->id);
	w->ranking = rk->rec;
	w->status = json_get_str(rk->rec, "selection_status");
	const char *slo_fp = json_get_str(rk->rec, "slo_fingerprint");
	const char *base_fp = NULL;
	size_t naudits = 0;
	for (size_t i = 0; i < w->in.n; i++) {
		const struct ev_item *it = &w->in.items[i];
		if (strcmp(it->type, "audit"))
			continue;
		naudits++;
		if (!slo_fp || strcmp(json_get_str(it->rec, "slo_fingerprint"), slo_fp))
			die("%s: audit was made with another SLO than window '%s''s ranking", ev_where(it), w->id);
		const char *b = json_get_str(json_get(it->rec, "baseline"), "metrics_fingerprint");
		if (!b)
			die("%s: audit has no FIFO baseline; aggregate needs one to compute deltas", ev_where(it));
		if (base_fp && strcmp(b, base_fp))
			die("%s: audits of window '%s' use different baselines", ev_where(it), w->id);
		base_fp = b;
	}
	const struct ev_item *fifo = base_fp ? find(&w->in, "metrics", NULL, base_fp) : NULL;
	if (!fifo)
		die("window '%s': the baseline metrics '%s' is not among its inputs", w->id, base_fp ? base_fp : "(none)");
	w->fifo = fifo->rec;
	w->fifo_action = json_get_str(fifo->rec, "action_id");
	struct json *cands = json_get(rk->rec, "candidates");
	if (cands->u.arr.n != naudits)
		die("window '%s': the ranking has %zu candidates but %zu audits were given", w->id, cands->u.arr.n, naudits);
	w->nacts = cands->u.arr.n;
	w->acts = xcalloc(w->nacts, sizeof *w->acts);
	for (size_t i = 0; i < w->nacts; i++) {
		const struct json *c = cands->u.arr.items[i];
		const char *afp = json_get_str(c, "audit_fingerprint"), *mfp = json_get_str(c, "metrics_fingerprint");
		const struct ev_item *au = afp ? find(&w->in, "audit", "audit_fingerprint", afp) : NULL;
		const struct ev_item *me = mfp ? find(&w->in, "metrics", NULL, mfp) : NULL;
		if (!au || !me)
			die("window '%s': ranking candidate %zu's %s is not among the inputs", w->id, i + 1, au ? "metrics" : "audit");
		if (strcmp(json_get_str(au->rec, "metrics_fingerprint"), mfp))
			die("%s: audit and ranking disagree on the metrics fingerprint", ev_where(au));
		struct wact *x = &w->acts[i];
		x->action_id = json_get_str(me->rec, "action_id");
		x->policy_fp = json_get_str(me->rec, "policy_fingerprint");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(w->acts[j].action_id, x->action_id))
				die("window '%s': action '%s' ranked twice", w->id, x->action_id);
		x->hard = is_true(c, "evidence_valid") && is_true(c, "hard_slo_passed");
		x->soft = is_true(c, "allocation_soft_target_met");
		x->alloc = json_get(me->rec, "allocation_rate_mean");
		x->p95 = json_get(me->rec, "hp_jct_p95_seconds");
		x->evict = json_get(me->rec, "spot_eviction_rate_per_run");
		/* Deterministic: every run of this action in the window has the same fingerprint. */
		x->deterministic = true;
		for (size_t k = 0; k < w->in.n; k++) {
			const struct ev_item *it = &w->in.items[k];
			if (strcmp(it->type, "metrics") || strcmp(json_get_str(it->rec, "action_id"), x->action_id))
				continue;
			x->repetitions++;
			if (strcmp(it->stream_fp, mfp))
				x->deterministic = false;
		}
	}
	for (size_t k = 0; k < w->in.n; k++) {
		const struct ev_item *it = &w->in.items[k];
		if (!strcmp(it->type, "metrics") && it->rec != w->fifo && !act_in(w, json_get_str(it->rec, "action_id")))
			die("%s: metrics of action '%s' is neither a ranked candidate, a repetition of one, nor the baseline",
			    ev_where(it), json_get_str(it->rec, "action_id"));
	}
}

static struct wact *act_in(struct window *w, const char *action_id)
{
	for (size_t i = 0; i < w->nacts; i++)
		if (!strcmp(w->acts[i].action_id, action_id))
			return &w->acts[i];
	return NULL;
}

struct series { double *v; size_t n; };

static void add(struct series *s, double x)
{
	s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = x;
}

static struct json *summary_of(struct arena *a, struct series *s, long long nulls)
{
	struct json *o = json_object(a);
	json_set(a, o, "count", json_int(a, (long long)s->n));
	json_set(a, o, "null_count", json_int(a, nulls));
	json_set(a, o, "stats", ev_stats9(a, s->v, s->n));
	return o;
}

static struct json *action_record(struct arena *a, struct window *ws, size_t nw, const struct wact *first)
{
	long long det = 0, hard = 0, soft = 0, alloc_null = 0, diff_null = 0, rel_null = 0, rel_undef = 0, ev_null = 0;
	long long pos = 0, zero = 0, neg = 0;
	struct series alloc = { 0 }, diff = { 0 }, rel = { 0 }, evict = { 0 };
	for (size_t i = 0; i < nw; i++) {
		const struct wact *x = act_in(&ws[i], first->action_id);
		const struct json *fa = json_get(ws[i].fifo, "allocation_rate_mean"), *fp = json_get(ws[i].fifo, "hp_jct_p95_seconds");
		det += x->deterministic;
		hard += x->hard;
		soft += x->soft;
		if (json_is_num(x->alloc))
			add(&alloc, json_num(x->alloc));
		else
			alloc_null++;
		if (json_is_num(x->alloc) && json_is_num(fa)) {
			double d = json_num(x->alloc) - json_num(fa);
			add(&diff, d);
			pos += d > 0;
			zero += d == 0;
			neg += d < 0;
		} else
			diff_null++;
		if (!json_is_num(x->p95) || !json_is_num(fp))
			rel_null++;
		else if (json_num(fp) == 0.0)
			rel_undef++;
		else
			add(&rel, (json_num(x->p95) - json_num(fp)) / json_num(fp));
		if (json_is_num(x->evict))
			add(&evict, json_num(x->evict));
		else
			ev_null++;
	}
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "aggregate_action"));
	json_set(a, rec, "action_id", json_str(a, first->action_id));
	json_set(a, rec, "policy_fingerprint", json_str(a, first->policy_fp));
	json_set(a, rec, "window_count", json_int(a, (long long)nw));
	json_set(a, rec, "deterministic_window_count", json_int(a, det));
	json_set(a, rec, "hard_pass_window_count", json_int(a, hard));
	json_set(a, rec, "soft_pass_window_count", json_int(a, soft));
	json_set(a, rec, "hard_pass_rate", json_real(a, num_round((double)hard / (double)nw, 9)));
	json_set(a, rec, "allocation_rate_mean", summary_of(a, &alloc, alloc_null));
	struct json *d = summary_of(a, &diff, diff_null);
	json_set(a, d, "positive_count", json_int(a, pos));
	json_set(a, d, "zero_count", json_int(a, zero));
	json_set(a, d, "negative_count", json_int(a, neg));
	json_set(a, rec, "allocation_minus_fifo", d);
	struct json *r = summary_of(a, &rel, rel_null);
	json_set(a, r, "relative_undefined_count", json_int(a, rel_undef));
	json_set(a, rec, "hp_jct_p95_relative_to_fifo", r);
	json_set(a, rec, "spot_eviction_rate_per_run", summary_of(a, &evict, ev_null));
	ev_self_fp_stamp(a, rec, "aggregate_fingerprint");
	free(alloc.v);
	free(diff.v);
	free(rel.v);
	free(evict.v);
	return rec;
}

static struct json *summary_record(struct arena *a, struct window *ws, size_t nw)
{
	struct json *rec = json_object(a), *wids = json_array(a), *aids = json_array(a);
	long long all_hard = 0, st_sel = 0, st_tie = 0, st_none = 0, with_pass = 0, uplift_null = 0;
	struct series up = { 0 };
	struct json *byw = json_array(a);
	for (size_t i = 0; i < nw; i++) {
		json_push(a, wids, json_str(a, ws[i].id));
		bool every = true, any = false, have = false;
		double best = 0;
		for (size_t k = 0; k < ws[i].nacts; k++) {
			const struct wact *x = &ws[i].acts[k];
			every = every && x->hard;
			if (!x->hard)
				continue;
			any = true;
			if (json_is_num(x->alloc) && (!have || json_num(x->alloc) > best)) {
				best = json_num(x->alloc);
				have = true;
			}
		}
		all_hard += every;
		st_sel += !strcmp(ws[i].status, "selected");
		st_tie += !strcmp(ws[i].status, "tie_requires_human_approval");
		st_none += !strcmp(ws[i].status, "no_eligible_policy");
		if (!any)
			continue;
		with_pass++;
		const struct json *fa = json_get(ws[i].fifo, "allocation_rate_mean");
		if (!have || !json_is_num(fa)) {
			uplift_null++;
			continue;
		}
		double u = best - json_num(fa);
		add(&up, u);
		struct json *o = json_object(a);
		json_set(a, o, "window_id", json_str(a, ws[i].id));
		json_set(a, o, "uplift", json_real(a, num_round(u, 9)));
		json_push(a, byw, o);
	}
	struct json *freq = json_array(a);
	for (size_t k = 0; k < ws[0].nacts; k++) {
		const char *id = ws[0].acts[k].action_id;
		json_push(a, aids, json_str(a, id));
		long long cnt = 0;
		for (size_t i = 0; i < nw; i++) {
			struct json *sel = json_get(ws[i].ranking, "selected_action_ids");
			for (size_t j = 0; j < sel->u.arr.n; j++)
				cnt += !strcmp(sel->u.arr.items[j]->u.str.s, id);
		}
		struct json *o = json_object(a);
		json_set(a, o, "action_id", json_str(a, id));
		json_set(a, o, "selected_window_count", json_int(a, cnt));
		json_push(a, freq, o);
	}
	struct json *counts = json_object(a);
	json_set(a, counts, "selected", json_int(a, st_sel));
	json_set(a, counts, "tie_requires_human_approval", json_int(a, st_tie));
	json_set(a, counts, "no_eligible_policy", json_int(a, st_none));
	struct json *best = json_object(a);
	json_set(a, best, "window_count", json_int(a, with_pass));
	json_set(a, best, "null_count", json_int(a, uplift_null));
	json_set(a, best, "stats", ev_stats9(a, up.v, up.n));
	json_set(a, best, "by_window", byw);
	json_set(a, best, "reason", up.n ? json_null(a) :
	         json_str(a, with_pass ? "no hard-passing window has both allocation values" : "no window has a hard-passing action"));
	free(up.v);
	json_set(a, rec, "type", json_str(a, "aggregate_summary"));
	json_set(a, rec, "window_ids", wids);
	json_set(a, rec, "action_ids", aids);
	json_set(a, rec, "baseline_action_id", json_str(a, ws[0].fifo_action));
	json_set(a, rec, "all_hard_pass_window_count", json_int(a, all_hard));
	json_set(a, rec, "selection_status_counts", counts);
	json_set(a, rec, "frontier_frequency", freq);
	json_set(a, rec, "best_hard_pass_uplift", best);
	ev_self_fp_stamp(a, rec, "summary_fingerprint");
	return rec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "window", required_argument, NULL, 'w' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, version_schemas);
	struct arena a;
	arena_init(&a);
	struct window *ws = NULL;
	size_t nw = 0, cap = 0;
	char err[1024];
	int c;
	/* Leading '-': operands come back in order as option 1, so each FILE (or -i FILE)
	 * joins the last --window. */
	while ((c = getopt_long(argc, argv, "-:w:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			for (size_t i = 0; i < nw; i++)
				if (!strcmp(ws[i].id, optarg))
					usage_fail(usage, "duplicate --window id");
			if (!*optarg)
				usage_fail(usage, "empty --window id");
			ws = xgrow(ws, &cap, nw + 1, sizeof *ws);
			memset(&ws[nw], 0, sizeof *ws);
			ws[nw].id = optarg;
			ev_input_init(&ws[nw++].in);
			break;
		case 1:
		case 'i':
			if (!nw)
				usage_fail(usage, "a FILE before the first --window");
			if (ev_read(&ws[nw - 1].in, optarg, schemas, &a, err, sizeof err))
				die("%s", err);
			break;
		default: cli_option(&cli, c, argv);
		}
	}
	const char *output = cli.output;
	if (!nw)
		usage_fail(usage, "no --window given");
	for (size_t i = 0; i < nw; i++) {
		if (ws[i].in.n == 0)
			die("window '%s' has no records", ws[i].id);
		load_window(&ws[i]);
		if (strcmp(ws[i].fifo_action, ws[0].fifo_action))
			die("window '%s' uses baseline '%s', window '%s' uses '%s'", ws[i].id, ws[i].fifo_action, ws[0].id, ws[0].fifo_action);
		bool same = ws[i].nacts == ws[0].nacts;
		for (size_t k = 0; same && k < ws[0].nacts; k++) {
			struct wact *x = act_in(&ws[i], ws[0].acts[k].action_id);
			if (x && strcmp(x->policy_fp, ws[0].acts[k].policy_fp))
				die("window '%s': action '%s' has policy '%s', window '%s' has '%s'", ws[i].id, x->action_id,
				    x->policy_fp, ws[0].id, ws[0].acts[k].policy_fp);
			same = x != NULL;
		}
		if (!same)
			die("window '%s' ranks another set of actions than window '%s'", ws[i].id, ws[0].id);
	}
	struct json *hdr = nd_header_new(&a, EV_AGGREGATE_SCHEMA, "aggregate");
	struct json *ids = json_array(&a);
	for (size_t i = 0; i < nw; i++) {
		json_push(&a, ids, json_str(&a, ws[i].id));
		for (size_t k = 0; k < ws[i].in.nstreams; k++)
			nd_header_add_stream(&a, hdr, ws[i].in.streams[k].path, ws[i].in.streams[k].schema, ws[i].in.streams[k].fp);
	}
	json_set(&a, json_get(hdr, "params"), "window_ids", ids);
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	for (size_t k = 0; k < ws[0].nacts; k++)
		if (ndw_record(w, action_record(&a, ws, nw, &ws[0].acts[k]), err, sizeof err))
			die("%s", err);
	if (ndw_record(w, summary_record(&a, ws, nw), err, sizeof err) || ndw_end(w, NULL, err, sizeof err) ||
	    ndw_close(w, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i < nw; i++) {
		free(ws[i].acts);
		ev_input_release(&ws[i].in);
	}
	free(ws);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
