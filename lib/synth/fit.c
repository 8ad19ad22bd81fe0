/* The Markdown fit report: the generated jobs against the profile's tables. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Quantile with linear interpolation between order statistics (numpy/pandas default). */
static double quantile(const double *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (pos - (double)i) * (sorted[i + 1] - sorted[i]);
}

static double tvd(const double *a, const double *b, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += fabs(a[i] - b[i]);
	return s / 2;
}

static void share(double *out, const long long *counts, size_t n)
{
	long long total = 0;
	for (size_t i = 0; i < n; i++)
		total += counts[i];
	for (size_t i = 0; i < n; i++)
		out[i] = total ? (double)counts[i] / (double)total : 0;
}

static void fit_hours(const struct synth_profile *p, const struct synth_options *o, const struct trace *t, struct strbuf *out)
{
	sb_adds(out, "## Hourly arrivals\n\n");
	if (o->n_gpu_models) {
		sb_adds(out, "Not compared: the GPU-model filter keeps a subset of every hour.\n\n");
		return;
	}
	long long *target = xmalloc(p->n_hours * sizeof *target), *got = xcalloc(p->n_hours, sizeof *got);
	synth_scaled_hours(p, o->load_factor, target);
	for (size_t i = 0; i < t->n_jobs; i++) {
		size_t h = (size_t)(t->jobs[i].submit / SYNTH_HOUR);
		if (h < p->n_hours)
			got[h]++;
	}
	size_t first = o->has_days ? (size_t)o->day_first * 24 : 0;
	size_t last = o->has_days ? (size_t)o->day_last * 24 + 23 : p->n_hours - 1;
	if (last >= p->n_hours)
		last = p->n_hours - 1;
	long long want = 0, have = 0, maxdiff = 0, differ = 0;
	for (size_t h = first; h <= last; h++) {
		long long d = llabs(target[h] - got[h]);
		want += target[h];
		have += got[h];
		maxdiff = d > maxdiff ? d : maxdiff;
		differ += d != 0;
	}
	sb_addf(out, "Target: the profile's count of each hour scaled by the load factor (%g).\n\n", o->load_factor);
	sb_adds(out, "| hours compared | target jobs | generated jobs | max abs diff per hour | hours that differ |\n");
	sb_adds(out, "|---:|---:|---:|---:|---:|\n");
	sb_addf(out, "| %zu | %lld | %lld | %lld | %lld |\n\n", last - first + 1, want, have, maxdiff, differ);
	free(target);
	free(got);
}

static void fit_classes(const struct synth_profile *p, const struct synth_options *o, const struct trace *t, struct strbuf *out)
{
	long long hp = 0, php = 0, pall = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		hp += t->jobs[i].hp;
	for (size_t d = 0; d < p->n_days; d++)
		if (!o->has_days || ((long long)d >= o->day_first && (long long)d <= o->day_last)) {
			php += p->daily[d][0];
			pall += p->daily[d][0] + p->daily[d][1];
		}
	/* With a GPU-model filter the profile's daily counts cover every model: compare the
	 * kept models' expected share of them (/3: each model's inferred Spot share; /1 and /2:
	 * the class is drawn independently of the model). */
	double want_hp = (double)php, want_spot = (double)(pall - php);
	long long all_jobs = 0, kept_jobs = 0;
	double kept_spot = 0;
	for (size_t m = 0; m < p->n_models; m++) {
		bool on = o->n_gpu_models == 0;
		for (size_t k = 0; k < o->n_gpu_models; k++)
			on |= !strcmp(o->gpu_models[k], p->models[m].name);
		all_jobs += p->models[m].jobs;
		if (on) {
			kept_jobs += p->models[m].jobs;
			kept_spot += (double)p->models[m].jobs * (p->version == 3 ? p->models[m].spot_share : 0);
		}
	}
	if (o->n_gpu_models && all_jobs > 0) {
		double frac = (double)kept_jobs / (double)all_jobs;
		if (p->version == 3) {
			want_spot = (double)pall * kept_spot / (double)all_jobs;
			want_hp = (double)pall * frac - want_spot;
		} else {
			want_hp *= frac;
			want_spot *= frac;
		}
	}
	sb_adds(out, "## Service class\n\n");
	if (p->version == 3)
		sb_adds(out, "Each job is Spot with its model's inferred Spot share, scaled by the day's Spot fraction; ");
	else
		sb_adds(out, "Each day's HP/Spot split is exact (scaled by the load factor); ");
	if (o->n_gpu_models)
		sb_adds(out, "with --gpu-model the profile column is the kept models' expected part of the kept days' jobs.\n\n");
	else
		sb_adds(out, "the table covers the kept days.\n\n");
	sb_adds(out, "| | profile | generated |\n|---|---:|---:|\n");
	sb_addf(out, "| HP share | %.6f | %.6f |\n", want_hp + want_spot > 0 ? want_hp / (want_hp + want_spot) : 0,
		t->n_jobs ? (double)hp / (double)t->n_jobs : 0);
	sb_addf(out, "| HP jobs | %.0f | %lld |\n| Spot jobs | %.0f | %lld |\n\n", want_hp, hp, want_spot, (long long)t->n_jobs - hp);
}

static void fit_models(const struct synth_profile *p, const struct synth_options *o, const struct trace *t,
	const struct synth_stats *st, struct strbuf *out)
{
	size_t n = p->n_models;
	long long *want = xcalloc(n, sizeof *want), *got = xcalloc(n, sizeof *got);
	double *gpus = xcalloc(n, sizeof *gpus), *gsec = xcalloc(n, sizeof *gsec);
	double *ps = xmalloc(n * sizeof *ps), *gs = xmalloc(n * sizeof *gs);
	for (size_t i = 0; i < t->n_jobs; i++) {
		int m = synth_profile_model(p, t->jobs[i].model);
		got[m]++;
		gpus[m] += t->jobs[i].gpus;
		gsec[m] += t->jobs[i].gpus * t->jobs[i].duration;
	}
	for (size_t m = 0; m < n; m++) {
		bool on = o->n_gpu_models == 0;
		for (size_t k = 0; k < o->n_gpu_models; k++)
			on |= !strcmp(o->gpu_models[k], p->models[m].name);
		want[m] = on ? p->models[m].jobs : 0;
	}
	share(ps, want, n);
	share(gs, got, n);
	sb_adds(out, "## GPU models\n\n");
	sb_addf(out, "Total variation distance of the job shares: %.6f.\n\n", tvd(ps, gs, n));
	sb_adds(out, "| model | profile jobs | profile share | generated jobs | generated share |\n|---|---:|---:|---:|---:|\n");
	for (size_t m = 0; m < n; m++)
		sb_addf(out, "| %s | %lld | %.6f | %lld | %.6f |\n", p->models[m].name, want[m], ps[m], got[m], gs[m]);
	sb_adds(out, "\n### GPUs per job and GPU-seconds by model\n\n");
	sb_adds(out, "Profile values are the real trace's (full trace, all days); relative errors compare the\n"
		"generated sums with them scaled by the model's generated/profile job ratio.\n\n");
	sb_adds(out, "| model | capacity GPUs | profile mean GPUs/job | generated mean GPUs/job | capped jobs | profile GPU-seconds | generated GPU-seconds | GPU demand rel. err | GPU-seconds rel. err |\n");
	sb_adds(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t m = 0; m < n; m++) {
		const struct synth_model *sm = &p->models[m];
		sb_addf(out, "| %s | %lld | ", sm->name, sm->capacity);
		if (isnan(sm->ref_demand) || !sm->jobs)
			sb_adds(out, "n/a | ");
		else
			sb_addf(out, "%.3f | ", sm->ref_demand / (double)sm->jobs);
		if (got[m])
			sb_addf(out, "%.3f | ", gpus[m] / (double)got[m]);
		else
			sb_adds(out, "n/a | ");
		sb_addf(out, "%lld | ", st->model_capped[m]);
		if (isnan(sm->ref_gpu_seconds))
			sb_adds(out, "n/a | ");
		else
			sb_addf(out, "%.4g | ", sm->ref_gpu_seconds);
		sb_addf(out, "%.4g | ", gsec[m]);
		double scale = sm->jobs ? (double)got[m] / (double)sm->jobs : 0;
		if (isnan(sm->ref_demand) || !got[m])
			sb_adds(out, "n/a | ");
		else
			sb_addf(out, "%+.4f | ", gpus[m] / (sm->ref_demand * scale) - 1);
		if (isnan(sm->ref_gpu_seconds) || !got[m])
			sb_adds(out, "n/a |\n");
		else
			sb_addf(out, "%+.4f |\n", gsec[m] / (sm->ref_gpu_seconds * scale) - 1);
	}
	sb_addc(out, '\n');
	free(want);
	free(got);
	free(gpus);
	free(gsec);
	free(ps);
	free(gs);
}

static void fit_joint_classes(const struct synth_profile *p, const struct trace *t, struct strbuf *out)
{
	static const char *const names[2] = { "HP", "Spot" };
	size_t n[2] = { 0, 0 };
	double *d[2], gs[2] = { 0, 0 }, total = 0, ptotal = 0;
	d[0] = xmalloc((t->n_jobs + 1) * sizeof *d[0]);
	d[1] = xmalloc((t->n_jobs + 1) * sizeof *d[1]);
	for (size_t i = 0; i < t->n_jobs; i++) {
		int c = t->jobs[i].hp ? 0 : 1;
		d[c][n[c]++] = t->jobs[i].duration;
		gs[c] += t->jobs[i].gpus * t->jobs[i].duration;
	}
	sb_adds(out, "## GPU-seconds and durations by class\n\n");
	sb_adds(out, "GPU-seconds are targets of the duration coupling; the class medians and p90s are not\n"
		"(they follow from it).\n\n");
	sb_adds(out, "| class | profile GPU-seconds | generated GPU-seconds | rel. err | profile median | generated median | profile p90 | generated p90 |\n");
	sb_adds(out, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int c = 0; c < 2; c++) {
		qsort(d[c], n[c], sizeof *d[c], cmp_double);
		sb_addf(out, "| %s | %.4g | %.4g | ", names[c], p->class_gpu_seconds[c], gs[c]);
		if (isnan(p->class_gpu_seconds[c]))
			sb_adds(out, "n/a | ");
		else
			sb_addf(out, "%+.4f | ", gs[c] / p->class_gpu_seconds[c] - 1);
		sb_addf(out, "%.1f | %.1f | %.1f | %.1f |\n", p->class_median[c], n[c] ? quantile(d[c], n[c], 0.5) : NAN,
			p->class_p90[c], n[c] ? quantile(d[c], n[c], 0.9) : NAN);
		total += gs[c];
	}
	for (size_t m = 0; m < p->n_models; m++)
		if (!isnan(p->models[m].ref_gpu_seconds))
			ptotal += p->models[m].ref_gpu_seconds;
	sb_addf(out, "\nTotal GPU-seconds: profile %.4g, generated %.4g (%+.4f).\n\n", ptotal, total, ptotal > 0 ? total / ptotal - 1 : NAN);
	free(d[0]);
	free(d[1]);
}

/* Mean over [first submit, last submit] of the GPUs of running jobs of a model, per unit of
 * the model's capacity: the upstream "A10 demand" check. */
static void fit_pressure(const struct synth_profile *p, const struct trace *t, struct strbuf *out)
{
	sb_adds(out, "## Demand over capacity\n\n");
	sb_adds(out, "Sum of gpus x duration of the model's jobs clipped to [first submit, last submit), divided by\n"
		"capacity x that span (the real trace: A10 about 133%, alibaba/clusterdata issue 260).\n\n");
	sb_adds(out, "| model | capacity GPUs | demand / capacity |\n|---|---:|---:|\n");
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < t->n_jobs; i++) {
		lo = t->jobs[i].submit < lo ? t->jobs[i].submit : lo;
		hi = t->jobs[i].submit > hi ? t->jobs[i].submit : hi;
	}
	for (size_t m = 0; m < p->n_models; m++) {
		double sum = 0;
		bool any = false;
		for (size_t i = 0; i < t->n_jobs; i++) {
			if (strcmp(t->jobs[i].model, p->models[m].name))
				continue;
			double e = t->jobs[i].submit + t->jobs[i].duration;
			sum += t->jobs[i].gpus * ((e < hi ? e : hi) - t->jobs[i].submit);
			any = true;
		}
		if (any && hi > lo)
			sb_addf(out, "| %s | %lld | %.1f%% |\n", p->models[m].name, p->models[m].capacity,
				100 * sum / ((double)p->models[m].capacity * (hi - lo)));
	}
	sb_addc(out, '\n');
}

static void fit_workers(const struct synth_profile *p, const struct synth_stats *st, struct strbuf *out)
{
	static const long long edge[] = { 1, 2, 4, 8, 16, 32, 64, 128, 1000000 };
	size_t n = p->n_workers;
	double *ps = xmalloc((n ? n : 1) * sizeof *ps), *gs = xmalloc((n ? n : 1) * sizeof *gs);
	share(ps, p->worker_jobs, n);
	share(gs, st->worker_hist, n);
	sb_adds(out, "## Worker counts\n\n");
	sb_addf(out, "Total variation distance over the %zu worker counts of the table: %.6f.\n\n", n, tvd(ps, gs, n));
	sb_adds(out, "| workers | profile share | generated share |\n|---|---:|---:|\n");
	long long lo = 1;
	for (size_t b = 0; b < sizeof edge / sizeof *edge; b++) {
		double a = 0, g = 0;
		for (size_t i = 0; i < n; i++)
			if (p->worker_value[i] >= lo && p->worker_value[i] <= edge[b]) {
				a += ps[i];
				g += gs[i];
			}
		if (lo == edge[b])
			sb_addf(out, "| %lld | %.6f | %.6f |\n", lo, a, g);
		else if (b + 1 == sizeof edge / sizeof *edge)
			sb_addf(out, "| %lld+ | %.6f | %.6f |\n", lo, a, g);
		else
			sb_addf(out, "| %lld-%lld | %.6f | %.6f |\n", lo, edge[b], a, g);
		lo = edge[b] + 1;
	}
	sb_addc(out, '\n');
	free(ps);
	free(gs);
}

static void fit_durations(const struct synth_profile *p, const struct trace *t, struct strbuf *out)
{
	double *d = xmalloc(t->n_jobs * sizeof *d), sum = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		d[i] = t->jobs[i].duration;
		sum += d[i];
	}
	qsort(d, t->n_jobs, sizeof *d, cmp_double);
	sb_adds(out, "## Durations\n\n");
	sb_adds(out, "Generated quantiles interpolate linearly between order statistics. The 0 and 1 knots are\n"
		"the profile's assumed bounds.\n\n");
	sb_adds(out, "| quantile | profile seconds | generated seconds | relative diff |\n|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < p->n_quant; i++) {
		double g = quantile(d, t->n_jobs, p->quant_p[i]);
		sb_addf(out, "| %g | %.1f | %.1f | %+.4f |\n", p->quant_p[i], p->quant_v[i], g, (g - p->quant_v[i]) / p->quant_v[i]);
	}
	sb_addf(out, "\nGenerated mean duration: %.1f s.\n\n", sum / (double)t->n_jobs);
	free(d);
}

static int cmp_rank(const void *a, const void *b)
{
	const long long *x = a, *y = b;   /* {count, index} */
	if (x[0] != y[0])
		return x[0] > y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static char *const *sort_names;   /* qsort has no context argument */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(sort_names[*(const size_t *)a], sort_names[*(const size_t *)b]);
}

static void fit_orgs(const struct synth_profile *p, const struct trace *t, struct strbuf *out)
{
	size_t n = p->n_orgs;
	long long *got = xcalloc(n, sizeof *got), (*rank)[2] = xmalloc(n * sizeof *rank);
	double *ogs = xcalloc(n, sizeof *ogs);
	double *ps = xmalloc(n * sizeof *ps), *gs = xmalloc(n * sizeof *gs);
	/* Look tenants up through the organization names sorted bytewise. */
	size_t *byname = xmalloc(n * sizeof *byname);
	for (size_t k = 0; k < n; k++)
		byname[k] = k;
	sort_names = p->org_name;
	qsort(byname, n, sizeof *byname, cmp_name);
	for (size_t i = 0; i < t->n_jobs; i++) {
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(p->org_name[byname[mid]], t->jobs[i].tenant);
			if (c == 0) {
				got[byname[mid]]++;
				ogs[byname[mid]] += t->jobs[i].gpus * t->jobs[i].duration;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	free(byname);
	share(ps, p->org_jobs, n);
	share(gs, got, n);
	for (size_t k = 0; k < n; k++) {
		rank[k][0] = p->org_jobs[k];
		rank[k][1] = (long long)k;
	}
	qsort(rank, n, sizeof *rank, cmp_rank);
	sb_adds(out, "## Organizations (tenants)\n\n");
	sb_addf(out, "Total variation distance of the job shares over %zu organizations: %.6f.\n\n", n, tvd(ps, gs, n));
	sb_adds(out, "| organization | profile share | generated share |\n|---|---:|---:|\n");
	for (size_t r = 0; r < n && r < 10; r++) {
		size_t k = (size_t)rank[r][1];
		sb_addf(out, "| %s | %.6f | %.6f |\n", p->org_name[k], ps[k], gs[k]);
	}
	sb_addc(out, '\n');
	bool have = false;
	for (size_t k = 0; k < n; k++) {
		have |= !isnan(p->org_gpu_seconds[k]);
		rank[k][0] = isnan(p->org_gpu_seconds[k]) ? -1 : (long long)p->org_gpu_seconds[k];
		rank[k][1] = (long long)k;
	}
	if (have) {
		qsort(rank, n, sizeof *rank, cmp_rank);
		double cover = 0, all = 0;
		for (size_t k = 0; k < n; k++)
			all += isnan(p->org_gpu_seconds[k]) ? 0 : p->org_gpu_seconds[k];
		sb_adds(out, "### GPU-seconds of the top 20 organizations\n\n");
		sb_adds(out, "GPU-seconds are coupling targets (with less weight than the models'); medians are not.\n\n");
		sb_adds(out, "| organization | profile GPU-seconds | generated GPU-seconds | rel. err | profile median duration | generated median duration |\n");
		sb_adds(out, "|---|---:|---:|---:|---:|---:|\n");
		double *dd = xmalloc((t->n_jobs + 1) * sizeof *dd);
		for (size_t r = 0; r < n && r < 20; r++) {
			size_t k = (size_t)rank[r][1];
			size_t nd = 0;
			for (size_t i = 0; i < t->n_jobs; i++)
				if (!strcmp(t->jobs[i].tenant, p->org_name[k]))
					dd[nd++] = t->jobs[i].duration;
			qsort(dd, nd, sizeof *dd, cmp_double);
			cover += p->org_gpu_seconds[k];
			sb_addf(out, "| %s | %.4g | %.4g | %+.4f | %.1f | %.1f |\n", p->org_name[k], p->org_gpu_seconds[k], ogs[k],
				ogs[k] / p->org_gpu_seconds[k] - 1, p->org_median[k], nd ? quantile(dd, nd, 0.5) : NAN);
		}
		free(dd);
		sb_addf(out, "\nThese 20 carry %.4f of the profile's organization GPU-seconds.\n\n", all > 0 ? cover / all : NAN);
	}
	free(ogs);
	free(got);
	free(rank);
	free(ps);
	free(gs);
}

void synth_fit(const struct synth_profile *p, const struct synth_options *o, const struct trace *t,
	const struct synth_stats *st, struct strbuf *out)
{
	sb_adds(out, "# trace-synth fit report\n\n");
	sb_addf(out, "Profile `%s` (%llu bytes, xxh3 `%s`), seed %llu, load factor %g, ", p->name, p->bytes, p->xxh3,
		(unsigned long long)o->seed, o->load_factor);
	if (o->has_days)
		sb_addf(out, "days %lld-%lld, ", o->day_first, o->day_last);
	else
		sb_addf(out, "all %zu days, ", p->n_days);
	if (o->n_gpu_models) {
		sb_adds(out, "GPU models");
		for (size_t i = 0; i < o->n_gpu_models; i++)
			sb_addf(out, "%s`%s`", i ? ", " : " ", o->gpu_models[i]);
		sb_adds(out, ".\n\n");
	} else
		sb_adds(out, "all GPU models.\n\n");
	sb_addf(out, "Jobs generated: %lld; kept after the filters: %zu; GPUs cut to the model's capacity: %lld kept jobs.\n\n",
		st->generated_jobs, t->n_jobs, st->capped_jobs);
	fit_hours(p, o, t, out);
	fit_classes(p, o, t, out);
	fit_models(p, o, t, st, out);
	fit_joint_classes(p, t, out);
	fit_pressure(p, t, out);
	fit_workers(p, st, out);
	fit_durations(p, t, out);
	fit_orgs(p, t, out);
}
