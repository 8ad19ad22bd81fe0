/* The /4 figures of trace-fidelity(1) (docs/trace-fidelity.1, docs/profiles.md): the class
 * totals, the submissions per hour and day, each model's GPU-seconds by submit day, the
 * instantaneous series (running GPUs at each hour boundary) beside the touched-hour one, and
 * saturation per pool. Adds a "v4" object to each fidelity_model record and to the
 * fidelity_summary record, and Markdown sections to md. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL_HOUR 0.10         /* GPUs submitted per hour within +-10 % */
#define RATIO_FIRST 1         /* the daily-ratio correlation and quantiles over days 1 .. 183 */
#define RATIO_LAST 183

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double q_sorted(const double *v, size_t n, double q)
{
	return n ? v[(size_t)floor(q * (double)(n - 1) + 0.5)] : NAN;
}

/* The q-quantile of v (copied, sorted). */
static double quant(const double *v, size_t n, double q)
{
	double *c = xmalloc((n ? n : 1) * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_d);
	double x = q_sorted(c, n, q);
	free(c);
	return x;
}

/* The median of a class's durations by the mean of the two middle values (pandas' rule, as
 * job_type_summary.csv's 2,095.5 shows) and its p90 by linear interpolation. */
static void class_quantiles(double *v, size_t n, double *med, double *p90)
{
	qsort(v, n, sizeof *v, cmp_d);
	*med = *p90 = NAN;
	if (!n)
		return;
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double pos = 0.9 * (double)(n - 1);
	size_t i = (size_t)floor(pos);
	*p90 = i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[i];
}

double synth_pearson(const double *a, const double *b, size_t n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
	for (size_t i = 0; i < n; i++) {
		ma += a[i];
		mb += b[i];
	}
	if (!n)
		return NAN;
	ma /= (double)n;
	mb /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

static struct json *n6(struct arena *a, double x)
{
	return isfinite(x) ? json_real(a, round(x * 1e6) / 1e6) : json_null(a);
}

static double rel(double got, double want)
{
	return want != 0 && isfinite(want) ? got / want - 1 : NAN;
}

/* A target: {trace, profile, relative_error} (or r), and whether it is met. */
static struct json *target(struct arena *a, double trace, double profile, double err, double tol)
{
	struct json *o = json_object(a);
	json_set(a, o, "trace", n6(a, trace));
	json_set(a, o, "profile", n6(a, profile));
	json_set(a, o, "relative_error", n6(a, err));
	json_set(a, o, "tolerance", n6(a, tol));
	json_set(a, o, "met", isfinite(err) && fabs(err) <= tol ? json_bool(a, true) : json_bool(a, false));
	return o;
}

static struct json *at_least(struct arena *a, double value, double floor_)
{
	struct json *o = json_object(a);
	json_set(a, o, "value", n6(a, value));
	json_set(a, o, "at_least", n6(a, floor_));
	json_set(a, o, "met", isfinite(value) && value >= floor_ ? json_bool(a, true) : json_bool(a, false));
	return o;
}

static const char *mark(bool ok)
{
	return ok ? "met" : "**not met**";
}

struct series4 {
	size_t nh, nd, nm;
	double *touched, *inst;       /* per model x hour */
	double *sub_gpus, *sub_gs;    /* fleet, per submit hour */
	double *mday_gs;              /* per model x day */
	double *demand;               /* per model */
	long long (*day_class)[2];
	double *dur[2];               /* per class durations */
	size_t n_dur[2];
	double spot_gs, spot_long_gs;
	long long spot_long;
};

static void collect(const struct synth_profile *p, const struct trace *t, struct series4 *s)
{
	size_t nh = s->nh = p->n_conc, nd = s->nd = p->n_days, nm = s->nm = p->n_models;
	s->touched = xcalloc(nm * nh, sizeof *s->touched);
	s->inst = xcalloc(nm * nh, sizeof *s->inst);
	s->sub_gpus = xcalloc(nh, sizeof *s->sub_gpus);
	s->sub_gs = xcalloc(nh, sizeof *s->sub_gs);
	s->mday_gs = xcalloc(nm * nd, sizeof *s->mday_gs);
	s->demand = xcalloc(nm, sizeof *s->demand);
	s->day_class = xcalloc(nd, sizeof *s->day_class);
	for (int k = 0; k < 2; k++)
		s->dur[k] = xmalloc((t->n_jobs ? t->n_jobs : 1) * sizeof *s->dur[k]);
	double th = p->long_threshold > 0 ? p->long_threshold : 21600;
	double *diff = xcalloc(nm * (nh + 1), sizeof *diff);   /* instantaneous: +g at the first boundary, -g after the last */
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		double gs = j->gpus * j->duration;
		int k = j->hp ? 0 : 1;
		s->dur[k][s->n_dur[k]++] = j->duration;
		if (!j->hp) {
			s->spot_gs += gs;
			if (j->duration >= th) {
				s->spot_long++;
				s->spot_long_gs += gs;
			}
		}
		long long h0 = (long long)floor(j->submit / SYNTH_HOUR), d0 = (long long)floor(j->submit / SYNTH_DAY);
		if (h0 >= 0 && h0 < (long long)nh) {
			s->sub_gpus[h0] += j->gpus;
			s->sub_gs[h0] += gs;
		}
		if (d0 >= 0 && d0 < (long long)nd)
			s->day_class[d0][k]++;
		int m = j->model ? synth_profile_model(p, j->model) : -1;
		if (m < 0)
			continue;
		s->demand[m] += j->gpus;
		if (d0 >= 0 && d0 < (long long)nd)
			s->mday_gs[(size_t)m * nd + (size_t)d0] += gs;
		long long h1 = (long long)floor((j->submit + j->duration - 1) / SYNTH_HOUR);
		for (long long h = h0 < 0 ? 0 : h0; h <= h1 && h < (long long)nh; h++)
			s->touched[(size_t)m * nh + (size_t)h] += j->gpus;
		/* running at boundary b*3600 when submit <= b*3600 < submit + duration */
		long long b0 = (long long)ceil(j->submit / SYNTH_HOUR), b1 = (long long)ceil((j->submit + j->duration) / SYNTH_HOUR) - 1;
		if (b0 < 0)
			b0 = 0;
		if (b0 <= b1 && b0 < (long long)nh) {
			diff[(size_t)m * (nh + 1) + (size_t)b0] += j->gpus;
			diff[(size_t)m * (nh + 1) + (size_t)(b1 + 1 < (long long)nh ? b1 + 1 : (long long)nh)] -= j->gpus;
		}
	}
	for (size_t m = 0; m < nm; m++) {
		double run = 0;
		for (size_t h = 0; h < nh; h++)
			s->inst[m * nh + h] = run += diff[m * (nh + 1) + h];
	}
	free(diff);
}

static void release(struct series4 *s)
{
	free(s->touched); free(s->inst); free(s->sub_gpus); free(s->sub_gs); free(s->mday_gs); free(s->demand); free(s->day_class);
	free(s->dur[0]); free(s->dur[1]);
}

/* Whole-span demand over capacity and the share of hours above capacity of a series. */
static void saturation(const double *v, size_t n, double cap, double *ratio, double *share)
{
	double sum = 0;
	size_t above = 0;
	for (size_t h = 0; h < n; h++) {
		sum += v[h];
		above += v[h] > cap;
	}
	*ratio = cap > 0 && n ? sum / (cap * (double)n) : NAN;
	*share = n ? (double)above / (double)n : NAN;
}

static void model_v4(const struct synth_profile *p, const struct series4 *s, size_t m, struct arena *a, struct json *rec, struct strbuf *md)
{
	const struct synth_model *sm = &p->models[m];
	size_t nh = s->nh, nd = s->nd, nm = s->nm;
	double cap = (double)sm->capacity, dayc = cap * SYNTH_DAY;
	size_t last = RATIO_LAST < nd ? RATIO_LAST : nd - 1, nr = last >= RATIO_FIRST ? last - RATIO_FIRST + 1 : 0;
	double *pr = xmalloc((nr ? nr : 1) * sizeof *pr), *tr = xmalloc((nr ? nr : 1) * sizeof *tr);
	for (size_t d = RATIO_FIRST; d <= last; d++) {
		pr[d - RATIO_FIRST] = dayc > 0 ? p->model_day_gs[d * nm + m] / dayc : NAN;
		tr[d - RATIO_FIRST] = dayc > 0 ? s->mday_gs[m * nd + d] / dayc : NAN;
	}
	double r_days = synth_pearson(pr, tr, nr), d0 = rel(s->mday_gs[m * nd], p->model_day_gs[m]);
	double p50 = rel(quant(tr, nr, 0.5), quant(pr, nr, 0.5)), p90 = rel(quant(tr, nr, 0.9), quant(pr, nr, 0.9));
	double dem = rel(s->demand[m], sm->ref_demand);
	const double *tt = &s->touched[m * nh], *ti = &s->inst[m * nh];
	double r_touch = synth_pearson(sm->concurrency, tt, nh), ratio_p, share_p, ratio_t, share_t, ratio_i, share_i;
	saturation(sm->concurrency, nh, cap, &ratio_p, &share_p);
	saturation(tt, nh, cap, &ratio_t, &share_t);
	saturation(ti, nh, cap, &ratio_i, &share_i);
	double jobs_h = (double)sm->jobs / (double)(p->n_hours ? p->n_hours : 1), r_floor = jobs_h >= 10 ? 0.95 : 0.9;
	double mean_t = 0, mean_i = 0, peak_t = 0, peak_i = 0;
	for (size_t h = 0; h < nh; h++) {
		mean_t += tt[h] / (double)nh;
		mean_i += ti[h] / (double)nh;
		peak_t = tt[h] > peak_t ? tt[h] : peak_t;
		peak_i = ti[h] > peak_i ? ti[h] : peak_i;
	}
	struct json *v = json_object(a), *sat = json_object(a), *inst = json_object(a), *days = json_object(a);
	json_set(a, v, "gpu_demand", target(a, s->demand[m], sm->ref_demand, dem, 0.02));
	json_set(a, days, "day0", target(a, s->mday_gs[m * nd], p->model_day_gs[m], d0, 0.10));
	json_set(a, days, "pearson_r_days_1_183", at_least(a, r_days, 0.8));
	json_set(a, days, "ratio_p50", target(a, quant(tr, nr, 0.5), quant(pr, nr, 0.5), p50, 0.15));
	json_set(a, days, "ratio_p90", target(a, quant(tr, nr, 0.9), quant(pr, nr, 0.9), p90, 0.15));
	json_set(a, v, "gpu_seconds_by_submit_day", days);
	json_set(a, v, "touched_pearson_r", at_least(a, r_touch, r_floor));
	json_set(a, inst, "touched_mean", n6(a, mean_t));
	json_set(a, inst, "instantaneous_mean", n6(a, mean_i));
	json_set(a, inst, "touched_peak", n6(a, peak_t));
	json_set(a, inst, "instantaneous_peak", n6(a, peak_i));
	json_set(a, inst, "instantaneous_vs_published_touched_r", n6(a, synth_pearson(sm->concurrency, ti, nh)));
	json_set(a, v, "series", inst);
	json_set(a, sat, "capacity_gpus", n6(a, cap));
	json_set(a, sat, "published_demand_over_capacity", n6(a, ratio_p));
	json_set(a, sat, "published_hours_above_capacity_share", n6(a, share_p));
	json_set(a, sat, "trace_demand_over_capacity", n6(a, ratio_t));
	json_set(a, sat, "trace_hours_above_capacity_share", n6(a, share_t));
	json_set(a, sat, "instantaneous_demand_over_capacity", n6(a, ratio_i));
	json_set(a, sat, "instantaneous_hours_above_capacity_share", n6(a, share_i));
	json_set(a, sat, "saturated", ratio_p > 1 || share_p > 0.5 ? json_bool(a, true) : json_bool(a, false));
	json_set(a, v, "saturation", sat);
	json_set(a, rec, "v4", v);
	sb_addf(md, "| %s | %+.2f %% (%s) | %+.1f %% (%s) | %.3f (%s) | %+.1f %% / %+.1f %% (%s) | %.3f (>= %.2f, %s) | %.0f / %.0f | %.0f / %.0f | %.2fx, %.1f %% | %.2fx, %.1f %% | %.2fx, %.1f %% |\n",
		sm->name, 100 * dem, mark(fabs(dem) <= 0.02), 100 * d0, mark(fabs(d0) <= 0.10), r_days, mark(r_days >= 0.8),
		100 * p50, 100 * p90, mark(fabs(p50) <= 0.15 && fabs(p90) <= 0.15), r_touch, r_floor, mark(r_touch >= r_floor),
		mean_t, mean_i, peak_t, peak_i, ratio_p, 100 * share_p, ratio_t, 100 * share_t, ratio_i, 100 * share_i);
	free(pr); free(tr);
}

static void fleet_v4(const struct synth_profile *p, struct series4 *s, struct arena *a, struct json *sum, struct strbuf *md)
{
	size_t nh = p->n_hours, nd = s->nd;
	double med[2], p90[2];
	for (int k = 0; k < 2; k++)
		class_quantiles(s->dur[k], s->n_dur[k], &med[k], &p90[k]);
	size_t days_ok = 0;
	for (size_t d = 0; d < nd; d++)
		days_ok += s->day_class[d][0] == p->daily[d][0] && s->day_class[d][1] == p->daily[d][1];
	size_t within = 0;
	for (size_t h = 0; h < nh; h++)
		within += p->sub_gpus[h] > 0 ? fabs(s->sub_gpus[h] / p->sub_gpus[h] - 1) <= TOL_HOUR : s->sub_gpus[h] == 0;
	double r_gpus = synth_pearson(p->sub_gpus, s->sub_gpus, nh), r_gs = nh > 1 ? synth_pearson(p->sub_gs + 1, s->sub_gs + 1, nh - 1) : NAN;
	double share = nh ? (double)within / (double)nh : NAN, days_share = nd ? (double)days_ok / (double)nd : NAN;
	/* the fleet's published instantaneous series: touched-hour GPUs less the GPUs submitted in the hour */
	double *pub_i = xcalloc(s->nh, sizeof *pub_i), *tr_i = xcalloc(s->nh, sizeof *tr_i);
	for (size_t h = 0; h < s->nh; h++) {
		for (size_t m = 0; m < s->nm; m++) {
			pub_i[h] += p->models[m].concurrency[h];
			tr_i[h] += s->inst[m * s->nh + h];
		}
		pub_i[h] -= h < nh ? p->sub_gpus[h] : 0;
	}
	double r_inst = synth_pearson(pub_i, tr_i, s->nh);
	long long spot_long_p = p->long_jobs[1][1];
	double e_gs = rel(s->spot_gs, p->class_gpu_seconds[1]), e_long = rel((double)s->spot_long, (double)spot_long_p);
	double e_med[2], e_p90[2];
	for (int k = 0; k < 2; k++) {
		e_med[k] = rel(med[k], p->class_median[k]);
		e_p90[k] = rel(p90[k], p->class_p90[k]);
	}
	struct json *v = json_object(a), *cls = json_object(a), *sub = json_object(a);
	json_set(a, cls, "spot_gpu_seconds", target(a, s->spot_gs, p->class_gpu_seconds[1], e_gs, 0.05));
	json_set(a, cls, "spot_long_jobs", target(a, (double)s->spot_long, (double)spot_long_p, e_long, 0.05));
	json_set(a, cls, "hp_median_duration", target(a, med[0], p->class_median[0], e_med[0], 0.10));
	json_set(a, cls, "hp_p90_duration", target(a, p90[0], p->class_p90[0], e_p90[0], 0.10));
	json_set(a, cls, "spot_median_duration", target(a, med[1], p->class_median[1], e_med[1], 0.10));
	json_set(a, cls, "spot_p90_duration", target(a, p90[1], p->class_p90[1], e_p90[1], 0.10));
	json_set(a, cls, "days_with_exact_class_counts", at_least(a, days_share, 0.95));
	json_set(a, v, "classes", cls);
	json_set(a, sub, "gpus_per_hour_pearson_r", at_least(a, r_gpus, 0.9));
	json_set(a, sub, "gpus_per_hour_within_10pct_share", at_least(a, share, 0.8));
	json_set(a, sub, "gpu_seconds_per_hour_pearson_r_from_hour_1", at_least(a, r_gs, 0.8));
	json_set(a, sub, "instantaneous_fleet_pearson_r", n6(a, r_inst));
	json_set(a, v, "submissions", sub);
	json_set(a, sum, "v4", v);
	sb_addf(md, "\n## Classes and submissions (profile /4)\n\n| target | trace | published | error | tolerance | |\n|---|---:|---:|---:|---:|---|\n");
	sb_addf(md, "| Spot GPU-seconds | %.4g | %.4g | %+.2f %% | 5 %% | %s |\n", s->spot_gs, p->class_gpu_seconds[1], 100 * e_gs, mark(fabs(e_gs) <= 0.05));
	sb_addf(md, "| Spot jobs >= 6 h | %lld | %lld | %+.2f %% | 5 %% | %s |\n", s->spot_long, spot_long_p, 100 * e_long, mark(fabs(e_long) <= 0.05));
	static const char *const cn[2] = { "HP", "Spot" };
	for (int k = 0; k < 2; k++) {
		sb_addf(md, "| %s median duration (s) | %.1f | %.1f | %+.2f %% | 10 %% | %s |\n", cn[k], med[k], p->class_median[k], 100 * e_med[k], mark(fabs(e_med[k]) <= 0.10));
		sb_addf(md, "| %s p90 duration (s) | %.1f | %.1f | %+.2f %% | 10 %% | %s |\n", cn[k], p90[k], p->class_p90[k], 100 * e_p90[k], mark(fabs(e_p90[k]) <= 0.10));
	}
	sb_addf(md, "| days with the published HP and Spot counts | %zu of %zu | | %.1f %% | >= 95 %% | %s |\n", days_ok, nd, 100 * days_share, mark(days_share >= 0.95));
	sb_addf(md, "| GPUs submitted per hour, r | %.3f | | | >= 0.9 | %s |\n", r_gpus, mark(r_gpus >= 0.9));
	sb_addf(md, "| GPUs submitted per hour within +-10 %% | %.1f %% of %zu hours | | | >= 80 %% | %s |\n", 100 * share, nh, mark(share >= 0.8));
	sb_addf(md, "| GPU-seconds by submit hour (hours 1 on), r | %.3f | | | >= 0.8 | %s |\n", r_gs, mark(r_gs >= 0.8));
	sb_addf(md, "| fleet instantaneous series, r against published touched minus submitted | %.3f | | | (reported) | |\n", r_inst);
	free(pub_i); free(tr_i);
}

void synth_fidelity4(const struct synth_profile *p, const struct trace *t, struct arena *a, struct json **model_recs,
	struct json *summary, struct strbuf *md)
{
	struct series4 s;
	memset(&s, 0, sizeof s);
	collect(p, t, &s);
	fleet_v4(p, &s, a, summary, md);
	sb_addf(md, "\n## Per model (profile /4)\n\nDemand: the sum of GPUs per job against `demand_by_model`. GPU-seconds by "
		"submit day: day 0 against the table; r, p50 and p90 of the daily capacity ratio over days %d-%d. Touched r: "
		"hourly touched-hour concurrency against the published series (>= 0.95 for a model with >= 10 jobs an hour). "
		"Series: mean / peak of the touched-hour series and of the instantaneous one (running GPUs at each hour boundary). "
		"Saturation: whole-span demand / capacity and the share of hours above capacity, of the published series, the "
		"trace's touched-hour series and its instantaneous series.\n\n"
		"| model | demand | day 0 | days r | ratio p50 / p90 | touched r | touched mean / inst. mean | touched peak / inst. peak | published saturation | trace | instantaneous |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", RATIO_FIRST, RATIO_LAST);
	for (size_t m = 0; m < p->n_models; m++)
		model_v4(p, &s, m, a, model_recs[m], md);
	release(&s);
}
