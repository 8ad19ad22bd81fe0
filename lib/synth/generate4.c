/* The /4 generator: submissions first (docs/profiles.md, "schednav.synth-profile/4").
 *
 * /3 drew each job's model, size and duration against the per-model concurrency deficit,
 * which kept the touched-hour series but not what was submitted when. /4 builds the
 * population from the submission tables, in six deterministic passes:
 *  1. models per hour: each model's jobs spread over the hours in proportion to its
 *     published concurrency, scaled to the hour's exact job count (iterative proportional
 *     fitting on rows and columns), rounded per hour with each model's error carried on;
 *     hour 0 (the jobs already running at the start) split by the published hour-0
 *     concurrency at each model's mean size;
 *  2. sizes: each model's joint (workers, GPUs per worker) table as one shuffled multiset,
 *     largest first, each cell to the hour with the largest GPUs still to submit (plus RISE x
 *     its model's unmet concurrency rise into the hour, less RESERVE x the other models' unmet
 *     rises) per free slot, among the hours with a free slot of its model, so the GPUs submitted per hour follow hourly_summary, each
 *     model's demand is its table's and its big gangs come where its series jumps;
 *  3. durations (durations4.c): one stratified multiset from an inverse CDF through the
 *     duration buckets' edges and the duration quantiles (log-linear between knots), the
 *     real rows' nearest durations taken out; hour 0's jobs along an exponential skyline of
 *     each model's day-0 GPU-seconds; then the long ones (>= 1 h), longest first, each to a
 *     (model, day) with GPU-seconds still to submit and room under the model's concurrency,
 *     the largest need relative to the model's total first;
 *     the short ones dealt over the rest in a seeded order;
 *  4. the repair pass of /3 (repair3.c) over the jobs of 1 h and more moves their ends
 *     inside their duration bucket toward each model's concurrency (a job drawn under a day
 *     to at most REPAIR_STRETCH x its drawn duration);
 *  5. classes: each day's exact Spot count, each Spot job the day's unclaimed job whose
 *     duration is nearest a target drawn from the Spot duration figures (median, p90, long
 *     share) on the same side of 6 h, among the nearest the one whose GPU-seconds are nearest
 *     what the Spot class still needs per job of its slice (a short job above it at SPOT_UP
 *     of the cost).
 *  6.  the swap pass (swap4.c): each job's submit second inside its hour, then jobs of one
 *     model and class exchange submit times,
 *     within 14 days and never out of the band of GPUs submitted, toward each model's
 *     touched-hour series;
 * The real job rows go in first as they were and count in every target. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RNG4_SUBMIT = 201, RNG4_DECK, RNG4_DURATION, RNG4_SHORT, RNG4_SPOT, RNG4_ORG, RNG4_SWAP };

#define IPF_ROUNDS 12
#define RISE 0.3               /* weight of a model's concurrency rise into an hour in the size placement */
#define RESERVE 0.3            /* weight of the other models' unmet rises, held back from a model's key */
#define SPOT_LONG 21600.0      /* the long-job slice threshold when the profile has none */
#define SPOT_TOP (7.0 * SYNTH_DAY)   /* the longest Spot duration (inferred, as /3) */
#define SPOT_CANDIDATES 48
#define REPAIR_STRETCH 2.5     /* the repair pass ends a generated job drawn under a day at most 2.5 x its drawn duration */
#define SPOT_UP 0.25           /* weight of a short Spot candidate's GPU-seconds above the need per job */

/* A max tree over hours: the hour with the largest key, lowest index first on ties. */
struct maxtree { size_t size; double *v; };

static void mt_init(struct maxtree *t, size_t n)
{
	t->size = 1;
	while (t->size < n)
		t->size *= 2;
	t->v = xmalloc(2 * t->size * sizeof *t->v);
	for (size_t i = 0; i < 2 * t->size; i++)
		t->v[i] = -INFINITY;
}

static void mt_set(struct maxtree *t, size_t i, double x)
{
	size_t k = t->size + i;
	t->v[k] = x;
	for (k /= 2; k >= 1; k /= 2)
		t->v[k] = t->v[2 * k] >= t->v[2 * k + 1] ? t->v[2 * k] : t->v[2 * k + 1];
}

static size_t mt_argmax(const struct maxtree *t)
{
	size_t k = 1;
	while (k < t->size)
		k = t->v[2 * k] >= t->v[2 * k + 1] ? 2 * k : 2 * k + 1;
	return k - t->size;
}

/* Pass 1: q[m * nh + h] jobs of model m in hour h; row sums n[h], column sums near want[m]. */
static void quota_models(const struct synth_profile *p, const long long *n, const double *want, long long *q)
{
	size_t nm = p->n_models, nh = p->n_hours;
	double *x = xmalloc(nm * nh * sizeof *x), *carry = xcalloc(nm, sizeof *carry), *rem = xmalloc(nm * sizeof *rem);
	for (size_t m = 0; m < nm; m++) {
		double s = 0;
		for (size_t h = 0; h < nh; h++)
			s += p->models[m].concurrency[h];
		for (size_t h = 0; h < nh; h++)
			x[m * nh + h] = s > 0 ? want[m] * p->models[m].concurrency[h] / s : want[m] / (double)nh;
	}
	for (int round = 0; round < IPF_ROUNDS; round++) {
		for (size_t h = 0; h < nh; h++) {
			double s = 0;
			for (size_t m = 0; m < nm; m++)
				s += x[m * nh + h];
			for (size_t m = 0; m < nm; m++)
				x[m * nh + h] = s > 0 ? x[m * nh + h] * (double)n[h] / s : (double)n[h] * want[m] / (double)nm;
		}
		if (round + 1 == IPF_ROUNDS)
			break;
		for (size_t m = 0; m < nm; m++) {
			double s = 0;
			for (size_t h = 0; h < nh; h++)
				s += x[m * nh + h];
			for (size_t h = 0; h < nh && s > 0; h++)
				x[m * nh + h] *= want[m] / s;
		}
	}
	/* Hour 0 holds the jobs already running when the trace starts: every GPU active in it was
	 * submitted in it, so each model's jobs there are those that submit its published hour-0
	 * concurrency at its mean size (not its usual hourly share). */
	double w0 = 0, *w = xcalloc(nm, sizeof *w);
	for (size_t m = 0; m < nm && nh > 0; m++) {
		const struct synth_model *sm = &p->models[m];
		double g = 0;
		for (size_t k = 0; k < sm->n_cells; k++)
			g += sm->cell_gpw[k] * (double)sm->cell_workers[k] * (double)sm->cell_jobs[k];
		g = sm->jobs > 0 && g > 0 ? g / (double)sm->jobs : 1;
		w0 += w[m] = sm->concurrency[0] / g;
	}
	for (size_t m = 0; m < nm && nh > 0 && w0 > 0; m++)
		x[m * nh] = (double)n[0] * w[m] / w0;
	free(w);
	for (size_t h = 0; h < nh; h++) {
		long long left = n[h];
		for (size_t m = 0; m < nm; m++) {
			double v = x[m * nh + h] + carry[m];
			long long k = v > 0 ? (long long)floor(v) : 0;
			k = k < left ? k : left;
			q[m * nh + h] = k;
			left -= k;
			rem[m] = v - (double)k;
		}
		while (left > 0) {   /* the largest remainders */
			size_t best = 0;
			for (size_t m = 1; m < nm; m++)
				if (rem[m] > rem[best])
					best = m;
			q[best * nh + h]++;
			rem[best] -= 1;
			left--;
		}
		for (size_t m = 0; m < nm; m++)
			carry[m] += x[m * nh + h] - (double)q[m * nh + h];
	}
	free(x); free(carry); free(rem);
}

struct cellpick { double gpus; long long workers; int model; unsigned order; };

static int cellpick_cmp(const void *a, const void *b)
{
	const struct cellpick *x = a, *y = b;
	if (x->gpus != y->gpus)
		return x->gpus > y->gpus ? -1 : 1;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A free slot's key for a model's next cell: the hour's GPUs still to submit, less RESERVE x the
 * other models' concurrency rises into the hour still unmet (only their jobs submitted in it can
 * make them), plus RISE x the model's own, per free slot of the hour. */
static double cell_key(double need, double own, double all, long long free_slots)
{
	return (need - RESERVE * (all - (own > 0 ? own : 0)) + RISE * own) / (double)free_slots;
}

/* Pass 2: every generated job's model, size and hour; need[h] holds the GPUs each hour still
 * has to submit. Jobs are appended to *jobs in no particular order. */
static void assign_cells(const struct synth_profile *p, const long long *q, double *need, struct synth_rng *r_deck,
	struct synth_job3 *jobs, size_t *n_jobs)
{
	size_t nm = p->n_models, nh = p->n_hours, total = 0, k = 0;
	long long *free_mh = xmalloc(nm * nh * sizeof *free_mh), *free_h = xcalloc(nh, sizeof *free_h);
	memcpy(free_mh, q, nm * nh * sizeof *free_mh);
	for (size_t m = 0; m < nm; m++)
		for (size_t h = 0; h < nh; h++) {
			free_h[h] += q[m * nh + h];
			total += (size_t)q[m * nh + h];
		}
	struct cellpick *cells = xmalloc((total ? total : 1) * sizeof *cells);
	for (size_t m = 0; m < nm; m++) {
		const struct synth_model *sm = &p->models[m];
		long long slots = 0;
		for (size_t h = 0; h < nh; h++)
			slots += q[m * nh + h];
		struct synth_deck d;
		synth_deck_fill(&d, sm->cell_jobs, sm->n_cells, 1);
		d.rng = r_deck;
		synth_deck_shuffle(&d);
		/* the model's slots plus one cell per real row of the model, the cell nearest each real
		 * row's size then taken out (the real rows stand for those jobs) */
		size_t n_real_m = 0, drawn;
		for (size_t i = 0; i < p->n_real; i++)
			n_real_m += p->real[i].model == (int)m;
		drawn = (size_t)slots + n_real_m;
		struct cellpick *mine = xmalloc((drawn ? drawn : 1) * sizeof *mine);
		bool *gone = xcalloc(drawn ? drawn : 1, sizeof *gone);
		for (size_t i = 0; i < drawn; i++) {
			unsigned c = d.n ? synth_deck_draw(&d) : 0;
			double g = d.n ? sm->cell_gpw[c] * (double)sm->cell_workers[c] : 1;
			mine[i] = (struct cellpick){ g, d.n ? sm->cell_workers[c] : 1, (int)m, (unsigned)i };
		}
		qsort(mine, drawn, sizeof *mine, cellpick_cmp);   /* largest first */
		for (size_t i = 0; i < p->n_real; i++) {
			if (p->real[i].model != (int)m)
				continue;
			double v = p->real[i].gpw * (double)p->real[i].workers;
			size_t lo = 0, hi = drawn;   /* first with g <= v */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (mine[mid].gpus > v)
					lo = mid + 1;
				else
					hi = mid;
			}
			size_t a = lo, b = lo;
			while (a > 0 && gone[a - 1])
				a--;
			while (b < drawn && gone[b])
				b++;
			if (a == 0 && b == drawn)
				break;
			gone[b < drawn && (a == 0 || fabs(mine[b].gpus - v) <= fabs(mine[a - 1].gpus - v)) ? b : a - 1] = true;
		}
		for (size_t i = 0; i < drawn; i++)
			if (!gone[i] && k < total)
				cells[k++] = mine[i];
		free(mine);
		free(gone);
		free(d.items);
	}
	total = k;
	qsort(cells, total, sizeof *cells, cellpick_cmp);
	/* each model's rise: the published concurrency's increase into the hour, which only jobs
	 * submitted in it can make (the spikes of the big gangs) */
	double *rise = xmalloc((nm * nh + 1) * sizeof *rise);
	for (size_t m = 0; m < nm; m++)
		for (size_t h = 0; h < nh; h++) {
			double c0 = h ? p->models[m].concurrency[h - 1] : 0, up = p->models[m].concurrency[h] - c0;
			rise[m * nh + h] = up > 0 ? up : 0;
		}
	/* the hour's rises still unmet, all models: a model's key holds back the others' */
	double *rise_sum = xcalloc(nh ? nh : 1, sizeof *rise_sum);
	for (size_t m = 0; m < nm; m++)
		for (size_t h = 0; h < nh; h++)
			rise_sum[h] += rise[m * nh + h];
	struct maxtree *tr = xmalloc(nm * sizeof *tr);
	for (size_t m = 0; m < nm; m++) {
		mt_init(&tr[m], nh);
		for (size_t h = 0; h < nh; h++)
			if (free_mh[m * nh + h] > 0)
				mt_set(&tr[m], h, cell_key(need[h], rise[m * nh + h], rise_sum[h], free_h[h]));
	}
	for (size_t i = 0; i < total; i++) {
		const struct cellpick *c = &cells[i];
		size_t m = (size_t)c->model, h = mt_argmax(&tr[m]);
		const struct synth_model *sm = &p->models[m];
		struct synth_job3 *j = &jobs[(*n_jobs)++];
		*j = (struct synth_job3){ .submit = (long long)h, .workers = c->workers, .gpus = c->gpus, .model = (int)m,
			.real = -1, .hp = true };
		if (j->gpus > (double)sm->capacity) {
			j->gpus = (double)sm->capacity;
			j->capped = true;
		}
		need[h] -= j->gpus;
		double was = rise[m * nh + h] > 0 ? rise[m * nh + h] : 0;
		rise[m * nh + h] -= j->gpus;
		rise_sum[h] -= was - (rise[m * nh + h] > 0 ? rise[m * nh + h] : 0);
		free_mh[m * nh + h]--;
		free_h[h]--;
		for (size_t x = 0; x < nm; x++)
			mt_set(&tr[x], h, free_mh[x * nh + h] > 0 ? cell_key(need[h], rise[x * nh + h], rise_sum[h], free_h[h]) : -INFINITY);
	}
	for (size_t m = 0; m < nm; m++)
		free(tr[m].v);
	free(tr); free(cells); free(free_mh); free(free_h); free(rise); free(rise_sum);
}

/* The duration multiset's inverse CDF: knots at the buckets' edges (their cumulative job
 * shares) and the duration quantiles, log-linear between them. */
static size_t duration_knots(const struct synth_profile *p, double *kp, double *kv)
{
	const struct synth_buckets *b = &p->dur_buckets;
	size_t n = 0;
	long long tot = 0, cum = 0;
	for (size_t i = 0; i < b->n; i++)
		tot += b->jobs[i];
	for (size_t i = 0; i < p->n_quant; i++) {
		kp[n] = p->quant_p[i];
		kv[n++] = p->quant_v[i] < 1 ? 1 : p->quant_v[i];
	}
	for (size_t i = 0; i + 1 < b->n && tot > 0; i++) {
		cum += b->jobs[i];
		kp[n] = (double)cum / (double)tot;
		kv[n++] = b->edge[i + 1];
	}
	for (size_t i = 1; i < n; i++)   /* insertion sort by p */
		for (size_t k = i; k > 0 && kp[k] < kp[k - 1]; k--) {
			double t = kp[k]; kp[k] = kp[k - 1]; kp[k - 1] = t;
			t = kv[k]; kv[k] = kv[k - 1]; kv[k - 1] = t;
		}
	size_t w = 0;   /* drop knots that would make the function decrease */
	for (size_t i = 0; i < n; i++)
		if (!w || (kp[i] > kp[w - 1] && kv[i] >= kv[w - 1]))
			kp[w] = kp[i], kv[w++] = kv[i];
	return w;
}

static double inv_cdf(const double *kp, const double *kv, size_t n, double u)
{
	size_t i = 1;
	while (i + 1 < n && u > kp[i])
		i++;
	double f = kp[i] > kp[i - 1] ? (u - kp[i - 1]) / (kp[i] - kp[i - 1]) : 1;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	double v = floor(exp(log(kv[i - 1]) + f * (log(kv[i]) - log(kv[i - 1]))));
	return v < 1 ? 1 : v;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x > y ? -1 : x < y;
}

/* The generated jobs' durations, longest first: n + the real rows drawn, each real row's
 * nearest duration taken out. */
static double *make_durations(const struct synth_profile *p, size_t n, struct synth_rng *r)
{
	double kp[SYNTH_MAX_BUCKETS + 64], kv[SYNTH_MAX_BUCKETS + 64];
	size_t nk = p->n_quant + p->dur_buckets.n <= SYNTH_MAX_BUCKETS + 64 ? duration_knots(p, kp, kv) : 0;
	size_t all = n + p->n_real;
	double *d = xmalloc((all ? all : 1) * sizeof *d);
	for (size_t i = 0; i < all; i++)
		d[i] = nk >= 2 ? inv_cdf(kp, kv, nk, ((double)i + synth_rng_unit(r)) / (double)all) : 3600;
	if (!synth_sort_doubles_desc(d, all))
		qsort(d, all, sizeof *d, cmp_desc);
	bool *gone = xcalloc(all ? all : 1, sizeof *gone);
	for (size_t k = 0; k < p->n_real; k++) {
		double v = (double)p->real[k].duration;
		size_t lo = 0, hi = all;   /* first index with d <= v */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (d[mid] > v)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t a = lo, b = lo;   /* a walks down (longer), b up (shorter) */
		while (a > 0 && gone[a - 1])
			a--;
		while (b < all && gone[b])
			b++;
		size_t pick = b < all && (a == 0 || fabs(d[b] - v) <= fabs(d[a - 1] - v)) ? b : a - 1;
		if (all)
			gone[pick] = true;
	}
	size_t w = 0;
	for (size_t i = 0; i < all; i++)
		if (!gone[i])
			d[w++] = d[i];
	free(gone);
	return d;
}

static const double *cmp_dur;
static int cmp_by_duration(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (cmp_dur[x] != cmp_dur[y])
		return cmp_dur[x] < cmp_dur[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The Spot duration targets: log-linear through (0, 1 s), (0.5, median), (1 - long share,
 * the long threshold), (0.9, p90) and (1, SPOT_TOP); stratified, in a seeded order. */
static double *spot_targets(const struct synth_profile *p, size_t n, struct synth_rng *r)
{
	double med = isfinite(p->class_median[1]) ? p->class_median[1] : 2095.5;
	double p90 = isfinite(p->class_p90[1]) ? p->class_p90[1] : 21740;
	double th = p->long_threshold > 0 ? p->long_threshold : SPOT_LONG;
	long long lj = p->long_jobs[1][0] + p->long_jobs[1][1];
	double pl = lj > 0 ? 1 - (double)p->long_jobs[1][1] / (double)lj : 0.9;
	double kp[5] = { 0, 0.5, pl, 0.9, 1 }, kv[5] = { 1, med, th, p90, SPOT_TOP };
	size_t nk = 0;
	for (size_t i = 0; i < 5; i++)   /* keep the knots increasing in both */
		if (!nk || (kp[i] > kp[nk - 1] && kv[i] >= kv[nk - 1]))
			kp[nk] = kp[i], kv[nk++] = kv[i];
	double *t = xmalloc((n ? n : 1) * sizeof *t);
	for (size_t i = 0; i < n; i++)
		t[i] = inv_cdf(kp, kv, nk, ((double)i + synth_rng_unit(r)) / (double)n);
	for (size_t i = n; i > 1; i--) {
		size_t x = (size_t)synth_rng_below(r, i);
		double v = t[i - 1];
		t[i - 1] = t[x];
		t[x] = v;
	}
	return t;
}

/* Pass 5: each day's Spot jobs (spot[d] of them) among its generated jobs, in place. The
 * day's jobs are read from a copy in duration order (ca), which the scans walk in a row. */
struct cls { double duration, gpus; bool hp; };
static void assign_classes(const struct synth_profile *p, struct synth_job3 *jobs, size_t n, const long long *spot,
	const double gs_target[2], struct synth_rng *r)
{
	size_t nd = p->n_days, total = 0;
	double th = p->long_threshold > 0 ? p->long_threshold : SPOT_LONG;
	for (size_t d = 0; d < nd; d++)
		total += (size_t)spot[d];
	double *tau = spot_targets(p, total, r), *dv = xmalloc((n ? n : 1) * sizeof *dv);
	long long slots[2] = { 0, 0 };
	for (size_t i = 0; i < total; i++)
		slots[tau[i] >= th]++;
	double need[2] = { gs_target[0], gs_target[1] };
	size_t *idx = xmalloc((n ? n : 1) * sizeof *idx), *start = xcalloc(nd + 1, sizeof *start);
	for (size_t i = 0; i < n; i++) {
		dv[i] = jobs[i].duration;
		start[(size_t)(jobs[i].submit / SYNTH_DAY) + 1]++;
	}
	for (size_t d = 0; d < nd; d++)
		start[d + 1] += start[d];
	size_t *fill = xmalloc((nd + 1) * sizeof *fill);
	memcpy(fill, start, (nd + 1) * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		idx[fill[jobs[i].submit / SYNTH_DAY]++] = i;
	cmp_dur = dv;
	size_t next = 0;
	struct cls *ca = xmalloc((n ? n : 1) * sizeof *ca);
	for (size_t d = 0; d < nd; d++) {
		size_t *a = idx + start[d], m = start[d + 1] - start[d];
		if (!synth_sort_by_value(a, m, dv))
			qsort(a, m, sizeof *a, cmp_by_duration);
		for (size_t x = 0; x < m; x++)
			ca[x] = (struct cls){ jobs[a[x]].duration, jobs[a[x]].gpus, jobs[a[x]].hp };
		for (long long s = 0; s < spot[d] && next < total; s++) {
			double t = tau[next++];
			int sl = t >= th;
			double want = slots[sl] > 0 && need[sl] > 0 ? need[sl] / (double)slots[sl] : 1;
			size_t lo = 0, hi = m;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (ca[mid].duration < t)
					lo = mid + 1;
				else
					hi = mid;
			}
			size_t best = m, seen = 0;
			double score = INFINITY;
			for (size_t step = 0; step < 8 * SPOT_CANDIDATES && seen < SPOT_CANDIDATES; step++) {
				/* alternate up and down from the target */
				size_t off = step / 2;
				size_t x = step % 2 ? lo + off : lo - 1 - off;
				if (step % 2 ? lo + off >= m : off + 1 > lo)
					continue;
				const struct cls *j = &ca[x];
				if (!j->hp || (j->duration >= th) != sl)
					continue;
				seen++;
				double gs = j->gpus * j->duration;
				/* a short job above the slice's need per job costs SPOT_UP of a log step: the
				 * short slice's GPU-seconds sit in a few big gangs, which a symmetric log score
				 * almost never picks (the slice ended about 22 % short) */
				double lg = log((gs > 1 ? gs : 1) / want);
				double sc = (lg > 0 && !sl ? SPOT_UP : 1) * fabs(lg) + 3 * fabs(log(j->duration / t));
				if (sc < score) {
					score = sc;
					best = x;
				}
			}
			if (best == m)   /* nothing near on its side: the nearest HP job of the day */
				for (size_t x = 0; x < m; x++)
					if (ca[x].hp && (best == m || fabs(ca[x].duration - t) < fabs(ca[best].duration - t)))
						best = x;
			if (best == m)
				break;
			struct synth_job3 *j = &jobs[a[best]];
			j->hp = ca[best].hp = false;
			int js = j->duration >= th;
			need[js] -= j->gpus * j->duration;
			slots[sl]--;
		}
	}
	free(tau); free(dv); free(idx); free(start); free(fill); free(ca);
}

/* Pass 4: the /3 repair pass over the real rows and the jobs of SYNTH_LONG_DUR4 or more: it
 * moves ends by whole hours, which would carry the many small sub-hour durations (and the
 * class medians with them) to their bucket's top. The big short gangs stay out of it: moved,
 * they raised the pools' hourly r but stretched the HP p90 to +29 %; the swap pass (pass 6)
 * reaches the hourly series without touching a duration (docs/profiles.md). A model's hour-0
 * jobs keep their skyline durations when that leaves its day-0 GPU-seconds nearer the table. */
static void repair_long(const struct synth_profile *p, double F, struct synth_job3 *pop, size_t n)
{
	size_t *idx = xmalloc((n ? n : 1) * sizeof *idx), k = 0;
	for (size_t i = 0; i < n; i++)
		if (pop[i].real >= 0 || pop[i].duration >= SYNTH_LONG_DUR4)
			idx[k++] = i;
	struct synth_job3 *sub = xmalloc((k ? k : 1) * sizeof *sub);
	for (size_t i = 0; i < k; i++)
		sub[i] = pop[idx[i]];
	synth_repair3_stretch(p, F, sub, k, REPAIR_STRETCH, SYNTH_DAY);
	/* hour 0's generated jobs keep their skyline durations on a model whose day-0 GPU-seconds
	 * that brings nearer its table (the repair pass shortens them toward the early hours) */
	size_t nm = p->n_models;
	double *moved = xcalloc(3 * nm, sizeof *moved), *keep = moved + nm, *all = moved + 2 * nm;
	for (size_t i = 0; i < n; i++)
		if (pop[i].submit < SYNTH_DAY)
			all[pop[i].model] += pop[i].gpus * pop[i].duration;
	for (size_t i = 0; i < k; i++) {
		const struct synth_job3 *j = &pop[idx[i]];
		if (j->real < 0 && j->submit < SYNTH_HOUR)
			moved[j->model] += j->gpus * (sub[i].duration - j->duration);
	}
	for (size_t m = 0; m < nm; m++) {
		double t = F * p->model_day_gs[m], repaired = all[m] + moved[m];
		keep[m] = fabs(all[m] - t) < fabs(repaired - t);
	}
	for (size_t i = 0; i < k; i++) {
		struct synth_job3 *j = &pop[idx[i]];
		if (!(keep[j->model] && j->real < 0 && j->submit < SYNTH_HOUR))
			j->duration = sub[i].duration;
	}
	free(moved);
	free(sub);
	free(idx);
}

static const char method4[] =
	"profile /4, submissions first: the real job rows placed in their hours as they were (ids 'real-' + job name) and "
	"counted in every target; each model's jobs spread over the hours in proportion to its published concurrency and "
	"fitted to each hour's exact job count (12 rounds of iterative proportional fitting, rounded per hour with each "
	"model's error carried on); each model's joint (workers, GPUs per worker) table as a shuffled multiset, largest "
	"cell first, each to the hour with the most GPUs still to submit (hourly_summary) plus 0.3 x the model's "
	"published concurrency rise into the hour still unmet, less 0.3 x the other models' rises still unmet, per free "
	"slot of any model, among the hours with a free "
	"slot of its model; submit uniform over the hour's whole seconds; durations one stratified "
	"multiset of an inverse CDF through the duration buckets' edges and the duration quantiles (log-linear between "
	"knots), less each real row's nearest; hour 0's jobs of each model (split by the published hour-0 concurrency) "
	"end along an exponential skyline whose area is 93 % of the model's day-0 GPU-seconds, each the free duration "
	"nearest its level; durations of 1 h or more, longest first, each to the (model, day) with the most GPU-seconds "
	"still to submit (model_daily_capacity_ratio) among each model's 4 largest (up to 16 while none fits), on a job "
	"drawn by count, in the hour of the day with the most GPU-seconds still to submit (hourly_summary), preferring a "
	"(model, day) within its need and with room under the model's concurrency over every hour the job touches, the "
	"largest need relative to the model's table total first (else within the need, the most room relative to the "
	"model's GPUs, the job cut to that room but not below its duration bucket; else the least GPU-seconds past the "
	"need relative to the model's total), cut at the end of the series; shorter durations "
	"dealt over the other jobs in a seeded order; then the /3 repair pass over the jobs of 1 h or more (ends moved inside "
	"their duration bucket toward each model's concurrency, a job drawn under a day to at most 2.5 x its drawn "
	"duration; a model's hour-0 jobs keep their skyline durations where "
	"that leaves its day-0 GPU-seconds nearer the table); then each day's exact Spot "
	"count, each Spot job the day's HP job nearest a Spot duration target (log-linear through 1 s, the class median, "
	"the long-job threshold at the published long share, the p90 and 7 days) on the same side of the threshold, "
	"among the 48 nearest the one whose GPU-seconds are nearest the Spot slice's remaining GPU-seconds per remaining "
	"job (on a log scale, a short job above it at a quarter of the cost); then the swap pass: each generated job after hour 0 takes the submit second in its hour whose end hour "
	"lowers its model's touched-hour misfit, and generated jobs of one model and class (hour 0 and day 0 apart) exchange submit times "
	"within 14 days where that lowers each model's touched-hour misfit (least-squares line on the published series) "
	"plus the misfit of GPU-seconds by submit hour and by (model, day) and of GPUs by submit hour, never lowering the "
	"number of hours within 10 % of the GPUs submitted (6 sweeps, seeded partners; a model is left once its r is 0.98); "
	"organizations from the organization-model mix";

/* Organizations, ids and the emit through the --days and --gpu-model filters. */
static void emit4(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct synth_job3 *pop, size_t n_pop, struct trace *t, struct synth_stats *st, struct synth_rng *r_org)
{
	size_t nm = p->n_models, no = p->n_orgs;
	double *org_cum = xcalloc(nm * (no ? no : 1), sizeof *org_cum);
	for (size_t m = 0; m < nm; m++) {
		double cum = 0;
		for (size_t k = 0; k < no; k++)
			org_cum[m * no + k] = cum += (double)p->org_jobs[k] * p->org_mix[k * nm + m];
	}
	char **model_name = xmalloc(nm * sizeof *model_name), **org_name = xmalloc((no ? no : 1) * sizeof *org_name);
	for (size_t i = 0; i < nm; i++)
		model_name[i] = trace_strdup(t, p->models[i].name);
	for (size_t i = 0; i < no; i++)
		org_name[i] = trace_strdup(t, p->org_name[i]);
	long long number = 0;
	for (size_t i = 0; i < n_pop; i++) {
		struct synth_job3 *pj = &pop[i];
		size_t m = (size_t)pj->model;
		if (pj->real < 0) {
			pj->number = ++number;
			if (no && org_cum[m * no + no - 1] > 0)
				pj->org = synth_pick_cum(&org_cum[m * no], no, synth_rng_unit(r_org) * org_cum[m * no + no - 1]);
			else if (no)
				pj->org = (size_t)synth_rng_below(r_org, no);
		}
		long long day = pj->submit / SYNTH_DAY;
		if (!model_on[m] || (o->has_days && (day < o->day_first || day > o->day_last)))
			continue;
		if (pj->real >= 0) {
			const struct synth_real *rj = &p->real[pj->real];
			char id[96];
			snprintf(id, sizeof id, "real-%s", rj->name);
			struct trace_job *j = trace_add_job(t);
			j->id = trace_strdup(t, id);
			j->submit = (double)pj->submit;
			j->duration = pj->duration;
			j->gpus = pj->gpus;
			j->hp = pj->hp;
			j->model = model_name[m];
			j->tenant = trace_strdup(t, rj->org);
			st->real_jobs++;
			continue;
		}
		synth_add_job(t, pj->number, (double)pj->submit, pj->duration, pj->gpus, pj->hp, model_name[m], no ? org_name[pj->org] : NULL);
		for (size_t w = 0; w < p->n_workers; w++)
			if (p->worker_value[w] == pj->workers) {
				st->worker_hist[w]++;
				break;
			}
		if (pj->capped) {
			st->capped_jobs++;
			st->model_capped[m]++;
		}
	}
	free(org_cum); free(model_name); free(org_name);
}

static int cmp_submit(const void *a, const void *b)
{
	const struct synth_job3 *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	return x->duration < y->duration ? -1 : x->duration > y->duration;
}

/* The real rows into pop[0 .. n_real) and out of every target. */
static void place_real(const struct synth_profile *p, double F, struct synth_job3 *pop, long long *real_hour,
	double *want, double *need, double *sneed, double *md_need, long long *day_spot, double spot_gs[2])
{
	size_t nd = p->n_days;
	double th = p->long_threshold > 0 ? p->long_threshold : SPOT_LONG;
	for (size_t i = 0; i < p->n_real; i++) {
		const struct synth_real *rj = &p->real[i];
		size_t m = (size_t)rj->model, h = (size_t)(rj->submit / SYNTH_HOUR), d = (size_t)(rj->submit / SYNTH_DAY);
		double g = rj->gpw * (double)rj->workers, cap = (double)p->models[m].capacity;
		g = g > cap ? cap : g;
		pop[i] = (struct synth_job3){ .submit = rj->submit, .duration = (double)rj->duration, .gpus = g, .model = (int)m,
			.real = (long long)i, .workers = rj->workers, .hp = rj->hp };
		double gs = g * (double)rj->duration;
		real_hour[h]++;
		want[m] -= 1;
		need[h] -= g;
		sneed[h] -= gs;
		if (d < nd)
			md_need[m * nd + d] -= gs;
		if (!rj->hp) {
			if (d < nd)
				day_spot[d]--;
			spot_gs[(double)rj->duration >= th] -= gs;
		}
	}
	(void)F;
}

int synth_generate4(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	size_t nm = p->n_models, nh = p->n_hours, nd = p->n_days;
	bool *model_on = xcalloc(nm, sizeof *model_on);
	if (synth_check_options(p, o, model_on, err, errlen)) {
		free(model_on);
		return -1;
	}
	double F = o->load_factor;
	st->worker_hist = xcalloc(p->n_workers ? p->n_workers : 1, sizeof *st->worker_hist);
	st->model_capped = xcalloc(nm, sizeof *st->model_capped);
	struct synth_rng r_submit, r_deck, r_dur, r_short, r_spot, r_org;
	synth_rng_seed(&r_submit, o->seed, RNG4_SUBMIT);
	synth_rng_seed(&r_deck, o->seed, RNG4_DECK);
	synth_rng_seed(&r_dur, o->seed, RNG4_DURATION);
	synth_rng_seed(&r_short, o->seed, RNG4_SHORT);
	synth_rng_seed(&r_spot, o->seed, RNG4_SPOT);
	synth_rng_seed(&r_org, o->seed, RNG4_ORG);

	long long *hours = xmalloc(nh * sizeof *hours), *real_hour = xcalloc(nh, sizeof *real_hour);
	long long *n_gen = xmalloc(nh * sizeof *n_gen), *q = xmalloc(nm * nh * sizeof *q), *day_spot = xcalloc(nd, sizeof *day_spot);
	synth_scaled_hours(p, o->load_factor, hours);
	double *want = xmalloc(nm * sizeof *want), *need = xmalloc(nh * sizeof *need), *sneed = xmalloc(nh * sizeof *sneed);
	double *md_need = xmalloc(nm * nd * sizeof *md_need), spot_gs[2];
	for (size_t m = 0; m < nm; m++)
		want[m] = F * (double)p->models[m].jobs;
	for (size_t h = 0; h < nh; h++) {
		need[h] = F * p->sub_gpus[h];
		sneed[h] = F * p->sub_gs[h];
	}
	for (size_t d = 0; d < nd; d++) {
		long long nday = 0;
		for (size_t h = d * 24; h < nh && h < d * 24 + 24; h++)
			nday += hours[h];
		day_spot[d] = nday - synth_scaled_hp(p, d, nday);
		for (size_t m = 0; m < nm; m++)
			md_need[m * nd + d] = F * p->model_day_gs[d * nm + m];
	}
	for (int k = 0; k < 2; k++)
		spot_gs[k] = F * p->long_gs[1][k];
	size_t cap_pop = p->n_real;
	for (size_t h = 0; h < nh; h++)
		cap_pop += (size_t)hours[h];
	struct synth_job3 *pop = xmalloc((cap_pop ? cap_pop : 1) * sizeof *pop);
	place_real(p, F, pop, real_hour, want, need, sneed, md_need, day_spot, spot_gs);
	for (size_t h = 0; h < nh; h++)
		n_gen[h] = hours[h] > real_hour[h] ? hours[h] - real_hour[h] : 0;
	for (size_t m = 0; m < nm; m++)
		want[m] = want[m] > 0 ? want[m] : 0;
	quota_models(p, n_gen, want, q);
	struct synth_job3 *gen = pop + p->n_real;
	size_t n = 0;
	assign_cells(p, q, need, &r_deck, gen, &n);
	for (size_t i = 0; i < n; i++)
		gen[i].submit = gen[i].submit * SYNTH_HOUR + (long long)synth_rng_below(&r_submit, SYNTH_HOUR);
	double *dur = make_durations(p, n, &r_dur), *conc_left = xmalloc(nm * p->n_conc * sizeof *conc_left);
	for (size_t m = 0; m < nm; m++)
		for (size_t h = 0; h < p->n_conc; h++)
			conc_left[m * p->n_conc + h] = F * p->models[m].concurrency[h];
	for (size_t i = 0; i < p->n_real; i++)
		synth_add_hours(&conc_left[(size_t)pop[i].model * p->n_conc], p->n_conc, pop[i].submit / SYNTH_HOUR,
			synth_end_hour(pop[i].submit, pop[i].duration), -pop[i].gpus);
	synth_assign_durations4(p, gen, n, dur, sneed, md_need, conc_left, &r_short);
	free(conc_left);
	free(dur);
	repair_long(p, F, pop, p->n_real + n);
	for (size_t d = 0; d < nd; d++)
		day_spot[d] = day_spot[d] > 0 ? day_spot[d] : 0;
	assign_classes(p, gen, n, day_spot, spot_gs, &r_spot);
	struct synth_rng r_swap;
	synth_rng_seed(&r_swap, o->seed, RNG4_SWAP);
	synth_swap4(p, F, pop, p->n_real + n, &r_swap);
	if (!synth_sort_jobs_by_submit(gen, n))
		qsort(gen, n, sizeof *gen, cmp_submit);
	synth_add_nodes(p, o, model_on, t);
	emit4(p, o, model_on, pop, p->n_real + n, t, st, &r_org);
	st->generated_jobs = (long long)(p->n_real + n);
	free(pop); free(hours); free(real_hour); free(n_gen); free(q); free(day_spot); free(want); free(need); free(sneed); free(md_need);

	int rc = synth_finish(p, o, model_on, t, st->capped_jobs, method4, err, errlen);
	free(model_on);
	if (rc)
		return rc;
	struct json *real = json_object(&t->arena);
	json_set(&t->arena, real, "id_prefix", json_str(&t->arena, "real-"));
	json_set(&t->arena, real, "jobs", json_int(&t->arena, st->real_jobs));
	json_set(&t->arena, real, "placed", json_str(&t->arena, "submit, duration, GPUs, class and organization as in the "
		"published job-row tables; the GPU model as the profile's builder inferred it"));
	json_set(&t->arena, t->source, "real_jobs", real);
	return 0;
}
