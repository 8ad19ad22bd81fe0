/* tasks — the bridge's task store and audit log (see tasks.h). */
#include "agents/tasks.h"
#include "agents/jschema.h"
#include "agents/rpc.h"
#include "agents/workspace.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static bool hex32(const struct json *v)
{
	if (!v || v->kind != JSON_STRING || v->u.str.len != 32)
		return false;
	for (size_t i = 0; i < 32; i++)
		if (!strchr("0123456789abcdef", v->u.str.s[i]) || !v->u.str.s[i])
			return false;
	return true;
}

int ag_task_key_ok(const char *key)
{
	size_t n = strlen(key);
	if (n < 8 || n > 128)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = key[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alnum && (i == 0 || !strchr("._:/-", c)))
			return -1;
	}
	return 0;
}

static bool is_str(const struct json *v) { return v && v->kind == JSON_STRING; }

int ag_task_check(const struct json *t, const char *task_id, const char *operation, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"schema_version", "task_id", "operation", "idempotency_key", "profile", "arguments_fingerprint", "state",
		"transient_failure", "artifacts", "error", "result", "audit_offset",
	};
	char e[256];
	if (!t || t->kind != JSON_OBJECT) {
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	if (nd_check_keys(t, ND_KEYS(keys), e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_get(t, keys[i])) {
			snprintf(err, errlen, "missing key '%s'", keys[i]);
			return -1;
		}
	const struct json *schema = json_get(t, "schema_version"), *id = json_get(t, "task_id"), *op = json_get(t, "operation"),
			  *key = json_get(t, "idempotency_key"), *profile = json_get(t, "profile"), *state = json_get(t, "state"),
			  *transient = json_get(t, "transient_failure"), *arts = json_get(t, "artifacts"), *error = json_get(t, "error"),
			  *result = json_get(t, "result"), *off = json_get(t, "audit_offset");
	if (!is_str(schema) || !nd_schema_is(schema->u.str.s, TASK_SCHEMA)) {
		snprintf(err, errlen, "'schema_version' is not \"%s\"", TASK_SCHEMA);
		return -1;
	}
	if (!is_str(id) || strcmp(id->u.str.s, task_id)) {
		snprintf(err, errlen, "'task_id' is not the task's own id");
		return -1;
	}
	if (!is_str(op) || strcmp(op->u.str.s, operation)) {
		snprintf(err, errlen, "'operation' is not '%s'", operation);
		return -1;
	}
	if (key->kind != JSON_NULL && (!is_str(key) || ag_task_key_ok(key->u.str.s))) {
		snprintf(err, errlen, "'idempotency_key' is neither null nor a key");
		return -1;
	}
	if (!is_str(profile) || !ag_ws_id_ok(profile->u.str.s)) {
		snprintf(err, errlen, "'profile' is not a profile id");
		return -1;
	}
	if (!hex32(json_get(t, "arguments_fingerprint"))) {
		snprintf(err, errlen, "'arguments_fingerprint' is not 32 hex digits");
		return -1;
	}
	static const char *const states[] = { "queued", "running", "succeeded", "failed", NULL };
	const char *const *s = states;
	while (*s && (!is_str(state) || strcmp(*s, state->u.str.s)))
		s++;
	if (!*s) {
		snprintf(err, errlen, "'state' is not one of queued, running, succeeded, failed");
		return -1;
	}
	bool done = s - states >= 2, succeeded = s - states == 2;
	if (transient->kind != JSON_TRUE && transient->kind != JSON_FALSE) {
		snprintf(err, errlen, "'transient_failure' is not a boolean");
		return -1;
	}
	if (arts->kind != JSON_ARRAY) {
		snprintf(err, errlen, "'artifacts' is not an array");
		return -1;
	}
	for (size_t i = 0; i < arts->u.arr.n; i++) {
		static const char *const akeys[] = { "ref", "schema", "fingerprint" };
		const struct json *a = arts->u.arr.items[i], *ref = json_get(a, "ref"), *sch = json_get(a, "schema");
		if (!a || a->kind != JSON_OBJECT || a->u.obj.n != 3 || nd_check_keys(a, ND_KEYS(akeys), e, sizeof e) || !is_str(ref) ||
		    !ag_ws_ref_ok(ref->u.str.s) || !is_str(sch) || !hex32(json_get(a, "fingerprint"))) {
			snprintf(err, errlen, "'artifacts[%zu]' is not {ref, schema, fingerprint}", i);
			return -1;
		}
	}
	if (error->kind != JSON_NULL && !is_str(error)) {
		snprintf(err, errlen, "'error' is neither null nor a string");
		return -1;
	}
	if (succeeded ? result->kind != JSON_OBJECT : result->kind != JSON_NULL) {
		snprintf(err, errlen, succeeded ? "'result' of a succeeded task is not an object (it is %s)" :
			 "'result' of a task that did not succeed is not null (it is %s)", json_kind_name(result->kind));
		return -1;
	}
	if (done ? off->kind != JSON_INT || off->u.i < 0 : off->kind != JSON_NULL) {
		snprintf(err, errlen, done ? "'audit_offset' of a finished task is not an offset" : "'audit_offset' of an unfinished task is not null");
		return -1;
	}
	return 0;
}

void ag_task_fingerprint(struct arena *a, const struct json *t, char out[FP_HEX_XXH3])
{
	struct json *copy = json_object(a);
	for (size_t i = 0; i < t->u.obj.n; i++)
		if (strcmp(t->u.obj.keys[i], "audit_offset"))
			json_set(a, copy, t->u.obj.keys[i], t->u.obj.vals[i]);
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, copy);
	fp_xxh3_of(sb.buf ? sb.buf : "", sb.len, out);
	sb_release(&sb);
}

/* ---------------------------------------------------------------- the audit log */

static const char *const audit_keys[] = {
	"type", "profile", "operation", "task_id", "arguments_fingerprint", "arguments", "result_fingerprints",
	"task_fingerprint", "duration_ms", "outcome", "previous_fingerprint", "call_fingerprint", NULL,
};
/* lines written before tasks were bound to the log have no task_fingerprint */
static const char *const audit_optional[] = { "task_fingerprint", NULL };
static const struct chainlog_spec audit_log = {
	.type = "bridge_call", .keys = audit_keys, .fp_key = "call_fingerprint", .prev_key = "previous_fingerprint",
	.retry = "schednav-mcp", .optional = audit_optional,
};

/* Lock the log and verify what other servers appended since this one last looked: the cost is
 * the new lines, not the whole log (the whole log is verified once, when the server starts). */
static int audit_lock(struct task_store *ts, char *err, size_t errlen)
{
	char e[1024];
	if (flock(ts->audit_fd, LOCK_EX)) {
		snprintf(err, errlen, "audit log: %s", strerror(errno));
		return -1;
	}
	struct chainlog_cut cut = { 0 };
	int rc = ts->appending ? ev_chainlog_follow_append(ts->audit_fd, ts->audit_path, &audit_log, &ts->audit_pos, &cut, e, sizeof e)
			       : ev_chainlog_follow(ts->audit_fd, ts->audit_path, &audit_log, &ts->audit_pos, e, sizeof e);
	if (cut.bytes)
		ts->audit_cut = cut;
	if (rc) {
		snprintf(err, errlen, "audit log: %s", e);
		return -1;
	}
	return 0;
}

int ag_task_store_open(struct task_store *ts, const char *root, bool create, char *err, size_t errlen)
{
	memset(&ts->audit_pos, 0, sizeof ts->audit_pos);
	memset(&ts->audit_cut, 0, sizeof ts->audit_cut);
	ts->audit_fd = -1;
	ts->appending = create;
	snprintf(ts->dir, sizeof ts->dir, "%s/" TASK_STATE_DIR, root);
	if (create) {
		char tasks[PATH_MAX + 8];
		if (mkdir(ts->dir, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", ts->dir, strerror(errno));
			return -1;
		}
		snprintf(tasks, sizeof tasks, "%s/tasks", ts->dir);
		if (mkdir(tasks, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", tasks, strerror(errno));
			return -1;
		}
	}
	char last[FP_HEX_XXH3];
	unsigned long count;
	snprintf(ts->audit_path, sizeof ts->audit_path, "%s/audit.ndjson", ts->dir);
	if (!create) {
		/* --verify-log: the whole log, every time */
		ts->audit_fd = ev_chainlog_open(ts->audit_path, &audit_log, false, false, last, &count, err, errlen);
		if (ts->audit_fd < 0)
			return -1;
		ts->audit_pos.count = count;   /* what the one-line confirmation reports */
		snprintf(ts->audit_pos.last_fp, sizeof ts->audit_pos.last_fp, "%s", last);
		return 0;
	}
	ts->audit_fd = open(ts->audit_path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (ts->audit_fd < 0) {
		snprintf(err, errlen, "%s: %s", ts->audit_path, strerror(errno));
		return -1;
	}
	/* verified in full once here; later calls verify only what was appended since (audit_lock) */
	if (audit_lock(ts, err, errlen))
		return -1;
	flock(ts->audit_fd, LOCK_UN);   /* held again only while a line is appended */
	return 0;
}

void ag_task_store_close(struct task_store *ts)
{
	if (ts->audit_fd >= 0)
		close(ts->audit_fd);
	ts->audit_fd = -1;
}

int ag_task_store_path(const struct task_store *ts, const char *name, char *out, size_t n)
{
	int w = snprintf(out, n, "%s/%s", ts->dir, name);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int ag_task_write_atomic(const char *path, const char *buf, size_t len)
{
	char err[PATH_MAX + 200];
	struct zio_writer *w = zw_open(path, false, err, sizeof err);
	if (!w)
		return -1;
	if (zw_write(w, buf, len, err, sizeof err)) {
		zw_abort(w);
		return -1;
	}
	return zw_commit(w, err, sizeof err);
}

int ag_task_audit_append(struct task_store *ts, struct arena *a, const struct task_call *call, unsigned long long *at, char *err,
		      size_t errlen)
{
	const char *op = call->operation;
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "bridge_call"));
	json_set(a, rec, "profile", json_str(a, call->profile));
	/* an unknown tool's name is the agent's text: the log keeps at most TASK_MAX_LOGGED_NAME bytes */
	json_set(a, rec, "operation", op ? json_strn(a, op, (size_t)ag_utf8_clip(op, TASK_MAX_LOGGED_NAME)) : json_null(a));
	json_set(a, rec, "task_id", call->task_id && *call->task_id ? json_str(a, call->task_id) : json_null(a));
	json_set(a, rec, "arguments_fingerprint", call->args_fp && *call->args_fp ? json_str(a, call->args_fp) : json_null(a));
	json_set(a, rec, "arguments", call->args ? call->args : json_null(a));
	struct json *fps = json_array(a);
	for (size_t i = 0; call->artifacts && i < call->artifacts->u.arr.n; i++)
		json_push(a, fps, json_get(call->artifacts->u.arr.items[i], "fingerprint"));
	json_set(a, rec, "result_fingerprints", fps);
	json_set(a, rec, "task_fingerprint", call->task_fp ? json_str(a, call->task_fp) : json_null(a));
	json_set(a, rec, "duration_ms", json_int(a, call->duration_ms));
	json_set(a, rec, "outcome", json_str(a, call->outcome));
	char e[1024], last[FP_HEX_XXH3];
	/* other servers (one per role) may share the workspace: lock, pick up their lines, append */
	if (audit_lock(ts, err, errlen))
		return -1;
	*at = ts->audit_pos.offset;
	unsigned long count = ts->audit_pos.count;
	snprintf(last, sizeof last, "%s", ts->audit_pos.last_fp);
	if (ev_chainlog_append(ts->audit_fd, ts->audit_path, &audit_log, a, rec, last, &count, e, sizeof e) ||
	    ev_chainlog_follow(ts->audit_fd, ts->audit_path, &audit_log, &ts->audit_pos, e, sizeof e)) {
		snprintf(err, errlen, "audit log: %s", e);
		return -1;
	}
	flock(ts->audit_fd, LOCK_UN);
	return 0;
}

/* ---------------------------------------------------------------- the task store */

/* A finished task is bound to the audit line that recorded it: that line is in the verified
 * log, verifies itself, and holds this task's id, outcome and fingerprint. 0, 1 with the
 * reason in bad, or -1 with err (the log cannot be verified). */
static int task_bound(struct task_store *ts, struct arena *a, const struct json *t, char *bad, size_t badlen, char *err,
		      size_t errlen)
{
	unsigned long long off = (unsigned long long)json_get(t, "audit_offset")->u.i;
	const char *state = json_get_str(t, "state");
	char tfp[FP_HEX_XXH3];
	ag_task_fingerprint(a, t, tfp);
	if (audit_lock(ts, err, errlen))
		return -1;
	/* read from the byte before the line: it must be the newline that ends the line before */
	bool inside = off < ts->audit_pos.offset;
	unsigned long long from = off ? off - 1 : 0;
	size_t cap = inside ? (size_t)(ts->audit_pos.offset - from) : 0;
	if (cap > 4 * RPC_MAX_BODY)
		cap = 4 * RPC_MAX_BODY;   /* a line holds at most one request's arguments */
	char *buf = arena_alloc(a, cap + 1);
	ssize_t n = inside ? pread(ts->audit_fd, buf, cap, (off_t)from) : -1;
	flock(ts->audit_fd, LOCK_UN);
	size_t skip = off ? 1 : 0;
	char *nl = n > (ssize_t)skip && (!off || buf[0] == '\n') ? memchr(buf + skip, '\n', (size_t)n - skip) : NULL;
	struct json *line = NULL;
	char e[300];
	if (!nl || json_parse(a, buf + skip, (size_t)(nl - buf - skip), &line, e, sizeof e) || line->kind != JSON_OBJECT) {
		snprintf(bad, badlen, "its audit_offset names no line of the audit log");
		return 1;
	}
	const char *type = json_get_str(line, "type"), *id = json_get_str(line, "task_id"), *lfp = json_get_str(line, "task_fingerprint"),
		   *outcome = json_get_str(line, "outcome");
	if (!type || strcmp(type, "bridge_call") || !ev_self_fp_ok(line, "call_fingerprint") || !id ||
	    strcmp(id, json_get_str(t, "task_id")) || !outcome || strcmp(outcome, state)) {
		snprintf(bad, badlen, "the audit line at its audit_offset does not record it");
		return 1;
	}
	if (!lfp || strcmp(lfp, tfp)) {
		snprintf(bad, badlen, "it is not the task the audit log recorded (task_fingerprint differs: the task store was edited)");
		return 1;
	}
	return 0;
}

/* The stored task's JSON, or NULL with json_parse's message in err ("" when it cannot be read). */
static struct json *load_json_file(struct arena *a, const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	err[0] = 0;
	if (zio_slurp(path, &buf, &len, err, errlen)) {
		err[0] = 0;
		return NULL;
	}
	struct json *v;
	char e[256];   /* json_parse's message, as long as the bridge has always kept it */
	int rc = json_parse(a, buf, len, &v, e, sizeof e);
	free(buf);
	if (rc)
		snprintf(err, errlen, "%s", e);
	return rc ? NULL : v;
}

int ag_task_load(struct task_store *ts, struct arena *a, const char *task_id, task_op_fn op, void *ctx, struct json **out, char *bad,
	      size_t badlen, char *err, size_t errlen)
{
	char rel[64], path[PATH_MAX], e[600];
	bad[0] = 0;
	*out = NULL;
	snprintf(rel, sizeof rel, "tasks/%s.json", task_id);
	if (ag_task_store_path(ts, rel, path, sizeof path)) {
		snprintf(err, errlen, "path of '%s' is too long", rel);
		return -1;
	}
	struct stat st;
	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > 16 * 1024 * 1024) {
		snprintf(bad, badlen, "it is not a regular file of at most 16 MiB");
		return 0;
	}
	struct json *t = load_json_file(a, path, e, sizeof e);
	const char *opname = t ? json_get_str(t, "operation") : NULL;
	const struct json *result_schema = NULL;
	bool tasked = opname && op(opname, &result_schema, ctx);
	if (!t) {
		char *m = strstr(e, "invalid JSON");
		snprintf(bad, badlen, "%s", m ? m : "it cannot be read");
		return 0;
	}
	if (!tasked) {
		snprintf(bad, badlen, "'operation' is not a task operation");
		return 0;
	}
	if (ag_task_check(t, task_id, opname, e, sizeof e)) {
		snprintf(bad, badlen, "%s", e);
		return 0;
	}
	const char *state = json_get_str(t, "state");
	if (!strcmp(state, "succeeded") && ag_jschema_validate(result_schema, json_get(t, "result"), "result", e, sizeof e)) {
		snprintf(bad, badlen, "%s", e);
		return 0;
	}
	if (!strcmp(state, "succeeded") || !strcmp(state, "failed")) {
		int b = task_bound(ts, a, t, bad, badlen, err, errlen);
		if (b)
			return b < 0 ? -1 : 0;
	}
	*out = t;
	return 0;
}

struct json *ag_task_record(struct arena *a, const struct task_info *ti, const char *state, bool failed, bool transient,
			 struct json *result)
{
	struct json *t = json_object(a);
	json_set(a, t, "schema_version", json_str(a, TASK_SCHEMA));
	json_set(a, t, "task_id", json_str(a, ti->task_id));
	json_set(a, t, "operation", json_str(a, ti->operation));
	json_set(a, t, "idempotency_key", ti->key ? ti->key : json_null(a));
	json_set(a, t, "profile", json_str(a, ti->profile));
	json_set(a, t, "arguments_fingerprint", json_str(a, ti->args_fp));
	json_set(a, t, "state", json_str(a, state));
	json_set(a, t, "transient_failure", json_bool(a, failed && transient));
	json_set(a, t, "artifacts", ti->artifacts);
	json_set(a, t, "error", failed ? json_str(a, "operation failed; the details are in the bridge's local task store") : json_null(a));
	json_set(a, t, "result", result ? result : json_null(a));
	json_set(a, t, "audit_offset", json_null(a));
	return t;
}

int ag_task_write(const struct task_store *ts, const char *task_id, const struct json *t)
{
	struct strbuf sb;
	sb_init(&sb);
	json_write(&sb, t);
	sb_addc(&sb, '\n');
	char rel[64], path[PATH_MAX];
	snprintf(rel, sizeof rel, "tasks/%s.json", task_id);
	int rc = ag_task_store_path(ts, rel, path, sizeof path) ? -1 : ag_task_write_atomic(path, sb.buf, sb.len);
	sb_release(&sb);
	return rc;
}
