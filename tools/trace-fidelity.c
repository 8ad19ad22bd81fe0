/* trace-fidelity — how faithful a trace is to a schednav.synth-profile/3: per GPU model the
 * hourly requested-GPU concurrency against the published series, daily peaks, GPU-seconds,
 * Spot share and sizes, eligible days and the 30-day slice peak ratio; over the trace the
 * duration and GPU-demand bucket shares and the long-job GPU-seconds share per class. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "synth/synth.h"
#include "trace/trace.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIDELITY_SCHEMA "schednav.fidelity/1"
#define SLICE_DAYS 30
#define ELIGIBLE_ARRIVALS 20

static const char usage[] =
	"trace-fidelity --profile FILE [--markdown FILE] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read one trace stream (any canonical trace, synthetic or not) and compare it with the\n"
	"per-model targets of a schednav.synth-profile/3 profile. Writes a schednav.fidelity/1\n"
	"stream: one fidelity_model record per GPU model of the profile and one\n"
	"fidelity_summary record; --markdown also writes the same figures as Markdown tables.\n"
	"\n"
	"  --profile FILE    the /3 or /4 profile (JSON, .zst accepted); a /4 profile adds the class,\n"
	"                    submission, submit-day, instantaneous-series and saturation figures\n"
	"  --markdown FILE   also write the Markdown report to FILE\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 ", " SYNTH_PROFILE_SCHEMA3 ", " SYNTH_PROFILE_SCHEMA4 " (--profile)\nwrites: " FIDELITY_SCHEMA "\n";

struct model_fit {
	double *series;                   /* trace concurrency per profile hour */
	long long jobs, hp_jobs, spot_jobs;
	double gpu_seconds, hp_gpus, spot_gpus;
	long long (*day_class)[2];        /* arrivals per day: HP, Spot */
	size_t *idx, n_idx, cap_idx;      /* the model's jobs in submit order */
};

/* What one pass over the trace counts: per model and over the whole trace. */
struct tally {
	struct model_fit *mf;
	long long n_days;                 /* complete days from the origin */
	size_t n_day_slots;
	long long dur_jobs[SYNTH_MAX_BUCKETS], gpu_jobs[SYNTH_MAX_BUCKETS], all_jobs, other_jobs;
	double long_gs[2][2];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile of a sorted array by the nearest-rank rule (index round(q*(n-1))). */
static double quantile(const double *v, size_t n, double q)
{
	return n ? v[(size_t)floor(q * (double)(n - 1) + 0.5)] : NAN;
}

static size_t bucket_of(const struct synth_buckets *b, double v)
{
	size_t i = 0;
	while (i + 1 < b->n && v >= b->edge[i + 1])
		i++;
	return i;
}

/* A number rounded to 6 decimals, or null. */
static struct json *num6(struct arena *a, double x)
{
	return isfinite(x) ? json_real(a, round(x * 1e6) / 1e6) : json_null(a);
}

/* Peak concurrency of day d's 24 hours from the jobs submitted since from_day (the whole
 * trace when from_day is 0 and the jobs all come after the origin). */
static double day_peak(const struct trace *t, const size_t *idx, size_t n, long long d, long long from_day, size_t n_hours, double *hours24)
{
	memset(hours24, 0, 24 * sizeof *hours24);
	double lo_submit = (double)from_day * SYNTH_DAY, day_end = (double)(d + 1) * SYNTH_DAY;
	for (size_t k = 0; k < n; k++) {
		const struct trace_job *j = &t->jobs[idx[k]];
		if (j->submit < lo_submit)
			continue;
		if (j->submit >= day_end)
			break;
		long long h0 = (long long)floor(j->submit / SYNTH_HOUR), h1 = (long long)floor((j->submit + j->duration - 1) / SYNTH_HOUR);
		long long a = h0 > d * 24 ? h0 : d * 24, b = h1 < d * 24 + 23 ? h1 : d * 24 + 23;
		for (long long h = a; h <= b && h < (long long)n_hours; h++)
			hours24[h - d * 24] += j->gpus;
	}
	double peak = 0;
	for (int h = 0; h < 24; h++)
		peak = hours24[h] > peak ? hours24[h] : peak;
	return peak;
}

/* One pass over the trace (sorted by submit): per-model series, classes, sizes and jobs in
 * submit order; trace-wide bucket counts and long-job GPU-seconds. */
static void tally_trace(const struct synth_profile *p, const struct trace *t, struct tally *ty)
{
	size_t nm = p->n_models, nh = p->n_conc;
	double max_submit = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		max_submit = t->jobs[i].submit > max_submit ? t->jobs[i].submit : max_submit;
	memset(ty, 0, sizeof *ty);
	ty->n_days = (long long)floor((max_submit + 1) / SYNTH_DAY);   /* complete days from the origin */
	ty->n_day_slots = (size_t)ty->n_days + 1;
	ty->mf = xcalloc(nm, sizeof *ty->mf);
	for (size_t m = 0; m < nm; m++) {
		ty->mf[m].series = xcalloc(nh, sizeof *ty->mf[m].series);
		ty->mf[m].day_class = xcalloc(ty->n_day_slots, sizeof *ty->mf[m].day_class);
	}
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		ty->all_jobs++;
		ty->dur_jobs[bucket_of(&p->dur_buckets, j->duration)]++;
		ty->gpu_jobs[bucket_of(&p->gpu_buckets, j->gpus)]++;
		ty->long_gs[j->hp ? 0 : 1][j->duration >= p->long_threshold] += j->gpus * j->duration;
		int m = j->model ? synth_profile_model(p, j->model) : -1;
		if (m < 0) {
			ty->other_jobs++;
			continue;
		}
		struct model_fit *f = &ty->mf[m];
		f->jobs++;
		f->gpu_seconds += j->gpus * j->duration;
		if (j->hp) {
			f->hp_jobs++;
			f->hp_gpus += j->gpus;
		} else {
			f->spot_jobs++;
			f->spot_gpus += j->gpus;
		}
		long long d = (long long)floor(j->submit / SYNTH_DAY);
		if (d >= 0 && d < ty->n_days)
			f->day_class[d][j->hp ? 0 : 1]++;
		long long h0 = (long long)floor(j->submit / SYNTH_HOUR), h1 = (long long)floor((j->submit + j->duration - 1) / SYNTH_HOUR);
		for (long long h = h0 < 0 ? 0 : h0; h <= h1 && h < (long long)nh; h++)
			f->series[h] += j->gpus;
		f->idx = xgrow(f->idx, &f->cap_idx, f->n_idx + 1, sizeof *f->idx);
		f->idx[f->n_idx++] = i;
	}
}

/* The fidelity_model record of model m, and its Markdown row. errs and ratios are scratch
 * space for nh / 24 + 2 and n_day_slots values. */
static struct json *model_record(struct arena *a, struct strbuf *md, const struct synth_profile *p,
	const struct trace *t, const struct tally *ty, size_t m, double *errs, double *ratios)
{
	size_t nh = p->n_conc;
	double h24[24];
	const struct synth_model *sm = &p->models[m];
	const struct model_fit *f = &ty->mf[m];
	double r = synth_pearson(sm->concurrency, f->series, nh);
	size_t nd = 0, within = 0;
	for (size_t d = 0; (d + 1) * 24 <= nh; d++) {
		double pp = 0, pt = 0;
		for (size_t h = d * 24; h < d * 24 + 24; h++) {
			pp = sm->concurrency[h] > pp ? sm->concurrency[h] : pp;
			pt = f->series[h] > pt ? f->series[h] : pt;
		}
		if (!(pp > 0))
			continue;
		errs[nd] = (pt - pp) / pp;
		within += fabs(errs[nd]) <= 0.10;
		nd++;
	}
	qsort(errs, nd, sizeof *errs, cmp_double);
	size_t n_el = 0;
	for (long long d = 0; d < ty->n_days; d++) {
		if (f->day_class[d][0] < ELIGIBLE_ARRIVALS || f->day_class[d][1] < ELIGIBLE_ARRIVALS)
			continue;
		double whole = day_peak(t, f->idx, f->n_idx, d, 0, nh, h24);
		double slice = day_peak(t, f->idx, f->n_idx, d, d - SLICE_DAYS > 0 ? d - SLICE_DAYS : 0, nh, h24);
		/* Jobs submitted before the origin count in the whole trace too. */
		ratios[n_el++] = whole > 0 ? slice / whole : 1;
	}
	qsort(ratios, n_el, sizeof *ratios, cmp_double);
	double share = f->jobs ? (double)f->spot_jobs / (double)f->jobs : NAN;
	double size_ratio = f->spot_jobs && f->hp_jobs && f->hp_gpus > 0 ?
		(f->spot_gpus / (double)f->spot_jobs) / (f->hp_gpus / (double)f->hp_jobs) : NAN;
	double gs_err = isfinite(sm->gpu_seconds) && sm->gpu_seconds > 0 ? f->gpu_seconds / sm->gpu_seconds - 1 : NAN;
	struct json *rec = json_object(a), *peak = json_object(a), *gs = json_object(a), *spot = json_object(a),
		*slice = json_object(a);
	json_set(a, rec, "type", json_str(a, "fidelity_model"));
	json_set(a, rec, "model", json_str(a, sm->name));
	json_set(a, rec, "jobs", json_int(a, f->jobs));
	json_set(a, rec, "hours", json_int(a, (long long)nh));
	json_set(a, rec, "concurrency_pearson_r", num6(a, r));
	json_set(a, peak, "days", json_int(a, (long long)nd));
	json_set(a, peak, "within_10pct_share", num6(a, nd ? (double)within / (double)nd : NAN));
	json_set(a, peak, "p10", num6(a, quantile(errs, nd, 0.10)));
	json_set(a, peak, "p50", num6(a, quantile(errs, nd, 0.50)));
	json_set(a, peak, "p90", num6(a, quantile(errs, nd, 0.90)));
	json_set(a, peak, "min", num6(a, nd ? errs[0] : NAN));
	json_set(a, peak, "max", num6(a, nd ? errs[nd - 1] : NAN));
	json_set(a, rec, "daily_peak_error", peak);
	json_set(a, gs, "trace", num6(a, f->gpu_seconds));
	json_set(a, gs, "profile", num6(a, sm->gpu_seconds));
	json_set(a, gs, "relative_error", num6(a, gs_err));
	json_set(a, rec, "gpu_seconds", gs);
	json_set(a, spot, "jobs", json_int(a, f->spot_jobs));
	json_set(a, spot, "share", num6(a, share));
	json_set(a, spot, "profile_share", num6(a, sm->spot_share));
	json_set(a, spot, "gpus_per_job_ratio", num6(a, size_ratio));
	json_set(a, spot, "profile_size_ratio", num6(a, sm->spot_size_ratio));
	json_set(a, rec, "spot", spot);
	json_set(a, rec, "eligible_days", json_int(a, (long long)n_el));
	json_set(a, slice, "days", json_int(a, (long long)n_el));
	json_set(a, slice, "median", num6(a, quantile(ratios, n_el, 0.5)));
	json_set(a, slice, "min", num6(a, n_el ? ratios[0] : NAN));
	json_set(a, rec, "slice_peak_ratio", slice);
	sb_addf(md, "| %s | %lld | %.3f | %zu | %.1f %% | %+.3f / %+.3f / %+.3f | %+.2f %% | %.3f (%.3f) | %.2f (%.2f) | %zu | %.3f (%.3f) |\n",
		sm->name, f->jobs, r, nd, nd ? 100.0 * (double)within / (double)nd : NAN, quantile(errs, nd, 0.1),
		quantile(errs, nd, 0.5), quantile(errs, nd, 0.9), 100 * gs_err, share, sm->spot_share, size_ratio,
		sm->spot_size_ratio, n_el, quantile(ratios, n_el, 0.5), n_el ? ratios[0] : NAN);
	return rec;
}

/* The fidelity_summary record: bucket shares and the long-job GPU-seconds share per class,
 * and their Markdown tables. */
static struct json *summary_record(struct arena *a, struct strbuf *md, const struct synth_profile *p, const struct tally *ty)
{
	const struct synth_buckets *db = &p->dur_buckets, *gb = &p->gpu_buckets;
	struct json *sum = json_object(a), *dur = json_array(a), *gpu = json_array(a), *lg = json_object(a);
	json_set(a, sum, "type", json_str(a, "fidelity_summary"));
	json_set(a, sum, "jobs", json_int(a, ty->all_jobs));
	json_set(a, sum, "jobs_of_other_models", json_int(a, ty->other_jobs));
	sb_addf(md, "\n| bucket | trace share | profile share | difference (pp) |\n|---|---:|---:|---:|\n");
	for (int kind = 0; kind < 2; kind++) {
		const struct synth_buckets *b = kind ? gb : db;
		const long long *got = kind ? ty->gpu_jobs : ty->dur_jobs;
		long long ptot = 0;
		for (size_t i = 0; i < b->n; i++)
			ptot += b->jobs[i];
		for (size_t i = 0; i < b->n; i++) {
			double ts = ty->all_jobs ? (double)got[i] / (double)ty->all_jobs : NAN, ps = ptot ? (double)b->jobs[i] / (double)ptot : NAN;
			struct json *row = json_object(a);
			json_set(a, row, "from", num6(a, b->edge[i]));
			json_set(a, row, "to", i + 1 < b->n ? num6(a, b->edge[i + 1]) : json_null(a));
			json_set(a, row, "trace_share", num6(a, ts));
			json_set(a, row, "profile_share", num6(a, ps));
			json_set(a, row, "difference_pp", num6(a, 100 * (ts - ps)));
			json_push(a, kind ? gpu : dur, row);
			char to[32];
			if (i + 1 < b->n)
				snprintf(to, sizeof to, "%g", b->edge[i + 1]);
			else
				snprintf(to, sizeof to, "...");
			sb_addf(md, "| %s %g to %s | %.2f %% | %.2f %% | %+.2f |\n", kind ? "GPUs" : "seconds", b->edge[i], to,
				100 * ts, 100 * ps, 100 * (ts - ps));
		}
	}
	json_set(a, sum, "duration_buckets", dur);
	json_set(a, sum, "gpu_demand_buckets", gpu);
	sb_addf(md, "\n| class | GPU-seconds share of jobs >= %g s: trace | profile | difference (pp) |\n|---|---:|---:|---:|\n", p->long_threshold);
	static const char *const cls[2] = { "HP", "Spot" };
	for (int k = 0; k < 2; k++) {
		const double *tg = ty->long_gs[k], *pg = p->long_gs[k];
		double ts = tg[0] + tg[1] > 0 ? tg[1] / (tg[0] + tg[1]) : NAN;
		double ps = pg[0] + pg[1] > 0 ? pg[1] / (pg[0] + pg[1]) : NAN;
		struct json *row = json_object(a);
		json_set(a, row, "trace_share", num6(a, ts));
		json_set(a, row, "profile_share", num6(a, ps));
		json_set(a, row, "difference_pp", num6(a, 100 * (ts - ps)));
		json_set(a, lg, cls[k], row);
		sb_addf(md, "| %s | %.2f %% | %.2f %% | %+.2f |\n", cls[k], 100 * ts, 100 * ps, 100 * (ts - ps));
	}
	json_set(a, sum, "long_threshold_seconds", num6(a, p->long_threshold));
	json_set(a, sum, "long_gpu_seconds_share", lg);
	return sum;
}

/* The stream (header and the nm + 1 records) to output, and the Markdown to markdown if asked. */
static void write_outputs(struct arena *a, const struct synth_profile *p, const struct trace *t, const char *profile,
	struct json **recs, size_t nm, const char *output, const char *markdown, const struct strbuf *md)
{
	char err[1024];
	struct json *hdr = nd_header_new(a, FIDELITY_SCHEMA, "trace-fidelity");
	nd_header_add_stream(a, hdr, t->input_name, t->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, t->fingerprint);
	nd_header_add_file(a, hdr, profile, p->bytes, p->xxh3, NULL);
	struct json *params = json_object(a);
	json_set(a, params, "slice_days", json_int(a, SLICE_DAYS));
	json_set(a, params, "eligible_arrivals", json_int(a, ELIGIBLE_ARRIVALS));
	json_set(a, hdr, "params", params);
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i <= nm; i++)
		if (ndw_record(w, recs[i], err, sizeof err))
			die("%s", err);
	if (ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	if (markdown) {
		struct zio_writer *mw = zw_open(markdown, false, err, sizeof err);
		if (!mw || zw_write(mw, md->buf, md->len, err, sizeof err) || zw_commit(mw, err, sizeof err))
			die("%s", err);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'P' },
		{ "markdown", required_argument, NULL, 'M' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	const char *profile = NULL, *markdown = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': profile = optarg; break;
		case 'M': markdown = optarg; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	if (!profile)
		usage_error(usage, "missing --profile");
	const char *input = cli.inputs[0], *output = cli.output;

	char err[1024];
	struct synth_profile p;
	if (synth_profile_load(&p, profile, err, sizeof err))
		die("%s", err);
	if (p.version < 3)
		die("%s: not a schednav.synth-profile/3 profile: no per-model targets", profile);   /* (or /4) */
	struct trace t;
	trace_init(&t);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);

	size_t nm = p.n_models, nh = p.n_conc;
	struct tally ty;
	tally_trace(&p, &t, &ty);

	struct arena a;
	arena_init(&a);
	struct strbuf md;
	sb_init(&md);
	sb_addf(&md, "# Fidelity of %s to profile %s\n\n", t.trace_id ? t.trace_id : input, p.name);
	sb_addf(&md, "Concurrency: requested GPUs of the jobs active in each hour (hours floor(s/3600) .. "
		"floor((s+d-1)/3600)), against the profile's published series over its %zu hours. "
		"Daily peak error: (trace peak - published peak) / published peak per day with a published peak > 0. "
		"Eligible days: complete days with >= %d HP and >= %d Spot arrivals of the model; slice ratio: the day's peak "
		"from the jobs submitted in the %d days before it and on it, over its peak from the whole trace.\n\n",
		nh, ELIGIBLE_ARRIVALS, ELIGIBLE_ARRIVALS, SLICE_DAYS);
	sb_addf(&md, "| model | jobs | hourly r | days | peak within 10 %% | peak err p10 / p50 / p90 | GPU-s error | Spot share (profile) | Spot/HP GPUs per job (profile) | eligible days | slice ratio median (min) |\n");
	sb_addf(&md, "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
	struct json **recs = xcalloc(nm + 1, sizeof *recs);
	double *errs = xmalloc((nh / 24 + 2) * sizeof *errs), *ratios = xmalloc(ty.n_day_slots * sizeof *ratios);
	for (size_t m = 0; m < nm; m++)
		recs[m] = model_record(&a, &md, &p, &t, &ty, m, errs, ratios);
	struct json *sum = summary_record(&a, &md, &p, &ty);
	recs[nm] = sum;
	if (p.version == 4)
		synth_fidelity4(&p, &t, &a, recs, sum, &md);
	write_outputs(&a, &p, &t, profile, recs, nm, output, markdown, &md);

	for (size_t m = 0; m < nm; m++) {
		free(ty.mf[m].series);
		free(ty.mf[m].day_class);
		free(ty.mf[m].idx);
	}
	free(ty.mf); free(recs); free(errs); free(ratios);
	sb_release(&md);
	arena_release(&a);
	trace_release(&t);
	synth_profile_release(&p);
	cli_release(&cli);
	return 0;
}
