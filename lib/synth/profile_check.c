/* profile_check — see profile_check.h. */
#include "synth/profile_check.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "trace/export.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int synth_check_name(const char *path, const char *name, size_t len, char *err, size_t errlen)
{
	char q[128];
	text_quote(q, sizeof q, name, len);
	const char *why = len > SYNTH_NAME_MAX ? NULL : text_id_problem(name, len);
	if (len > SYNTH_NAME_MAX)
		snprintf(err, errlen, "%s: 'name': '%s' is %zu bytes, more than %d (the trace id synth-NAME-sSEED... must stay within %d bytes)", path, q,
			 len, SYNTH_NAME_MAX, TEXT_ID_MAX);
	else if (why)
		snprintf(err, errlen, "%s: 'name': '%s' %s (it becomes the trace id)", path, q, why);
	return len > SYNTH_NAME_MAX || why ? -1 : 0;
}

int synth_check_origin(const char *path, const char *origin, size_t len, char *err, size_t errlen)
{
	char q[128];
	text_quote(q, sizeof q, origin, len);
	const char *why = text_id_problem(origin, len);
	if (why) {
		snprintf(err, errlen, "%s: 'time_origin': '%s' %s", path, q, why);
		return -1;
	}
	if (!trace_iso_time_valid(origin)) {
		snprintf(err, errlen, "%s: 'time_origin': '%s' is not a date and time (YYYY-MM-DD HH:MM:SS, as sim-run and the calendars read it)", path, q);
		return -1;
	}
	return 0;
}

static const struct synth_real *sort_base;
static int by_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_base[i].name, sort_base[j].name);
	return c ? c : (i > j) - (i < j);
}

int synth_check_real_names(const char *path, const struct synth_real *real, size_t n, char *err, size_t errlen)
{
	char q[128];
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(real[i].name);
		if (len > SYNTH_REAL_NAME_MAX) {
			text_quote(q, sizeof q, real[i].name, len);
			snprintf(err, errlen, "%s: 'v3.real_jobs.rows[%zu]': job name '%s' is %zu bytes, more than %d (its job id real-NAME must stay within %d bytes)",
				 path, i, q, len, SYNTH_REAL_NAME_MAX, TEXT_ID_MAX);
			return -1;
		}
	}
	size_t *ix = xmalloc((n ? n : 1) * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	sort_base = real;
	qsort(ix, n, sizeof *ix, by_name);
	int rc = 0;
	for (size_t k = 1; k < n && !rc; k++)
		if (!strcmp(real[ix[k]].name, real[ix[k - 1]].name)) {
			text_quote(q, sizeof q, real[ix[k]].name, strlen(real[ix[k]].name));
			snprintf(err, errlen, "%s: 'v3.real_jobs.rows[%zu]': job name '%s' is also rows[%zu]'s (job ids real-NAME must be unique)", path,
				 ix[k], q, ix[k - 1]);
			rc = -1;
		}
	free(ix);
	return rc;
}

int synth_check_real_hours(const char *path, const struct synth_profile *p, double load_factor, char *err, size_t errlen)
{
	/* synth_scaled_hours converts load_factor x cumulative count to a 64-bit count: refuse a
	 * factor that would overflow it before that conversion (1e308 gave INT64_MIN). */
	if (!isfinite(load_factor) || !(load_factor > 0) || load_factor * (double)p->total_jobs > 0x1p62) {
		snprintf(err, errlen, "load factor %g would make more than %lld jobs", load_factor, SYNTH_MAX_JOBS);
		return -1;
	}
	long long *in = xcalloc(p->n_hours ? p->n_hours : 1, sizeof *in), *hours = xmalloc((p->n_hours ? p->n_hours : 1) * sizeof *hours);
	synth_scaled_hours(p, load_factor, hours);
	int rc = 0;
	for (size_t i = 0; i < p->n_real; i++) {
		size_t h = (size_t)(p->real[i].submit / 3600);
		if (h < p->n_hours && ++in[h] > hours[h]) {
			if (load_factor == 1.0)
				snprintf(err, errlen, "%s: 'v3.real_jobs.rows[%zu]': real job %lld of hour %zu, to which 'hourly_jobs' gives %lld jobs (every hour keeps its exact count)",
					 path, i, in[h], h, hours[h]);
			else
				snprintf(err, errlen, "%s: --load-factor %g leaves hour %zu %lld jobs, fewer than its real job rows ('v3.real_jobs.rows[%zu]' is one; real jobs are placed as they were, and every hour keeps its exact count)",
					 path, load_factor, h, hours[h], i);
			rc = -1;
			break;
		}
	}
	free(in);
	free(hours);
	return rc;
}
