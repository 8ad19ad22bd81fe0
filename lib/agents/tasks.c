/* tasks — stored task records of the bridge (see tasks.h). */
#include "agents/tasks.h"
#include "agents/workspace.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool hex32(const struct json *v)
{
	if (!v || v->kind != JSON_STRING || v->u.str.len != 32)
		return false;
	for (size_t i = 0; i < 32; i++)
		if (!strchr("0123456789abcdef", v->u.str.s[i]) || !v->u.str.s[i])
			return false;
	return true;
}

int task_key_ok(const char *key)
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

int task_check(const struct json *t, const char *task_id, const char *operation, char *err, size_t errlen)
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
	if (!is_str(schema) || strcmp(schema->u.str.s, TASK_SCHEMA)) {
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
	if (key->kind != JSON_NULL && (!is_str(key) || task_key_ok(key->u.str.s))) {
		snprintf(err, errlen, "'idempotency_key' is neither null nor a key");
		return -1;
	}
	if (!is_str(profile) || !ws_id_ok(profile->u.str.s)) {
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
		    !ws_ref_ok(ref->u.str.s) || !is_str(sch) || !hex32(json_get(a, "fingerprint"))) {
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

void task_fingerprint(struct arena *a, const struct json *t, char out[33])
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
