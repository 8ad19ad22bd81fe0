#include "trace/import_util.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/rng.h"
#include "core/xalloc.h"
#include "core/text.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void imp_errf(char *err, size_t errlen, const char *path, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nd_verrf_at(err, errlen, path, line, fmt, ap);
	va_end(ap);
}

/* ---- CSV files ---- */

int imp_csv_open(struct imp_csv *f, const char *path, bool has_header, char *err, size_t errlen)
{
	return imp_csv_open_enc(f, path, has_header, false, err, errlen);
}

int imp_csv_open_enc(struct imp_csv *f, const char *path, bool has_header, bool latin1, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->has_header = has_header;
	f->z = zr_open(path, true, err, errlen);
	if (!f->z)
		return -1;
	csv_init(&f->c, f->z);
	csv_set_latin1(&f->c, latin1);
	if (!has_header)
		return 0;
	int rc = csv_next(&f->c, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(err, errlen, "%s: empty file: expected a CSV header row", zr_name(f->z));
		return -1;
	}
	f->ncols = f->c.nfields;
	f->cols = xcalloc(f->ncols, sizeof *f->cols);
	for (size_t i = 0; i < f->ncols; i++) {
		char *s = xstrdup(f->c.fields[i]);
		/* a UTF-8 byte order mark before the first name is not part of it */
		if (i == 0 && !strncmp(s, "\xef\xbb\xbf", 3))
			memmove(s, s + 3, strlen(s + 3) + 1);
		f->cols[i] = s;
		char *t = csv_trim(s);
		if (t != s)
			memmove(s, t, strlen(t) + 1);
	}
	return 0;
}

int imp_csv_col(const struct imp_csv *f, const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->ncols; i++)
		if (!strcmp(f->cols[i], name))
			return (int)i;
	imp_errf(err, errlen, zr_name(f->z), 1, "missing column '%s'", name);
	return -1;
}

int imp_csv_cols(const struct imp_csv *f, const char *const *cols, size_t n, int *idx, char *err, size_t errlen)
{
	for (size_t k = 0; k < n; k++)
		if ((idx[k] = imp_csv_col(f, cols[k], err, errlen)) < 0)
			return -1;
	return 0;
}

int imp_jobs_open(struct imp_jobs_in *in, const struct trace *t, const char *path, const char *const *cols, size_t n, char *err,
		  size_t errlen)
{
	memset(in, 0, sizeof *in);
	imp_strset_init(&in->seen);
	trace_caps_build(&in->caps, t);
	if (n > sizeof in->idx / sizeof *in->idx) {
		snprintf(err, errlen, "%s: more than %zu job columns", path, sizeof in->idx / sizeof *in->idx);
		return -1;
	}
	if (imp_csv_open(&in->f, path, true, err, errlen))
		return -1;
	return imp_csv_cols(&in->f, cols, n, in->idx, err, errlen);
}

void imp_jobs_close(struct imp_jobs_in *in)
{
	trace_caps_release(&in->caps);
	imp_strset_release(&in->seen);
	imp_csv_close(&in->f);
}

int imp_csv_next(struct imp_csv *f, char *err, size_t errlen)
{
	for (;;) {
		int rc = csv_next(&f->c, err, errlen);
		if (rc <= 0)
			return rc;
		if (f->c.nfields == 1 && f->c.fields[0][0] == 0)
			continue;       /* blank line, as Python's csv.DictReader skips it */
		if (f->has_header && f->c.nfields != f->ncols) {
			imp_errf(err, errlen, zr_name(f->z), f->c.lineno, "expected %zu fields, found %zu", f->ncols, f->c.nfields);
			return -1;
		}
		return 1;
	}
}

const char *imp_csv_name(const struct imp_csv *f) { return zr_name(f->z); }
unsigned long imp_csv_line(const struct imp_csv *f) { return f->c.lineno; }

int imp_csv_finish(struct imp_csv *f, struct arena *a, struct json *hdr, char sha[65], char *err, size_t errlen)
{
	const char *line;
	size_t len;
	bool nl;
	int rc;
	while ((rc = zr_getline(f->z, &line, &len, &nl, err, errlen)) > 0)
		;
	if (rc < 0)
		return -1;
	imp_record_file(f->z, a, hdr, f->path, sha);
	return 0;
}

void imp_record_file(struct zio_reader *z, struct arena *a, struct json *hdr, const char *path, char sha[65])
{
	char xxh[FP_HEX_XXH3];
	zr_raw_xxh3(z, xxh);
	zr_raw_sha256(z, sha);
	nd_header_add_file(a, hdr, path, zr_raw_bytes(z), xxh, sha);
}

void imp_csv_close(struct imp_csv *f)
{
	if (f->z) {
		csv_release(&f->c);
		zr_close(f->z);
	}
	for (size_t i = 0; i < f->ncols; i++)
		free(f->cols[i]);
	free(f->cols);
	memset(f, 0, sizeof *f);
}

/* ---- numbers ---- */

/* Copy s without surrounding whitespace and with '_' digit separators removed;
 * -1 when an underscore is not between two digits or the result does not fit. */
static int py_clean(const char *s, char *buf, size_t cap)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_') {
			if (i == 0 || i + 1 >= n || !isdigit((unsigned char)s[i - 1]) || !isdigit((unsigned char)s[i + 1]))
				return -1;
			continue;
		}
		if (k + 1 >= cap)
			return -1;
		buf[k++] = s[i];
	}
	buf[k] = 0;
	return k ? 0 : -1;
}

int imp_py_int(const char *s, long long *out)
{
	char buf[64];
	if (py_clean(s, buf, sizeof buf))
		return -1;
	return num_parse_int(buf, out);
}

int imp_py_float(const char *s, double *out, bool *is_int)
{
	char buf[128];
	if (py_clean(s, buf, sizeof buf) || num_parse_double(buf, out))
		return -1;
	if (is_int)
		*is_int = !strpbrk(buf, ".eE");
	return 0;
}

/* ---- counters ---- */

void imp_reason(struct arena *a, struct json *obj, const char *reason)
{
	if (!json_get(obj, reason))
		json_set(a, obj, reason, json_int(a, 0));
}

void imp_count(struct arena *a, struct json *obj, const char *reason)
{
	struct json *v = json_get(obj, reason);
	if (v)
		v->u.i++;
	else
		json_set(a, obj, reason, json_int(a, 1));
}

long long imp_counter(const struct json *obj, const char *reason)
{
	struct json *v = json_get(obj, reason);
	return v && v->kind == JSON_INT ? v->u.i : 0;
}

void imp_param(struct arena *a, struct json *hdr, const char *key, struct json *v)
{
	json_set(a, json_get(hdr, "params"), key, v);
}

void imp_provenance(struct arena *a, struct json *obj, ...)
{
	va_list ap;
	va_start(ap, obj);
	for (const char *key; (key = va_arg(ap, const char *));)
		json_set(a, obj, key, json_str(a, va_arg(ap, const char *)));
	va_end(ap);
}

/* ---- string set (open addressing, FNV-1a) ---- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

void imp_strset_init(struct imp_strset *s)
{
	memset(s, 0, sizeof *s);
}

int imp_strset_add(struct imp_strset *s, const char *str)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		const char **slots = xcalloc(cap, sizeof *slots);
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i]) {
				size_t j = fnv1a(s->slots[i]) & (cap - 1);
				while (slots[j])
					j = (j + 1) & (cap - 1);
				slots[j] = s->slots[i];
			}
		free(s->slots);
		s->slots = slots;
		s->cap = cap;
	}
	size_t j = fnv1a(str) & (s->cap - 1);
	while (s->slots[j]) {
		if (!strcmp(s->slots[j], str))
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	s->slots[j] = str;
	s->n++;
	return 0;
}

void imp_push_rule(struct arena *a, struct json *rules, const char *field, const char *value, bool hp)
{
	struct strbuf sb;
	sb_init(&sb);
	if (field)
		sb_addf(&sb, "%s:%s", field, value);
	else
		sb_adds(&sb, "*");
	sb_addf(&sb, "=%s", hp ? "HP" : "Spot");
	json_push(a, rules, json_strn(a, sb.buf, sb.len));
	sb_release(&sb);
}

char *imp_new_id(struct trace *t, struct imp_strset *seen, char *cell, const char *empty_what, const char *dup_what, char *err,
		 size_t errlen, const char *path, unsigned long line)
{
	const char *s = csv_trim(cell);
	if (!*s) {
		imp_errf(err, errlen, path, line, "empty %s", empty_what);
		return NULL;
	}
	char *id = trace_strdup(t, s);
	if (imp_strset_add(seen, id)) {
		imp_errf(err, errlen, path, line, "duplicate %s '%s'", dup_what, id);
		return NULL;
	}
	return id;
}

void imp_strset_release(struct imp_strset *s)
{
	free(s->slots);
	memset(s, 0, sizeof *s);
}

/* ---- row checks ---- */

void imp_nodes_init(struct imp_nodes *s)
{
	imp_strset_init(&s->ids);
	s->total = 0;
}

void imp_nodes_release(struct imp_nodes *s)
{
	imp_strset_release(&s->ids);
}

int imp_node(struct trace *dst, struct trace *owner, struct imp_nodes *s, const char *id, const char *model, long long gpus,
	     const char *path, unsigned long line, char *err, size_t errlen)
{
	struct trace_node n = { .id = (char *)id, .model = (char *)model, .gpu_count = gpus };
	char e[400];
	if (trace_check_node(&n, &s->total, e, sizeof e)) {
		imp_errf(err, errlen, path, line, "%s", e);
		return -1;
	}
	char *kid = trace_strdup(owner, id);
	if (imp_strset_add(&s->ids, kid)) {
		imp_errf(err, errlen, path, line, "duplicate node_id '%s'", id);
		return -1;
	}
	struct trace_node *nd = trace_add_node(dst);
	nd->id = kid;
	nd->model = trace_strdup(owner, model);
	nd->gpu_count = gpus;
	return 0;
}

int imp_job_check(const struct trace *t, const struct trace_caps *caps, const struct trace_job *j, const char *path,
		  unsigned long line, char *err, size_t errlen)
{
	char e[400];
	if (trace_check_job(j, t->version, e, sizeof e)) {
		imp_errf(err, errlen, path, line, "%s", e);
		return -1;
	}
	long long cap = trace_caps_get(caps, j->model);
	if (cap == 0) {
		imp_errf(err, errlen, path, line, "job '%s': no node has GPU model '%s'", j->id, j->model);
		return -1;
	}
	if (j->gpus > (double)cap) {
		imp_errf(err, errlen, path, line, "job '%s': asks for %g GPUs of model '%s', the nodes have %lld", j->id, j->gpus, j->model, cap);
		return -1;
	}
	return 0;
}

/* ---- seeded subset ---- */

size_t imp_seeded_subset(const long long *gpus, size_t n, long long target, uint64_t seed, size_t *order)
{
	uint64_t state = seed;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rng_splitmix64(&state) % i);
		size_t tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
	long long have = 0;
	size_t k = 0;
	while (k < n && have < target)
		have += gpus[order[k++]];
	return k;
}

int imp_res_cell(const char *cell, const char *col, long long scale, long long lo, long long hi, long long *out, const char *rec,
		 const char *path, unsigned long line, char *err, size_t errlen)
{
	long long v;
	if (imp_py_int(cell, &v)) {
		char q[100];
		text_quote(q, sizeof q, cell, strlen(cell));
		imp_errf(err, errlen, path, line, "%s: '%s' is not an integer: '%s'", rec, col, q);
		return -1;
	}
	if (v < lo / scale || v > hi / scale) {
		imp_errf(err, errlen, path, line, "%s: '%s' %lld is outside %lld..%lld", rec, col, v, lo / scale, hi / scale);
		return -1;
	}
	*out = v * scale;
	return 0;
}

int imp_node_res(struct trace *t, long long cpu, long long mem, const char *path, unsigned long line, char *err, size_t errlen)
{
	struct trace_node *n = &t->nodes[t->n_nodes - 1];
	if (cpu >= 0) {
		n->cpu_milli = cpu;
		n->res |= TRACE_RES_CPU;
	}
	if (mem >= 0) {
		n->memory_mib = mem;
		n->res |= TRACE_RES_MEM;
	}
	char e[400];
	if (trace_check_node(n, NULL, e, sizeof e)) {
		imp_errf(err, errlen, path, line, "%s", e);
		return -1;
	}
	return 0;
}

int imp_read_nodes(struct trace *t, const struct imp_node_file *nf, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	struct imp_csv f;
	struct imp_nodes seen;
	int rc = -1, r, idx[8];
	unsigned long rows = 0;
	if (nf->n_cols > sizeof idx / sizeof *idx) {
		snprintf(err, errlen, "%s: more than %zu node columns", nf->path, sizeof idx / sizeof *idx);
		return -1;
	}
	imp_nodes_init(&seen);
	if (imp_csv_open(&f, nf->path, nf->has_header, err, errlen) || imp_csv_cols(&f, nf->cols, nf->n_cols, idx, err, errlen))
		goto out;
	while ((r = imp_csv_next(&f, err, errlen)) > 0) {
		struct imp_node_row n = { .cpu_milli = -1, .memory_mib = -1 };
		rows++;
		int got = nf->row(nf->ctx, t, &f, idx, &n, err, errlen);
		if (got < 0 || (got > 0 && imp_node(t, t, &seen, n.id, n.model, n.gpus, imp_csv_name(&f), imp_csv_line(&f), err, errlen)))
			goto out;
		if (got > 0 && (n.cpu_milli >= 0 || n.memory_mib >= 0) &&
		    imp_node_res(t, n.cpu_milli, n.memory_mib, imp_csv_name(&f), imp_csv_line(&f), err, errlen))
			goto out;
	}
	if (r < 0 || imp_csv_finish(&f, a, hdr, sha, err, errlen))
		goto out;
	if (nf->no_rows && rows == 0) {
		snprintf(err, errlen, nf->no_rows, imp_csv_name(&f));
		goto out;
	}
	if (t->n_nodes == 0) {
		snprintf(err, errlen, nf->no_nodes, imp_csv_name(&f));
		goto out;
	}
	rc = 0;
out:
	imp_nodes_release(&seen);
	imp_csv_close(&f);
	return rc;
}
