#include "trace/scan.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R6(v) num_round((v), 6)

/* Median as Python's statistics.median: the middle value, or the mean of the two middle ones. */
static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One eligible window as the stratification sees it. */
struct key {
	double peak, share, start;
	size_t day;
};

static int by_peak(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->peak != y->peak)
		return x->peak < y->peak ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_share(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->share != y->share)
		return x->share < y->share ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Size of part p when n items go into parts balanced parts, the first n mod parts one larger. */
static size_t part_size(size_t n, size_t parts, size_t p)
{
	return n / parts + (p < n % parts);
}

/* The medoid of one cell: min (span-normalised L1 distance to the medians, start). */
static size_t cell_medoid(const struct key *cell, size_t m)
{
	double *pk = xmalloc(m * sizeof *pk), *sh = xmalloc(m * sizeof *sh);
	for (size_t i = 0; i < m; i++) {
		pk[i] = cell[i].peak;
		sh[i] = cell[i].share;
	}
	double med_p = median(pk, m), med_s = median(sh, m);
	double span_p = pk[m - 1] - pk[0], span_s = sh[m - 1] - sh[0];   /* sorted by median() */
	size_t best = 0;
	double best_d = INFINITY;
	for (size_t i = 0; i < m; i++) {
		double dp = span_p != 0 ? fabs(cell[i].peak - med_p) / span_p : 0.0;
		double ds = span_s != 0 ? fabs(cell[i].share - med_s) / span_s : 0.0;
		double dist = dp + ds;
		if (dist < best_d || (dist == best_d && cell[i].start < cell[best].start)) {
			best_d = dist;
			best = i;
		}
	}
	free(pk);
	free(sh);
	return cell[best].day;
}

static int stratify(struct scan_result *res, const struct scan_opts *o, char *err, size_t errlen)
{
	size_t n = res->n_eligible, P = (size_t)o->pressure_strata, S = (size_t)o->share_strata;
	if (n / P < S) {
		snprintf(err, errlen, "stratified selection needs at least %zu eligible windows (%zu pressure x %zu share strata), found %zu",
			 P * S, P, S, n);
		return -1;
	}
	struct key *keys = xmalloc(n * sizeof *keys);
	size_t k = 0;
	for (size_t i = 0; i < res->n_days; i++) {
		const struct scan_day *d = &res->days[i];
		if (d->eligible)
			keys[k++] = (struct key){ d->peak_pressure, d->spot_share, d->start, i };
	}
	qsort(keys, n, sizeof *keys, by_peak);
	size_t pos = 0;
	for (size_t p = 0; p < P; p++) {
		size_t m = part_size(n, P, p), q_pos = 0;
		struct key *part = keys + pos;
		qsort(part, m, sizeof *part, by_share);
		for (size_t q = 0; q < S; q++) {
			size_t c = part_size(m, S, q);
			struct key *cell = part + q_pos;
			for (size_t i = 0; i < c; i++) {
				res->days[cell[i].day].stratum_pressure = (long long)p;
				res->days[cell[i].day].stratum_share = (long long)q;
			}
			res->days[cell_medoid(cell, c)].selected = true;
			res->n_selected++;
			q_pos += c;
		}
		pos += m;
	}
	free(keys);
	return 0;
}

/* Active requested GPUs per sample, summed in trace order (so fractional sums are reproducible). */
static double *demand_samples(const struct trace *t, long long n_samples, double interval)
{
	double *demand = xcalloc((size_t)n_samples, sizeof *demand);
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		double first = ceil(j->submit / interval), last = ceil((j->submit + j->duration) / interval);
		/* clip to [0, n_samples) before converting: hostile times must not overflow a cast */
		first = fmin(fmax(first, 0.0), (double)n_samples);
		last = fmin(fmax(last, 0.0), (double)n_samples);
		for (long long s = (long long)first; s < (long long)last; s++)
			demand[s] += j->gpus;
	}
	return demand;
}

static void day_signals(struct scan_day *d, const double *samples, long long n, double capacity)
{
	double sum = 0, lo = samples[0], hi = samples[0];
	for (long long i = 0; i < n; i++) {
		sum += samples[i];
		if (samples[i] < lo)
			lo = samples[i];
		if (samples[i] > hi)
			hi = samples[i];
	}
	double mean = sum / (double)n, sq = 0;
	for (long long i = 0; i < n; i++)
		sq += (samples[i] - mean) * (samples[i] - mean);
	d->peak_pressure = R6(hi / capacity);
	d->mean_pressure = R6(mean / capacity);
	d->active_min = R6(lo);
	d->active_max = R6(hi);
	d->active_mean = R6(mean);
	d->has_cv = mean != 0;
	d->active_cv = d->has_cv ? R6(sqrt(sq / (double)n) / mean) : 0.0;
}

int trace_scan_run(const struct trace *t, const struct scan_opts *o, struct scan_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (o->day_seconds <= 0 || o->sample_seconds <= 0 || o->day_seconds % o->sample_seconds ||
	    o->min_hp < 0 || o->min_spot < 0 || o->pressure_strata < 1 || o->share_strata < 1 || o->warmup_days < 0) {
		snprintf(err, errlen, "invalid scan options");
		return -1;
	}
	res->capacity = trace_capacity(t, "*");
	if (t->n_jobs == 0 || res->capacity <= 0) {
		snprintf(err, errlen, "trace has no jobs or no capacity");
		return -1;
	}
	double W = (double)o->day_seconds, I = (double)o->sample_seconds;
	double k_real = floor((t->jobs[t->n_jobs - 1].submit + 1) / W);
	long long per_day = o->day_seconds / o->sample_seconds;
	if (k_real > (double)SCAN_MAX_DAYS || k_real * (double)per_day > (double)SCAN_MAX_SAMPLES) {
		snprintf(err, errlen, "trace spans %.0f windows of %lld s; at most %lld windows and %lld samples are supported",
			 k_real, o->day_seconds, SCAN_MAX_DAYS, SCAN_MAX_SAMPLES);
		return -1;
	}
	long long K = (long long)k_real, n_samples = K * per_day;
	res->n_days = (size_t)K;
	res->days = xcalloc(K ? (size_t)K : 1, sizeof *res->days);
	double *all_req = xcalloc(K ? (size_t)K : 1, sizeof *all_req);
	for (long long k = 0; k < K; k++) {
		struct scan_day *d = &res->days[k];
		d->index = k;
		d->start = (double)k * W;
		d->end = d->start + W - 1;
		d->warmup_start = fmax(0.0, d->start - (double)o->warmup_days * 86400.0);
		d->stratum_pressure = d->stratum_share = -1;
	}
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		double k = floor(j->submit / W);
		if (k >= (double)K)
			break;          /* jobs are sorted by submit */
		struct scan_day *d = &res->days[(long long)k];
		if (j->hp) {
			d->hp_arrivals++;
			d->hp_requested += j->gpus;
		} else {
			d->spot_arrivals++;
			d->spot_requested += j->gpus;
		}
		all_req[(long long)k] += j->gpus;
	}
	double *demand = K ? demand_samples(t, n_samples, I) : NULL;
	for (long long k = 0; k < K; k++) {
		struct scan_day *d = &res->days[k];
		day_signals(d, demand + k * per_day, per_day, (double)res->capacity);
		d->has_share = d->hp_arrivals + d->spot_arrivals > 0;
		d->spot_share = d->has_share ? R6(d->spot_requested / all_req[k]) : 0.0;
		d->hp_requested = R6(d->hp_requested);
		d->spot_requested = R6(d->spot_requested);
		d->eligible = d->has_share && d->hp_arrivals >= o->min_hp && d->spot_arrivals >= o->min_spot;
		if (d->eligible)
			res->n_eligible++;
	}
	free(demand);
	free(all_req);
	if (o->all_eligible) {
		for (size_t k = 0; k < res->n_days; k++)
			res->days[k].selected = res->days[k].eligible;
		res->n_selected = res->n_eligible;
		return 0;
	}
	if (stratify(res, o, err, errlen)) {
		trace_scan_result_release(res);
		return -1;
	}
	return 0;
}

void trace_scan_result_release(struct scan_result *res)
{
	free(res->days);
	memset(res, 0, sizeof *res);
}
