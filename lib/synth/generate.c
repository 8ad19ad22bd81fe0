/* Draw a synthetic job population from a profile (docs/profiles.md, trace-synth(1)). */
#include "synth/synth.h"
#include "core/die.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Independent PRNG streams, so one attribute's draws never shift another's. */
enum { RNG_SUBMIT = 1, RNG_DURATION, RNG_CLASS, RNG_MODEL, RNG_WORKERS, RNG_ORG, RNG_GPW, RNG_STRATA };

#define MAX_JOBS 50000000LL

/* A shuffled multiset of indices drawn without replacement, reshuffled when used up:
 * a full pass reproduces the table's counts exactly. */
struct deck {
	unsigned *items;
	size_t n, next;
	struct synth_rng rng;
};

static void deck_shuffle(struct deck *d)
{
	for (size_t i = d->n; i > 1; i--) {
		size_t k = (size_t)synth_rng_below(&d->rng, i);
		unsigned x = d->items[i - 1];
		d->items[i - 1] = d->items[k];
		d->items[k] = x;
	}
	d->next = 0;
}

static void deck_init(struct deck *d, const long long *counts, size_t ncounts, size_t stride, uint64_t seed, uint64_t stream)
{
	d->n = 0;
	for (size_t i = 0; i < ncounts; i++)
		d->n += (size_t)counts[i * stride];
	d->items = xmalloc(d->n * sizeof *d->items);
	size_t k = 0;
	for (size_t i = 0; i < ncounts; i++)
		for (long long c = 0; c < counts[i * stride]; c++)
			d->items[k++] = (unsigned)i;
	synth_rng_seed(&d->rng, seed, stream);
	deck_shuffle(d);
}

static unsigned deck_draw(struct deck *d)
{
	if (d->next == d->n)
		deck_shuffle(d);
	return d->items[d->next++];
}

void synth_scaled_hours(const struct synth_profile *p, double load_factor, long long *out)
{
	long long cum = 0, prev = 0;
	for (size_t h = 0; h < p->n_hours; h++) {
		cum += p->hourly[h];
		long long cur = (long long)floor(load_factor * (double)cum + 0.5);
		out[h] = cur - prev;
		prev = cur;
	}
}

long long synth_scaled_hp(const struct synth_profile *p, size_t day, long long n_scaled)
{
	long long hp = p->daily[day][0], all = p->daily[day][0] + p->daily[day][1];
	if (all == 0)
		return n_scaled;
	return (2 * n_scaled * hp + all) / (2 * all);
}

void synth_stats_release(struct synth_stats *st)
{
	free(st->worker_hist);
	free(st->model_capped);
	memset(st, 0, sizeof *st);
}

static double duration_at(const struct synth_profile *p, double u)
{
	size_t i = 0;
	while (i + 2 < p->n_quant && u >= p->quant_p[i + 1])
		i++;
	double f = (u - p->quant_p[i]) / (p->quant_p[i + 1] - p->quant_p[i]);
	double v = floor(p->quant_v[i] + f * (p->quant_v[i + 1] - p->quant_v[i]) + 0.5);
	return v < 1 ? 1 : v;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char method[] =
	"hourly counts scaled by the load factor (differences of the rounded cumulative count); "
	"submit uniform over the whole seconds of its hour; HP/Spot split of each day exact and shuffled; "
	"GPU model, worker count and organization drawn independently without replacement from their "
	"tables; gpus = GPUs per worker (the model's table) times workers, capped at the model's capacity; "
	"duration by piecewise-linear inverse CDF of the quantile knots at stratified probabilities, rounded to whole seconds";

static void set_source(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct trace *t, long long capped)
{
	struct arena *a = &t->arena;
	struct json *s = t->source, *prof = json_object(a), *gen = json_object(a);
	json_set(a, s, "dataset", json_str(a, "synthetic"));
	json_set(a, s, "synthetic", json_bool(a, true));
	json_set(a, prof, "name", json_str(a, p->name));
	json_set(a, prof, "bytes", json_int(a, (long long)p->bytes));
	json_set(a, prof, "xxh3", json_str(a, p->xxh3));
	json_set(a, s, "profile", prof);
	json_set(a, s, "seed", json_int(a, (long long)o->seed));
	json_set(a, s, "load_factor", json_real(a, o->load_factor));
	if (o->has_days) {
		struct json *d = json_array(a);
		json_push(a, d, json_int(a, o->day_first));
		json_push(a, d, json_int(a, o->day_last));
		json_set(a, s, "days", d);
	} else
		json_set(a, s, "days", json_null(a));
	if (o->n_gpu_models) {
		const char **names = xmalloc(p->n_models * sizeof *names);
		size_t n = 0;
		for (size_t i = 0; i < p->n_models; i++)
			if (model_on[i])
				names[n++] = p->models[i].name;
		qsort(names, n, sizeof *names, cmp_str);
		struct json *m = json_array(a);
		for (size_t i = 0; i < n; i++)
			json_push(a, m, json_str(a, names[i]));
		free(names);
		json_set(a, s, "gpu_models", m);
	} else
		json_set(a, s, "gpu_models", json_null(a));
	json_set(a, gen, "name", json_str(a, "trace-synth"));
	json_set(a, gen, "version", json_str(a, SCHEDNAV_VERSION));
	json_set(a, gen, "prng", json_str(a, "xoshiro256** seeded by splitmix64, one stream per attribute"));
	json_set(a, gen, "method", json_str(a, method));
	json_set(a, s, "generator", gen);
	json_set(a, s, "capacity_capped_jobs", json_int(a, capped));
	json_set(a, s, "attribution", p->attribution ? json_clone(a, p->attribution) : json_null(a));
}

static int check_options(const struct synth_profile *p, const struct synth_options *o, bool *model_on, char *err, size_t errlen)
{
	if (!isfinite(o->load_factor) || !(o->load_factor > 0)) {
		snprintf(err, errlen, "load factor must be a finite number > 0");
		return -1;
	}
	if (o->load_factor * (double)p->total_jobs > (double)MAX_JOBS) {
		snprintf(err, errlen, "load factor %g would make more than %lld jobs", o->load_factor, MAX_JOBS);
		return -1;
	}
	if (o->has_days && (o->day_first < 0 || o->day_first > o->day_last || o->day_last >= (long long)p->n_days)) {
		snprintf(err, errlen, "day range %lld-%lld outside the profile's days 0-%zu", o->day_first, o->day_last, p->n_days - 1);
		return -1;
	}
	for (size_t i = 0; i < p->n_models; i++)
		model_on[i] = o->n_gpu_models == 0;
	for (size_t i = 0; i < o->n_gpu_models; i++) {
		int m = synth_profile_model(p, o->gpu_models[i]);
		if (m < 0) {
			snprintf(err, errlen, "profile '%s' has no GPU model '%s'", p->name, o->gpu_models[i]);
			return -1;
		}
		model_on[m] = true;
	}
	return 0;
}

int synth_generate(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	bool *model_on = xcalloc(p->n_models, sizeof *model_on);
	if (check_options(p, o, model_on, err, errlen)) {
		free(model_on);
		return -1;
	}
	st->worker_hist = xcalloc(p->n_workers ? p->n_workers : 1, sizeof *st->worker_hist);
	st->model_capped = xcalloc(p->n_models, sizeof *st->model_capped);
	long long *hours = xmalloc(p->n_hours * sizeof *hours);
	synth_scaled_hours(p, o->load_factor, hours);

	struct deck models, workers, orgs;
	long long *mjobs = xmalloc(p->n_models * sizeof *mjobs);
	for (size_t i = 0; i < p->n_models; i++)
		mjobs[i] = p->models[i].jobs;
	deck_init(&models, mjobs, p->n_models, 1, o->seed, RNG_MODEL);
	deck_init(&workers, p->worker_jobs, p->n_workers, 1, o->seed, RNG_WORKERS);
	deck_init(&orgs, p->org_jobs, p->n_orgs, 1, o->seed, RNG_ORG);
	free(mjobs);
	/* Durations are stratified: job k takes probability (strata[k] + v) / N with strata a
	 * shuffled 0..N-1, so the generated quantiles follow the knots closely at any N. */
	long long n_all = 0;
	for (size_t h = 0; h < p->n_hours; h++)
		n_all += hours[h];
	struct deck strata;
	strata.n = (size_t)n_all;
	strata.items = xmalloc((strata.n ? strata.n : 1) * sizeof *strata.items);
	for (size_t i = 0; i < strata.n; i++)
		strata.items[i] = (unsigned)i;
	synth_rng_seed(&strata.rng, o->seed, RNG_STRATA);
	deck_shuffle(&strata);
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
	for (size_t i = 0; i < p->n_nodes; i++) {
		int m = synth_profile_model(p, p->nodes[i].model);
		if (m >= 0 ? !model_on[m] : o->n_gpu_models > 0)
			continue;
		struct trace_node *n = trace_add_node(t);
		n->id = trace_strdup(t, p->nodes[i].id);
		n->model = trace_strdup(t, p->nodes[i].model);
		n->gpu_count = p->nodes[i].gpus;
	}

	bool *hp = NULL;
	size_t hp_cap = 0;
	long long k = 0;
	for (size_t d = 0; d < p->n_days; d++) {
		long long n_day = 0;
		for (size_t h = 24 * d; h < 24 * d + 24 && h < p->n_hours; h++)
			n_day += hours[h];
		/* The day's classes: exactly the scaled HP count, in a shuffled order. */
		hp = xgrow(hp, &hp_cap, (size_t)n_day + 1, sizeof *hp);
		long long n_hp = synth_scaled_hp(p, d, n_day);
		for (long long i = 0; i < n_day; i++)
			hp[i] = i < n_hp;
		for (long long i = n_day; i > 1; i--) {
			size_t s = (size_t)synth_rng_below(&r_class, (uint64_t)i);
			bool x = hp[i - 1];
			hp[i - 1] = hp[s];
			hp[s] = x;
		}
		bool day_on = !o->has_days || ((long long)d >= o->day_first && (long long)d <= o->day_last);
		long long i_day = 0;
		for (size_t h = 24 * d; h < 24 * d + 24 && h < p->n_hours; h++)
			for (long long i = 0; i < hours[h]; i++, i_day++, k++) {
				double submit = (double)h * SYNTH_HOUR + (double)synth_rng_below(&r_submit, SYNTH_HOUR);
				double duration = duration_at(p, ((double)strata.items[k] + synth_rng_unit(&r_duration)) / (double)n_all);
				unsigned m = deck_draw(&models), w = deck_draw(&workers), g = deck_draw(&orgs);
				const struct synth_model *sm = &p->models[m];
				double u = synth_rng_unit(&r_gpw);
				size_t gi = 0;
				while (gi + 1 < sm->n_gpw && u >= sm->gpw_cum[gi])
					gi++;
				double gpus = sm->gpw_value[gi] * (double)p->worker_value[w];
				bool capped = gpus > (double)sm->capacity;
				if (capped)
					gpus = (double)sm->capacity;
				if (!day_on || !model_on[m])
					continue;
				char id[32];
				snprintf(id, sizeof id, "j%07lld", k + 1);
				struct trace_job *j = trace_add_job(t);
				j->id = trace_strdup(t, id);
				j->submit = submit;
				j->duration = duration;
				j->gpus = gpus;
				j->hp = hp[i_day];
				j->model = model_name[m];
				j->tenant = org_name[g];
				st->worker_hist[w]++;
				if (capped) {
					st->capped_jobs++;
					st->model_capped[m]++;
				}
			}
	}
	st->generated_jobs = k;
	free(hp);
	free(hours);
	free(models.items);
	free(workers.items);
	free(orgs.items);
	free(strata.items);
	free(model_name);
	free(org_name);

	t->version = 2;
	char id[512];
	int n = snprintf(id, sizeof id, "synth-%s-s%llu", p->name, (unsigned long long)o->seed);
	if (o->load_factor != 1.0)
		n += snprintf(id + n, sizeof id - (size_t)n, "-f%g", o->load_factor);
	if (o->has_days)
		n += snprintf(id + n, sizeof id - (size_t)n, "-d%lld-%lld", o->day_first, o->day_last);
	for (size_t i = 0; i < p->n_models && o->n_gpu_models; i++)
		if (model_on[i] && (size_t)n < sizeof id)
			n += snprintf(id + n, sizeof id - (size_t)n, "-%s", p->models[i].name);
	t->trace_id = trace_strdup(t, id);
	t->time_origin = trace_strdup(t, p->time_origin);
	set_source(p, o, model_on, t, st->capped_jobs);
	free(model_on);
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "the day range and GPU-model filters keep no jobs");
		return -1;
	}
	trace_sort(t);
	return 0;
}
