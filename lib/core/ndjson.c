#include "core/ndjson.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCHEDNAV_VERSION
#define SCHEDNAV_VERSION "0.0.0"
#endif

enum rstate { EXPECT_HEADER, IN_BODY };

struct nd_reader {
	struct zio_reader *z;
	unsigned long lineno;
	enum rstate state;
	unsigned long long records;
	struct fp_xxh3 h;
	char fp[FP_HEX_XXH3];
	char header_fp[FP_HEX_XXH3];           /* of the current stream's header line */
	unsigned streams;
	const char *raw;
	size_t raw_len;
};

struct nd_reader *ndr_open(const char *path, char *err, size_t errlen)
{
	struct zio_reader *z = zr_open(path, false, err, errlen);
	if (!z)
		return NULL;
	struct nd_reader *r = xcalloc(1, sizeof *r);
	r->z = z;
	fp_xxh3_init(&r->h);
	return r;
}

void ndr_close(struct nd_reader *r)
{
	if (!r)
		return;
	zr_close(r->z);
	fp_xxh3_release(&r->h);
	free(r);
}

const char *ndr_name(const struct nd_reader *r) { return zr_name(r->z); }
unsigned long ndr_lineno(const struct nd_reader *r) { return r->lineno; }
const char *ndr_fingerprint(const struct nd_reader *r) { return r->fp; }
const char *ndr_header_fingerprint(const struct nd_reader *r) { return r->header_fp; }
unsigned ndr_streams(const struct nd_reader *r) { return r->streams; }

const char *ndr_raw(const struct nd_reader *r, size_t *len)
{
	*len = r->raw_len;
	return r->raw;
}

void nd_verrf_at(char *err, size_t errlen, const char *path, unsigned long line, const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "%s:%lu: ", path, line);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
}

void ndr_errorf(const struct nd_reader *r, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nd_verrf_at(err, errlen, zr_name(r->z), r->lineno, fmt, ap);
	va_end(ap);
}

int ndr_expect_end(struct nd_reader *r, struct arena *a, const char *what, char *err, size_t errlen)
{
	struct json *v;
	enum nd_event ev = ndr_next(r, a, &v, err, errlen);
	if (ev == ND_ERROR)
		return -1;
	if (ev != ND_EOF) {
		ndr_errorf(r, err, errlen, "expected exactly one %s stream", what);
		return -1;
	}
	return 0;
}

/* XXH3-128 of a line and its '\n' (the header fingerprint). */
static void line_fingerprint(const char *line, size_t len, char out[FP_HEX_XXH3])
{
	struct fp_xxh3 h;
	fp_xxh3_init(&h);
	fp_xxh3_update(&h, line, len);
	fp_xxh3_update(&h, "\n", 1);
	fp_xxh3_hex(&h, out);
	fp_xxh3_release(&h);
}

static const char *type_of(const struct json *rec)
{
	struct json *t = json_get(rec, "type");
	return t && t->kind == JSON_STRING ? t->u.str.s : NULL;
}

static enum nd_event next(struct nd_reader *r, struct arena *a, struct json **rec, int (*fast)(void *, const char *, size_t),
			  void *ctx, char *err, size_t errlen);

enum nd_event ndr_next(struct nd_reader *r, struct arena *a, struct json **rec, char *err, size_t errlen)
{
	return next(r, a, rec, NULL, NULL, err, errlen);
}

enum nd_event ndr_next_fast(struct nd_reader *r, struct arena *a, struct json **rec, int (*fast)(void *, const char *, size_t),
			    void *ctx, char *err, size_t errlen)
{
	return next(r, a, rec, fast, ctx, err, errlen);
}

static enum nd_event next(struct nd_reader *r, struct arena *a, struct json **rec, int (*fast)(void *, const char *, size_t),
			  void *ctx, char *err, size_t errlen)
{
	const char *line;
	size_t len;
	bool nl;
	char zerr[256];
	int rc = zr_getline(r->z, &line, &len, &nl, zerr, sizeof zerr);
	if (rc < 0) {
		snprintf(err, errlen, "%s", zerr);
		return ND_ERROR;
	}
	if (rc == 0) {
		if (r->state == IN_BODY) {
			snprintf(err, errlen, "%s:%lu: truncated stream: no 'end' record", zr_name(r->z), r->lineno);
			return ND_ERROR;
		}
		return ND_EOF;
	}
	r->lineno++;
	r->raw = line;
	r->raw_len = len;
	if (!nl) {
		ndr_errorf(r, err, errlen, "truncated stream: last line has no newline");
		return ND_ERROR;
	}
	if (len && line[len - 1] == '\r') {
		ndr_errorf(r, err, errlen, "line ends with CRLF: streams use LF line ends (strip the CR, e.g. with 'tr -d \\r', then reseal with 'stream-seal')");
		return ND_ERROR;
	}
	if (fast && r->state == IN_BODY && fast(ctx, line, len)) {
		*rec = NULL;
		fp_xxh3_update(&r->h, line, len);
		fp_xxh3_update(&r->h, "\n", 1);
		r->records++;
		return ND_RECORD;
	}
	char jerr[200];
	struct json *v;
	if (json_parse(a, line, len, &v, jerr, sizeof jerr) != 0) {
		ndr_errorf(r, err, errlen, "%s", jerr);
		return ND_ERROR;
	}
	if (v->kind != JSON_OBJECT) {
		ndr_errorf(r, err, errlen, "record is not an object");
		return ND_ERROR;
	}
	const char *type = type_of(v);
	if (!type) {
		ndr_errorf(r, err, errlen, "record has no string 'type'");
		return ND_ERROR;
	}
	*rec = v;
	if (r->state == EXPECT_HEADER) {
		if (strcmp(type, "header")) {
			ndr_errorf(r, err, errlen, r->streams ? "record after 'end' (expected a new 'header')" : "stream does not start with a 'header' record");
			return ND_ERROR;
		}
		struct json *s = json_get(v, "schema");
		if (!s || s->kind != JSON_STRING) {
			ndr_errorf(r, err, errlen, "header has no string 'schema'");
			return ND_ERROR;
		}
		r->state = IN_BODY;
		r->records = 0;
		fp_xxh3_release(&r->h);
		fp_xxh3_init(&r->h);
		line_fingerprint(line, len, r->header_fp);
		return ND_HEADER;
	}
	if (!strcmp(type, "header")) {
		ndr_errorf(r, err, errlen, "'header' inside a stream (previous stream has no 'end')");
		return ND_ERROR;
	}
	if (!strcmp(type, "end")) {
		struct json *n = json_get(v, "records"), *f = json_get(v, "fingerprint"), *hf = json_get(v, "header_fingerprint");
		static const char *const keys[] = { "type", "records", "fingerprint", "header_fingerprint", NULL };
		if (nd_check_keys(v, ND_KEYS(keys), jerr, sizeof jerr)) {
			ndr_errorf(r, err, errlen, "%s", jerr);
			return ND_ERROR;
		}
		if (!n || n->kind != JSON_INT || !f || f->kind != JSON_STRING || (hf && hf->kind != JSON_STRING)) {
			ndr_errorf(r, err, errlen, "malformed 'end' record");
			return ND_ERROR;
		}
		if (!hf) {
			ndr_errorf(r, err, errlen, "'end' record has no 'header_fingerprint' (a stream written before schednav 0.2): "
				   "check it, then reseal it with 'stream-seal -i FILE -o NEW'");
			return ND_ERROR;
		}
		if (strcmp(hf->u.str.s, r->header_fp)) {
			ndr_errorf(r, err, errlen, "header fingerprint mismatch: 'end' says '%s', the header hashes to '%s' (the header was edited)",
				   hf->u.str.s, r->header_fp);
			return ND_ERROR;
		}
		fp_xxh3_hex(&r->h, r->fp);
		if ((unsigned long long)n->u.i != r->records) {
			ndr_errorf(r, err, errlen, "'end' says %lld records, stream has %llu", n->u.i, r->records);
			return ND_ERROR;
		}
		if (strcmp(f->u.str.s, r->fp)) {
			ndr_errorf(r, err, errlen, "fingerprint mismatch: 'end' says '%s', body hashes to '%s'", f->u.str.s, r->fp);
			return ND_ERROR;
		}
		r->state = EXPECT_HEADER;
		r->streams++;
		return ND_END;
	}
	fp_xxh3_update(&r->h, line, len);
	fp_xxh3_update(&r->h, "\n", 1);
	r->records++;
	return ND_RECORD;
}

/* ---- writer ---- */

struct nd_writer {
	struct zio_writer *z;
	struct strbuf sb;
	struct fp_xxh3 h;
	unsigned long long records;
	char header_fp[FP_HEX_XXH3];
	int in_stream;
};

struct nd_writer *ndw_open(const char *path, char *err, size_t errlen)
{
	struct zio_writer *z = zw_open(path, false, err, errlen);
	if (!z)
		return NULL;
	struct nd_writer *w = xcalloc(1, sizeof *w);
	w->z = z;
	sb_init(&w->sb);
	fp_xxh3_init(&w->h);
	return w;
}

int ndw_header(struct nd_writer *w, const struct json *hdr, char *err, size_t errlen)
{
	sb_reset(&w->sb);
	json_write(&w->sb, hdr);
	sb_addc(&w->sb, '\n');
	fp_xxh3_release(&w->h);
	fp_xxh3_init(&w->h);
	fp_xxh3_of(w->sb.buf, w->sb.len, w->header_fp);
	w->records = 0;
	w->in_stream = 1;
	return zw_write(w->z, w->sb.buf, w->sb.len, err, errlen);
}

int ndw_raw(struct nd_writer *w, const char *line, size_t len, char *err, size_t errlen)
{
	fp_xxh3_update(&w->h, line, len);
	fp_xxh3_update(&w->h, "\n", 1);
	w->records++;
	if (zw_write(w->z, line, len, err, errlen))
		return -1;
	return zw_write(w->z, "\n", 1, err, errlen);
}

int ndw_record(struct nd_writer *w, const struct json *rec, char *err, size_t errlen)
{
	sb_reset(&w->sb);
	json_write(&w->sb, rec);
	struct strbuf tmp = w->sb;
	sb_init(&w->sb);
	int rc = ndw_raw(w, tmp.buf, tmp.len, err, errlen);
	w->sb = tmp;
	return rc;
}

int ndw_end(struct nd_writer *w, char fp_out[FP_HEX_XXH3], char *err, size_t errlen)
{
	char fp[FP_HEX_XXH3];
	fp_xxh3_hex(&w->h, fp);
	if (fp_out)
		memcpy(fp_out, fp, 33);
	sb_reset(&w->sb);
	sb_addf(&w->sb, "{\"type\":\"end\",\"records\":%llu,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\n", w->records, fp,
		w->header_fp);
	w->in_stream = 0;
	return zw_write(w->z, w->sb.buf, w->sb.len, err, errlen);
}

static void free_writer(struct nd_writer *w)
{
	sb_release(&w->sb);
	fp_xxh3_release(&w->h);
	free(w);
}

int ndw_close(struct nd_writer *w, char *err, size_t errlen)
{
	int rc = zw_commit(w->z, err, errlen);
	free_writer(w);
	return rc;
}

void ndw_abort(struct nd_writer *w)
{
	if (!w)
		return;
	zw_abort(w->z);
	free_writer(w);
}

int ndw_write_one(const char *path, const struct json *hdr, const struct json *rec, char *err, size_t errlen)
{
	struct nd_writer *w = ndw_open(path, err, errlen);
	if (!w)
		return -1;
	if (ndw_header(w, hdr, err, errlen) || ndw_record(w, rec, err, errlen) || ndw_end(w, NULL, err, errlen)) {
		ndw_abort(w);
		return -1;
	}
	return ndw_close(w, err, errlen);
}

struct json *nd_header_new(struct arena *a, const char *schema, const char *tool)
{
	struct json *h = json_object(a);
	json_set(a, h, "type", json_str(a, "header"));
	json_set(a, h, "schema", json_str(a, schema));
	json_set(a, h, "tool", json_str(a, tool));
	json_set(a, h, "version", json_str(a, SCHEDNAV_VERSION));
	json_set(a, h, "inputs", json_array(a));
	json_set(a, h, "params", json_object(a));
	return h;
}

void nd_header_add_stream(struct arena *a, struct json *hdr, const char *path, const char *schema, const char *fingerprint)
{
	struct json *in = json_object(a);
	json_set(a, in, "path", json_str(a, path));
	json_set(a, in, "schema", json_str(a, schema));
	json_set(a, in, "fingerprint", json_str(a, fingerprint));
	json_push(a, json_get(hdr, "inputs"), in);
}

void nd_header_add_file(struct arena *a, struct json *hdr, const char *path, unsigned long long bytes, const char *xxh3, const char *sha256)
{
	struct json *in = json_object(a);
	json_set(a, in, "path", json_str(a, path));
	json_set(a, in, "bytes", json_int(a, (long long)bytes));
	json_set(a, in, "xxh3", json_str(a, xxh3));
	if (sha256)
		json_set(a, in, "sha256", json_str(a, sha256));
	json_push(a, json_get(hdr, "inputs"), in);
}

int nd_header_add_config(struct arena *a, struct json *hdr, const char *path, char *err, size_t errlen)
{
	char fp[FP_HEX_XXH3];
	size_t len;
	if (zio_xxh3(path, fp, &len, err, errlen))
		return -1;
	nd_header_add_file(a, hdr, path, len, fp, NULL);
	return 0;
}

bool nd_schema_is(const char *got, const char *id)
{
	if (!got)
		return false;
	if (!strcmp(got, id))
		return true;
	const char *slash = strrchr(id, '/');
	if (!slash || slash[1] == 'v')
		return false;
	size_t pre = (size_t)(slash - id) + 1;
	return !strncmp(got, id, pre) && got[pre] == 'v' && !strcmp(got + pre + 1, id + pre);
}

int nd_check_keys(const struct json *rec, const char *const *allowed, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < rec->u.obj.n; i++) {
		const char *k = rec->u.obj.keys[i];
		size_t j = 0;
		for (; j < n; j++)
			if (allowed[j] && !strcmp(allowed[j], k))
				break;
		if (j == n) {
			/* at most 100 bytes of the key, cut on a character boundary: a message must stay
			 * UTF-8 however long the key (the bridge sends these to its client) */
			int len = 0;
			while (k[len] && len < 100)
				len++;
			bool cut = k[len] != 0;
			while (cut && len > 0 && ((unsigned char)k[len] & 0xC0) == 0x80)
				len--;
			snprintf(err, errlen, "unknown key '%.*s%s'", len, k, cut ? "..." : "");
			return -1;
		}
	}
	return 0;
}
