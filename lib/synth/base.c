/* The base of lib/synth: what the generators (generate.c, generate3.c, generate4.c), the
 * draws (draw.c) and the profile loaders (profile.c, profile4.c, profile_check.c) all use --
 * the option checks, the scaled hourly counts, the trace id and source, the model lookup,
 * the loaders' refusal.
 * It uses none of them, so lib/synth has no file circle (docs/design.md "No circles"). */
#include "synth/synth.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int synth_profile_vfail(const struct synth_profile *p, char *err, size_t errlen, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(err, errlen, "%s: %s", p->path, msg);
	return -1;
}

int synth_profile_model(const struct synth_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_models; i++)
		if (!strcmp(p->models[i].name, name))
			return (int)i;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int synth_trace_id(const struct synth_profile *p, const struct synth_options *o, const bool *model_on, struct trace *t, char *err, size_t errlen)
{
	struct strbuf id;               /* whole, never cut: ids that differ stay different */
	sb_init(&id);
	sb_addf(&id, "synth-%s-s%llu", p->name, (unsigned long long)o->seed);
	if (o->load_factor != 1.0)
		sb_addf(&id, "-f%g", o->load_factor);
	if (o->has_days)
		sb_addf(&id, "-d%lld-%lld", o->day_first, o->day_last);
	for (size_t i = 0; i < p->n_models && o->n_gpu_models; i++)
		if (model_on[i])
			sb_addf(&id, "-%s", p->models[i].name);
	int rc = 0;
	if (id.len > TEXT_ID_MAX) {
		snprintf(err, errlen, "%s: 'name': the trace id '%.60s...' would be %zu bytes, more than %d (a shorter profile name, or fewer --gpu-model)",
			 p->path, id.buf, id.len, TEXT_ID_MAX);
		rc = -1;
	} else
		t->trace_id = trace_strdup(t, id.buf);
	sb_release(&id);
	return rc;
}

void synth_set_source(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct trace *t, long long capped, const char *how)
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
	json_set(a, gen, "method", json_str(a, how));
	json_set(a, s, "generator", gen);
	json_set(a, s, "capacity_capped_jobs", json_int(a, capped));
	json_set(a, s, "attribution", p->attribution ? json_clone(a, p->attribution) : json_null(a));
}

int synth_check_options(const struct synth_profile *p, const struct synth_options *o, bool *model_on, char *err, size_t errlen)
{
	if (!isfinite(o->load_factor) || !(o->load_factor > 0)) {
		snprintf(err, errlen, "load factor must be a finite number > 0");
		return -1;
	}
	if (o->load_factor * (double)p->total_jobs > (double)SYNTH_MAX_JOBS) {
		snprintf(err, errlen, "load factor %g would make more than %lld jobs", o->load_factor, SYNTH_MAX_JOBS);
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

/* Sort keys: integers and doubles mapped to unsigned words in the same order. */
uint64_t synth_key_ll(long long v)
{
	return (uint64_t)v ^ (UINT64_C(1) << 63);
}

uint64_t synth_key_double(double x)   /* x not NaN; -0 and 0 the same key, as == has them */
{
	uint64_t u;
	if (x == 0)
		x = 0;
	memcpy(&u, &x, sizeof u);
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static bool key_less(const struct synth_key *a, const struct synth_key *b)
{
	for (int i = 0; i < 3; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i];
	return a->idx < b->idx;
}

/* Bottom-up merge sort by (k[0], k[1], k[2], idx), from runs of SORT_RUN put in order by
 * insertion: a total order, so the result is the one any correct sort (qsort with the
 * matching comparator) gives. */
#define SORT_RUN 16
void synth_sort_keys(struct synth_key *a, size_t n)
{
	for (size_t lo = 0; lo < n; lo += SORT_RUN) {
		size_t hi = lo + SORT_RUN < n ? lo + SORT_RUN : n;
		for (size_t i = lo + 1; i < hi; i++) {
			struct synth_key x = a[i];
			size_t j = i;
			for (; j > lo && key_less(&x, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
	}
	struct synth_key *t = xmalloc((n ? n : 1) * sizeof *t), *src = a, *dst = t;
	for (size_t w = SORT_RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				dst[o++] = key_less(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		struct synth_key *s = src;
		src = dst;
		dst = s;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	free(t);
}

/* idx[0 .. m) by (v[idx], idx) ascending; false, untouched, when a value is NaN. */
bool synth_sort_by_value(size_t *idx, size_t m, const double *v)
{
	struct synth_key *key = xmalloc((m ? m : 1) * sizeof *key);
	for (size_t i = 0; i < m; i++) {
		if (isnan(v[idx[i]])) {
			free(key);
			return false;
		}
		key[i] = (struct synth_key){ { synth_key_double(v[idx[i]]), 0, 0 }, idx[i] };
	}
	synth_sort_keys(key, m);
	for (size_t i = 0; i < m; i++)
		idx[i] = key[i].idx;
	free(key);
	return true;
}

/* Sort key[0 .. n) (taking it over: freed) and put the n elements of `size` bytes at a in that
 * order. */
static void sort_gather(struct synth_key *key, void *a, size_t n, size_t size)
{
	synth_sort_keys(key, n);
	char *t = xmalloc((n ? n : 1) * size);
	for (size_t i = 0; i < n; i++)
		memcpy(t + i * size, (const char *)a + key[i].idx * size, size);
	memcpy(a, t, n * size);
	free(t);
	free(key);
}

/* The jobs by (submit, model, GPUs, duration), ties in their order (as a stable merge sort
 * with that comparison leaves them); false, untouched, when a value does not fit the keys
 * (a submit outside [0, 2^40), a model outside [0, 2^23), a NaN). */
bool synth_sort_jobs_by_submit(struct synth_job3 *a, size_t n)
{
	struct synth_key *key = xmalloc((n ? n : 1) * sizeof *key);
	for (size_t i = 0; i < n; i++) {
		const struct synth_job3 *x = &a[i];
		if (x->submit < 0 || x->submit >= (1LL << 40) || x->model < 0 || x->model >= (1 << 23) || isnan(x->gpus) ||
			isnan(x->duration)) {
			free(key);
			return false;
		}
		key[i] = (struct synth_key){ { (uint64_t)x->submit << 23 | (uint64_t)x->model, synth_key_double(x->gpus),
			synth_key_double(x->duration) }, i };
	}
	sort_gather(key, a, n, sizeof *a);
	return true;
}

/* d[0 .. n) largest first, equal values (0 and -0 among them) in their order, as a stable
 * merge sort by > and < leaves them; false, untouched, when a value is NaN. */
bool synth_sort_doubles_desc(double *d, size_t n)
{
	struct synth_key *key = xmalloc((n ? n : 1) * sizeof *key);
	for (size_t i = 0; i < n; i++) {
		if (isnan(d[i])) {
			free(key);
			return false;
		}
		key[i] = (struct synth_key){ { ~synth_key_double(d[i]), 0, 0 }, i };
	}
	sort_gather(key, d, n, sizeof *d);
	return true;
}
