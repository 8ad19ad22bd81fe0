/* Pool saturation per GPU model (saturation.h, trace-analyze(1) --saturation). */
#include "eval/saturation.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR 3600.0
#define SATURATED_SHARE 0.5   /* saturated: demand above capacity on average, or in more than half the hours */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static struct json *num(struct arena *a, double x)
{
	return isfinite(x) ? json_real(a, round(x * 1e6) / 1e6) : json_null(a);
}

/* The sorted distinct models of t's nodes and jobs. */
static size_t models_of(const struct trace *t, const char ***out)
{
	size_t n = 0, cap = t->n_nodes + t->n_jobs + 1;
	const char **m = xmalloc(cap * sizeof *m);
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].model)
			m[n++] = t->nodes[i].model;
	for (size_t i = 0; i < t->n_jobs; i++)
		if (t->jobs[i].model && strcmp(t->jobs[i].model, "*"))
			m[n++] = t->jobs[i].model;
	qsort(m, n, sizeof *m, cmp_str);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (!w || strcmp(m[i], m[w - 1]))
			m[w++] = m[i];
	*out = m;
	return w;
}

static size_t find(const char **m, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(m[mid], name);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

static struct json *record(struct arena *a, const char *model, double cap, bool explicit_cap, const double *s, size_t nh, long long h0,
	double gpu_seconds)
{
	double sum = 0, peak = 0;
	size_t above = 0;
	for (size_t h = 0; h < nh; h++) {
		sum += s[h];
		peak = s[h] > peak ? s[h] : peak;
		above += s[h] > cap;
	}
	double ratio = cap > 0 && nh ? sum / (cap * (double)nh) : NAN, share = nh ? (double)above / (double)nh : NAN;
	bool sat = cap > 0 ? ratio > 1 || share > SATURATED_SHARE : sum > 0;
	struct json *r = json_object(a);
	json_set(a, r, "type", json_str(a, SATURATION_RECORD));
	json_set(a, r, "gpu_model", json_str(a, model));
	json_set(a, r, "capacity_gpus", num(a, cap));
	json_set(a, r, "capacity_source", json_str(a, explicit_cap ? "--capacity (explicit)" : "the trace's nodes"));
	json_set(a, r, "first_hour", json_int(a, h0));
	json_set(a, r, "hours", json_int(a, (long long)nh));
	json_set(a, r, "mean_demand_gpus", num(a, nh ? sum / (double)nh : NAN));
	json_set(a, r, "peak_demand_gpus", num(a, peak));
	json_set(a, r, "demand_over_capacity", num(a, ratio));
	json_set(a, r, "hours_above_capacity", json_int(a, (long long)above));
	json_set(a, r, "hours_above_capacity_share", num(a, share));
	json_set(a, r, "saturated", json_bool(a, sat));
	/* The offered load: GPU-seconds in the window over capacity x window. Above 1 the queue
	 * grows for as long as the trace lasts (touched hours overstate jobs shorter than an hour). */
	double offered = cap > 0 && nh ? gpu_seconds / (cap * HOUR * (double)nh) : NAN;
	bool unbounded = cap > 0 ? offered > 1 : gpu_seconds > 0;
	json_set(a, r, "offered_load", num(a, offered));
	json_set(a, r, "queue_unbounded", json_bool(a, unbounded));
	char msg[400];
	if (unbounded)
		snprintf(msg, sizeof msg, "demand is above capacity in %.1f %% of the window's hours (%.2fx over the window, offered load %.2f): "
			"the queue has no bound, so whole-pool queue percentiles measure the trace's length, not the policy",
			100 * share, ratio, offered);
	else if (sat)
		snprintf(msg, sizeof msg, "demand is above capacity in %.1f %% of the window's hours (%.2fx over the window) by touched hours, "
			"but the offered load is %.2f: jobs shorter than an hour are counted whole hours, and the queue is bounded",
			100 * share, ratio, offered);
	else
		snprintf(msg, sizeof msg, "demand is above capacity in %.1f %% of the window's hours (%.2fx over the window)",
			100 * share, ratio);
	json_set(a, r, "meaning", json_str(a, msg));
	return r;
}

int ev_saturation_records(struct arena *a, const struct trace *t, long long h0, long long h1,
	const struct saturation_capacity *caps, size_t n_caps, struct json ***out, size_t *n, char *err, size_t errlen)
{
	const char **m;
	size_t nm = models_of(t, &m), nh = h1 > h0 ? (size_t)(h1 - h0) : 0;
	for (size_t k = 0; k < n_caps; k++)
		if (find(m, nm, caps[k].model) == nm) {
			snprintf(err, errlen, "--capacity: no GPU model '%s' in the trace", caps[k].model);
			free(m);
			return -1;
		}
	double *cap = xcalloc(nm ? nm : 1, sizeof *cap), *s = xcalloc(nm * nh + 1, sizeof *s), *gs = xcalloc(nm + 1, sizeof *gs);
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].model)
			cap[find(m, nm, t->nodes[i].model)] += (double)t->nodes[i].gpu_count;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (!j->model || !strcmp(j->model, "*"))
			continue;   /* a job of any model belongs to no one pool */
		size_t k = find(m, nm, j->model);
		long long a0 = (long long)floor(j->submit / HOUR), a1 = (long long)floor((j->submit + j->duration - 1) / HOUR);
		double t0 = fmax(j->submit, (double)h0 * HOUR), t1 = fmin(j->submit + j->duration, (double)h1 * HOUR);
		gs[k] += t1 > t0 ? (t1 - t0) * j->gpus : 0;
		a0 = a0 > h0 ? a0 : h0;
		a1 = a1 < h1 - 1 ? a1 : h1 - 1;
		for (long long h = a0; h <= a1; h++)
			s[k * nh + (size_t)(h - h0)] += j->gpus;
	}
	struct json **recs = arena_alloc(a, (nm ? nm : 1) * sizeof *recs);
	for (size_t k = 0; k < nm; k++) {
		bool explicit_cap = false;
		for (size_t c = 0; c < n_caps; c++)
			if (!strcmp(caps[c].model, m[k])) {
				cap[k] = (double)caps[c].gpus;
				explicit_cap = true;
			}
		recs[k] = record(a, m[k], cap[k], explicit_cap, &s[k * nh], nh, h0, gs[k]);
	}
	*out = recs;
	*n = nm;
	free(m); free(cap); free(s); free(gs);
	return 0;
}
