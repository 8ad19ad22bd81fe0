/* The /3 generator: each GPU model's pool follows its own published hourly concurrency
 * (docs/profiles.md, docs/trace-synth-fit.md, trace-synth(1)).
 *
 * Hour by hour, the hour's exact job count is split over the models and each job gets a
 * model, a class, a (workers, GPUs per worker) cell and a duration. A model's "committed"
 * series holds the requested GPUs of the jobs placed so far in every hour they touch (the
 * profile's rule: hours floor(s/3600) .. floor((s+d-1)/3600)); its deficit in the current
 * hour is the published concurrency minus the committed GPUs. Deficits steer three draws:
 *  - the model: weight = the model's jobs x its pace cubed (remaining jobs over the jobs
 *    expected from the share of its published concurrency still ahead, so each model's
 *    arrivals follow its own load over time) x max(0.3, 1 + deficit / mean GPUs per job),
 *    the floor 1 instead of 0.3 in a big pool (>= 10 jobs per hour), so the big pools
 *    absorb the jobs the small pools have no room for;
 *  - the class: Spot with the model's share x the day's Spot weight ((the day's Spot
 *    fraction / the trace's)^1.25, over its mean on the model's jobs): the power puts Spot
 *    on the Spot-heavy days, as GPU-series-2's published >= 20 HP and >= 20 Spot days show;
 *  - the cell: among the next few cells of the model's shuffled deck, for HP the largest that
 *    fits the deficit (the smallest when none fits), for Spot the smallest, swapped to the
 *    front, so a full pass of the deck still reproduces the model's joint table exactly;
 *  - the duration: a job that fits the deficit (less a reserve for the hour's short jobs)
 *    "fills" it: it runs until the first hour in which it would lift the committed series
 *    above the published one, or the model's max_job_days (a skyline decomposition of the
 *    series, so long jobs end when the real load falls; Spot keeps a shorter drawn length);
 *    other jobs end inside the next hour at the latest, HP ones aiming at the duration
 *    buckets' job shares, Spot ones log-linear through the class median and p90; before
 *    that, a look-ahead keeps a drawn length where the series has room in every hour it
 *    touches: small HP jobs (<= 1 % of the hour's load) aimed at 1 h - 3 d, and Spot jobs
 *    (with 1 % tolerance, 1.5 % in a big pool), whose long jobs hold two thirds of the
 *    class's GPU-seconds.
 * The duration buckets' job shares count both classes, so the aim counts every job placed.
 * The real > 3 d bucket is 6 % of the jobs and most GPU-seconds: many long jobs, mostly
 * small. In a big pool (>= 10 jobs per hour: one GPU fits almost any hour for days), an HP
 * job aimed past 3 days takes the smallest candidate cell and keeps 3 - 5 days where the
 * series plus 1 % has room. A job without room cannot run past the next hour; an HP one
 * aims among the sub-hour buckets and the 1 - 6 h bucket (entered from its lower edge up to
 * the end of the next hour), so the long buckets' deficit is not all pushed onto the
 * shortest ones.
 * The real job rows go in first, as they were, and count in their hours' job totals.
 * Every job (real rows included) is kept in one array in emit order; after the draw, the
 * repair pass (repair3.c) moves the end of generated jobs, each inside its own duration
 * bucket, toward each model's published series, daily peaks and GPU-seconds; then the jobs
 * are emitted through the --days and --gpu-model filters, so a filtered run cuts the same
 * trace as the full one. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RNG3_SUBMIT = 101, RNG3_MODEL, RNG3_CLASS, RNG3_DECK, RNG3_DURATION, RNG3_ORG, RNG3_END };

#define CANDIDATES 8          /* cells of the deck looked at for one job */
#define RESERVE 1.0           /* short-job reserve: the hour's expected jobs of the model x its median GPUs */
#define NO_ROOM 0.3
#define BIG_NO_ROOM 1.0       /* the same floor for a big pool (BIG_POOL) */
#define SPOT_DAY_POWER 1.25   /* a day's Spot weight: (its Spot fraction / the trace's) to this power */
#define FIT 0.8               /* a job fills the deficit when deficit >= FIT x its GPUs */
#define SMALL_JOB 0.01        /* an HP job keeps its aimed 1 h - 3 d duration when it is at most this share of the hour's published load... */
#define SPOT_TOL 0.01         /* ...and a Spot job its drawn length when the published series, plus this share, has room for it */
#define BIG_POOL 10.0         /* a model with at least this many jobs per hour on average is a big pool: */
#define LONG_TOL 0.01         /* - an HP job aimed at the open last duration bucket takes a small cell and keeps a length of 3 to LONG_DAYS days where the series, plus this share, has room */
#define LONG_DAYS 5.0
#define BIG_SPOT_TOL 0.015    /* - a Spot job keeps its drawn length with this tolerance */
#define MAX_JOBS3 50000000LL

/* A model's joint table as a deck of cell indices (synth_deck, on the stream all the
 * models' decks share), with each cell's GPUs per job and workers. */
struct cell_deck {
	struct synth_deck d;
	double *gpus;             /* per cell: workers x GPUs per worker */
	const long long *workers;
};

static void cdeck_init(struct cell_deck *c, const struct synth_model *sm, struct synth_rng *rng)
{
	synth_deck_fill(&c->d, sm->cell_jobs, sm->n_cells, 1);
	c->gpus = xmalloc((sm->n_cells ? sm->n_cells : 1) * sizeof *c->gpus);
	for (size_t k = 0; k < sm->n_cells; k++)
		c->gpus[k] = sm->cell_gpw[k] * (double)sm->cell_workers[k];
	c->workers = sm->cell_workers;
	c->d.rng = rng;
	synth_deck_shuffle(&c->d);
}

/* Take one cell: the largest among the next candidates with GPUs <= want (want < 0: the
 * smallest); the smallest when none fits. */
static void cdeck_take(struct cell_deck *c, double want, double *gpus, long long *workers)
{
	struct synth_deck *d = &c->d;
	if (d->n == 0) {   /* a model without jobs drawn only when every budget is spent */
		*gpus = 1;
		*workers = 1;
		return;
	}
	if (d->next == d->n)
		synth_deck_shuffle(d);
	size_t end = d->next + CANDIDATES < d->n ? d->next + CANDIDATES : d->n, best = d->next, small = d->next;
	bool fits = false;
	for (size_t i = d->next; i < end; i++) {
		double g = c->gpus[d->items[i]];
		if (g < c->gpus[d->items[small]])
			small = i;
		if (want >= 0 && g <= want && (!fits || g > c->gpus[d->items[best]])) {
			best = i;
			fits = true;
		}
	}
	size_t k = fits ? best : small;
	unsigned cell = d->items[k];
	d->items[k] = d->items[d->next];
	d->items[d->next] = cell;
	d->next++;
	*gpus = c->gpus[cell];
	*workers = c->workers[cell];
}

/* The duration bucket an HP job aims at: the bucket furthest behind its share of the jobs
 * placed so far (achieved counts every job's final bucket, so durations cut short by the
 * skyline are made up by later jobs). */
static size_t aim_bucket_upto(const struct synth_buckets *b, const double *share, const long long *achieved, long long placed, size_t last)
{
	size_t best = 0;
	double gap = -1e300;
	for (size_t i = 0; i <= last && i < b->n; i++) {
		double g = share[i] * (double)(placed + 1) - (double)achieved[i];
		if (g > gap) {
			gap = g;
			best = i;
		}
	}
	return best;
}

static size_t aim_bucket(const struct synth_buckets *b, const double *share, const long long *achieved, long long placed)
{
	return aim_bucket_upto(b, share, achieved, placed, b->n - 1);
}

/* A duration inside bucket i: uniform in the first bucket, log-uniform in the others, the
 * open last bucket up to top seconds. */
static double bucket_duration(const struct synth_buckets *b, size_t i, double top, struct synth_rng *r)
{
	double lo = b->edge[i] < 1 ? 1 : b->edge[i], hi = i + 1 < b->n ? b->edge[i + 1] : top;
	if (hi <= lo)
		return floor(lo);
	double v = i == 0 ? lo + synth_rng_unit(r) * (hi - lo) : exp(log(lo) + synth_rng_unit(r) * (log(hi) - log(lo)));
	v = floor(v);
	return v < lo ? lo : v >= hi ? hi - 1 : v;
}

static size_t bucket_of(const struct synth_buckets *b, double v)
{
	return synth_pick_cum(b->edge + 1, b->n, v);   /* the upper edges; the last bucket is open */
}

/* The largest bucket index whose durations stay below one hour. */
static size_t last_short_bucket(const struct synth_buckets *b)
{
	size_t i = 0;
	while (i + 2 <= b->n && i + 1 < b->n && b->edge[i + 1] < SYNTH_HOUR && i + 1 < b->n - 1)
		i++;
	return i;
}

/* A Spot duration: log-linear through (0, 1 s), (0.5, median), (0.9, p90), and on to the
 * longest duration of the profile's quantile knots at 1. */
static double spot_duration(const struct synth_profile *p, struct synth_rng *r)
{
	double med = isfinite(p->class_median[1]) ? p->class_median[1] : 2095.5;
	double p90 = isfinite(p->class_p90[1]) ? p->class_p90[1] : 21740;
	double top = p->quant_v[p->n_quant - 1];
	double kp[4] = { 0, 0.5, 0.9, 1 }, kv[4] = { 1, med, p90, top > p90 ? top : p90 };
	(void)top;
	kv[3] = 7.0 * SYNTH_DAY > p90 ? 7.0 * SYNTH_DAY : p90;
	double u = synth_rng_unit(r);
	int i = u < 0.5 ? 0 : u < 0.9 ? 1 : 2;
	double f = (u - kp[i]) / (kp[i + 1] - kp[i]);
	double v = floor(exp(log(kv[i]) + f * (log(kv[i + 1]) - log(kv[i]))));
	return v < 1 ? 1 : v;
}

/* Room for a job of gpus GPUs from submit for dur seconds: in every hour it touches, the
 * model's committed series plus the job stays within the published one (less the reserve
 * in the current hour), with a tolerance of tol x the published value. */
static bool room_ahead(const double *committed, const double *conc, double F, size_t nc, size_t h,
	long long submit, double dur, double gpus, double reserve_now, double tol)
{
	long long last = synth_end_hour(submit, dur);
	for (long long x = (long long)h; x <= last && x < (long long)nc; x++) {
		double room = F * conc[x] * (1 + tol) - committed[x] - (x == (long long)h ? reserve_now : 0);
		if (room < FIT * gpus)
			return false;
	}
	return true;
}

static const char method3[] =
	"profile /3: hourly counts scaled by the load factor, less the real job rows placed in their hours as they were "
	"(ids 'real-' + job name); submit uniform over the whole seconds of its hour; per job a GPU model weighted by "
	"its jobs x its pace cubed (remaining jobs against the share of its published concurrency still ahead) x "
	"max(0.3 (1 in a big pool), 1 + the model's concurrency deficit / its mean GPUs per job), the class "
	"Spot with the model's inferred Spot share x (the day's Spot fraction / the trace's)^1.25 over that weight's "
	"mean on the model's jobs (those drawn so far plus the rest at its concurrency-weighted mean ahead), a (workers, GPUs per worker) cell "
	"among the next 8 of the model's shuffled joint table (HP: the largest that fits the deficit, else the smallest; Spot: the smallest), an "
	"organization from the organization-model mix; a job that fits the deficit less a short-job reserve runs until "
	"the model's committed series would pass the published concurrency or its max_job_days (a skyline fill; Spot "
	"keeps a shorter drawn length), other jobs end inside the next hour at the latest; HP durations aim at the "
	"duration buckets' job shares (a job of at most 1 % of the hour's published load aimed at 1 h - 3 d keeps that "
	"length where the series has room over every hour it touches; the aim counts both classes' jobs), Spot durations "
	"are log-linear through the class median and p90 up to 7 days and keep their length where the series plus 1 % "
	"(1.5 % in a big pool) has room; in a big pool (>= 10 jobs per hour) an HP job aimed past 3 days takes the "
	"smallest candidate cell and keeps a length log-uniform in 3 - 5 days where the series plus 1 % has room; an HP "
	"job without room aims at the sub-hour buckets or 1 - 6 h, ending by the end of the next hour"
	"; then a repair pass over "
	"the whole population moves the end of generated jobs, each inside its own duration bucket (the open last one up to "
	"max_job_days, else the longest duration quantile), real rows fixed: per model, 4 sweeps of coordinate descent (moves of at most 168 h) on "
	"the hourly squared error to the published series (half relative to the day's peak, half to the mean) plus penalties for leaving +-5 % of the day's published peak, "
	"for the GPU-seconds error and for moving the Spot jobs' short and long GPU-seconds; then single end moves that bring "
	"each day missing the +-10 % peak band inside it without taking a passing day out; then end seconds within their "
	"end hour (HP jobs) to the model's GPU-seconds";

/* The day weights of the class draw and, per model and hour, the published concurrency still
 * ahead, plain (c_ahead) and weighted by the days' weights (cf_ahead). */
static void spot_weights(const struct synth_profile *p, size_t nm, size_t nh, size_t nc, double **day_f_out,
	double **cf_ahead_out, double **c_ahead_out)
{
	long long spot_all = 0, jobs_all = 0;
	for (size_t d = 0; d < p->n_days; d++) {
		spot_all += p->daily[d][1];
		jobs_all += p->daily[d][0] + p->daily[d][1];
	}
	double spot_frac = jobs_all ? (double)spot_all / (double)jobs_all : 0;
	/* The class: a job is Spot with its model's share x the day's Spot weight, (the day's
	 * Spot fraction in daily_class_jobs / the whole trace's)^SPOT_DAY_POWER, over the mean
	 * weight of the model's jobs. That mean is estimated as the trace is drawn: the weights
	 * of the model's jobs drawn so far, plus its remaining jobs at the weight of its published
	 * concurrency still ahead (cf_ahead / c_ahead), so each model keeps its own Spot share
	 * though its jobs come mostly on some days (GPU-series-2's on the later, Spot-heavy ones). */
	double *day_f = *day_f_out = xcalloc(p->n_days ? p->n_days : 1, sizeof *day_f);
	for (size_t d = 0; d < p->n_days; d++) {
		long long nd = p->daily[d][0] + p->daily[d][1];
		double x = nd > 0 ? (double)p->daily[d][1] / (double)nd : spot_frac;
		day_f[d] = spot_frac > 0 ? pow(x / spot_frac, SPOT_DAY_POWER) : 0;
	}
	double *cf_ahead = *cf_ahead_out = xcalloc(nm * (nh + 1), sizeof *cf_ahead);
	double *c_ahead = *c_ahead_out = xcalloc(nm * (nh + 1), sizeof *c_ahead);
	for (size_t m = 0; m < nm; m++)
		for (size_t h = nh; h-- > 0;) {
			double cc = h < nc ? p->models[m].concurrency[h] : 0;
			cf_ahead[m * (nh + 1) + h] = cf_ahead[m * (nh + 1) + h + 1] + cc * day_f[h / 24];
			c_ahead[m * (nh + 1) + h] = c_ahead[m * (nh + 1) + h + 1] + cc;
		}
}

/* Each model's median job size in GPUs, from its cells. */
static void median_sizes(const struct synth_profile *p, size_t nm, double *median_gpus)
{
	for (size_t m = 0; m < nm; m++) {
		const struct synth_model *sm = &p->models[m];
		long long half = (sm->jobs + 1) / 2, seen = 0;
		median_gpus[m] = 1;
		/* cells are sorted by (workers, GPUs per worker), not by size: walk sizes ascending */
		for (;;) {
			double best = 1e300;
			for (size_t c = 0; c < sm->n_cells; c++) {
				double g = sm->cell_gpw[c] * (double)sm->cell_workers[c];
				if (g > (seen ? median_gpus[m] : 0) && g < best)
					best = g;
			}
			if (best == 1e300)
				break;
			for (size_t c = 0; c < sm->n_cells; c++)
				if (sm->cell_gpw[c] * (double)sm->cell_workers[c] == best)
					seen += sm->cell_jobs[c];
			median_gpus[m] = best;
			if (seen >= half)
				break;
		}
	}
}

/* The model of the next job: weights by each model's pace and the hour's deficit. */
static size_t pick_model(const struct synth_profile *p, size_t nm, size_t nh, double F, long long n_total, long long k,
	const double *conc_left, const double *conc_total, const double *budget, const double *deficit,
	const double *mean_gpus, double *weight, struct synth_rng *r_model)
{
	double wsum = 0, frac_left = (double)(n_total - k) / (double)n_total;
	for (size_t m = 0; m < nm; m++) {
		/* Pace: the model's remaining jobs against its share of the remaining
		 * hours' jobs; a model ahead of its pace is damped hard. */
		double lf = conc_total[m] > 0 ? conc_left[m] / conc_total[m] : frac_left;
		double expect = F * (double)p->models[m].jobs * (lf > 0 ? lf : frac_left);
		double pace = budget[m] > 0 && expect > 0 ? budget[m] / expect : 0;
		/* A big pool is not damped when its hour is met: it absorbs the jobs the
		 * small pools have no room for, one GPU in thousands. */
		double x = 1 + deficit[m] / mean_gpus[m];
		double floor_x = (double)p->models[m].jobs / (double)nh >= BIG_POOL ? BIG_NO_ROOM : NO_ROOM;
		weight[m] = (double)p->models[m].jobs * pace * pace * pace * (x > floor_x ? x : floor_x);
		wsum += weight[m];
	}
	if (!(wsum > 0))
		for (size_t m = 0; m < nm; m++)
			wsum += weight[m] = (double)p->models[m].jobs;
	double u = synth_rng_unit(r_model) * wsum;
	size_t m = 0;
	while (m + 1 < nm && u >= weight[m]) {
		u -= weight[m];
		m++;
	}
	return m;
}

/* A job's duration: an HP job's aimed bucket or a Spot job's drawn length where the series has
 * room, else up to the skyline end, else a short job. */
static double job_duration(const struct synth_profile *p, const struct synth_model *sm, size_t m, size_t h, size_t nc,
	double F, long long submit, double gpus, bool hp, bool big, size_t bi, long long n, long long i,
	const double *committed, const double *deficit, const double *reserve, const double *dur_share,
	const long long *dur_achieved, long long placed, double top, size_t short_last, struct synth_rng *r_dur,
	struct synth_rng *r_end)
{
	const struct synth_buckets *db = &p->dur_buckets;
	double dur, want;
	double res_now = reserve[m] * (double)(n - i) / (double)n;
	bool keep = false;
	if (hp) {
		want = bucket_duration(db, bi, bi + 1 == db->n ? LONG_DAYS * SYNTH_DAY : top, r_dur);
		/* A small job aimed at 1 h - 3 d keeps that length where the published
		 * series has room for it over every hour it touches; in a big pool, a job
		 * aimed past 3 days keeps its 3 to 5 days where the series plus 1 % has room. */
		if (bi > short_last && bi + 1 < db->n && gpus <= SMALL_JOB * F * sm->concurrency[h] &&
			room_ahead(&committed[m * nc], sm->concurrency, F, nc, h, submit, want, gpus, res_now, 0))
			keep = true;
		else if (big && bi + 1 == db->n &&
			room_ahead(&committed[m * nc], sm->concurrency, F, nc, h, submit, want, gpus, res_now, LONG_TOL))
			keep = true;
		else if (deficit[m] >= FIT * gpus)
			want = 1e300;   /* room: fill it (the skyline sets the length) */
	} else {
		want = spot_duration(p, r_dur);
		/* A Spot job past its hour keeps its drawn length where the series has room
		 * (the class's long jobs hold two thirds of its GPU-seconds). */
		if (want > (double)((long long)(h + 1) * SYNTH_HOUR - submit) &&
			room_ahead(&committed[m * nc], sm->concurrency, F, nc, h, submit, want, gpus, res_now, big ? BIG_SPOT_TOL : SPOT_TOL))
			keep = true;
	}
	if (keep)
		dur = want;
	else if (want > (double)((long long)(h + 1) * SYNTH_HOUR - submit) && deficit[m] - reserve[m] * (double)(n - i) / (double)n >= FIT * gpus) {
		/* A job past its hour needs room: it ends at the latest at the skyline end e,
		 * the first later hour it would lift the committed series past the published one. */
		size_t e = h + 1;
		size_t e_cap = sm->max_job_days > 0 ? h + (size_t)(sm->max_job_days * 24) : nc;
		while (e < nc && e < e_cap && committed[m * nc + e] + gpus <= F * sm->concurrency[e] - reserve[m] + (1 - FIT) * gpus)
			e++;
		long long lo = (long long)(e - 1) * SYNTH_HOUR - submit + 1, hi = (long long)e * SYNTH_HOUR - submit;
		if (lo < 1)
			lo = 1;
		dur = (double)(lo + (long long)synth_rng_below(r_end, (uint64_t)(hi - lo + 1)));
		if (!hp)
			dur = want < dur ? want : dur;
	} else if (want > (double)((long long)(h + 1) * SYNTH_HOUR - submit)) {
		/* No room: a short job instead, ending inside the next hour at the latest. An HP
		 * job aims at the bucket furthest behind among those it can reach: the buckets
		 * below one hour and the next one, which it enters by running from its lower
		 * edge to the end of the next hour (so a deficit of 1 - 6 h jobs is not pushed
		 * onto the short buckets). */
		double cap = (double)((long long)(h + 2) * SYNTH_HOUR - submit);
		if (hp) {
			size_t b = aim_bucket_upto(db, dur_share, dur_achieved, placed, short_last + 1);
			if (b > short_last && cap > db->edge[b])
				dur = db->edge[b] + floor(synth_rng_unit(r_dur) * (cap - db->edge[b]));
			else
				dur = bucket_duration(db, b > short_last ? short_last : b, top, r_dur);
		} else
			dur = want;
		dur = dur < cap ? dur : cap;
	} else
		dur = want;
	return dur;
}

/* Emits the population through the --days and --gpu-model filters. */
static void emit3(const struct synth_profile *p, const struct synth_options *o, const bool *model_on, struct trace *t,
	struct synth_stats *st, const struct synth_job3 *pop, size_t n_pop, char *const *model_name,
	char *const *org_name, size_t no)
{
	for (size_t i = 0; i < n_pop; i++) {
		const struct synth_job3 *pj = &pop[i];
		size_t m = (size_t)pj->model;
		long long dday = pj->submit / SYNTH_DAY;
		if (!model_on[m] || (o->has_days && (dday < o->day_first || dday > o->day_last)))
			continue;
		if (pj->real >= 0) {
			const struct synth_real *rj = &p->real[pj->real];
			size_t idn = strlen(rj->name) + 6;     /* whole: at most 1024 bytes (synth_check_real_names) */
			struct trace_job *j = trace_add_job(t);
			j->id = arena_alloc(&t->arena, idn);
			snprintf(j->id, idn, "real-%s", rj->name);
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
}

/* Organizations per model: cumulative weights org_jobs x mix share. */
static double *org_weights(const struct synth_profile *p, size_t nm, size_t no)
{
	double *org_cum = xcalloc(nm * (no ? no : 1), sizeof *org_cum);
	for (size_t m = 0; m < nm; m++) {
		double cum = 0;
		for (size_t k = 0; k < no; k++) {
			cum += (double)p->org_jobs[k] * p->org_mix[k * nm + m];
			org_cum[m * no + k] = cum;
		}
	}
	return org_cum;
}

/* Real rows per hour, committed before any job is drawn so the fills leave their room. */
static void commit_real(const struct synth_profile *p, size_t nc, double *committed, double *budget, long long *real_in_hour)
{
	for (size_t i = 0; i < p->n_real; i++) {
		const struct synth_real *rj = &p->real[i];
		size_t m = (size_t)rj->model;
		real_in_hour[rj->submit / SYNTH_HOUR]++;
		synth_add_hours(&committed[m * nc], nc, rj->submit / SYNTH_HOUR, synth_end_hour(rj->submit, (double)rj->duration),
			rj->gpw * (double)rj->workers);
		budget[m] -= 1;
	}
}

/* The real rows of hour h into the population. */
static void push_real_rows(const struct synth_profile *p, size_t h, size_t *next_real, struct synth_job3 **pop,
	size_t *n_pop, size_t *cap_pop)
{
	for (; *next_real < p->n_real && (size_t)(p->real[*next_real].submit / SYNTH_HOUR) == h; (*next_real)++) {
		const struct synth_real *rj = &p->real[*next_real];
		size_t m = (size_t)rj->model;
		double g = rj->gpw * (double)rj->workers;
		*pop = xgrow(*pop, cap_pop, *n_pop + 1, sizeof **pop);
		(*pop)[(*n_pop)++] = (struct synth_job3){ .submit = rj->submit, .duration = (double)rj->duration,
			.gpus = g > (double)p->models[m].capacity ? (double)p->models[m].capacity : g,
			.model = (int)m, .real = (long long)*next_real, .hp = rj->hp };
	}
}

/* Hour h's drawn jobs (returned), and per model the concurrency still ahead, the deficit and
 * the reserve. */
static long long hour_setup(const struct synth_profile *p, size_t nm, size_t nh, size_t nc, size_t h, double F,
	const long long *hours, const long long *real_in_hour, const double *committed, const double *median_gpus,
	double *conc_left, double *deficit, double *reserve)
{
	long long n = hours[h] - real_in_hour[h];
	if (h > 0)
		for (size_t m = 0; m < nm; m++)
			conc_left[m] -= p->models[m].concurrency[h - 1];
	for (size_t m = 0; m < nm; m++)
		deficit[m] = F * p->models[m].concurrency[h] - committed[m * nc + h];
	/* The room long jobs may take leaves a reserve for the short jobs still to come:
	 * the hour's expected jobs of the model at its median size. Hour 0 also holds the
	 * jobs already running at the trace's start (3,740 on the Alibaba profile against
	 * about 100 in an hour), which fill the series rather than arrive as short jobs:
	 * its reserve counts hour 1's jobs when those are fewer, or the small pools could
	 * not start a long job on day 0. */
	long long n_res = n;
	if (h == 0 && nh > 1 && hours[1] - real_in_hour[1] < n)
		n_res = hours[1] - real_in_hour[1];
	for (size_t m = 0; m < nm; m++)
		reserve[m] = RESERVE * (double)n_res * (double)p->models[m].jobs / (double)p->total_jobs * median_gpus[m];
	return n;
}

/* The class of a job of model m in hour h: HP or not. */
static bool draw_class(const struct synth_model *sm, size_t m, size_t nh, size_t h, const double *budget,
	const double *c_ahead, const double *cf_ahead, const double *day_f, double *f_done, double *n_done,
	struct synth_rng *r_class)
{
	size_t day = h / 24;
	double rem = budget[m] + 1 > 0 ? budget[m] + 1 : 0;   /* this job and the model's still to come */
	double ca = c_ahead[m * (nh + 1) + h], ahead = ca > 0 ? cf_ahead[m * (nh + 1) + h] / ca : 1;
	double mean_f = n_done[m] + rem > 0 ? (f_done[m] + rem * ahead) / (n_done[m] + rem) : 1;
	double ps = mean_f > 0 ? sm->spot_share * day_f[day] / mean_f : 0;
	f_done[m] += day_f[day];
	n_done[m] += 1;
	bool hp = !(synth_rng_unit(r_class) < (ps > 1 ? 1 : ps));
	return hp;
}

/* A job's organization from its model's weights (uniform without them). */
static size_t pick_org(const double *org_cum, size_t m, size_t no, struct synth_rng *r_org)
{
	size_t org = 0;
	if (no && org_cum[m * no + no - 1] > 0)
		org = synth_pick_cum(&org_cum[m * no], no, synth_rng_unit(r_org) * org_cum[m * no + no - 1]);
	else if (no)
		org = (size_t)synth_rng_below(r_org, no);
	return org;
}

/* The provenance's real_jobs object. */
static void real_source(struct trace *t, long long real_jobs)
{
	struct json *real = json_object(&t->arena);
	json_set(&t->arena, real, "id_prefix", json_str(&t->arena, "real-"));
	json_set(&t->arena, real, "jobs", json_int(&t->arena, real_jobs));
	json_set(&t->arena, real, "placed", json_str(&t->arena, "submit, duration, GPUs, class and organization as in the "
		"published job-row tables; the GPU model as the profile's builder inferred it"));
	json_set(&t->arena, t->source, "real_jobs", real);
}

int synth_generate3(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	size_t nm = p->n_models, nh = p->n_hours, nc = p->n_conc;
	bool *model_on = xcalloc(nm, sizeof *model_on);
	if (synth_check_options(p, o, model_on, err, errlen)) {
		free(model_on);
		return -1;
	}
	st->worker_hist = xcalloc(p->n_workers ? p->n_workers : 1, sizeof *st->worker_hist);
	st->model_capped = xcalloc(nm, sizeof *st->model_capped);
	long long *hours = xmalloc(nh * sizeof *hours);
	synth_scaled_hours(p, o->load_factor, hours);
	double F = o->load_factor;

	struct synth_rng r_submit, r_model, r_class, r_deck, r_dur, r_org, r_end;
	synth_rng_seed(&r_submit, o->seed, RNG3_SUBMIT);
	synth_rng_seed(&r_model, o->seed, RNG3_MODEL);
	synth_rng_seed(&r_class, o->seed, RNG3_CLASS);
	synth_rng_seed(&r_deck, o->seed, RNG3_DECK);
	synth_rng_seed(&r_dur, o->seed, RNG3_DURATION);
	synth_rng_seed(&r_org, o->seed, RNG3_ORG);
	synth_rng_seed(&r_end, o->seed, RNG3_END);

	/* Committed GPUs per model and hour, and the budgets. */
	double *committed = xcalloc(nm * nc, sizeof *committed);
	double *budget = xmalloc(nm * sizeof *budget), *mean_gpus = xmalloc(nm * sizeof *mean_gpus);
	struct cell_deck *decks = xcalloc(nm, sizeof *decks);
	for (size_t m = 0; m < nm; m++) {
		const struct synth_model *sm = &p->models[m];
		cdeck_init(&decks[m], sm, &r_deck);
		double g = 0;
		for (size_t k = 0; k < sm->n_cells; k++)
			g += sm->cell_gpw[k] * (double)sm->cell_workers[k] * (double)sm->cell_jobs[k];
		mean_gpus[m] = sm->jobs > 0 ? g / (double)sm->jobs : 1;
		budget[m] = F * (double)sm->jobs;
	}
	/* Organizations per model: cumulative weights org_jobs x mix share. */
	size_t no = p->n_orgs;
	double *org_cum = org_weights(p, nm, no);
	double *day_f, *cf_ahead, *c_ahead;
	spot_weights(p, nm, nh, nc, &day_f, &cf_ahead, &c_ahead);
	double *f_done = xcalloc(nm, sizeof *f_done), *n_done = xcalloc(nm, sizeof *n_done);

	/* Real rows per hour, committed before any job is drawn so the fills leave their room. */
	long long *real_in_hour = xcalloc(nh, sizeof *real_in_hour);
	commit_real(p, nc, committed, budget, real_in_hour);

	/* Nodes. */
	char **model_name = xmalloc(nm * sizeof *model_name);
	for (size_t i = 0; i < nm; i++)
		model_name[i] = trace_strdup(t, p->models[i].name);
	synth_add_nodes(p, o, model_on, t);
	char **org_name = xmalloc((no ? no : 1) * sizeof *org_name);
	for (size_t i = 0; i < no; i++)
		org_name[i] = trace_strdup(t, p->org_name[i]);

	double *deficit = xmalloc(nm * sizeof *deficit), *weight = xmalloc(nm * sizeof *weight);
	double *reserve = xmalloc(nm * sizeof *reserve), *median_gpus = xmalloc(nm * sizeof *median_gpus);
	median_sizes(p, nm, median_gpus);
	/* HP durations aim at the duration buckets' job shares; the shares count both classes,
	 * so the achieved counts do too (Spot durations follow their own class figures, and the
	 * HP aim makes up the difference). */
	const struct synth_buckets *db = &p->dur_buckets;
	double dur_share[SYNTH_MAX_BUCKETS], top = p->quant_v[p->n_quant - 1];
	long long dur_achieved[SYNTH_MAX_BUCKETS] = { 0 }, placed = 0, bucket_total = 0;
	for (size_t i = 0; i < db->n; i++)
		bucket_total += db->jobs[i];
	for (size_t i = 0; i < db->n; i++)
		dur_share[i] = bucket_total ? (double)db->jobs[i] / (double)bucket_total : 1.0 / (double)db->n;
	size_t short_last = last_short_bucket(db);
	long long k = 0, n_total = 1;
	for (size_t h = 0; h < nh; h++)
		n_total += hours[h] > real_in_hour[h] ? hours[h] - real_in_hour[h] : 0;
	size_t next_real = 0, n_pop = 0, cap_pop = 0;
	struct synth_job3 *pop = NULL;   /* every job, in emit order, filtered only at the emit */
	double *conc_left = xcalloc(nm, sizeof *conc_left), *conc_total = xcalloc(nm, sizeof *conc_total);
	for (size_t m = 0; m < nm; m++) {
		for (size_t x = 0; x < nh && x < nc; x++)
			conc_left[m] += p->models[m].concurrency[x];
		conc_total[m] = conc_left[m];
	}
	for (size_t h = 0; h < nh; h++) {
		/* The real rows of this hour first. */
		push_real_rows(p, h, &next_real, &pop, &n_pop, &cap_pop);
		long long n = hour_setup(p, nm, nh, nc, h, F, hours, real_in_hour, committed, median_gpus, conc_left, deficit,
			reserve);
		for (long long i = 0; i < n; i++, k++) {
			/* The model. */
			size_t m = pick_model(p, nm, nh, F, n_total, k, conc_left, conc_total, budget, deficit, mean_gpus, weight, &r_model);
			budget[m] -= 1;
			const struct synth_model *sm = &p->models[m];
			/* The class. */
			bool hp = draw_class(sm, m, nh, h, budget, c_ahead, cf_ahead, day_f, f_done, n_done, &r_class);
			/* The duration bucket an HP job aims at, and the cell: in a big pool, a job aimed
			 * at the open last bucket takes the smallest cell, so the long jobs are many and
			 * small (a big pool's hour has room for one GPU over days far more often than
			 * for a gang). */
			bool big = (double)sm->jobs / (double)nh >= BIG_POOL;
			size_t bi = hp ? aim_bucket(db, dur_share, dur_achieved, placed) : 0;
			double gpus;
			long long workers;
			cdeck_take(&decks[m], hp && deficit[m] > 0 && !(big && bi + 1 == db->n) ? deficit[m] : -1, &gpus, &workers);
			bool capped = gpus > (double)sm->capacity;
			if (capped)
				gpus = (double)sm->capacity;
			/* Submit and duration. */
			long long submit = (long long)h * SYNTH_HOUR + (long long)synth_rng_below(&r_submit, SYNTH_HOUR);
			double dur = job_duration(p, sm, m, h, nc, F, submit, gpus, hp, big, bi, n, i, committed, deficit, reserve,
				dur_share, dur_achieved, placed, top, short_last, &r_dur, &r_end);
			dur_achieved[bucket_of(db, dur)]++;
			placed++;
			synth_add_hours(&committed[m * nc], nc, (long long)h, synth_end_hour(submit, dur), gpus);
			deficit[m] -= gpus;
			/* The organization. */
			size_t org = pick_org(org_cum, m, no, &r_org);
			pop = xgrow(pop, &cap_pop, n_pop + 1, sizeof *pop);
			pop[n_pop++] = (struct synth_job3){ .submit = submit, .number = k + 1, .duration = dur, .gpus = gpus,
				.model = (int)m, .real = -1, .workers = workers, .org = org, .hp = hp, .capped = capped };
		}
	}
	/* The repair pass over the whole population, then the emit through the filters (so
	 * --days and --gpu-model cut the same trace). */
	synth_repair3(p, F, pop, n_pop);
	emit3(p, o, model_on, t, st, pop, n_pop, model_name, org_name, no);
	free(pop);
	st->generated_jobs = k + (long long)p->n_real;
	for (size_t m = 0; m < nm; m++) {
		free(decks[m].d.items);
		free(decks[m].gpus);
	}
	free(decks); free(committed); free(budget); free(mean_gpus); free(org_cum); free(real_in_hour);
	free(deficit); free(day_f); free(cf_ahead); free(c_ahead); free(f_done); free(n_done); free(weight); free(reserve); free(median_gpus); free(hours); free(model_name); free(org_name);
	free(conc_left); free(conc_total);

	int rc = synth_finish(p, o, model_on, t, st->capped_jobs, method3, err, errlen);
	free(model_on);
	if (rc)
		return rc;
	real_source(t, st->real_jobs);
	return 0;
}
