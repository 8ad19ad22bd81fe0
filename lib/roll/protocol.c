#include "roll/protocol.h"
#include "core/fp.h"
#include "eval/evidence.h"
#include <stdio.h>
#include <string.h>

/* Length of the UTF-8 sequence at s (n bytes left), or 0 when it is invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp_out)
{
	unsigned c = s[0];
	size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
	if (!len || len > n || (len == 2 && c < 0xC2) || c > 0xF4)
		return 0;
	unsigned cp = len == 1 ? c : c & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	*cp_out = cp;
	return len;
}

bool roll_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i, &cp);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

const char *roll_utf8_excerpt(struct arena *a, const char *s, size_t n, size_t max)
{
	char *out = arena_alloc(a, max * 3 + 4), *o = out;
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	unsigned cp;
	for (size_t i = 0; i < n && used < max;) {
		size_t k = utf8_seq(p + i, n - i, &cp);
		if (!k) {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(o, p + i, k);
			o += k;
			i += k;
		}
		used++;
	}
	*o = '\0';
	return out;
}

void roll_request_stamp(struct arena *a, struct json *req)
{
	char fp[FP_HEX_XXH3];
	/* Hash a digest view: the self-fingerprinted observation and candidates stand in for
	 * themselves by their fingerprints (they are the bulk of the request). */
	struct json *view = json_object(a);
	for (size_t i = 0; i < req->u.obj.n; i++) {
		const char *k = req->u.obj.keys[i];
		struct json *v = req->u.obj.vals[i];
		if (!strcmp(k, "observation") && json_get_str(v, "observation_fingerprint"))
			v = json_str(a, json_get_str(v, "observation_fingerprint"));
		else if (!strcmp(k, "candidates") && v->kind == JSON_ARRAY) {
			struct json *fps = json_array(a);
			for (size_t c = 0; c < v->u.arr.n; c++) {
				const char *e = json_get_str(v->u.arr.items[c], "evidence_fingerprint");
				json_push(a, fps, e ? json_str(a, e) : v->u.arr.items[c]);
			}
			v = fps;
		}
		json_set(a, view, k, v);
	}
	ev_self_fp(view, "request_fingerprint", fp);
	/* request_id is a copy of the fingerprint, placed first after type and protocol, and
	 * excluded from the hash (ev_self_fp above ran before it existed). */
	struct json *body = json_object(a);
	for (size_t i = 0; i < req->u.obj.n; i++) {
		json_set(a, body, req->u.obj.keys[i], req->u.obj.vals[i]);
		if (!strcmp(req->u.obj.keys[i], "protocol"))
			json_set(a, body, "request_id", json_str(a, fp));
	}
	json_set(a, body, "request_fingerprint", json_str(a, fp));
	*req = *body;
}

static void raw_facts(struct arena *a, struct roll_reply *r, const char *line, size_t len)
{
	r->has_raw = true;
	r->raw_bytes = len;
	fp_xxh3_of(line, len, r->raw_fp);
	r->raw_excerpt = roll_utf8_excerpt(a, line, len, ROLL_EXCERPT_MAX);
}

void roll_reply_reject(struct roll_reply *r, const char *reason, const char *detail)
{
	r->accepted = false;
	r->reject_reason = reason;
	r->detail = detail;
	r->action_id = r->reason_code = NULL;
}

static bool reason_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;
	unsigned cp;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; chars++) {
		size_t k = utf8_seq(p + i, n - i, &cp);
		if (!k || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029)
			return false;
		i += k;
	}
	return chars <= ROLL_REASON_MAX;
}

static bool count_ok(const struct json *o, const char *key, long long *out)
{
	struct json *v = json_get(o, key);
	if (!v)
		return true;
	if (v->kind != JSON_INT || v->u.i < 0 || v->u.i > ROLL_USAGE_MAX)
		return false;
	*out = v->u.i;
	return true;
}

const char *roll_reply_request_id(struct arena *a, const char *line, size_t len)
{
	struct json *v;
	char e[64];
	if (!roll_utf8_valid(line, len) || json_parse(a, line, len, &v, e, sizeof e) || v->kind != JSON_OBJECT)
		return NULL;
	return json_get_str(v, "request_id");
}

void roll_reply_parse(struct arena *a, const char *line, size_t len, const char *request_id, const char *const *candidates,
		      size_t n, struct roll_reply *r)
{
	static const char *const keys[] = { "type", "request_id", "action_id", "reason_code", "llm_call_count", "prompt_tokens",
		"completion_tokens", NULL };
	memset(r, 0, sizeof *r);
	raw_facts(a, r, line, len);
	if (len > ROLL_REPLY_MAX)
		return roll_reply_reject(r, ROLL_REJECT_TOO_LONG, "the reply line is longer than 65536 bytes");
	if (!roll_utf8_valid(line, len))
		return roll_reply_reject(r, ROLL_REJECT_UTF8, "the reply is not valid UTF-8");
	struct json *v;
	char e[200];
	if (json_parse(a, line, len, &v, e, sizeof e))
		return roll_reply_reject(r, ROLL_REJECT_JSON, arena_strndup(a, e, strlen(e)));
	const char *type = json_get_str(v, "type");
	if (v->kind != JSON_OBJECT || !type || strcmp(type, "decision"))
		return roll_reply_reject(r, ROLL_REJECT_TYPE, "the reply is not a JSON object of type 'decision'");
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const char *const *k = keys;
		while (*k && strcmp(*k, v->u.obj.keys[i]))
			k++;
		if (!*k)
			return roll_reply_reject(r, ROLL_REJECT_KEY, "the reply has an unknown key");
	}
	const char *rid = json_get_str(v, "request_id"), *act = json_get_str(v, "action_id");
	struct json *reason = json_get(v, "reason_code");
	if (!rid || !act || !reason || reason->kind != JSON_STRING)
		return roll_reply_reject(r, ROLL_REJECT_KEY, "the reply needs string request_id, action_id and reason_code");
	if (strcmp(rid, request_id))
		return roll_reply_reject(r, ROLL_REJECT_REQUEST, "the reply names another request");
	if (!reason_ok(reason->u.str.s, reason->u.str.len))
		return roll_reply_reject(r, ROLL_REJECT_REASON, "reason_code must be 1 to 256 characters on one line without control characters");
	if (!count_ok(v, "llm_call_count", &r->llm_calls) || !count_ok(v, "prompt_tokens", &r->prompt_tokens) ||
	    !count_ok(v, "completion_tokens", &r->completion_tokens))
		return roll_reply_reject(r, ROLL_REJECT_USAGE, "usage counts must be integers in 0..1000000000000");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(candidates[i], act)) {
			r->accepted = true;
			r->action_id = candidates[i];
			r->reason_code = reason->u.str.s;
			return;
		}
	r->llm_calls = r->prompt_tokens = r->completion_tokens = 0;
	roll_reply_reject(r, ROLL_REJECT_ACTION, "action_id is not one of the request's candidates");
}

struct json *roll_reply_json(struct arena *a, const struct roll_reply *r)
{
	struct json *o = json_object(a);
	json_set(a, o, "status", json_str(a, r->accepted ? "accepted" : "rejected"));
	json_set(a, o, "rejection_reason", r->reject_reason ? json_str(a, r->reject_reason) : json_null(a));
	json_set(a, o, "rejection_detail", r->detail ? json_str(a, r->detail) : json_null(a));
	json_set(a, o, "action_id", r->action_id ? json_str(a, r->action_id) : json_null(a));
	json_set(a, o, "reason_code", r->reason_code ? json_str(a, r->reason_code) : json_null(a));
	json_set(a, o, "llm_call_count", json_int(a, r->llm_calls));
	json_set(a, o, "prompt_tokens", json_int(a, r->prompt_tokens));
	json_set(a, o, "completion_tokens", json_int(a, r->completion_tokens));
	json_set(a, o, "reply_bytes", r->has_raw ? json_int(a, (long long)r->raw_bytes) : json_null(a));
	json_set(a, o, "reply_fingerprint", r->has_raw ? json_str(a, r->raw_fp) : json_null(a));
	json_set(a, o, "reply_excerpt", r->has_raw ? json_str(a, r->raw_excerpt) : json_null(a));
	return o;
}
