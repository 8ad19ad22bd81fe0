/* adaptive-eval — the adaptive holdout benchmark over the evaluation windows: for FIFO, the
 * calibration's best static arm, workload-rule-v1, the agent and the full-catalogue oracle,
 * per window the frontier of the controller's candidates and of the whole catalogue,
 * coverage, exact match, the allocation uplift range over FIFO and the regret against the
 * catalogue's best hard-pass allocation; per controller the counts, means and the
 * evaluations saved (docs/studies-rules.md "Adaptive holdout"). */
#include "core/arena.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "eval/adaptive.h"
#include "eval/evidence.h"
#include "eval/ranking.h"
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_SCHEMA "schednav.adaptive-evaluation/1"
#define EPSILON 1e-12

static const char usage[] =
	"adaptive-eval --design FILE --selection FILE [--band B] [-o OUT] [RECEIPT...]";

static const char help[] =
	"\n"
	"Read the frozen design with both controllers (adaptive-design --agent), the best-static\n"
	"selection of the calibration windows (study-select --rule best-static) and the window\n"
	"receipts (window_result records) of every evaluation window, and write one\n"
	"adaptive_controller record per controller: fifo, best_static, workload_rule, agent,\n"
	"catalog_oracle. Per window: the frontier of the candidates by the declared hierarchy\n"
	"(hard SLOs, allocation band B, min Spot p95 JCT, min evictions per run), the oracle\n"
	"frontier over the whole catalogue, coverage (they intersect), exact match (equal sets),\n"
	"the frontier's allocation minus FIFO's as [lower, upper], the regret of the candidates'\n"
	"best hard-pass allocation against the catalogue's. Per controller: counts, rates and\n"
	"means (9 digits), the evaluations and their reduction against the full catalogue.\n"
	"\n"
	"  -d, --design FILE      the design stream with the rule's and the agent's selections\n"
	"  -s, --selection FILE   the best-static selection stream (rule calibration-best-static/v1)\n"
	"  -b, --band B           the allocation tie band of the frontier (default 0.01: the SLO's)\n";

static const char schemas[] = "reads: " AD_DESIGN_STREAM_SCHEMA ", " AD_SELECTION_STREAM_SCHEMA ", " AD_WINDOW_RESULT_SCHEMA "\n"
	"writes: " EVAL_SCHEMA "\n";

/* One action in one evaluation window, from its receipt. */
struct outcome {
	bool hard_passed, has[3];
	double v[3];   /* allocation, Spot p95 JCT, evictions per run */
};

struct window {
	const struct ad_window *w;
	struct outcome *by_action;   /* design catalogue order */
	bool seen;
};

struct input {
	struct ad_design d;
	struct ad_selections rule, agent;
	const char *rule_fp, *agent_fp, *agent_id, *agent_model;
	const char *static_status, *static_fp;
	const char **static_ids;
	size_t nstatic;
	struct window *w;   /* evaluation windows, design order */
	size_t nw;
};

/* The header being built: every stream read is listed in its inputs. */
static struct arena *hdr_arena;
static struct json *hdr;

/* Read every stream of path: fn sees each body record; each stream's fingerprint goes to
 * the output header's inputs under schema. */
static void read_stream(const char *path, const char *schema, struct arena *a,
			void (*fn)(void *ctx, struct json *rec, const char *where), void *ctx)
{
	char err[1024], where[1200];
	struct json *rec;
	enum nd_event ev;
	struct nd_reader *r = cli_open_reader(path);
	while ((ev = ndr_next(r, a, &rec, err, sizeof err)) > 0)
		if (ev == ND_RECORD) {
			snprintf(where, sizeof where, "%s:%lu", ndr_name(r), ndr_lineno(r));
			fn(ctx, rec, where);
		} else if (ev == ND_END)
			nd_header_add_stream(hdr_arena, hdr, path, schema, ndr_fingerprint(r));
	if (ev == ND_ERROR)
		die("%s", err);
	/* Close before a last message: the reader's buffers are then not leaked at exit. */
	unsigned streams = ndr_streams(r);
	char name[1024];
	snprintf(name, sizeof name, "%s", ndr_name(r));
	ndr_close(r);
	if (streams == 0)
		die("%s: empty input: no stream", name);
}

struct design_read {
	struct arena *a;
	struct json *design, *rule, *agent;
};

static void on_design(void *ctx, struct json *rec, const char *where)
{
	struct design_read *dr = ctx;
	const char *type = json_get_str(rec, "type");
	struct json **slot = !type ? NULL : !strcmp(type, "adaptive_design") ? &dr->design :
			     !strcmp(type, "rule_selections") ? &dr->rule : !strcmp(type, "controller_selections") ? &dr->agent : NULL;
	if (!slot)
		return;
	if (*slot)
		die("%s: a second %s record", where, type);
	*slot = rec;
}

static void read_design(struct input *in, const char *path, struct arena *a)
{
	char err[1024];
	struct design_read dr = { a, NULL, NULL, NULL };
	read_stream(path, AD_DESIGN_STREAM_SCHEMA, a, on_design, &dr);
	if (!dr.design)
		die("%s: no adaptive_design record", path);
	if (ev_ad_design_parse(&in->d, dr.design, a, err, sizeof err))
		die("%s: %s", path, err);
	if (!dr.rule)
		die("%s: no rule_selections record of '%s'", path, AD_RULE_ID);
	if (!dr.agent)
		die("%s: no agent controller_selections record (make the design with adaptive-design --agent)", path);
	if (ev_ad_rule_applies(&in->d, err, sizeof err))
		die("%s: %s", path, err);
	if (!json_identical(dr.rule, ev_ad_rule_record(a, &in->d)))
		die("%s: the '%s' selections are not the rule's for this design (edited?)", path, AD_RULE_ID);
	if (ev_ad_rule_parse(&in->rule, dr.rule, &in->d, a, err, sizeof err) || ev_ad_agent_parse(&in->agent, dr.agent, &in->d, a, err, sizeof err))
		die("%s: %s", path, err);
	in->rule_fp = in->rule.fingerprint;
	in->agent_fp = in->agent.fingerprint;
	in->agent_id = in->agent.controller_id;
	in->agent_model = in->agent.model_id;
	in->nw = in->d.nwindows - in->d.ncalibration;
	in->w = xcalloc(in->nw, sizeof *in->w);
	for (size_t k = 0; k < in->nw; k++) {
		in->w[k].w = &in->d.windows[in->d.ncalibration + k];
		in->w[k].by_action = xcalloc(in->d.nactions, sizeof *in->w[k].by_action);
	}
}

static long action_index(const struct ad_design *d, const char *id)
{
	for (size_t i = 0; i < d->nactions; i++)
		if (!strcmp(d->actions[i], id))
			return (long)i;
	return -1;
}

struct selection_read {
	struct input *in;
	struct json *rec;
};

static void on_selection(void *ctx, struct json *rec, const char *where)
{
	struct selection_read *sr = ctx;
	const char *type = json_get_str(rec, "type");
	if (!type || strcmp(type, "selection"))
		return;
	if (sr->rec)
		die("%s: a second selection record", where);
	sr->rec = rec;
}

/* The best-static selection: its rule, its own fingerprint, the calibration windows of the
 * design in order, the catalogue's actions and policies. */
static void read_selection(struct input *in, const char *path, struct arena *a)
{
	struct selection_read sr = { in, NULL };
	read_stream(path, AD_SELECTION_STREAM_SCHEMA, a, on_selection, &sr);
	const struct json *rec = sr.rec;
	if (!rec)
		die("%s: no selection record", path);
	const char *rule = json_get_str(rec, "rule");
	if (!rule || strcmp(rule, "calibration-best-static/v1"))
		die("%s: the selection's rule is '%s', not 'calibration-best-static/v1' (study-select --rule best-static)", path, rule ? rule : "?");
	char verr[400];
	if (ev_verify(rec, verr, sizeof verr))
		die("%s: %s", path, verr);
	const struct json *ids = json_get(rec, "window_ids");
	bool same = ids && ids->kind == JSON_ARRAY && ids->u.arr.n == in->d.ncalibration;
	for (size_t i = 0; same && i < in->d.ncalibration; i++)
		same = ids->u.arr.items[i]->kind == JSON_STRING && !strcmp(ids->u.arr.items[i]->u.str.s, in->d.windows[i].id);
	if (!same)
		die("%s: the selection was not made on the design's calibration windows (in order)", path);
	const struct json *cands = json_get(rec, "candidates");
	if (!cands || cands->kind != JSON_ARRAY || cands->u.arr.n != in->d.nactions)
		die("%s: the selection's candidates are not the design's catalogue", path);
	for (size_t i = 0; i < cands->u.arr.n; i++) {
		const char *id = json_get_str(cands->u.arr.items[i], "action_id"), *pfp = json_get_str(cands->u.arr.items[i], "policy_fingerprint");
		long k = id ? action_index(&in->d, id) : -1;
		if (k < 0 || !pfp || strcmp(pfp, in->d.policy_fps[k]))
			die("%s: candidate '%s' is not an action of the design's catalogue (or has another policy)", path, id ? id : "?");
	}
	in->static_status = json_get_str(rec, "selection_status");
	in->static_fp = json_get_str(rec, "fingerprint");
	const struct json *sel = json_get(rec, "selected_action_ids");
	if (!in->static_status || !sel || sel->kind != JSON_ARRAY)
		die("%s: malformed selection record", path);
	in->nstatic = sel->u.arr.n;
	in->static_ids = arena_alloc(a, (in->nstatic + 1) * sizeof *in->static_ids);
	for (size_t i = 0; i < in->nstatic; i++) {
		const struct json *v = sel->u.arr.items[i];
		if (v->kind != JSON_STRING || action_index(&in->d, v->u.str.s) < 0)
			die("%s: selected action %zu is not in the catalogue", path, i);
		in->static_ids[i] = v->u.str.s;
	}
	bool ok = (!strcmp(in->static_status, "selected") && in->nstatic == 1) ||
		  (!strcmp(in->static_status, "tie_requires_human_approval") && in->nstatic > 1) ||
		  (!strcmp(in->static_status, "no_eligible_arm") && in->nstatic == 0);
	if (!ok)
		die("%s: selection status '%s' does not fit %zu selected actions", path, in->static_status, in->nstatic);
}

static bool num_or_null(const struct json *o, const char *key, double *out, const char *where)
{
	const struct json *v = json_get(o, key);
	if (!v)
		die("%s: window_result policy has no '%s'", where, key);
	if (v->kind == JSON_NULL)
		return false;
	if (!json_is_num(v) || !isfinite(json_num(v)))
		die("%s: '%s' must be a finite number or null", where, key);
	*out = json_num(v);
	return true;
}

/* One window receipt: an evaluation window of the design, once, with the whole catalogue. */
static void on_receipt(void *ctx, struct json *rec, const char *where)
{
	static const char *const metric_keys[3] = { "allocation_rate_mean", "spot_jct_p95_seconds", "spot_eviction_rate_per_run" };
	struct input *in = ctx;
	const char *type = json_get_str(rec, "type");
	if (!type || strcmp(type, "window_result"))
		return;
	const char *id = json_get_str(rec, "window_id"), *part = json_get_str(rec, "partition"), *base = json_get_str(rec, "baseline_action_id");
	if (!id || !part || !base)
		die("%s: window_result without window_id, partition or baseline_action_id", where);
	size_t k = 0;
	while (k < in->nw && strcmp(in->w[k].w->id, id))
		k++;
	if (k == in->nw || strcmp(part, "evaluation"))
		die("%s: window '%s' (partition '%s') is not an evaluation window of the design", where, id, part);
	struct window *w = &in->w[k];
	if (w->seen)
		die("%s: a second receipt for window '%s'", where, id);
	w->seen = true;
	double s, e;
	if (!json_get_num(rec, "evaluation_start", &s) || !json_get_num(rec, "evaluation_end", &e) || s != w->w->start || e != w->w->end)
		die("%s: window '%s': the receipt's evaluation window is not the design's", where, id);
	if (strcmp(base, in->d.baseline))
		die("%s: window '%s' was audited against '%s', not the design's baseline '%s'", where, id, base, in->d.baseline);
	const struct json *pols = json_get(rec, "policies");
	if (!pols || pols->kind != JSON_ARRAY || pols->u.arr.n != in->d.nactions)
		die("%s: window '%s': the receipt does not hold the design's %zu actions", where, id, in->d.nactions);
	bool *got = xcalloc(in->d.nactions, sizeof *got);
	for (size_t i = 0; i < pols->u.arr.n; i++) {
		const struct json *p = pols->u.arr.items[i];
		const char *aid = json_get_str(p, "action_id"), *pfp = json_get_str(p, "policy_fingerprint");
		long j = aid ? action_index(&in->d, aid) : -1;
		if (j < 0)
			die("%s: window '%s': action '%s' is not in the design's catalogue", where, id, aid ? aid : "?");
		if (got[j])
			die("%s: window '%s': action '%s' appears twice", where, id, aid);
		if (!pfp || strcmp(pfp, in->d.policy_fps[j]))
			die("%s: window '%s': action '%s' ran policy '%s', not the design's '%s'", where, id, aid, pfp ? pfp : "?", in->d.policy_fps[j]);
		got[j] = true;
		const struct json *hard = json_get(p, "hard_slo_passed");
		if (!hard || (hard->kind != JSON_TRUE && hard->kind != JSON_FALSE))
			die("%s: window '%s': action '%s' has no boolean 'hard_slo_passed'", where, id, aid);
		struct outcome *o = &w->by_action[j];
		o->hard_passed = hard->kind == JSON_TRUE;
		for (int m = 0; m < 3; m++) {
			o->has[m] = num_or_null(p, metric_keys[m], &o->v[m], where);
			if (!o->has[m] && o->hard_passed)
				die("%s: window '%s': action '%s' passes the hard SLOs but its '%s' is null; it cannot be ranked",
				    where, id, aid, metric_keys[m]);
		}
		if (j == action_index(&in->d, in->d.baseline) && !o->has[0])
			die("%s: window '%s': the baseline's allocation is null", where, id);
	}
	free(got);
}

/* A controller: its candidates in one evaluation window (k). */
struct controller {
	const char *id, *kind, *fingerprint, *source_id, *model;
	const char *status;          /* "evaluated" or the best-static outcome */
	const struct ad_selections *sel;   /* NULL: the same set in every window */
	const char **fixed;
	size_t nfixed;
};

static size_t candidates_of(const struct controller *c, size_t k, const char ***ids)
{
	if (c->sel) {
		*ids = c->sel->candidates[k];
		return c->sel->ncandidates[k];
	}
	*ids = c->fixed;
	return c->nfixed;
}

/* Frontier over the actions marked in member (catalogue order): hard pass, then the hierarchy. */
static size_t frontier(const struct window *w, size_t n, const bool *member, double band, bool *alive, double (*v)[3])
{
	for (size_t i = 0; i < n; i++) {
		alive[i] = member[i] && w->by_action[i].hard_passed;
		memcpy(v[i], w->by_action[i].v, sizeof v[i]);
	}
	return ev_rank_narrow((const double (*)[3])v, alive, n, band, NULL, NULL);
}

static double mean9(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return num_round(s / (double)n, 9);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Linear-interpolation quantile of the original benchmark, rounded to 9 digits; sorts v. */
static double quantile9(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, cmp_double);
	double pos = (double)(n - 1) * p;
	size_t lo = (size_t)pos, hi = lo + 1 < n ? lo + 1 : n - 1;
	return num_round(v[lo] + (v[hi] - v[lo]) * (pos - (double)lo), 9);
}

static struct json *ids_json(struct arena *a, const struct ad_design *d, const bool *mark)
{
	struct json *arr = json_array(a);
	for (size_t i = 0; i < d->nactions; i++)
		if (mark[i])
			json_push(a, arr, json_str(a, d->actions[i]));
	return arr;
}

static struct json *rate(struct arena *a, size_t count, size_t of)
{
	return of ? json_real(a, num_round((double)count / (double)of, 9)) : json_null(a);
}

/* The candidates that passed every hard SLO in window w (passed), the best allocation among
 * them (best) and among the whole catalogue's passing actions (obest). */
static void best_allocations(const struct window *w, size_t na, const bool *member, bool *passed, bool *has_best, double *best,
			     bool *has_obest, double *obest)
{
	*has_best = *has_obest = false;
	*best = *obest = 0;
	for (size_t i = 0; i < na; i++) {
		const struct outcome *o = &w->by_action[i];
		passed[i] = member[i] && o->hard_passed;
		if (o->hard_passed && (!*has_obest || o->v[0] > *obest))
			*obest = o->v[0], *has_obest = true;
		if (passed[i] && (!*has_best || o->v[0] > *best))
			*best = o->v[0], *has_best = true;
	}
}

/* A controller record's summary of the windows' uplift bounds over FIFO and its regret
 * against the catalogue's best hard-pass allocation (docs/studies.md, adaptive-eval). */
static void uplift_and_regret(struct arena *a, struct json *rec, const double *lower, const double *upper, size_t nbounds,
			      double *regret, size_t nregret, size_t best_covered)
{
	struct json *null = json_null(a);
	struct json *up = json_object(a);
	size_t pos = 0, eq = 0, neg = 0;
	double maxup = 0;
	for (size_t i = 0; i < nbounds; i++) {
		pos += lower[i] > EPSILON;
		eq += fabs(lower[i]) <= EPSILON;
		neg += lower[i] < -EPSILON;
		maxup = i == 0 || upper[i] > maxup ? upper[i] : maxup;
	}
	json_set(a, up, "mean_lower_bound", nbounds ? json_real(a, mean9(lower, nbounds)) : null);
	json_set(a, up, "mean_upper_bound", nbounds ? json_real(a, mean9(upper, nbounds)) : null);
	json_set(a, up, "maximum_upper_bound", json_real_or_null(a, nbounds > 0, maxup));
	json_set(a, up, "lower_bound_positive_window_count", json_int(a, (long long)pos));
	json_set(a, up, "lower_bound_equal_window_count", json_int(a, (long long)eq));
	json_set(a, up, "lower_bound_negative_window_count", json_int(a, (long long)neg));
	json_set(a, rec, "allocation_uplift_vs_fifo", up);
	json_set(a, rec, "catalogue_best_allocation_covered_window_count", json_int(a, (long long)best_covered));
	struct json *rg = json_object(a);
	double maxr = 0;
	for (size_t i = 0; i < nregret; i++)
		maxr = i == 0 || regret[i] > maxr ? regret[i] : maxr;
	json_set(a, rg, "mean", nregret ? json_real(a, mean9(regret, nregret)) : null);
	json_set(a, rg, "max", json_real_or_null(a, nregret > 0, maxr));
	json_set(a, rg, "p95", nregret ? json_real(a, quantile9(regret, nregret, 0.95)) : null);
	json_set(a, rec, "allocation_regret_vs_catalogue_best", rg);
}

static struct json *controller_record(struct arena *a, const struct input *in, const struct controller *c, double band)
{
	const struct ad_design *d = &in->d;
	size_t na = d->nactions, nw = in->nw;
	struct json *rec = json_object(a), *src = json_object(a);
	json_set(a, rec, "type", json_str(a, "adaptive_controller"));
	json_set(a, rec, "controller_id", json_str(a, c->id));
	json_set(a, src, "kind", json_str(a, c->kind));
	json_set(a, src, "fingerprint", c->fingerprint ? json_str(a, c->fingerprint) : json_null(a));
	json_set(a, src, "controller_id", c->source_id ? json_str(a, c->source_id) : json_null(a));
	json_set(a, src, "model_id", c->model ? json_str(a, c->model) : json_null(a));
	json_set(a, rec, "source", src);
	json_set(a, rec, "status", json_str(a, c->status));
	json_set(a, rec, "evaluation_window_count", json_int(a, (long long)nw));
	bool evaluated = !strcmp(c->status, "evaluated");

	bool *member = xcalloc(na, sizeof *member), *alive = xcalloc(na, sizeof *alive), *oracle = xcalloc(na, sizeof *oracle);
	bool *all = xcalloc(na, sizeof *all), *passed = xcalloc(na, sizeof *passed);
	double (*v)[3] = xcalloc(na, sizeof *v);
	double *lower = xcalloc(nw, sizeof *lower), *upper = xcalloc(nw, sizeof *upper), *regret = xcalloc(nw, sizeof *regret);
	size_t nbounds = 0, nregret = 0, evaluations = 0, min_count = 0, max_count = 0, feasible = 0, oracle_feasible = 0;
	size_t covered = 0, exact = 0, best_covered = 0, status_counts[3] = { 0, 0, 0 };
	double *counts = xcalloc(nw, sizeof *counts);
	long base = action_index(d, d->baseline);
	struct json *windows = json_array(a);
	for (size_t i = 0; i < na; i++)
		all[i] = true;
	for (size_t k = 0; evaluated && k < nw; k++) {
		const struct window *w = &in->w[k];
		const char **ids;
		size_t n = candidates_of(c, k, &ids);
		memset(member, 0, na * sizeof *member);
		for (size_t j = 0; j < n; j++)
			member[action_index(d, ids[j])] = true;
		counts[k] = (double)n;
		evaluations += n;
		min_count = k == 0 || n < min_count ? n : min_count;
		max_count = n > max_count ? n : max_count;
		/* Oracle frontier, catalogue best and the candidates' best hard-pass allocation. */
		size_t no = frontier(w, na, all, band, oracle, v);
		bool has_best, has_obest;
		double best, obest;
		best_allocations(w, na, member, passed, &has_best, &best, &has_obest, &obest);
		size_t nf = frontier(w, na, member, band, alive, v);
		bool cover = false, same = no > 0 && nf == no;
		double lo = 0, hi = 0, fifo = w->by_action[base].v[0];
		for (size_t i = 0; i < na; i++) {
			cover = cover || (alive[i] && oracle[i]);
			same = same && alive[i] == oracle[i];
		}
		bool first = true;
		for (size_t i = 0; i < na; i++)
			if (alive[i]) {
				double x = w->by_action[i].v[0];
				if (first || x < lo)
					lo = x;
				if (first || x > hi)
					hi = x;
				first = false;
			}
		oracle_feasible += has_obest;
		feasible += nf > 0;
		covered += cover;
		exact += same;
		status_counts[nf == 0 ? 2 : nf == 1 ? 0 : 1]++;
		bool has_regret = has_best && has_obest;
		double r = has_regret ? fmax(0.0, obest - best) : 0;
		if (has_regret) {
			regret[nregret++] = r;
			best_covered += r <= EPSILON;
		}
		if (nf) {
			lower[nbounds] = lo - fifo;
			upper[nbounds++] = hi - fifo;
		}
		struct json *x = json_object(a), *cands = json_array(a);
		json_set(a, x, "window_id", json_str(a, w->w->id));
		for (size_t j = 0; j < n; j++)
			json_push(a, cands, json_str(a, ids[j]));
		json_set(a, x, "candidate_action_ids", cands);
		json_set(a, x, "hard_slo_passed_action_ids", ids_json(a, d, passed));
		json_set(a, x, "selection_status", json_str(a, nf == 0 ? "no_eligible_policy" : nf == 1 ? "selected" : "tie_requires_human_approval"));
		json_set(a, x, "frontier_action_ids", ids_json(a, d, alive));
		json_set(a, x, "oracle_frontier_action_ids", ids_json(a, d, oracle));
		json_set(a, x, "frontier_covered", json_bool(a, cover));
		json_set(a, x, "frontier_exact_match", json_bool(a, same));
		if (nf) {
			struct json *u = json_object(a);
			json_set(a, u, "lower_bound", json_real(a, lo - fifo));
			json_set(a, u, "upper_bound", json_real(a, hi - fifo));
			json_set(a, x, "allocation_uplift_vs_fifo", u);
		} else
			json_set(a, x, "allocation_uplift_vs_fifo", json_null(a));
		json_set(a, x, "candidate_best_hard_pass_allocation", json_real_or_null(a, has_best, best));
		json_set(a, x, "catalogue_best_hard_pass_allocation", json_real_or_null(a, has_obest, obest));
		json_set(a, x, "allocation_regret_vs_catalogue_best", json_real_or_null(a, has_regret, r));
		json_set(a, x, "catalogue_best_allocation_covered", json_bool(a, has_regret && r <= EPSILON));
		json_push(a, windows, x);
	}
	struct json *null = json_null(a);
	if (evaluated) {
		struct json *cc = json_object(a);
		json_set(a, rec, "candidate_evaluation_count", json_int(a, (long long)evaluations));
		json_set(a, cc, "mean", json_real(a, mean9(counts, nw)));
		json_set(a, cc, "min", json_int(a, (long long)min_count));
		json_set(a, cc, "max", json_int(a, (long long)max_count));
		json_set(a, rec, "candidate_count_per_window", cc);
		json_set(a, rec, "evaluation_reduction_vs_catalogue",
			 json_real(a, num_round(1 - (double)evaluations / ((double)nw * (double)na), 9)));
		json_set(a, rec, "hard_slo_feasible_window_count", json_int(a, (long long)feasible));
		json_set(a, rec, "catalogue_feasible_window_count", json_int(a, (long long)oracle_feasible));
		json_set(a, rec, "frontier_coverage_window_count", json_int(a, (long long)covered));
		json_set(a, rec, "frontier_coverage_rate", rate(a, covered, oracle_feasible));
		json_set(a, rec, "frontier_exact_match_window_count", json_int(a, (long long)exact));
		json_set(a, rec, "frontier_exact_match_rate", rate(a, exact, oracle_feasible));
		struct json *sc = json_object(a);
		json_set(a, sc, "selected", json_int(a, (long long)status_counts[0]));
		json_set(a, sc, "tie_requires_human_approval", json_int(a, (long long)status_counts[1]));
		json_set(a, sc, "no_eligible_policy", json_int(a, (long long)status_counts[2]));
		json_set(a, rec, "selection_status_counts", sc);
		uplift_and_regret(a, rec, lower, upper, nbounds, regret, nregret, best_covered);
	} else {
		static const char *const keys[] = { "candidate_evaluation_count", "candidate_count_per_window",
			"evaluation_reduction_vs_catalogue", "hard_slo_feasible_window_count", "catalogue_feasible_window_count",
			"frontier_coverage_window_count", "frontier_coverage_rate", "frontier_exact_match_window_count",
			"frontier_exact_match_rate", "selection_status_counts", "allocation_uplift_vs_fifo",
			"catalogue_best_allocation_covered_window_count", "allocation_regret_vs_catalogue_best", NULL };
		for (const char *const *k = keys; *k; k++)
			json_set(a, rec, *k, null);
	}
	json_set(a, rec, "windows", windows);
	ev_self_fp_stamp(a, rec, "fingerprint");
	free(member);
	free(alive);
	free(oracle);
	free(all);
	free(passed);
	free(v);
	free(lower);
	free(upper);
	free(regret);
	free(counts);
	return rec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "design", required_argument, NULL, 'd' },
		{ "selection", required_argument, NULL, 's' },
		{ "band", required_argument, NULL, 'b' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *design = NULL, *selection = NULL;
	double band = 0.01;
	struct cli cli;
	int c;

	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":d:s:b:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd': design = optarg; break;
		case 's': selection = optarg; break;
		case 'b':
			band = opt_double("band", optarg);
			if (!(band > 0))
				usage_error(usage, "--band must be positive");
			break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	if (!design || !selection)
		usage_fail(usage, "need --design and --selection");

	struct arena a;
	char err[1024];
	struct input in;
	memset(&in, 0, sizeof in);
	arena_init(&a);
	hdr_arena = &a;
	hdr = nd_header_new(&a, EVAL_SCHEMA, "adaptive-eval");
	read_design(&in, design, &a);
	read_selection(&in, selection, &a);
	struct arena scratch;
	arena_init(&scratch);
	for (size_t k = 0; k < cli.ninputs; k++)
		read_stream(cli.inputs[k], AD_WINDOW_RESULT_SCHEMA, &scratch, on_receipt, &in);
	for (size_t k = 0; k < in.nw; k++)
		if (!in.w[k].seen)
			die("no receipt for evaluation window '%s'", in.w[k].w->id);

	const char *fifo[1] = { in.d.baseline };
	bool static_selected = !strcmp(in.static_status, "selected");
	struct controller ctl[5] = {
		{ "fifo", "baseline", NULL, NULL, NULL, "evaluated", NULL, fifo, 1 },
		{ "best_static", "calibration_selection", in.static_fp, NULL, NULL, static_selected ? "evaluated" : in.static_status,
		  NULL, in.static_ids, static_selected ? 1 : 0 },
		{ "workload_rule", "rule_selections", in.rule_fp, AD_RULE_ID, NULL, "evaluated", &in.rule, NULL, 0 },
		{ "agent", "controller_selections", in.agent_fp, in.agent_id, in.agent_model, "evaluated", &in.agent, NULL, 0 },
		{ "catalog_oracle", "catalogue", NULL, NULL, NULL, "evaluated", NULL, in.d.actions, in.d.nactions },
	};

	json_set(&a, json_get(hdr, "params"), "allocation_tie_band", json_real(&a, band));
	json_set(&a, hdr, "design_fingerprint", json_str(&a, in.d.fingerprint));
	struct nd_writer *w = ndw_open(cli.output, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	for (int i = 0; i < 5; i++) {
		arena_reset(&scratch);
		if (ndw_record(w, controller_record(&scratch, &in, &ctl[i], band), err, sizeof err))
			die("%s", err);
	}
	if (ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	for (size_t k = 0; k < in.nw; k++)
		free(in.w[k].by_action);
	free(in.w);
	arena_release(&scratch);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
