/* What the bridge's operations use (agents/bridge.h): the workspace's refs and documents, the
 * configs of declared ids, verified streams and artefacts, the tools as subprocesses, the
 * index of simulations and the run-set manifests; and what the server and its call pipeline
 * share below them: the replies, the fatal stop and the note of a cut audit line. The
 * server uses the pipeline, the pipeline uses this file, this file uses neither. */
#include "agents/bridge.h"
#include "agents/rpc.h"
#include "core/xalloc.h"
#include "eval/chainlog.h"
#include <stdarg.h>
#include "agents/manifest.h"
#include "core/ndjson.h"
#include "core/ndstream.h"
#include "core/spawn.h"
#include "core/zio.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct json *ag_br_load_json_file(struct arena *a, const char *path, char *err, size_t errlen)
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

const char *ag_br_str_arg(const struct br_call *c, const char *key)
{
	return json_get_str(c->args, key);
}

char *ag_br_joinpath(struct arena *a, const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = arena_alloc(a, n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Absolute path of configs/SUB/ID.json when ID is a declared id with such a file; else a refusal. */
const char *ag_br_config_file(struct br_call *c, const char *sub, const char *id, const char *what)
{
	char name[160];
	snprintf(name, sizeof name, "%s/%s.json", sub, id);
	const char *p = ag_br_joinpath(c->a, c->s->config_dir, name);
	struct stat st;
	if (!ag_ws_id_ok(id) || stat(p, &st) || !S_ISREG(st.st_mode)) {
		snprintf(c->refusal, sizeof c->refusal, "unknown %s '%s'", what, id);
		return NULL;
	}
	return p;
}

static bool declared_action(const struct br_server *s, const char *id)
{
	for (size_t i = 0; i < s->action_ids->u.arr.n; i++)
		if (!strcmp(s->action_ids->u.arr.items[i]->u.str.s, id))
			return true;
	return false;
}

/* The policy file of a declared action id, or a refusal naming the action space. */
const char *ag_br_policy_file(struct br_call *c, const char *action)
{
	if (!declared_action(c->s, action)) {
		snprintf(c->refusal, sizeof c->refusal, "action '%s' is not declared in action space '%s'", action, c->s->action_space_id);
		return NULL;
	}
	return ag_br_config_file(c, "policies", action, "action");
}

/* A ref the agent gave must name a regular file reached without symlinks. */
bool ag_br_ref_readable(struct br_call *c, const char *ref)
{
	char err[800];
	int fd = ag_ws_open_file(&c->s->ws, ref, err, sizeof err);
	if (fd < 0) {
		snprintf(c->refusal, sizeof c->refusal, "%s", err);
		return false;
	}
	close(fd);
	return true;
}

/* Read a small document of the workspace (a run config, a run set: WHAT 'ID' at ref) into sb:
 * 0, 1 when there is no such file, or -1 with a refusal naming what is wrong. */
int ag_br_read_ws_doc(struct br_call *c, const char *what, const char *id, const char *ref, struct strbuf *sb)
{
	char err[800];
	int fd = ag_ws_open_file(&c->s->ws, ref, err, sizeof err);
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
static bool load_run_config(struct br_call *c, const char *id, struct run_config *rc)
{
	char ref[200], err[600];
	snprintf(ref, sizeof ref, "run-configs/%s.json", id);
	struct strbuf sb;
	sb_init(&sb);
	int got = ag_br_read_ws_doc(c, "run config", id, ref, &sb);
	bool ok = false;
	if (got > 0)
		snprintf(c->refusal, sizeof c->refusal, "unknown run_config_id '%s'", id);
	else if (got == 0 && ag_mf_run_config(c->a, sb.buf ? sb.buf : "", sb.len, rc, err, sizeof err))
		snprintf(c->refusal, sizeof c->refusal, "run config '%s' (%s): %s", id, ref, err);
	else if (got == 0)
		ok = true;
	sb_release(&sb);
	if (ok && (!ag_br_ref_readable(c, rc->trace_ref) || (rc->history_trace_ref && !ag_br_ref_readable(c, rc->history_trace_ref)))) {
		char why[sizeof c->refusal];
		snprintf(why, sizeof why, "%s", c->refusal);
		snprintf(c->refusal, sizeof c->refusal, "run config '%s': %.900s", id, why);
		ok = false;
	}
	return ok;
}

const char *ag_br_run_config_trace(struct br_call *c, const char *id, const char **history)
{
	struct run_config rc;
	if (!load_run_config(c, id, &rc))
		return NULL;
	if (history)
		*history = rc.history_trace_ref;
	return rc.trace_ref;
}

int ag_br_state_path(struct br_server *s, char *out, size_t n, const char *name)
{
	if (ag_task_store_path(&s->store, name, out, n))
		return ag_br_fail(s, "path of '%s' is too long", name);
	return 0;
}

/* What the stream reader's callbacks share (core/ndstream.h). */
struct stream_read {
	struct arena *a;
	const char *expect;
	bool want;
	struct br_stream *si;
};

static int on_header(void *ctx, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	struct stream_read *c = ctx;
	c->si->schema = json_get_str(h, "schema");
	if (c->si->schema)
		c->si->schema = arena_strndup(c->a, c->si->schema, strlen(c->si->schema));
	if (c->expect && (!c->si->schema || strcmp(c->si->schema, c->expect))) {
		snprintf(err, errlen, "%s: not a %s stream", ndr_name(r), c->expect);
		return -1;
	}
	return 0;
}

static int on_record(void *ctx, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	struct stream_read *c = ctx;
	if (c->want)
		json_push(c->a, c->si->records, json_clone(c->a, v));
	return 0;
}

static int on_end(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct stream_read *c = ctx;
	snprintf(c->si->fp, sizeof c->si->fp, "%s", ndr_fingerprint(r));
	return 0;
}

/* Read and verify one stream file (absolute or cwd-relative path); records collected when want.
 * With expect, a stream of another schema stops at its header (a trace named as metrics is
 * not read through). */
int ag_br_read_stream_of(struct arena *a, const char *path, const char *expect, bool want, struct br_stream *si, char *err,
			  size_t errlen)
{
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -1;
	si->schema = NULL;
	si->fp[0] = 0;
	si->records = json_array(a);
	struct stream_read c = { a, expect, want, si };
	const struct ndr_stream_ops ops = { expect ? expect : "SchedNav", on_header, NULL, NULL, on_record, on_end };
	int rc = ndr_read_stream(r, &ops, &c, err, errlen);
	ndr_close(r);
	return rc;
}

int ag_br_read_stream(struct arena *a, const char *path, bool want, struct br_stream *si, char *err, size_t errlen)
{
	return ag_br_read_stream_of(a, path, NULL, want, si, err, errlen);
}

/* Record an artefact the call wrote: verify the stream, list {ref, schema, fingerprint}. */
int ag_br_add_artifact(struct br_call *c, const char *ref, bool want, struct br_stream *si)
{
	char path[PATH_MAX], err[1024];
	snprintf(path, sizeof path, "%s/%s", c->s->ws.root, ref);
	if (ag_br_read_stream(c->a, path, want, si, err, sizeof err)) {
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

const char *ag_br_artifact_ref(struct br_call *c, const char *name)
{
	return ag_br_joinpath(c->a, c->dir, name);
}

/* Run EXEC/argv[0] with the rest of argv (NULL-terminated) in the workspace root. */
int ag_br_run_tool(struct br_call *c, const char *const *argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **full = arena_alloc(c->a, (n + 1) * sizeof *full);
	full[0] = ag_br_joinpath(c->a, c->s->exec_dir, argv[0]);
	for (size_t i = 1; i <= n; i++)
		full[i] = (char *)argv[i];
	char err[512];
	sb_addf(&c->failure, "run:");
	for (size_t i = 0; i < n; i++)
		sb_addf(&c->failure, " %s", argv[i]);
	sb_addc(&c->failure, '\n');
	/* flush our notes first so the tool's stderr lands after them in the failure file */
	ag_task_write_atomic(c->failure_path, c->failure.buf, c->failure.len);
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

/* .schednav-mcp/simulations/RUN_CONFIG/ACTION.json and .schednav-mcp/metrics/XXH3(REF).json let
 * audit_slo find the baseline simulated on the same run config. */
void ag_br_index_simulation(struct br_call *c, const char *run_config, const char *action, const char *metrics_ref)
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
	if (ag_br_state_path(c->s, dir, sizeof dir, "simulations")) {
		sb_release(&sb);
		return;
	}
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/%s", dir, run_config);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/%s.json", dir, run_config, action);
	ag_task_write_atomic(path, sb.buf, sb.len);
	if (ag_br_state_path(c->s, dir, sizeof dir, "metrics")) {
		sb_release(&sb);
		return;
	}
	mkdir(dir, 0755);
	fp_xxh3_of(metrics_ref, strlen(metrics_ref), key);
	snprintf(path, sizeof path, "%s/%s.json", dir, key);
	ag_task_write_atomic(path, sb.buf, sb.len);
	sb_release(&sb);
}

struct json *ag_br_index_lookup(struct br_call *c, const char *sub, const char *name)
{
	char path[PATH_MAX], rel[PATH_MAX], err[256];
	snprintf(rel, sizeof rel, "%s/%s.json", sub, name);
	if (ag_br_state_path(c->s, path, sizeof path, rel))
		return NULL;
	return access(path, R_OK) ? NULL : ag_br_load_json_file(c->a, path, err, sizeof err);
}

/* The ag_br_headline figures an agent compares; everything else is in the metrics artefact. */
struct json *ag_br_headline(struct arena *a, const struct json *m)
{
	static const char *const keys[] = {
		"action_id", "allocation_rate_mean", "hp_jct_p95_seconds", "hp_queue_p95_seconds", "spot_jct_p95_seconds",
		"spot_eviction_rate_per_run", "spot_guarantee_success_rate", "hp_preempted_job_count", "predictive_control", "rolling_control",
		"placement",   /* issue 36: a physical placement_strategy's block (the strategy, fragmentation) */
		NULL,
	};
	struct json *o = json_object(a);
	for (const char *const *k = keys; *k; k++) {
		struct json *v = json_get(m, *k);
		if (v)
			json_set(a, o, *k, v);
	}
	return o;
}

/* Metrics and audit refs an agent names must be verified streams of the right schema. */
bool ag_br_refs_of_schema(struct br_call *c, const struct json *refs, const char *schema)
{
	for (size_t i = 0; i < refs->u.arr.n; i++) {
		const char *ref = refs->u.arr.items[i]->u.str.s;
		struct br_stream si;
		char path[PATH_MAX], err[1024];
		if (!ag_br_ref_readable(c, ref))
			return false;
		snprintf(path, sizeof path, "%s/%s", c->s->ws.root, ref);
		if (ag_br_read_stream_of(c->a, path, schema, false, &si, err, sizeof err)) {
			snprintf(c->refusal, sizeof c->refusal, "'%s' is not a verified %s stream", ref, schema);
			return false;
		}
	}
	return true;
}

/* run-sets/ID.json {"schema_version":"schednav.run-set/1","run_config_ids":[1..12 unique ids]}. */
struct json *ag_br_run_set_configs(struct br_call *c, const char *id)
{
	char ref[200], err[600];
	snprintf(ref, sizeof ref, "run-sets/%s.json", id);
	struct strbuf sb;
	sb_init(&sb);
	struct json *ids = NULL;
	int got = ag_br_read_ws_doc(c, "run set", id, ref, &sb);
	if (got > 0)
		snprintf(c->refusal, sizeof c->refusal, "unknown run_set_id '%s'", id);
	else if (got == 0 && ag_mf_run_set(c->a, sb.buf ? sb.buf : "", sb.len, &ids, err, sizeof err))
		snprintf(c->refusal, sizeof c->refusal, "run set '%s' (%s): %s", id, ref, err);
	sb_release(&sb);
	return c->refusal[0] ? NULL : ids;
}

int ag_br_write_manifest(struct br_call *c, const char *ref, const char *schema, struct json *records)
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

int ag_br_fail(struct br_server *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!s->fatal[0])
		vsnprintf(s->fatal, sizeof s->fatal, fmt, ap);
	va_end(ap);
	return -1;
}

int ag_br_send_result(struct br_server *s, const struct json *id, const struct json *result)
{
	if (ag_rpc_send_result(s->out, id, result))
		return ag_br_fail(s, "stdout: %s", strerror(errno));
	return 0;
}

int ag_br_send_error(struct br_server *s, const struct json *id, int code, const char *msg)
{
	if (ag_rpc_send_error(s->out, id, code, msg))
		return ag_br_fail(s, "stdout: %s", strerror(errno));
	return 0;
}

/* Say on stderr that the store cut off a torn audit line (a server killed while it appended). */
void ag_br_report_cut(struct br_server *s)
{
	char msg[PATH_MAX + 300];
	if (!s->store.audit_cut.bytes)
		return;
	ev_chainlog_cut_describe(&s->store.audit_cut, s->store.audit_path, msg, sizeof msg);
	fprintf(stderr, "%s: %s\n", progname, msg);
	memset(&s->store.audit_cut, 0, sizeof s->store.audit_cut);
}

