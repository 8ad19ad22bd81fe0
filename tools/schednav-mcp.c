/* schednav-mcp — the bounded agent bridge: an MCP server (JSON-RPC 2.0, newline-delimited on
 * stdio) that exposes a role profile's whitelisted operations as MCP tools. Every operation
 * runs our tools as subprocesses with a fixed argv inside one workspace, is a task
 * (queued -> running -> succeeded | failed) keyed for idempotency, and is appended to a
 * hash-chained audit log. Agents pass ids and relative refs only: never a path outside the
 * workspace, a shell command, an approval, or a job, node or GPU id. This file holds the
 * operations, their table and main; the server, the tools/call pipeline and what operations
 * use are lib/agents/bridge*.c (agents/bridge.h), the framing agents/rpc, the task store and
 * audit log agents/tasks, the operations' schemas schemas/mcp/ (agents/opschema). A new
 * operation is its schema file, its function here and one row of ops[]. */
#define _GNU_SOURCE   /* memfd_create: read_artifact parses exactly the bytes it hashed */
#include "agents/bridge.h"
#include "agents/jschema.h"
#include "agents/manifest.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include "eval/workload.h"
#include "predict/predict.h"
#include "roll/decision.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"schednav-mcp --profile ROLE --workspace DIR [--configs DIR] [--exec-path DIR] [--action-space ID]\n"
	"schednav-mcp --verify-log --workspace DIR\n";

static const char help[] =
	"\n"
	"Serve the Model Context Protocol (revision 2025-11-25; 2025-06-18, 2025-03-26 and\n"
	"2024-11-05 are negotiated too) on stdin/stdout, one JSON-RPC message a line, for the\n"
	"role profile ROLE (configs/agents/ROLE.json: analyst, strategist, simulation, auditor,\n"
	"manager, predictive, rolling). Operations run our tools in DIR; their state, the task\n"
	"store and the audit log live in DIR/.schednav-mcp/.\n"
	"\n"
	"  -p, --profile ROLE     the role profile whose operations are listed and accepted\n"
	"  -w, --workspace DIR    the workspace root every id and ref resolves under\n"
	"  -c, --configs DIR      agents/, action_spaces/, policies/, slos/, controllers/, rolling/\n"
	"                         (default: $SCHEDNAV_CONFIGS, else EXEC/../configs,\n"
	"                         else EXEC/../../share/schednav/configs)\n"
	"  -x, --exec-path DIR    where the tools are (default: this program's directory)\n"
	"  -a, --action-space ID  the declared action space (default static-v1)\n"
	"      --verify-log       verify the workspace's audit log and exit\n";

#define MAX_ARTIFACT (512 * 1024)
#define SIMULATIONS_SCHEMA MF_SIMULATIONS_SCHEMA

/* Streams read_artifact may return: summaries and evaluation records, never trace or result
 * streams (those carry job, node and GPU ids). */
static const char *const readable_schemas[] = {
	WORKLOAD_SCHEMA, EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, EV_RANKING_SCHEMA, EV_COMPARISON_SCHEMA,
	SIMULATIONS_SCHEMA, BR_AUDITS_SCHEMA, PC_FORECAST_STREAM_SCHEMA, MF_AGENT_PLAN_STREAM_SCHEMA, NULL,
};

static int op_analyze(struct br_call *c)
{
	const char *trace = ag_br_run_config_trace(c, ag_br_str_arg(c, "run_config_id"), NULL);
	if (!trace || ag_br_begin_task(c))
		return -1;
	char interval[32], cutoff[64];
	snprintf(interval, sizeof interval, "%lld", json_get(c->args, "sample_interval_seconds")->u.i);
	const char *out = ag_br_artifact_ref(c, "workload.ndjson");
	const char *argv[12] = { "trace-analyze", "--sample-interval", interval, "-o", out };
	size_t n = 5;
	struct json *cut = json_get(c->args, "cutoff_seconds");
	if (cut) {
		char buf[NUM_FMT_MAX];
		num_fmt_double(buf, json_num(cut));
		snprintf(cutoff, sizeof cutoff, "%s", buf);
		argv[n++] = "--cutoff";
		argv[n++] = cutoff;
	}
	argv[n++] = trace;
	argv[n] = NULL;
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	json_set(c->a, c->result, "run_config_id", json_str(c->a, ag_br_str_arg(c, "run_config_id")));
	json_set(c->a, c->result, "workload_summary", si.records->u.arr.items[0]);
	return 0;
}

static int op_forecast(struct br_call *c)
{
	const char *trace = ag_br_run_config_trace(c, ag_br_str_arg(c, "run_config_id"), NULL);
	const char *ctl = trace ? ag_br_config_file(c, "controllers", ag_br_str_arg(c, "controller_id"), "controller_id") : NULL;
	if (!ctl || ag_br_begin_task(c))
		return -1;
	char cutoff[NUM_FMT_MAX];
	num_fmt_double(cutoff, json_num(json_get(c->args, "cutoff_seconds")));
	const char *out = ag_br_artifact_ref(c, "forecast.ndjson");
	const char *argv[] = { "forecast", "--controller", ctl, "--cutoff", cutoff, "-o", out, "--input", trace, NULL };
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	struct json *bundle = NULL;
	for (size_t i = 0; i < si.records->u.arr.n; i++)
		if (!strcmp(json_get_str(si.records->u.arr.items[i], "type"), "observation_bundle"))
			bundle = si.records->u.arr.items[i];
	if (!bundle) {
		sb_addf(&c->failure, "forecast wrote no observation_bundle record\n");
		return -1;
	}
	json_set(c->a, c->result, "run_config_id", json_str(c->a, ag_br_str_arg(c, "run_config_id")));
	json_set(c->a, c->result, "observation_bundle", bundle);
	return 0;
}

/* sim-run + metrics of one declared action into DIR; fills result and metrics fingerprints. */
static int simulate_into(struct br_call *c, const char *trace, const char *policy, const char *controller, const char *subdir,
			 char result_fp[FP_HEX_XXH3], char metrics_fp[FP_HEX_XXH3], const char **metrics_ref, struct json **metrics)
{
	const char *res = ag_br_artifact_ref(c, subdir ? ag_br_joinpath(c->a, subdir, "result.ndjson.zst") : "result.ndjson.zst");
	const char *met = ag_br_artifact_ref(c, subdir ? ag_br_joinpath(c->a, subdir, "metrics.ndjson") : "metrics.ndjson");
	if (subdir) {
		char err[800];
		if (ag_ws_mkdirs(&c->s->ws, ag_br_joinpath(c->a, c->dir, subdir), err, sizeof err)) {
			sb_addf(&c->failure, "%s\n", err);
			return -1;
		}
	}
	const char *plain[] = { "sim-run", "--policy", policy, "--input", trace, "-o", res, NULL };
	const char *predictive[] = { "sim-run", "--policy", policy, "--controller", controller, "--input", trace, "-o", res, NULL };
	const char *const *sim = controller ? predictive : plain;
	const char *mt[] = { "metrics", "--input", res, "-o", met, NULL };
	struct br_stream si;
	if (ag_br_run_tool(c, sim) || ag_br_add_artifact(c, res, false, &si))
		return -1;
	snprintf(result_fp, 33, "%s", si.fp);
	if (ag_br_run_tool(c, mt) || ag_br_add_artifact(c, met, true, &si))
		return -1;
	snprintf(metrics_fp, 33, "%s", si.fp);
	*metrics_ref = met;
	*metrics = si.records->u.arr.items[0];
	return 0;
}

static int simulate_common(struct br_call *c, bool predictive)
{
	const char *rc_id = ag_br_str_arg(c, "run_config_id"), *action = ag_br_str_arg(c, "action_id");
	const char *trace = ag_br_run_config_trace(c, rc_id, NULL);
	const char *policy = trace ? ag_br_policy_file(c, action) : NULL;
	const char *ctl = policy && predictive ? ag_br_config_file(c, "controllers", ag_br_str_arg(c, "controller_id"), "controller_id") : NULL;
	if (!policy || (predictive && !ctl) || ag_br_begin_task(c))
		return -1;
	char rfp[FP_HEX_XXH3], mfp[FP_HEX_XXH3];
	const char *mref;
	struct json *m;
	if (simulate_into(c, trace, policy, ctl, NULL, rfp, mfp, &mref, &m))
		return -1;
	if (!predictive)
		ag_br_index_simulation(c, rc_id, action, mref);
	json_set(c->a, c->result, "run_config_id", json_str(c->a, rc_id));
	json_set(c->a, c->result, "action_id", json_str(c->a, action));
	if (predictive)
		json_set(c->a, c->result, "controller_id", json_str(c->a, ag_br_str_arg(c, "controller_id")));
	json_set(c->a, c->result, "result_fingerprint", json_str(c->a, rfp));
	json_set(c->a, c->result, "metrics_ref", json_str(c->a, mref));
	json_set(c->a, c->result, "metrics_fingerprint", json_str(c->a, mfp));
	json_set(c->a, c->result, "metrics", ag_br_headline(c->a, m));
	return 0;
}

static int op_simulate(struct br_call *c) { return simulate_common(c, false); }
static int op_simulate_predictive(struct br_call *c) { return simulate_common(c, true); }

/* roll --decider plan:FILE (docs/rolling.md "The decision protocol"): the accepted decisions go
 * in as recorded reply lines, one per request id; roll replays the day and stops at the first
 * request without one (a planning checkpoint) or runs it to the end. roll itself checks each
 * reply against its request's candidates and records a rejection (the safety action then
 * applies), so the bridge checks only the shape. Listed only once roll exists. */
static int op_rolling(struct br_call *c)
{
	const char *history = NULL, *rc_id = ag_br_str_arg(c, "run_config_id");
	const char *trace = ag_br_run_config_trace(c, rc_id, &history);
	const char *ctl = trace ? ag_br_config_file(c, "controllers", ag_br_str_arg(c, "controller_id"), "controller_id") : NULL;
	const char *rolling = ctl ? ag_br_config_file(c, "rolling", ag_br_str_arg(c, "rolling_controller_id"), "rolling_controller_id") : NULL;
	struct json *decisions = json_get(c->args, "decisions");
	/* roll refuses a second reply to one request; say so as roll does, before any task */
	for (size_t i = 0; rolling && i < decisions->u.arr.n; i++)
		for (size_t j = 0; j < i; j++) {
			const char *rid = json_get_str(decisions->u.arr.items[i], "request_id");
			if (!strcmp(rid, json_get_str(decisions->u.arr.items[j], "request_id"))) {
				snprintf(c->refusal, sizeof c->refusal, "arguments.decisions[%zu]: a second reply for request '%s'", i, rid);
				return -1;
			}
		}
	if (!rolling || ag_br_begin_task(c))
		return -1;
	char path[PATH_MAX], arm[64];
	const char *dref = ag_br_artifact_ref(c, "decisions.ndjson");
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < decisions->u.arr.n; i++) {
		struct json *d = json_object(c->a), *x = decisions->u.arr.items[i];
		json_set(c->a, d, "type", json_str(c->a, "decision"));
		for (size_t k = 0; k < x->u.obj.n; k++)
			json_set(c->a, d, x->u.obj.keys[k], x->u.obj.vals[k]);
		json_write(&sb, d);
		sb_addc(&sb, '\n');
	}
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, dref);
	int w = ag_task_write_atomic(path, sb.buf, sb.len);
	sb_release(&sb);
	if (w) {
		sb_addf(&c->failure, "cannot write %s\n", dref);
		return -1;
	}
	/* the arm id names the mode: rolling-single-agent, rolling-multi-agent, rolling-multi-agent-masked */
	snprintf(arm, sizeof arm, "rolling-%s", ag_br_str_arg(c, "mode"));
	for (char *q = arm; *q; q++)
		if (*q == '_')
			*q = '-';
	size_t dn = strlen(dref) + 6;
	char *decider = arena_alloc(c->a, dn);
	snprintf(decider, dn, "plan:%s", dref);
	const char *out = ag_br_artifact_ref(c, "rolling.ndjson.zst");
	const char *argv[] = { "roll", "--config", rolling, "--controller", ctl, "--history", history ? history : trace,
			       "--decider", decider, "--arm-id", arm, "-o", out, trace, NULL };
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	struct json *keep = json_array(c->a);
	for (size_t i = 0; i < si.records->u.arr.n; i++) {
		const char *t = json_get_str(si.records->u.arr.items[i], "type");
		/* the agent sees the checkpoint and the rolling records, never the job ledgers */
		if (t && strcmp(t, "job_result") && strcmp(t, "run") && strcmp(t, "preemption") && strcmp(t, "job") && strcmp(t, "cluster") &&
		    strcmp(t, "control_decision"))
			json_push(c->a, keep, si.records->u.arr.items[i]);
	}
	bool complete = !si.schema || strcmp(si.schema, ROLL_CHECKPOINT_STREAM_SCHEMA);
	json_set(c->a, c->result, "run_config_id", json_str(c->a, rc_id));
	json_set(c->a, c->result, "complete", json_bool(c->a, complete));
	json_set(c->a, c->result, "records", keep);
	if (complete) {
		/* the arm's metrics, which audit_slo (auditor profile) audits against FIFO */
		const char *met = ag_br_artifact_ref(c, "metrics.ndjson");
		const char *mt[] = { "metrics", "--input", out, "-o", met, NULL };
		if (ag_br_run_tool(c, mt) || ag_br_add_artifact(c, met, true, &si))
			return -1;
		json_set(c->a, c->result, "metrics_ref", json_str(c->a, met));
		json_set(c->a, c->result, "metrics_fingerprint", json_str(c->a, si.fp));
		json_set(c->a, c->result, "metrics", ag_br_headline(c->a, si.records->u.arr.items[0]));
	}
	return 0;
}

static int op_compare(struct br_call *c)
{
	struct json *refs = json_get(c->args, "metrics_refs");
	if (!ag_br_refs_of_schema(c, refs, EV_METRICS_SCHEMA) || ag_br_begin_task(c))
		return -1;
	const char *out = ag_br_artifact_ref(c, "portfolio.ndjson");
	const char *argv[12] = { "compare", "-o", out };
	size_t n = 3;
	for (size_t i = 0; i < refs->u.arr.n; i++)
		argv[n++] = refs->u.arr.items[i]->u.str.s;
	argv[n] = NULL;
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	json_set(c->a, c->result, "portfolio", si.records->u.arr.items[0]);
	return 0;
}

/* The FIFO baseline of audit_slo: a ref, or the action simulated on the candidate's run config. */
static const char *baseline_ref(struct br_call *c, const char *metrics_ref)
{
	const char *ref = ag_br_str_arg(c, "baseline_metrics_ref");
	if (ref)
		return ref;
	const char *action = ag_br_str_arg(c, "baseline_action_id");
	char key[FP_HEX_XXH3];
	fp_xxh3_of(metrics_ref, strlen(metrics_ref), key);
	struct json *cand = ag_br_index_lookup(c, "metrics", key);
	if (!cand) {
		snprintf(c->refusal, sizeof c->refusal, "'%s' was not simulated by this bridge: give baseline_metrics_ref", metrics_ref);
		return NULL;
	}
	char name[300];
	snprintf(name, sizeof name, "%s/%s", json_get_str(cand, "run_config_id"), action);
	struct json *base = ag_br_index_lookup(c, "simulations", name);
	if (!base) {
		snprintf(c->refusal, sizeof c->refusal, "action '%s' has not been simulated on run config '%s'", action,
			 json_get_str(cand, "run_config_id"));
		return NULL;
	}
	return json_get_str(base, "metrics_ref");
}

static int op_audit(struct br_call *c)
{
	const char *mref = ag_br_str_arg(c, "metrics_ref");
	const char *slo = ag_br_config_file(c, "slos", ag_br_str_arg(c, "slo_spec_id"), "slo_spec_id");
	struct json *one = json_array(c->a);
	json_push(c->a, one, json_str(c->a, mref));
	const char *base = slo && ag_br_refs_of_schema(c, one, EV_METRICS_SCHEMA) ? baseline_ref(c, mref) : NULL;
	struct json *bases = json_array(c->a);
	if (base)
		json_push(c->a, bases, json_str(c->a, base));
	if (!base || !ag_br_refs_of_schema(c, bases, EV_METRICS_SCHEMA) || ag_br_begin_task(c))
		return -1;
	const char *out = ag_br_artifact_ref(c, "audit.ndjson");
	const char *argv[] = { "slo-audit", "--slo", slo, "--baseline", base, "-o", out, mref, NULL };
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	struct json *audit = si.records->u.arr.items[0];
	json_set(c->a, c->result, "audit_ref", json_str(c->a, out));
	json_set(c->a, c->result, "audit_fingerprint", json_get(audit, "audit_fingerprint"));
	json_set(c->a, c->result, "audit_passed", json_get(audit, "audit_passed"));
	json_set(c->a, c->result, "failed_constraint_ids", json_get(audit, "failed_constraint_ids"));
	json_set(c->a, c->result, "unavailable_constraint_ids", json_get(audit, "unavailable_constraint_ids"));
	return 0;
}

static int op_rank(struct br_call *c)
{
	struct json *mrefs = json_get(c->args, "metrics_refs"), *arefs = json_get(c->args, "audit_refs");
	const char *slo = ag_br_config_file(c, "slos", ag_br_str_arg(c, "slo_spec_id"), "slo_spec_id");
	if (!slo || !ag_br_refs_of_schema(c, mrefs, EV_METRICS_SCHEMA) || !ag_br_refs_of_schema(c, arefs, EV_AUDIT_SCHEMA) || ag_br_begin_task(c))
		return -1;
	const char *out = ag_br_artifact_ref(c, "ranking.ndjson");
	const char *argv[20] = { "rank", "--slo", slo, "-o", out };
	size_t n = 5;
	for (size_t i = 0; i < arefs->u.arr.n; i++)
		argv[n++] = arefs->u.arr.items[i]->u.str.s;
	for (size_t i = 0; i < mrefs->u.arr.n; i++)
		argv[n++] = mrefs->u.arr.items[i]->u.str.s;
	argv[n] = NULL;
	struct br_stream si;
	if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
		return -1;
	struct json *rk = si.records->u.arr.items[0];
	json_set(c->a, c->result, "ranking_ref", json_str(c->a, out));
	json_set(c->a, c->result, "ranking_fingerprint", json_get(rk, "ranking_fingerprint"));
	json_set(c->a, c->result, "selection_status", json_get(rk, "selection_status"));
	json_set(c->a, c->result, "selected_action_ids", json_get(rk, "selected_action_ids"));
	/* never auto-approved: a person settles it with approve(1), which no profile exposes */
	json_set(c->a, c->result, "outcome", json_str(c->a, "approval_pending"));
	return 0;
}

static int op_simulate_run_set(struct br_call *c)
{
	const char *set = ag_br_str_arg(c, "run_set_id");
	struct json *configs = ag_br_run_set_configs(c, set), *actions = json_get(c->args, "action_ids");
	long long reps = json_get(c->args, "repetitions")->u.i;
	if (!configs)
		return -1;
	const char **traces = arena_alloc(c->a, configs->u.arr.n * sizeof *traces);
	const char **policies = arena_alloc(c->a, actions->u.arr.n * sizeof *policies);
	for (size_t i = 0; i < configs->u.arr.n; i++)
		if (!(traces[i] = ag_br_run_config_trace(c, configs->u.arr.items[i]->u.str.s, NULL)))
			return -1;
	for (size_t k = 0; k < actions->u.arr.n; k++)
		if (!(policies[k] = ag_br_policy_file(c, actions->u.arr.items[k]->u.str.s)))
			return -1;
	if (ag_br_begin_task(c))
		return -1;
	struct json *entries = json_array(c->a);
	for (size_t i = 0; i < configs->u.arr.n; i++)
		for (size_t k = 0; k < actions->u.arr.n; k++) {
			const char *rc_id = configs->u.arr.items[i]->u.str.s, *action = actions->u.arr.items[k]->u.str.s;
			char first_fp[FP_HEX_XXH3] = "", rfp[FP_HEX_XXH3], mfp[FP_HEX_XXH3];
			const char *mref = NULL;
			struct json *m;
			for (long long r = 1; r <= reps; r++) {
				char sub[300];
				snprintf(sub, sizeof sub, "%s/%s/rep-%lld", rc_id, action, r);
				if (simulate_into(c, traces[i], policies[k], NULL, sub, rfp, mfp, &mref, &m))
					return -1;
				if (r == 1)
					snprintf(first_fp, sizeof first_fp, "%s", rfp);
				else if (strcmp(first_fp, rfp)) {
					sb_addf(&c->failure, "%s/%s: repetitions gave result fingerprints %s and %s\n", rc_id, action, first_fp, rfp);
					return -1;
				}
			}
			ag_br_index_simulation(c, rc_id, action, mref);
			struct json *e = json_object(c->a);
			json_set(c->a, e, "type", json_str(c->a, "run_set_simulation"));
			json_set(c->a, e, "run_config_id", json_str(c->a, rc_id));
			json_set(c->a, e, "action_id", json_str(c->a, action));
			json_set(c->a, e, "repetitions", json_int(c->a, reps));
			json_set(c->a, e, "deterministic", json_bool(c->a, true));
			json_set(c->a, e, "result_fingerprint", json_str(c->a, rfp));
			json_set(c->a, e, "metrics_ref", json_str(c->a, mref));
			json_set(c->a, e, "metrics_fingerprint", json_str(c->a, mfp));
			json_push(c->a, entries, e);
		}
	const char *out = ag_br_artifact_ref(c, "simulations.ndjson");
	struct br_stream si;
	if (ag_br_write_manifest(c, out, SIMULATIONS_SCHEMA, entries) || ag_br_add_artifact(c, out, false, &si))
		return -1;
	json_set(c->a, c->result, "run_set_id", json_str(c->a, set));
	json_set(c->a, c->result, "simulations_ref", json_str(c->a, out));
	json_set(c->a, c->result, "simulations", entries);
	return 0;
}

/* Refs read from a manifest are confined exactly like refs from the agent: a verified metrics
 * stream inside the workspace, reached without a symlink. */
static int op_audit_run_set(struct br_call *c)
{
	const char *sref = ag_br_str_arg(c, "simulations_ref"), *base_action = ag_br_str_arg(c, "baseline_action_id");
	const char *slo = ag_br_config_file(c, "slos", ag_br_str_arg(c, "slo_spec_id"), "slo_spec_id");
	struct run_set_simulation *sims;
	size_t n;
	char path[PATH_MAX], err[1024];
	if (!slo || !ag_br_ref_readable(c, sref))
		return -1;
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, sref);
	if (ag_mf_simulations(c->a, path, &sims, &n, err, sizeof err)) {
		char *rel = strstr(err, sref);
		snprintf(c->refusal, sizeof c->refusal, "'%s' is not a verified %s manifest: %.700s", sref, SIMULATIONS_SCHEMA, rel ? rel : err);
		return -1;
	}
	struct json *mrefs = json_array(c->a);
	for (size_t i = 0; i < n; i++)
		json_push(c->a, mrefs, json_str(c->a, sims[i].metrics_ref));
	if (!ag_br_refs_of_schema(c, mrefs, EV_METRICS_SCHEMA)) {
		char why[sizeof c->refusal];
		snprintf(why, sizeof why, "%s", c->refusal);
		snprintf(c->refusal, sizeof c->refusal, "'%s': a metrics_ref: %.900s", sref, why);
		return -1;
	}
	/* every run config of the manifest needs the baseline action */
	for (size_t i = 0; i < n; i++) {
		bool has = false;
		for (size_t j = 0; j < n; j++)
			has = has || (!strcmp(sims[j].run_config_id, sims[i].run_config_id) && !strcmp(sims[j].action_id, base_action));
		if (!has) {
			snprintf(c->refusal, sizeof c->refusal, "run config '%s' has no simulation of the baseline '%s'", sims[i].run_config_id,
				 base_action);
			return -1;
		}
	}
	if (ag_br_begin_task(c))
		return -1;
	struct json *entries = json_array(c->a);
	for (size_t i = 0; i < n; i++) {
		const char *rc_id = sims[i].run_config_id;
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen = seen || !strcmp(sims[j].run_config_id, rc_id);
		if (seen)
			continue;
		/* slo-audit --slo S --baseline B -o OUT, then this config's metrics (at most MF_ACTIONS_MAX) */
		const char **argv = arena_alloc(c->a, (8 + n) * sizeof *argv);
		const char **actions = arena_alloc(c->a, n * sizeof *actions);
		size_t argc = 7, k = 0;
		argv[0] = "slo-audit", argv[1] = "--slo", argv[2] = slo, argv[3] = "--baseline", argv[5] = "-o";
		for (size_t j = 0; j < n; j++) {
			if (strcmp(sims[j].run_config_id, rc_id))
				continue;
			if (!strcmp(sims[j].action_id, base_action))
				argv[4] = sims[j].metrics_ref;
			argv[argc++] = sims[j].metrics_ref;
			actions[k++] = sims[j].action_id;
		}
		argv[argc] = NULL;
		const char *out = ag_br_artifact_ref(c, ag_br_joinpath(c->a, rc_id, "audit.ndjson"));
		argv[6] = out;
		struct br_stream si;
		if (ag_ws_mkdirs(&c->s->ws, ag_br_joinpath(c->a, c->dir, rc_id), err, sizeof err)) {
			sb_addf(&c->failure, "%s\n", err);
			return -1;
		}
		if (ag_br_run_tool(c, argv) || ag_br_add_artifact(c, out, true, &si))
			return -1;
		if (si.records->u.arr.n != k) {
			sb_addf(&c->failure, "%s: %zu audits for %zu metrics\n", out, si.records->u.arr.n, k);
			return -1;
		}
		struct json *results = json_array(c->a);
		for (size_t m = 0; m < k; m++) {
			/* slo-audit writes one audit per metrics input, in argv order */
			struct json *r = json_object(c->a), *au = si.records->u.arr.items[m];
			json_set(c->a, r, "action_id", json_str(c->a, actions[m]));
			json_set(c->a, r, "audit_passed", json_get(au, "audit_passed"));
			json_set(c->a, r, "audit_fingerprint", json_get(au, "audit_fingerprint"));
			json_push(c->a, results, r);
		}
		struct json *e = json_object(c->a);
		json_set(c->a, e, "type", json_str(c->a, "run_set_audit"));
		json_set(c->a, e, "run_config_id", json_str(c->a, rc_id));
		json_set(c->a, e, "baseline_action_id", json_str(c->a, base_action));
		json_set(c->a, e, "audit_ref", json_str(c->a, out));
		json_set(c->a, e, "audit_stream_fingerprint", json_str(c->a, si.fp));
		json_set(c->a, e, "results", results);
		json_push(c->a, entries, e);
	}
	const char *out = ag_br_artifact_ref(c, "audits.ndjson");
	struct br_stream si;
	if (ag_br_write_manifest(c, out, BR_AUDITS_SCHEMA, entries) || ag_br_add_artifact(c, out, false, &si))
		return -1;
	json_set(c->a, c->result, "simulations_ref", json_str(c->a, sref));
	json_set(c->a, c->result, "audits_ref", json_str(c->a, out));
	json_set(c->a, c->result, "audits", entries);
	return 0;
}

static int op_get_task(struct br_call *c)
{
	const char *id = ag_br_str_arg(c, "task_id");
	char bad[700];
	struct json *t = ag_br_load_task(c, id, bad, sizeof bad);
	if (!t) {
		if (bad[0])
			snprintf(c->refusal, sizeof c->refusal, "stored task %s cannot be trusted: %s", id, bad);
		else
			snprintf(c->refusal, sizeof c->refusal, "unknown task '%s'", id);
		return -1;
	}
	static const char *const keys[] = { "task_id", "operation", "state", "arguments_fingerprint", "artifacts", "error", NULL };
	for (const char *const *k = keys; *k; k++)
		json_set(c->a, c->result, *k, json_get(t, *k));
	return 0;
}

/* read_artifact serves one thing: a plain (uncompressed) NDJSON stream of an allow-listed
 * schema, at most MAX_ARTIFACT bytes, read once; the records returned are parsed from exactly
 * the bytes hashed. Nothing is decompressed, so no small file can expand. */
static int op_read_artifact(struct br_call *c)
{
	const char *ref = ag_br_str_arg(c, "ref");
	char err[1024];
	int fd = ag_ws_open_file(&c->s->ws, ref, err, sizeof err);
	if (fd < 0) {
		snprintf(c->refusal, sizeof c->refusal, "%s", err);
		return -1;
	}
	struct strbuf raw;
	sb_init(&raw);
	char buf[65536];
	ssize_t n = 0;
	while (raw.len <= MAX_ARTIFACT && (n = read(fd, buf, sizeof buf)) > 0)
		sb_add(&raw, buf, (size_t)n);
	close(fd);
	if (n < 0 || raw.len > MAX_ARTIFACT || raw.len == 0 || raw.buf[0] != '{') {
		snprintf(c->refusal, sizeof c->refusal,
			 n < 0 ? "'%s' cannot be read" : raw.len > MAX_ARTIFACT ? "'%s' is larger than 512 KiB" :
			 raw.len >= 4 && (!memcmp(raw.buf, "\x28\xb5\x2f\xfd", 4) || (!memcmp(raw.buf + 1, "\x2a\x4d\x18", 3) &&
			 ((unsigned char)raw.buf[0] & 0xF0) == 0x50)) ? "'%s' is zstd-compressed; agents read plain streams only" :
			 "'%s' is not a plain NDJSON stream (its first byte is not '{')", ref);
		sb_release(&raw);
		return -1;
	}
	char sha[65], path[64];
	fp_sha256_of(raw.buf, raw.len, sha);
	int mfd = memfd_create("read_artifact", MFD_CLOEXEC);
	bool copied = mfd >= 0 && write(mfd, raw.buf, raw.len) == (ssize_t)raw.len;
	sb_release(&raw);
	if (!copied) {
		if (mfd >= 0)
			close(mfd);
		sb_addf(&c->failure, "read_artifact: memfd: %s\n", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
	struct br_stream si;
	int rc = ag_br_read_stream(c->a, path, true, &si, err, sizeof err);
	close(mfd);
	if (rc) {
		snprintf(c->refusal, sizeof c->refusal, "'%s' is not a verified stream", ref);
		return -1;
	}
	bool allowed = false;
	for (const char *const *s = readable_schemas; *s && !allowed; s++)
		allowed = si.schema && !strcmp(si.schema, *s);
	if (!allowed) {
		snprintf(c->refusal, sizeof c->refusal, "'%s' holds schema '%.*s', which is not readable by agents", ref,
			 si.schema ? ag_utf8_clip(si.schema, 100) : 1, si.schema ? si.schema : "?");
		return -1;
	}
	json_set(c->a, c->result, "ref", json_str(c->a, ref));
	json_set(c->a, c->result, "schema", json_str(c->a, si.schema));
	json_set(c->a, c->result, "sha256", json_str(c->a, sha));
	json_set(c->a, c->result, "document", si.records);
	return 0;
}

#ifdef SCHEDNAV_TEST_OPS   /* the test build's toy operation (tests/fixtures/mcp/toy_echo.c) */
#include "../tests/fixtures/mcp/toy_echo.c"
#endif

/* The operations: one row each (agents/bridge.h, struct br_op), its schema schemas/mcp/NAME.json. */
static const struct br_op ops[] = {
	{ "analyze_workload", "trace-analyze", NULL, true, op_analyze },
	{ "forecast_demand", "forecast", "--cutoff", true, op_forecast },
	{ "simulate_policy", "sim-run", NULL, true, op_simulate },
	{ "simulate_predictive_policy", "sim-run", "--controller", true, op_simulate_predictive },
	{ "advance_rolling_policy", "roll", NULL, true, op_rolling },
	{ "compare_policies", "compare", NULL, true, op_compare },
	{ "audit_slo", "slo-audit", NULL, true, op_audit },
	{ "rank_policies", "rank", NULL, true, op_rank },
	{ "simulate_run_set", "sim-run", NULL, true, op_simulate_run_set },
	{ "audit_run_set", "slo-audit", NULL, true, op_audit_run_set },
	{ "get_task", NULL, NULL, false, op_get_task },
	{ "read_artifact", NULL, NULL, false, op_read_artifact },
#ifdef SCHEDNAV_TEST_OPS
	{ "toy_echo", NULL, NULL, false, op_toy_echo },
#endif
};

int main(int argc, char **argv)
{
	enum { OPT_VERIFY = 256 };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' }, { "workspace", required_argument, NULL, 'w' },
		{ "configs", required_argument, NULL, 'c' }, { "exec-path", required_argument, NULL, 'x' },
		{ "action-space", required_argument, NULL, 'a' }, { "verify-log", no_argument, NULL, OPT_VERIFY },
		CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 },
	};
	static const char schemas[] = "reads: MCP JSON-RPC 2.0 (" BR_PROTOCOL_LATEST "), " MF_AGENT_ROLE_SCHEMA "\n"
				      "writes: " TASK_SCHEMA ", " SIMULATIONS_SCHEMA ", " BR_AUDITS_SCHEMA ", bridge_call log\n";
	struct br_server s = { .ops = ops, .nops = sizeof ops / sizeof *ops, .in = stdin, .out = stdout, .action_space_id = "static-v1" };
	const char *workspace = NULL;
	bool verify = false;
	struct cli cli;
	int c;
	cli_init(&cli, argv, 0, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":p:w:c:x:a:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': s.profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'c': s.config_dir = optarg; break;
		case 'x': s.exec_dir = optarg; break;
		case 'a': s.action_space_id = optarg; break;
		case OPT_VERIFY: verify = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	if (!workspace || (!verify && !s.profile) || (verify && s.profile))
		usage_fail(usage, verify ? "--verify-log takes only --workspace" : "--profile and --workspace are required");
	char err[1024];
	int rc = ag_br_open(&s, workspace, verify, err, sizeof err);
	if (rc == BR_USAGE)
		usage_fail(usage, err);
	if (rc)
		die("%s", err);
	if (verify)
		return ag_br_verify_log(&s, err, sizeof err);
	if (ag_br_serve(&s))
		die("%s", s.fatal);
	ag_br_close(&s);
	return 0;
}
