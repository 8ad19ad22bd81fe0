/* The bridge's machinery (schednav-mcp): the server, one call's context, the tools/call
 * pipeline and the start-up, so that tools/schednav-mcp.c holds only its operations, their
 * table and main. An operation is a function int op(struct br_call *), one row of the
 * tool's table (struct br_op) and its schema file schemas/mcp/NAME.json (agents/opschema.h).
 *
 * Nothing here exits: a failure the server cannot serve past (the audit log cannot be
 * appended, stdout is gone, a stored task cannot be read) sets br_server.fatal and
 * unwinds; ag_br_serve returns -1 and main says why. Start-up returns -1 with a message, or
 * BR_USAGE for a usage error. */
#ifndef SCHEDNAV_AGENTS_BRIDGE_H
#define SCHEDNAV_AGENTS_BRIDGE_H

#include "agents/tasks.h"
#include "agents/workspace.h"
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/strbuf.h"
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BR_PROTOCOL_LATEST "2025-11-25"
#define BR_AUDITS_SCHEMA "schednav.bridge-audits/1"
enum { BR_USAGE = -2 };

struct br_call;
typedef int (*br_op_fn)(struct br_call *c);

/* One row of the operation table: adding an operation is one row, its function and its
 * schema file schemas/mcp/NAME.json (title, description, input and result schemas). */
struct br_op {
	const char *name;
	const char *need_tool;       /* listed and callable only when this tool is in the exec dir */
	const char *need_option;     /* ... and its --help mentions this option (NULL: any) */
	bool tasked;                 /* a task with idempotency (false: a plain read) */
	br_op_fn run;
};

struct br_server {
	const struct br_op *ops;
	size_t nops;
	FILE *in, *out;                   /* the JSON-RPC lines: the tool's stdin and stdout */
	const char *profile, *exec_dir, *config_dir, *action_space_id;
	struct arena arena;               /* lives as long as the server */
	struct json *role, *action_ids;   /* the profile; the declared action ids */
	const char *safety_action, *prompt;
	struct workspace ws;
	struct task_store store;          /* the task store and the audit log (lib/agents/tasks.h) */
	bool initialized;
	bool *allowed, *available;        /* per operation of ops */
	struct json **input, **output;    /* the schemas of schemas/mcp/ */
	const char **title, **description;
	char fatal[1024];                 /* why the server must stop (see above); "" while it serves */
};

/* One call's context, what an operation reads and fills. */
struct br_call {
	struct br_server *s;
	struct arena *a;
	const struct br_op *op;
	struct json *args;       /* validated, defaults filled, without idempotency_key */
	char task_id[FP_HEX_XXH3], args_fp[FP_HEX_XXH3];
	char dir[64];            /* "artifacts/TASK" */
	char failure_path[PATH_MAX];
	struct json *result, *artifacts;
	char refusal[1024];      /* a clear message for the caller (bad id, ref outside, ...) */
	struct strbuf failure;   /* local details of an execution failure */
	bool transient;          /* a tool was killed by a signal: the failure is not the call's result */
};

/* ---- start-up and the server loop (bridge_server.c) */

/* Open the workspace and, unless verify_only, load the profile, the action space and the
 * schemas, probe the tools and open the state; the caller set ops, nops, in, out, profile,
 * action_space_id and optionally exec_dir and config_dir. 0, BR_USAGE or -1 with err. */
int ag_br_open(struct br_server *s, const char *workspace, bool verify_only, char *err, size_t errlen);
/* After ag_br_open with verify_only (which verified the audit log): say so on stderr, close. */
int ag_br_verify_log(struct br_server *s, char *err, size_t errlen);
/* Serve JSON-RPC lines from s->in to s->out until EOF: 0, or -1 with s->fatal. */
int ag_br_serve(struct br_server *s);
void ag_br_close(struct br_server *s);

/* ---- the tools/call pipeline (bridge_call.c) */

void ag_br_tools_call(struct br_server *s, struct arena *a, const struct json *id, const struct json *params);
/* queued, then running, and the task's artefact directory. */
int ag_br_begin_task(struct br_call *c);
/* The stored task TASK_ID (lib/agents/tasks.h): NULL with bad "" when there is none, NULL
 * with the reason in bad when it cannot be trusted, NULL with s->fatal when unreadable. */
struct json *ag_br_load_task(struct br_call *c, const char *task_id, char *bad, size_t badlen);

/* ---- what operations use, and the server and its pipeline share (bridge_ctx.c) */

int ag_br_send_result(struct br_server *s, const struct json *id, const struct json *result);
int ag_br_send_error(struct br_server *s, const struct json *id, int code, const char *msg);
/* Stop serving: s->fatal = the message; returns -1. */
int ag_br_fail(struct br_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Say on stderr that the store cut off a torn audit line (a server killed while it appended). */
void ag_br_report_cut(struct br_server *s);

struct br_stream {
	const char *schema;
	char fp[FP_HEX_XXH3];
	struct json *records;   /* body records (array) */
};

struct json *ag_br_load_json_file(struct arena *a, const char *path, char *err, size_t errlen);
const char *ag_br_str_arg(const struct br_call *c, const char *key);
char *ag_br_joinpath(struct arena *a, const char *dir, const char *name);
/* Absolute path of configs/SUB/ID.json when ID is a declared id with such a file; else a refusal. */
const char *ag_br_config_file(struct br_call *c, const char *sub, const char *id, const char *what);
/* The policy file of a declared action id, or a refusal naming the action space. */
const char *ag_br_policy_file(struct br_call *c, const char *action);
/* A ref the agent gave must name a regular file reached without symlinks. */
bool ag_br_ref_readable(struct br_call *c, const char *ref);
/* Read a small document of the workspace (WHAT 'ID' at ref) into sb: 0, 1 when there is no
 * such file, or -1 with a refusal naming what is wrong. */
int ag_br_read_ws_doc(struct br_call *c, const char *what, const char *id, const char *ref, struct strbuf *sb);
/* The trace ref of run-configs/ID.json (and its history trace ref), or NULL with a refusal. */
const char *ag_br_run_config_trace(struct br_call *c, const char *id, const char **history);
/* The path of .schednav-mcp/NAME: 0, or -1 with s->fatal. */
int ag_br_state_path(struct br_server *s, char *out, size_t n, const char *name);
/* Read and verify one stream file; records collected when want; with expect, a stream of
 * another schema stops at its header. */
int ag_br_read_stream_of(struct arena *a, const char *path, const char *expect, bool want, struct br_stream *si, char *err,
		      size_t errlen);
int ag_br_read_stream(struct arena *a, const char *path, bool want, struct br_stream *si, char *err, size_t errlen);
/* Record an artefact the call wrote: verify the stream, list {ref, schema, fingerprint}. */
int ag_br_add_artifact(struct br_call *c, const char *ref, bool want, struct br_stream *si);
const char *ag_br_artifact_ref(struct br_call *c, const char *name);
/* Run EXEC/argv[0] with the rest of argv (NULL-terminated) in the workspace root. */
int ag_br_run_tool(struct br_call *c, const char *const *argv);
/* The index of simulations: audit_slo finds the baseline simulated on the same run config. */
void ag_br_index_simulation(struct br_call *c, const char *run_config, const char *action, const char *metrics_ref);
struct json *ag_br_index_lookup(struct br_call *c, const char *sub, const char *name);
/* The headline figures an agent compares; everything else is in the metrics artefact. */
struct json *ag_br_headline(struct arena *a, const struct json *m);
/* Metrics and audit refs an agent names must be verified streams of the right schema. */
bool ag_br_refs_of_schema(struct br_call *c, const struct json *refs, const char *schema);
/* run-sets/ID.json: its run config ids, or NULL with a refusal. */
struct json *ag_br_run_set_configs(struct br_call *c, const char *id);
/* Write a manifest stream (schema, records, the task id in its header) at ref. */
int ag_br_write_manifest(struct br_call *c, const char *ref, const char *schema, struct json *records);

#endif
