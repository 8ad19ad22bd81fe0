/* study-select — choose the static arm a study carries past calibration, by one of two
 * declared hierarchies: all-windows (the holdout study: pass every hard SLO in every window
 * → allocation band on the mean → min mean Spot p95 JCT → min mean eviction rate) or
 * best-static (the adaptive study: most hard-pass windows → highest mean allocation over
 * them, exact → min mean Spot p95 JCT → min mean eviction rate, means over hard passes).
 * Writes one self-fingerprinted `selection` record. */
#include "core/arena.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "eval/adaptive.h"
#include "eval/evidence.h"
#include "eval/ranking.h"
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
	"study-select [--rule all-windows|best-static] [--band B] [-o OUT] --window ID FILE... [--window ID FILE...]...";

static const char help[] =
	"\n"
	"Read, for each calibration window, the metrics streams of every arm and the window's\n"
	"audit stream (slo-audit output), and select the arm to carry past calibration.\n"
	"--rule all-windows (default; the holdout study):\n"
	"  1. hard_slo_filter                 the audit passed in every window\n"
	"  2. maximize_mean_allocation_rate   mean allocation within B of the best (strict)\n"
	"  3. minimize_mean_spot_p95_jct      exact minimum of the mean Spot p95 JCT\n"
	"  4. minimize_mean_spot_eviction_rate_per_run  exact minimum of the mean evictions per run\n"
	"--rule best-static (the adaptive study; means over each arm's hard-pass windows,\n"
	"rounded to 9 digits; no band):\n"
	"  1. maximize_hard_slo_passed_windows            the most hard-pass windows (none: no arm)\n"
	"  2. maximize_mean_allocation_rate_on_hard_passes  the exact maximum\n"
	"  3. minimize_mean_spot_p95_jct_on_hard_passes     the exact minimum\n"
	"  4. minimize_mean_spot_eviction_rate_per_run_on_hard_passes  the exact minimum\n"
	"Stages 3-4 run only while more than one arm remains. Status: no_eligible_arm,\n"
	"selected or tie_requires_human_approval. Every window must hold the same arm set.\n"
	"\n"
	"  -w, --window ID   the FILEs that follow (operands or -i) belong to window ID\n"
	"                    (chronological order)\n"
	"  -r, --rule R      all-windows (default) or best-static\n"
	"  -b, --band B      allocation tie band of all-windows, absolute (default 0.01)\n";

static const char schemas[] = "reads: " EV_METRICS_SCHEMA ", " EV_AUDIT_SCHEMA "\nwrites: " AD_SELECTION_STREAM_SCHEMA "\n";

struct arm {
	char *action_id, *policy_fp, *metrics_fp;
	double alloc, spot_p95, eviction;
	bool has_alloc, has_spot_p95, has_eviction, audited, hard_passed;
};

struct window {
	char *id;
	struct arm *arms;
	size_t narms, cap;
};

struct study {
	struct window *w;
	size_t nw, capw;
	char **audit_mfp;   /* audits of the window being read: metrics fp and verdict */
	bool *audit_pass;
	size_t naudits, capaudits, capaudits2;
	char **in_path, **in_schema, **in_fp;   /* every input stream, for the header */
	size_t nin, capin[3];
};

static void add_input(struct study *s, const char *path, const char *schema, const char *fp)
{
	s->in_path = xgrow(s->in_path, &s->capin[0], s->nin + 1, sizeof *s->in_path);
	s->in_schema = xgrow(s->in_schema, &s->capin[1], s->nin + 1, sizeof *s->in_schema);
	s->in_fp = xgrow(s->in_fp, &s->capin[2], s->nin + 1, sizeof *s->in_fp);
	s->in_path[s->nin] = xstrdup(path);
	s->in_schema[s->nin] = xstrdup(schema);
	s->in_fp[s->nin++] = xstrdup(fp);
}

static bool num_or_null(const struct json *rec, const char *key, double *out, const char *where)
{
	const struct json *v = json_get(rec, key);
	if (!v)
		die("%s: metrics record has no '%s'", where, key);
	if (v->kind == JSON_NULL)
		return false;
	if (!json_is_num(v))
		die("%s: '%s' is not a number", where, key);
	*out = json_num(v);
	return true;
}

static const char *str_field(const struct json *rec, const char *key, const char *where)
{
	const struct json *v = json_get(rec, key);
	if (!v || v->kind != JSON_STRING)
		die("%s: record has no string '%s'", where, key);
	return v->u.str.s;
}

/* Read one FILE into window w: metrics records become arms, audit verdicts are kept. */
static void read_file(struct study *s, struct window *w, const char *path)
{
	char err[1024], where[1200];
	struct arena a;
	struct json *rec;
	enum nd_event ev;
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	size_t first_unstamped = w->narms;
	char schema[256] = "", bad[2400] = "";
	if (!r)
		die("%s", err);
	arena_init(&a);
	while ((ev = ndr_next(r, &a, &rec, err, sizeof err)) > 0) {
		snprintf(where, sizeof where, "%s:%lu", ndr_name(r), ndr_lineno(r));
		const struct json *t = json_get(rec, "type");
		/* the same verification rank and aggregate run: a resealed, edited audit is refused
		 * (reported once the stream itself verifies, so a plain edit reads as one) */
		if (ev == ND_RECORD && !bad[0] && ev_verify(rec, err, sizeof err))
			snprintf(bad, sizeof bad, "%s: %s", where, err);
		if (ev == ND_END && bad[0])
			die("%s", bad);
		if (ev == ND_HEADER) {
			const struct json *sc = json_get(rec, "schema");
			snprintf(schema, sizeof schema, "%s", sc && sc->kind == JSON_STRING ? sc->u.str.s : "");
		} else if (ev == ND_END) {
			add_input(s, path, schema, ndr_fingerprint(r));
			for (; first_unstamped < w->narms; first_unstamped++)
				w->arms[first_unstamped].metrics_fp = xstrdup(ndr_fingerprint(r));
		} else if (ev == ND_RECORD && t && t->kind == JSON_STRING && !strcmp(t->u.str.s, "metrics")) {
			w->arms = xgrow(w->arms, &w->cap, w->narms + 1, sizeof *w->arms);
			struct arm *m = &w->arms[w->narms++];
			memset(m, 0, sizeof *m);
			m->action_id = xstrdup(str_field(rec, "action_id", where));
			m->policy_fp = xstrdup(str_field(rec, "policy_fingerprint", where));
			m->has_alloc = num_or_null(rec, "allocation_rate_mean", &m->alloc, where);
			m->has_spot_p95 = num_or_null(rec, "spot_jct_p95_seconds", &m->spot_p95, where);
			m->has_eviction = num_or_null(rec, "spot_eviction_rate_per_run", &m->eviction, where);
			for (size_t i = 0; i + 1 < w->narms; i++)
				if (!strcmp(w->arms[i].action_id, m->action_id))
					die("%s: window '%s' has arm '%s' twice", where, w->id, m->action_id);
		} else if (ev == ND_RECORD && t && t->kind == JSON_STRING && !strcmp(t->u.str.s, "audit")) {
			const struct json *p = json_get(rec, "audit_passed");
			if (!p || (p->kind != JSON_TRUE && p->kind != JSON_FALSE))
				die("%s: audit record has no boolean 'audit_passed'", where);
			s->audit_mfp = xgrow(s->audit_mfp, &s->capaudits, s->naudits + 1, sizeof *s->audit_mfp);
			s->audit_pass = xgrow(s->audit_pass, &s->capaudits2, s->naudits + 1, sizeof *s->audit_pass);
			s->audit_mfp[s->naudits] = xstrdup(str_field(rec, "metrics_fingerprint", where));
			s->audit_pass[s->naudits++] = p->kind == JSON_TRUE;
		}
		arena_reset(&a);
	}
	if (ev == ND_ERROR)
		die("%s", err);
	arena_release(&a);
	ndr_close(r);
}

/* Attach the audits read for window w to its arms; every arm needs exactly one. */
static void close_window(struct study *s, struct window *w)
{
	if (w->narms == 0)
		die("window '%s' has no metrics records", w->id);
	for (size_t i = 0; i < s->naudits; i++) {
		struct arm *m = NULL;
		for (size_t j = 0; j < w->narms; j++)
			if (!strcmp(w->arms[j].metrics_fp, s->audit_mfp[i]))
				m = &w->arms[j];
		if (!m)
			die("window '%s': audit of metrics '%s' matches no metrics stream of the window", w->id, s->audit_mfp[i]);
		if (m->audited)
			die("window '%s': arm '%s' is audited twice", w->id, m->action_id);
		m->audited = true;
		m->hard_passed = s->audit_pass[i];
		free(s->audit_mfp[i]);
	}
	s->naudits = 0;
	for (size_t j = 0; j < w->narms; j++)
		if (!w->arms[j].audited)
			die("window '%s': arm '%s' has no audit", w->id, w->arms[j].action_id);
}

/* The arm set (and each arm's policy) must be the same in every window; sort by window 0. */
static const struct arm *find_arm(const struct window *w, const char *id)
{
	for (size_t j = 0; j < w->narms; j++)
		if (!strcmp(w->arms[j].action_id, id))
			return &w->arms[j];
	return NULL;
}

/* The two rules. all-windows (the holdout study): eligible = hard pass in every window,
 * means over every window, allocation band. best-static (the adaptive study, docs/studies-rules.md
 * §4): most hard-pass windows first, means over each arm's hard-pass windows rounded to 9
 * digits (as the original compares them), exact maximum allocation (no band). */
enum rule { RULE_ALL_WINDOWS, RULE_BEST_STATIC };

static const char *const rule_names[] = { "calibration-all-windows-hard-pass/v1", "calibration-best-static/v1" };
static const char *const stage_names[2][4] = {
	{ "hard_slo_filter", "maximize_mean_allocation_rate", "minimize_mean_spot_p95_jct",
	  "minimize_mean_spot_eviction_rate_per_run" },
	{ "maximize_hard_slo_passed_windows", "maximize_mean_allocation_rate_on_hard_passes",
	  "minimize_mean_spot_p95_jct_on_hard_passes", "minimize_mean_spot_eviction_rate_per_run_on_hard_passes" },
};
static const char *const metric_names[3] = { "allocation_rate_mean", "spot_jct_p95_seconds", "spot_eviction_rate_per_run" };
static const char *const mean_keys[2][3] = {
	{ "allocation_rate_mean_mean", "spot_jct_p95_seconds_mean", "spot_eviction_rate_per_run_mean" },
	{ "allocation_rate_mean_on_hard_passes", "spot_jct_p95_seconds_mean_on_hard_passes",
	  "spot_eviction_rate_per_run_mean_on_hard_passes" },
};

struct candidate {
	const char *action_id, *policy_fp;
	size_t hard_passes;
	bool eligible;
	bool has[3];            /* the mean exists: no null among the windows it is taken over */
	double mean[3];         /* allocation, Spot p95 JCT, evictions per run */
	const char *null_window[3]; /* the first window whose value is null, for the error */
};

static void arm_values(const struct arm *m, bool has[3], double v[3])
{
	has[0] = m->has_alloc, v[0] = m->alloc;
	has[1] = m->has_spot_p95, v[1] = m->spot_p95;
	has[2] = m->has_eviction, v[2] = m->eviction;
}

/* Means in window order: over every window (all-windows) or over the hard-pass ones. */
static void means(const struct study *s, struct candidate *c, enum rule rule)
{
	double sum[3] = { 0, 0, 0 };
	size_t n = 0;
	for (int k = 0; k < 3; k++)
		c->has[k] = true;
	for (size_t w = 0; w < s->nw; w++) {
		const struct arm *m = find_arm(&s->w[w], c->action_id);
		c->hard_passes += m->hard_passed;
		if (rule == RULE_BEST_STATIC && !m->hard_passed)
			continue;
		bool has[3];
		double v[3];
		arm_values(m, has, v);
		n++;
		for (int k = 0; k < 3; k++) {
			if (has[k])
				sum[k] += v[k];
			else if (c->has[k]) {
				c->has[k] = false;
				c->null_window[k] = s->w[w].id;
			}
		}
	}
	for (int k = 0; k < 3; k++) {
		c->has[k] = c->has[k] && n > 0;
		c->mean[k] = n > 0 ? sum[k] / (double)n : 0;
		if (rule == RULE_BEST_STATIC && c->has[k])
			c->mean[k] = num_round(c->mean[k], 9);
	}
	c->eligible = rule == RULE_ALL_WINDOWS ? c->hard_passes == s->nw : c->hard_passes > 0;
}

static struct json *num_json(struct arena *a, bool has, double v)
{
	return has ? json_real(a, v) : json_null(a);
}

struct stage_log {
	struct arena *a;
	struct json *stages;
	const struct candidate *c;
	size_t n;
	enum rule rule;
};

static void log_stage(void *ctx, int stage, const bool *alive)
{
	struct stage_log *lg = ctx;
	struct json *st = json_object(lg->a), *ids = json_array(lg->a);
	for (size_t i = 0; i < lg->n; i++)
		if (alive[i])
			json_push(lg->a, ids, json_str(lg->a, lg->c[i].action_id));
	json_set(lg->a, st, "stage", json_str(lg->a, stage_names[lg->rule][stage]));
	json_set(lg->a, st, "remaining_action_ids", ids);
	json_push(lg->a, lg->stages, st);
}

static struct json *select_arms(struct arena *a, const struct study *s, enum rule rule, double band)
{
	const struct window *w0 = &s->w[0];
	size_t n = w0->narms, nsel = 0, best_passes = 0;
	struct candidate *c = xcalloc(n, sizeof *c);
	bool *alive = xcalloc(n, sizeof *alive);
	double (*v)[3] = xcalloc(n, sizeof *v);
	for (size_t k = 1; k < s->nw; k++) {
		if (s->w[k].narms != n)
			die("window '%s' has %zu arms, window '%s' has %zu", s->w[k].id, s->w[k].narms, w0->id, n);
		for (size_t i = 0; i < n; i++) {
			const struct arm *m = find_arm(&s->w[k], w0->arms[i].action_id);
			if (!m)
				die("window '%s' has no arm '%s'", s->w[k].id, w0->arms[i].action_id);
			if (strcmp(m->policy_fp, w0->arms[i].policy_fp))
				die("arm '%s' has policy '%s' in window '%s' but '%s' in window '%s'", m->action_id,
				    m->policy_fp, s->w[k].id, w0->arms[i].policy_fp, w0->id);
		}
	}
	for (size_t i = 0; i < n; i++) {
		c[i].action_id = w0->arms[i].action_id;
		c[i].policy_fp = w0->arms[i].policy_fp;
		means(s, &c[i], rule);
		if (c[i].hard_passes > best_passes)
			best_passes = c[i].hard_passes;
	}
	/* Stage 1: the all-windows filter, or the most hard-pass windows (none: nobody). */
	for (size_t i = 0; i < n; i++)
		alive[i] = rule == RULE_ALL_WINDOWS ? c[i].eligible : best_passes > 0 && c[i].hard_passes == best_passes;
	/* A survivor of stage 1 must have every mean the later stages compare. */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; alive[i] && k < 3; k++) {
			if (!c[i].has[k])
				die("arm '%s' passes stage 1 but its '%s' is null in calibration window '%s'",
				    c[i].action_id, metric_names[k], c[i].null_window[k]);
			v[i][k] = c[i].mean[k];
		}
	struct json *stages = json_array(a);
	struct stage_log lg = { a, stages, c, n, rule };
	log_stage(&lg, 0, alive);
	nsel = ev_rank_narrow((const double (*)[3])v, alive, n, rule == RULE_ALL_WINDOWS ? band : 0, log_stage, &lg);

	struct json *rec = json_object(a), *ids = json_array(a), *cands = json_array(a), *selected = json_array(a);
	json_set(a, rec, "type", json_str(a, "selection"));
	json_set(a, rec, "rule", json_str(a, rule_names[rule]));
	json_set(a, rec, "allocation_tie_band", rule == RULE_ALL_WINDOWS ? json_real(a, band) : json_null(a));
	for (size_t k = 0; k < s->nw; k++)
		json_push(a, ids, json_str(a, s->w[k].id));
	json_set(a, rec, "window_ids", ids);
	for (size_t i = 0; i < n; i++) {
		struct json *o = json_object(a), *failed = json_array(a);
		for (size_t k = 0; k < s->nw; k++)
			if (!find_arm(&s->w[k], c[i].action_id)->hard_passed)
				json_push(a, failed, json_str(a, s->w[k].id));
		json_set(a, o, "action_id", json_str(a, c[i].action_id));
		json_set(a, o, "policy_fingerprint", json_str(a, c[i].policy_fp));
		json_set(a, o, "windows", json_int(a, (long long)s->nw));
		json_set(a, o, "hard_slo_passed_windows", json_int(a, (long long)c[i].hard_passes));
		json_set(a, o, "hard_slo_failed_window_ids", failed);
		json_set(a, o, "eligible", json_bool(a, c[i].eligible));
		for (int k = 0; k < 3; k++)
			json_set(a, o, mean_keys[rule][k], num_json(a, c[i].has[k], c[i].mean[k]));
		json_push(a, cands, o);
		if (alive[i])
			json_push(a, selected, json_str(a, c[i].action_id));
	}
	json_set(a, rec, "candidates", cands);
	json_set(a, rec, "stages", stages);
	json_set(a, rec, "selection_status", json_str(a, nsel == 0 ? "no_eligible_arm" : nsel == 1 ? "selected" : "tie_requires_human_approval"));
	json_set(a, rec, "selected_action_ids", selected);
	json_set(a, rec, "human_approval_required", json_bool(a, nsel > 1));
	ev_self_fp_stamp(a, rec, "fingerprint");
	free(c);
	free(alive);
	free(v);
	return rec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "rule", required_argument, NULL, 'r' },
		{ "band", required_argument, NULL, 'b' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	double band = 0.01;
	bool band_given = false;
	enum rule rule = RULE_ALL_WINDOWS;
	struct study s = { 0 };
	struct window *cur = NULL;
	int c;

	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	/* A leading '-' keeps operands in place, so each FILE (or -i FILE) follows its --window. */
	while ((c = getopt_long(argc, argv, "-:w:r:b:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			s.w = xgrow(s.w, &s.capw, s.nw + 1, sizeof *s.w);
			cur = &s.w[s.nw++];
			memset(cur, 0, sizeof *cur);
			cur->id = optarg;
			if (text_id_problem(optarg, strlen(optarg)))
				usage_error(usage, "--window: the id %s", text_id_problem(optarg, strlen(optarg)));
			for (size_t k = 0; k + 1 < s.nw; k++)
				if (!strcmp(s.w[k].id, optarg))
					usage_error(usage, "window '%s' given twice", optarg);
			break;
		case 1:
		case 'i':
			if (!cur)
				usage_error(usage, "'%s' comes before any --window", optarg);
			read_file(&s, cur, optarg);
			break;
		case 'r':
			if (!strcmp(optarg, "all-windows"))
				rule = RULE_ALL_WINDOWS;
			else if (!strcmp(optarg, "best-static"))
				rule = RULE_BEST_STATIC;
			else
				usage_error(usage, "--rule must be 'all-windows' or 'best-static', not '%s'", optarg);
			break;
		case 'b':
			band_given = true;
			band = opt_double("band", optarg);
			if (!(band > 0))
				usage_error(usage, "--band must be positive");
			break;
		default: cli_option(&cli, c, argv);
		}
		/* Close a window when the next one starts or the arguments end. */
		if (c == 'w' && s.nw > 1)
			close_window(&s, &s.w[s.nw - 2]);
	}
	if (s.nw == 0)
		usage_error(usage, "missing --window");
	if (band_given && rule == RULE_BEST_STATIC)
		usage_error(usage, "--band belongs to --rule all-windows (best-static has no band)");
	close_window(&s, &s.w[s.nw - 1]);

	char err[1024];
	struct arena a;
	arena_init(&a);
	struct json *rec = select_arms(&a, &s, rule, band);
	struct json *hdr = nd_header_new(&a, AD_SELECTION_STREAM_SCHEMA, "study-select");
	struct json *params = json_get(hdr, "params");
	json_set(&a, params, "rule", json_str(&a, rule == RULE_ALL_WINDOWS ? "all-windows" : "best-static"));
	json_set(&a, params, "allocation_tie_band", rule == RULE_ALL_WINDOWS ? json_real(&a, band) : json_null(&a));
	for (size_t i = 0; i < s.nin; i++)
		nd_header_add_stream(&a, hdr, s.in_path[i], s.in_schema[i], s.in_fp[i]);
	if (ndw_write_one(cli.output, hdr, rec, err, sizeof err))
		die("%s", err);
	for (size_t k = 0; k < s.nw; k++) {
		for (size_t j = 0; j < s.w[k].narms; j++) {
			free(s.w[k].arms[j].action_id);
			free(s.w[k].arms[j].policy_fp);
			free(s.w[k].arms[j].metrics_fp);
		}
		free(s.w[k].arms);
	}
	free(s.w);
	free(s.audit_mfp);
	free(s.audit_pass);
	for (size_t i = 0; i < s.nin; i++) {
		free(s.in_path[i]);
		free(s.in_schema[i]);
		free(s.in_fp[i]);
	}
	free(s.in_path);
	free(s.in_schema);
	free(s.in_fp);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
