#include "core/json.h"
#include "core/zio.h"
#include "core/xalloc.h"
#include "core/num.h"
#include "core/text.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define JSON_MAX_DEPTH 256

static void *aalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

static struct json *mk(struct arena *a, enum json_kind k)
{
	struct json *v = aalloc(a, sizeof *v);
	v->kind = k;
	return v;
}

struct json *json_null(struct arena *a) { return mk(a, JSON_NULL); }
struct json *json_bool(struct arena *a, bool b) { return mk(a, b ? JSON_TRUE : JSON_FALSE); }
struct json *json_int(struct arena *a, long long i) { struct json *v = mk(a, JSON_INT); v->u.i = i; return v; }
struct json *json_real(struct arena *a, double d) { struct json *v = mk(a, JSON_REAL); v->u.d = d; return v; }
struct json *json_array(struct arena *a) { return mk(a, JSON_ARRAY); }
struct json *json_object(struct arena *a) { return mk(a, JSON_OBJECT); }

struct json *json_strn(struct arena *a, const char *s, size_t n)
{
	struct json *v = mk(a, JSON_STRING);
	v->u.str.s = aalloc(a, n + 1);
	memcpy(v->u.str.s, s, n);
	v->u.str.len = n;
	return v;
}

struct json *json_str(struct arena *a, const char *s)
{
	return json_strn(a, s, strlen(s));
}

static void *agrow(struct arena *a, void *old, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return old;
	size_t c = *cap ? *cap * 2 : 4;
	void *p = aalloc(a, c * elem);
	if (old)
		memcpy(p, old, n * elem);
	*cap = c;
	return p;
}

void json_push(struct arena *a, struct json *arr, struct json *v)
{
	arr->u.arr.items = agrow(a, arr->u.arr.items, arr->u.arr.n, &arr->u.arr.cap, sizeof *arr->u.arr.items);
	arr->u.arr.items[arr->u.arr.n++] = v;
}

static void obj_append(struct arena *a, struct json *obj, char *key, struct json *v)
{
	size_t cap = obj->u.obj.cap;
	obj->u.obj.keys = agrow(a, obj->u.obj.keys, obj->u.obj.n, &cap, sizeof *obj->u.obj.keys);
	cap = obj->u.obj.cap;
	obj->u.obj.vals = agrow(a, obj->u.obj.vals, obj->u.obj.n, &cap, sizeof *obj->u.obj.vals);
	obj->u.obj.cap = cap;
	obj->u.obj.keys[obj->u.obj.n] = key;
	obj->u.obj.vals[obj->u.obj.n++] = v;
}

void json_set(struct arena *a, struct json *obj, const char *key, struct json *v)
{
	for (size_t i = 0; i < obj->u.obj.n; i++)
		if (!strcmp(obj->u.obj.keys[i], key)) {
			obj->u.obj.vals[i] = v;
			return;
		}
	json_add(a, obj, key, v);
}

void json_add(struct arena *a, struct json *obj, const char *key, struct json *v)
{
	size_t n = strlen(key);
	char *k = aalloc(a, n + 1);
	memcpy(k, key, n);
	obj_append(a, obj, k, v);
}

struct json *json_clone(struct arena *a, const struct json *v)
{
	struct json *c;
	switch (v->kind) {
	case JSON_STRING:
		return json_strn(a, v->u.str.s, v->u.str.len);
	case JSON_ARRAY:
		c = json_array(a);
		for (size_t i = 0; i < v->u.arr.n; i++)
			json_push(a, c, json_clone(a, v->u.arr.items[i]));
		return c;
	case JSON_OBJECT:
		c = json_object(a);
		for (size_t i = 0; i < v->u.obj.n; i++) {
			size_t n = strlen(v->u.obj.keys[i]);
			char *k = aalloc(a, n + 1);
			memcpy(k, v->u.obj.keys[i], n);
			obj_append(a, c, k, json_clone(a, v->u.obj.vals[i]));
		}
		return c;
	default:
		c = mk(a, v->kind);
		c->u = v->u;
		return c;
	}
}

struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->kind != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->u.obj.n; i++)
		if (!strcmp(obj->u.obj.keys[i], key))
			return obj->u.obj.vals[i];
	return NULL;
}

bool json_is_num(const struct json *v)
{
	return v && (v->kind == JSON_INT || v->kind == JSON_REAL);
}

double json_num(const struct json *v)
{
	return v->kind == JSON_INT ? (double)v->u.i : v->u.d;
}

const char *json_get_str(const struct json *obj, const char *key)
{
	struct json *v = json_get(obj, key);
	return v && v->kind == JSON_STRING ? v->u.str.s : NULL;
}

bool json_get_num(const struct json *obj, const char *key, double *out)
{
	struct json *v = json_get(obj, key);
	if (!v || !json_is_num(v))
		return false;
	*out = json_num(v);
	return true;
}

bool json_has_num_or_null(const struct json *obj, const char *key)
{
	const struct json *x = json_get(obj, key);
	return x && (x->kind == JSON_NULL || (json_is_num(x) && isfinite(json_num(x))));
}

bool json_has_count(const struct json *obj, const char *key)
{
	const struct json *x = json_get(obj, key);
	return x && x->kind == JSON_INT && x->u.i >= 0;
}

bool json_has_bool(const struct json *obj, const char *key)
{
	const struct json *x = json_get(obj, key);
	return x && (x->kind == JSON_TRUE || x->kind == JSON_FALSE);
}

bool json_has_object(const struct json *obj, const char *key)
{
	const struct json *x = json_get(obj, key);
	return x && x->kind == JSON_OBJECT;
}

struct json *json_real_or_null(struct arena *a, bool ok, double v)
{
	return ok ? json_real(a, v) : json_null(a);
}

const char *json_kind_name(enum json_kind k)
{
	static const char *names[] = { "null", "boolean", "boolean", "integer", "number", "string", "array", "object" };
	return names[k];
}

bool json_equal(const struct json *a, const struct json *b)
{
	if (json_is_num(a) && json_is_num(b)) {
		if (a->kind == JSON_INT && b->kind == JSON_INT)
			return a->u.i == b->u.i;
		return json_num(a) == json_num(b);
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case JSON_STRING:
		return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, a->u.str.len);
	case JSON_ARRAY:
		if (a->u.arr.n != b->u.arr.n)
			return false;
		for (size_t i = 0; i < a->u.arr.n; i++)
			if (!json_equal(a->u.arr.items[i], b->u.arr.items[i]))
				return false;
		return true;
	case JSON_OBJECT:
		if (a->u.obj.n != b->u.obj.n)
			return false;
		for (size_t i = 0; i < a->u.obj.n; i++) {
			struct json *o = json_get(b, a->u.obj.keys[i]);
			if (!o || !json_equal(a->u.obj.vals[i], o))
				return false;
		}
		return true;
	default:
		return true;
	}
}

bool json_identical(const struct json *a, const struct json *b)
{
	struct strbuf x, y;
	sb_init(&x);
	sb_init(&y);
	json_write_sorted(&x, a);
	json_write_sorted(&y, b);
	bool eq = x.len == y.len && !memcmp(x.buf, y.buf, x.len);
	sb_release(&x);
	sb_release(&y);
	return eq;
}

/* ---- parsing ---- */

struct pstate {
	struct arena *a;
	struct json *stack[JSON_MAX_DEPTH];
	char *pending_key[JSON_MAX_DEPTH];
	int depth;
	struct json *root;
	char err[160];
};

static int add_value(struct pstate *ps, struct json *v)
{
	if (ps->depth == 0) {
		ps->root = v;
		return 1;
	}
	struct json *top = ps->stack[ps->depth - 1];
	if (top->kind == JSON_ARRAY)
		json_push(ps->a, top, v);
	else {
		obj_append(ps->a, top, ps->pending_key[ps->depth - 1], v);
		ps->pending_key[ps->depth - 1] = NULL;
	}
	return 1;
}

static int cb_null(void *ctx) { struct pstate *ps = ctx; return add_value(ps, json_null(ps->a)); }
static int cb_bool(void *ctx, int b) { struct pstate *ps = ctx; return add_value(ps, json_bool(ps->a, b)); }

static int cb_number(void *ctx, const char *s, size_t n)
{
	struct pstate *ps = ctx;
	char buf[512];
	bool real = false;
	for (size_t i = 0; i < n && !real; i++)
		real = s[i] == '.' || s[i] == 'e' || s[i] == 'E';
	if (n >= sizeof buf) {
		snprintf(ps->err, sizeof ps->err, "number too long");
		return 0;
	}
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!real) {
		long long i;
		if (num_parse_int(buf, &i) != 0) {
			snprintf(ps->err, sizeof ps->err, "integer out of range '%.40s'", buf);
			return 0;
		}
		return add_value(ps, json_int(ps->a, i));
	}
	double d = strtod(buf, NULL);
	if (!isfinite(d)) {
		snprintf(ps->err, sizeof ps->err, "number out of range '%.40s'", buf);
		return 0;
	}
	return add_value(ps, json_real(ps->a, d));
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	struct pstate *ps = ctx;
	/* yajl lets \u0000 through (a NUL would cut every C string after it), and its UTF-8 check
	 * passes overlong forms and surrogates (raw or from \u escapes): the one strict rule */
	if (memchr(s, 0, n)) {
		snprintf(ps->err, sizeof ps->err, "NUL character (\\u0000) in a string");
		return 0;
	}
	if (!text_utf8_ok((const char *)s, n)) {
		snprintf(ps->err, sizeof ps->err, "invalid UTF-8 (an overlong form, a surrogate or a bad byte) in a string");
		return 0;
	}
	return add_value(ps, json_strn(ps->a, (const char *)s, n));
}

static int push(struct pstate *ps, struct json *v)
{
	if (ps->depth >= JSON_MAX_DEPTH) {
		snprintf(ps->err, sizeof ps->err, "nesting deeper than %d", JSON_MAX_DEPTH);
		return 0;
	}
	add_value(ps, v);
	ps->pending_key[ps->depth] = NULL;
	ps->stack[ps->depth++] = v;
	return 1;
}

static int cb_start_map(void *ctx) { struct pstate *ps = ctx; return push(ps, json_object(ps->a)); }
static int cb_start_array(void *ctx) { struct pstate *ps = ctx; return push(ps, json_array(ps->a)); }
static int cb_end(void *ctx) { struct pstate *ps = ctx; ps->depth--; return 1; }

/* At most max bytes of s[0..n), cut on a character boundary (s is valid UTF-8). */
static int clip(const unsigned char *s, size_t n, size_t max)
{
	if (n <= max)
		return (int)n;
	while (max > 0 && (s[max] & 0xC0) == 0x80)
		max--;
	return (int)max;
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
	struct pstate *ps = ctx;
	struct json *top = ps->stack[ps->depth - 1];
	if (memchr(s, 0, n)) {
		snprintf(ps->err, sizeof ps->err, "NUL byte in key");
		return 0;
	}
	if (!text_utf8_ok((const char *)s, n)) {
		snprintf(ps->err, sizeof ps->err, "invalid UTF-8 (an overlong form, a surrogate or a bad byte) in a key");
		return 0;
	}
	for (size_t i = 0; i < top->u.obj.n; i++)
		if (top->u.obj.keys[i][0] == (n ? (char)s[0] : 0) && strlen(top->u.obj.keys[i]) == n && !memcmp(top->u.obj.keys[i], s, n)) {
			snprintf(ps->err, sizeof ps->err, "duplicate key '%.*s'", clip(s, n, 60), s);
			return 0;
		}
	char *k = aalloc(ps->a, n + 1);
	memcpy(k, s, n);
	ps->pending_key[ps->depth - 1] = k;
	return 1;
}

/* The value of the 4 hex digits at p (p + 4 <= end), or -1 when they are not 4 hex digits. */
static long hex4(const char *p, const char *end)
{
	long v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

int json_surrogates_check(const char *buf, size_t len, char *err, size_t errlen)
{
	if (!memchr(buf, '\\', len))
		return 0;
	const char *end = buf + len;
	bool in = false;
	for (const char *q = buf; q < end; q++) {
		if (*q == '"') {
			in = !in;
			continue;
		}
		if (*q != '\\' || !in)
			continue;
		if (end - q < 2 || q[1] != 'u') {
			q++; /* a one-character escape (\" or \\ among them) */
			continue;
		}
		long u = hex4(q + 2, end);
		if (u < 0xD800 || u > 0xDFFF) { /* not a surrogate, or not 4 hex digits (yajl's error) */
			q += 1;
			continue;
		}
		if (u >= 0xDC00) {
			snprintf(err, errlen, "unpaired surrogate escape \\%.5s in a string (a low surrogate without a high one before it)", q + 1);
			return -1;
		}
		long lo = end - q >= 12 && q[6] == '\\' && q[7] == 'u' ? hex4(q + 8, end) : -1;
		if (lo < 0) {
			snprintf(err, errlen, "unpaired surrogate escape \\%.5s in a string (a high surrogate not followed by a low one)", q + 1);
			return -1;
		}
		if (lo < 0xDC00 || lo > 0xDFFF) {
			snprintf(err, errlen, "unpaired surrogate escape \\%.5s in a string (followed by \\%.5s, not by a low surrogate)", q + 1, q + 7);
			return -1;
		}
		q += 11; /* the pair */
	}
	return 0;
}

static const yajl_callbacks callbacks = {
	cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
	cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end,
};

int json_parse(struct arena *a, const char *buf, size_t len, struct json **out, char *err, size_t errlen)
{
	/* Every record of every stream comes through here: the parse state lives on the stack and
	 * only what is read before it is written is initialised (the stacks are written on push). */
	struct pstate state, *ps = &state;
	ps->a = a;
	ps->depth = 0;
	ps->root = NULL;
	ps->err[0] = 0;
	yajl_handle h = xnonnull(yajl_alloc(&callbacks, NULL, ps));
	yajl_status st = yajl_parse(h, (const unsigned char *)buf, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	int rc = 0;
	/* yajl decodes surrogate escapes unchecked (a lone high one becomes '?'): they are checked
	 * in the text, in what yajl accepted or read up to the string that failed the UTF-8 check
	 * (a lone low one), so that the message names the escape */
	char serr[160];
	if ((st == yajl_status_ok || !strncmp(ps->err, "invalid UTF-8", 13))
	    && json_surrogates_check(buf, st == yajl_status_ok ? len : yajl_get_bytes_consumed(h), serr, sizeof serr)) {
		snprintf(err, errlen, "invalid JSON: %s", serr);
		rc = -1;
	} else if (st != yajl_status_ok) {
		if (ps->err[0])
			snprintf(err, errlen, "invalid JSON: %s", ps->err);
		else {
			unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)buf, len);
			char *nl;
			snprintf(err, errlen, "invalid JSON: %s", (char *)m);
			while ((nl = strchr(err, '\n')))
				*nl = ' ';
			size_t el = strlen(err);
			while (el && err[el - 1] == ' ')
				err[--el] = 0;
			yajl_free_error(h, m);
		}
		rc = -1;
	} else if (!ps->root) {
		snprintf(err, errlen, "invalid JSON: empty");
		rc = -1;
	} else
		*out = ps->root;
	yajl_free(h);
	return rc;
}

/* ---- writing ---- */

static void write_str(struct strbuf *sb, const char *s, size_t n) { sb_add_jstr(sb, s, n); }

static int keycmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void write_any(struct strbuf *sb, const struct json *v, bool sorted, int indent, int level);

static void newline(struct strbuf *sb, int indent, int level)
{
	sb_addc(sb, '\n');
	for (int i = 0; i < indent * level; i++)
		sb_addc(sb, ' ');
}

static void write_obj(struct strbuf *sb, const struct json *v, bool sorted, int indent, int level)
{
	size_t n = v->u.obj.n;
	if (n == 0) {
		sb_adds(sb, "{}");
		return;
	}
	size_t *order = xmalloc(n * sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (sorted) {
		/* sort indices by key; keys are unique so plain sort is deterministic */
		char **keys = xmalloc(n * sizeof *keys);
		for (size_t i = 0; i < n; i++)
			keys[i] = v->u.obj.keys[i];
		qsort(keys, n, sizeof *keys, keycmp);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (v->u.obj.keys[j] == keys[i]) {
					order[i] = j;
					break;
				}
		free(keys);
	}
	sb_addc(sb, '{');
	for (size_t i = 0; i < n; i++) {
		size_t j = order[i];
		if (i)
			sb_addc(sb, ',');
		if (indent)
			newline(sb, indent, level + 1);
		write_str(sb, v->u.obj.keys[j], strlen(v->u.obj.keys[j]));
		sb_adds(sb, indent ? ": " : ":");
		write_any(sb, v->u.obj.vals[j], sorted, indent, level + 1);
	}
	if (indent)
		newline(sb, indent, level);
	sb_addc(sb, '}');
	free(order);
}

static void write_any(struct strbuf *sb, const struct json *v, bool sorted, int indent, int level)
{
	switch (v->kind) {
	case JSON_NULL: sb_adds(sb, "null"); break;
	case JSON_FALSE: sb_adds(sb, "false"); break;
	case JSON_TRUE: sb_adds(sb, "true"); break;
	case JSON_INT: sb_add_int(sb, v->u.i); break;
	case JSON_REAL: sb_add_double(sb, v->u.d); break;
	case JSON_STRING: write_str(sb, v->u.str.s, v->u.str.len); break;
	case JSON_ARRAY:
		if (v->u.arr.n == 0) {
			sb_adds(sb, "[]");
			break;
		}
		sb_addc(sb, '[');
		for (size_t i = 0; i < v->u.arr.n; i++) {
			if (i)
				sb_addc(sb, ',');
			if (indent)
				newline(sb, indent, level + 1);
			write_any(sb, v->u.arr.items[i], sorted, indent, level + 1);
		}
		if (indent)
			newline(sb, indent, level);
		sb_addc(sb, ']');
		break;
	case JSON_OBJECT:
		write_obj(sb, v, sorted, indent, level);
		break;
	}
}

void json_write(struct strbuf *sb, const struct json *v) { write_any(sb, v, false, 0, 0); }
void json_write_sorted(struct strbuf *sb, const struct json *v) { write_any(sb, v, true, 0, 0); }
void json_write_pretty_sorted(struct strbuf *sb, const struct json *v) { write_any(sb, v, true, 2, 0); }

int json_parse_file(struct arena *a, const char *path, struct json **out, char *err, size_t errlen)
{
	char *buf, perr[512];
	size_t len;
	if (zio_slurp(path, &buf, &len, err, errlen))
		return -1;
	int rc = json_parse(a, buf, len, out, perr, sizeof perr);
	free(buf);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, perr);
	return rc;
}

void json_write_fields(struct strbuf *sb, const char *const *keys, const struct json *v, size_t n)
{
	struct json *vals[16], o;
	memset(&o, 0, sizeof o);
	if (n > 16)
		n = 16;
	for (size_t i = 0; i < n; i++)
		vals[i] = (struct json *)&v[i];
	o.kind = JSON_OBJECT;
	o.u.obj.keys = (char **)keys;
	o.u.obj.vals = vals;
	o.u.obj.n = o.u.obj.cap = n;
	json_write(sb, &o);
}
