/* workload — the workload summary of a trace window (see workload.h). */
#include "eval/workload.h"
#include "core/fp.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/evidence.h"
#include "eval/metrics.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R6(v) num_round((v), 6)
#define MAX_SAMPLES 20000000.0 /* 20 M samples: a 38-year window at 60 s */

/* Python's float floor division a // b for b > 0 (exact, unlike floor(a / b)). */
static double py_floordiv(double a, double b)
{
	double mod = fmod(a, b), div = (a - mod) / b;
	if (mod != 0 && (mod < 0) != (b < 0))
		div -= 1.0;
	if (div == 0)
		return copysign(0.0, a / b);
	double fl = floor(div);
	return div - fl > 0.5 ? fl + 1.0 : fl;
}

/* First index i in s[0..n) with s[i] >= x (s ascending). */
static size_t lower_bound(const double *s, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct wl_class {
	long long jobs, carry_jobs, running_at_cutoff;
	double requested, gpu_hours, carry_gpus;
	double *durations, *arrivals, *active;
	size_t n_durations;
	size_t *members;     /* indices of the window's jobs, trace order */
	size_t n_members;
};

/* {mean, p50, p95, max, cv} of v (sorted in place), each round6; all null when n == 0. */
static struct json *stats(struct arena *a, double *v, size_t n)
{
	struct json *o = json_object(a);
	static const char *const keys[] = { "mean", "p50", "p95", "max", "cv" };
	if (n == 0) {
		for (size_t k = 0; k < 5; k++)
			json_set(a, o, keys[k], json_null(a));
		return o;
	}
	double sum = 0, hi = v[0];
	for (size_t i = 0; i < n; i++) {   /* Python 3.11 sum(): naive, in list order */
		sum += v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	double mean = sum / (double)n, sq = 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	double sd = sqrt(sq / (double)n);
	json_set(a, o, "mean", json_real(a, R6(mean)));
	json_set(a, o, "p50", json_real(a, R6(ev_metrics_quantile(v, n, 0.50))));
	json_set(a, o, "p95", json_real(a, R6(ev_metrics_quantile(v, n, 0.95))));
	json_set(a, o, "max", json_real(a, R6(hi)));
	json_set(a, o, "cv", mean != 0 ? json_real(a, R6(sd / mean)) : json_null(a));
	return o;
}

static double vmax(const double *v, size_t n)
{
	double m = v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static double vmean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

static const struct trace *sort_trace; /* qsort context: members sort by (key, index) */
static bool sort_by_tenant;

static int member_cmp(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct trace_job *ja = &sort_trace->jobs[ia], *jb = &sort_trace->jobs[ib];
	int c = strcmp(sort_by_tenant ? ja->tenant : ja->model, sort_by_tenant ? jb->tenant : jb->model);
	return c ? c : (ia > ib) - (ia < ib);
}

static struct json *share_or_null(struct arena *a, double part, double whole)
{
	return whole != 0 ? json_real(a, R6(part / whole)) : json_null(a);
}

/* {MODEL: {job_count, requested_gpus, requested_gpu_share}} in byte order of the model. */
static struct json *model_mix(struct arena *a, const struct trace *t, struct wl_class *c)
{
	struct json *mix = json_object(a);
	sort_trace = t;
	sort_by_tenant = false;
	qsort(c->members, c->n_members, sizeof *c->members, member_cmp);
	for (size_t i = 0; i < c->n_members;) {
		const char *model = t->jobs[c->members[i]].model;
		long long n = 0;
		double gpus = 0;
		for (; i < c->n_members && !strcmp(t->jobs[c->members[i]].model, model); i++, n++)
			gpus += t->jobs[c->members[i]].gpus;
		struct json *m = json_object(a);
		json_set(a, m, "job_count", json_int(a, n));
		json_set(a, m, "requested_gpus", json_real(a, R6(gpus)));
		json_set(a, m, "requested_gpu_share", share_or_null(a, gpus, c->requested));
		json_set(a, mix, model, m);
	}
	return mix;
}

/* Tenant concentration without naming a tenant: count, the largest share, Herfindahl index. */
static struct json *tenant_concentration(struct arena *a, const struct trace *t, struct wl_class *c)
{
	if (t->version < 2)
		return json_null(a);
	sort_trace = t;
	sort_by_tenant = true;
	qsort(c->members, c->n_members, sizeof *c->members, member_cmp);
	long long tenants = 0;
	double top = 0, hhi = 0;
	for (size_t i = 0; i < c->n_members;) {
		const char *tenant = t->jobs[c->members[i]].tenant;
		double gpus = 0;
		for (; i < c->n_members && !strcmp(t->jobs[c->members[i]].tenant, tenant); i++)
			gpus += t->jobs[c->members[i]].gpus;
		tenants++;
		if (gpus > top)
			top = gpus;
		if (c->requested != 0)
			hhi += (gpus / c->requested) * (gpus / c->requested);
	}
	struct json *o = json_object(a);
	json_set(a, o, "tenant_count", json_int(a, tenants));
	json_set(a, o, "top_tenant_requested_gpu_share", share_or_null(a, top, c->requested));
	json_set(a, o, "herfindahl_index", c->requested != 0 ? json_real(a, R6(hhi)) : json_null(a));
	return o;
}

static struct json *class_profile(struct arena *a, const struct trace *t, struct wl_class *c, double total_requested,
				  double window_length, size_t n_samples, double capacity, bool cutoff)
{
	struct json *o = json_object(a);
	json_set(a, o, "requested_gpu_share", share_or_null(a, c->requested, total_requested));
	json_set(a, o, "arrivals_per_hour",
		 window_length > 0 ? json_real(a, R6((double)c->jobs * 3600.0 / window_length)) : json_null(a));
	json_set(a, o, "peak_active_pressure", json_real(a, R6(vmax(c->active, n_samples) / capacity)));
	json_set(a, o, "mean_active_pressure", json_real(a, R6(vmean(c->active, n_samples) / capacity)));
	struct json *carry = json_object(a);
	json_set(a, carry, "job_count", json_int(a, c->carry_jobs));
	json_set(a, carry, "requested_gpus", json_real(a, R6(c->carry_gpus)));
	json_set(a, o, "carry_in", carry);
	json_set(a, o, "gpu_model_mix", model_mix(a, t, c));
	json_set(a, o, "tenant_concentration", tenant_concentration(a, t, c));
	if (cutoff)
		json_set(a, o, "running_at_cutoff_job_count", json_int(a, c->running_at_cutoff));
	return o;
}

/* Regime label from the original's signals (documented in trace-analyze(1)). */
static const char *regime_label(double total_requested, double hp_peak, double combined_peak, bool has_share,
				double spot_share)
{
	if (total_requested == 0)
		return "idle";
	if (hp_peak >= 0.9)
		return "hp-constrained";
	if (combined_peak >= 1.0)
		return "contended";
	if (has_share && spot_share >= 0.55)
		return "spot-heavy";
	return "balanced";
}

/* XXH3-128 over what is visible at the cutoff: the nodes and the visible jobs' fields. */
static void visible_fingerprint(const struct trace *t, size_t n_visible, double cutoff, char out[FP_HEX_XXH3])
{
	struct strbuf sb;
	sb_init(&sb);
	struct fp_xxh3 h;
	fp_xxh3_init(&h);
	for (size_t i = 0; i < t->n_nodes; i++) {
		sb_reset(&sb);
		sb_addf(&sb, "node\t%s\t%s\t%lld\n", t->nodes[i].id, t->nodes[i].model, t->nodes[i].gpu_count);
		fp_xxh3_update(&h, sb.buf, sb.len);
	}
	for (size_t i = 0; i < n_visible; i++) {
		const struct trace_job *j = &t->jobs[i];
		sb_reset(&sb);
		sb_addf(&sb, "job\t%s\t", j->id);
		sb_add_double(&sb, j->submit);
		sb_addc(&sb, '\t');
		if (j->submit + j->duration > cutoff)   /* still running: its end is not known yet */
			sb_adds(&sb, "running");
		else
			sb_add_double(&sb, j->duration);
		sb_addc(&sb, '\t');
		sb_add_double(&sb, j->gpus);
		sb_addf(&sb, "\t%s\t%s\t%s\n", j->hp ? "HP" : "Spot", j->model, j->tenant ? j->tenant : "");
		fp_xxh3_update(&h, sb.buf, sb.len);
	}
	fp_xxh3_hex(&h, out);
	fp_xxh3_release(&h);
	sb_release(&sb);
}

static struct json *definitions(struct arena *a)
{
	struct json *d = json_object(a);
	json_set(a, d, "requested_gpus", json_str(a, "Sum of requested GPUs for arrivals in the evaluation window."));
	json_set(a, d, "sampled_active_requested_gpus",
		 json_str(a, "Trace-intended concurrent demand at sample timestamps; this is not simulated allocation."));
	json_set(a, d, "pressure", json_str(a, "Sampled active requested GPUs divided by physical GPU capacity and may exceed one."));
	json_set(a, d, "class_profile",
		 json_str(a, "Per class: share of the window's requested GPUs, arrivals per hour of window, peak and mean sampled "
			     "pressure, jobs submitted before the window still active at its start, requested GPUs by GPU model, "
			     "and tenant concentration (tenant count, largest tenant share, Herfindahl index; null without tenants)."));
	json_set(a, d, "regime_label",
		 json_str(a, "idle (nothing requested), else hp-constrained (HP peak pressure >= 0.9), else contended (combined "
			     "peak pressure >= 1), else spot-heavy (Spot share >= 0.55), else balanced."));
	return d;
}

static void release_classes(struct wl_class cls[2])
{
	for (int k = 0; k < 2; k++) {
		free(cls[k].durations);
		free(cls[k].members);
		free(cls[k].arrivals);
		free(cls[k].active);
	}
}

/* The summary's window [start, end]: the options', else the trace's evaluation window, else
 * the visible jobs' submit span (ending at the cutoff); -1 with err when it is not a window,
 * reads the future or no visible job reaches it. */
static int summary_window(const struct trace *t, const struct workload_opts *o, size_t n_visible, double *window_start,
			  double *window_end, char *err, size_t errlen)
{
	double start, end;
	if (o->has_start)
		start = o->start;
	else if (t->has_window)
		start = t->eval_start;
	else if (n_visible)
		start = t->jobs[0].submit;
	else {
		snprintf(err, errlen, "no job %s: give --eval-start and --eval-end", o->has_cutoff ? "submitted by the cutoff" : "in the trace");
		return -1;
	}
	if (o->has_end)
		end = o->end;
	else {
		if (t->has_window)
			end = t->eval_end;
		else if (n_visible) {
			end = t->jobs[0].submit;
			for (size_t i = 1; i < n_visible; i++)
				end = fmax(end, t->jobs[i].submit);
		} else {
			snprintf(err, errlen, "no job %s: give --eval-end", o->has_cutoff ? "submitted by the cutoff" : "in the trace");
			return -1;
		}
		if (o->has_cutoff && end > o->cutoff)
			end = o->cutoff;
	}
	if (!isfinite(start) || !isfinite(end) || start < 0 || end < start) {
		snprintf(err, errlen, "window [%.17g, %.17g]: expected 0 <= start <= end", start, end);
		return -1;
	}
	if (o->has_cutoff && end > o->cutoff) {
		snprintf(err, errlen, "window end %.17g is after the cutoff %.17g: that would read the future", end, o->cutoff);
		return -1;
	}
	/* a window that no job reaches summarises nothing: refuse it instead of writing an
	 * empty summary (the trace's span: the first submit to the last job end) */
	double first = n_visible ? t->jobs[0].submit : 0, last = first;
	for (size_t i = 0; i < n_visible; i++)
		last = fmax(last, t->jobs[i].submit + t->jobs[i].duration);
	if (!n_visible || start > last || end < first) {
		if (n_visible)
			snprintf(err, errlen, "window [%.17g, %.17g] lies outside the trace (jobs from %.17g to %.17g s%s): nothing to summarise",
				 start, end, first, last, o->has_cutoff ? " up to the cutoff" : "");
		else
			snprintf(err, errlen, "window [%.17g, %.17g]: no job %s: nothing to summarise", start, end,
				 o->has_cutoff ? "submitted by the cutoff" : "in the trace");
		return -1;
	}
	*window_start = start;
	*window_end = end;
	return 0;
}

int ev_workload_summary(struct arena *a, const struct trace *t, const struct workload_opts *o, struct json **out,
		     char *err, size_t errlen)
{
	size_t n_visible = t->n_jobs;
	if (o->has_cutoff) {   /* jobs are sorted by submit: the visible ones are a prefix */
		n_visible = 0;
		while (n_visible < t->n_jobs && t->jobs[n_visible].submit <= o->cutoff)
			n_visible++;
	}
	double start, end;
	if (summary_window(t, o, n_visible, &start, &end, err, errlen))
		return -1;
	double capacity = (double)trace_capacity(t, "*");
	if (capacity <= 0) {
		snprintf(err, errlen, "the trace has no GPU capacity");
		return -1;
	}
	double interval = (double)o->sample_interval;
	if ((end - start) / interval + 1 > MAX_SAMPLES) {
		snprintf(err, errlen, "window of %.17g s at %lld s is more than %.0f samples", end - start, o->sample_interval, MAX_SAMPLES);
		return -1;
	}
	/* samples by repeated addition, as the original (start + I + I ..., not start + k*I) */
	size_t n_samples = 0, cap = 16;
	double *samples = xmalloc(cap * sizeof *samples);
	for (double cur = start; cur <= end; cur += interval) {
		if (n_samples == cap)
			samples = xrealloc(samples, (cap *= 2) * sizeof *samples);
		samples[n_samples++] = cur;
	}
	if (n_samples == 0)
		samples[n_samples++] = start;

	struct wl_class cls[2];   /* 0 = HP, 1 = Spot */
	memset(cls, 0, sizeof cls);
	for (int k = 0; k < 2; k++) {
		cls[k].durations = xmalloc((n_visible + 1) * sizeof(double));
		cls[k].members = xmalloc((n_visible + 1) * sizeof(size_t));
		cls[k].arrivals = xcalloc(n_samples, sizeof(double));
		cls[k].active = xcalloc(n_samples, sizeof(double));
	}
	for (size_t i = 0; i < n_visible; i++) {
		const struct trace_job *j = &t->jobs[i];
		struct wl_class *c = &cls[j->hp ? 0 : 1];
		double job_end = j->submit + j->duration;
		bool running = o->has_cutoff && job_end > o->cutoff;
		if (start <= j->submit && j->submit <= end) {
			c->jobs++;
			c->requested += j->gpus;
			/* past the cutoff a running job has used only cutoff - submit so far */
			double known = running ? o->cutoff - j->submit : j->duration;
			c->gpu_hours += j->gpus * known / 3600;
			if (!running)
				c->durations[c->n_durations++] = j->duration;
			c->running_at_cutoff += running;
			c->members[c->n_members++] = i;
			double b = py_floordiv(j->submit - start, interval);
			size_t bucket = b >= (double)(n_samples - 1) ? n_samples - 1 : (size_t)b;
			c->arrivals[bucket] += j->gpus;
		}
		if (j->submit < start && start < job_end) {
			c->carry_jobs++;
			c->carry_gpus += j->gpus;
		}
		/* active on the samples s with submit <= s < submit + duration: one contiguous run,
		 * added in trace order so fractional sums have the original's bits */
		size_t lo = lower_bound(samples, n_samples, j->submit), hi = lower_bound(samples, n_samples, job_end);
		for (size_t s = lo; s < hi; s++)
			c->active[s] += j->gpus;
	}

	double *combined = xmalloc(n_samples * sizeof *combined);
	for (size_t s = 0; s < n_samples; s++)
		combined[s] = cls[0].active[s] + cls[1].active[s];
	double hp_peak = vmax(cls[0].active, n_samples) / capacity, spot_peak = vmax(cls[1].active, n_samples) / capacity;
	double comb_peak = vmax(combined, n_samples) / capacity;
	double total_requested = cls[0].requested + cls[1].requested;

	struct json *r = json_object(a);
	json_set(a, r, "type", json_str(a, "workload_summary"));
	json_set(a, r, "schema_version", json_str(a, WORKLOAD_SUMMARY_VERSION));
	json_set(a, r, "trace_id", json_str(a, t->trace_id));
	if (o->has_cutoff) {
		/* the whole trace's fingerprint would tell apart two futures of the same past */
		char vfp[FP_HEX_XXH3];
		visible_fingerprint(t, n_visible, o->cutoff, vfp);
		json_set(a, r, "trace_fingerprint", json_null(a));
		json_set(a, r, "visible_prefix_fingerprint", json_str(a, vfp));
	} else
		json_set(a, r, "trace_fingerprint", json_str(a, t->fingerprint));
	json_set(a, r, "time_origin", json_str(a, t->time_origin));
	json_set(a, r, "source", json_clone(a, t->source));
	json_set(a, r, "capacity_gpus", json_int(a, trace_capacity(t, "*")));
	struct json *win = json_object(a);
	json_set(a, win, "start", json_real(a, start));
	json_set(a, win, "end", json_real(a, end));
	json_set(a, r, "window_seconds", win);
	json_set(a, r, "sample_interval_seconds", json_int(a, o->sample_interval));
	json_set(a, r, "cutoff_seconds", o->has_cutoff ? json_real(a, o->cutoff) : json_null(a));
	struct json *pop = json_object(a);
	for (int k = 0; k < 2; k++) {
		struct wl_class *c = &cls[k];
		struct json *p = json_object(a);
		json_set(a, p, "job_count", json_int(a, c->jobs));
		/* the original sums from int 0: an empty class stays the integer 0 */
		json_set(a, p, "requested_gpus", c->jobs ? json_real(a, c->requested) : json_int(a, 0));
		json_set(a, p, "requested_gpu_hours", json_real(a, R6(c->gpu_hours)));
		json_set(a, p, "duration_seconds", stats(a, c->durations, c->n_durations));
		double *tmp = xmalloc(n_samples * sizeof *tmp);
		memcpy(tmp, c->arrivals, n_samples * sizeof *tmp);
		json_set(a, p, "arrival_requested_gpus", stats(a, tmp, n_samples));
		memcpy(tmp, c->active, n_samples * sizeof *tmp);
		json_set(a, p, "sampled_active_requested_gpus", stats(a, tmp, n_samples));
		free(tmp);
		json_set(a, pop, k ? "Spot" : "HP", p);
	}
	json_set(a, r, "population", pop);
	struct json *rs = json_object(a);
	bool has_share = total_requested != 0;
	double share = has_share ? R6(cls[1].requested / total_requested) : 0;
	json_set(a, rs, "spot_requested_gpu_share", has_share ? json_real(a, share) : json_null(a));
	json_set(a, rs, "hp_peak_active_pressure", json_real(a, R6(hp_peak)));
	json_set(a, rs, "spot_peak_active_pressure", json_real(a, R6(spot_peak)));
	json_set(a, rs, "combined_peak_active_pressure", json_real(a, R6(comb_peak)));
	json_set(a, rs, "dominant_arrival_type",
		 json_str(a, cls[0].requested == cls[1].requested ? "balanced" : cls[0].requested > cls[1].requested ? "HP" : "Spot"));
	json_set(a, r, "regime_signals", rs);
	struct json *prof = json_object(a);
	for (int k = 0; k < 2; k++)
		json_set(a, prof, k ? "Spot" : "HP",
			 class_profile(a, t, &cls[k], total_requested, end - start, n_samples, capacity, o->has_cutoff));
	struct json *comb = json_object(a);
	json_set(a, comb, "peak_active_pressure", json_real(a, R6(comb_peak)));
	json_set(a, comb, "mean_active_pressure", json_real(a, R6(vmean(combined, n_samples) / capacity)));
	json_set(a, prof, "combined", comb);
	json_set(a, r, "class_profile", prof);
	json_set(a, r, "regime_label", json_str(a, regime_label(total_requested, R6(hp_peak), R6(comb_peak), has_share, share)));
	json_set(a, r, "definitions", definitions(a));
	ev_self_fp_stamp(a, r, "workload_fingerprint");

	release_classes(cls);
	free(combined);
	free(samples);
	*out = r;
	return 0;
}
