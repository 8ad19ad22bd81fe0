/*
 * canonical — the original engine's three-file trace directory (trace.json, nodes.csv,
 * jobs.csv, schednav.trace/v1 or /v2), read with every load validation of spec
 * docs/traces.md §1, in the original's order:
 *   1 manifest key set, schema, ISO time_origin, trace_id, source object
 *   2 file paths: relative, no "..", resolved (symlinks followed) inside DIR, regular
 *   3 files == {nodes_file: sha256, jobs_file: sha256} of the raw bytes
 *   4 nodes, 5 jobs (row by row), 6 sort, 7 window, 8 trace_fingerprint (CJSHA)
 * Number cells are read as Python's int()/float() read them; each job number keeps
 * whether its cell was an integer literal, so trace-export writes "10" back, not "10.0".
 * Stricter than the original: NaN/inf cells, durations <= 1e-9, a non-string trace_id,
 * rows with a wrong field count, invalid UTF-8, identifiers with control characters and
 * values beyond the trace model's bounds (trace.h) are rejected.
 */
#include "trace/import.h"
#include "trace/res.h"
#include "core/csv.h"
#include "core/fp.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include "trace/export.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EPS 1e-9

/* ---- small helpers ---- */

/* A set of strings (pointers owned elsewhere): open addressing, FNV-1a. */
struct strset {
	const char **slot;
	size_t cap, n;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* 1 if s was added, 0 if it was already there. */
static int strset_add(struct strset *set, const char *s)
{
	if (2 * (set->n + 1) > set->cap) {
		size_t ncap = set->cap ? set->cap * 2 : 64;
		const char **ns = xcalloc(ncap, sizeof *ns);
		for (size_t i = 0; i < set->cap; i++)
			if (set->slot[i]) {
				size_t k = fnv1a(set->slot[i]) & (ncap - 1);
				while (ns[k])
					k = (k + 1) & (ncap - 1);
				ns[k] = set->slot[i];
			}
		free(set->slot);
		set->slot = ns;
		set->cap = ncap;
	}
	size_t k = fnv1a(s) & (set->cap - 1);
	for (; set->slot[k]; k = (k + 1) & (set->cap - 1))
		if (!strcmp(set->slot[k], s))
			return 0;
	set->slot[k] = s;
	set->n++;
	return 1;
}

/* Read a regular file's raw bytes (no decompression). */
static int read_raw(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		fclose(f);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *b = xmalloc(cap);
	for (;;) {
		if (n == cap)
			b = xrealloc(b, cap *= 2);
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		free(b);
		fclose(f);
		return -1;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/* ---- numbers as Python reads them ---- */

static bool py_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* digit (_? digit)*: number of digits consumed, copied without underscores into *o. */
static size_t py_digits(const char **p, char **o)
{
	const char *s = *p;
	size_t n = 0;
	while (*s >= '0' && *s <= '9') {
		*(*o)++ = *s++;
		n++;
		if (*s == '_' && s[1] >= '0' && s[1] <= '9')
			s++;
	}
	*p = s;
	return n;
}

/* The end of a file's rows: 0 when the reader ended cleanly (r == 0) after at least one
 * row; else -1, with "PATH: no WHAT" when there was none (r < 0: err says why already). */
static int rows_end(int r, size_t n, const char *path, const char *what, char *err, size_t errlen)
{
	if (r < 0)
		return -1;
	if (n == 0) {
		snprintf(err, errlen, "%s: no %s", path, what);
		return -1;
	}
	return 0;
}

/* The end of a number's cell: only whitespace left after p; the cleaned copy ends at o. */
static bool py_end(const char *p, char *o)
{
	while (py_space(*p))
		p++;
	*o = 0;
	return !*p;
}

enum { PY_OK = 0, PY_SYNTAX = -1, PY_NONFINITE = -2 };

/* Python float(cell): surrounding whitespace, sign, digit-group underscores; NaN and
 * infinities (also by overflow) are PY_NONFINITE. *is_int tells whether int() would
 * accept the cell too and the value is exactly that integer. */
static int py_float(const char *cell, double *out, bool *is_int)
{
	size_t n = strlen(cell);
	char *clean = xmalloc(n + 1), *o = clean;
	const char *p = cell;
	int rc = PY_SYNTAX;
	while (py_space(*p))
		p++;
	if (*p == '+' || *p == '-')
		*o++ = *p++;
	const char *word = p;
	if (!strncasecmp(word, "nan", 3) || !strncasecmp(word, "inf", 3)) {
		size_t w = !strncasecmp(word, "infinity", 8) ? 8 : 3;
		p += w;
		while (py_space(*p))
			p++;
		rc = *p ? PY_SYNTAX : PY_NONFINITE;
		goto out;
	}
	size_t ni = py_digits(&p, &o), nf = 0;
	bool frac = false, expo = false;
	if (*p == '.') {
		frac = true;
		*o++ = *p++;
		nf = py_digits(&p, &o);
	}
	if (ni + nf == 0)
		goto out;
	if (*p == 'e' || *p == 'E') {
		expo = true;
		*o++ = *p++;
		if (*p == '+' || *p == '-')
			*o++ = *p++;
		if (!py_digits(&p, &o))
			goto out;
	}
	if (!py_end(p, o))
		goto out;
	errno = 0;
	double v = strtod(clean, NULL);
	if (!isfinite(v)) {
		rc = PY_NONFINITE;
		goto out;
	}
	*out = v;
	*is_int = false;
	if (!frac && !expo) {
		errno = 0;
		long long ll = strtoll(clean, NULL, 10);
		*is_int = errno == 0 && fabs(v) < 9.2e18 && (long long)v == ll;
	}
	rc = PY_OK;
out:
	free(clean);
	return rc;
}

/* Python int(cell), base 10, into a long long. */
static int py_int(const char *cell, long long *out)
{
	size_t n = strlen(cell);
	char *clean = xmalloc(n + 1), *o = clean;
	const char *p = cell;
	int rc = -1;
	while (py_space(*p))
		p++;
	if (*p == '+' || *p == '-')
		*o++ = *p++;
	if (!py_digits(&p, &o) || !py_end(p, o))
		goto out;
	errno = 0;
	long long v = strtoll(clean, NULL, 10);
	if (errno)
		goto out;
	*out = v;
	rc = 0;
out:
	free(clean);
	return rc;
}

/* ---- the three files ---- */

struct cfile {
	char *path;                     /* DIR/NAME as declared */
	char *buf;
	size_t len;
	char sha[FP_HEX_SHA256], xxh[FP_HEX_XXH3];
	struct zio_reader *z;           /* a CSV file being read (csv_open .. csv_close) */
	struct csv_reader c;
};

static void cfile_release(struct cfile *f)
{
	free(f->path);
	free(f->buf);
}

static int cfile_load(struct cfile *f, char *err, size_t errlen)
{
	if (read_raw(f->path, &f->buf, &f->len, err, errlen))
		return -1;
	fp_sha256_of(f->buf, f->len, f->sha);
	fp_xxh3_of(f->buf, f->len, f->xxh);
	return 0;
}

/* Step 2: relative, no "..", inside the directory after resolving, a regular file. */
static int check_path(const char *dir, const char *rdir, const char *name, char *full, char *err, size_t errlen)
{
	if (!*name || name[0] == '/') {
		snprintf(err, errlen, "'%s' must be a relative path", name);
		return -1;
	}
	for (const char *p = name; *p;) {
		size_t k = strcspn(p, "/");
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			snprintf(err, errlen, "'%s' must not contain '..'", name);
			return -1;
		}
		p += k;
		while (*p == '/')
			p++;
	}
	char *res = realpath(full, NULL);
	if (!res) {
		snprintf(err, errlen, "'%s': %s", name, strerror(errno));
		return -1;
	}
	size_t rl = strlen(rdir);
	bool inside = !strcmp(rdir, "/") ? res[0] == '/' && res[1] : !strncmp(res, rdir, rl) && res[rl] == '/';
	struct stat st;
	int rc = 0;
	if (!inside) {
		snprintf(err, errlen, "'%s' resolves outside '%s'", name, dir);
		rc = -1;
	} else if (stat(res, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", name);
		rc = -1;
	}
	free(res);
	return rc;
}

/* Open a file for CSV reading; refuses zstd bytes (the CSV reader checks UTF-8 line by line). */
static int csv_open(struct cfile *f, char *err, size_t errlen)
{
	static const unsigned char zmagic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
	if (f->len >= 4 && !memcmp(f->buf, zmagic, 4)) {
		snprintf(err, errlen, "%s: is zstd-compressed, expected plain CSV", f->path);
		return -1;
	}
	f->z = zr_open(f->path, true, err, errlen);
	if (!f->z)
		return -1;
	csv_init(&f->c, f->z);
	return 0;
}

/* After parsing: the bytes read must be the bytes hashed in step 3. */
static int csv_close(struct cfile *f, int rc, char *err, size_t errlen)
{
	if (rc == 0) {
		char sha[FP_HEX_SHA256];
		zr_raw_sha256(f->z, sha);
		if (strcmp(sha, f->sha)) {
			snprintf(err, errlen, "%s: file changed while it was being read", f->path);
			rc = -1;
		}
	}
	csv_release(&f->c);
	zr_close(f->z);
	f->z = NULL;
	return rc;
}

/* Header row: exactly the expected names, optionally followed by exactly the nextra
 * resource columns (issue 36): *with (may be NULL) says whether they are there. The message
 * names only the original's columns, as the original's reader does. */
static int csv_header(struct cfile *f, struct csv_reader *c, const char *const *want, size_t nwant, const char *const *extra,
                      size_t nextra, bool *with, char *err, size_t errlen)
{
	int r = csv_next(c, err, errlen);
	if (r < 0)
		return -1;
	bool more = with && r == 1 && c->nfields == nwant + nextra;
	bool ok = r == 1 && (c->nfields == nwant || more);
	for (size_t i = 0; ok && i < nwant; i++)
		ok = !strcmp(c->fields[i], want[i]);
	for (size_t i = 0; ok && more && i < nextra; i++)
		ok = !strcmp(c->fields[nwant + i], extra[i]);
	if (!ok) {
		char expect[256] = "";
		for (size_t i = 0; i < nwant; i++)
			snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "%s%s", i ? "," : "", want[i]);
		snprintf(err, errlen, "%s:1: header must be exactly '%s'", f->path, expect);
		return -1;
	}
	if (with)
		*with = more;
	return 0;
}

/* Next data row with exactly n fields; blank lines are skipped. 1 row, 0 end, -1 error. */
static int csv_row(struct cfile *f, struct csv_reader *c, size_t n, char *err, size_t errlen)
{
	for (;;) {
		int r = csv_next(c, err, errlen);
		if (r <= 0)
			return r;
		if (c->nfields == 1 && !*c->fields[0])
			continue;
		if (c->nfields != n) {
			snprintf(err, errlen, "%s:%lu: expected %zu fields, found %zu", f->path, c->lineno, n, c->nfields);
			return -1;
		}
		return 1;
	}
}

/* Step 4. Fills t->nodes (file order) and the capacity table. */
static int load_nodes(struct trace *t, struct cfile *f, struct trace_caps *caps, char *err, size_t errlen)
{
	static const char *const cols[] = { "node_id", "gpu_model", "gpu_count" };
	struct strset ids = { 0 };
	int rc = -1, r;
	if (csv_open(f, err, errlen))
		return -1;
	long long sum = 0, *total = &sum;
	bool res;
	if (csv_header(f, &f->c, cols, 3, TRACE_RES_NODE_COLS, 2, &res, err, errlen))
		goto out;
	while ((r = csv_row(f, &f->c, res ? 5 : 3, err, errlen)) == 1) {
		char *id = csv_trim(f->c.fields[0]), *model = csv_trim(f->c.fields[1]);
		long long cnt;
		if (!*id) {
			snprintf(err, errlen, "%s:%lu: empty node_id", f->path, f->c.lineno);
			goto out;
		}
		if (!*model) {
			snprintf(err, errlen, "%s:%lu: node '%s': empty gpu_model", f->path, f->c.lineno, id);
			goto out;
		}
		struct trace_node *n = trace_add_node(t);
		n->id = trace_strdup(t, id);
		n->model = trace_strdup(t, model);
		if (!strset_add(&ids, n->id)) {
			snprintf(err, errlen, "%s:%lu: duplicate node_id '%s'", f->path, f->c.lineno, id);
			goto out;
		}
		if (py_int(f->c.fields[2], &cnt)) {
			snprintf(err, errlen, "%s:%lu: node '%s': gpu_count '%s' is not an integer", f->path, f->c.lineno, id, f->c.fields[2]);
			goto out;
		}
		if (cnt <= 0) {
			snprintf(err, errlen, "%s:%lu: node '%s': gpu_count must be > 0", f->path, f->c.lineno, id);
			goto out;
		}
		n->gpu_count = cnt;
		char e[400];
		if ((res && trace_res_node_cells(n, f->c.fields + 3, e, sizeof e)) || trace_check_node(n, total, e, sizeof e)) {
			snprintf(err, errlen, "%s:%lu: %s", f->path, f->c.lineno, e);
			goto out;
		}
	}
	rc = rows_end(r, t->n_nodes, f->path, "nodes", err, errlen);
out:
	free(ids.slot);
	rc = csv_close(f, rc, err, errlen);
	if (rc)
		return -1;
	trace_caps_build(caps, t);
	return 0;
}

static int job_number(struct cfile *f, unsigned long line, const char *id, const char *col, const char *cell, double *v,
                      bool *is_int, char *err, size_t errlen)
{
	int r = py_float(cell, v, is_int);
	if (r == PY_NONFINITE)
		snprintf(err, errlen, "%s:%lu: job '%s': %s '%s' is not finite", f->path, line, id, col, cell);
	else if (r)
		snprintf(err, errlen, "%s:%lu: job '%s': %s '%s' is not a number", f->path, line, id, col, cell);
	return r ? -1 : 0;
}

/* Step 5. */
static int load_jobs(struct trace *t, struct cfile *f, const struct trace_caps *caps, char *err, size_t errlen)
{
	static const char *const cols[] = { "job_id", "submit_time_seconds", "duration_seconds", "gpu_count",
		"service_class", "gpu_model", "tenant_id" };
	size_t ncol = t->version == 2 ? 7 : 6;
	struct strset ids = { 0 };
	int rc = -1, r;
	if (csv_open(f, err, errlen))
		return -1;
	bool res;
	if (csv_header(f, &f->c, cols, ncol, TRACE_RES_JOB_COLS, 5, &res, err, errlen))
		goto out;
	while ((r = csv_row(f, &f->c, res ? ncol + 5 : ncol, err, errlen)) == 1) {
		unsigned long ln = f->c.lineno;
		char *id = csv_trim(f->c.fields[0]), *cls = csv_trim(f->c.fields[4]), *model = csv_trim(f->c.fields[5]);
		char *tenant = ncol == 7 ? csv_trim(f->c.fields[6]) : NULL;
		struct trace_job *j = trace_add_job(t);
		if (job_number(f, ln, id, "gpu_count", f->c.fields[3], &j->gpus, &j->gpus_int, err, errlen))
			goto out;
		if (!(j->gpus > 0)) {
			snprintf(err, errlen, "%s:%lu: job '%s': gpu_count must be > 0", f->path, ln, id);
			goto out;
		}
		if (!*id) {
			snprintf(err, errlen, "%s:%lu: empty job_id", f->path, ln);
			goto out;
		}
		j->id = trace_strdup(t, id);
		if (!strset_add(&ids, j->id)) {
			snprintf(err, errlen, "%s:%lu: duplicate job_id '%s'", f->path, ln, id);
			goto out;
		}
		if (!strcmp(cls, "HP"))
			j->hp = true;
		else if (strcmp(cls, "Spot")) {
			snprintf(err, errlen, "%s:%lu: job '%s': service_class must be 'HP' or 'Spot', not '%s'", f->path, ln, id, cls);
			goto out;
		}
		if (!*model) {
			snprintf(err, errlen, "%s:%lu: job '%s': empty gpu_model", f->path, ln, id);
			goto out;
		}
		j->model = trace_strdup(t, model);
		if (tenant) {
			if (!*tenant) {
				snprintf(err, errlen, "%s:%lu: job '%s': empty tenant_id", f->path, ln, id);
				goto out;
			}
			j->tenant = trace_strdup(t, tenant);
		}
		long long cap = trace_caps_get(caps, model);
		if (j->gpus > (double)cap) {
			snprintf(err, errlen, "%s:%lu: job '%s': asks for %s GPUs of model '%s', capacity is %lld", f->path, ln, id,
			         csv_trim(f->c.fields[3]), model, cap);
			goto out;
		}
		if (job_number(f, ln, id, "duration_seconds", f->c.fields[2], &j->duration, &j->duration_int, err, errlen))
			goto out;
		if (!(j->duration > EPS)) {
			snprintf(err, errlen, "%s:%lu: job '%s': duration_seconds must be > 1e-9", f->path, ln, id);
			goto out;
		}
		if (job_number(f, ln, id, "submit_time_seconds", f->c.fields[1], &j->submit, &j->submit_int, err, errlen))
			goto out;
		if (!(j->submit >= 0)) {
			snprintf(err, errlen, "%s:%lu: job '%s': submit_time_seconds must be >= 0", f->path, ln, id);
			goto out;
		}
		/* stricter than the original: the identifier rule and the trace model's bounds */
		char e[400];
		if ((res && trace_res_job_cells(j, f->c.fields + ncol, e, sizeof e)) || trace_check_job(j, t->version, e, sizeof e)) {
			j->gpu_spec = NULL;
			snprintf(err, errlen, "%s:%lu: %s", f->path, ln, e);
			goto out;
		}
		if (j->gpu_spec)
			j->gpu_spec = trace_strdup(t, j->gpu_spec);
	}
	rc = rows_end(r, t->n_jobs, f->path, "jobs", err, errlen);
out:
	free(ids.slot);
	return csv_close(f, rc, err, errlen);
}

/* Step 7 (jobs sorted). */
static int load_window(struct trace *t, const struct json *w, const char *mpath, char *err, size_t errlen)
{
	struct json *s = json_get(w, "start"), *e = json_get(w, "end");
	if (!w || w->kind != JSON_OBJECT || w->u.obj.n != 2 || !json_is_num(s) || !json_is_num(e)) {
		snprintf(err, errlen, "%s: 'evaluation_window_seconds' must be an object with exactly numbers 'start' and 'end'", mpath);
		return -1;
	}
	double start = json_num(s), end = json_num(e);
	if (!(start >= 0 && start < end)) {
		snprintf(err, errlen, "%s: evaluation window needs 0 <= start < end", mpath);
		return -1;
	}
	if (t->jobs[0].submit > start) {
		snprintf(err, errlen, "%s: evaluation window starts before the first arrival", mpath);
		return -1;
	}
	if (t->jobs[t->n_jobs - 1].submit > end) {
		snprintf(err, errlen, "%s: job '%s' arrives after the evaluation window ends", mpath, t->jobs[t->n_jobs - 1].id);
		return -1;
	}
	size_t inside = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		inside += t->jobs[i].submit >= start && t->jobs[i].submit <= end;
	if (!inside) {
		snprintf(err, errlen, "%s: no arrival inside the evaluation window", mpath);
		return -1;
	}
	t->has_window = true;
	t->eval_start = start;
	t->eval_end = end;
	return 0;
}

static const char *const manifest_keys[] = { "schema_version", "trace_id", "time_origin", "source", "nodes_file",
	"jobs_file", "files", "trace_fingerprint", "evaluation_window_seconds", NULL };

/* Step 1. */
static int check_manifest(const struct json *m, const char *mpath, char *err, size_t errlen)
{
	if (m->kind != JSON_OBJECT) {
		snprintf(err, errlen, "%s: not a JSON object", mpath);
		return -1;
	}
	for (size_t i = 0; i < m->u.obj.n; i++) {
		size_t k = 0;
		while (manifest_keys[k] && strcmp(manifest_keys[k], m->u.obj.keys[i]))
			k++;
		if (!manifest_keys[k]) {
			snprintf(err, errlen, "%s: unknown key '%s'", mpath, m->u.obj.keys[i]);
			return -1;
		}
	}
	for (size_t k = 0; k < 8; k++)
		if (!json_get(m, manifest_keys[k])) {
			snprintf(err, errlen, "%s: missing key '%s'", mpath, manifest_keys[k]);
			return -1;
		}
	struct json *sv = json_get(m, "schema_version"), *id = json_get(m, "trace_id"), *to = json_get(m, "time_origin");
	if (sv->kind != JSON_STRING || (strcmp(sv->u.str.s, CANON_SCHEMA_V1) && strcmp(sv->u.str.s, CANON_SCHEMA_V2))) {
		snprintf(err, errlen, "%s: schema_version must be '%s' or '%s'", mpath, CANON_SCHEMA_V1, CANON_SCHEMA_V2);
		return -1;
	}
	if (to->kind != JSON_STRING || strlen(to->u.str.s) != to->u.str.len || !trace_iso_time_valid(to->u.str.s)) {
		snprintf(err, errlen, "%s: time_origin must be an ISO 8601 date-time string", mpath);
		return -1;
	}
	if (id->kind != JSON_STRING || !id->u.str.len || strlen(id->u.str.s) != id->u.str.len) {
		snprintf(err, errlen, "%s: trace_id must be a non-empty string", mpath);
		return -1;
	}
	if (json_get(m, "source")->kind != JSON_OBJECT) {
		snprintf(err, errlen, "%s: source must be an object", mpath);
		return -1;
	}
	struct json *nf = json_get(m, "nodes_file"), *jf = json_get(m, "jobs_file"), *fp = json_get(m, "trace_fingerprint");
	if (nf->kind != JSON_STRING || jf->kind != JSON_STRING || strlen(nf->u.str.s) != nf->u.str.len ||
	    strlen(jf->u.str.s) != jf->u.str.len) {
		snprintf(err, errlen, "%s: nodes_file and jobs_file must be strings", mpath);
		return -1;
	}
	if (fp->kind != JSON_STRING) {
		snprintf(err, errlen, "%s: trace_fingerprint must be a string", mpath);
		return -1;
	}
	return 0;
}

/* Step 3: files == {nodes_file: sha256, jobs_file: sha256}. */
static int check_files(const struct json *files, struct cfile *fl, const char *nname, const char *jname, const char *mpath,
                       char *err, size_t errlen)
{
	bool same = !strcmp(nname, jname);
	if (!files || files->kind != JSON_OBJECT || files->u.obj.n != (same ? 1u : 2u) || !json_get(files, nname) ||
	    !json_get(files, jname)) {
		if (same)
			snprintf(err, errlen, "%s: 'files' must list exactly '%s'", mpath, nname);
		else
			snprintf(err, errlen, "%s: 'files' must list exactly '%s' and '%s'", mpath, nname, jname);
		return -1;
	}
	const char *names[2] = { nname, jname };
	for (int i = 0; i < 2; i++) {
		struct json *v = json_get(files, names[i]);
		if (v->kind != JSON_STRING || strcmp(v->u.str.s, fl[i].sha)) {
			snprintf(err, errlen, "%s: sha256 %s does not match '%s' in %s", fl[i].path, fl[i].sha, names[i], mpath);
			return -1;
		}
	}
	return 0;
}

int trace_import_canonical(const struct import_canonical_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	const char *dir = o->dir;
	struct cfile fl[3] = { { 0 } };        /* nodes, jobs, manifest */
	struct trace_caps caps = { 0 };
	char *rdir = NULL, perr[512];
	struct arena scratch;
	struct json *m;
	int rc = IMPORT_DATA_ERROR;
	arena_init(&scratch);
	struct stat st;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno == ENOENT ? "no such directory" : "not a directory");
		goto out;
	}
	fl[2].path = zio_join_path(dir, "trace.json");
	if (cfile_load(&fl[2], err, errlen))
		goto out;
	if (json_parse(&scratch, fl[2].buf, fl[2].len, &m, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", fl[2].path, perr);
		goto out;
	}
	const char *mpath = fl[2].path;
	/* 1 */
	if (check_manifest(m, mpath, err, errlen))
		goto out;
	t->version = !strcmp(json_get(m, "schema_version")->u.str.s, CANON_SCHEMA_V2) ? 2 : 1;
	t->trace_id = trace_strdup(t, json_get(m, "trace_id")->u.str.s);
	t->time_origin = trace_strdup(t, json_get(m, "time_origin")->u.str.s);
	t->source = json_clone(&t->arena, json_get(m, "source"));
	/* 2 */
	const char *nname = json_get(m, "nodes_file")->u.str.s, *jname = json_get(m, "jobs_file")->u.str.s;
	rdir = realpath(dir, NULL);
	if (!rdir) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	fl[0].path = zio_join_path(dir, nname);
	fl[1].path = zio_join_path(dir, jname);
	for (int i = 0; i < 2; i++)
		if (check_path(dir, rdir, i ? jname : nname, fl[i].path, perr, sizeof perr)) {
			snprintf(err, errlen, "%s: %s: %s", mpath, i ? "jobs_file" : "nodes_file", perr);
			goto out;
		}
	/* 3 */
	for (int i = 0; i < 2; i++)
		if (cfile_load(&fl[i], err, errlen))
			goto out;
	if (check_files(json_get(m, "files"), fl, nname, jname, mpath, err, errlen))
		goto out;
	/* 4, 5 */
	if (load_nodes(t, &fl[0], &caps, err, errlen) || load_jobs(t, &fl[1], &caps, err, errlen))
		goto out;
	/* 6, 7 */
	trace_sort(t);
	struct json *w = json_get(m, "evaluation_window_seconds");
	if (w && load_window(t, w, mpath, err, errlen))
		goto out;
	/* 8 */
	char fp[FP_HEX_SHA256];
	trace_manifest_fingerprint(m, fp);
	if (strcmp(fp, json_get(m, "trace_fingerprint")->u.str.s)) {
		snprintf(err, errlen, "%s: trace_fingerprint does not match the manifest (computed %s)", mpath, fp);
		goto out;
	}
	/* provenance: the three files, and this run's parameters */
	static const int order[3] = { 2, 0, 1 };   /* trace.json, nodes, jobs */
	for (int k = 0; k < 3; k++)
		nd_header_add_file(a, hdr, fl[order[k]].path, fl[order[k]].len, fl[order[k]].xxh, fl[order[k]].sha);
	struct json *params = json_get(hdr, "params");
	json_set(a, params, "format", json_str(a, "canonical"));
	json_set(a, params, "dir", json_str(a, dir));
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		cfile_release(&fl[i]);
	trace_caps_release(&caps);
	free(rdir);
	arena_release(&scratch);
	return rc;
}
