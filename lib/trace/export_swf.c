/* export_swf — a canonical trace as a Standard Workload Format v2.2 log (issue 37): the inverse
 * of trace-import swf for every field SWF keeps. Job Number: the job_id when it is a whole
 * number >= 1 (every SWF-imported trace), else the job's position in (submit, job_id) order;
 * Submit and Run Time: submit and duration; processors: gpus / gpus_per_proc (the GPU count
 * when 1); Requested Time: time_limit or -1; Status 1; Queue: 1 for HP, 2 for Spot; Partition:
 * the GPU model's number in the header's list ("*" = 0, any); User: the tenant's number in
 * first-seen order (-1 without tenants). Fields the trace does not hold are -1. */
#include "trace/export_swf.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "YYYY-MM-DD HH:MM:SS" as seconds since 1970, or -1. */
static long long origin_seconds(const char *s)
{
	int y, mo, d, h, mi, se;
	char tail;
	if (!s || sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6 || mo < 1 || mo > 12 || d < 1 || d > 31)
		return -1;
	long long yy = y - (mo <= 2);
	long long era = (yy >= 0 ? yy : yy - 399) / 400, yoe = yy - era * 400;
	long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60 + se;
}

static void num(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		sb_addf(sb, " %lld", (long long)v);
	else
		sb_addf(sb, " %.17g", v);
}

static int index_of(const char **names, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	names[*n] = s;
	return (int)(*n)++;
}

int trace_export_swf(const struct trace *t, long long gpus_per_proc, struct strbuf *out, char *err, size_t errlen)
{
	const char **models = xcalloc(t->n_nodes + t->n_jobs + 1, sizeof *models);
	const char **tenants = xcalloc(t->n_jobs + 1, sizeof *tenants);
	size_t nm = 0, nt = 0;
	long long cap = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		index_of(models, &nm, t->nodes[i].model);
		cap += t->nodes[i].gpu_count;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		if (fmod(t->jobs[i].gpus, (double)gpus_per_proc) != 0) {
			snprintf(err, errlen, "job '%s': %.17g GPUs is not a whole number of processors of %lld GPUs (--gpus-per-proc)", t->jobs[i].id,
				 t->jobs[i].gpus, gpus_per_proc);
			free(models);
			free(tenants);
			return -1;
		}
	sb_adds(out, "; Version: 2.2\n");
	sb_addf(out, "; Computer: SchedNav trace %s\n", t->trace_id);
	sb_adds(out, "; Conversion: trace-export --format swf (SchedNav)\n");
	long long u = origin_seconds(t->time_origin);
	if (u >= 0)
		sb_addf(out, "; UnixStartTime: %lld\n; TimeZoneString: UTC\n", u);
	sb_addf(out, "; MaxJobs: %zu\n; MaxRecords: %zu\n", t->n_jobs, t->n_jobs);
	sb_addf(out, "; MaxNodes: %zu\n; MaxProcs: %lld\n", t->n_nodes, cap / gpus_per_proc);
	sb_adds(out, "; MaxQueues: 2\n; Queues: queue 1 = HP, queue 2 = Spot\n");
	sb_addf(out, "; MaxPartitions: %zu\n; Partitions: 0 = any GPU model", nm);
	for (size_t i = 0; i < nm; i++)
		sb_addf(out, ", %zu = %s", i + 1, models[i]);
	sb_addf(out, "\n; Note: one processor is %lld GPU(s)\n", gpus_per_proc);
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		char *end;
		long long id = strtoll(j->id, &end, 10);
		char idbuf[24];
		snprintf(idbuf, sizeof idbuf, "%lld", id);
		if (*end || id < 1 || strcmp(idbuf, j->id))
			id = (long long)i + 1;
		double procs = j->gpus / (double)gpus_per_proc;
		int part = strcmp(j->model, "*") ? index_of(models, &nm, j->model) + 1 : 0;
		int user = j->tenant ? index_of(tenants, &nt, j->tenant) + 1 : -1;
		sb_addf(out, "%lld", id);
		num(out, j->submit);
		sb_adds(out, " -1");
		num(out, j->duration);
		num(out, procs);
		sb_adds(out, " -1 -1");
		num(out, procs);
		sb_addf(out, " %lld -1 1 %d -1 -1 %d %d -1 -1\n", j->time_limit > 0 ? j->time_limit : -1LL, user, j->hp ? 1 : 2, part);
	}
	free(models);
	free(tenants);
	return 0;
}
