/* roll-ablation — the rolling ablation study's evidence (docs/rolling-rules.md "Record", "Pairwise
 * comparison", "Gates", "Closeout"): per (window, arm) one rolling_ablation_record from the
 * arm's metrics and its audit against the window's ordinary FIFO, then the arm summaries,
 * the agent's pairwise comparisons, the three gates and a closeout that is always
 * approval_pending with production_change_applied false. */
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include "eval/slo.h"
#include "roll/ablation.h"
#include "roll/config.h"
#include "sim/policy.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "roll-ablation --study FILE [--implementation FILE]... [-o OUT] --window ID FILE... [--window ID FILE...]...\n";

static const char help[] =
	"\n"
	"Read a rolling ablation study config (schednav.rolling-ablation-study/1) and, for each\n"
	"--window ID, the window's audit stream (every arm audited against ordinary FIFO) and\n"
	"each arm's metrics stream. Writes one schednav.rolling-ablation/1 stream: a\n"
	"rolling_ablation_record per (window, arm), one rolling_ablation_summary (arms, the\n"
	"agent's pairwise comparisons, the gates) and one rolling_closeout.\n"
	"\n"
	"  -s, --study FILE           the study config\n"
	"  -I, --implementation FILE  a file whose bytes identify the implementation (repeat)\n"
	"  -w, --window ID            start a window group; the FILEs (or -i FILEs) after it belong to it\n";

static const char version_schemas[] = "reads: schednav.metrics/1, schednav.audit/1\n"
				      "writes: " ROLL_ABLATION_STREAM_SCHEMA "\n";

#define STUDY_SCHEMA "schednav.rolling-ablation-study/1"
#define MAX_WINDOWS 64

struct arm {
	struct roll_arm_def def;
	const char *action_id;          /* in the metrics: the policy's for static arms, the arm id for roll */
	const char *kind;               /* static | predictive-fixed-policy | rolling */
	struct roll_cell cells[MAX_WINDOWS];
};

static const char *const schemas[] = { EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, NULL };
static const char *const nine[] = { "allocation_rate_mean", "hp_jct_p95_seconds", "hp_queue_p95_seconds", "spot_jct_p95_seconds",
	"spot_queue_p95_seconds", "spot_eviction_rate_per_run", "spot_guarantee_success_rate", "hp_preempted_job_count",
	"preemption_event_count", NULL };

static enum roll_arm_role role_of(const char *s, const char *arm)
{
	static const char *const names[] = { "baseline", "comparator", "agent", "masked", "oracle" };
	for (int i = 0; i < 5; i++)
		if (s && !strcmp(s, names[i]))
			return (enum roll_arm_role)i;
	die("study: arm '%s': role must be baseline, comparator, agent, masked or oracle", arm);
}

/* The study: its arms, and the design fingerprint over the config and every file it names. */
/* "\nPATH FINGERPRINT" of a file the study names (PATH relative to the study), if it names one:
 * the files join the design fingerprint. */
static void add_file_fp(struct strbuf *sb, struct arena *a, const char *p, const char *study)
{
	if (!p)
		return;
	char fp[FP_HEX_XXH3], err[512];
	size_t len;
	if (zio_xxh3(roll_resolve_path(a, p, study), fp, &len, err, sizeof err))
		die("%s", err);
	sb_addf(sb, "\n%s %s", p, fp);
}

/* v as JSON for a message (the process ends right after: the buffer is not freed) */
static const char *json_kind_shown(const struct json *v)
{
	struct strbuf sb;
	sb_init(&sb);
	json_write(&sb, v);
	if (sb.len > 80)
		sb.buf[77] = sb.buf[78] = sb.buf[79] = '.', sb.buf[80] = '\0';
	return sb.buf;
}

static size_t load_study(const char *path, struct arena *a, struct arm *arms, const char **study_id, char design_fp[FP_HEX_XXH3], long long *windows,
			 long long *reps)
{
	char err[1024];
	struct json *d;
	if (roll_json_load(path, a, &d, err, sizeof err))
		die("%s", err);
	const char *schema = json_get_str(d, "schema_version");
	if (!nd_schema_is(schema, STUDY_SCHEMA))
		die("%s: schema_version must be '%s'", path, STUDY_SCHEMA);
	/* the design fingerprint hashes the config: with the new spelling whichever was read, so
	 * a study in the old one has the same fingerprint (docs/design.md "Schema ids") */
	json_set(a, d, "schema_version", json_str(a, STUDY_SCHEMA));
	*study_id = json_get_str(d, "study_id");
	struct json *ar = json_get(d, "arms"), *w = json_get(d, "windows"), *r = json_get(d, "repetitions");
	if (!*study_id || !ar || ar->kind != JSON_ARRAY || ar->u.arr.n < 2 || ar->u.arr.n > ROLL_ABLATION_MAX_ARMS)
		die("%s: needs a study_id and 2 to %d arms", path, ROLL_ABLATION_MAX_ARMS);
	struct json *cnt = w ? json_get(w, "count") : NULL;
	if (!cnt || cnt->kind != JSON_INT || cnt->u.i < 1 || cnt->u.i > MAX_WINDOWS)
		die("%s: windows.count must be an integer in [1, %d]", path, MAX_WINDOWS);
	*windows = cnt->u.i;
	/* a false (or any other non-integer) is a value to check, not a missing key (issue 35):
	 * only an absent or null key takes the default, as in pipelines/rolling-config.jq */
	if (r && r->kind != JSON_NULL && (r->kind != JSON_INT || r->u.i < 2 || r->u.i > 10))
		die("%s: 'repetitions' must be an integer in 2..10, not %s", path, json_kind_shown(r));
	*reps = r && r->kind == JSON_INT ? r->u.i : 2;
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, d);
	int nbase = 0, nagent = 0;
	for (size_t i = 0; i < ar->u.arr.n; i++) {
		struct json *x = ar->u.arr.items[i];
		struct arm *m = &arms[i];
		memset(m, 0, sizeof *m);
		m->def.id = json_get_str(x, "arm_id");
		if (!m->def.id || !roll_id_ok(m->def.id))
			die("%s: arm %zu has no usable arm_id", path, i + 1);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(arms[k].def.id, m->def.id))
				die("%s: arm '%s' is declared twice", path, m->def.id);
		m->def.role = role_of(json_get_str(x, "role"), m->def.id);
		nbase += m->def.role == ARM_BASELINE;
		nagent += m->def.role == ARM_AGENT;
		m->def.deployable = m->def.role != ARM_ORACLE;
		m->def.rolling = json_get(x, "decider") != NULL;
		struct json *ctl = json_get(x, "controller");
		if (ctl && ctl->kind != JSON_NULL && ctl->kind != JSON_TRUE && ctl->kind != JSON_FALSE)
			die("%s: arm '%s': 'controller' must be true or false, not %s", path, m->def.id, json_kind_shown(ctl));
		m->kind = m->def.rolling ? "rolling" : ctl && ctl->kind == JSON_TRUE ? "predictive-fixed-policy" : "static";
		m->action_id = m->def.id;
		if (!m->def.rolling) {
			struct sim_policy pol;
			const char *pp = json_get_str(x, "policy");
			if (!pp || policy_load(&pol, roll_resolve_path(a, pp, path), a, err, sizeof err))
				die("%s: arm '%s': %s", path, m->def.id, pp ? err : "a static arm needs a policy");
			m->action_id = pol.action_id;
		}
		/* the files an arm names join the design fingerprint */
		static const char *const files[] = { "policy", NULL };
		for (const char *const *f = files; *f; f++)
			add_file_fp(&sb, a, json_get_str(x, *f), path);
	}
	if (nbase != 1 || nagent > 1)
		die("%s: exactly one baseline arm and at most one agent arm", path);
	static const char *const refs[] = { "rolling_config", "inner_controller", "slo", NULL };
	for (const char *const *k = refs; *k; k++)
		add_file_fp(&sb, a, json_get_str(d, *k), path);
	fp_xxh3_of(sb.buf, sb.len, design_fp);
	sb_release(&sb);
	return ar->u.arr.n;
}

static struct json *num_json(struct arena *a, bool ok, double v)
{
	return ok ? json_real(a, v) : json_null(a);
}

/* One (window, arm) record: its fingerprints, its hard-SLO verdict and failed hard
 * constraints, its nine headline metrics and its rolling block. */
static struct json *ablation_record(struct arena *a, const char *study_id, const char *design_fp, const char *impl_fp, const char *window_id,
				    const struct arm *arm, long long reps, const struct ev_item *met, const struct ev_item *aud, const char *abfp,
				    const struct roll_cell *cell, const struct json *rc)
{
	struct json *r = json_object(a), *fails = json_array(a), *mv = json_object(a), *cons = json_get(aud->rec, "constraints");
	json_set(a, r, "type", json_str(a, "rolling_ablation_record"));
	json_set(a, r, "schema_version", json_str(a, ROLL_ABLATION_RECORD_SCHEMA));
	json_set(a, r, "study_id", json_str(a, study_id));
	json_set(a, r, "design_fingerprint", json_str(a, design_fp));
	json_set(a, r, "implementation_fingerprint", json_str(a, impl_fp));
	json_set(a, r, "window_id", json_str(a, window_id));
	json_set(a, r, "arm_id", json_str(a, arm->def.id));
	json_set(a, r, "arm_kind", json_str(a, arm->kind));
	json_set(a, r, "action_id", json_str(a, arm->action_id));
	json_set(a, r, "deployable", json_bool(a, arm->def.deployable));
	json_set(a, r, "trace_fingerprint", json_clone(a, json_get(met->rec, "trace_fingerprint")));
	json_set(a, r, "repetition_count", json_int(a, reps));
	json_set(a, r, "deterministic_repetitions", json_bool(a, true));
	json_set(a, r, "result_fingerprint", json_clone(a, json_get(met->rec, "result_fingerprint")));
	json_set(a, r, "metrics_fingerprint", json_str(a, met->stream_fp));
	json_set(a, r, "audit_fingerprint", json_clone(a, json_get(aud->rec, "audit_fingerprint")));
	json_set(a, r, "audited_against_metrics_fingerprint", abfp ? json_str(a, abfp) : json_null(a));
	json_set(a, r, "hard_slo_passed", json_bool(a, cell->passed));
	for (size_t i = 0; cons && i < cons->u.arr.n; i++) {
		struct json *ci = cons->u.arr.items[i];
		if (!strcmp(json_get_str(ci, "severity"), "hard") && json_get(ci, "passed")->kind != JSON_TRUE)
			json_push(a, fails, json_str(a, json_get_str(ci, "id")));
	}
	json_set(a, r, "failed_hard_constraints", fails);
	for (const char *const *k = nine; *k; k++) {
		struct json *v = json_get(met->rec, *k);
		json_set(a, mv, *k, v ? json_clone(a, v) : json_null(a));
	}
	json_set(a, r, "metrics", mv);
	json_set(a, r, "rolling", rc ? json_clone(a, rc) : json_null(a));
	ev_self_fp_stamp(a, r, "record_fingerprint");
	return r;
}

/* The implementation fingerprint: XXH3-128 of the --implementation files' XXH3-128s, one a line. */
static void impl_fingerprint(const char *const *impl, size_t n_impl, char impl_fp[FP_HEX_XXH3])
{
	char err[1024];
	struct strbuf ib;
	sb_init(&ib);
	for (size_t i = 0; i < n_impl; i++) {
		char fp[FP_HEX_XXH3];
		size_t len;
		if (zio_xxh3(impl[i], fp, &len, err, sizeof err))
			die("%s", err);
		sb_addf(&ib, "%s\n", fp);
	}
	fp_xxh3_of(ib.buf, ib.len, impl_fp);
	sb_release(&ib);
}

/* The closeout: the eligible arms, the recommendation, and that nothing changes until a
 * person approves. */
static struct json *closeout_record(struct arena *a, const char *study_id, const struct json *s, const struct roll_gates *g)
{
	struct json *co = json_object(a), *el = json_array(a);
	json_set(a, co, "type", json_str(a, "rolling_closeout"));
	json_set(a, co, "study_id", json_str(a, study_id));
	json_set(a, co, "evidence_fingerprint", json_clone(a, json_get(s, "evidence_fingerprint")));
	for (size_t i = 0; i < g->n_eligible; i++)
		json_push(a, el, json_str(a, g->eligible[i]));
	json_set(a, co, "eligible_arm_ids", el);
	json_set(a, co, "recommended_arm_id", g->recommended ? json_str(a, g->recommended) : json_null(a));
	json_set(a, co, "claim_supported", json_bool(a, g->claim_supported));
	json_set(a, co, "project_status", json_str(a, "completed"));
	json_set(a, co, "outcome", json_str(a, "approval_pending"));
	json_set(a, co, "human_approval_required", json_bool(a, true));
	json_set(a, co, "production_change_applied", json_bool(a, false));
	json_set(a, co, "definition", json_str(a, "eligible: deployable arms passing every window; recommended: the eligible arm better than "
		"every other eligible arm, none when the top ones tie; nothing changes until a person approves"));
	ev_self_fp_stamp(a, co, "closeout_fingerprint");
	return co;
}

/* The summary: per arm its passes and mean metrics, the agent's pairwise comparisons and the gates. */
static struct json *summary_record(struct arena *a, const char *study_id, const char *design_fp, const char *impl_fp, long long windows,
				   const char *const *win_id, size_t nw, const struct arm *arms, const struct roll_arm_def *defs,
				   const struct roll_arm_summary *sum, size_t na, const struct roll_gates *g)
{
	struct json *s = json_object(a), *ao = json_object(a), *pw = json_object(a);
	json_set(a, s, "type", json_str(a, "rolling_ablation_summary"));
	json_set(a, s, "study_id", json_str(a, study_id));
	json_set(a, s, "design_fingerprint", json_str(a, design_fp));
	json_set(a, s, "implementation_fingerprint", json_str(a, impl_fp));
	json_set(a, s, "window_count", json_int(a, windows));
	struct json *wids = json_array(a);
	for (size_t w = 0; w < nw; w++)
		json_push(a, wids, json_str(a, win_id[w]));
	json_set(a, s, "window_ids", wids);
	for (size_t m = 0; m < na; m++) {
		struct json *x = json_object(a), *mm = json_object(a);
		json_set(a, x, "role", json_str(a, (const char *[]){ "baseline", "comparator", "agent", "masked", "oracle" }[defs[m].role]));
		json_set(a, x, "kind", json_str(a, arms[m].kind));
		json_set(a, x, "deployable", json_bool(a, defs[m].deployable));
		json_set(a, x, "window_count", json_int(a, sum[m].windows));
		json_set(a, x, "hard_slo_pass_count", json_int(a, sum[m].passes));
		json_set(a, mm, "allocation_rate_mean", num_json(a, sum[m].has_alloc, sum[m].alloc));
		json_set(a, mm, "spot_jct_p95_seconds", num_json(a, sum[m].has_jct, sum[m].jct));
		json_set(a, mm, "spot_eviction_rate_per_run", num_json(a, sum[m].has_evict, sum[m].evict));
		json_set(a, x, "mean_metrics", mm);
		json_set(a, x, "candidate_simulation_count", json_int(a, sum[m].simulations));
		json_set(a, x, "llm_call_count", json_int(a, sum[m].llm_calls));
		json_set(a, ao, defs[m].id, x);
		if (g->pairwise[m])
			json_set(a, pw, defs[m].id, json_str(a, g->pairwise[m]));
	}
	json_set(a, s, "arms", ao);
	json_set(a, s, "agent_pairwise_hierarchy", pw);
	json_set(a, s, "agent_superiority_gate", json_str(a, g->superiority));
	json_set(a, s, "agent_vs_ordinary_gate", json_str(a, g->vs_ordinary));
	json_set(a, s, "analyst_causal_value_gate", json_str(a, g->analyst));
	json_set(a, s, "definition", json_str(a, "More hard-SLO-passing windows ranks first; with equal counts, a mean allocation difference of at least "
		"one percentage point decides, then any Spot p95 JCT difference (lower), then any eviction-rate difference (lower); else a tie. "
		"The agent superiority gate needs no fewer passes than every deployable comparator, the same scenario-simulation count as "
		"every same-budget rolling arm and better than each of them; the analyst gate needs a masked-handoff arm."));
	ev_self_fp_stamp(a, s, "evidence_fingerprint");
	return s;
}

static void write_stream(const char *output, const struct json *hdr, const struct json *records, const struct json *s,
			 const struct json *co)
{
	char err[1024];
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i < records->u.arr.n; i++)
		if (ndw_record(w, records->u.arr.items[i], err, sizeof err))
			die("%s", err);
	if (ndw_record(w, s, err, sizeof err) || ndw_record(w, co, err, sizeof err) || ndw_end(w, NULL, err, sizeof err) ||
	    ndw_close(w, err, sizeof err))
		die("%s", err);
}

/* Window w: its streams (added to the header), each arm's metrics and audit into its cell
 * and one record, and every audit against the window's ordinary FIFO baseline. */
static void read_window(struct arena *a, struct json *hdr, struct json *records, struct arm *arms, size_t na, const char *const *win_id, size_t w,
	const char **files, size_t n_files, const char *study_id, const char *design_fp, const char *impl_fp, long long reps)
{
	char err[1024];
	for (size_t k = 0; k < w; k++)
		if (!strcmp(win_id[k], win_id[w]))
			die("window '%s' is given twice", win_id[w]);
	struct ev_input in;
	ev_input_init(&in);
	if (!n_files)
		die("window '%s' has no files", win_id[w]);
	for (size_t i = 0; i < n_files; i++)
		if (ev_read(&in, files[i], schemas, a, err, sizeof err))
			die("%s", err);
	free(files);
	for (size_t s = 0; s < in.nstreams; s++)
		nd_header_add_stream(a, hdr, in.streams[s].path, in.streams[s].schema, in.streams[s].fp);
	const char *base_fp = NULL;
	for (size_t m = 0; m < na; m++) {
		const struct ev_item *met = NULL, *aud = NULL;
		for (size_t i = 0; i < in.n; i++)
			if (!strcmp(in.items[i].type, "metrics") && !strcmp(json_get_str(in.items[i].rec, "action_id"), arms[m].action_id)) {
				if (met)
					die("window '%s': two metrics records for arm '%s'", win_id[w], arms[m].def.id);
				met = &in.items[i];
			}
		if (!met)
			die("window '%s': no metrics for arm '%s' (action '%s')", win_id[w], arms[m].def.id, arms[m].action_id);
		if (ev_metrics_check(met->rec, err, sizeof err))
			die("%s: %s", ev_where(met), err);
		for (size_t i = 0; i < in.n; i++)
			if (!strcmp(in.items[i].type, "audit") && !strcmp(json_get_str(in.items[i].rec, "metrics_fingerprint"), met->stream_fp))
				aud = &in.items[i];
		if (!aud)
			die("window '%s': no audit of arm '%s' (metrics %s)", win_id[w], arms[m].def.id, met->stream_fp);
		if (ev_slo_audit_check(aud->rec, err, sizeof err) || !ev_self_fp_ok(aud->rec, "audit_fingerprint"))
			die("%s: the audit record does not verify", ev_where(aud));
		if (arms[m].def.role == ARM_BASELINE)
			base_fp = met->stream_fp;
		struct json *ab = json_get(aud->rec, "baseline");
		const char *abfp = json_get_str(ab, "metrics_fingerprint");
		struct roll_cell *cell = &arms[m].cells[w];
		cell->present = true;
		cell->passed = json_get(aud->rec, "audit_passed")->kind == JSON_TRUE;
		cell->has_alloc = json_get_num(met->rec, "allocation_rate_mean", &cell->alloc);
		cell->has_jct = json_get_num(met->rec, "spot_jct_p95_seconds", &cell->jct);
		cell->has_evict = json_get_num(met->rec, "spot_eviction_rate_per_run", &cell->evict);
		struct json *rc = json_get(met->rec, "rolling_control");
		double x;
		if (rc && json_get_num(rc, "candidate_simulation_count", &x))
			cell->simulations = (long long)x;
		if (rc && json_get_num(json_get(rc, "llm_usage"), "call_count", &x))
			cell->llm_calls = (long long)x;
		if (arms[m].def.rolling && !rc)
			die("%s: arm '%s' is a rolling arm but its metrics have no rolling_control", ev_where(met), arms[m].def.id);
		if (rc && json_get_num(rc, "candidate_budget_per_decision", &x))
			arms[m].def.budget = (long long)x;
		json_push(a, records, ablation_record(a, study_id, design_fp, impl_fp, win_id[w], &arms[m], reps, met, aud, abfp, cell, rc));
	}
	/* every audit of the window names the window's baseline */
	for (size_t i = 0; i < in.n; i++)
		if (!strcmp(in.items[i].type, "audit")) {
			const char *bf = json_get_str(json_get(in.items[i].rec, "baseline"), "metrics_fingerprint");
			if (!bf || !base_fp || strcmp(bf, base_fp))
				die("%s: audited against another baseline than the window's ordinary FIFO", ev_where(&in.items[i]));
		}
	ev_input_release(&in);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "study", required_argument, NULL, 's' },
		{ "implementation", required_argument, NULL, 'I' },
		{ "window", required_argument, NULL, 'w' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, version_schemas);
	const char *study = NULL;
	const char *impl[32];
	size_t n_impl = 0;
	const char *win_id[MAX_WINDOWS];
	const char **win_files[MAX_WINDOWS];
	size_t win_n[MAX_WINDOWS], win_cap[MAX_WINDOWS], nw = 0;
	int c;
	/* '-' in the optstring: operands come back in order as case 1, so a FILE (or -i FILE)
	 * belongs to the --window before it */
	while ((c = getopt_long(argc, argv, "-:s:I:w:i:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': study = optarg; break;
		case 'I':
			if (n_impl == 32)
				usage_fail(usage, "too many --implementation files");
			impl[n_impl++] = optarg;
			break;
		case 'w':
			if (nw == MAX_WINDOWS)
				usage_fail(usage, "too many windows");
			win_id[nw] = optarg;
			win_files[nw] = NULL;
			win_n[nw] = win_cap[nw] = 0;
			nw++;
			break;
		case 1:
		case 'i':
			if (!nw)
				usage_fail(usage, "a FILE before the first --window");
			win_files[nw - 1] = xgrow(win_files[nw - 1], &win_cap[nw - 1], win_n[nw - 1] + 1, sizeof *win_files[0]);
			win_files[nw - 1][win_n[nw - 1]++] = optarg;
			break;
		default: cli_option(&cli, c, argv);
		}
	}
	const char *output = cli.output;
	if (!study || !nw)
		usage_fail(usage, "--study and at least one --window are required");
	char design_fp[FP_HEX_XXH3], impl_fp[FP_HEX_XXH3];
	struct arena a;
	arena_init(&a);
	struct arm arms[ROLL_ABLATION_MAX_ARMS];
	const char *study_id;
	long long windows, reps;
	size_t na = load_study(study, &a, arms, &study_id, design_fp, &windows, &reps);
	if ((long long)nw != windows)
		die("%zu windows given, the study declares %lld", nw, windows);
	impl_fingerprint(impl, n_impl, impl_fp);

	struct json *hdr = nd_header_new(&a, ROLL_ABLATION_STREAM_SCHEMA, "roll-ablation");
	json_set(&a, json_get(hdr, "params"), "study_id", json_str(&a, study_id));
	json_set(&a, json_get(hdr, "params"), "design_fingerprint", json_str(&a, design_fp));
	json_set(&a, json_get(hdr, "params"), "implementation_fingerprint", json_str(&a, impl_fp));
	struct json *records = json_array(&a);
	for (size_t w = 0; w < nw; w++)
		read_window(&a, hdr, records, arms, na, win_id, w, win_files[w], win_n[w], study_id, design_fp, impl_fp, reps);
	struct roll_arm_def defs[ROLL_ABLATION_MAX_ARMS];
	struct roll_arm_summary sum[ROLL_ABLATION_MAX_ARMS];
	for (size_t m = 0; m < na; m++) {
		defs[m] = arms[m].def;
		roll_arm_summarise(arms[m].cells, nw, &sum[m]);
	}
	struct roll_gates g;
	roll_gates_evaluate(defs, sum, na, windows, &g);

	struct json *s = summary_record(&a, study_id, design_fp, impl_fp, windows, win_id, nw, arms, defs, sum, na, &g);

	struct json *co = closeout_record(&a, study_id, s, &g);

	write_stream(output, hdr, records, s, co);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
