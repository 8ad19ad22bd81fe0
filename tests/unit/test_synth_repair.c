/* The /3 repair pass (lib/synth/repair3.c) on a hand-made population: every job keeps its
 * submit, GPUs, class, model and duration bucket (so the bucket counts, the hourly counts and
 * the per-model counts cannot move), the real rows keep their durations, durations stay whole
 * seconds, the same population gives the same result, and the series comes closer to the
 * published one (its squared error falls; no more days miss the +-10 % peak band). Model 0
 * has a published series unlike its jobs' (a daily peak at 15:00); model 1 the series of its
 * own jobs and GPU-seconds 1 % above theirs: it stays within 5 % (RMS) of its series and
 * reaches the GPU-seconds. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define DAYS 6
#define HOURS (DAYS * 24)
#define NJOBS 900

static size_t bucket(const struct synth_buckets *b, double v)
{
	size_t i = 0;
	while (i + 1 < b->n && v >= b->edge[i + 1])
		i++;
	return i;
}

static void series(const struct synth_job3 *j, size_t n, int m, double *S)
{
	memset(S, 0, HOURS * sizeof *S);
	for (size_t i = 0; i < n; i++) {
		if (j[i].model != m)
			continue;
		long long h1 = (j[i].submit + (long long)j[i].duration - 1) / SYNTH_HOUR;
		for (long long h = j[i].submit / SYNTH_HOUR; h <= h1 && h < HOURS; h++)
			S[h] += j[i].gpus;
	}
}

static double sq_error(const double *S, const double *T)
{
	double e = 0;
	for (size_t h = 0; h < HOURS; h++)
		e += (S[h] - T[h]) * (S[h] - T[h]);
	return e;
}

static int days_missed(const double *S, const double *T)
{
	int missed = 0;
	for (size_t d = 0; d < DAYS; d++) {
		double P = 0, Q = 0;
		for (size_t h = d * 24; h < d * 24 + 24; h++) {
			P = T[h] > P ? T[h] : P;
			Q = S[h] > Q ? S[h] : Q;
		}
		missed += fabs(Q - P) / P > 0.10;
	}
	return missed;
}

int main(void)
{
	static const double edges[] = { 0, 60, 600, 3600, 21600, 86400, 259200 };
	struct synth_profile p;
	memset(&p, 0, sizeof p);
	p.n_conc = p.n_hours = HOURS;
	p.n_models = 2;
	struct synth_model models[2];
	memset(models, 0, sizeof models);
	double conc[2][HOURS], quant_v[2] = { 1, 7.0 * SYNTH_DAY };
	for (size_t h = 0; h < HOURS; h++) {
		double hod = (double)(h % 24);
		conc[0][h] = 60 + 40 * exp(-(hod - 15) * (hod - 15) / 8);   /* a daily peak at 15:00 */
	}
	models[0].name = "M0";
	models[1].name = "M1";
	models[0].concurrency = conc[0];
	models[1].concurrency = conc[1];
	models[0].max_job_days = 0;
	models[1].max_job_days = 5;
	p.models = models;
	p.n_quant = 2;
	p.quant_v = quant_v;
	p.dur_buckets.n = sizeof edges / sizeof edges[0];
	memcpy(p.dur_buckets.edge, edges, sizeof edges);
	p.long_threshold = 21600;

	/* A population: submits over the days, durations across the buckets, a few real rows. */
	struct synth_job3 *jobs = xcalloc(NJOBS, sizeof *jobs), *before = xcalloc(NJOBS, sizeof *before), *again = xcalloc(NJOBS, sizeof *again);
	struct synth_rng r;
	synth_rng_seed(&r, 7, 1);
	double gs[2] = { 0, 0 };
	for (size_t i = 0; i < NJOBS; i++) {
		struct synth_job3 *j = &jobs[i];
		j->submit = (long long)(i * (size_t)HOURS * SYNTH_HOUR / NJOBS) + (long long)synth_rng_below(&r, 600);
		size_t b = (size_t)synth_rng_below(&r, p.dur_buckets.n);
		double lo = edges[b] < 1 ? 1 : edges[b], hi = b + 1 < p.dur_buckets.n ? edges[b + 1] : 4.0 * SYNTH_DAY;
		j->duration = floor(lo + synth_rng_unit(&r) * (hi - lo));
		j->gpus = (double)(1 + synth_rng_below(&r, 8));
		j->model = (int)synth_rng_below(&r, 2);
		j->hp = synth_rng_below(&r, 4) != 0;
		j->real = i % 97 == 5 ? (long long)i : -1;
		j->number = (long long)i + 1;
		gs[j->model] += j->gpus * j->duration;
	}
	memcpy(before, jobs, NJOBS * sizeof *jobs);
	double S0[2][HOURS], S1[2][HOURS];
	for (int m = 0; m < 2; m++)
		series(jobs, NJOBS, m, S0[m]);
	memcpy(conc[1], S0[1], sizeof conc[1]);
	models[0].gpu_seconds = 0.97 * gs[0];
	models[1].gpu_seconds = 1.01 * gs[1];

	synth_repair3(&p, 1.0, jobs, NJOBS);
	memcpy(again, before, NJOBS * sizeof *before);
	synth_repair3(&p, 1.0, again, NJOBS);

	size_t moved = 0;
	long long count_before[SYNTH_MAX_BUCKETS] = { 0 }, count_after[SYNTH_MAX_BUCKETS] = { 0 };
	for (size_t i = 0; i < NJOBS; i++) {
		const struct synth_job3 *a = &before[i], *b = &jobs[i];
		CHECK(a->submit == b->submit && a->gpus == b->gpus && a->model == b->model && a->hp == b->hp &&
			a->real == b->real && a->number == b->number, "job %zu: more than its duration changed", i);
		CHECK(bucket(&p.dur_buckets, a->duration) == bucket(&p.dur_buckets, b->duration),
			"job %zu: bucket %zu -> %zu (%.0f -> %.0f s)", i, bucket(&p.dur_buckets, a->duration),
			bucket(&p.dur_buckets, b->duration), a->duration, b->duration);
		CHECK(b->duration >= 1 && b->duration == floor(b->duration), "job %zu: duration %.3f", i, b->duration);
		CHECK(b->model != 1 || b->duration <= 5.0 * SYNTH_DAY || b->duration == a->duration,
			"job %zu: past max_job_days: %.0f s", i, b->duration);
		if (a->real >= 0)
			CHECK(a->duration == b->duration, "real job %zu: duration %.0f -> %.0f", i, a->duration, b->duration);
		CHECK(again[i].duration == b->duration, "job %zu: not deterministic: %.0f vs %.0f", i, b->duration, again[i].duration);
		moved += a->duration != b->duration;
		count_before[bucket(&p.dur_buckets, a->duration)]++;
		count_after[bucket(&p.dur_buckets, b->duration)]++;
	}
	CHECK(moved > 0, "the repair moved no job");
	CHECK(!memcmp(count_before, count_after, sizeof count_before), "bucket counts changed");
	double gs_after[2] = { 0, 0 };
	for (size_t i = 0; i < NJOBS; i++)
		gs_after[jobs[i].model] += jobs[i].gpus * jobs[i].duration;
	for (int m = 0; m < 2; m++) {
		series(jobs, NJOBS, m, S1[m]);
		double T[HOURS];
		for (size_t h = 0; h < HOURS; h++)
			T[h] = conc[m][h];
		double t2 = 0;
		for (size_t h = 0; h < HOURS; h++)
			t2 += T[h] * T[h];
		CHECK(m == 1 ? sq_error(S1[m], T) <= 0.05 * 0.05 * t2 : sq_error(S1[m], T) < 0.5 * sq_error(S0[m], T),
			"model %d: squared error %.0f -> %.0f", m, sq_error(S0[m], T), sq_error(S1[m], T));
		CHECK(days_missed(S1[m], T) <= days_missed(S0[m], T), "model %d: missed days %d -> %d", m, days_missed(S0[m], T), days_missed(S1[m], T));
	}
	CHECK(fabs(gs_after[1] / models[1].gpu_seconds - 1) < 0.001, "model 1: GPU-seconds error %.4f", gs_after[1] / models[1].gpu_seconds - 1);
	free(jobs);
	free(before);
	free(again);
	printf("test_synth_repair: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
