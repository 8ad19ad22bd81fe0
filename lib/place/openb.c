/* The openb CSVs of the FGD artifact (../shared/data/alibaba-gpu-v2023/): the node list
 * (sn,cpu_milli,memory_mib,gpu,model) and the pod lists (name,cpu_milli,memory_mib,num_gpu,
 * gpu_milli[,gpu_spec,...]). Every value is checked; the first bad one is the error
 * "PATH:LINE: message". */
#include "place/openb.h"
#include "core/csv.h"
#include "core/num.h"
#include "core/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sheet {
	struct zio_reader *z;
	struct csv_reader csv;
	const char *path;
};

static int fail(char *err, size_t errlen, const struct sheet *s, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, const struct sheet *s, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%lu: %s", s->path, s->csv.lineno, msg);
	return -1;
}

/* Open path and read its header; the columns of want[] (NULL-terminated) into col[] (-1 if
 * absent); the first nrequired of them must be present. */
static int sheet_open(struct sheet *s, const char *path, const char *const *want, int *col, int nrequired, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	if (!(s->z = zr_open(path, false, err, errlen)))
		return -1;
	csv_init(&s->csv, s->z);
	int rc = csv_next(&s->csv, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(err, errlen, "%s: empty file (no header)", path);
		return -1;
	}
	for (int i = 0; want[i]; i++) {
		col[i] = csv_column(&s->csv, want[i]);
		if (i < nrequired && col[i] < 0)
			return fail(err, errlen, s, "no '%s' column", want[i]);
	}
	return 0;
}

static void sheet_close(struct sheet *s)
{
	if (s->z) {
		csv_release(&s->csv);
		zr_close(s->z);
	}
}

/* The integer of column col in lo..hi, or the error naming it. */
static int field_int(struct sheet *s, int col, const char *name, long long lo, long long hi, long long *out, char *err, size_t errlen)
{
	if ((size_t)col >= s->csv.nfields)
		return fail(err, errlen, s, "missing '%s'", name);
	const char *v = csv_trim(s->csv.fields[col]);
	if (num_parse_int(v, out))
		return fail(err, errlen, s, "'%s' is not an integer: '%.40s'", name, v);
	if (*out < lo || *out > hi)
		return fail(err, errlen, s, "'%s' %lld out of range %lld..%lld", name, *out, lo, hi);
	return 0;
}

int place_read_nodes(struct place_cluster *c, const char *path, char *err, size_t errlen)
{
	static const char *const want[] = { "cpu_milli", "memory_mib", "gpu", "model", NULL };
	int col[4];
	struct sheet s;
	int rc = sheet_open(&s, path, want, col, 4, err, errlen);
	while (!rc && (rc = csv_next(&s.csv, err, errlen)) == 1) {
		long long cpu, mem, gpu;
		rc = -1;
		if (field_int(&s, col[0], "cpu_milli", 0, INT64_MAX / 4, &cpu, err, errlen) ||
		    field_int(&s, col[1], "memory_mib", 0, INT64_MAX / 4, &mem, err, errlen) ||
		    field_int(&s, col[2], "gpu", 0, PLACE_MAX_GPUS, &gpu, err, errlen))
			break;
		const char *model = (size_t)col[3] < s.csv.nfields ? csv_trim(s.csv.fields[col[3]]) : "";
		if (gpu > 0 && !*model) {
			fail(err, errlen, &s, "a node with GPUs needs a 'model'");
			break;
		}
		int m = gpu > 0 ? place_model_index(c, model) : -1;
		if (gpu > 0 && m < 0) {
			fail(err, errlen, &s, "more than %d GPU models", PLACE_MAX_MODELS);
			break;
		}
		place_add_node(c, cpu, mem, (int)gpu, m);
		rc = 0;
	}
	if (rc == 0 && c->gpu_capacity == 0)
		rc = fail(err, errlen, &s, "no node with a GPU");
	sheet_close(&s);
	return rc < 0 ? -1 : 0;
}

/* The models a gpu_spec allows, as a mask over the cluster's models: names no node has are
 * ignored; a spec naming no node's model at all is an error (no node could ever hold it). */
static int spec_mask(const struct place_cluster *c, struct sheet *s, const char *spec, uint64_t *mask, char *err, size_t errlen)
{
	*mask = 0;
	if (!*spec)
		return 0;
	const char *p = spec;
	for (;;) {
		size_t n = strcspn(p, "|");
		char name[128];
		if (n >= sizeof name)
			return fail(err, errlen, s, "gpu_spec name longer than %zu bytes", sizeof name - 1);
		memcpy(name, p, n);
		name[n] = '\0';
		int m = place_model_find(c, csv_trim(name));
		if (m >= 0)
			*mask |= 1ULL << m;
		if (!p[n])
			break;
		p += n + 1;
	}
	if (!*mask)
		return fail(err, errlen, s, "gpu_spec '%.60s' names no node's GPU model", spec);
	return 0;
}

static int pod_row(const struct place_cluster *c, struct sheet *s, const int *col, struct place_pod *pod, char **name, char *err, size_t errlen)
{
	long long cpu, mem, num, milli = PLACE_GPU_MILLI;
	if (field_int(s, col[1], "cpu_milli", 0, INT64_MAX / 4, &cpu, err, errlen) ||
	    field_int(s, col[2], "memory_mib", 0, INT64_MAX / 4, &mem, err, errlen) ||
	    field_int(s, col[3], "num_gpu", 0, PLACE_MAX_GPUS, &num, err, errlen))
		return -1;
	bool has_milli = col[4] >= 0 && (size_t)col[4] < s->csv.nfields && *csv_trim(s->csv.fields[col[4]]);
	if (has_milli && field_int(s, col[4], "gpu_milli", 0, PLACE_GPU_MILLI, &milli, err, errlen))
		return -1;
	if (num == 0)
		milli = 0;      /* CPU-only: whatever gpu_milli says is no GPU */
	else if (milli == 0)
		return fail(err, errlen, s, "'gpu_milli' 0 with 'num_gpu' %lld", num);
	else if (num > 1 && milli < PLACE_GPU_MILLI)
		return fail(err, errlen, s, "'gpu_milli' %lld below 1000 with 'num_gpu' %lld (only one GPU may be shared)", milli, num);
	*pod = (struct place_pod){ cpu, mem, (int)num, (int)milli, 0 };
	const char *spec = col[5] >= 0 && (size_t)col[5] < s->csv.nfields ? csv_trim(s->csv.fields[col[5]]) : "";
	if (spec_mask(c, s, spec, &pod->spec_mask, err, errlen))
		return -1;
	const char *nm = (size_t)col[0] < s->csv.nfields ? csv_trim(s->csv.fields[col[0]]) : "";
	*name = xstrdup(nm);
	return 0;
}

struct named { char *name; struct place_pod pod; size_t line; };

static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int d = strcmp(x->name, y->name);
	return d ? d : (x->line > y->line) - (x->line < y->line);
}

int place_read_pods(const struct place_cluster *c, const char *path, struct place_pod **pods, size_t *npods, char *err, size_t errlen)
{
	static const char *const want[] = { "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", NULL };
	int col[6];
	struct sheet s;
	struct named *rows = NULL;
	size_t n = 0, cap = 0;
	int rc = sheet_open(&s, path, want, col, 4, err, errlen);
	while (!rc && (rc = csv_next(&s.csv, err, errlen)) == 1) {
		rows = xgrow(rows, &cap, n + 1, sizeof *rows);
		if (pod_row(c, &s, col, &rows[n].pod, &rows[n].name, err, errlen)) {
			rc = -1;
			break;
		}
		rows[n].line = n;
		n++;
		rc = 0;
	}
	if (rc == 0 && n == 0)
		rc = fail(err, errlen, &s, "no pods");
	sheet_close(&s);
	*pods = NULL;
	*npods = 0;
	if (rc == 0) {
		/* The artifact sorts the pods by name before it shuffles them. */
		qsort(rows, n, sizeof *rows, by_name);
		*pods = xmalloc(n * sizeof **pods);
		for (size_t i = 0; i < n; i++)
			(*pods)[i] = rows[i].pod;
		*npods = n;
	}
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
	return rc < 0 ? -1 : 0;
}
