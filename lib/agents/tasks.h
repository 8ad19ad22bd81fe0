/*
 * tasks — the bridge's task store records (WORKSPACE/.schednav-mcp/tasks/TASK.json,
 * schednav.bridge-task/v2). A stored task is input like any other: before it is replayed it
 * must pass task_check (the exact key set, every value's kind and range, its own id and
 * operation), and a finished task (succeeded or failed) must be bound to the audit log: its
 * audit_offset names the log line that recorded it, and that line's task_fingerprint must be
 * task_fingerprint of the stored record. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_AGENTS_TASKS_H
#define SCHEDNAV_AGENTS_TASKS_H
#include "core/arena.h"
#include "core/json.h"
#include <stddef.h>

#define TASK_SCHEMA "schednav.bridge-task/v2"
/* The idempotency key rule of every task operation (also its JSON Schema pattern). */
#define TASK_KEY_PATTERN "^[A-Za-z0-9][A-Za-z0-9._:/-]{7,127}$"

/* 0 when t is a well-formed stored task of this task_id and operation; else -1 + message.
 * A succeeded task's result is an object here; its operation's output schema is the
 * caller's to check. */
int task_check(const struct json *t, const char *task_id, const char *operation, char *err, size_t errlen);
/* XXH3-128 of t's canonical form (keys sorted) without audit_offset: what the audit line holds. */
void task_fingerprint(struct arena *a, const struct json *t, char out[33]);
/* 0 when key follows TASK_KEY_PATTERN. */
int task_key_ok(const char *key);
#endif
