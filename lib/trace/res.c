/* res — the optional physical resource fields of trace records (res.h, issue 36). */
#include "trace/res.h"
#include "core/csv.h"
#include "core/text.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const TRACE_RES_NODE_COLS[2] = { "cpu_milli", "memory_mib" };
const char *const TRACE_RES_JOB_COLS[5] = { "workers", "cpu_milli", "memory_mib", "gpu_milli", "gpu_spec" };

static int range(const char *rec, const char *id, const char *key, long long v, long long lo, long long hi, char *err, size_t errlen)
{
	if (v >= lo && v <= hi)
		return 0;
	snprintf(err, errlen, "%s '%s': %s %lld is outside %lld..%lld", rec, id, key, v, lo, hi);
	return -1;
}

int trace_res_check_node(const struct trace_node *n, char *err, size_t errlen)
{
	if ((n->res & TRACE_RES_CPU) && range("node", n->id, "cpu_milli", n->cpu_milli, 0, TRACE_MAX_RES, err, errlen))
		return -1;
	if ((n->res & TRACE_RES_MEM) && range("node", n->id, "memory_mib", n->memory_mib, 0, TRACE_MAX_RES, err, errlen))
		return -1;
	if (n->res & ~(unsigned)(TRACE_RES_CPU | TRACE_RES_MEM)) {
		snprintf(err, errlen, "node '%s': only cpu_milli and memory_mib are node fields", n->id);
		return -1;
	}
	return 0;
}

/* Each '|'-separated part of a gpu_spec: a non-empty identifier. */
static int check_spec(const struct trace_job *j, char *err, size_t errlen)
{
	const char *s = j->gpu_spec;
	size_t len = s ? strlen(s) : 0;
	if (!len || len > TRACE_MAX_SPEC) {
		snprintf(err, errlen, "job '%s': gpu_spec must be 1..%d bytes", j->id, TRACE_MAX_SPEC);
		return -1;
	}
	for (const char *p = s;;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		const char *why = n ? text_id_problem(p, n) : "is empty";
		if (why) {
			char q[100];
			text_quote(q, sizeof q, s, len);
			snprintf(err, errlen, "job '%s': gpu_spec '%s': a model name %s", j->id, q, why);
			return -1;
		}
		if (!bar)
			return 0;
		p = bar + 1;
	}
}

int trace_res_check_job(const struct trace_job *j, char *err, size_t errlen)
{
	unsigned r = j->res;
	if ((r & TRACE_RES_WORKERS) && range("job", j->id, "workers", j->workers, 1, TRACE_MAX_WORKERS, err, errlen))
		return -1;
	if ((r & TRACE_RES_CPU) && range("job", j->id, "cpu_milli", j->cpu_milli, 0, TRACE_MAX_RES, err, errlen))
		return -1;
	if ((r & TRACE_RES_MEM) && range("job", j->id, "memory_mib", j->memory_mib, 0, TRACE_MAX_RES, err, errlen))
		return -1;
	if (r & TRACE_RES_GPU_MILLI) {
		if (range("job", j->id, "gpu_milli", j->gpu_milli, 1, 999, err, errlen))
			return -1;
		if (j->gpus != (double)j->gpu_milli / 1000) {
			snprintf(err, errlen, "job '%s': gpus %.17g is not gpu_milli / 1000 (%lld / 1000)", j->id, j->gpus, j->gpu_milli);
			return -1;
		}
		if ((r & TRACE_RES_WORKERS) && j->workers != 1) {
			snprintf(err, errlen, "job '%s': a share of one GPU (gpu_milli) has one worker, not %lld", j->id, j->workers);
			return -1;
		}
	} else if (r & TRACE_RES_WORKERS) {
		double per = j->gpus / (double)j->workers;
		if (j->gpus != floor(j->gpus) || per != floor(per) || per < 1) {
			snprintf(err, errlen, "job '%s': %lld workers do not divide gpus %.17g into whole GPUs", j->id, j->workers, j->gpus);
			return -1;
		}
	}
	if ((r & TRACE_RES_GPU_SPEC) && check_spec(j, err, errlen))
		return -1;
	return 0;
}

/* An integer key of v when present: 1 read, 0 absent, -1 not an integer (message). */
static int get_int(const struct json *v, const char *rec, const char *id, const char *key, long long *out, char *err, size_t errlen)
{
	struct json *x = json_get(v, key);
	if (!x)
		return 0;
	if (x->kind != JSON_INT) {
		snprintf(err, errlen, "%s '%s': '%s' must be an integer", rec, id, key);
		return -1;
	}
	*out = x->u.i;
	return 1;
}

int trace_res_node_json(struct trace_node *n, const struct json *v, char *err, size_t errlen)
{
	int a = get_int(v, "node", n->id, "cpu_milli", &n->cpu_milli, err, errlen);
	int b = a < 0 ? -1 : get_int(v, "node", n->id, "memory_mib", &n->memory_mib, err, errlen);
	if (a < 0 || b < 0)
		return -1;
	n->res = (a ? TRACE_RES_CPU : 0) | (b ? TRACE_RES_MEM : 0);
	return 0;
}

int trace_res_job_json(struct trace_job *j, const struct json *v, char *err, size_t errlen)
{
	static const struct { const char *key; unsigned bit; size_t off; } ints[] = {
		{ "workers", TRACE_RES_WORKERS, offsetof(struct trace_job, workers) },
		{ "cpu_milli", TRACE_RES_CPU, offsetof(struct trace_job, cpu_milli) },
		{ "memory_mib", TRACE_RES_MEM, offsetof(struct trace_job, memory_mib) },
		{ "gpu_milli", TRACE_RES_GPU_MILLI, offsetof(struct trace_job, gpu_milli) },
	};
	j->res = 0;
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
		int r = get_int(v, "job", j->id, ints[i].key, (long long *)((char *)j + ints[i].off), err, errlen);
		if (r < 0)
			return -1;
		if (r)
			j->res |= ints[i].bit;
	}
	struct json *s = json_get(v, "gpu_spec");
	if (s) {
		if (s->kind != JSON_STRING) {
			snprintf(err, errlen, "job '%s': 'gpu_spec' must be a string", j->id);
			return -1;
		}
		if (strlen(s->u.str.s) != s->u.str.len) {
			snprintf(err, errlen, "job '%s': 'gpu_spec' contains a NUL byte", j->id);
			return -1;
		}
		j->gpu_spec = s->u.str.s;
		j->res |= TRACE_RES_GPU_SPEC;
	}
	return 0;
}

static void add_key(struct strbuf *sb, const char *key, long long v)
{
	sb_adds(sb, ",\"");
	sb_adds(sb, key);
	sb_adds(sb, "\":");
	sb_add_int(sb, v);
}

void trace_res_node_write(struct strbuf *sb, const struct trace_node *n)
{
	if (n->res & TRACE_RES_CPU)
		add_key(sb, "cpu_milli", n->cpu_milli);
	if (n->res & TRACE_RES_MEM)
		add_key(sb, "memory_mib", n->memory_mib);
}

void trace_res_job_write(struct strbuf *sb, const struct trace_job *j)
{
	if (j->res & TRACE_RES_WORKERS)
		add_key(sb, "workers", j->workers);
	if (j->res & TRACE_RES_CPU)
		add_key(sb, "cpu_milli", j->cpu_milli);
	if (j->res & TRACE_RES_MEM)
		add_key(sb, "memory_mib", j->memory_mib);
	if (j->res & TRACE_RES_GPU_MILLI)
		add_key(sb, "gpu_milli", j->gpu_milli);
	if (j->res & TRACE_RES_GPU_SPEC) {
		sb_adds(sb, ",\"gpu_spec\":");
		sb_add_jstr(sb, j->gpu_spec, strlen(j->gpu_spec));
	}
}

bool trace_res_same(const struct trace_job *a, const struct trace_job *b)
{
	unsigned r = a->res;
	return r == b->res && (!(r & TRACE_RES_WORKERS) || a->workers == b->workers) &&
	       (!(r & TRACE_RES_CPU) || a->cpu_milli == b->cpu_milli) && (!(r & TRACE_RES_MEM) || a->memory_mib == b->memory_mib) &&
	       (!(r & TRACE_RES_GPU_MILLI) || a->gpu_milli == b->gpu_milli) && (!(r & TRACE_RES_GPU_SPEC) || a->gpu_spec == b->gpu_spec);
}

/* ---- the interchange directory ---- */

bool trace_res_any_node(const struct trace *t)
{
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].res)
			return true;
	return false;
}

bool trace_res_any_job(const struct trace *t)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (t->jobs[i].res)
			return true;
	return false;
}

static void cell(struct strbuf *sb, bool present, long long v)
{
	sb_addc(sb, ',');
	if (present)
		sb_add_int(sb, v);
}

void trace_res_node_csv(struct strbuf *sb, const struct trace_node *n)
{
	cell(sb, n->res & TRACE_RES_CPU, n->cpu_milli);
	cell(sb, n->res & TRACE_RES_MEM, n->memory_mib);
}

void trace_res_job_csv(struct strbuf *sb, const struct trace_job *j)
{
	cell(sb, j->res & TRACE_RES_WORKERS, j->workers);
	cell(sb, j->res & TRACE_RES_CPU, j->cpu_milli);
	cell(sb, j->res & TRACE_RES_MEM, j->memory_mib);
	cell(sb, j->res & TRACE_RES_GPU_MILLI, j->gpu_milli);
	sb_addc(sb, ',');
	if (!(j->res & TRACE_RES_GPU_SPEC))
		return;
	if (!strpbrk(j->gpu_spec, ",\"\n\r")) {   /* quoted as the other cells are (QUOTE_MINIMAL) */
		sb_adds(sb, j->gpu_spec);
		return;
	}
	sb_addc(sb, '"');
	for (const char *s = j->gpu_spec; *s; s++) {
		if (*s == '"')
			sb_addc(sb, '"');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

/* A cell: "" absent (0), a plain decimal integer (1), else -1 and a message. */
static int int_cell(const char *rec, const char *id, const char *col, char *s, long long *out, char *err, size_t errlen)
{
	s = csv_trim(s);
	if (!*s)
		return 0;
	const char *p = s + (*s == '-');
	bool ok = *p != 0;
	for (; *p; p++)
		ok = ok && *p >= '0' && *p <= '9';
	errno = 0;
	long long v = ok ? strtoll(s, NULL, 10) : 0;
	if (!ok || errno) {
		char q[100];
		text_quote(q, sizeof q, s, strlen(s));
		snprintf(err, errlen, "%s '%s': %s '%s' is not an integer", rec, id, col, q);
		return -1;
	}
	*out = v;
	return 1;
}

int trace_res_node_cells(struct trace_node *n, char *const *cells, char *err, size_t errlen)
{
	int a = int_cell("node", n->id, "cpu_milli", cells[0], &n->cpu_milli, err, errlen);
	int b = a < 0 ? -1 : int_cell("node", n->id, "memory_mib", cells[1], &n->memory_mib, err, errlen);
	if (a < 0 || b < 0)
		return -1;
	n->res = (a ? TRACE_RES_CPU : 0) | (b ? TRACE_RES_MEM : 0);
	return 0;
}

int trace_res_job_cells(struct trace_job *j, char *const *cells, char *err, size_t errlen)
{
	long long *dst[4] = { &j->workers, &j->cpu_milli, &j->memory_mib, &j->gpu_milli };
	static const unsigned bits[4] = { TRACE_RES_WORKERS, TRACE_RES_CPU, TRACE_RES_MEM, TRACE_RES_GPU_MILLI };
	j->res = 0;
	for (int i = 0; i < 4; i++) {
		int r = int_cell("job", j->id, TRACE_RES_JOB_COLS[i], cells[i], dst[i], err, errlen);
		if (r < 0)
			return -1;
		if (r)
			j->res |= bits[i];
	}
	const char *spec = csv_trim(cells[4]);
	if (*spec) {
		j->gpu_spec = (char *)spec;
		j->res |= TRACE_RES_GPU_SPEC;
	}
	return 0;
}
