/*
 * tasks — the bridge's state under a workspace (WORKSPACE/.schednav-mcp/): the task store
 * (tasks/TASK.json, schednav.bridge-task/2) and the hash-chained audit log (audit.ndjson, one
 * bridge_call line per call, lib/eval/chainlog). A stored task is input like any other:
 * before it is replayed it must pass ag_task_check (the exact key set, every value's kind and
 * range, its own id and operation), and a finished task (succeeded or failed) must be bound
 * to the audit log: its audit_offset names the log line that recorded it, and that line's
 * task_fingerprint must be task_fingerprint of the stored record. A task is written queued,
 * then running (task_begin), then finished: its audit line first, then the task with that
 * line's offset (task_finish), so a crash between the two leaves it running and it runs
 * again. Several servers (one per role) may share a workspace: the log is locked (flock)
 * while a line is appended or read back. Values live in the caller's arena. Nothing here
 * prints or exits.
 */
#ifndef SCHEDNAV_AGENTS_TASKS_H
#define SCHEDNAV_AGENTS_TASKS_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "eval/chainlog.h"
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define TASK_SCHEMA "schednav.bridge-task/2"
#define TASK_STATE_DIR ".schednav-mcp"
#define TASK_MAX_LOGGED_NAME 100   /* bytes of an unknown tool name the audit log keeps */
/* The idempotency key rule of every task operation (also its JSON Schema pattern). */
#define TASK_KEY_PATTERN "^[A-Za-z0-9][A-Za-z0-9._:/-]{7,127}$"

/* 0 when t is a well-formed stored task of this task_id and operation; else -1 + message.
 * A succeeded task's result is an object here; its operation's output schema is the
 * caller's to check. */
int ag_task_check(const struct json *t, const char *task_id, const char *operation, char *err, size_t errlen);
/* XXH3-128 of t's canonical form (keys sorted) without audit_offset: what the audit line holds. */
void ag_task_fingerprint(struct arena *a, const struct json *t, char out[FP_HEX_XXH3]);
/* 0 when key follows TASK_KEY_PATTERN. */
int ag_task_key_ok(const char *key);

/* The bridge's state of one workspace. */
struct task_store {
	char dir[PATH_MAX];               /* WORKSPACE/.schednav-mcp */
	char audit_path[PATH_MAX + 16];   /* dir/audit.ndjson */
	int audit_fd;
	struct chainlog_pos audit_pos;    /* how far this server has verified the shared log */
	bool appending;                   /* a server's store: audit_fd writable */
	struct chainlog_cut audit_cut;    /* a torn tail cut off since the tool last cleared it */
};

/* One bridge_call line: NULL (or "" for the ids) is logged as null; artifacts give the
 * result_fingerprints (none when NULL); operation is clipped to TASK_MAX_LOGGED_NAME bytes. */
struct task_call {
	const char *profile, *operation, *task_id, *args_fp;
	struct json *args, *artifacts;
	const char *task_fp;
	long long duration_ms;
	const char *outcome;
};

/* What a task record holds besides its state (ag_task_record). */
struct task_info {
	const char *task_id, *operation, *profile, *args_fp;
	struct json *key;         /* the idempotency key (a string), or NULL */
	struct json *artifacts;   /* {ref, schema, fingerprint} so far */
};

/* Open the state of the workspace at root. create (a server): make dir and dir/tasks, open
 * or create the log and verify it in full; a torn tail (a server killed while it appended)
 * is cut off here or before a later append and recorded in audit_cut for the tool to report. !create (--verify-log): verify the existing log;
 * audit_pos then holds its line count and last fingerprint. 0, or -1 and a message. */
int ag_task_store_open(struct task_store *ts, const char *root, bool create, char *err, size_t errlen);
void ag_task_store_close(struct task_store *ts);
/* dir/name into out[n]: 0, or -1 when it does not fit. */
int ag_task_store_path(const struct task_store *ts, const char *name, char *out, size_t n);
/* Write bytes to path through a temporary file beside it and a rename: 0 or -1. */
int ag_task_write_atomic(const char *path, const char *buf, size_t len);
/* Append one bridge_call line, after verifying what other servers appended since this one
 * last looked; *at its byte offset. -1 and the chainlog message when the log cannot be
 * verified or written (a call that cannot be logged must not be served). */
int ag_task_audit_append(struct task_store *ts, struct arena *a, const struct task_call *call, unsigned long long *at, char *err,
		      size_t errlen);

/* Says whether operation is a task operation and gives its result schema (checked against a
 * succeeded task's result). */
typedef bool (*task_op_fn)(const char *operation, const struct json **result_schema, void *ctx);
/* The stored task task_id, checked before anything of it is believed: *t the task; *t NULL
 * and bad "" when there is none; *t NULL and the reason in bad when it cannot be trusted.
 * -1 and err only when the audit log itself cannot be verified. */
int ag_task_load(struct task_store *ts, struct arena *a, const char *task_id, task_op_fn op, void *ctx, struct json **t, char *bad,
	      size_t badlen, char *err, size_t errlen);
/* A task record in state (queued, running, succeeded, failed), audit_offset null; a failed
 * one says where its details are and whether the failure was transient. */
struct json *ag_task_record(struct arena *a, const struct task_info *ti, const char *state, bool failed, bool transient,
			 struct json *result);
/* Write the record of task ti->task_id: 0 or -1. */
int ag_task_write(const struct task_store *ts, const char *task_id, const struct json *t);
#endif
