/* Draw a synthetic job population from a profile (docs/profiles.md, trace-synth(1)). */
#include "synth/synth.h"
#include "synth/profile_check.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Independent PRNG streams, so one attribute's draws never shift another's. */
enum { RNG_SUBMIT = 1, RNG_DURATION, RNG_CLASS, RNG_MODEL, RNG_WORKERS, RNG_ORG, RNG_GPW, RNG_STRATA, RNG_JOINT, RNG_COUPLE };

void synth_stats_release(struct synth_stats *st)
{
	free(st->worker_hist);
	free(st->model_capped);
	memset(st, 0, sizeof *st);
}

static double duration_at(const struct synth_profile *p, double u)
{
	size_t i = synth_pick_cum(p->quant_p + 1, p->n_quant - 1, u);   /* the knot segment holding u */
	double f = (u - p->quant_p[i]) / (p->quant_p[i + 1] - p->quant_p[i]);
	double v = floor(p->quant_v[i] + f * (p->quant_v[i + 1] - p->quant_v[i]) + 0.5);
	return v < 1 ? 1 : v;
}

static const char method[] =
	"hourly counts scaled by the load factor (differences of the rounded cumulative count); "
	"submit uniform over the whole seconds of its hour; HP/Spot split of each day exact and shuffled; "
	"GPU model, worker count and GPUs per worker drawn without replacement from the models' joint tables "
	"(profile /2; /1: independently), organization from its table; gpus = GPUs per worker times workers, "
	"capped at the model's capacity; durations by piecewise-linear inverse CDF of the quantile knots at "
	"stratified probabilities, rounded to whole seconds, then (profile /2) permuted over the jobs by a "
	"weighted random ranking fitted to the GPU-seconds of each model, class and organization";

/* ---- Duration coupling (profile /2) ----
 * The durations drawn above form a multiset that already follows the global quantiles; the
 * coupling only permutes it over the jobs. Job j gets the order key
 *     t_j = log E_j + gamma log gpus_j - theta[model] - phi[class] - psi[org]
 * with E_j a standard exponential of its own stream; jobs sorted by t ascending receive the
 * durations sorted descending (a weighted random ranking: larger weight exp(theta+phi+psi)
 * / gpus^GAMMA, longer duration). The parameters are fitted by damped multiplicative
 * updates so each group's sum of gpus x duration reaches its target (the profile's
 * GPU-seconds scaled by the group's generated/profile job ratio); gamma, the strength of
 * the "more GPUs, shorter job" tilt, is fitted the same way to the total of the targets
 * (the group parameters only move GPU-seconds between groups, gamma sets the total). */
#define COUPLE_ROUNDS 60
#define PARAM_BOUND 40.0

struct couple {
	size_t n;
	double *loge, *logg;   /* log E, log gpus */
	double gamma;
	double *gpus, *sorted_dur;  /* durations ascending */
	unsigned *model, *org;
	bool *hp;
	uint64_t *key;
	unsigned *idx, *tmp_idx;
	uint64_t *tmp_key;
};

/* Order-preserving map of a double to an unsigned 64-bit key. */
static uint64_t dkey(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return (u >> 63) ? ~u : u | 0x8000000000000000ULL;
}

/* Stable LSD radix sort of idx by key, 16 bits per pass. */
static void radix_sort(struct couple *c)
{
	static size_t cnt[65536];
	uint64_t *k = c->key, *k2 = c->tmp_key;
	unsigned *ix = c->idx, *ix2 = c->tmp_idx;
	for (int shift = 0; shift < 64; shift += 16) {
		memset(cnt, 0, sizeof cnt);
		for (size_t i = 0; i < c->n; i++)
			cnt[(k[i] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t b = 0; b < 65536; b++) {
			size_t x = cnt[b];
			cnt[b] = sum;
			sum += x;
		}
		for (size_t i = 0; i < c->n; i++) {
			size_t pos = cnt[(k[i] >> shift) & 0xffff]++;
			k2[pos] = k[i];
			ix2[pos] = ix[i];
		}
		uint64_t *tk = k; k = k2; k2 = tk;
		unsigned *ti = ix; ix = ix2; ix2 = ti;
	}
	/* Four passes: the sorted data is back in the original buffers. */
}

/* Rank jobs with the parameters and write each job's duration into dur. */
static void couple_assign(struct couple *c, const double *theta, const double *phi, const double *psi, double *dur)
{
	for (size_t i = 0; i < c->n; i++) {
		c->key[i] = dkey(c->loge[i] + c->gamma * c->logg[i] - theta[c->model[i]] - phi[c->hp[i] ? 0 : 1] - psi[c->org[i]]);
		c->idx[i] = (unsigned)i;
	}
	radix_sort(c);
	for (size_t r = 0; r < c->n; r++)
		dur[c->idx[r]] = c->sorted_dur[c->n - 1 - r];
}

static void update(double *param, const double *target, const double *got, size_t n, double step)
{
	for (size_t i = 0; i < n; i++) {
		if (!(target[i] > 0) || !(got[i] > 0))
			continue;
		param[i] += step * log(target[i] / got[i]);
		param[i] = param[i] > PARAM_BOUND ? PARAM_BOUND : param[i] < -PARAM_BOUND ? -PARAM_BOUND : param[i];
	}
}

/* Returns the number of rounds run (0: no targets, durations left as drawn). */
static int couple_durations(const struct synth_profile *p, size_t n, const unsigned *model, const unsigned *org,
	const bool *hp, const double *gpus, double *dur, uint64_t seed)
{
	size_t nm = p->n_models, no = p->n_orgs ? p->n_orgs : 1;
	double *tm = xcalloc(nm, sizeof *tm), *to = xcalloc(no, sizeof *to), tc[2] = { 0, 0 };
	long long *cm = xcalloc(nm, sizeof *cm), *co = xcalloc(no, sizeof *co), cc[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		cm[model[i]]++;
		co[org[i]]++;
		cc[hp[i] ? 0 : 1]++;
	}
	bool any = false;
	for (size_t m = 0; m < nm; m++)
		if (isfinite(p->models[m].gpu_seconds) && p->models[m].jobs > 0) {
			tm[m] = p->models[m].gpu_seconds * (double)cm[m] / (double)p->models[m].jobs;
			any = true;
		}
	for (size_t o = 0; o < p->n_orgs; o++)
		if (isfinite(p->org_gpu_seconds[o]) && p->org_jobs[o] > 0) {
			to[o] = p->org_gpu_seconds[o] * (double)co[o] / (double)p->org_jobs[o];
			any = true;
		}
	long long pc[2] = { 0, 0 };
	for (size_t d = 0; d < p->n_days; d++) {
		pc[0] += p->daily[d][0];
		pc[1] += p->daily[d][1];
	}
	for (int k = 0; k < 2; k++)
		if (isfinite(p->class_gpu_seconds[k]) && pc[k] > 0) {
			tc[k] = p->class_gpu_seconds[k] * (double)cc[k] / (double)pc[k];
			any = true;
		}
	int rounds = 0;
	if (any && n > 1) {
		struct couple c = { .n = n, .model = (unsigned *)model, .org = (unsigned *)org, .hp = (bool *)hp };
		c.loge = xmalloc(n * sizeof *c.loge);
		c.logg = xmalloc(n * sizeof *c.logg);
		c.gamma = 1.0;
		c.sorted_dur = xmalloc(n * sizeof *c.sorted_dur);
		c.key = xmalloc(n * sizeof *c.key);
		c.tmp_key = xmalloc(n * sizeof *c.tmp_key);
		c.idx = xmalloc(n * sizeof *c.idx);
		c.tmp_idx = xmalloc(n * sizeof *c.tmp_idx);
		struct synth_rng r;
		synth_rng_seed(&r, seed, RNG_COUPLE);
		for (size_t i = 0; i < n; i++) {
			double e = -log(1.0 - synth_rng_unit(&r));
			c.loge[i] = log(e > 1e-300 ? e : 1e-300);
			c.logg[i] = log(gpus[i]);
			c.sorted_dur[i] = dur[i];
		}
		/* Durations are whole seconds <= 1e12: sort them by the same radix. */
		for (size_t i = 0; i < n; i++) {
			c.key[i] = dkey(dur[i]);
			c.idx[i] = (unsigned)i;
		}
		radix_sort(&c);
		for (size_t i = 0; i < n; i++)
			c.sorted_dur[i] = dur[c.idx[i]];
		double *theta = xcalloc(nm, sizeof *theta), *psi = xcalloc(no, sizeof *psi), phi[2] = { 0, 0 };
		double *gm = xmalloc(nm * sizeof *gm), *go = xmalloc(no * sizeof *go), gc[2];
		for (rounds = 1; ; rounds++) {
			couple_assign(&c, theta, phi, psi, dur);
			if (rounds == COUPLE_ROUNDS)
				break;
			memset(gm, 0, nm * sizeof *gm);
			memset(go, 0, no * sizeof *go);
			gc[0] = gc[1] = 0;
			for (size_t i = 0; i < n; i++) {
				double x = gpus[i] * dur[i];
				gm[model[i]] += x;
				go[org[i]] += x;
				gc[hp[i] ? 0 : 1] += x;
			}
			/* Models first (the main objective), then classes and organizations. */
			double want = 0, have = 0;
			for (size_t m = 0; m < nm; m++)
				if (tm[m] > 0) {
					want += tm[m];
					have += gm[m];
				}
			if (want > 0 && have > 0) {
				c.gamma += 1.5 * log(have / want);
				c.gamma = c.gamma < 0 ? 0 : c.gamma > 20 ? 20 : c.gamma;
			}
			update(theta, tm, gm, nm, 1.0);
			update(phi, tc, gc, 2, 0.3);
			update(psi, to, go, no, 0.3);
		}
		free(theta); free(psi); free(gm); free(go);
		free(c.loge); free(c.logg); free(c.sorted_dur); free(c.key); free(c.tmp_key); free(c.idx); free(c.tmp_idx);
	}
	free(tm); free(to); free(cm); free(co);
	return rounds;
}

/* The day's classes: the first n_hp of n_day are HP, then shuffled (Fisher-Yates). */
static void day_classes(bool *hp, long long n_day, long long n_hp, struct synth_rng *r_class)
{
	for (long long i = 0; i < n_day; i++)
		hp[i] = i < n_hp;
	for (long long i = n_day; i > 1; i--) {
		size_t s = (size_t)synth_rng_below(r_class, (uint64_t)i);
		bool x = hp[i - 1];
		hp[i - 1] = hp[s];
		hp[s] = x;
	}
}

/* Adds the generated jobs the day and model filters keep, counting workers and capped jobs. */
static void add_kept_jobs(const struct synth_options *o, const bool *model_on, struct trace *t,
	struct synth_stats *st, long long k, const double *j_submit, const double *j_dur,
	const double *j_gpus, const unsigned *j_model, const unsigned *j_org, const size_t *j_worker,
	const bool *j_hp, const bool *j_capped, char *const *model_name, char *const *org_name)
{
	for (long long i = 0; i < k; i++) {
		long long dday = (long long)(j_submit[i] / SYNTH_DAY);
		bool day_on = !o->has_days || (dday >= o->day_first && dday <= o->day_last);
		if (!day_on || !model_on[j_model[i]])
			continue;
		synth_add_job(t, i + 1, j_submit[i], j_dur[i], j_gpus[i], j_hp[i], model_name[j_model[i]], org_name[j_org[i]]);
		st->worker_hist[j_worker[i]]++;
		if (j_capped[i]) {
			st->capped_jobs++;
			st->model_capped[j_model[i]]++;
		}
	}
}

int synth_generate(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen)
{
	if (p->version == 3)
		return synth_check_real_hours(p->path, p, o->load_factor, err, errlen) ? -1 : synth_generate3(p, o, t, st, err, errlen);
	if (p->version == 4)
		return synth_check_real_hours(p->path, p, o->load_factor, err, errlen) ? -1 : synth_generate4(p, o, t, st, err, errlen);
	memset(st, 0, sizeof *st);
	bool *model_on = xcalloc(p->n_models, sizeof *model_on);
	if (synth_check_options(p, o, model_on, err, errlen)) {
		free(model_on);
		return -1;
	}
	st->worker_hist = xcalloc(p->n_workers ? p->n_workers : 1, sizeof *st->worker_hist);
	st->model_capped = xcalloc(p->n_models, sizeof *st->model_capped);
	long long *hours = xmalloc(p->n_hours * sizeof *hours);
	synth_scaled_hours(p, o->load_factor, hours);

	/* /2 profiles: one joint deck of (model, workers, GPUs per worker) cells; /1: independent
	 * model and worker decks and a GPUs-per-worker draw. */
	bool joint = p->version == 2;
	size_t n_cells = 0;
	for (size_t i = 0; i < p->n_models && joint; i++)
		n_cells += p->models[i].n_cells;
	long long *cjobs = xmalloc((n_cells ? n_cells : 1) * sizeof *cjobs);
	unsigned *cmodel = xmalloc((n_cells ? n_cells : 1) * sizeof *cmodel);
	size_t *cworker = xmalloc((n_cells ? n_cells : 1) * sizeof *cworker);
	double *cgpus = xmalloc((n_cells ? n_cells : 1) * sizeof *cgpus);
	for (size_t i = 0, c = 0; i < p->n_models && joint; i++)
		for (size_t k = 0; k < p->models[i].n_cells; k++, c++) {
			cjobs[c] = p->models[i].cell_jobs[k];
			cmodel[c] = (unsigned)i;
			cgpus[c] = p->models[i].cell_gpw[k] * (double)p->models[i].cell_workers[k];
			cworker[c] = 0;
			while (p->worker_value[cworker[c]] != p->models[i].cell_workers[k])
				cworker[c]++;   /* the loader checked it is there */
		}
	struct synth_deck models = { 0 }, workers = { 0 }, orgs, cells = { 0 };
	long long *mjobs = xmalloc(p->n_models * sizeof *mjobs);
	for (size_t i = 0; i < p->n_models; i++)
		mjobs[i] = p->models[i].jobs;
	if (joint)
		synth_deck_init(&cells, cjobs, n_cells, 1, o->seed, RNG_JOINT);
	else {
		synth_deck_init(&models, mjobs, p->n_models, 1, o->seed, RNG_MODEL);
		synth_deck_init(&workers, p->worker_jobs, p->n_workers, 1, o->seed, RNG_WORKERS);
	}
	synth_deck_init(&orgs, p->org_jobs, p->n_orgs, 1, o->seed, RNG_ORG);
	free(mjobs);
	free(cjobs);
	/* Durations are stratified: job k takes probability (strata[k] + v) / N with strata a
	 * shuffled 0..N-1, so the generated quantiles follow the knots closely at any N. */
	long long n_all = 0;
	for (size_t h = 0; h < p->n_hours; h++)
		n_all += hours[h];
	struct synth_deck strata;
	strata.n = (size_t)n_all;
	strata.items = xmalloc((strata.n ? strata.n : 1) * sizeof *strata.items);
	for (size_t i = 0; i < strata.n; i++)
		strata.items[i] = (unsigned)i;
	synth_rng_seed(&strata.own, o->seed, RNG_STRATA);
	strata.rng = &strata.own;
	synth_deck_shuffle(&strata);
	struct synth_rng r_submit, r_duration, r_class, r_gpw;
	synth_rng_seed(&r_submit, o->seed, RNG_SUBMIT);
	synth_rng_seed(&r_duration, o->seed, RNG_DURATION);
	synth_rng_seed(&r_class, o->seed, RNG_CLASS);
	synth_rng_seed(&r_gpw, o->seed, RNG_GPW);

	/* Nodes and tenant names live in the trace arena; jobs point at them. */
	char **model_name = xmalloc(p->n_models * sizeof *model_name);
	char **org_name = xmalloc((p->n_orgs ? p->n_orgs : 1) * sizeof *org_name);
	for (size_t i = 0; i < p->n_models; i++)
		model_name[i] = trace_strdup(t, p->models[i].name);
	for (size_t i = 0; i < p->n_orgs; i++)
		org_name[i] = trace_strdup(t, p->org_name[i]);
	synth_add_nodes(p, o, model_on, t);

	/* Every job's attributes first, so the durations can be coupled over the whole
	 * population before the day and model filters keep a part of it. */
	size_t na = (size_t)n_all ? (size_t)n_all : 1;
	double *j_submit = xmalloc(na * sizeof *j_submit), *j_dur = xmalloc(na * sizeof *j_dur);
	double *j_gpus = xmalloc(na * sizeof *j_gpus);
	unsigned *j_model = xmalloc(na * sizeof *j_model), *j_org = xmalloc(na * sizeof *j_org);
	size_t *j_worker = xmalloc(na * sizeof *j_worker);
	bool *j_hp = xmalloc(na * sizeof *j_hp), *j_capped = xmalloc(na * sizeof *j_capped);
	bool *hp = NULL;
	size_t hp_cap = 0;
	long long k = 0;
	for (size_t d = 0; d < p->n_days; d++) {
		long long n_day = 0;
		for (size_t h = 24 * d; h < 24 * d + 24 && h < p->n_hours; h++)
			n_day += hours[h];
		/* The day's classes: exactly the scaled HP count, in a shuffled order. */
		hp = xgrow(hp, &hp_cap, (size_t)n_day + 1, sizeof *hp);
		day_classes(hp, n_day, synth_scaled_hp(p, d, n_day), &r_class);
		long long i_day = 0;
		for (size_t h = 24 * d; h < 24 * d + 24 && h < p->n_hours; h++)
			for (long long i = 0; i < hours[h]; i++, i_day++, k++) {
				j_submit[k] = (double)h * SYNTH_HOUR + (double)synth_rng_below(&r_submit, SYNTH_HOUR);
				j_dur[k] = duration_at(p, ((double)strata.items[k] + synth_rng_unit(&r_duration)) / (double)n_all);
				unsigned m, w;
				double gpus;
				if (joint) {
					unsigned c = synth_deck_draw(&cells);
					m = cmodel[c];
					w = (unsigned)cworker[c];
					gpus = cgpus[c];
				} else {
					m = synth_deck_draw(&models);
					w = synth_deck_draw(&workers);
					const struct synth_model *sm = &p->models[m];
					size_t gi = synth_pick_cum(sm->gpw_cum, sm->n_gpw, synth_rng_unit(&r_gpw));
					gpus = sm->gpw_value[gi] * (double)p->worker_value[w];
				}
				j_org[k] = synth_deck_draw(&orgs);
				j_capped[k] = gpus > (double)p->models[m].capacity;
				j_gpus[k] = j_capped[k] ? (double)p->models[m].capacity : gpus;
				j_model[k] = m;
				j_worker[k] = w;
				j_hp[k] = hp[i_day];
			}
	}
	st->coupling_rounds = couple_durations(p, (size_t)k, j_model, j_org, j_hp, j_gpus, j_dur, o->seed);
	st->coupled = st->coupling_rounds > 0;
	add_kept_jobs(o, model_on, t, st, k, j_submit, j_dur, j_gpus, j_model, j_org, j_worker, j_hp,
		j_capped, model_name, org_name);
	free(j_submit); free(j_dur); free(j_gpus); free(j_model); free(j_org); free(j_worker); free(j_hp); free(j_capped);
	free(cmodel); free(cworker); free(cgpus);
	free(cells.items);
	st->generated_jobs = k;
	free(hp);
	free(hours);
	free(models.items);
	free(workers.items);
	free(orgs.items);
	free(strata.items);
	free(model_name);
	free(org_name);

	int rc = synth_finish(p, o, model_on, t, st->capped_jobs, method, err, errlen);
	free(model_on);
	return rc;
}
