/* Pass 6 of the /4 generator (generate4.c): the swap pass (docs/profiles.md, "The swap pass").
 *
 * Two generated jobs of the same GPU model and the same class, submitted within WINDOW of each
 * other (both on day 0 or both after it; hour 0 and the real job rows stay where they are),
 * exchange their submit times. Every hour then still holds the same number of jobs per model
 * and class, every day the same HP and Spot counts, every model the same jobs, sizes and
 * durations, every class the same GPU-seconds; a job keeps its duration, size, class and
 * organization. What moves is where each runs, and with it the GPUs and GPU-seconds each hour
 * submits.
 *
 * Per model the pass lowers
 *   sum over hours of (S - a - b T)^2 / sum (S - mean S)^2
 *   + W_HOUR x (GPU-seconds submitted per hour - table)^2 / the table's squared deviations from its mean
 *   + W_GPU x (GPUs submitted per hour - table)^2 / the table's squared deviations from its mean
 *   + W_DAY x (the model's GPU-seconds per submit day - table)^2 / the table's squared deviations from its mean
 * S the trace's touched-hour series (hours floor(s/3600) .. floor((s+d-1)/3600)), T the
 * published one (x the load factor) and a, b the least-squares line of S on T, refitted before
 * each sweep: the first term is 1 - r^2 of the Pearson r against T. A swap that would lower the
 * number of hours whose GPUs submitted are within BAND of the table is refused.
 * Before its swap tries, each slot's job takes the submit second inside its hour whose end hour
 * (of the two a job shorter than its hours can have) lowers the model's touched-hour term, drawn
 * from the seeded stream among the seconds that give it (shift_in_hour): the hour, and with it
 * every submission table, stays.
 * Slots (a submit time) are sorted by (model, class, day 0 or not, submit); in SWEEPS sweeps
 * each slot whose job touches two hours or more, in that order, tries the model's number of
 * partners (TRY_BUDGET over its slots, within [TRIES_MIN, TRIES_MAX]) drawn from the seeded
 * stream among its group's slots within WINDOW, and takes the one that lowers the objective
 * most, if any; a model whose r is R_DONE or more at the start of a sweep is left out of it.
 * Fixed order and arithmetic: the same jobs and seed give the same result. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 6
#define TRIES_MIN 8
#define TRIES_MAX 32
#define TRY_BUDGET 1.5e6
#define WINDOW (14 * SYNTH_DAY)
#define W_HOUR 1.0
#define W_DAY 1.0
#define W_GPU 1.0
#define BAND 0.1
#define R_DONE 0.98
#define PREFETCH 8    /* slots ahead whose job is fetched early */

/* A Fenwick pair over hours 1..n: add x on a range, sum of a prefix. The pair is interleaved
 * (b[2i] the first tree's node i, b[2i + 1] the second's), so a walk reads both at once; each
 * tree's node takes its adds, and each sum its terms, in the order two separate walks would. */
struct fen { size_t n; double *b; };

static void fen_upd(double *b, size_t n, size_t i, double x1, double x2)
{
	for (; i <= n; i += i & (~i + 1)) {
		b[2 * i] += x1;
		b[2 * i + 1] += x2;
	}
}

/* x on hours [l, r], 0-based and already clipped to [0, n) */
static void fen_add(struct fen *f, size_t l, size_t r, double x)
{
	fen_upd(f->b, f->n, l + 1, x, x * (double)l);
	fen_upd(f->b, f->n, r + 2, -x, -x * (double)(r + 1));
}

/* the sum of hours [0, i) */
static double fen_prefix(const struct fen *f, size_t i)
{
	double s1 = 0, s2 = 0;
	for (size_t j = i; j > 0; j -= j & (~j + 1)) {
		s1 += f->b[2 * j];
		s2 += f->b[2 * j + 1];
	}
	return s1 * (double)i - s2;
}

/* The submission residuals the swaps must not spoil: GPU-seconds by submit hour (fleet) and
 * by (model, submit day), trace less table, each weighed by 1 / the table's sum of squares. */
struct subres { double *hour, *day, wh, *wd; size_t nh, nd, nm; double *gpu, wg, *band; long long in_band; };

static void subres_init(struct subres *q, const struct synth_profile *p, double F, const struct synth_job3 *pop, size_t n,
	double WH, double WD, double WG)
{
	size_t nh = p->n_hours, nd = p->n_days, nm = p->n_models;
	memset(q, 0, sizeof *q);
	q->hour = xcalloc(nh ? nh : 1, sizeof(double));
	q->day = xcalloc(nm * nd + 1, sizeof(double));
	q->wd = xcalloc(nm, sizeof(double));
	q->nh = nh, q->nd = nd, q->nm = nm;
	double mean = 0, sst = 0;
	for (size_t h = 1; h < nh; h++)
		mean += F * p->sub_gs[h] / (double)(nh - 1);
	for (size_t h = 1; h < nh; h++)
		sst += (F * p->sub_gs[h] - mean) * (F * p->sub_gs[h] - mean);
	q->wh = sst > 0 ? WH / sst : 0;
	q->gpu = xcalloc(nh ? nh : 1, sizeof(double));
	q->band = xcalloc(nh ? nh : 1, sizeof(double));
	for (size_t h = 0; h < nh; h++)
		q->band[h] = BAND * F * p->sub_gpus[h];
	mean = sst = 0;
	for (size_t h = 1; h < nh; h++)
		mean += F * p->sub_gpus[h] / (double)(nh - 1);
	for (size_t h = 1; h < nh; h++)
		sst += (F * p->sub_gpus[h] - mean) * (F * p->sub_gpus[h] - mean);
	q->wg = sst > 0 ? WG / sst : 0;
	for (size_t h = 0; h < nh; h++)
		q->gpu[h] = -F * p->sub_gpus[h];
	for (size_t h = 0; h < nh; h++)
		q->hour[h] = -F * p->sub_gs[h];
	for (size_t m = 0; m < nm; m++) {
		double mu = 0, ss = 0;
		for (size_t d = 1; d < nd; d++)
			mu += F * p->model_day_gs[d * nm + m] / (double)(nd - 1);
		for (size_t d = 1; d < nd; d++)
			ss += (F * p->model_day_gs[d * nm + m] - mu) * (F * p->model_day_gs[d * nm + m] - mu);
		q->wd[m] = ss > 0 ? WD / ss : 0;
		for (size_t d = 0; d < nd; d++)
			q->day[m * nd + d] = -F * p->model_day_gs[d * nm + m];
	}
	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)(pop[i].submit / SYNTH_HOUR), d = (size_t)(pop[i].submit / SYNTH_DAY);
		double gs = pop[i].gpus * pop[i].duration;
		if (h < nh) {
			q->hour[h] += gs;
			q->gpu[h] += pop[i].gpus;
		}
		if (d < nd)
			q->day[(size_t)pop[i].model * nd + d] += gs;
	}
	q->in_band = 0;
	for (size_t h = 0; h < nh; h++)
		q->in_band += fabs(q->gpu[h]) <= q->band[h];
}

/* The weighted change of the submission residuals when GPU-seconds x move from the long job's
 * submit to the short one's (apply: make it). */
static double subres_move(struct subres *q, int model, long long from, long long to, double x, double g, bool apply)
{
	size_t hf = (size_t)(from / SYNTH_HOUR), ht = (size_t)(to / SYNTH_HOUR), df = (size_t)(from / SYNTH_DAY), dt = (size_t)(to / SYNTH_DAY);
	double c = 0;
	if (hf != ht && hf < q->nh && ht < q->nh) {
		c += q->wh * (2 * x * (q->hour[ht] - q->hour[hf]) + 2 * x * x);
		long long in = q->in_band - (fabs(q->gpu[ht]) <= q->band[ht]) - (fabs(q->gpu[hf]) <= q->band[hf]) +
			(fabs(q->gpu[ht] + g) <= q->band[ht]) + (fabs(q->gpu[hf] - g) <= q->band[hf]);
		if (in < q->in_band)
			return INFINITY;   /* no fewer hours within the band of GPUs submitted */
		c += q->wg * (2 * g * (q->gpu[ht] - q->gpu[hf]) + 2 * g * g);
		if (apply) {
			q->hour[ht] += x, q->hour[hf] -= x;
			q->gpu[ht] += g, q->gpu[hf] -= g;
			q->in_band = in;
		}
	}
	size_t m = (size_t)model;
	if (df != dt && df < q->nd && dt < q->nd) {
		c += q->wd[m] * (2 * x * (q->day[m * q->nd + dt] - q->day[m * q->nd + df]) + 2 * x * x);
		if (apply)
			q->day[m * q->nd + dt] += x, q->day[m * q->nd + df] -= x;
	}
	return c;
}

/* The slots by (model, HP first, day 0 first, submit, job index): one key record per slot,
 * so no job is read per comparison. */
static void sort_slots(const struct synth_job3 *pop, size_t *slot, size_t k)
{
	struct synth_key *key = xmalloc((k ? k : 1) * sizeof *key);
	for (size_t i = 0; i < k; i++) {
		const struct synth_job3 *x = &pop[slot[i]];
		key[i] = (struct synth_key){ { synth_key_ll(x->model), (x->hp ? 0u : 2u) | (x->submit < SYNTH_DAY ? 0u : 1u),
			synth_key_ll(x->submit) }, slot[i] };
	}
	synth_sort_keys(key, k);
	for (size_t i = 0; i < k; i++)
		slot[i] = key[i].idx;
	free(key);
}

static bool same_group(const struct synth_job3 *x, const struct synth_job3 *y)
{
	return x->model == y->model && x->hp == y->hp && (x->submit < SYNTH_DAY) == (y->submit < SYNTH_DAY);
}

/* Each model's residual S - a - b T into its Fenwick pair (S from every job, real rows too). */
static void fit_residuals(const struct synth_profile *p, double F, const struct synth_job3 *pop, size_t n,
	struct fen *fen, double *wc, bool *active)
{
	size_t nm = p->n_models, nc = p->n_conc;
	double *S = xcalloc(nm * (nc + 1), sizeof *S);   /* each model's steps, then their running sum */
	for (size_t i = 0; i < n; i++) {
		long long h0 = pop[i].submit / SYNTH_HOUR, h1 = synth_end_hour(pop[i].submit, pop[i].duration);
		h0 = h0 < 0 ? 0 : h0;
		h1 = h1 > (long long)nc - 1 ? (long long)nc - 1 : h1;
		if (h0 > h1)
			continue;
		S[(size_t)pop[i].model * (nc + 1) + (size_t)h0] += pop[i].gpus;
		S[(size_t)pop[i].model * (nc + 1) + (size_t)h1 + 1] -= pop[i].gpus;
	}
	for (size_t m = 0; m < nm; m++)
		for (size_t h = 1; h < nc; h++)
			S[m * (nc + 1) + h] += S[m * (nc + 1) + h - 1];
	for (size_t m = 0; m < nm; m++) {
		const double *T = p->models[m].concurrency, *s = &S[m * (nc + 1)];
		double mt = 0, ms = 0, stt = 0, sts = 0;
		for (size_t h = 0; h < nc; h++) {
			mt += F * T[h];
			ms += s[h];
		}
		mt /= (double)nc;
		ms /= (double)nc;
		for (size_t h = 0; h < nc; h++) {
			stt += (F * T[h] - mt) * (F * T[h] - mt);
			sts += (F * T[h] - mt) * (s[h] - ms);
		}
		double b = stt > 0 ? sts / stt : 0, a = ms - b * mt, sss = 0;
		for (size_t h = 0; h < nc; h++)
			sss += (s[h] - ms) * (s[h] - ms);
		wc[m] = sss > 0 ? 1 / sss : 0;
		active[m] = stt > 0 && sss > 0 && sts / sqrt(stt * sss) < R_DONE;
		struct fen *f = &fen[m];
		memset(f->b, 0, 2 * (nc + 2) * sizeof *f->b);
		for (size_t h = 0; h < nc; h++)
			fen_add(f, h, h, s[h] - a - b * F * T[h]);
	}
	free(S);
}

/* The four changes of a model's series when x and y exchange submits: each leaves its hours
 * and takes the same run from the other's submit. */
struct span4 { long long lo[4], hi[4]; double v[4]; };

/* A slot's submit and its job's size, in slot order: the tries read a partner's from here (a
 * window of neighbours) rather than from the job array (one cache miss a try). */
struct slot4 {
	long long submit;
	double duration, gpus;
	int model;                   /* the slot's group's: a swap keeps it */
};

static void swap_spans(const struct synth_job3 *x, const struct slot4 *y, long long nc, struct span4 *s)
{
	long long hx = x->submit / SYNTH_HOUR, hy = y->submit / SYNTH_HOUR;
	long long lo[4] = { hy, hy, hx, hx };
	long long hi[4] = { synth_end_hour(y->submit, x->duration), synth_end_hour(y->submit, y->duration),
		synth_end_hour(x->submit, y->duration), synth_end_hour(x->submit, x->duration) };
	double v[4] = { x->gpus, -y->gpus, y->gpus, -x->gpus };
	for (int i = 0; i < 4; i++) {
		s->lo[i] = lo[i] < 0 ? 0 : lo[i];
		s->hi[i] = hi[i] > nc - 1 ? nc - 1 : hi[i];
		s->v[i] = v[i];
	}
}

/* One submit side's part: spans [lo, ea] of va and [lo, eb] of vb (ends clipped), alone. */
static double side_gain(const struct fen *f, long long lo, long long ea, double va, long long eb, double vb)
{
	long long e1 = ea < eb ? ea : eb, e2 = ea < eb ? eb : ea;
	double v1 = va + vb, v2 = ea < eb ? vb : va, c = 0;
	if (e2 < lo)
		return 0;
	double p0 = fen_prefix(f, (size_t)lo), p1 = e1 >= lo ? fen_prefix(f, (size_t)e1 + 1) : p0;
	if (e1 >= lo && v1 != 0)
		c += 2 * v1 * (p1 - p0) + v1 * v1 * (double)(e1 + 1 - lo);
	long long a = e1 >= lo ? e1 + 1 : lo;
	if (e2 >= a && v2 != 0)
		c += 2 * v2 * (fen_prefix(f, (size_t)e2 + 1) - p1) + v2 * v2 * (double)(e2 + 1 - a);
	return c;
}

/* The change of sum (R + D)^2 - R^2 over the hours, D the sum of the four spans. */
static double swap_gain(const struct fen *f, const struct span4 *s)
{
	long long ey = s->hi[0] > s->hi[1] ? s->hi[0] : s->hi[1], ex = s->hi[2] > s->hi[3] ? s->hi[2] : s->hi[3];
	if (ey < s->lo[2] || ex < s->lo[0])   /* the two sides apart: each alone */
		return side_gain(f, s->lo[0], s->hi[0], s->v[0], s->hi[1], s->v[1]) +
			side_gain(f, s->lo[2], s->hi[2], s->v[2], s->hi[3], s->v[3]);
	long long bp[8];
	size_t nb = 0;
	for (int i = 0; i < 4; i++)
		if (s->lo[i] <= s->hi[i]) {
			bp[nb++] = s->lo[i];
			bp[nb++] = s->hi[i] + 1;
		}
	for (size_t i = 1; i < nb; i++)   /* insertion sort: at most 8 */
		for (size_t k = i; k > 0 && bp[k] < bp[k - 1]; k--) {
			long long t = bp[k];
			bp[k] = bp[k - 1];
			bp[k - 1] = t;
		}
	double c = 0, prev = nb ? fen_prefix(f, (size_t)bp[0]) : 0;
	for (size_t k = 0; k + 1 < nb; k++) {
		if (bp[k] == bp[k + 1])
			continue;
		double v = 0;
		for (int i = 0; i < 4; i++)
			if (s->lo[i] <= bp[k] && bp[k] <= s->hi[i])
				v += s->v[i];
		double next = fen_prefix(f, (size_t)bp[k + 1]);
		if (v != 0)
			c += 2 * v * (next - prev) + v * v * (double)(bp[k + 1] - bp[k]);
		prev = next;
	}
	return c;
}

/* The in-hour shift: job x keeps its submit hour and takes the submit second there whose end
 * hour (the earliest or the one after it) lowers the model's touched-hour misfit more, drawn
 * uniformly among the hour's seconds that give that end. Nothing submitted per hour changes. */
static void shift_in_hour(struct synth_job3 *x, struct fen *f, long long nc, struct synth_rng *r)
{
	long long h = x->submit / SYNTH_HOUR, h0 = h * SYNTH_HOUR, d = (long long)x->duration;
	if (d < 1)
		return;
	long long e_lo = synth_end_hour(h0, x->duration), e_hi = synth_end_hour(h0 + SYNTH_HOUR - 1, x->duration);
	long long e = synth_end_hour(x->submit, x->duration);
	if (e_lo == e_hi || e_lo >= nc - 1)
		return;
	/* [e_lo + 1, e_hi] is touched or not; its change of sum R^2 when it is */
	long long lo = e_lo + 1, hi = e_hi > nc - 1 ? nc - 1 : e_hi;
	double v = e > e_lo ? -x->gpus : x->gpus;   /* leaving the run or taking it */
	double c = 2 * v * (fen_prefix(f, (size_t)hi + 1) - fen_prefix(f, (size_t)lo)) + v * v * (double)(hi + 1 - lo);
	if (c >= 0)
		return;
	/* the seconds of hour h that end in e_lo: [h0, cut]; in e_hi: (cut, h0 + 3599] */
	long long cut = (e_lo + 1) * SYNTH_HOUR - d;
	cut = cut > h0 + SYNTH_HOUR - 1 ? h0 + SYNTH_HOUR - 1 : cut;
	long long a = e > e_lo ? h0 : cut + 1, b = e > e_lo ? cut : h0 + SYNTH_HOUR - 1;
	if (b < a)
		return;
	fen_add(f, (size_t)lo, (size_t)hi, v);
	x->submit = a + (long long)synth_rng_below(r, (unsigned long long)(b - a + 1));
}

void synth_swap4(const struct synth_profile *p, double F, struct synth_job3 *pop, size_t n, struct synth_rng *r)
{
	size_t nm = p->n_models, nc = p->n_conc, k = 0;
	if (nc == 0 || n == 0)
		return;
	size_t *slot = xmalloc(n * sizeof *slot);
	for (size_t i = 0; i < n; i++)
		if (pop[i].real < 0 && pop[i].submit >= SYNTH_HOUR)
			slot[k++] = i;
	sort_slots(pop, slot, k);
	struct slot4 *cs = xmalloc((k ? k : 1) * sizeof *cs);
	for (size_t i = 0; i < k; i++)
		cs[i] = (struct slot4){ pop[slot[i]].submit, pop[slot[i]].duration, pop[slot[i]].gpus, pop[slot[i]].model };
	/* each slot's partners [g0, g1): its group's slots submitted within WINDOW of it */
	size_t *g0 = xmalloc((k ? k : 1) * sizeof *g0), *g1 = xmalloc((k ? k : 1) * sizeof *g1);
	long long W = WINDOW;
	for (size_t i = 0, a = 0; i <= k; i++)
		if (i == k || !same_group(&pop[slot[a]], &pop[slot[i]])) {
			size_t lo = a, hi = a;
			for (size_t x = a; x < i; x++) {
				long long sx = pop[slot[x]].submit;
				while (pop[slot[lo]].submit < sx - W)
					lo++;
				while (hi < i && pop[slot[hi]].submit <= sx + W)
					hi++;
				g0[x] = lo;
				g1[x] = hi;
			}
			a = i;
		}
	struct fen *fen = xmalloc(nm * sizeof *fen);
	for (size_t m = 0; m < nm; m++)
		fen[m] = (struct fen){ nc, xcalloc(2 * (nc + 2), sizeof(double)) };
	double *wc = xcalloc(nm, sizeof *wc);
	bool *active = xcalloc(nm, sizeof *active);
	struct subres q;
	subres_init(&q, p, F, pop, n, W_HOUR, W_DAY, W_GPU);
	/* tries per slot: TRY_BUDGET over the model's slots, within [TRIES_MIN, TRIES_MAX] */
	int *tries = xcalloc(nm, sizeof *tries);
	size_t *per = xcalloc(nm, sizeof *per);
	for (size_t i = 0; i < k; i++)
		per[pop[slot[i]].model]++;
	for (size_t m = 0; m < nm; m++) {
		double t = per[m] ? TRY_BUDGET / (double)per[m] : TRIES_MAX;
		tries[m] = t < TRIES_MIN ? TRIES_MIN : t > TRIES_MAX ? TRIES_MAX : (int)t;
	}
	free(per);
	for (int sweep = 0; sweep < SWEEPS; sweep++) {
		fit_residuals(p, F, pop, n, fen, wc, active);
		for (size_t i = 0; i < k; i++) {
			if (i + PREFETCH < k)   /* slot order is not job order: each slot's job a cache miss */
				__builtin_prefetch(&pop[slot[i + PREFETCH]]);
			if (!active[cs[i].model])   /* a model left out: its slots' jobs not even read */
				continue;
			struct synth_job3 *x = &pop[slot[i]];
			size_t span = g1[i] - g0[i];
			shift_in_hour(x, &fen[x->model], (long long)nc, r);
			cs[i].submit = x->submit;
			if (span < 2 || synth_end_hour(x->submit, x->duration) == x->submit / SYNTH_HOUR)
				continue;
			struct fen *f = &fen[x->model];
			double best = 0;
			size_t pick = i;
			struct span4 sp = { { 0 }, { 0 }, { 0 } };
			/* the partners drawn first (nothing else draws in between: the same stream), so
			 * their slots are fetched while the first tries run */
			size_t js[TRIES_MAX];
			for (int t = 0; t < tries[x->model]; t++) {
				js[t] = g0[i] + (size_t)synth_rng_below(r, span);
				__builtin_prefetch(&cs[js[t]]);
			}
			for (int t = 0; t < tries[x->model]; t++) {
				size_t j = js[t];
				if (j == i)
					continue;
				const struct slot4 *y = &cs[j];
				double gain = subres_move(&q, x->model, x->submit, y->submit,
					x->gpus * x->duration - y->gpus * y->duration, x->gpus - y->gpus, false);
				if (isinf(gain))   /* an hour would leave the band of GPUs submitted */
					continue;
				struct span4 s4;
				swap_spans(x, y, (long long)nc, &s4);
				gain += wc[x->model] * swap_gain(f, &s4);
				if (gain < best) {
					best = gain;
					pick = j;
					sp = s4;
				}
			}
			if (pick == i)
				continue;
			const struct slot4 *y = &cs[pick];   /* its job's submit and size, as in pop */
			subres_move(&q, x->model, x->submit, y->submit, x->gpus * x->duration - y->gpus * y->duration, x->gpus - y->gpus, true);
			for (int e = 0; e < 4; e++)
				if (sp.lo[e] <= sp.hi[e])
					fen_add(f, (size_t)sp.lo[e], (size_t)sp.hi[e], sp.v[e]);
			long long s = x->submit;
			x->submit = y->submit;
			pop[slot[pick]].submit = s;
			struct slot4 c = cs[i];   /* the slots' submits stay; their jobs' sizes trade places */
			cs[i].duration = cs[pick].duration;
			cs[i].gpus = cs[pick].gpus;
			cs[pick].duration = c.duration;
			cs[pick].gpus = c.gpus;
			size_t tmp = slot[i];   /* the slots keep their submit times; the jobs move */
			slot[i] = slot[pick];
			slot[pick] = tmp;
		}
	}
	for (size_t m = 0; m < nm; m++)
		free(fen[m].b);
	free(q.hour); free(q.day); free(q.gpu); free(q.band); free(q.wd); free(wc); free(active); free(tries);
	free(fen); free(slot); free(cs); free(g0); free(g1);
}
