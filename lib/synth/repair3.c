/* The /3 repair pass (trace-synth(1), docs/trace-synth-fit.md): after the draw, a
 * deterministic pass over the whole job population moves the END of generated jobs so that
 * each GPU model's hourly requested-GPU concurrency comes closer to its published series,
 * its daily peaks within the target band and its GPU-seconds to the profile's.
 *
 * A job keeps its submit, GPUs, class, model and organization, and its duration stays
 * inside its own bucket of the profile's duration buckets (the open last bucket up to the
 * model's max_job_days, else up to the longest duration quantile), so every bucket's job
 * count, the hourly job counts and the per-model counts are untouched. The real job rows
 * are fixed.
 *
 * Per model, with T the published series (x the load factor) and S the committed one
 * (hours floor(s/3600) .. floor((s+d-1)/3600)), the pass minimises
 *   sum over hours h of (S - T)^2 x (R_MIX / mean(T)^2 + (1 - R_MIX) / P^2)
 *                     + W_PEAK x (over^2 + under^2) / P^2
 *   + W_GS x hours x ((G - G*) / G*)^2 + W_SPOT x hours x sum over short, long of ((X - X0) / X0)^2
 * where P is the published peak of h's day, over = max(0, S - (1 + BAND) P) in every hour,
 * under = max(0, (1 - BAND) P - S) in one hour of the day (the one with the most committed
 * GPUs among those whose published value is at least NEAR x P, chosen again before each
 * sweep), G the model's GPU-seconds and G* the profile's (x the load factor), X the GPU-
 * seconds of its short (< long_threshold) and long Spot jobs and X0 the drawn ones (so the
 * class's long-job share stays near the drawn one). It is coordinate descent: in PASSES
 * sweeps, each editable job in generation order takes the end hour (within its bucket's
 * range) that lowers the objective most, keeping its end second's offset in the hour where
 * the bucket allows, at most WINDOW hours from where it was. Then each day whose peak still
 * misses the +-10 % band takes single moves of at most WINDOW hours (extend a job ending
 * before the day's highest hour to end in it, or trim one that covers it to end before it,
 * the cheapest by the objective first) that bring the day closer without taking any passing
 * day out of the band, keeping G within GS_OK of G* (plus ROOM_USE of what the last step can
 * take back) and each Spot part within SPOT_OK of the drawn. A last step moves HP jobs' end
 * seconds within their end hour only (the series does not change) toward G*: every job by
 * the same share of its room.
 * Fixed order and arithmetic: the same jobs give the same result. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PASSES 4            /* sweeps of the coordinate descent */
#define WINDOW 168          /* a sweep, or a peak move, moves an end by at most this many hours */
#define BAND 0.05           /* aim inside +-5 % of the day's peak (the target is 10 %) */
#define W_PEAK 20.0         /* weight of leaving the band */
#define R_MIX 0.5           /* the squared error: half relative to the day's peak, half to the mean */
#define W_GS 20.0           /* weight of the GPU-seconds error */
#define W_SPOT 5.0          /* weight of the Spot jobs' GPU-seconds (long, short) moving */
#define NEAR 0.5            /* the lower bound's hour: published value >= NEAR x the day's peak */
#define GS_OK 0.01          /* the peak pass keeps the GPU-seconds within 1 % (or brings them closer)... */
#define ROOM_USE 0.8        /* ...plus this share of what the HP jobs' end seconds can take back */
#define SPOT_OK 0.03        /* ... and the Spot jobs' long and short GPU-seconds within 3 % of the drawn */

struct model_state {
	double *T, *S, *inv;   /* published x F, committed, 1 / P^2 of the hour's day */
	double *inv_r;         /* the squared error's weight: R_MIX / mean^2 + (1 - R_MIX) / P^2 */
	double *U, *L;         /* upper bound per hour; lower bound (0 except the peak hours) */
	size_t nc;
};

/* Per day, the lower bound sits in the hour nearest to meeting the day's published peak:
 * the hour of the highest committed value among the hours whose published value is at
 * least NEAR x the peak (set again before each sweep). */
static void lower_hours(struct model_state *ms, size_t nc)
{
	for (size_t d0 = 0; d0 < nc; d0 += 24) {
		size_t d1 = d0 + 24 < nc ? d0 + 24 : nc, arg = nc;
		double P = 0, lo = 0;
		for (size_t h = d0; h < d1; h++) {
			P = ms->T[h] > P ? ms->T[h] : P;
			lo = ms->L[h] > lo ? ms->L[h] : lo;
			ms->L[h] = 0;
		}
		for (size_t h = d0; h < d1; h++)
			if (ms->T[h] >= NEAR * P && (arg == nc || ms->S[h] > ms->S[arg]))
				arg = h;
		if (arg < nc)
			ms->L[arg] = lo;
	}
}

static double hour_cost(const struct model_state *ms, size_t h, double s)
{
	double e = s - ms->T[h], c = 0;
	if (s > ms->U[h])
		c += W_PEAK * (s - ms->U[h]) * (s - ms->U[h]);
	if (s < ms->L[h])
		c += W_PEAK * (ms->L[h] - s) * (ms->L[h] - s);
	return c * ms->inv[h] + e * e * ms->inv_r[h];
}

/* The duration range of a job's bucket: [*lo, *hi]. */
void synth_repair3_range(const struct synth_profile *p, int model, double dur, double *lo, double *hi)
{
	const struct synth_buckets *b = &p->dur_buckets;
	size_t i = 0;
	while (i + 1 < b->n && dur >= b->edge[i + 1])
		i++;
	double l = b->edge[i] < 1 ? 1 : ceil(b->edge[i]), top;
	if (i + 1 < b->n)
		top = ceil(b->edge[i + 1]) - 1;
	else {
		const struct synth_model *sm = &p->models[model];
		top = sm->max_job_days > 0 ? floor(sm->max_job_days * SYNTH_DAY) : floor(p->quant_v[p->n_quant - 1]);
	}
	*lo = l;
	*hi = top > dur ? top : dur;
	if (*lo > dur)
		*lo = dur;
}

/* The duration ending in hour e with the end second's offset of dur, inside [lo, hi]. */
static double dur_at(long long submit, double dur, long long e, double lo, double hi)
{
	long long off = (submit + (long long)dur - 1) % SYNTH_HOUR;
	double d = (double)(e * SYNTH_HOUR + off - submit + 1);
	return d < lo ? lo : d > hi ? hi : d;
}

/* The exact daily-peak test of trace-fidelity(1), with a margin: the day's committed peak
 * within (1 +- PEAK_OK) of the published one; days without a published peak pass. */
#define PEAK_OK 0.099
static double day_err(const struct model_state *ms, size_t d)
{
	size_t d0 = d * 24, d1 = d0 + 24 < ms->nc ? d0 + 24 : ms->nc;
	double P = 0, Q = 0;
	for (size_t h = d0; h < d1; h++) {
		P = ms->T[h] > P ? ms->T[h] : P;
		Q = ms->S[h] > Q ? ms->S[h] : Q;
	}
	return P > 0 ? (Q - P) / P : 0;
}

/* Move an end from hour from to hour to in the series. */
static void shift_end(struct model_state *ms, long long from, long long to, double g)
{
	if (to > from)
		synth_add_hours(ms->S, ms->nc, from + 1, to, g);
	else if (to < from)
		synth_add_hours(ms->S, ms->nc, to + 1, from, -g);
}

/* Would moving an end from hour a to hour b keep every passing day of the hours between
 * passing, and (d < nc / 24) leave day d's error smaller? The series is left as it was. */
static bool move_ok(struct model_state *ms, long long a, long long b, double g, size_t d, double err_d)
{
	long long x0 = a < b ? a + 1 : b + 1, x1 = a < b ? b : a;
	if (x0 >= (long long)ms->nc)
		return d >= ms->nc;   /* beyond the series: harmless, but helps no day */
	x1 = x1 < (long long)ms->nc ? x1 : (long long)ms->nc - 1;
	size_t dd0 = (size_t)x0 / 24, dd1 = (size_t)x1 / 24;
	bool ok_before[64];   /* longer moves are not tried */
	if (dd1 - dd0 >= 64)
		return false;
	for (size_t k = dd0; k <= dd1; k++)
		ok_before[k - dd0] = fabs(day_err(ms, k)) <= PEAK_OK;
	shift_end(ms, a, b, g);
	bool ok = true;
	for (size_t k = dd0; k <= dd1 && ok; k++)
		if (k != d && ok_before[k - dd0] && fabs(day_err(ms, k)) > PEAK_OK)
			ok = false;
	if (ok && d < ms->nc && !(fabs(day_err(ms, d)) < fabs(err_d) - 1e-12))
		ok = false;
	shift_end(ms, b, a, g);
	return ok;
}

/* One model's jobs (idx, generation order) and its state. */
struct repair {
	const struct synth_profile *p;
	struct synth_job3 *jobs;
	const size_t *idx;
	size_t n;
	struct model_state *ms;
	const double *lo, *hi;     /* per job of idx: its bucket's duration range */
	double G, Gt, wg;          /* GPU-seconds, the target, its weight */
	double SP[2], SP0[2], ws[2];  /* GPU-seconds of the short and long Spot jobs, as drawn, weights */
	bool gs;
};

/* The Spot jobs' long-job share of GPU-seconds is a target of its own: the repair keeps
 * the class's short and long GPU-seconds near the drawn ones. The cost of a change of dg
 * GPU-seconds of job j (0 for HP jobs). */
static double spot_cost(const struct repair *r, const struct synth_job3 *j, double dg)
{
	if (j->hp)
		return 0;
	int l = j->duration >= r->p->long_threshold;
	double a = r->SP[l] - r->SP0[l], b = a + dg;
	return r->ws[l] * (b * b - a * a);
}

/* Is job j's change of dg GPU-seconds within SPOT_OK of the drawn (or closer)? */
static bool spot_ok(const struct repair *r, const struct synth_job3 *j, double dg)
{
	if (j->hp)
		return true;
	int l = j->duration >= r->p->long_threshold;
	double a = r->SP[l] - r->SP0[l], b = a + dg;
	return fabs(b) <= SPOT_OK * r->SP0[l] || fabs(b) < fabs(a);
}

static void set_end(struct repair *r, size_t k, long long to)
{
	struct synth_job3 *j = &r->jobs[r->idx[k]];
	double nd = dur_at(j->submit, j->duration, to, r->lo[k], r->hi[k]);
	shift_end(r->ms, synth_end_hour(j->submit, j->duration), to, j->gpus);
	r->G += j->gpus * (nd - j->duration);
	if (!j->hp)
		r->SP[j->duration >= r->p->long_threshold] += j->gpus * (nd - j->duration);
	j->duration = nd;
}

/* Coordinate descent: each job in turn takes the end hour of its range that lowers the
 * objective most. */
static void descend(struct repair *r, int passes)
{
	struct model_state *ms = r->ms;
	size_t nc = ms->nc;
	for (int pass = 0; pass < passes; pass++) {
		lower_hours(ms, nc);
		for (size_t k = 0; k < r->n; k++) {
			struct synth_job3 *j = &r->jobs[r->idx[k]];
			if (j->real >= 0)
				continue;
			double lo = r->lo[k], hi = r->hi[k], g = j->gpus;
			long long e = synth_end_hour(j->submit, j->duration), elo = synth_end_hour(j->submit, lo), ehi = synth_end_hour(j->submit, hi);
			if (elo == ehi)
				continue;
			elo = elo > e - WINDOW ? elo : e - WINDOW;
			ehi = ehi < e + WINDOW ? ehi : e + WINDOW;
			double g0 = r->G - r->Gt, base = r->wg * g0 * g0, best = 0, acc = 0;
			long long best_e = e;
			for (long long x = e + 1; x <= ehi; x++) {
				if (x < (long long)nc)
					acc += hour_cost(ms, (size_t)x, ms->S[x] + g) - hour_cost(ms, (size_t)x, ms->S[x]);
				double dd = g * (dur_at(j->submit, j->duration, x, lo, hi) - j->duration), dg = g0 + dd;
				double c = acc + r->wg * dg * dg - base + spot_cost(r, j, dd);
				if (c < best - 1e-12) {
					best = c;
					best_e = x;
				}
			}
			acc = 0;
			for (long long x = e - 1; x >= elo; x--) {
				if (x + 1 < (long long)nc)
					acc += hour_cost(ms, (size_t)x + 1, ms->S[x + 1] - g) - hour_cost(ms, (size_t)x + 1, ms->S[x + 1]);
				double dd = g * (dur_at(j->submit, j->duration, x, lo, hi) - j->duration), dg = g0 + dd;
				double c = acc + r->wg * dg * dg - base + spot_cost(r, j, dd);
				if (c < best - 1e-12) {
					best = c;
					best_e = x;
				}
			}
			if (best_e == e)
				continue;
			set_end(r, k, best_e);
		}
	}
}

/* The end seconds an HP generated job k may take without leaving its end hour or its
 * bucket: [*first, *last]; false for a real row or a Spot job (their ends stay). */
static bool end_span(const struct repair *r, size_t k, double *first, double *last)
{
	const struct synth_job3 *j = &r->jobs[r->idx[k]];
	if (j->real >= 0 || !j->hp)
		return false;
	long long e = synth_end_hour(j->submit, j->duration);
	*first = (double)(e * SYNTH_HOUR - j->submit + 1);
	*last = (double)((e + 1) * SYNTH_HOUR - j->submit);
	*first = *first < r->lo[k] ? r->lo[k] : *first;
	*last = *last > r->hi[k] ? r->hi[k] : *last;
	return true;
}

/* The HP jobs' room to move their end seconds within their end hour: GPU-seconds that can
 * be added (up) and taken away (down) without moving the series. */
static void end_second_room(const struct repair *r, double *up, double *down)
{
	*up = *down = 0;
	for (size_t k = 0; k < r->n; k++) {
		const struct synth_job3 *j = &r->jobs[r->idx[k]];
		double first, last;
		if (!end_span(r, k, &first, &last))
			continue;
		*up += j->gpus * (last - j->duration);
		*down += j->gpus * (j->duration - first);
	}
}

/* The exact daily-peak pass: each failing day, single end moves that bring its peak
 * closer (extend a job to cover the day's highest hour, or trim one to end before it), the
 * cheapest by the objective first, keeping every passing day they touch passing and the
 * GPU-seconds within GS_OK plus ROOM_USE of the end seconds' room (or closer). */
static void fix_peaks(struct repair *r)
{
	struct model_state *ms = r->ms;
	size_t nc = ms->nc, n = r->n;
	double up, down;
	end_second_room(r, &up, &down);
	/* the end seconds can take back ROOM_USE of their room afterwards */
	double over_ok = GS_OK * r->Gt + ROOM_USE * down, under_ok = GS_OK * r->Gt + ROOM_USE * up;
	long long span = 0;
	for (size_t k = 0; k < n; k++) {
		const struct synth_job3 *j = &r->jobs[r->idx[k]];
		long long sp = synth_end_hour(j->submit, r->hi[k]) - j->submit / SYNTH_HOUR;
		span = sp > span ? sp : span;
	}
	for (size_t d = 0; d * 24 < nc; d++) {
		for (int tries = 0; tries < 64; tries++) {
			double err_d = day_err(ms, d);
			if (fabs(err_d) <= PEAK_OK)
				break;
			size_t d0 = d * 24, d1 = d0 + 24 < nc ? d0 + 24 : nc, target = d0;
			for (size_t h = d0; h < d1; h++)
				if (ms->S[h] > ms->S[target])
					target = h;
			long long h = (long long)target;
			double best_c = 1e300;
			size_t best_k = n;
			long long best_to = 0;
			/* the jobs are in submit order: only those submitted at most span hours before h */
			size_t k0 = 0, k1 = n;
			while (k0 < k1) {
				size_t mid = k0 + (k1 - k0) / 2;
				if (r->jobs[r->idx[mid]].submit / SYNTH_HOUR < h - span)
					k0 = mid + 1;
				else
					k1 = mid;
			}
			for (size_t k = k0; k < n; k++) {
				const struct synth_job3 *j = &r->jobs[r->idx[k]];
				long long s0 = j->submit / SYNTH_HOUR;
				if (s0 > h)
					break;
				if (j->real >= 0)
					continue;
				long long e = synth_end_hour(j->submit, j->duration);
				long long elo = synth_end_hour(j->submit, r->lo[k]), ehi = synth_end_hour(j->submit, r->hi[k]), to;
				double c = 0, g = j->gpus;
				if (err_d < 0) {
					if (e >= h || ehi < h || h - e > WINDOW)
						continue;
					to = h;
					for (long long x = e + 1; x <= to && x < (long long)nc; x++)
						c += hour_cost(ms, (size_t)x, ms->S[x] + g) - hour_cost(ms, (size_t)x, ms->S[x]);
				} else {
					if (s0 >= h || e < h || elo > h - 1 || e - h + 1 > WINDOW)
						continue;
					to = h - 1;
					for (long long x = to + 1; x <= e && x < (long long)nc; x++)
						c += hour_cost(ms, (size_t)x, ms->S[x] - g) - hour_cost(ms, (size_t)x, ms->S[x]);
				}
				if (c >= best_c)
					continue;
				double dd = g * (dur_at(j->submit, j->duration, to, r->lo[k], r->hi[k]) - j->duration);
				if (r->gs) {
					double ng = r->G + dd - r->Gt;
					if ((ng > over_ok || -ng > under_ok) && fabs(ng) >= fabs(r->G - r->Gt))
						continue;
				}
				if (!spot_ok(r, j, dd))
					continue;
				if (!move_ok(ms, e, to, g, d, err_d))
					continue;
				best_c = c;
				best_k = k;
				best_to = to;
			}
			if (best_k == n)
				break;
			set_end(r, best_k, best_to);
		}
	}
}

/* End seconds within their end hour (the series does not move): every HP job by the same
 * share of its room, toward the GPU-seconds target. */
static void match_gpu_seconds(struct repair *r)
{
	double room = 0, need = r->Gt - r->G;
	for (int apply = 0; apply < 2; apply++) {
		double share = apply ? (room > 0 ? fabs(need) / room : 0) : 0;
		share = share > 1 ? 1 : share;
		if (apply && !(share > 0))
			return;
		for (size_t k = 0; k < r->n; k++) {
			struct synth_job3 *j = &r->jobs[r->idx[k]];
			double first, last;
			if (!end_span(r, k, &first, &last))
				continue;
			double slack = need > 0 ? last - j->duration : j->duration - first;
			if (!apply) {
				room += j->gpus * slack;
				continue;
			}
			double step = floor(share * slack);
			r->G += j->gpus * (need > 0 ? step : -step);
			j->duration += need > 0 ? step : -step;
		}
	}
}

static void repair_model(const struct synth_profile *p, double F, struct synth_job3 *jobs, const size_t *idx, size_t n,
	int m, struct model_state *ms, double *lo_of, double *hi_of, double stretch, double below)
{
	const struct synth_model *sm = &p->models[m];
	size_t nc = p->n_conc;
	memset(ms->S, 0, nc * sizeof *ms->S);
	double mean = 0;
	for (size_t h = 0; h < nc; h++) {
		ms->T[h] = F * sm->concurrency[h];
		mean += ms->T[h];
	}
	mean = nc ? mean / (double)nc : 0;
	for (size_t d0 = 0; d0 < nc; d0 += 24) {
		size_t d1 = d0 + 24 < nc ? d0 + 24 : nc, arg = d0;
		double P = 0;
		for (size_t h = d0; h < d1; h++)
			if (ms->T[h] > P) {
				P = ms->T[h];
				arg = h;
			}
		double sc = P > 0 ? P : mean > 0 ? mean : 1;
		for (size_t h = d0; h < d1; h++) {
			ms->inv[h] = 1 / (sc * sc);
			ms->inv_r[h] = R_MIX / (mean > 0 ? mean * mean : 1) + (1 - R_MIX) / (sc * sc);
			ms->U[h] = (1 + BAND) * P;
			ms->L[h] = 0;
		}
		if (P > 0)
			ms->L[arg] = (1 - BAND) * P;
	}
	struct repair r = { .p = p, .jobs = jobs, .idx = idx, .n = n, .ms = ms, .lo = lo_of, .hi = hi_of,
		.Gt = F * sm->gpu_seconds };
	for (size_t k = 0; k < n; k++) {
		const struct synth_job3 *j = &jobs[idx[k]];
		synth_add_hours(ms->S, nc, j->submit / SYNTH_HOUR, synth_end_hour(j->submit, j->duration), j->gpus);
		r.G += j->gpus * j->duration;
		if (!j->hp)
			r.SP[j->duration >= p->long_threshold] += j->gpus * j->duration;
		synth_repair3_range(p, m, j->duration, &lo_of[k], &hi_of[k]);
		if (stretch > 1 && j->real < 0 && j->duration < below) {   /* /4: an end at most stretch x its drawn duration */
			double b = j->duration * stretch;
			hi_of[k] = hi_of[k] < b ? hi_of[k] : b;
		}
	}
	r.gs = isfinite(r.Gt) && r.Gt > 0;
	r.wg = r.gs ? W_GS * (double)nc / (r.Gt * r.Gt) : 0;
	for (int l = 0; l < 2; l++) {
		r.SP0[l] = r.SP[l];
		r.ws[l] = r.SP0[l] > 0 ? W_SPOT * (double)nc / (r.SP0[l] * r.SP0[l]) : 0;
	}
	descend(&r, PASSES);
	fix_peaks(&r);
	if (r.gs)
		match_gpu_seconds(&r);
}

void synth_repair3(const struct synth_profile *p, double load_factor, struct synth_job3 *jobs, size_t n)
{
	synth_repair3_stretch(p, load_factor, jobs, n, 0, 0);
}

void synth_repair3_stretch(const struct synth_profile *p, double load_factor, struct synth_job3 *jobs, size_t n, double stretch,
	double below)
{
	size_t nc = p->n_conc;
	if (!nc)
		return;
	struct model_state ms;
	ms.nc = nc;
	ms.T = xmalloc(nc * sizeof *ms.T);
	ms.S = xmalloc(nc * sizeof *ms.S);
	ms.inv = xmalloc(nc * sizeof *ms.inv);
	ms.inv_r = xmalloc(nc * sizeof *ms.inv_r);
	ms.U = xmalloc(nc * sizeof *ms.U);
	ms.L = xmalloc(nc * sizeof *ms.L);
	/* The jobs of each model in generation order. */
	size_t nm = p->n_models, *idx = xmalloc((n ? n : 1) * sizeof *idx), *start = xcalloc(nm + 1, sizeof *start);
	for (size_t i = 0; i < n; i++)
		start[(size_t)jobs[i].model + 1]++;
	for (size_t m = 0; m < nm; m++)
		start[m + 1] += start[m];
	size_t *fill = xmalloc((nm ? nm : 1) * sizeof *fill);
	memcpy(fill, start, nm * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		idx[fill[jobs[i].model]++] = i;
	double *lo_of = xmalloc((n ? n : 1) * sizeof *lo_of), *hi_of = xmalloc((n ? n : 1) * sizeof *hi_of);
	for (size_t m = 0; m < nm; m++)
		repair_model(p, load_factor, jobs, idx + start[m], start[m + 1] - start[m], (int)m, &ms, lo_of, hi_of, stretch, below);
	free(idx);
	free(start);
	free(fill);
	free(lo_of);
	free(hi_of);
	free(ms.T);
	free(ms.S);
	free(ms.inv);
	free(ms.inv_r);
	free(ms.U);
	free(ms.L);
}
