/* adaptive-design — freeze the design of an adaptive holdout study before any simulation:
 * every eligible window in chronological order, the cut int(f·n), each window's workload
 * signals, the rule thresholds (calibration medians), the catalogue, workload-rule-v1's
 * candidate sets, and (with --agent) an agent's controller-selections checked against it. */
#include "core/arena.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/zio.h"
#include "eval/adaptive.h"
#include "eval/evidence.h"
#include "sim/policy.h"
#include "trace/scan.h"
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
	"adaptive-design --policy FILE... [--baseline ID] [--calibration-fraction F] [--warmup-seconds S]\n"
	"[--no-warmup-spot] [--exclude ID]... [--agent FILE] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read a trace-scan stream of every eligible window (--all-eligible) and write the\n"
	"frozen design of an adaptive holdout study (schednav.adaptive-design/1): one\n"
	"adaptive_design record (windows in chronological order, the first int(F*n) for\n"
	"calibration, the rest for evaluation; workload signals; thresholds = calibration\n"
	"medians of peak pressure and Spot share; the catalogue), the rule_selections of\n"
	"workload-rule-v1 and, with --agent, the agent's controller_selections (plan-check\n"
	"--adaptive) after checking them against the design (every evaluation window exactly\n"
	"once, 3-5 distinct catalogue ids including the baseline, observed on this design).\n"
	"\n"
	"  -p, --policy FILE               a catalogue policy (3 to 5, in catalogue order)\n"
	"  -b, --baseline ID               the baseline action (default native-fifo)\n"
	"  -f, --calibration-fraction F    calibration share of the windows, in [0.5, 1) (default 0.6)\n"
	"  -w, --warmup-seconds S          carry-in before each window (default 2592000, 30 days)\n"
	"      --no-warmup-spot            the carry-in has no Spot jobs (recorded)\n"
	"  -x, --exclude ID                leave window ID out (repeatable)\n"
	"  -a, --agent FILE                the agent's controller_selections stream (plan-check --adaptive)\n";

static const char schemas[] = "reads: schednav.windows/1, schednav.agent-plan/1 (controller_selections)\n"
	"writes: " AD_DESIGN_STREAM_SCHEMA "\n";

struct scan_window {
	const char *id;
	double start, end, peak, mean, share;
};

struct scan {
	struct json *header;
	char fingerprint[FP_HEX_XXH3];
	const char *path;
	struct scan_window *w;
	size_t n, cap;
};

static double number(const struct json *rec, const char *key, const char *where)
{
	const struct json *v = json_get(rec, key);
	if (!v || !json_is_num(v) || !isfinite(json_num(v)))
		die("%s: window record: '%s' must be a finite number", where, key);
	return json_num(v);
}

/* Read the scan: its header, its fingerprint and every selected window (all of them). */
static void read_scan(struct scan *s, const char *path, struct arena *a)
{
	char err[1024], where[1200];
	struct json *rec;
	enum nd_event ev;
	struct nd_reader *r = cli_open_reader(path);
	while ((ev = ndr_next(r, a, &rec, err, sizeof err)) > 0) {
		snprintf(where, sizeof where, "%s:%lu", ndr_name(r), ndr_lineno(r));
		if (ev == ND_HEADER) {
			if (s->header)
				die("%s: one trace-scan stream expected, found a second", where);
			const char *schema = json_get_str(rec, "schema");
			if (!schema || strcmp(schema, WINDOWS_SCHEMA))
				die("%s: not a trace-scan stream (schema '%s', expected '%s')", where, schema ? schema : "?", WINDOWS_SCHEMA);
			const char *sel = json_get_str(json_get(rec, "params"), "selection");
			if (!sel || strcmp(sel, "all_eligible"))
				die("%s: an adaptive study takes every eligible window: scan with trace-scan --all-eligible", where);
			s->header = rec;
			continue;
		}
		if (ev == ND_END) {
			snprintf(s->fingerprint, sizeof s->fingerprint, "%s", ndr_fingerprint(r));
			continue;
		}
		const char *type = json_get_str(rec, "type");
		if (!type || strcmp(type, "window"))
			continue;
		const struct json *selected = json_get(rec, "selected"), *eligible = json_get(rec, "eligible");
		if (!selected || !eligible || selected->kind != eligible->kind || (selected->kind != JSON_TRUE && selected->kind != JSON_FALSE))
			die("%s: window record: 'eligible' and 'selected' must be equal booleans (an all-eligible scan)", where);
		if (selected->kind == JSON_FALSE)
			continue;
		s->w = xgrow(s->w, &s->cap, s->n + 1, sizeof *s->w);
		struct scan_window *w = &s->w[s->n++];
		w->id = json_get_str(rec, "window_id");
		if (!ev_ad_id_ok(w->id))
			die("%s: window record: 'window_id' must be a non-empty string without control characters", where);
		const struct json *share = json_get(rec, "spot_share");
		if (share && share->kind == JSON_NULL)
			die("%s: window '%s' has no Spot share (no arrivals): it cannot be eligible", where, w->id);
		w->start = number(rec, "start", where);
		w->end = number(rec, "end", where);
		w->peak = number(rec, "peak_pressure", where);
		w->mean = number(rec, "mean_pressure", where);
		w->share = number(rec, "spot_share", where);
		if (s->n > 1 && !(w->start > s->w[s->n - 2].start))
			die("%s: window '%s' does not start after '%s'", where, w->id, s->w[s->n - 2].id);
	}
	if (ev == ND_ERROR)
		die("%s", err);
	/* Close before a last message: the reader's buffers are then not leaked at exit. */
	char name[1024];
	snprintf(name, sizeof name, "%s", ndr_name(r));
	ndr_close(r);
	if (!s->header)
		die("%s: empty input: no trace-scan stream", name);
	s->path = path;
}

struct options {
	const char **policies;
	size_t npolicies, cap_policies;
	const char **exclude;
	size_t nexclude, cap_exclude;
	const char *baseline, *agent;
	double fraction;
	long long warmup_seconds;
	bool warmup_spot;
};

static struct json *obj_int(struct arena *a, struct json *o, const char *key, const struct json *from, const char *from_key)
{
	const struct json *v = json_get(from, from_key);
	json_set(a, o, key, v ? json_clone(a, v) : json_null(a));
	return o;
}

/* The adaptive_design record, self-fingerprinted. */
static struct json *design_record(struct arena *a, const struct scan *s, const struct options *o, struct sim_policy *pol)
{
	size_t n = 0;
	bool *keep = xcalloc(s->n ? s->n : 1, sizeof *keep);
	for (size_t i = 0; i < s->n; i++) {
		keep[i] = true;
		for (size_t k = 0; k < o->nexclude; k++)
			if (!strcmp(o->exclude[k], s->w[i].id))
				keep[i] = false;
		n += keep[i];
	}
	for (size_t k = 0; k < o->nexclude; k++) {
		bool found = false;
		for (size_t i = 0; i < s->n; i++)
			found = found || !strcmp(o->exclude[k], s->w[i].id);
		if (!found)
			die("--exclude: window '%s' is not an eligible window of '%s'", o->exclude[k], s->path);
	}
	if (n < AD_MIN_WINDOWS)
		die("'%s': %zu eligible windows; an adaptive study needs at least %d", s->path, n, AD_MIN_WINDOWS);
	size_t cut = (size_t)((double)n * o->fraction);
	if (cut < 1 || cut >= n)
		die("calibration fraction %g of %zu windows leaves a partition empty", o->fraction, n);

	/* Thresholds: medians of the calibration windows' signals. */
	double *peaks = xcalloc(cut, sizeof *peaks), *shares = xcalloc(cut, sizeof *shares);
	for (size_t i = 0, k = 0; i < s->n && k < cut; i++)
		if (keep[i]) {
			peaks[k] = s->w[i].peak;
			shares[k++] = s->w[i].share;
		}
	double peak_threshold = ev_ad_median(peaks, cut), share_threshold = ev_ad_median(shares, cut);
	free(peaks);
	free(shares);

	struct json *rec = json_object(a), *rule = json_object(a), *wr = json_object(a), *carry = json_object(a);
	const struct json *params = json_get(s->header, "params"), *inputs = json_get(s->header, "inputs");
	const struct json *trace_in = inputs && inputs->kind == JSON_ARRAY && inputs->u.arr.n == 1 ? inputs->u.arr.items[0] : NULL;
	json_set(a, rec, "type", json_str(a, "adaptive_design"));
	json_set(a, rec, "schema_version", json_str(a, AD_DESIGN_SCHEMA));
	obj_int(a, rec, "trace_id", s->header, "trace_id");
	obj_int(a, rec, "trace_fingerprint", trace_in, "fingerprint");
	obj_int(a, rec, "capacity_gpus", s->header, "capacity_gpus");
	json_set(a, rec, "windows_fingerprint", json_str(a, s->fingerprint));
	obj_int(a, wr, "day_seconds", params, "day_seconds");
	obj_int(a, wr, "sample_seconds", params, "sample_seconds");
	obj_int(a, wr, "min_hp_arrivals", params, "min_hp_arrivals");
	obj_int(a, wr, "min_spot_arrivals", params, "min_spot_arrivals");
	json_set(a, wr, "selection", json_str(a, "all_eligible"));
	struct json *ex = json_array(a);
	for (size_t k = 0; k < o->nexclude; k++)
		json_push(a, ex, json_str(a, o->exclude[k]));
	json_set(a, wr, "excluded_window_ids", ex);
	json_set(a, rec, "window_rule", wr);
	json_set(a, carry, "warmup_seconds", json_int(a, o->warmup_seconds));
	json_set(a, carry, "warmup_spot", json_bool(a, o->warmup_spot));
	json_set(a, carry, "drain", json_str(a, "to_completion"));
	json_set(a, rec, "carry_in", carry);
	json_set(a, rec, "baseline_action_id", json_str(a, o->baseline));
	struct json *acts = json_array(a);
	for (size_t i = 0; i < o->npolicies; i++) {
		struct json *x = json_object(a);
		json_set(a, x, "action_id", json_str(a, pol[i].action_id));
		json_set(a, x, "policy_fingerprint", json_str(a, pol[i].fingerprint));
		json_push(a, acts, x);
	}
	json_set(a, rec, "actions", acts);
	struct json *cc = json_object(a);
	json_set(a, cc, "minimum", json_int(a, AD_MIN_CANDIDATES));
	json_set(a, cc, "maximum", json_int(a, AD_MAX_CANDIDATES));
	json_set(a, rec, "candidate_count", cc);
	struct json *split = json_object(a);
	json_set(a, split, "method", json_str(a, "chronological-prefix-calibration"));
	json_set(a, split, "calibration_fraction", json_real(a, o->fraction));
	json_set(a, split, "calibration_window_count", json_int(a, (long long)cut));
	json_set(a, split, "evaluation_window_count", json_int(a, (long long)(n - cut)));
	json_set(a, rec, "split", split);
	json_set(a, rule, "rule_id", json_str(a, AD_RULE_ID));
	json_set(a, rule, "source", json_str(a, "medians of the calibration windows' workload signals; no simulation outcome"));
	json_set(a, rule, "peak_pressure_threshold", json_real(a, peak_threshold));
	json_set(a, rule, "spot_share_threshold", json_real(a, share_threshold));
	json_set(a, rec, "workload_rule", rule);
	struct json *ws = json_array(a);
	for (size_t i = 0, k = 0; i < s->n; i++) {
		if (!keep[i])
			continue;
		const struct scan_window *w = &s->w[i];
		struct json *x = json_object(a);
		json_set(a, x, "window_id", json_str(a, w->id));
		json_set(a, x, "partition", json_str(a, k++ < cut ? "calibration" : "evaluation"));
		json_set(a, x, "start", json_real(a, w->start));
		json_set(a, x, "end", json_real(a, w->end));
		json_set(a, x, "warmup_start", json_real(a, fmax(0.0, w->start - (double)o->warmup_seconds)));
		json_set(a, x, "peak_pressure", json_real(a, w->peak));
		json_set(a, x, "mean_pressure", json_real(a, w->mean));
		json_set(a, x, "spot_share", json_real(a, w->share));
		json_push(a, ws, x);
	}
	json_set(a, rec, "windows", ws);
	ev_self_fp_stamp(a, rec, "design_fingerprint");
	free(keep);
	return rec;
}

/* The agent's record: the one controller_selections record of FILE (plan-check --adaptive),
 * checked against d and kept as it is. */
static struct json *agent_record(struct arena *a, const char *path, const struct ad_design *d, char fp[FP_HEX_XXH3], const char **schema)
{
	char err[1024];
	struct json *rec, *found = NULL;
	enum nd_event ev;
	struct nd_reader *r = cli_open_reader(path);
	*schema = "";
	while ((ev = ndr_next(r, a, &rec, err, sizeof err)) > 0) {
		const char *type = json_get_str(rec, "type");
		if (ev == ND_HEADER)
			*schema = json_get_str(rec, "schema") ? json_get_str(rec, "schema") : "";
		else if (ev == ND_END)
			snprintf(fp, FP_HEX_XXH3, "%s", ndr_fingerprint(r));
		else if (type && !strcmp(type, "controller_selections")) {
			if (found)
				die("%s:%lu: a second controller_selections record (one agent per file)", ndr_name(r), ndr_lineno(r));
			found = rec;
		}
	}
	if (ev == ND_ERROR)
		die("%s", err);
	char name[1024];
	unsigned streams = ndr_streams(r);
	snprintf(name, sizeof name, "%s", ndr_name(r));
	ndr_close(r);
	if (streams != 1)
		die("%s: expected one stream, found %u", name, streams);
	if (!found)
		die("%s: no controller_selections record", name);
	struct ad_selections sel;
	if (ev_ad_agent_parse(&sel, found, d, a, err, sizeof err))
		die("%s: %s", path, err);
	return found;
}

/* The --policy files: each action id usable and once, the baseline among them. */
static struct sim_policy *load_policies(const struct options *o, struct arena *a)
{
	char err[1024];
	struct sim_policy *pol = xcalloc(o->npolicies, sizeof *pol);
	bool baseline = false;
	for (size_t i = 0; i < o->npolicies; i++) {
		if (policy_load(&pol[i], o->policies[i], a, err, sizeof err))
			die("%s", err);
		if (!ev_ad_id_ok(pol[i].action_id))
			die("%s: action_id must be a non-empty string without control characters", o->policies[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(pol[j].action_id, pol[i].action_id))
				die("%s: action '%s' is already in the catalogue ('%s')", o->policies[i], pol[i].action_id, o->policies[j]);
		baseline = baseline || !strcmp(pol[i].action_id, o->baseline);
	}
	if (!baseline)
		die("the baseline '%s' is not among the --policy actions", o->baseline);
	return pol;
}

/* The header's params: the design's options. */
static void set_params(struct arena *a, struct json *hdr, const struct options *o, bool agent)
{
	struct json *params = json_get(hdr, "params");
	json_set(a, params, "baseline", json_str(a, o->baseline));
	json_set(a, params, "calibration_fraction", json_real(a, o->fraction));
	json_set(a, params, "warmup_seconds", json_int(a, o->warmup_seconds));
	json_set(a, params, "warmup_spot", json_bool(a, o->warmup_spot));
	struct json *ex = json_array(a);
	for (size_t k = 0; k < o->nexclude; k++)
		json_push(a, ex, json_str(a, o->exclude[k]));
	json_set(a, params, "exclude", ex);
	json_set(a, params, "rule", json_str(a, AD_RULE_ID));
	json_set(a, params, "agent", json_bool(a, agent));
}

int main(int argc, char **argv)
{
	enum { OPT_NO_WARMUP_SPOT = 256 };
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "calibration-fraction", required_argument, NULL, 'f' },
		{ "warmup-seconds", required_argument, NULL, 'w' },
		{ "no-warmup-spot", no_argument, NULL, OPT_NO_WARMUP_SPOT },
		{ "exclude", required_argument, NULL, 'x' },
		{ "agent", required_argument, NULL, 'a' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .baseline = "native-fifo", .fraction = 0.6, .warmup_seconds = 30LL * 86400, .warmup_spot = true };
	struct cli cli;
	int c;

	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":p:b:f:w:x:a:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.policies = xgrow(o.policies, &o.cap_policies, o.npolicies + 1, sizeof *o.policies);
			o.policies[o.npolicies++] = optarg;
			break;
		case 'b': o.baseline = optarg; break;
		case 'f':
			o.fraction = opt_double("calibration-fraction", optarg);
			if (!(o.fraction >= 0.5 && o.fraction < 1))
				usage_error(usage, "--calibration-fraction must be in [0.5, 1), not '%s'", optarg);
			break;
		case 'w':
			o.warmup_seconds = opt_int("warmup-seconds", optarg);
			if (o.warmup_seconds < 0)
				usage_error(usage, "--warmup-seconds must be >= 0");
			break;
		case OPT_NO_WARMUP_SPOT: o.warmup_spot = false; break;
		case 'x':
			o.exclude = xgrow(o.exclude, &o.cap_exclude, o.nexclude + 1, sizeof *o.exclude);
			o.exclude[o.nexclude++] = optarg;
			break;
		case 'a': o.agent = optarg; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	if (o.npolicies < AD_MIN_CANDIDATES || o.npolicies > AD_MAX_CANDIDATES)
		usage_error(usage, "need %d to %d --policy files, not %zu", AD_MIN_CANDIDATES, AD_MAX_CANDIDATES, o.npolicies);
	if (!ev_ad_id_ok(o.baseline))
		usage_fail(usage, "--baseline must be an action id");

	char err[1024];
	struct arena a;
	arena_init(&a);
	struct sim_policy *pol = load_policies(&o, &a);

	struct scan s = { 0 };
	read_scan(&s, cli.inputs[0], &a);
	struct json *design = design_record(&a, &s, &o, pol);
	struct ad_design d;
	if (ev_ad_design_parse(&d, design, &a, err, sizeof err))
		die("internal: the design does not check: %s", err);
	if (ev_ad_rule_applies(&d, err, sizeof err))
		die("%s", err);
	struct json *rule = ev_ad_rule_record(&a, &d);
	char agent_fp[FP_HEX_XXH3] = "";
	const char *agent_schema = NULL;
	struct json *agent = o.agent ? agent_record(&a, o.agent, &d, agent_fp, &agent_schema) : NULL;

	struct json *hdr = nd_header_new(&a, AD_DESIGN_STREAM_SCHEMA, "adaptive-design");
	nd_header_add_stream(&a, hdr, s.path, WINDOWS_SCHEMA, s.fingerprint);
	for (size_t i = 0; i < o.npolicies; i++)
		if (nd_header_add_config(&a, hdr, o.policies[i], err, sizeof err))
			die("%s", err);
	if (agent)
		nd_header_add_stream(&a, hdr, o.agent, agent_schema, agent_fp);
	set_params(&a, hdr, &o, agent != NULL);

	struct nd_writer *w = ndw_open(cli.output, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err) || ndw_record(w, design, err, sizeof err) ||
	    ndw_record(w, rule, err, sizeof err) || (agent && ndw_record(w, agent, err, sizeof err)) ||
	    ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	free(s.w);
	free(pol);
	free(o.policies);
	free(o.exclude);
	cli_release(&cli);
	arena_release(&a);
	return 0;
}
