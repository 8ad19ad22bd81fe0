/* Over 800 lines: the twelve operations (about 600 lines) and the call helpers they share stay with their table in one tool file; framing, task store, audit log and schemas are in lib/agents. */
/* schednav-mcp — the bounded agent bridge: an MCP server (JSON-RPC 2.0, newline-delimited on
 * stdio) that exposes a role profile's whitelisted operations as MCP tools. Every operation
 * runs our tools as subprocesses with a fixed argv inside one workspace, is a task
 * (queued -> running -> succeeded | failed) keyed for idempotency, and is appended to a
 * hash-chained audit log. Agents pass ids and relative refs only: never a path outside the
 * workspace, a shell command, an approval, or a job, node or GPU id. This file holds the
 * operation table, the operations and main; the framing (agents/rpc), the task store and
 * audit log (agents/tasks) and the operations' schemas (schemas/mcp/, agents/opschema) are
 * lib/agents'. */
#define _GNU_SOURCE   /* memfd_create: read_artifact parses exactly the bytes it hashed */
#include "agents/jschema.h"
#include "agents/manifest.h"
#include "agents/opschema.h"
#include "agents/rpc.h"
#include "agents/tasks.h"
#include "agents/workspace.h"
#include "core/cli.h"
#include "core/clock.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/zio.h"
#include "eval/chainlog.h"
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
#include <time.h>
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
#define PROTOCOL_LATEST "2025-11-25"
#define SIMULATIONS_SCHEMA MF_SIMULATIONS_SCHEMA
#define AUDITS_SCHEMA "schednav.bridge-audits/1"

struct server;
struct call;
typedef int (*op_fn)(struct call *c);

/* One entry per operation: adding an operation is one entry here, its function and its schema
 * file schemas/mcp/NAME.json (title, description, input and result schemas; agents/opschema.h). */
struct op {
	const char *name;
	const char *need_tool;       /* listed and callable only when this tool is in the exec dir */
	const char *need_option;     /* ... and its --help mentions this option (NULL: any) */
	bool tasked;                 /* a task with idempotency (false: a plain read) */
	op_fn run;
};

static int op_analyze(struct call *c);
static int op_forecast(struct call *c);
static int op_simulate(struct call *c);
static int op_simulate_predictive(struct call *c);
static int op_rolling(struct call *c);
static int op_compare(struct call *c);
static int op_audit(struct call *c);
static int op_rank(struct call *c);
static int op_simulate_run_set(struct call *c);
static int op_audit_run_set(struct call *c);
static int op_get_task(struct call *c);
static int op_read_artifact(struct call *c);
#ifdef SCHEDNAV_TEST_OPS   /* the test build's toy operation (tests/fixtures/mcp/toy_echo.c) */
static int op_toy_echo(struct call *c);
#endif

static const struct op ops[] = {
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
#define N_OPS (sizeof ops / sizeof ops[0])

/* Streams read_artifact may return: summaries and evaluation records, never trace or result
 * streams (those carry job, node and GPU ids). */
static const char *const readable_schemas[] = {
	WORKLOAD_SCHEMA, EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, EV_RANKING_SCHEMA, EV_COMPARISON_SCHEMA,
	SIMULATIONS_SCHEMA, AUDITS_SCHEMA, PC_FORECAST_STREAM_SCHEMA, MF_AGENT_PLAN_STREAM_SCHEMA, NULL,
};

static const char *const protocols[] = { PROTOCOL_LATEST, "2025-06-18", "2025-03-26", "2024-11-05", NULL };

struct server {
	const char *profile, *exec_dir, *config_dir, *action_space_id;
	struct arena arena;               /* lives as long as the server */
	struct json *role, *action_ids;   /* the profile; the declared action ids */
	const char *safety_action, *prompt;
	struct workspace ws;
	struct task_store store;          /* the task store and the audit log (lib/agents/tasks.h) */
	bool initialized;
	bool allowed[N_OPS], available[N_OPS];
	struct json *input[N_OPS], *output[N_OPS];   /* the schemas of schemas/mcp/ */
	const char *title[N_OPS], *description[N_OPS];
};

struct call {
	struct server *s;
	struct arena *a;
	const struct op *op;
	struct json *args;       /* validated, defaults filled, without idempotency_key */
	char task_id[FP_HEX_XXH3], args_fp[FP_HEX_XXH3];
	char dir[64];            /* "artifacts/TASK" */
	char failure_path[PATH_MAX];
	struct json *result, *artifacts;
	char refusal[1024];      /* a clear message for the caller (bad id, ref outside, ...) */
	struct strbuf failure;   /* local details of an execution failure */
	bool transient;          /* a tool was killed by a signal: the failure is not the call's result */
};

/* ---------------------------------------------------------------- helpers */

static struct json *parse_or_die(struct arena *a, const char *text, const char *what)
{
	struct json *v;
	char err[256];
	if (json_parse(a, text, strlen(text), &v, err, sizeof err))
		die("internal schema of '%s' does not parse: %s", what, err);
	return v;
}

static struct json *load_json_file(struct arena *a, const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	if (zio_slurp(path, &buf, &len, err, errlen))
		return NULL;
	struct json *v;
	char e[256];
	int rc = json_parse(a, buf, len, &v, e, sizeof e);
	free(buf);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, e);
		return NULL;
	}
	return v;
}

static const char *str_arg(const struct call *c, const char *key)
{
	return json_get_str(c->args, key);
}

static char *joinpath(struct arena *a, const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = arena_alloc(a, n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Absolute path of configs/SUB/ID.json when ID is a declared id with such a file; else a refusal. */
static const char *config_file(struct call *c, const char *sub, const char *id, const char *what)
{
	char name[160];
	snprintf(name, sizeof name, "%s/%s.json", sub, id);
	const char *p = joinpath(c->a, c->s->config_dir, name);
	struct stat st;
	if (!ws_id_ok(id) || stat(p, &st) || !S_ISREG(st.st_mode)) {
		snprintf(c->refusal, sizeof c->refusal, "unknown %s '%s'", what, id);
		return NULL;
	}
	return p;
}

static bool declared_action(const struct server *s, const char *id)
{
	for (size_t i = 0; i < s->action_ids->u.arr.n; i++)
		if (!strcmp(s->action_ids->u.arr.items[i]->u.str.s, id))
			return true;
	return false;
}

/* The policy file of a declared action id, or a refusal naming the action space. */
static const char *policy_file(struct call *c, const char *action)
{
	if (!declared_action(c->s, action)) {
		snprintf(c->refusal, sizeof c->refusal, "action '%s' is not declared in action space '%s'", action, c->s->action_space_id);
		return NULL;
	}
	return config_file(c, "policies", action, "action");
}

/* A ref the agent gave must name a regular file reached without symlinks. */
static bool ref_readable(struct call *c, const char *ref)
{
	char err[800];
	int fd = ws_open_file(&c->s->ws, ref, err, sizeof err);
	if (fd < 0) {
		snprintf(c->refusal, sizeof c->refusal, "%s", err);
		return false;
	}
	close(fd);
	return true;
}

/* Read a small document of the workspace (a run config, a run set: WHAT 'ID' at ref) into sb:
 * 0, 1 when there is no such file, or -1 with a refusal naming what is wrong. */
static int read_ws_doc(struct call *c, const char *what, const char *id, const char *ref, struct strbuf *sb)
{
	char err[800];
	int fd = ws_open_file(&c->s->ws, ref, err, sizeof err);
	struct stat st;
	if (fd < 0) {
		if (fstatat(c->s->ws.root_fd, ref, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
			return 1;
		snprintf(c->refusal, sizeof c->refusal, "%s '%s': %s", what, id, err);
		return -1;
	}
	char buf[8192];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0 && sb->len <= MF_DOC_MAX)
		sb_add(sb, buf, (size_t)n);
	close(fd);
	if (n < 0) {
		snprintf(c->refusal, sizeof c->refusal, "%s '%s': %s: %s", what, id, ref, strerror(errno));
		return -1;
	}
	return 0;
}

/* run-configs/ID.json (lib/agents/manifest.h): every ref it holds is checked when it is loaded. */
static bool load_run_config(struct call *c, const char *id, struct run_config *rc)
{
	char ref[200], err[600];
	snprintf(ref, sizeof ref, "run-configs/%s.json", id);
	struct strbuf sb;
	sb_init(&sb);
	int got = read_ws_doc(c, "run config", id, ref, &sb);
	bool ok = false;
	if (got > 0)
		snprintf(c->refusal, sizeof c->refusal, "unknown run_config_id '%s'", id);
	else if (got == 0 && mf_run_config(c->a, sb.buf ? sb.buf : "", sb.len, rc, err, sizeof err))
		snprintf(c->refusal, sizeof c->refusal, "run config '%s' (%s): %s", id, ref, err);
	else if (got == 0)
		ok = true;
	sb_release(&sb);
	if (ok && (!ref_readable(c, rc->trace_ref) || (rc->history_trace_ref && !ref_readable(c, rc->history_trace_ref)))) {
		char why[sizeof c->refusal];
		snprintf(why, sizeof why, "%s", c->refusal);
		snprintf(c->refusal, sizeof c->refusal, "run config '%s': %.900s", id, why);
		ok = false;
	}
	return ok;
}

static const char *run_config_trace(struct call *c, const char *id, const char **history)
{
	struct run_config rc;
	if (!load_run_config(c, id, &rc))
		return NULL;
	if (history)
		*history = rc.history_trace_ref;
	return rc.trace_ref;
}

static void state_path(const struct server *s, char *out, size_t n, const char *name)
{
	if (task_store_path(&s->store, name, out, n))
		die("path of '%s' is too long", name);
}

/* ---------------------------------------------------------------- streams */

struct stream_info {
	const char *schema;
	char fp[FP_HEX_XXH3];
	struct json *records;   /* body records (array) */
};

/* Read and verify one stream file (absolute or cwd-relative path); records collected when want.
 * With expect, a stream of another schema stops at its header (a trace named as metrics is
 * not read through). */
static int read_stream_of(struct arena *a, const char *path, const char *expect, bool want, struct stream_info *si, char *err,
			  size_t errlen)
{
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -1;
	si->schema = NULL;
	si->fp[0] = 0;
	si->records = json_array(a);
	struct json *rec;
	enum nd_event ev;
	int rc = 0;
	while ((ev = ndr_next(r, a, &rec, err, errlen)) > 0) {
		if (ev == ND_HEADER) {
			if (si->schema) {
				snprintf(err, errlen, "%s: expected one stream", path);
				rc = -1;
				break;
			}
			si->schema = json_get_str(rec, "schema");
			if (expect && (!si->schema || strcmp(si->schema, expect))) {
				snprintf(err, errlen, "%s: not a %s stream", path, expect);
				rc = -1;
				break;
			}
		} else if (ev == ND_RECORD && want)
			json_push(a, si->records, rec);
		else if (ev == ND_END)
			snprintf(si->fp, sizeof si->fp, "%s", ndr_fingerprint(r));
	}
	if (ev == ND_ERROR)
		rc = -1;
	else if (!rc && !si->fp[0]) {
		snprintf(err, errlen, "%s: empty input", path);
		rc = -1;
	}
	ndr_close(r);
	return rc;
}

static int read_stream(struct arena *a, const char *path, bool want, struct stream_info *si, char *err, size_t errlen)
{
	return read_stream_of(a, path, NULL, want, si, err, errlen);
}

/* Record an artefact the call wrote: verify the stream, list {ref, schema, fingerprint}. */
static int add_artifact(struct call *c, const char *ref, bool want, struct stream_info *si)
{
	char path[PATH_MAX], err[1024];
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, ref);
	if (read_stream(c->a, path, want, si, err, sizeof err)) {
		sb_addf(&c->failure, "artefact %s: %s\n", ref, err);
		return -1;
	}
	struct json *o = json_object(c->a);
	json_set(c->a, o, "ref", json_str(c->a, ref));
	json_set(c->a, o, "schema", json_str(c->a, si->schema ? si->schema : ""));
	json_set(c->a, o, "fingerprint", json_str(c->a, si->fp));
	json_push(c->a, c->artifacts, o);
	return 0;
}

static const char *artifact_ref(struct call *c, const char *name)
{
	return joinpath(c->a, c->dir, name);
}

/* ---------------------------------------------------------------- subprocesses */

/* Run EXEC/argv[0] with the rest of argv (NULL-terminated) in the workspace root. */
static int run_tool(struct call *c, const char *const *argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **full = arena_alloc(c->a, (n + 1) * sizeof *full);
	full[0] = joinpath(c->a, c->s->exec_dir, argv[0]);
	for (size_t i = 1; i <= n; i++)
		full[i] = (char *)argv[i];
	char err[512];
	sb_addf(&c->failure, "run:");
	for (size_t i = 0; i < n; i++)
		sb_addf(&c->failure, " %s", argv[i]);
	sb_addc(&c->failure, '\n');
	/* flush our notes first so the tool's stderr lands after them in the failure file */
	task_write_atomic(c->failure_path, c->failure.buf, c->failure.len);
	int rc = spawn_run(full, c->s->ws.root, NULL, c->failure_path, err, sizeof err);
	char *buf;
	size_t len;
	char e2[256];
	if (zio_slurp(c->failure_path, &buf, &len, e2, sizeof e2) == 0) {
		sb_reset(&c->failure);
		sb_add(&c->failure, buf, len);
		free(buf);
	}
	if (rc >= SPAWN_SIGNALED) {
		/* the OOM killer, a kill: not the deterministic answer of the tool to these arguments */
		sb_addf(&c->failure, "%s: killed by signal %d\n", argv[0], rc - SPAWN_SIGNALED);
		c->transient = true;
		return -1;
	}
	if (rc != 0) {
		sb_addf(&c->failure, "%s: %s\n", argv[0], rc < 0 ? err : "exited with a failure status");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the index of simulations */

/* .schednav-mcp/simulations/RUN_CONFIG/ACTION.json and .schednav-mcp/metrics/XXH3(REF).json let
 * audit_slo find the baseline simulated on the same run config. */
static void index_simulation(struct call *c, const char *run_config, const char *action, const char *metrics_ref)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], key[FP_HEX_XXH3];
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "{\"run_config_id\":");
	sb_add_jstr(&sb, run_config, strlen(run_config));
	sb_adds(&sb, ",\"action_id\":");
	sb_add_jstr(&sb, action, strlen(action));
	sb_adds(&sb, ",\"metrics_ref\":");
	sb_add_jstr(&sb, metrics_ref, strlen(metrics_ref));
	sb_adds(&sb, "}\n");
	state_path(c->s, dir, sizeof dir, "simulations");
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/%s", dir, run_config);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/%s.json", dir, run_config, action);
	task_write_atomic(path, sb.buf, sb.len);
	state_path(c->s, dir, sizeof dir, "metrics");
	mkdir(dir, 0755);
	fp_xxh3_of(metrics_ref, strlen(metrics_ref), key);
	snprintf(path, sizeof path, "%s/%s.json", dir, key);
	task_write_atomic(path, sb.buf, sb.len);
	sb_release(&sb);
}

static struct json *index_lookup(struct call *c, const char *sub, const char *name)
{
	char path[PATH_MAX], rel[PATH_MAX], err[256];
	snprintf(rel, sizeof rel, "%s/%s.json", sub, name);
	state_path(c->s, path, sizeof path, rel);
	return access(path, R_OK) ? NULL : load_json_file(c->a, path, err, sizeof err);
}

/* ---------------------------------------------------------------- operations */

static int begin_task(struct call *c);
static struct json *load_task(struct call *c, const char *task_id, char *bad, size_t badlen);

static int op_analyze(struct call *c)
{
	const char *trace = run_config_trace(c, str_arg(c, "run_config_id"), NULL);
	if (!trace || begin_task(c))
		return -1;
	char interval[32], cutoff[64];
	snprintf(interval, sizeof interval, "%lld", json_get(c->args, "sample_interval_seconds")->u.i);
	const char *out = artifact_ref(c, "workload.ndjson");
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
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
		return -1;
	json_set(c->a, c->result, "run_config_id", json_str(c->a, str_arg(c, "run_config_id")));
	json_set(c->a, c->result, "workload_summary", si.records->u.arr.items[0]);
	return 0;
}

static int op_forecast(struct call *c)
{
	const char *trace = run_config_trace(c, str_arg(c, "run_config_id"), NULL);
	const char *ctl = trace ? config_file(c, "controllers", str_arg(c, "controller_id"), "controller_id") : NULL;
	if (!ctl || begin_task(c))
		return -1;
	char cutoff[NUM_FMT_MAX];
	num_fmt_double(cutoff, json_num(json_get(c->args, "cutoff_seconds")));
	const char *out = artifact_ref(c, "forecast.ndjson");
	const char *argv[] = { "forecast", "--controller", ctl, "--cutoff", cutoff, "-o", out, "--input", trace, NULL };
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
		return -1;
	struct json *bundle = NULL;
	for (size_t i = 0; i < si.records->u.arr.n; i++)
		if (!strcmp(json_get_str(si.records->u.arr.items[i], "type"), "observation_bundle"))
			bundle = si.records->u.arr.items[i];
	if (!bundle) {
		sb_addf(&c->failure, "forecast wrote no observation_bundle record\n");
		return -1;
	}
	json_set(c->a, c->result, "run_config_id", json_str(c->a, str_arg(c, "run_config_id")));
	json_set(c->a, c->result, "observation_bundle", bundle);
	return 0;
}

/* The headline figures an agent compares; everything else is in the metrics artefact. */
static struct json *headline(struct arena *a, const struct json *m)
{
	static const char *const keys[] = {
		"action_id", "allocation_rate_mean", "hp_jct_p95_seconds", "hp_queue_p95_seconds", "spot_jct_p95_seconds",
		"spot_eviction_rate_per_run", "spot_guarantee_success_rate", "hp_preempted_job_count", "predictive_control", "rolling_control", NULL,
	};
	struct json *o = json_object(a);
	for (const char *const *k = keys; *k; k++) {
		struct json *v = json_get(m, *k);
		if (v)
			json_set(a, o, *k, v);
	}
	return o;
}

/* sim-run + metrics of one declared action into DIR; fills result and metrics fingerprints. */
static int simulate_into(struct call *c, const char *trace, const char *policy, const char *controller, const char *subdir,
			 char result_fp[FP_HEX_XXH3], char metrics_fp[FP_HEX_XXH3], const char **metrics_ref, struct json **metrics)
{
	const char *res = artifact_ref(c, subdir ? joinpath(c->a, subdir, "result.ndjson.zst") : "result.ndjson.zst");
	const char *met = artifact_ref(c, subdir ? joinpath(c->a, subdir, "metrics.ndjson") : "metrics.ndjson");
	if (subdir) {
		char err[800];
		if (ws_mkdirs(&c->s->ws, joinpath(c->a, c->dir, subdir), err, sizeof err)) {
			sb_addf(&c->failure, "%s\n", err);
			return -1;
		}
	}
	const char *plain[] = { "sim-run", "--policy", policy, "--input", trace, "-o", res, NULL };
	const char *predictive[] = { "sim-run", "--policy", policy, "--controller", controller, "--input", trace, "-o", res, NULL };
	const char *const *sim = controller ? predictive : plain;
	const char *mt[] = { "metrics", "--input", res, "-o", met, NULL };
	struct stream_info si;
	if (run_tool(c, sim) || add_artifact(c, res, false, &si))
		return -1;
	snprintf(result_fp, 33, "%s", si.fp);
	if (run_tool(c, mt) || add_artifact(c, met, true, &si))
		return -1;
	snprintf(metrics_fp, 33, "%s", si.fp);
	*metrics_ref = met;
	*metrics = si.records->u.arr.items[0];
	return 0;
}

static int simulate_common(struct call *c, bool predictive)
{
	const char *rc_id = str_arg(c, "run_config_id"), *action = str_arg(c, "action_id");
	const char *trace = run_config_trace(c, rc_id, NULL);
	const char *policy = trace ? policy_file(c, action) : NULL;
	const char *ctl = policy && predictive ? config_file(c, "controllers", str_arg(c, "controller_id"), "controller_id") : NULL;
	if (!policy || (predictive && !ctl) || begin_task(c))
		return -1;
	char rfp[FP_HEX_XXH3], mfp[FP_HEX_XXH3];
	const char *mref;
	struct json *m;
	if (simulate_into(c, trace, policy, ctl, NULL, rfp, mfp, &mref, &m))
		return -1;
	if (!predictive)
		index_simulation(c, rc_id, action, mref);
	json_set(c->a, c->result, "run_config_id", json_str(c->a, rc_id));
	json_set(c->a, c->result, "action_id", json_str(c->a, action));
	if (predictive)
		json_set(c->a, c->result, "controller_id", json_str(c->a, str_arg(c, "controller_id")));
	json_set(c->a, c->result, "result_fingerprint", json_str(c->a, rfp));
	json_set(c->a, c->result, "metrics_ref", json_str(c->a, mref));
	json_set(c->a, c->result, "metrics_fingerprint", json_str(c->a, mfp));
	json_set(c->a, c->result, "metrics", headline(c->a, m));
	return 0;
}

static int op_simulate(struct call *c) { return simulate_common(c, false); }
static int op_simulate_predictive(struct call *c) { return simulate_common(c, true); }

/* roll --decider plan:FILE (docs/rolling.md "The decision protocol"): the accepted decisions go
 * in as recorded reply lines, one per request id; roll replays the day and stops at the first
 * request without one (a planning checkpoint) or runs it to the end. roll itself checks each
 * reply against its request's candidates and records a rejection (the safety action then
 * applies), so the bridge checks only the shape. Listed only once roll exists. */
static int op_rolling(struct call *c)
{
	const char *history = NULL, *rc_id = str_arg(c, "run_config_id");
	const char *trace = run_config_trace(c, rc_id, &history);
	const char *ctl = trace ? config_file(c, "controllers", str_arg(c, "controller_id"), "controller_id") : NULL;
	const char *rolling = ctl ? config_file(c, "rolling", str_arg(c, "rolling_controller_id"), "rolling_controller_id") : NULL;
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
	if (!rolling || begin_task(c))
		return -1;
	char path[PATH_MAX], arm[64];
	const char *dref = artifact_ref(c, "decisions.ndjson");
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
	int w = task_write_atomic(path, sb.buf, sb.len);
	sb_release(&sb);
	if (w) {
		sb_addf(&c->failure, "cannot write %s\n", dref);
		return -1;
	}
	/* the arm id names the mode: rolling-single-agent, rolling-multi-agent, rolling-multi-agent-masked */
	snprintf(arm, sizeof arm, "rolling-%s", str_arg(c, "mode"));
	for (char *q = arm; *q; q++)
		if (*q == '_')
			*q = '-';
	size_t dn = strlen(dref) + 6;
	char *decider = arena_alloc(c->a, dn);
	snprintf(decider, dn, "plan:%s", dref);
	const char *out = artifact_ref(c, "rolling.ndjson.zst");
	const char *argv[] = { "roll", "--config", rolling, "--controller", ctl, "--history", history ? history : trace,
			       "--decider", decider, "--arm-id", arm, "-o", out, trace, NULL };
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
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
		const char *met = artifact_ref(c, "metrics.ndjson");
		const char *mt[] = { "metrics", "--input", out, "-o", met, NULL };
		if (run_tool(c, mt) || add_artifact(c, met, true, &si))
			return -1;
		json_set(c->a, c->result, "metrics_ref", json_str(c->a, met));
		json_set(c->a, c->result, "metrics_fingerprint", json_str(c->a, si.fp));
		json_set(c->a, c->result, "metrics", headline(c->a, si.records->u.arr.items[0]));
	}
	return 0;
}

/* Metrics and audit refs an agent names must be verified streams of the right schema. */
static bool refs_of_schema(struct call *c, const struct json *refs, const char *schema)
{
	for (size_t i = 0; i < refs->u.arr.n; i++) {
		const char *ref = refs->u.arr.items[i]->u.str.s;
		struct stream_info si;
		char path[PATH_MAX], err[1024];
		if (!ref_readable(c, ref))
			return false;
		snprintf(path, sizeof path, "%s/%s", c->s->ws.root, ref);
		if (read_stream_of(c->a, path, schema, false, &si, err, sizeof err)) {
			snprintf(c->refusal, sizeof c->refusal, "'%s' is not a verified %s stream", ref, schema);
			return false;
		}
	}
	return true;
}

static int op_compare(struct call *c)
{
	struct json *refs = json_get(c->args, "metrics_refs");
	if (!refs_of_schema(c, refs, EV_METRICS_SCHEMA) || begin_task(c))
		return -1;
	const char *out = artifact_ref(c, "portfolio.ndjson");
	const char *argv[12] = { "compare", "-o", out };
	size_t n = 3;
	for (size_t i = 0; i < refs->u.arr.n; i++)
		argv[n++] = refs->u.arr.items[i]->u.str.s;
	argv[n] = NULL;
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
		return -1;
	json_set(c->a, c->result, "portfolio", si.records->u.arr.items[0]);
	return 0;
}

/* The FIFO baseline of audit_slo: a ref, or the action simulated on the candidate's run config. */
static const char *baseline_ref(struct call *c, const char *metrics_ref)
{
	const char *ref = str_arg(c, "baseline_metrics_ref");
	if (ref)
		return ref;
	const char *action = str_arg(c, "baseline_action_id");
	char key[FP_HEX_XXH3];
	fp_xxh3_of(metrics_ref, strlen(metrics_ref), key);
	struct json *cand = index_lookup(c, "metrics", key);
	if (!cand) {
		snprintf(c->refusal, sizeof c->refusal, "'%s' was not simulated by this bridge: give baseline_metrics_ref", metrics_ref);
		return NULL;
	}
	char name[300];
	snprintf(name, sizeof name, "%s/%s", json_get_str(cand, "run_config_id"), action);
	struct json *base = index_lookup(c, "simulations", name);
	if (!base) {
		snprintf(c->refusal, sizeof c->refusal, "action '%s' has not been simulated on run config '%s'", action,
			 json_get_str(cand, "run_config_id"));
		return NULL;
	}
	return json_get_str(base, "metrics_ref");
}

static int op_audit(struct call *c)
{
	const char *mref = str_arg(c, "metrics_ref");
	const char *slo = config_file(c, "slos", str_arg(c, "slo_spec_id"), "slo_spec_id");
	struct json *one = json_array(c->a);
	json_push(c->a, one, json_str(c->a, mref));
	const char *base = slo && refs_of_schema(c, one, EV_METRICS_SCHEMA) ? baseline_ref(c, mref) : NULL;
	struct json *bases = json_array(c->a);
	if (base)
		json_push(c->a, bases, json_str(c->a, base));
	if (!base || !refs_of_schema(c, bases, EV_METRICS_SCHEMA) || begin_task(c))
		return -1;
	const char *out = artifact_ref(c, "audit.ndjson");
	const char *argv[] = { "slo-audit", "--slo", slo, "--baseline", base, "-o", out, mref, NULL };
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
		return -1;
	struct json *audit = si.records->u.arr.items[0];
	json_set(c->a, c->result, "audit_ref", json_str(c->a, out));
	json_set(c->a, c->result, "audit_fingerprint", json_get(audit, "audit_fingerprint"));
	json_set(c->a, c->result, "audit_passed", json_get(audit, "audit_passed"));
	json_set(c->a, c->result, "failed_constraint_ids", json_get(audit, "failed_constraint_ids"));
	json_set(c->a, c->result, "unavailable_constraint_ids", json_get(audit, "unavailable_constraint_ids"));
	return 0;
}

static int op_rank(struct call *c)
{
	struct json *mrefs = json_get(c->args, "metrics_refs"), *arefs = json_get(c->args, "audit_refs");
	const char *slo = config_file(c, "slos", str_arg(c, "slo_spec_id"), "slo_spec_id");
	if (!slo || !refs_of_schema(c, mrefs, EV_METRICS_SCHEMA) || !refs_of_schema(c, arefs, EV_AUDIT_SCHEMA) || begin_task(c))
		return -1;
	const char *out = artifact_ref(c, "ranking.ndjson");
	const char *argv[20] = { "rank", "--slo", slo, "-o", out };
	size_t n = 5;
	for (size_t i = 0; i < arefs->u.arr.n; i++)
		argv[n++] = arefs->u.arr.items[i]->u.str.s;
	for (size_t i = 0; i < mrefs->u.arr.n; i++)
		argv[n++] = mrefs->u.arr.items[i]->u.str.s;
	argv[n] = NULL;
	struct stream_info si;
	if (run_tool(c, argv) || add_artifact(c, out, true, &si))
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

/* run-sets/ID.json {"schema_version":"schednav.run-set/1","run_config_ids":[1..12 unique ids]}. */
static struct json *run_set_configs(struct call *c, const char *id)
{
	char ref[200], err[600];
	snprintf(ref, sizeof ref, "run-sets/%s.json", id);
	struct strbuf sb;
	sb_init(&sb);
	struct json *ids = NULL;
	int got = read_ws_doc(c, "run set", id, ref, &sb);
	if (got > 0)
		snprintf(c->refusal, sizeof c->refusal, "unknown run_set_id '%s'", id);
	else if (got == 0 && mf_run_set(c->a, sb.buf ? sb.buf : "", sb.len, &ids, err, sizeof err))
		snprintf(c->refusal, sizeof c->refusal, "run set '%s' (%s): %s", id, ref, err);
	sb_release(&sb);
	return c->refusal[0] ? NULL : ids;
}

static int write_manifest(struct call *c, const char *ref, const char *schema, struct json *records)
{
	char path[PATH_MAX], err[1024];
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, ref);
	struct nd_writer *w = ndw_open(path, err, sizeof err);
	if (!w) {
		sb_addf(&c->failure, "%s\n", err);
		return -1;
	}
	struct json *hdr = nd_header_new(c->a, schema, "schednav-mcp");
	json_set(c->a, hdr, "task_id", json_str(c->a, c->task_id));
	int rc = ndw_header(w, hdr, err, sizeof err);
	for (size_t i = 0; !rc && i < records->u.arr.n; i++)
		rc = ndw_record(w, records->u.arr.items[i], err, sizeof err);
	if (rc || ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err)) {
		sb_addf(&c->failure, "%s\n", err);
		return -1;
	}
	return 0;
}

static int op_simulate_run_set(struct call *c)
{
	const char *set = str_arg(c, "run_set_id");
	struct json *configs = run_set_configs(c, set), *actions = json_get(c->args, "action_ids");
	long long reps = json_get(c->args, "repetitions")->u.i;
	if (!configs)
		return -1;
	const char **traces = arena_alloc(c->a, configs->u.arr.n * sizeof *traces);
	const char **policies = arena_alloc(c->a, actions->u.arr.n * sizeof *policies);
	for (size_t i = 0; i < configs->u.arr.n; i++)
		if (!(traces[i] = run_config_trace(c, configs->u.arr.items[i]->u.str.s, NULL)))
			return -1;
	for (size_t k = 0; k < actions->u.arr.n; k++)
		if (!(policies[k] = policy_file(c, actions->u.arr.items[k]->u.str.s)))
			return -1;
	if (begin_task(c))
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
			index_simulation(c, rc_id, action, mref);
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
	const char *out = artifact_ref(c, "simulations.ndjson");
	struct stream_info si;
	if (write_manifest(c, out, SIMULATIONS_SCHEMA, entries) || add_artifact(c, out, false, &si))
		return -1;
	json_set(c->a, c->result, "run_set_id", json_str(c->a, set));
	json_set(c->a, c->result, "simulations_ref", json_str(c->a, out));
	json_set(c->a, c->result, "simulations", entries);
	return 0;
}

/* Refs read from a manifest are confined exactly like refs from the agent: a verified metrics
 * stream inside the workspace, reached without a symlink. */
static int op_audit_run_set(struct call *c)
{
	const char *sref = str_arg(c, "simulations_ref"), *base_action = str_arg(c, "baseline_action_id");
	const char *slo = config_file(c, "slos", str_arg(c, "slo_spec_id"), "slo_spec_id");
	struct run_set_simulation *sims;
	size_t n;
	char path[PATH_MAX], err[1024];
	if (!slo || !ref_readable(c, sref))
		return -1;
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, sref);
	if (mf_simulations(c->a, path, &sims, &n, err, sizeof err)) {
		char *rel = strstr(err, sref);
		snprintf(c->refusal, sizeof c->refusal, "'%s' is not a verified %s manifest: %.700s", sref, SIMULATIONS_SCHEMA, rel ? rel : err);
		return -1;
	}
	struct json *mrefs = json_array(c->a);
	for (size_t i = 0; i < n; i++)
		json_push(c->a, mrefs, json_str(c->a, sims[i].metrics_ref));
	if (!refs_of_schema(c, mrefs, EV_METRICS_SCHEMA)) {
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
	if (begin_task(c))
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
		const char *out = artifact_ref(c, joinpath(c->a, rc_id, "audit.ndjson"));
		argv[6] = out;
		struct stream_info si;
		if (ws_mkdirs(&c->s->ws, joinpath(c->a, c->dir, rc_id), err, sizeof err)) {
			sb_addf(&c->failure, "%s\n", err);
			return -1;
		}
		if (run_tool(c, argv) || add_artifact(c, out, true, &si))
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
	const char *out = artifact_ref(c, "audits.ndjson");
	struct stream_info si;
	if (write_manifest(c, out, AUDITS_SCHEMA, entries) || add_artifact(c, out, false, &si))
		return -1;
	json_set(c->a, c->result, "simulations_ref", json_str(c->a, sref));
	json_set(c->a, c->result, "audits_ref", json_str(c->a, out));
	json_set(c->a, c->result, "audits", entries);
	return 0;
}

static int op_get_task(struct call *c)
{
	const char *id = str_arg(c, "task_id");
	char bad[700];
	struct json *t = load_task(c, id, bad, sizeof bad);
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
static int op_read_artifact(struct call *c)
{
	const char *ref = str_arg(c, "ref");
	char err[1024];
	int fd = ws_open_file(&c->s->ws, ref, err, sizeof err);
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
	struct stream_info si;
	int rc = read_stream(c->a, path, true, &si, err, sizeof err);
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
			 si.schema ? utf8_clip(si.schema, 100) : 1, si.schema ? si.schema : "?");
		return -1;
	}
	json_set(c->a, c->result, "ref", json_str(c->a, ref));
	json_set(c->a, c->result, "schema", json_str(c->a, si.schema));
	json_set(c->a, c->result, "sha256", json_str(c->a, sha));
	json_set(c->a, c->result, "document", si.records);
	return 0;
}

/* ---------------------------------------------------------------- JSON-RPC output */

static void send_result(const struct json *id, const struct json *result)
{
	if (rpc_send_result(stdout, id, result))
		die("stdout: %s", strerror(errno));
}

static void send_error(const struct json *id, int code, const char *msg)
{
	if (rpc_send_error(stdout, id, code, msg))
		die("stdout: %s", strerror(errno));
}

/* ---------------------------------------------------------------- tasks */

static const struct op *op_named(const char *name)
{
	for (size_t k = 0; k < N_OPS; k++)
		if (!strcmp(ops[k].name, name))
			return &ops[k];
	return NULL;
}

/* task_load's question: is this a task operation, and what is its result's schema? */
static bool task_op(const char *name, const struct json **result_schema, void *ctx)
{
	const struct server *s = ctx;
	const struct op *op = op_named(name);
	if (!op || !op->tasked)
		return false;
	*result_schema = s->output[op - ops];
	return true;
}

/* The stored task TASK_ID (lib/agents/tasks.h): NULL with bad "" when there is none, NULL
 * with the reason in bad when it cannot be trusted. */
static struct json *load_task(struct call *c, const char *task_id, char *bad, size_t badlen)
{
	char err[1024];
	struct json *t;
	if (task_load(&c->s->store, c->a, task_id, task_op, c->s, &t, bad, badlen, err, sizeof err))
		die("%s", err);
	return t;
}

static struct task_info task_of(const struct call *c)
{
	return (struct task_info){ .task_id = c->task_id, .operation = c->op->name, .profile = c->s->profile, .args_fp = c->args_fp,
				   .key = json_get(c->args, "idempotency_key"), .artifacts = c->artifacts };
}

/* queued, then running, and the task's artefact directory. */
static int begin_task(struct call *c)
{
	char err[800];
	struct task_info ti = task_of(c);
	if (task_write(&c->s->store, c->task_id, task_record(c->a, &ti, "queued", false, false, NULL)) ||
	    ws_mkdirs(&c->s->ws, c->dir, err, sizeof err) ||
	    task_write(&c->s->store, c->task_id, task_record(c->a, &ti, "running", false, false, NULL))) {
		sb_addf(&c->failure, "cannot start the task\n");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- tools/call */

static struct json *text_content(struct arena *a, const char *text)
{
	struct json *arr = json_array(a), *t = json_object(a);
	json_set(a, t, "type", json_str(a, "text"));
	json_set(a, t, "text", json_str(a, text));
	json_push(a, arr, t);
	return arr;
}

static struct json *tool_result(struct arena *a, struct json *structured, const char *error_text)
{
	struct json *r = json_object(a);
	struct strbuf sb;
	sb_init(&sb);
	if (structured)
		json_write(&sb, structured);
	json_set(a, r, "content", text_content(a, structured ? sb.buf : error_text));
	if (structured)
		json_set(a, r, "structuredContent", structured);
	json_set(a, r, "isError", json_bool(a, !structured));
	sb_release(&sb);
	return r;
}

/* One number, one spelling: an integral real within 2^53 (4000.0, 4e3, -0.0) becomes the
 * integer, so equal arguments name the same task and the same fingerprint. */
static struct json *canon_numbers(struct arena *a, const struct json *v)
{
	struct json *c;
	switch (v->kind) {
	case JSON_REAL:
		if (v->u.d == (double)(long long)v->u.d && fabs(v->u.d) <= 9007199254740992.0)
			return json_int(a, (long long)v->u.d);
		return json_real(a, v->u.d);
	case JSON_ARRAY:
		c = json_array(a);
		for (size_t i = 0; i < v->u.arr.n; i++)
			json_push(a, c, canon_numbers(a, v->u.arr.items[i]));
		return c;
	case JSON_OBJECT:
		c = json_object(a);
		for (size_t i = 0; i < v->u.obj.n; i++)
			json_set(a, c, v->u.obj.keys[i], canon_numbers(a, v->u.obj.vals[i]));
		return c;
	default:
		return json_clone(a, v);
	}
}

/* Fill defaults, give every number one spelling, drop the idempotency key: the normalized arguments. */
static struct json *normalize(struct arena *a, const struct json *schema, const struct json *args)
{
	struct json *n = json_object(a), *props = json_get(schema, "properties");
	for (size_t i = 0; i < props->u.obj.n; i++) {
		const char *k = props->u.obj.keys[i];
		const struct json *ps = props->u.obj.vals[i], *v = json_get(args, k);
		if (!strcmp(k, "idempotency_key"))
			continue;
		if (!v)
			v = json_get(ps, "default");
		if (!v)
			continue;
		json_set(a, n, k, canon_numbers(a, v));
	}
	return n;
}

/* How a call ends: its audit line (log) and its reply, a JSON-RPC error (message) or a tool
 * result (structured content, else error_text). A finished task's record is written after
 * its audit line, with that line's offset. */
struct reply {
	struct task_call log;
	int code;
	const char *message;
	struct json *structured;
	const char *error_text;
	struct json *task;
};

/* Say on stderr that the store cut off a torn audit line (a server killed while it appended). */
static void report_cut(struct server *s)
{
	char msg[PATH_MAX + 300];
	if (!s->store.audit_cut.bytes)
		return;
	chainlog_cut_describe(&s->store.audit_cut, s->store.audit_path, msg, sizeof msg);
	warnx_("%s", msg);
	memset(&s->store.audit_cut, 0, sizeof s->store.audit_cut);
}

/* Audit the call, save a finished task, reply: every call ends here, once. */
static void respond(struct server *s, struct arena *a, const struct json *id, long long t0, struct reply *r)
{
	char err[1024], tfp[FP_HEX_XXH3];
	unsigned long long at;
	r->log.profile = s->profile;
	if (r->task) {
		task_fingerprint(a, r->task, tfp);
		r->log.task_fp = tfp;
	}
	r->log.duration_ms = clock_wall_ms() - t0;
	int rc = task_audit_append(&s->store, a, &r->log, &at, err, sizeof err);
	report_cut(s);
	if (rc)
		die("%s", err);   /* a call that cannot be logged must not be served */
	if (r->task) {
		json_set(a, r->task, "audit_offset", json_int(a, (long long)at));
		if (task_write(&s->store, r->log.task_id, r->task))
			die("cannot save task %s", r->log.task_id);
	}
	if (r->message)
		send_error(id, r->code, r->message);
	else
		send_result(id, tool_result(a, r->structured, r->error_text));
}

/* Look up: the operation named in params, listed for this profile and installed; else a refusal. */
static const struct op *look_up(struct server *s, const char *name, struct reply *r, char *msg, size_t msglen)
{
	size_t k = 0;
	while (k < N_OPS && strcmp(ops[k].name, name))
		k++;
	if (k < N_OPS && s->allowed[k] && s->available[k])
		return &ops[k];
	snprintf(msg, msglen, k < N_OPS && s->allowed[k] ? "tool '%.*s' is not available: its tool is not installed" :
		 "unknown tool '%.*s' for profile '%s'", utf8_clip(name, 100), name, s->profile);
	r->log.outcome = "refused";
	r->code = RPC_PARAMS;
	r->message = msg;
	return NULL;
}

/* Begin the task: name it (by the idempotency key when given, else by the arguments) and
 * answer from the store when it already ran: the stored result, its failure, a conflict, or a
 * refusal to trust an edited store. false: r is the answer; true: the operation runs. */
static bool begin_call(struct call *c, const char *key, struct reply *r, char *msg, size_t msglen)
{
	struct arena *a = c->a;
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%s\n%s", key ? "key" : "request", key ? key : c->args_fp);
	fp_xxh3_of(sb.buf, sb.len, c->task_id);
	sb_release(&sb);
	snprintf(c->dir, sizeof c->dir, "artifacts/%s", c->task_id);
	char rel[80], bad[700];
	snprintf(rel, sizeof rel, "tasks/%s.failure.log", c->task_id);
	state_path(c->s, c->failure_path, sizeof c->failure_path, rel);
	if (key)
		json_set(a, c->args, "idempotency_key", json_str(a, key));
	r->log.task_id = c->task_id;
	struct json *old = load_task(c, c->task_id, bad, sizeof bad);
	if (!old && bad[0]) {
		/* an edited, forged or torn task is never replayed; a person looks at it */
		snprintf(msg, msglen, "stored task %s cannot be trusted: %.700s; remove .schednav-mcp/tasks/%s.json to run the call again",
			 c->task_id, bad, c->task_id);
		r->log.outcome = "untrusted-task";
		r->error_text = msg;
		return false;
	}
	if (old) {
		const char *old_fp = json_get_str(old, "arguments_fingerprint"), *state = json_get_str(old, "state");
		if (strcmp(json_get_str(old, "operation"), c->op->name) || strcmp(old_fp, c->args_fp)) {
			snprintf(msg, msglen, "idempotency key '%s' was already used with different arguments", key ? key : "");
			r->log.outcome = "conflict";
			r->error_text = msg;
			return false;
		}
		if (!strcmp(state, "succeeded")) {
			struct json *stored = json_get(old, "result");
			json_set(a, stored, "replayed", json_bool(a, true));
			r->log.outcome = "replayed";
			r->log.artifacts = json_get(stored, "artifacts");
			r->structured = stored;
			return false;
		}
		if (!strcmp(state, "failed") && json_get(old, "transient_failure")->kind != JSON_TRUE) {
			snprintf(msg, msglen, "task %s failed; the details are in the bridge's local task store", c->task_id);
			r->log.outcome = "replayed-failure";
			r->error_text = msg;
			return false;
		}
		/* queued or running (a server stopped mid-task), or a tool killed by a signal:
		 * run it again from scratch */
	}
	unlink(c->failure_path);
	return true;
}

/* Finish: what the operation's run gives the caller. A refusal (a bad id or ref) is no task:
 * a clear message, as for a schema violation; a task's record is finished in respond. */
static void finish_call(struct call *c, int rc, struct reply *r, char *msg, size_t msglen)
{
	struct arena *a = c->a;
	if (c->refusal[0]) {
		r->log.task_id = NULL;
		r->log.outcome = "refused";
		r->code = RPC_PARAMS;
		r->message = c->refusal;
		return;
	}
	r->log.outcome = rc ? "failed" : "succeeded";
	if (!c->op->tasked) {
		r->structured = rc ? NULL : c->result;
		r->error_text = "operation failed";
		return;
	}
	struct task_info ti = task_of(c);
	r->log.artifacts = c->artifacts;
	if (rc) {
		task_write_atomic(c->failure_path, c->failure.buf, c->failure.len);
		r->task = task_record(a, &ti, "failed", true, c->transient, NULL);
		snprintf(msg, msglen, "task %s failed%s; the details are in the bridge's local task store", c->task_id,
			 c->transient ? " (a tool was killed by a signal: the same call runs again)" : "");
		r->error_text = msg;
		return;
	}
	struct json *env = json_object(a);
	json_set(a, env, "task_id", json_str(a, c->task_id));
	json_set(a, env, "operation", json_str(a, c->op->name));
	json_set(a, env, "state", json_str(a, "succeeded"));
	json_set(a, env, "replayed", json_bool(a, false));
	json_set(a, env, "artifacts", c->artifacts);
	json_set(a, env, "result", c->result);
	r->task = task_record(a, &ti, "succeeded", false, false, env);
	r->structured = env;
	unlink(c->failure_path);
}

/* tools/call: look up -> validate -> begin the task -> run -> finish, then respond. */
static void tools_call(struct server *s, struct arena *a, const struct json *id, const struct json *params)
{
	long long t0 = clock_wall_ms();
	const char *name = json_get_str(params, "name");
	struct json *args = json_get(params, "arguments");
	if (!name) {
		send_error(id, RPC_PARAMS, "tools/call needs params.name");
		return;
	}
	struct reply r = { .log.operation = name };
	char msg[1024];
	const struct op *op = look_up(s, name, &r, msg, sizeof msg);
	if (!op) {
		respond(s, a, id, t0, &r);
		return;
	}
	size_t k = (size_t)(op - ops);
	if (!args)
		args = json_object(a);
	if (jschema_validate(s->input[k], args, "arguments", msg, sizeof msg)) {
		r.log.outcome = "invalid";
		r.code = RPC_PARAMS;
		r.message = msg;
		respond(s, a, id, t0, &r);
		return;
	}
	struct call c = { .s = s, .a = a, .op = op };
	sb_init(&c.failure);
	c.args = normalize(a, s->input[k], args);
	c.result = json_object(a);
	c.artifacts = json_array(a);
	/* the normalized request: the operation and its arguments, keys sorted */
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%s\n", op->name);
	json_write_sorted(&sb, c.args);
	fp_xxh3_of(sb.buf, sb.len, c.args_fp);
	sb_release(&sb);
	r.log.args_fp = c.args_fp;
	r.log.args = c.args;
	if (!op->tasked || begin_call(&c, json_get_str(args, "idempotency_key"), &r, msg, sizeof msg))
		finish_call(&c, op->run(&c), &r, msg, sizeof msg);
	respond(s, a, id, t0, &r);
	sb_release(&c.failure);
}

/* ---------------------------------------------------------------- methods */

static struct json *tool_list(struct server *s, struct arena *a)
{
	struct json *tools = json_array(a);
	for (size_t k = 0; k < N_OPS; k++) {
		if (!s->allowed[k] || !s->available[k])
			continue;
		struct json *t = json_object(a);
		json_set(a, t, "name", json_str(a, ops[k].name));
		json_set(a, t, "title", json_str(a, s->title[k]));
		json_set(a, t, "description", json_str(a, s->description[k]));
		json_set(a, t, "inputSchema", s->input[k]);
		json_set(a, t, "outputSchema", s->output[k]);
		json_push(a, tools, t);
	}
	struct json *r = json_object(a);
	json_set(a, r, "tools", tools);
	return r;
}

/* The MCP lifecycle: initialize is the first request and comes once, with protocolVersion,
 * capabilities and clientInfo. */
static void initialize(struct server *s, struct arena *a, const struct json *id, const struct json *params)
{
	const char *version;
	char err[300];
	if (s->initialized) {
		send_error(id, RPC_INVALID, "the server is already initialized: initialize comes once");
		return;
	}
	if (rpc_initialize_params(params, protocols, &version, err, sizeof err)) {
		send_error(id, RPC_PARAMS, err);
		return;
	}
	struct json *r = json_object(a), *caps = json_object(a), *tools = json_object(a), *info = json_object(a);
	json_set(a, r, "protocolVersion", json_str(a, version));
	json_set(a, tools, "listChanged", json_bool(a, false));
	json_set(a, caps, "tools", tools);
	json_set(a, r, "capabilities", caps);
	json_set(a, info, "name", json_str(a, "schednav-mcp"));
	json_set(a, info, "title", json_str(a, "SchedNav bounded agent bridge"));
	json_set(a, info, "version", json_str(a, SCHEDNAV_VERSION));
	json_set(a, r, "serverInfo", info);
	json_set(a, r, "instructions", json_str(a, s->prompt));
	s->initialized = true;
	send_result(id, r);
}

static void handle(struct server *s, struct arena *a, const char *line, size_t len)
{
	struct rpc_msg m;
	char err[512];
	int code = rpc_parse(a, line, len, &m, err, sizeof err);
	if (code) {
		if (m.answer)
			send_error(m.id, code, err);
		return;
	}
	if (!m.method || !m.id)
		return;   /* a response to us, or a notification (initialized, cancelled, ...): no answer */
	const char *method = m.method;
	if (!strcmp(method, "initialize"))
		initialize(s, a, m.id, m.params);
	else if (!strcmp(method, "ping"))
		send_result(m.id, json_object(a));
	else if (!strcmp(method, "tools/list") || !strcmp(method, "tools/call")) {
		if (!s->initialized)
			send_error(m.id, RPC_INVALID, "the server is not initialized: send initialize first");
		else if (method[6] == 'l')
			send_result(m.id, tool_list(s, a));
		else
			tools_call(s, a, m.id, m.params);
	} else {
		snprintf(err, sizeof err, "method '%.*s' not found", utf8_clip(method, 100), method);
		send_error(m.id, RPC_METHOD, err);
	}
}

/* ---------------------------------------------------------------- start-up */

static bool tool_has(const struct server *s, struct arena *a, const char *tool, const char *option)
{
	const char *path = joinpath(a, s->exec_dir, tool);
	if (access(path, X_OK))
		return false;
	if (!option)
		return true;
	char tmpl[] = "/tmp/schednav-mcp-help-XXXXXX", err[256];
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return false;
	close(fd);
	char *argv[] = { (char *)path, "--help", NULL };
	bool found = false;
	if (spawn_run(argv, NULL, tmpl, NULL, err, sizeof err) == 0) {
		char *buf;
		size_t len;
		if (zio_slurp(tmpl, &buf, &len, err, sizeof err) == 0) {
			size_t m = strlen(option);
			for (size_t i = 0; i + m <= len && !found; i++)
				found = !memcmp(buf + i, option, m);
			free(buf);
		}
	}
	unlink(tmpl);
	return found;
}

static const char *absolute(struct arena *a, const char *dir, const char *what)
{
	char *abs = realpath(dir, NULL);
	if (!abs)
		die("%s '%s': %s", what, dir, strerror(errno));
	const char *copy = arena_strndup(a, abs, strlen(abs));
	free(abs);
	return copy;
}

static const char *exec_dir_default(struct arena *a)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		die("cannot find the exec path: give --exec-path");
	buf[n] = 0;
	char *slash = strrchr(buf, '/');
	*slash = 0;
	return arena_strndup(a, buf, strlen(buf));
}

static void load_profile(struct server *s)
{
	static const char *const keys[] = { "schema_version", "profile", "role", "worker_id", "allowed_operations", "output_schema", "prompt", NULL };
	char err[1024];
	if (!ws_id_ok(s->profile))
		usage_fail(usage, "--profile wants a role id such as analyst");
	char name[200];
	snprintf(name, sizeof name, "agents/%s.json", s->profile);
	const char *path = joinpath(&s->arena, s->config_dir, name);
	if (access(path, R_OK))
		die("unknown profile '%s' (no %s)", s->profile, path);
	s->role = load_json_file(&s->arena, path, err, sizeof err);
	if (!s->role)
		die("%s", err);
	struct json *allowed = json_get(s->role, "allowed_operations");
	const char *schema = json_get_str(s->role, "schema_version"), *profile = json_get_str(s->role, "profile");
	s->prompt = json_get_str(s->role, "prompt");
	if (nd_check_keys(s->role, ND_KEYS(keys), err, sizeof err))
		die("%s: %s", path, err);
	if (!nd_schema_is(schema, MF_AGENT_ROLE_SCHEMA) || !profile || strcmp(profile, s->profile) || !s->prompt ||
	    !allowed || allowed->kind != JSON_ARRAY)
		die("%s: not a " MF_AGENT_ROLE_SCHEMA " document for profile '%s'", path, s->profile);
	for (size_t k = 0; k < N_OPS; k++)
		s->allowed[k] = !ops[k].tasked;   /* get_task and read_artifact: always */
	for (size_t i = 0; i < allowed->u.arr.n; i++) {
		const struct json *v = allowed->u.arr.items[i];
		size_t k = 0;
		while (k < N_OPS && (v->kind != JSON_STRING || strcmp(ops[k].name, v->u.str.s)))
			k++;
		if (k == N_OPS)
			die("%s: allowed_operations names '%s', which the bridge does not have", path, v->kind == JSON_STRING ? v->u.str.s : "?");
		s->allowed[k] = true;
	}
}

static void load_action_space(struct server *s)
{
	char err[1024], name[200];
	if (!ws_id_ok(s->action_space_id))
		usage_fail(usage, "--action-space wants an id");
	snprintf(name, sizeof name, "action_spaces/%s.json", s->action_space_id);
	const char *path = joinpath(&s->arena, s->config_dir, name);
	struct json *as = load_json_file(&s->arena, path, err, sizeof err);
	if (!as)
		die("%s", err);
	s->action_ids = json_get(as, "action_ids");
	s->safety_action = json_get_str(as, "safety_action_id");
	if (!s->action_ids || s->action_ids->kind != JSON_ARRAY || !s->safety_action)
		die("%s: needs action_ids and safety_action_id", path);
}

/* The envelope every task operation returns around its result (its "result" set per operation). */
static const char task_envelope[] =
	"{\"type\":\"object\",\"required\":[\"task_id\",\"operation\",\"state\",\"replayed\",\"artifacts\",\"result\"],"
	"\"properties\":{\"task_id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{32}$\"},\"operation\":{\"const\":null},"
	"\"state\":{\"const\":\"succeeded\"},\"replayed\":{\"type\":\"boolean\"},\"artifacts\":{\"type\":\"array\",\"items\":"
	"{\"type\":\"object\",\"required\":[\"ref\",\"schema\",\"fingerprint\"],\"properties\":{\"ref\":{\"type\":\"string\"},"
	"\"schema\":{\"type\":\"string\"},\"fingerprint\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{32}$\"}}}},\"result\":null}}";

static void build_schemas(struct server *s)
{
	char err[512];
	for (size_t k = 0; k < N_OPS; k++) {
		struct opschema_def def;
		if (opschema_load(&s->arena, ops[k].name, &def, err, sizeof err))
			die("internal schema of '%s': %s", ops[k].name, err);
		s->title[k] = def.title;
		s->description[k] = def.description;
		s->input[k] = def.input;
		if (!ops[k].tasked) {
			s->output[k] = def.result;
			continue;
		}
		struct json *env = parse_or_die(&s->arena, task_envelope, ops[k].name), *props = json_get(env, "properties");
		json_set(&s->arena, json_get(props, "operation"), "const", json_str(&s->arena, ops[k].name));
		json_set(&s->arena, props, "result", def.result);
		s->output[k] = env;
	}
}

static void open_state(struct server *s, bool create)
{
	char err[1024];
	int rc = task_store_open(&s->store, s->ws.root, create, err, sizeof err);
	report_cut(s);
	if (rc)
		die("%s", err);
}

int main(int argc, char **argv)
{
	enum { OPT_VERIFY = 256 };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' }, { "workspace", required_argument, NULL, 'w' },
		{ "configs", required_argument, NULL, 'c' }, { "exec-path", required_argument, NULL, 'x' },
		{ "action-space", required_argument, NULL, 'a' }, { "verify-log", no_argument, NULL, OPT_VERIFY },
		CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 },
	};
	static const char schemas[] = "reads: MCP JSON-RPC 2.0 (" PROTOCOL_LATEST "), " MF_AGENT_ROLE_SCHEMA "\n"
				      "writes: " TASK_SCHEMA ", " SIMULATIONS_SCHEMA ", " AUDITS_SCHEMA ", bridge_call log\n";
	struct server s = { .action_space_id = "static-v1" };
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
	arena_init(&s.arena);
	char err[1024];
	if (ws_open(&s.ws, workspace, err, sizeof err))
		die("%s", err);
	if (verify) {
		open_state(&s, false);
		task_store_close(&s.store);
		const struct chainlog_pos *pos = &s.store.audit_pos;
		fprintf(stderr, "%s: '%s/audit.ndjson': %lu call%s, the chain verifies (last fingerprint %s)\n", progname, s.store.dir,
			pos->count, pos->count == 1 ? "" : "s", pos->count ? pos->last_fp : "none");
		ws_close(&s.ws);
		arena_release(&s.arena);
		return 0;
	}
	if (!s.exec_dir)
		s.exec_dir = exec_dir_default(&s.arena);
	if (!s.config_dir)
		s.config_dir = getenv("SCHEDNAV_CONFIGS");
	if (!s.config_dir || !*s.config_dir) {
		/* the source tree (bin/../configs), else the installed layout
		 * (PREFIX/libexec/schednav/../../share/schednav/configs, as make install puts it) */
		struct stat st;
		s.config_dir = joinpath(&s.arena, s.exec_dir, "../configs");
		if (stat(s.config_dir, &st) != 0 || !S_ISDIR(st.st_mode))
			s.config_dir = joinpath(&s.arena, s.exec_dir, "../../share/schednav/configs");
	}
	/* tools run in the workspace: the exec and config dirs must not stay relative */
	s.exec_dir = absolute(&s.arena, s.exec_dir, "--exec-path");
	s.config_dir = absolute(&s.arena, s.config_dir, "--configs");
	load_profile(&s);
	load_action_space(&s);
	build_schemas(&s);
	for (size_t k = 0; k < N_OPS; k++)
		s.available[k] = !ops[k].need_tool || tool_has(&s, &s.arena, ops[k].need_tool, ops[k].need_option);
	open_state(&s, true);

	char *buf = xmalloc(RPC_MAX_BODY + 1);
	struct arena a;
	arena_init(&a);
	size_t len;
	int got;
	while ((got = rpc_read_line(stdin, buf, &len)) != 0) {
		arena_reset(&a);
		if (got == 2) {
			send_error(NULL, RPC_INVALID, "message larger than 65536 bytes");
			continue;
		}
		if (len == 0)
			continue;
		handle(&s, &a, buf, len);
	}
	free(buf);
	arena_release(&a);
	task_store_close(&s.store);
	ws_close(&s.ws);
	arena_release(&s.arena);
	return 0;
}

#ifdef SCHEDNAV_TEST_OPS
#include "../tests/fixtures/mcp/toy_echo.c"
#endif
