/* philly — Microsoft Philly cluster_job_log (one JSON array, gigabytes) + cluster_machine_list
 * → trace/1. The log is scanned incrementally: one top-level array element at a time is
 * cut out of fixed-size decoded chunks and parsed on its own, so memory is bounded by the
 * largest job record plus the jobs kept, never by the file size. */
#include "trace/import.h"
#include "trace/import_util.h"
#include "core/xalloc.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1 << 16)

static const char *const reasons[] = { "missing_submitted_time", "attempts_not_a_list", "no_positive_runtime", "no_gpus", "machine_rows_without_id" };

/* ---- machines ---- */

static int machine_row(void *ctx, struct trace *t, const struct imp_csv *f, const int *idx, struct imp_node_row *n, char *err, size_t errlen)
{
	char **c = f->c.fields;
	char *id = csv_trim(c[0]);
	char low[16];
	size_t k = 0;
	for (; id[k] && k + 1 < sizeof low; k++)
		low[k] = (char)tolower((unsigned char)id[k]);
	low[k] = 0;
	if (!id[k] && (!strcmp(low, "machineid") || !strcmp(low, "machine_id")))
		return 0;       /* the header row */
	if (f->c.nfields < 2 || !*id) {
		imp_count(&t->arena, t->skipped_rows, "machine_rows_without_id");
		return 0;
	}
	if (imp_py_int(c[1], &n->gpus) || n->gpus <= 0) {
		imp_errf(err, errlen, imp_csv_name(f), imp_csv_line(f), "machine '%s': GPU count must be a positive integer, not '%s'", id, c[1]);
		return -1;
	}
	n->id = id;
	n->model = "philly-gpu";
	return 1;
}

static int read_machines(struct trace *t, const char *path, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	struct imp_node_file nf = { path, false, NULL, 0, machine_row, NULL, NULL, "%s: no machine with GPUs" };
	return imp_read_nodes(t, &nf, hdr, a, sha, err, errlen);
}

/* ---- times: "YYYY-MM-DD HH:MM:SS[.ffffff]" (or 'T') as microseconds since 1970 ---- */

static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int parse_time(const char *s, size_t len, int64_t *us)
{
	if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return -1;
	int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
	int h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (y < 1 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return -1;
	bool leap = (y % 4 == 0 && y % 100) || y % 400 == 0;
	if (d > mdays[mo - 1] + (mo == 2 && leap))
		return -1;
	int64_t frac = 0;
	if (len > 19) {
		size_t nd = len - 20;
		if (s[19] != '.' || (nd != 3 && nd != 6))
			return -1;
		int v = digits(s + 20, (int)nd);
		if (v < 0)
			return -1;
		frac = nd == 3 ? v * 1000 : v;
	}
	*us = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) * 1000000) + frac;
	return 0;
}

static void format_time(int64_t us, char *buf, size_t cap)
{
	int64_t secs = us / 1000000, frac = us % 1000000;
	if (frac < 0)
		frac += 1000000, secs--;
	int64_t days = secs / 86400, rem = secs % 86400;
	if (rem < 0)
		rem += 86400, days--;
	/* civil_from_days */
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
	int64_t y = yoe + era * 400 + (m <= 2);
	int n = snprintf(buf, cap, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
	if (frac && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, ".%06lld", (long long)frac);
}

/* 1 = time in *us, 0 = missing (absent, null, "" or "None"), -1 = malformed */
static int get_time(const struct json *o, const char *key, int64_t *us)
{
	struct json *v = json_get(o, key);
	if (!v || v->kind == JSON_NULL)
		return 0;
	if (v->kind != JSON_STRING)
		return -1;
	if (v->u.str.len == 0 || !strcmp(v->u.str.s, "None"))
		return 0;
	return parse_time(v->u.str.s, v->u.str.len, us) ? -1 : 1;
}

/* ---- job records ---- */

struct plog {
	const char *name;               /* input name for messages */
	struct trace *t;
	struct arena scratch;
	struct strbuf elem;
	unsigned long line, elem_line, elements;
	int64_t origin;
	bool have_origin;
	int64_t *submit_us;             /* absolute submit per kept job, parallel to t->jobs */
	size_t cap_submit;
	struct imp_strset ids;
	struct trace_caps caps;         /* of the machines */
};

static int job_record(struct plog *p, const struct json *o, char *err, size_t errlen)
{
	struct trace *t = p->t;
	int64_t submit, start, end;
	int ts = get_time(o, "submitted_time", &submit);
	if (ts < 0) {
		imp_errf(err, errlen, p->name, p->elem_line, "malformed 'submitted_time'");
		return -1;
	}
	if (ts > 0 && (!p->have_origin || submit < p->origin)) {
		p->origin = submit;
		p->have_origin = true;
	}
	if (ts == 0) {
		imp_count(&t->arena, t->skipped_rows, "missing_submitted_time");
		return 0;
	}
	struct json *att = json_get(o, "attempts");
	if (!att || att->kind != JSON_ARRAY) {
		imp_count(&t->arena, t->skipped_rows, "attempts_not_a_list");
		return 0;
	}
	double runtime = 0;
	long long max_g = 0;
	for (size_t i = 0; i < att->u.arr.n; i++) {
		struct json *at = att->u.arr.items[i];
		if (at->kind != JSON_OBJECT) {
			imp_errf(err, errlen, p->name, p->elem_line, "attempt %zu is not an object", i + 1);
			return -1;
		}
		int a = get_time(at, "start_time", &start), b = get_time(at, "end_time", &end);
		if (a < 0 || b < 0) {
			imp_errf(err, errlen, p->name, p->elem_line, "attempt %zu: malformed '%s'", i + 1, a < 0 ? "start_time" : "end_time");
			return -1;
		}
		if (a == 0 || b == 0 || end <= start)
			continue;
		runtime += (double)(end - start) / 1e6;
		struct json *detail = json_get(at, "detail");
		if (!detail || detail->kind != JSON_ARRAY)
			continue;
		long long g = 0;
		for (size_t k = 0; k < detail->u.arr.n; k++) {
			struct json *gpus = json_get(detail->u.arr.items[k], "gpus");
			if (gpus && gpus->kind == JSON_ARRAY)
				g += (long long)gpus->u.arr.n;
		}
		if (g > max_g)
			max_g = g;
	}
	if (!(runtime > 0)) {
		imp_count(&t->arena, t->skipped_rows, "no_positive_runtime");
		return 0;
	}
	if (max_g <= 0) {
		imp_count(&t->arena, t->skipped_rows, "no_gpus");
		return 0;
	}
	if (!(runtime > 1e-9)) {
		imp_errf(err, errlen, p->name, p->elem_line, "duration must be > 1e-9 seconds");
		return -1;
	}
	char idbuf[32];
	const char *id = NULL;
	struct json *jid = json_get(o, "jobid");
	if (jid && jid->kind == JSON_STRING && jid->u.str.len)
		id = jid->u.str.s;
	else if (jid && jid->kind == JSON_INT && jid->u.i) {
		snprintf(idbuf, sizeof idbuf, "%lld", jid->u.i);
		id = idbuf;
	} else if (!jid || jid->kind == JSON_NULL || jid->kind == JSON_FALSE || jid->kind == JSON_STRING || jid->kind == JSON_INT) {
		snprintf(idbuf, sizeof idbuf, "philly-%08zu", t->n_jobs);
		id = idbuf;
	} else {
		imp_errf(err, errlen, p->name, p->elem_line, "'jobid' must be a string");
		return -1;
	}
	char *kept = trace_strdup(t, id);
	if (imp_strset_add(&p->ids, kept)) {
		imp_errf(err, errlen, p->name, p->elem_line, "duplicate jobid '%s'", kept);
		return -1;
	}
	p->submit_us = xgrow(p->submit_us, &p->cap_submit, t->n_jobs + 1, sizeof *p->submit_us);
	p->submit_us[t->n_jobs] = submit;
	struct trace_job *j = trace_add_job(t);
	j->id = kept;
	j->duration = runtime;
	j->gpus = (double)max_g;
	j->gpus_int = true;
	j->model = trace_strdup(t, "philly-gpu");
	/* submit is made relative to the earliest submit once the whole log is read */
	return imp_job_check(t, &p->caps, j, p->name, p->elem_line, err, errlen);
}

/* ---- the incremental array scanner ---- */

enum scan_state { S_BEFORE_ARRAY, S_FIRST, S_NEXT, S_ELEM, S_AFTER, S_DONE };

struct scanner {
	enum scan_state st;
	int depth;
	bool in_str, esc;
};

static int element_done(struct plog *p, bool hp, char *err, size_t errlen)
{
	struct json *o;
	char perr[256];
	arena_reset(&p->scratch);
	if (json_parse(&p->scratch, p->elem.buf, p->elem.len, &o, perr, sizeof perr)) {
		imp_errf(err, errlen, p->name, p->elem_line, "job record %lu: %s", p->elements, perr);
		return -1;
	}
	size_t before = p->t->n_jobs;
	if (job_record(p, o, err, errlen))
		return -1;
	if (p->t->n_jobs > before)
		p->t->jobs[before].hp = hp;
	sb_reset(&p->elem);
	return 0;
}

static int scan(struct plog *p, struct scanner *s, const char *buf, size_t n, bool hp, char *err, size_t errlen)
{
	size_t mark = 0;        /* start of the element bytes not yet copied */
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];
		if (s->st == S_ELEM) {
			if (ch == '\n')
				p->line++;
			if (s->in_str) {
				if (s->esc)
					s->esc = false;
				else if (ch == '\\')
					s->esc = true;
				else if (ch == '"')
					s->in_str = false;
				continue;
			}
			if (ch == '"')
				s->in_str = true;
			else if (ch == '{' || ch == '[')
				s->depth++;
			else if ((ch == '}' || ch == ']') && --s->depth == 0) {
				sb_add(&p->elem, buf + mark, i + 1 - mark);
				if (element_done(p, hp, err, errlen))
					return -1;
				s->st = S_AFTER;
			}
			continue;
		}
		if (ch == '\n') {
			p->line++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r')
			continue;
		switch (s->st) {
		case S_BEFORE_ARRAY:
			if (ch != '[') {
				imp_errf(err, errlen, p->name, p->line, "the job log must be a JSON array of job objects");
				return -1;
			}
			s->st = S_FIRST;
			break;
		case S_FIRST:
		case S_NEXT:
			if (ch == ']' && s->st == S_FIRST) {
				s->st = S_DONE;
				break;
			}
			p->elements++;
			if (ch != '{') {
				imp_errf(err, errlen, p->name, p->line, "job record %lu is not a JSON object", p->elements);
				return -1;
			}
			s->st = S_ELEM;
			s->depth = 1;
			p->elem_line = p->line;
			mark = i;
			break;
		case S_AFTER:
			if (ch == ',')
				s->st = S_NEXT;
			else if (ch == ']')
				s->st = S_DONE;
			else {
				imp_errf(err, errlen, p->name, p->line, "expected ',' or ']' after job record %lu", p->elements);
				return -1;
			}
			break;
		case S_DONE:
			imp_errf(err, errlen, p->name, p->line, "data after the end of the job log array");
			return -1;
		case S_ELEM:
			break;
		}
	}
	if (s->st == S_ELEM) {
		sb_add(&p->elem, buf + mark, n - mark);
		if (p->elem.len > ZIO_MAX_LINE) {
			imp_errf(err, errlen, p->name, p->elem_line, "job record %lu is larger than %d bytes (the record limit, docs/hardening.md)",
				 p->elements, ZIO_MAX_LINE);
			return -1;
		}
	}
	return 0;
}

static int read_log(struct plog *p, const char *path, bool hp, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	struct zio_reader *r = zr_open(path, true, err, errlen);
	if (!r)
		return -1;
	p->name = zr_name(r);
	p->line = 1;
	struct scanner s = { S_BEFORE_ARRAY, 0, false, false };
	char *buf = xmalloc(CHUNK);
	int rc = -1;
	bool any = false;
	for (;;) {
		ssize_t n = zr_read(r, buf, CHUNK, err, errlen);
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		any = true;
		if (scan(p, &s, buf, (size_t)n, hp, err, errlen))
			goto out;
	}
	if (!any) {
		snprintf(err, errlen, "%s: empty input: expected a JSON array of job records", p->name);
		goto out;
	}
	if (s.st != S_DONE) {
		imp_errf(err, errlen, p->name, p->line, s.st == S_ELEM ? "truncated job record %lu" : "truncated job log: missing ']'", p->elements);
		goto out;
	}
	imp_record_file(r, a, hdr, path, sha);
	rc = 0;
out:
	free(buf);
	zr_close(r);
	return rc;
}

int trace_import_philly(const struct import_philly_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	const char *machines = o->machines, *log = o->job_log, *cls = o->hp ? "HP" : "Spot";
	imp_param(a, hdr, "format", json_str(a, "philly"));
	imp_param(a, hdr, "machines", json_str(a, machines));
	imp_param(a, hdr, "job_log", json_str(a, log));
	imp_param(a, hdr, "class", json_str(a, cls));

	t->version = 1;
	t->trace_id = trace_strdup(t, "philly");
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		imp_reason(&t->arena, t->skipped_rows, reasons[i]);
	char mach_sha[65], log_sha[65];
	struct plog p;
	memset(&p, 0, sizeof p);
	p.t = t;
	arena_init(&p.scratch);
	sb_init(&p.elem);
	imp_strset_init(&p.ids);
	int rc = IMPORT_DATA_ERROR;
	if (read_machines(t, machines, hdr, a, mach_sha, err, errlen))
		goto out;
	trace_caps_build(&p.caps, t);
	if (read_log(&p, log, o->hp, hdr, a, log_sha, err, errlen))
		goto out;
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "%s: no job kept", strcmp(log, "-") ? log : "<stdin>");
		goto out;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].submit = (double)(p.submit_us[i] - p.origin) / 1e6;
	char origin[48];
	format_time(p.origin, origin, sizeof origin);
	t->time_origin = trace_strdup(t, origin);

	struct arena *ta = &t->arena;
	struct json *s = t->source, *m = json_object(ta);
	long long skipped = 0;
	for (size_t i = 0; i < 4; i++)
		skipped += imp_counter(t->skipped_rows, reasons[i]);
	imp_provenance(ta, s, "dataset", "Microsoft Philly cluster trace", "repository", "https://github.com/msr-fiddle/philly-traces",
		       "commit", "29a1b87f", "license", "CC-BY-4.0", "job_log_sha256", log_sha, "machine_list_sha256", mach_sha, (char *)NULL);
	imp_provenance(ta, m, "mode", "caller_supplied_constant", "value", cls, "reason",
		       "the Philly trace has no service-class labels; the caller chose one class for every job", (char *)NULL);
	json_set(ta, s, "service_class_mapping", m);
	json_set(ta, s, "skipped_job_count", json_int(ta, skipped));
	rc = 0;
out:
	trace_caps_release(&p.caps);
	free(p.submit_us);
	imp_strset_release(&p.ids);
	sb_release(&p.elem);
	arena_release(&p.scratch);
	return rc;
}
