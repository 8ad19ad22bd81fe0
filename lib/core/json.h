/*
 * json — a small JSON value tree, parsed with yajl and written canonically.
 * Every value lives in the arena passed to the parser or builder; nothing is freed
 * individually. Objects keep their keys in insertion order and never hold a key twice.
 * Numbers keep their lexical kind: JSON_INT (no '.', 'e') or JSON_REAL (a double).
 * The parser accepts only valid UTF-8 (yajl checks it) and refuses a NUL character in a
 * string or key ("\u0000"), so every string is also a C string, and a \u escape of a UTF-16
 * surrogate that is not part of a high-low pair (which yajl would turn into '?' or into some
 * other character).
 */
#ifndef SCHEDNAV_JSON_H
#define SCHEDNAV_JSON_H
#include "core/arena.h"
#include "core/strbuf.h"
#include <stdbool.h>
#include <stddef.h>

enum json_kind { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_INT, JSON_REAL, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_kind kind;
	union {
		long long i;
		double d;
		struct { char *s; size_t len; } str;
		struct { struct json **items; size_t n, cap; } arr;
		struct { char **keys; struct json **vals; size_t n, cap; } obj;
	} u;
};

/* Parse exactly one JSON value from buf[0..len). 0 on success; else -1 and a message in err. */
int json_parse(struct arena *a, const char *buf, size_t len, struct json **out, char *err, size_t errlen);
/* Check the JSON text buf[0..len) for unpaired surrogate escapes in its strings and keys: a low
 * one (\uDC00-\uDFFF) not after a high one, a high one (\uD800-\uDBFF) not followed by a
 * low one. 0 when there is none; else -1 and a message in err. json_parse applies it. */
int json_surrogates_check(const char *buf, size_t len, char *err, size_t errlen);
/* Read a whole file (zstd accepted) and parse it; errors "PATH: message" (or zio's message). */
int json_parse_file(struct arena *a, const char *path, struct json **out, char *err, size_t errlen);

/* Builders (arena-owned; abort through xalloc-like failure on OOM). */
struct json *json_null(struct arena *a);
struct json *json_bool(struct arena *a, bool b);
struct json *json_int(struct arena *a, long long i);
struct json *json_real(struct arena *a, double d);
struct json *json_str(struct arena *a, const char *s);
struct json *json_strn(struct arena *a, const char *s, size_t n);
struct json *json_array(struct arena *a);
struct json *json_object(struct arena *a);
void json_push(struct arena *a, struct json *arr, struct json *v);
void json_set(struct arena *a, struct json *obj, const char *key, struct json *v); /* replace or append */
/* Append a key the caller knows obj does not hold yet (unique by construction): O(1), no scan. */
void json_add(struct arena *a, struct json *obj, const char *key, struct json *v);
struct json *json_clone(struct arena *a, const struct json *v);

/* Access. json_get returns NULL when obj is not an object or has no such key. */
struct json *json_get(const struct json *obj, const char *key);
bool json_is_num(const struct json *v);
double json_num(const struct json *v);                 /* INT or REAL as double */
const char *json_kind_name(enum json_kind k);
bool json_equal(const struct json *a, const struct json *b); /* Python ==: 1 == 1.0, key order ignored */
bool json_identical(const struct json *a, const struct json *b); /* canonical bytes equal (kinds matter) */

/* Members of one kind: a string member or NULL; a number member as double (false if absent,
 * null or not a number). */
const char *json_get_str(const struct json *obj, const char *key);
bool json_get_num(const struct json *obj, const char *key, double *out);
/* Whether obj has key as: a finite number or null / an integer >= 0 / a boolean / an object. */
bool json_has_num_or_null(const struct json *obj, const char *key);
bool json_has_count(const struct json *obj, const char *key);
bool json_has_bool(const struct json *obj, const char *key);
bool json_has_object(const struct json *obj, const char *key);
/* A real when ok, else null (a figure that does not exist, such as the mean of nothing). */
struct json *json_real_or_null(struct arena *a, bool ok, double v);

/* Whether buf[0..len) is one JSON value that json_parse accepts as is, for a strict subset of
 * JSON (json_skim.c); false declines the rest, which the caller then parses. */
bool json_skim(const char *buf, size_t len);

/* Canonical writers: no whitespace; doubles as Python repr; ints as ints. */
void json_write(struct strbuf *sb, const struct json *v);        /* keys in stored order */
/* An object of n <= 16 fields, keys[i] with value v[i] (nodes the caller owns, on its stack or
 * anywhere), written as json_write would; nothing is allocated. */
void json_write_fields(struct strbuf *sb, const char *const *keys, const struct json *v, size_t n);
void json_write_sorted(struct strbuf *sb, const struct json *v); /* keys sorted bytewise (CJSHA form) */
void json_write_pretty_sorted(struct strbuf *sb, const struct json *v); /* indent 2, sorted, Python json.dumps style */
#endif
