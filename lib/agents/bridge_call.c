/* The bridge's tools/call pipeline (agents/bridge.h): look up the operation, validate and
 * normalize its arguments, begin its task (or answer from the task store), run it, finish
 * it, then audit, save and reply: every call ends in respond, once. */
#include "agents/bridge.h"
#include "agents/jschema.h"
#include "agents/rpc.h"
#include "core/clock.h"
#include "core/text.h"
#include "eval/chainlog.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct br_op *op_named(const struct br_server *s, const char *name)
{
	for (size_t k = 0; k < s->nops; k++)
		if (!strcmp(s->ops[k].name, name))
			return &s->ops[k];
	return NULL;
}

/* ag_task_load's question: is this a task operation, and what is its result's schema? */
static bool task_op(const char *name, const struct json **result_schema, void *ctx)
{
	const struct br_server *s = ctx;
	const struct br_op *op = op_named(s, name);
	if (!op || !op->tasked)
		return false;
	*result_schema = s->output[op - s->ops];
	return true;
}

/* The stored task TASK_ID (lib/agents/tasks.h): NULL with bad "" when there is none, NULL
 * with the reason in bad when it cannot be trusted. */
struct json *ag_br_load_task(struct br_call *c, const char *task_id, char *bad, size_t badlen)
{
	char err[1024];
	struct json *t;
	if (ag_task_load(&c->s->store, c->a, task_id, task_op, c->s, &t, bad, badlen, err, sizeof err)) {
		ag_br_fail(c->s, "%s", err);
		snprintf(bad, badlen, "%s", err);
		return NULL;
	}
	return t;
}

static struct task_info task_of(const struct br_call *c)
{
	return (struct task_info){ .task_id = c->task_id, .operation = c->op->name, .profile = c->s->profile, .args_fp = c->args_fp,
				   .key = json_get(c->args, "idempotency_key"), .artifacts = c->artifacts };
}

/* queued, then running, and the task's artefact directory. */
int ag_br_begin_task(struct br_call *c)
{
	char err[800];
	struct task_info ti = task_of(c);
	if (ag_task_write(&c->s->store, c->task_id, ag_task_record(c->a, &ti, "queued", false, false, NULL)) ||
	    ag_ws_mkdirs(&c->s->ws, c->dir, err, sizeof err) ||
	    ag_task_write(&c->s->store, c->task_id, ag_task_record(c->a, &ti, "running", false, false, NULL))) {
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

/* Audit the call, save a finished task, reply: every call ends here, once. */
static void respond(struct br_server *s, struct arena *a, const struct json *id, long long t0, struct reply *r)
{
	char err[1024], tfp[FP_HEX_XXH3];
	unsigned long long at;
	if (s->fatal[0])
		return;   /* a stored task could not be read: nothing more is served */
	r->log.profile = s->profile;
	if (r->task) {
		ag_task_fingerprint(a, r->task, tfp);
		r->log.task_fp = tfp;
	}
	r->log.duration_ms = clock_wall_ms() - t0;
	int rc = ag_task_audit_append(&s->store, a, &r->log, &at, err, sizeof err);
	ag_br_report_cut(s);
	if (rc) {
		ag_br_fail(s, "%s", err);   /* a call that cannot be logged must not be served */
		return;
	}
	if (r->task) {
		json_set(a, r->task, "audit_offset", json_int(a, (long long)at));
		if (ag_task_write(&s->store, r->log.task_id, r->task)) {
			ag_br_fail(s, "cannot save task %s", r->log.task_id);
			return;
		}
	}
	if (r->message)
		ag_br_send_error(s, id, r->code, r->message);
	else
		ag_br_send_result(s, id, tool_result(a, r->structured, r->error_text));
}

/* Look up: the operation named in params, listed for this profile and installed; else a refusal. */
static const struct br_op *look_up(struct br_server *s, const char *name, struct reply *r, char *msg, size_t msglen)
{
	size_t k = 0;
	while (k < s->nops && strcmp(s->ops[k].name, name))
		k++;
	if (k < s->nops && s->allowed[k] && s->available[k])
		return &s->ops[k];
	snprintf(msg, msglen, k < s->nops && s->allowed[k] ? "tool '%.*s' is not available: its tool is not installed" :
		 "unknown tool '%.*s' for profile '%s'", ag_utf8_clip(name, 100), name, s->profile);
	r->log.outcome = "refused";
	r->code = RPC_PARAMS;
	r->message = msg;
	return NULL;
}

/* Begin the task: name it (by the idempotency key when given, else by the arguments) and
 * answer from the store when it already ran: the stored result, its failure, a conflict, or a
 * refusal to trust an edited store. false: r is the answer; true: the operation runs. */
static bool begin_call(struct br_call *c, const char *key, struct reply *r, char *msg, size_t msglen)
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
	if (ag_br_state_path(c->s, c->failure_path, sizeof c->failure_path, rel))
		return false;
	if (key)
		json_set(a, c->args, "idempotency_key", json_str(a, key));
	r->log.task_id = c->task_id;
	struct json *old = ag_br_load_task(c, c->task_id, bad, sizeof bad);
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
static void finish_call(struct br_call *c, int rc, struct reply *r, char *msg, size_t msglen)
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
		ag_task_write_atomic(c->failure_path, c->failure.buf, c->failure.len);
		r->task = ag_task_record(a, &ti, "failed", true, c->transient, NULL);
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
	r->task = ag_task_record(a, &ti, "succeeded", false, false, env);
	r->structured = env;
	unlink(c->failure_path);
}

/* tools/call: look up -> validate -> begin the task -> run -> finish, then respond. */
void ag_br_tools_call(struct br_server *s, struct arena *a, const struct json *id, const struct json *params)
{
	long long t0 = clock_wall_ms();
	const char *name = json_get_str(params, "name");
	struct json *args = json_get(params, "arguments");
	if (!name) {
		ag_br_send_error(s, id, RPC_PARAMS, "tools/call needs params.name");
		return;
	}
	struct reply r = { .log.operation = name };
	char msg[1024];
	const struct br_op *op = look_up(s, name, &r, msg, sizeof msg);
	if (!op) {
		respond(s, a, id, t0, &r);
		return;
	}
	size_t k = (size_t)(op - s->ops);
	if (!args)
		args = json_object(a);
	if (ag_jschema_validate(s->input[k], args, "arguments", msg, sizeof msg)) {
		r.log.outcome = "invalid";
		r.code = RPC_PARAMS;
		r.message = msg;
		respond(s, a, id, t0, &r);
		return;
	}
	struct br_call c = { .s = s, .a = a, .op = op };
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
