/* jschema — a small, strict JSON Schema subset validator (see jschema.h). */
#include "agents/jschema.h"
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const known_keywords[] = {
	"type", "const", "enum", "properties", "required", "additionalProperties", "pattern", "minLength", "maxLength",
	"minimum", "maximum", "items", "minItems", "maxItems", "uniqueItems", "oneOf", "description", "title", "default",
	NULL,
};

static bool is_integral(const struct json *v)
{
	return v->kind == JSON_INT || (v->kind == JSON_REAL && isfinite(v->u.d) && v->u.d == floor(v->u.d));
}

static bool type_is(const char *t, const struct json *v)
{
	if (!strcmp(t, "null")) return v->kind == JSON_NULL;
	if (!strcmp(t, "boolean")) return v->kind == JSON_TRUE || v->kind == JSON_FALSE;
	if (!strcmp(t, "integer")) return is_integral(v);
	if (!strcmp(t, "number")) return v->kind == JSON_INT || v->kind == JSON_REAL;
	if (!strcmp(t, "string")) return v->kind == JSON_STRING;
	if (!strcmp(t, "array")) return v->kind == JSON_ARRAY;
	if (!strcmp(t, "object")) return v->kind == JSON_OBJECT;
	return false;
}

/* Number of UTF-8 code points (the input is valid UTF-8: yajl checks it). */
static size_t utf8_length(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80;
	return k;
}

int ag_utf8_clip(const char *s, int max)
{
	int n = 0;
	while (n < max && s[n])
		n++;
	if (n < max || !s[n])
		return n;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)   /* s[n] continues a character: back off */
		n--;
	return n;
}

static bool pattern_matches(const char *pattern, const char *s, bool *bad)
{
	regex_t re;
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB)) {
		*bad = true;
		return false;
	}
	bool ok = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

int ag_jschema_check(const struct json *schema, char *err, size_t errlen)
{
	if (schema->kind != JSON_OBJECT) {
		snprintf(err, errlen, "a schema must be an object");
		return -1;
	}
	for (size_t i = 0; i < schema->u.obj.n; i++) {
		const char *k = schema->u.obj.keys[i];
		const struct json *v = schema->u.obj.vals[i];
		bool known = false;
		for (const char *const *p = known_keywords; *p; p++)
			known = known || !strcmp(*p, k);
		if (!known) {
			snprintf(err, errlen, "unsupported schema keyword '%s'", k);
			return -1;
		}
		if (!strcmp(k, "pattern")) {
			regex_t re;
			if (v->kind != JSON_STRING || regcomp(&re, v->u.str.s, REG_EXTENDED | REG_NOSUB)) {
				snprintf(err, errlen, "bad pattern");
				return -1;
			}
			regfree(&re);
		} else if (!strcmp(k, "properties")) {
			for (size_t j = 0; j < v->u.obj.n; j++)
				if (ag_jschema_check(v->u.obj.vals[j], err, errlen))
					return -1;
		} else if (!strcmp(k, "items") && ag_jschema_check(v, err, errlen))
			return -1;
		else if (!strcmp(k, "oneOf"))
			for (size_t j = 0; j < v->u.arr.n; j++)
				if (ag_jschema_check(v->u.arr.items[j], err, errlen))
					return -1;
	}
	return 0;
}

static int fail(char *err, size_t errlen, const char *path, const char *msg)
{
	snprintf(err, errlen, "%s: %s", path, msg);
	return -1;
}

int ag_jschema_validate(const struct json *s, const struct json *v, const char *path, char *err, size_t errlen)
{
	char msg[256];
	const struct json *k;
	if ((k = json_get(s, "type"))) {
		bool ok = false;
		if (k->kind == JSON_STRING)
			ok = type_is(k->u.str.s, v);
		else
			for (size_t i = 0; i < k->u.arr.n && !ok; i++)
				ok = type_is(k->u.arr.items[i]->u.str.s, v);
		if (!ok) {
			snprintf(msg, sizeof msg, "expected %s, got %s", k->kind == JSON_STRING ? k->u.str.s : "another type",
				 json_kind_name(v->kind));
			return fail(err, errlen, path, msg);
		}
	}
	if ((k = json_get(s, "const")) && !json_equal(k, v))
		return fail(err, errlen, path, "not the allowed value");
	if ((k = json_get(s, "enum"))) {
		bool ok = false;
		for (size_t i = 0; i < k->u.arr.n && !ok; i++)
			ok = json_equal(k->u.arr.items[i], v);
		if (!ok)
			return fail(err, errlen, path, "not one of the allowed values");
	}
	if (v->kind == JSON_STRING) {
		size_t n = utf8_length(v->u.str.s, v->u.str.len);
		if ((k = json_get(s, "minLength")) && (double)n < json_num(k))
			return fail(err, errlen, path, "too short");
		if ((k = json_get(s, "maxLength")) && (double)n > json_num(k))
			return fail(err, errlen, path, "too long");
		if ((k = json_get(s, "pattern"))) {
			bool bad = false;
			/* a NUL inside the string would hide its tail from regexec */
			if (strlen(v->u.str.s) != v->u.str.len || !pattern_matches(k->u.str.s, v->u.str.s, &bad)) {
				snprintf(msg, sizeof msg, "does not match %s", k->u.str.s);
				return fail(err, errlen, path, bad ? "bad pattern in schema" : msg);
			}
		}
	}
	if (v->kind == JSON_INT || v->kind == JSON_REAL) {
		double x = json_num(v);
		if ((k = json_get(s, "minimum")) && x < json_num(k)) {
			snprintf(msg, sizeof msg, "must be >= %.17g", json_num(k));
			return fail(err, errlen, path, msg);
		}
		if ((k = json_get(s, "maximum")) && x > json_num(k)) {
			snprintf(msg, sizeof msg, "must be <= %.17g", json_num(k));
			return fail(err, errlen, path, msg);
		}
	}
	if (v->kind == JSON_ARRAY) {
		size_t n = v->u.arr.n;
		if ((k = json_get(s, "minItems")) && (double)n < json_num(k)) {
			snprintf(msg, sizeof msg, "needs at least %.0f items", json_num(k));
			return fail(err, errlen, path, msg);
		}
		if ((k = json_get(s, "maxItems")) && (double)n > json_num(k)) {
			snprintf(msg, sizeof msg, "takes at most %.0f items", json_num(k));
			return fail(err, errlen, path, msg);
		}
		if ((k = json_get(s, "uniqueItems")) && k->kind == JSON_TRUE)
			for (size_t i = 0; i < n; i++)
				for (size_t j = i + 1; j < n; j++)
					if (json_equal(v->u.arr.items[i], v->u.arr.items[j]))
						return fail(err, errlen, path, "items must be unique");
		if ((k = json_get(s, "items")))
			for (size_t i = 0; i < n; i++) {
				char sub[512];
				snprintf(sub, sizeof sub, "%s[%zu]", path, i);
				if (ag_jschema_validate(k, v->u.arr.items[i], sub, err, errlen))
					return -1;
			}
	}
	if (v->kind == JSON_OBJECT) {
		const struct json *props = json_get(s, "properties");
		if ((k = json_get(s, "required")))
			for (size_t i = 0; i < k->u.arr.n; i++)
				if (!json_get(v, k->u.arr.items[i]->u.str.s)) {
					snprintf(msg, sizeof msg, "missing '%s'", k->u.arr.items[i]->u.str.s);
					return fail(err, errlen, path, msg);
				}
		bool closed = (k = json_get(s, "additionalProperties")) && k->kind == JSON_FALSE;
		for (size_t i = 0; i < v->u.obj.n; i++) {
			const struct json *ps = props ? json_get(props, v->u.obj.keys[i]) : NULL;
			char sub[512];
			const char *key = v->u.obj.keys[i];
			snprintf(sub, sizeof sub, "%s.%.*s", path, ag_utf8_clip(key, 200), key);
			if (!ps && closed) {
				snprintf(msg, sizeof msg, "unknown key '%.*s'", ag_utf8_clip(key, 200), key);
				return fail(err, errlen, path, msg);
			}
			if (ps && ag_jschema_validate(ps, v->u.obj.vals[i], sub, err, errlen))
				return -1;
		}
	}
	if ((k = json_get(s, "oneOf"))) {
		size_t ok = 0;
		char tmp[256];
		for (size_t i = 0; i < k->u.arr.n; i++)
			ok += ag_jschema_validate(k->u.arr.items[i], v, path, tmp, sizeof tmp) == 0;
		if (ok != 1)
			return fail(err, errlen, path, ok ? "matches more than one of the alternatives (oneOf)" : "matches none of the alternatives (oneOf)");
	}
	return 0;
}
