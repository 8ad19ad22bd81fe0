/* Pass 3 of the /4 generator (generate4.c): durations to jobs. Hour 0's jobs first, along an
 * exponential skyline of each model's day-0 GPU-seconds (hour0_skyline). Then the long ones
 * (SYNTH_LONG_DUR4 and up), longest first, each to one of each model's CAND_DAYS (model, day)s
 * with the most GPU-seconds still to submit (further down, up to CAND_MAX, while none of them
 * fits), on a job drawn by count, preferring one within its need and with room under its
 * model's published concurrency over every hour the job would touch, the largest need relative
 * to its model's table total first (else within the need only, the most room relative to the
 * model's GPUs, the job cut to its room but kept in its duration bucket; else the least
 * GPU-seconds past the need relative to the model's total), in the hour of the day with the
 * most GPU-seconds still to submit. The short ones are dealt over the other jobs in a seeded
 * order. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CAND_DAYS 4
#define CAND_MAX 16       /* ... and up to 16 when none of the 4 fits both its need and its room */
#define HOUR0_SHARE 0.93      /* of a model's day-0 GPU-seconds, submitted in hour 0 (the fleet's: 20.55e9 of 22.04e9) */

/* Pass 3's index: the generated jobs grouped by (model, submit day), each group by size
 * (largest first) and each size by hour, so a long duration finds its (model, day), its size
 * and its hour in a few steps. */
struct run { size_t pos, end, hour; };
struct sgroup { double gpus; size_t r0, r1, best; double best_need; };
struct mday { size_t g0, g1; long long left; double need, gpus; };

struct dindex {
	const struct synth_job3 *jobs;
	size_t *order;
	struct run *runs;
	struct sgroup *groups;
	long long *left;           /* per group, its jobs still without a duration (apart: the draw scans it) */
	struct mday *md;           /* n_models x n_days */
	size_t n_runs, n_groups, nd;
};

static const struct synth_job3 *cmp_jobs;
static int cmp_group(const void *a, const void *b)
{
	const struct synth_job3 *x = &cmp_jobs[*(const size_t *)a], *y = &cmp_jobs[*(const size_t *)b];
	long long dx = x->submit / SYNTH_DAY, dy = y->submit / SYNTH_DAY;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->gpus != y->gpus)
		return x->gpus > y->gpus ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* ix->order in cmp_group's order: by keys (model and day in one word) where every job's fit
 * them, else qsort with cmp_group itself. */
static void sort_group(const struct synth_job3 *jobs, size_t *order, size_t n)
{
	struct synth_key *key = xmalloc((n ? n : 1) * sizeof *key);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		const struct synth_job3 *x = &jobs[order[i]];
		long long d = x->submit / SYNTH_DAY;
		ok = x->model >= 0 && d >= 0 && d <= 0xffffffffLL && !isnan(x->gpus);
		key[i] = (struct synth_key){ { (uint64_t)x->model << 32 | (uint64_t)d, ~synth_key_double(x->gpus),
			synth_key_ll(x->submit) }, order[i] };
	}
	if (ok) {
		synth_sort_keys(key, n);
		for (size_t i = 0; i < n; i++)
			order[i] = key[i].idx;
	} else {
		cmp_jobs = jobs;
		qsort(order, n, sizeof *order, cmp_group);
	}
	free(key);
}

static void dindex_build(struct dindex *ix, const struct synth_job3 *jobs, size_t n, size_t nm, size_t nd, const double *md_need,
	const bool *skip)
{
	ix->jobs = jobs;
	ix->nd = nd;
	ix->order = xmalloc((n ? n : 1) * sizeof *ix->order);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (!skip[i])
			ix->order[kept++] = i;
	n = kept;
	sort_group(jobs, ix->order, n);
	ix->runs = xmalloc((n ? n : 1) * sizeof *ix->runs);
	ix->groups = xmalloc((n ? n : 1) * sizeof *ix->groups);
	ix->left = xmalloc((n ? n : 1) * sizeof *ix->left);
	ix->md = xcalloc(nm * nd, sizeof *ix->md);
	for (size_t k = 0; k < nm * nd; k++)
		ix->md[k].need = md_need[k];
	ix->n_runs = ix->n_groups = 0;
	for (size_t i = 0; i < n;) {
		const struct synth_job3 *j = &jobs[ix->order[i]];
		size_t key = (size_t)j->model * nd + (size_t)(j->submit / SYNTH_DAY);
		struct mday *md = &ix->md[key];
		md->g0 = ix->n_groups;
		while (i < n && (size_t)jobs[ix->order[i]].model * nd + (size_t)(jobs[ix->order[i]].submit / SYNTH_DAY) == key) {
			long long *left = &ix->left[ix->n_groups];
			struct sgroup *g = &ix->groups[ix->n_groups++];
			g->gpus = jobs[ix->order[i]].gpus;
			g->r0 = ix->n_runs;
			*left = 0;
			g->best = SIZE_MAX;
			while (i < n && (size_t)jobs[ix->order[i]].model * nd + (size_t)(jobs[ix->order[i]].submit / SYNTH_DAY) == key &&
				jobs[ix->order[i]].gpus == g->gpus) {
				struct run *r = &ix->runs[ix->n_runs++];
				r->hour = (size_t)(jobs[ix->order[i]].submit / SYNTH_HOUR);
				r->pos = i;
				while (i < n && (size_t)jobs[ix->order[i]].model * nd + (size_t)(jobs[ix->order[i]].submit / SYNTH_DAY) == key &&
					jobs[ix->order[i]].gpus == g->gpus && (size_t)(jobs[ix->order[i]].submit / SYNTH_HOUR) == r->hour)
					i++;
				r->end = i;
				*left += (long long)(r->end - r->pos);
				md->gpus += g->gpus * (double)(r->end - r->pos);
			}
			g->r1 = ix->n_runs;
			md->left += *left;
		}
		md->g1 = ix->n_groups;
	}
}

/* Pass 3: the long durations (longest first) by the GPU-seconds tables, the short ones dealt
 * over the rest. sneed[h]: GPU-seconds hour h still has to submit; md_need: per (model, day). */
/* A min tree with range add over hours: a model's published concurrency less its committed
 * GPUs, so a long job goes where the series has room over every hour it touches. */
struct mintree { size_t size; double *mn, *add; };

static void nt_init(struct mintree *t, const double *v, size_t n)
{
	t->size = 1;
	while (t->size < n)
		t->size *= 2;
	t->mn = xmalloc(2 * t->size * sizeof *t->mn);
	t->add = xcalloc(2 * t->size, sizeof *t->add);
	for (size_t i = 0; i < t->size; i++)
		t->mn[t->size + i] = i < n ? v[i] : INFINITY;
	for (size_t k = t->size; k-- > 1;)
		t->mn[k] = t->mn[2 * k] < t->mn[2 * k + 1] ? t->mn[2 * k] : t->mn[2 * k + 1];
}

static void nt_add(struct mintree *t, size_t k, size_t lo, size_t hi, size_t a, size_t b, double x)
{
	if (b < lo || a > hi)
		return;
	if (a <= lo && hi <= b) {
		t->mn[k] += x;
		t->add[k] += x;
		return;
	}
	size_t mid = (lo + hi) / 2;
	nt_add(t, 2 * k, lo, mid, a, b, x);
	nt_add(t, 2 * k + 1, mid + 1, hi, a, b, x);
	double l = t->mn[2 * k], r = t->mn[2 * k + 1];
	t->mn[k] = (l < r ? l : r) + t->add[k];
}

/* The minimum over hours [a, b] (a <= b), bottom-up: the nodes inside the range hang off two
 * chains (the left one under l - 1, the right one under r); each part takes its ancestors' adds bottom-up, and the two meet at their common parent
 * (the recursive form's sums in the same order: a min before an add is exact, rounding is
 * monotone). */
static double nt_range_min(const struct mintree *t, size_t a, size_t b)
{
	size_t l = a + t->size, r = b + t->size + 1;
	double rl = INFINITY, rr = INFINITY;
	while (l < r) {
		if (l & 1) {
			rl = t->mn[l] < rl ? t->mn[l] : rl;
			l++;
		}
		if (r & 1) {
			r--;
			rr = t->mn[r] < rr ? t->mn[r] : rr;
		}
		l >>= 1;
		r >>= 1;
		if (rl < INFINITY)
			rl += t->add[l - 1];
		if (rr < INFINITY)
			rr += t->add[r];
	}
	size_t pl = l - 1, pr = r;
	if (rl < INFINITY && rr < INFINITY) {
		while ((pl >> 1) != (pr >> 1)) {
			pl >>= 1;
			pr >>= 1;
			rl += t->add[pl];
			rr += t->add[pr];
		}
		double v = rl < rr ? rl : rr;
		for (size_t p = pl >> 1; p >= 1; p >>= 1)
			v += t->add[p];
		return v;
	}
	double v = rl < INFINITY ? rl : rr;
	if (!(v < INFINITY))
		return v;
	for (size_t p = (rl < INFINITY ? pl : pr) >> 1; p >= 1; p >>= 1)
		v += t->add[p];
	return v;
}

/* One candidate of pass 3: a (model, day), its size group and hour run, and the room. */
struct cand { struct mday *md; struct sgroup *g; struct run *r; double room; bool fits_need; size_t b; double d; };

/* The candidate's hour: its group's run with the most GPU-seconds still to submit (the first
 * on ties), the duration cut at the end of the series and the last hour it touches. The group
 * keeps the run it found and that hour's need then: sneed only falls and runs only empty, so
 * while that run has jobs and its hour's need is unchanged, no run can have passed it (the
 * same run a scan would find, without the scan). */
static void cand_hour(const struct dindex *ix, struct cand *c, double L, const double *sneed, size_t nc, double span_end)
{
	struct sgroup *g = c->g;
	struct run *r = NULL;
	if (g->best != SIZE_MAX && ix->runs[g->best].pos < ix->runs[g->best].end && sneed[ix->runs[g->best].hour] == g->best_need)
		r = &ix->runs[g->best];
	else {
		for (size_t x = g->r0; x < g->r1; x++)
			if (ix->runs[x].pos < ix->runs[x].end && (!r || sneed[ix->runs[x].hour] > sneed[r->hour]))
				r = &ix->runs[x];
		g->best = (size_t)(r - ix->runs);
		g->best_need = sneed[r->hour];
	}
	long long s = (long long)r->hour * SYNTH_HOUR + SYNTH_HOUR / 2;
	double d = L < span_end - (double)s ? L : span_end - (double)s;
	long long h1 = synth_end_hour(s, d < 1 ? 1 : d);
	c->r = r;
	c->d = d;
	c->b = h1 < (long long)nc ? (size_t)h1 : nc - 1;
}

static bool candidate(struct dindex *ix, struct mday *md, double L, const double *sneed, const struct mintree *room,
	size_t nc, double span_end, struct synth_rng *rng, struct cand *c)
{
	/* the size: a job of the (model, day) drawn by count (the big gangs of the tables are
	 * short: extra_outliers_short_heavy.csv), so long jobs are mostly of the common sizes */
	struct sgroup *g = NULL;
	if (md->left <= 0)
		return false;
	long long pick = (long long)synth_rng_below(rng, (uint64_t)md->left);
	for (size_t x = md->g0; x < md->g1; x++)
		if (ix->left[x] > 0) {
			g = &ix->groups[x];
			if ((pick -= ix->left[x]) < 0)
				break;
		}
	*c = (struct cand){ md, g, NULL, NAN, true, 0, L };
	/* the job's end: L from the hour of the day with the most GPU-seconds still to submit, cut
	 * at the end of the series; the hour is looked for only where the cut can matter here (a
	 * day near the end), else when the room is asked for (cand_room) */
	size_t day_end = ((size_t)(md - ix->md) % ix->nd) * 24 + 23;   /* md's day: its runs' hours / 24 */
	double d = L;
	if (!(L < span_end - ((double)day_end * SYNTH_HOUR + SYNTH_HOUR / 2))) {
		cand_hour(ix, c, L, sneed, nc, span_end);
		d = c->d;
	}
	/* a (model, day) takes a job only within its GPU-seconds still to submit */
	if (g->gpus * d > md->need)
		c->fits_need = false;
	return true;
}

/* The candidate's room (the range minimum), asked for only where it can decide something. */
static void cand_room(const struct dindex *ix, struct cand *c, double L, const double *sneed, const struct mintree *room,
	size_t nc, double span_end)
{
	if (!c->r)
		cand_hour(ix, c, L, sneed, nc, span_end);
	c->room = c->r->hour < nc ? nt_range_min(room, c->r->hour, c->b) - c->g->gpus : -INFINITY;
}

/* Pass 3: the long durations (longest first) by the GPU-seconds tables and each model's room
 * under its concurrency, the short ones dealt over the rest. sneed[h]: GPU-seconds hour h still
 * has to submit; md_need: per (model, day); conc_left: per model x hour, published
 * concurrency less the real rows'. */
/* The jobs of hour 0 are the ones already running when the trace starts: each model's hold
 * its published hour-0 concurrency and end along an exponential skyline C0 exp(-t / tau) whose
 * area is the model's GPU-seconds submitted on day 0 (the published tables pin the start and
 * the area, not the shape: an inference, docs/profiles.md), each job the free duration of the
 * multiset nearest its level's end. Marks the durations taken and the jobs done. */
static void hour0_skyline(const struct synth_profile *p, struct synth_job3 *jobs, size_t n, const double *dur,
	bool *taken, bool *done, const double *md_need, struct synth_rng *r)
{
	size_t nm = p->n_models, nd = p->n_days;
	size_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
	for (size_t m = 0; m < nm; m++) {
		size_t k = 0;
		double g0 = 0;
		for (size_t i = 0; i < n; i++)
			if (jobs[i].model == (int)m && jobs[i].submit < SYNTH_HOUR) {
				idx[k++] = i;
				g0 += jobs[i].gpus;
			}
		double budget = md_need[m * nd] * HOUR0_SHARE, tau = g0 > 0 ? budget / g0 : 0;
		if (!(tau > 0))
			continue;
		for (size_t i = k; i > 1; i--) {
			size_t x = (size_t)synth_rng_below(r, i), t = idx[i - 1];
			idx[i - 1] = idx[x];
			idx[x] = t;
		}
		double cum = 0;
		for (size_t x = 0; x < k; x++) {
			struct synth_job3 *j = &jobs[idx[x]];
			double level = (cum + j->gpus / 2) / g0, want = -tau * log(level > 1e-9 ? level : 1e-9);
			cum += j->gpus;
			size_t lo = 0, hi = n;   /* dur is descending: the first index with dur <= want */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (dur[mid] > want)
					lo = mid + 1;
				else
					hi = mid;
			}
			size_t a = lo, b = lo;
			while (a > 0 && taken[a - 1])
				a--;
			while (b < n && taken[b])
				b++;
			if (a == 0 && b == n)
				break;
			size_t pick = b < n && (a == 0 || fabs(dur[b] - want) <= fabs(dur[a - 1] - want)) ? b : a - 1;
			taken[pick] = true;
			done[idx[x]] = true;
			j->duration = dur[pick];
		}
	}
	free(idx);
}

/* The order of pass 3's candidates: fitting both the day's need and the room (0), by need;
 * else within the need only (1), by the room relative to the model's GPUs; else within the room
 * only (2) or neither (3), by the GPU-seconds past the day's need relative to the model's table
 * total, so what fits no need lands on the models in proportion to their size, not on the one
 * whose room is shortest in GPUs (the smallest pool: docs/profiles.md). */
static int tier(const struct cand *c)
{
	return c->fits_need ? (c->room >= 0 ? 0 : 1) : (c->room >= 0 ? 2 : 3);
}

static double tier_key(const struct cand *c, int t, double L, double span_end, double cap, double total)
{
	if (t == 0)
		return c->md->need / (total > 0 ? total : 1);
	if (t == 1)
		return c->room / (cap > 0 ? cap : 1);
	double s = (double)c->r->hour * SYNTH_HOUR + SYNTH_HOUR / 2, d = L < span_end - s ? L : span_end - s;
	return -(c->g->gpus * d - c->md->need) / (total > 0 ? total : 1);
}

/* A job that fits nowhere keeps its duration bucket but ends, at its lower edge at the
 * earliest, by the last hour its model's room still holds it: the longest prefix
 * [h0, x] of hours with room >= its GPUs (binary search over range minima). */
static double cut_to_room(const struct synth_profile *p, const struct mintree *room, size_t nc, const struct synth_job3 *j, double d)
{
	const struct synth_buckets *b = &p->dur_buckets;
	size_t bi = 0;
	while (bi + 1 < b->n && d >= b->edge[bi + 1])
		bi++;
	double lo_edge = b->edge[bi] > 1 ? b->edge[bi] : 1;
	size_t h0 = (size_t)(j->submit / SYNTH_HOUR);
	if (h0 >= nc)
		return d;
	long long last = synth_end_hour(j->submit, d);
	size_t hi = last < (long long)nc ? (size_t)last : nc - 1, lo = h0;
	if (nt_range_min(room, h0, hi) >= j->gpus)
		return d;
	while (lo < hi) {   /* the last x with min(room[h0..x]) >= gpus, or h0 */
		size_t mid = (lo + hi + 1) / 2;
		if (nt_range_min(room, h0, mid) >= j->gpus)
			lo = mid;
		else
			hi = mid - 1;
	}
	double cut = (double)(lo + 1) * SYNTH_HOUR - (double)j->submit;
	return cut < lo_edge ? (lo_edge < d ? lo_edge : d) : cut < d ? cut : d;
}

/* Each model's (model, day)s with jobs left, by GPU-seconds still to submit, largest first
 * and the earlier day first on ties: the order in which a scan of the days by need keeps its
 * CAND_MAX largest. Kept in order as one (model, day) at a time is given a duration. */
struct byneed {
	size_t *day;      /* nm x nd: model m's days in [m * nd, m * nd + len[m]) */
	size_t *len, nd;
	const struct mday *md;
};

static const struct mday *cmp_md;
static int cmp_need(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double nx = cmp_md[x].need, ny = cmp_md[y].need;
	return nx > ny ? -1 : nx < ny ? 1 : x < y ? -1 : x > y;
}

static void byneed_init(struct byneed *o, const struct dindex *ix, size_t nm, size_t nd)
{
	o->day = xmalloc((nm * nd + 1) * sizeof *o->day);
	o->len = xcalloc(nm ? nm : 1, sizeof *o->len);
	o->nd = nd;
	o->md = ix->md;
	for (size_t m = 0; m < nm; m++) {
		size_t *a = &o->day[m * nd];
		for (size_t d = 0; d < nd; d++)
			if (ix->md[m * nd + d].left > 0)
				a[o->len[m]++] = m * nd + d;
		cmp_md = ix->md;
		qsort(a, o->len[m], sizeof *a, cmp_need);
	}
}

/* md (of model m, in the order) had a job given: its need fell, or it has no job left. */
static void byneed_update(struct byneed *o, size_t m, const struct mday *md)
{
	size_t *a = &o->day[m * o->nd], k = (size_t)(md - o->md), i = 0;
	while (i < o->len[m] && a[i] != k)
		i++;
	if (i == o->len[m])
		return;
	if (md->left <= 0) {
		memmove(&a[i], &a[i + 1], (o->len[m] - i - 1) * sizeof *a);
		o->len[m]--;
		return;
	}
	for (; i + 1 < o->len[m]; i++) {
		const struct mday *nx = &o->md[a[i + 1]];
		if (!(nx->need > md->need || (nx->need == md->need && a[i + 1] < k)))
			break;
		a[i] = a[i + 1];
		a[i + 1] = k;
	}
}

void synth_assign_durations4(const struct synth_profile *p, struct synth_job3 *jobs, size_t n, const double *dur,
	double *sneed, const double *md_need, const double *conc_left, struct synth_rng *r_short)
{
	size_t nm = p->n_models, nd = p->n_days, nc = p->n_conc;
	double span_end = (double)(nc > p->n_hours ? nc : p->n_hours) * SYNTH_HOUR;
	bool *done = xcalloc(n ? n : 1, sizeof *done), *taken = xcalloc(n ? n : 1, sizeof *taken);
	double *need0 = xmalloc((nm * nd + 1) * sizeof *need0), *left0 = xmalloc((nm * nc + 1) * sizeof *left0);
	memcpy(need0, md_need, nm * nd * sizeof *need0);
	memcpy(left0, conc_left, nm * nc * sizeof *left0);
	double *cap = xmalloc((nm ? nm : 1) * sizeof *cap), *total = xcalloc(nm ? nm : 1, sizeof *total);
	for (size_t m = 0; m < nm; m++) {
		cap[m] = (double)p->models[m].capacity;
		for (size_t d = 0; d < nd; d++)
			total[m] += md_need[m * nd + d];
	}
	hour0_skyline(p, jobs, n, dur, taken, done, md_need, r_short);
	for (size_t i = 0; i < n; i++)   /* the hour-0 jobs out of the needs and the room */
		if (done[i]) {
			struct synth_job3 *j = &jobs[i];
			double d = j->duration < span_end - (double)j->submit ? j->duration : span_end - (double)j->submit;
			j->duration = d < 1 ? 1 : d;
			need0[(size_t)j->model * nd] -= j->gpus * j->duration;
			sneed[0] -= j->gpus * j->duration;
			synth_add_hours(&left0[(size_t)j->model * nc], nc, 0, synth_end_hour(j->submit, j->duration), -j->gpus);
		}
	struct dindex ix;
	dindex_build(&ix, jobs, n, nm, nd, need0, done);
	struct mintree *room = xmalloc(nm * sizeof *room);
	for (size_t m = 0; m < nm; m++)
		nt_init(&room[m], &left0[m * nc], nc);
	free(need0);
	free(left0);
	struct byneed order;
	byneed_init(&order, &ix, nm, nd);
	size_t k = 0;
	for (; k < n && dur[k] >= SYNTH_LONG_DUR4; k++) {
		if (taken[k])
			continue;
		double L = dur[k];
		struct cand best = { 0 }, c;
		bool have = false;
		int best_tier = 0;
		double best_key = 0;
		for (size_t m = 0; m < nm; m++) {
			struct mday *top[CAND_MAX] = { 0 };
			for (size_t x = 0; x < CAND_MAX && x < order.len[m]; x++)
				top[x] = &ix.md[order.day[m * nd + x]];
			bool model_ok = false;
			for (size_t x = 0; x < CAND_MAX && top[x] && (x < CAND_DAYS || !model_ok); x++) {
				if (!candidate(&ix, top[x], L, sneed, &room[m], nc, span_end, r_short, &c))
					continue;
				/* the room query only where its answer can matter: for the model's first fit,
				 * or when the candidate could win (the same choices, fewer queries) */
				bool need = !have || (c.fits_need ? (!model_ok || best_tier > 0 ||
					c.md->need / (total[m] > 0 ? total[m] : 1) > best_key) : best_tier >= 2);
				if (!need)
					continue;
				cand_room(&ix, &c, L, sneed, &room[m], nc, span_end);
				int t = tier(&c);
				if (t == 0)
					model_ok = true;
				double key = tier_key(&c, t, L, span_end, cap[m], total[m]);
				if (!have || t < best_tier || (t == best_tier && key > best_key)) {
					best = c;
					have = true;
					best_tier = t;
					best_key = key;
				}
			}
		}
		if (!have)
			break;
		size_t i = ix.order[best.r->pos++];
		ix.left[best.g - ix.groups]--;
		best.md->left--;
		struct synth_job3 *j = &jobs[i];
		double d = L < span_end - (double)j->submit ? L : span_end - (double)j->submit;
		bool fits = best_tier == 0;
		if (!fits)
			d = cut_to_room(p, &room[j->model], nc, j, d);
		j->duration = d < 1 ? 1 : d;
		best.md->need -= j->gpus * j->duration;
		byneed_update(&order, (size_t)(best.md - ix.md) / nd, best.md);
		best.md->gpus -= j->gpus;
		sneed[best.r->hour] -= j->gpus * j->duration;
		long long h1 = synth_end_hour(j->submit, j->duration);
		size_t h0 = (size_t)(j->submit / SYNTH_HOUR);
		if (h0 < nc)
			nt_add(&room[j->model], 1, 0, room[j->model].size - 1, h0, h1 < (long long)nc ? (size_t)h1 : nc - 1, -j->gpus);
		done[i] = true;
	}
	for (size_t m = 0; m < nm; m++) {
		free(room[m].mn);
		free(room[m].add);
	}
	free(room);
	size_t *rest = xmalloc((n ? n : 1) * sizeof *rest), nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			rest[nr++] = i;
	for (size_t i = nr; i > 1; i--) {
		size_t x = (size_t)synth_rng_below(r_short, i), t = rest[i - 1];
		rest[i - 1] = rest[x];
		rest[x] = t;
	}
	for (size_t i = 0, q = k; i < nr; i++, q++) {
		struct synth_job3 *j = &jobs[rest[i]];
		while (q < n && taken[q])
			q++;
		double L = q < n ? dur[q] : 1;
		j->duration = L < span_end - (double)j->submit ? L : span_end - (double)j->submit;
		if (j->duration < 1)
			j->duration = 1;
	}
	free(cap); free(total); free(order.day); free(order.len);
	free(rest); free(done); free(taken); free(ix.order); free(ix.runs); free(ix.groups); free(ix.left); free(ix.md);
}

