#include "predict/tenant/tenant_history.h"
#include "core/xalloc.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pt_hist_init(struct pt_history *h, double first_time, double interval, int points_per_hour, int stride_points,
            const char *const *pools, size_t n_pools, char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	if (!(interval > 0) || points_per_hour <= 0 || stride_points <= 0 || points_per_hour % stride_points ||
	    points_per_hour / stride_points > PT_HIST_MAX_OFFSETS || !isfinite(first_time)) {
		snprintf(err, errlen, "demand history needs a positive interval and a stride dividing the hour");
		return -1;
	}
	if (!n_pools) {
		snprintf(err, errlen, "demand history needs at least one resource pool");
		return -1;
	}
	h->first_time = first_time;
	h->interval = interval;
	h->points_per_hour = points_per_hour;
	h->stride_points = stride_points;
	h->n_offsets = points_per_hour / stride_points;
	h->int_index = true;
	h->pools = xmalloc(n_pools * sizeof *h->pools);
	for (size_t i = 0; i < n_pools; i++)
		h->pools[i] = xstrdup(pools[i]);
	qsort(h->pools, n_pools, sizeof *h->pools, cmp_str);
	for (size_t i = 1; i < n_pools; i++)
		if (!strcmp(h->pools[i], h->pools[i - 1])) {
			snprintf(err, errlen, "resource pool '%s' is listed twice", h->pools[i]);
			h->n_pools = n_pools;
			pt_hist_release(h);
			return -1;
		}
	h->n_pools = n_pools;
	h->pool_series = xcalloc(n_pools, sizeof *h->pool_series);
	h->n_pool_series = xcalloc(n_pools, sizeof *h->n_pool_series);
	h->pool_total = xcalloc(n_pools, sizeof *h->pool_total);
	h->pool_dirty = xcalloc(n_pools, sizeof *h->pool_dirty);
	h->n_blocks = xcalloc((size_t)h->n_offsets, sizeof *h->n_blocks);
	h->pool_partial = xcalloc(n_pools * (size_t)h->n_offsets, sizeof *h->pool_partial);
	h->pool_hourly = xcalloc(n_pools * (size_t)h->n_offsets, sizeof *h->pool_hourly);
	return 0;
}

static void series_release(struct pt_hist_series *s, int n_offsets)
{
	free(s->id);
	free(s->pool);
	free(s->tenant);
	free(s->partial);
	free(s->last_nonzero);
	if (s->hourly)
		for (int o = 0; o < n_offsets; o++) {
			free(s->hourly[o]);
			free(s->prefix[o]);
			free(s->prefix_i[o]);
		}
	free(s->hourly);
	free(s->prefix);
	free(s->prefix_i);
}

void pt_hist_release(struct pt_history *h)
{
	for (size_t i = 0; i < h->n_series; i++)
		series_release(&h->series[i], h->n_offsets);
	free(h->series);
	free(h->sorted);
	for (size_t p = 0; p < h->n_pools; p++) {
		free(h->pools[p]);
		if (h->pool_series)
			free(h->pool_series[p]);
		if (h->pool_total)
			free(h->pool_total[p]);
	}
	if (h->pool_hourly)
		for (size_t k = 0; k < h->n_pools * (size_t)h->n_offsets; k++)
			free(h->pool_hourly[k]);
	free(h->pool_hourly);
	free(h->pool_partial);
	free(h->pools);
	free(h->pool_series);
	free(h->n_pool_series);
	free(h->pool_total);
	free(h->pool_dirty);
	for (size_t t = 0; t < h->n_tenants; t++)
		free(h->tenants[t]);
	free(h->tenants);
	free(h->n_blocks);
	free(h->dirty);
	memset(h, 0, sizeof *h);
}

static void *dup_mem(const void *p, size_t n)
{
	void *q = xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

int pt_hist_clone(struct pt_history *d, const struct pt_history *s, char *err, size_t errlen)
{
	*d = *s;
	d->pools = xmalloc(s->n_pools * sizeof *d->pools);
	d->pool_series = xmalloc(s->n_pools * sizeof *d->pool_series);
	d->pool_total = xmalloc(s->n_pools * sizeof *d->pool_total);
	for (size_t p = 0; p < s->n_pools; p++) {
		d->pools[p] = xstrdup(s->pools[p]);
		d->pool_series[p] = dup_mem(s->pool_series[p], s->n_pool_series[p] * sizeof **s->pool_series);
		d->pool_total[p] = s->pool_total[p] ? dup_mem(s->pool_total[p], s->cap_samples * sizeof **s->pool_total) : NULL;
	}
	d->n_pool_series = dup_mem(s->n_pool_series, s->n_pools * sizeof *s->n_pool_series);
	d->pool_dirty = dup_mem(s->pool_dirty, s->n_pools * sizeof *s->pool_dirty);
	d->n_blocks = dup_mem(s->n_blocks, (size_t)s->n_offsets * sizeof *s->n_blocks);
	size_t npo = s->n_pools * (size_t)s->n_offsets;
	d->pool_partial = dup_mem(s->pool_partial, npo * sizeof *s->pool_partial);
	d->pool_hourly = xcalloc(npo, sizeof *d->pool_hourly);
	for (size_t k = 0; k < npo; k++)
		d->pool_hourly[k] = s->pool_hourly[k] ? dup_mem(s->pool_hourly[k], s->cap_blocks * sizeof **s->pool_hourly) : NULL;
	d->sorted = dup_mem(s->sorted, s->n_series * sizeof *s->sorted);
	d->dirty = dup_mem(s->dirty, s->cap_dirty * sizeof *s->dirty);
	d->tenants = xmalloc((s->cap_tenants ? s->cap_tenants : 1) * sizeof *d->tenants);
	for (size_t t = 0; t < s->n_tenants; t++)
		d->tenants[t] = xstrdup(s->tenants[t]);
	d->series = xmalloc((s->cap_series ? s->cap_series : 1) * sizeof *d->series);
	for (size_t i = 0; i < s->n_series; i++) {
		const struct pt_hist_series *a = &s->series[i];
		struct pt_hist_series *b = &d->series[i];
		*b = *a;
		b->id = xstrdup(a->id);
		b->pool = xstrdup(a->pool);
		b->tenant = xstrdup(a->tenant);
		b->partial = dup_mem(a->partial, (size_t)s->n_offsets * sizeof *a->partial);
		b->last_nonzero = dup_mem(a->last_nonzero, (size_t)s->n_offsets * sizeof *a->last_nonzero);
		b->hourly = xcalloc((size_t)s->n_offsets, sizeof *b->hourly);
		b->prefix = xcalloc((size_t)s->n_offsets, sizeof *b->prefix);
		b->prefix_i = xcalloc((size_t)s->n_offsets, sizeof *b->prefix_i);
		for (int o = 0; o < s->n_offsets; o++)
			if (s->int_index)
				b->prefix_i[o] = dup_mem(a->prefix_i[o], (s->cap_blocks + 1) * sizeof *a->prefix_i[o]);
			else {
				b->hourly[o] = dup_mem(a->hourly[o], s->cap_blocks * sizeof *a->hourly[o]);
				b->prefix[o] = dup_mem(a->prefix[o], (s->cap_blocks + 1) * sizeof *a->prefix[o]);
			}
	}
	(void)err, (void)errlen;
	return 0;
}

int pt_hist_pool_index(const struct pt_history *h, const char *pool, size_t *index)
{
	size_t lo = 0, hi = h->n_pools;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->pools[mid], pool);
		if (!c) {
			*index = mid;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static char *series_id(const char *pool, const char *tenant)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_addc(&sb, '[');
	sb_add_jstr(&sb, pool, strlen(pool));
	sb_addc(&sb, ',');
	sb_add_jstr(&sb, tenant, strlen(tenant));
	sb_addc(&sb, ']');
	return sb.buf;
}

/* Position of id in the sorted index (lower bound). */
static size_t sorted_pos(const struct pt_history *h, const char *id, bool *found)
{
	size_t lo = 0, hi = h->n_series;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->series[h->sorted[mid]].id, id);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < h->n_series && !strcmp(h->series[h->sorted[lo]].id, id);
	return lo;
}

int pt_hist_find_series(const struct pt_history *h, const char *pool, const char *tenant, size_t *index)
{
	char *id = series_id(pool, tenant);
	bool found;
	size_t pos = sorted_pos(h, id, &found);
	free(id);
	if (!found)
		return -1;
	*index = h->sorted[pos];
	return 0;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int pt_hist_series_index(struct pt_history *h, const char *pool, const char *tenant, size_t *index, char *err,
                    size_t errlen)
{
	size_t p;
	if (pt_hist_pool_index(h, pool, &p)) {
		snprintf(err, errlen, "demand series references unknown resource pool '%s'", pool);
		return -1;
	}
	if (!*tenant || has_control(tenant)) {
		snprintf(err, errlen, "demand series of pool '%s' needs a tenant without control characters", pool);
		return -1;
	}
	char *id = series_id(pool, tenant);
	bool found;
	size_t pos = sorted_pos(h, id, &found);
	if (found) {
		free(id);
		*index = h->sorted[pos];
		return 0;
	}
	h->series = xgrow(h->series, &h->cap_series, h->n_series + 1, sizeof *h->series);
	size_t i = h->n_series;
	struct pt_hist_series *s = &h->series[i];
	memset(s, 0, sizeof *s);
	s->id = id;
	s->pool = xstrdup(pool);
	s->tenant = xstrdup(tenant);
	s->pool_index = p;
	s->registered_sample = h->n_samples;
	size_t t;
	for (t = 0; t < h->n_tenants && strcmp(h->tenants[t], tenant); t++)
		;
	if (t == h->n_tenants) {
		h->tenants = xgrow(h->tenants, &h->cap_tenants, h->n_tenants + 1, sizeof *h->tenants);
		h->tenants[h->n_tenants++] = xstrdup(tenant);
	}
	s->tenant_index = t;
	/* An absent series read 0: its past blocks are zeros and its open blocks' maxima 0. */
	s->partial = xcalloc((size_t)h->n_offsets, sizeof *s->partial);
	s->last_nonzero = xmalloc((size_t)h->n_offsets * sizeof *s->last_nonzero);
	s->hourly = xcalloc((size_t)h->n_offsets, sizeof *s->hourly);
	s->prefix = xcalloc((size_t)h->n_offsets, sizeof *s->prefix);
	s->prefix_i = xcalloc((size_t)h->n_offsets, sizeof *s->prefix_i);
	for (int o = 0; o < h->n_offsets; o++) {
		s->last_nonzero[o] = -1;
		if (h->int_index)
			s->prefix_i[o] = xcalloc(h->cap_blocks + 1, sizeof *s->prefix_i[o]);
		else {
			s->hourly[o] = xcalloc(h->cap_blocks ? h->cap_blocks : 1, sizeof *s->hourly[o]);
			s->prefix[o] = xcalloc(h->cap_blocks + 1, sizeof *s->prefix[o]);
		}
	}
	h->sorted = xrealloc(h->sorted, (h->n_series + 1) * sizeof *h->sorted);
	memmove(h->sorted + pos + 1, h->sorted + pos, (h->n_series - pos) * sizeof *h->sorted);
	h->sorted[pos] = i;
	h->n_series++;
	/* the pool's list, in id order */
	size_t *ps = h->pool_series[p] = xrealloc(h->pool_series[p], (h->n_pool_series[p] + 1) * sizeof *ps);
	size_t k = h->n_pool_series[p];
	while (k && strcmp(h->series[ps[k - 1]].id, id) > 0) {
		ps[k] = ps[k - 1];
		k--;
	}
	ps[k] = i;
	h->n_pool_series[p]++;
	*index = i;
	return 0;
}

void pt_hist_set(struct pt_history *h, size_t series, double value)
{
	struct pt_hist_series *s = &h->series[series];
	if (!(value > 0))
		value = 0;
	if (value != s->current) {
		s->current = value;
		if (!s->dirty) {
			s->dirty = true;
			h->pool_dirty[s->pool_index] = true;
			h->dirty = xgrow(h->dirty, &h->cap_dirty, h->n_dirty + 1, sizeof *h->dirty);
			h->dirty[h->n_dirty++] = series;
		}
	}
}

static void resize_blocks(struct pt_history *h, size_t cap)
{
	for (size_t k = 0; k < h->n_pools * (size_t)h->n_offsets; k++)
		h->pool_hourly[k] = xrealloc(h->pool_hourly[k], cap * sizeof *h->pool_hourly[k]);
	for (size_t i = 0; i < h->n_series; i++)
		for (int o = 0; o < h->n_offsets; o++) {
			struct pt_hist_series *s = &h->series[i];
			if (h->int_index)
				s->prefix_i[o] = xrealloc(s->prefix_i[o], (cap + 1) * sizeof *s->prefix_i[o]);
			else {
				s->hourly[o] = xrealloc(s->hourly[o], cap * sizeof *s->hourly[o]);
				s->prefix[o] = xrealloc(s->prefix[o], (cap + 1) * sizeof *s->prefix[o]);
			}
		}
	h->cap_blocks = cap;
}

/* Every series' blocks as double from now on: each count converts exactly, and each prefix
 * sum is the double the additions in double would have given (multiples of 2^-e below
 * 2^(31-e) add exactly in double). */
static void widen_index(struct pt_history *h)
{
	double unit = ldexp(1.0, -h->scale_exp);
	for (size_t i = 0; i < h->n_series; i++)
		for (int o = 0; o < h->n_offsets; o++) {
			struct pt_hist_series *s = &h->series[i];
			double *x = xmalloc((h->cap_blocks ? h->cap_blocks : 1) * sizeof *x);
			double *P = xmalloc((h->cap_blocks + 1) * sizeof *P);
			size_t nb = h->n_blocks[o];
			for (size_t j = 0; j < nb; j++)
				x[j] = (double)(s->prefix_i[o][j + 1] - s->prefix_i[o][j]) * unit;
			for (size_t j = 0; j <= nb; j++)
				P[j] = (double)s->prefix_i[o][j] * unit;
			free(s->prefix_i[o]);
			s->prefix_i[o] = NULL;
			s->hourly[o] = x;
			s->prefix[o] = P;
		}
	h->int_index = false;
}

#define MAX_SCALE_EXP 30

/* 2^e for 0 <= e <= MAX_SCALE_EXP. v * pow2(e) is ldexp(v, e) for every v: a product
 * with a power of two is exact unless it overflows, and then both give the same infinity
 * (e >= 0: no result is smaller than v). Cheaper than a libm call per value. */
static double pow2(int e)
{
	return (double)((uint32_t)1 << e);
}

/* Whether block b of offset o can join the int32 index, rescaling it to the scale the
 * block needs (and then doing so), else false with the index untouched. */
static bool int_index_take(struct pt_history *h, int o, size_t b)
{
	int e = h->scale_exp;
	for (size_t i = 0; i < h->n_series; i++) {
		double v = h->series[i].partial[o];  /* >= 0: pt_hist_set stores no negative value */
		while (e <= MAX_SCALE_EXP && v * pow2(e) != floor(v * pow2(e)))
			e++;
		if (e > MAX_SCALE_EXP)
			return false;
	}
	int d = e - h->scale_exp;
	for (size_t i = 0; i < h->n_series; i++) {
		const struct pt_hist_series *s = &h->series[i];
		double v = s->partial[o] * pow2(e);
		if (!(v <= (double)INT32_MAX) || ((int64_t)s->prefix_i[o][b] << d) + (int64_t)v > INT32_MAX)
			return false;
		/* prefix sums never fall (no block < 0): the last one bounds its array */
		if (d)
			for (int q = 0; q < h->n_offsets; q++)
				if (((int64_t)s->prefix_i[q][h->n_blocks[q]] << d) > INT32_MAX)
					return false;
	}
	if (d) {
		for (size_t i = 0; i < h->n_series; i++)
			for (int q = 0; q < h->n_offsets; q++) {
				struct pt_hist_series *s = &h->series[i];
				for (size_t j = 0; j <= h->n_blocks[q]; j++)
					s->prefix_i[q][j] = (int32_t)((int64_t)s->prefix_i[q][j] << d);
			}
		h->scale_exp = e;
	}
	return true;
}

static void grow_blocks(struct pt_history *h, size_t need)
{
	if (need <= h->cap_blocks)
		return;
	size_t cap = h->cap_blocks ? h->cap_blocks + h->cap_blocks / 2 : 256;
	resize_blocks(h, cap > need ? cap : need);
}

static void resize_samples(struct pt_history *h, size_t cap)
{
	for (size_t p = 0; p < h->n_pools; p++)
		h->pool_total[p] = xrealloc(h->pool_total[p], cap * sizeof *h->pool_total[p]);
	h->cap_samples = cap;
}

void pt_hist_reserve(struct pt_history *h, size_t blocks, size_t samples)
{
	if (blocks > h->cap_blocks)
		resize_blocks(h, blocks);
	if (samples > h->cap_samples)
		resize_samples(h, samples);
}

int pt_hist_sample(struct pt_history *h, double now, char *err, size_t errlen)
{
	size_t n = h->n_samples;
	double expected = pt_hist_sample_time(h, n);
	if (!(fabs(now - expected) <= 1e-6 * (1.0 + fabs(expected)))) {
		snprintf(err, errlen, "demand sample %zu at %.17g is off the %.17g-s grid (expected %.17g)", n, now, h->interval,
		         expected);
		return -1;
	}
	if (n + 1 > h->cap_samples)
		resize_samples(h, h->cap_samples ? h->cap_samples + h->cap_samples / 2 : 4096);
	for (size_t p = 0; p < h->n_pools; p++) {
		if (n && !h->pool_dirty[p]) {
			h->pool_total[p][n] = h->pool_total[p][n - 1];
			continue;
		}
		double total = 0;
		for (size_t k = 0; k < h->n_pool_series[p]; k++)
			total += h->series[h->pool_series[p][k]].current;
		h->pool_total[p][n] = total;
		h->pool_dirty[p] = false;
	}
	int pph = h->points_per_hour;
	for (int o = 0; o < h->n_offsets; o++) {
		size_t off = (size_t)o * (size_t)h->stride_points;
		if (n < off)
			continue;
		size_t pos = (n - off) % (size_t)pph;
		for (size_t p = 0; p < h->n_pools; p++) {
			double *pm = &h->pool_partial[p * (size_t)h->n_offsets + (size_t)o], v = h->pool_total[p][n];
			if (pos == 0 || v > *pm)
				*pm = v;
		}
		if (pos == 0) {
			for (size_t i = 0; i < h->n_series; i++)
				h->series[i].partial[o] = h->series[i].current;
		} else {
			for (size_t k = 0; k < h->n_dirty; k++) {
				struct pt_hist_series *s = &h->series[h->dirty[k]];
				if (s->current > s->partial[o])
					s->partial[o] = s->current;
			}
		}
		if (pos == (size_t)pph - 1) {
			size_t b = h->n_blocks[o];
			grow_blocks(h, b + 1);
			if (h->int_index && !int_index_take(h, o, b))
				widen_index(h);
			double scale = h->int_index ? pow2(h->scale_exp) : 1;
			for (size_t i = 0; i < h->n_series; i++) {
				struct pt_hist_series *s = &h->series[i];
				if (h->int_index) {
					s->prefix_i[o][b + 1] = s->prefix_i[o][b] + (int32_t)(s->partial[o] * scale);
				} else {
					s->hourly[o][b] = s->partial[o];
					s->prefix[o][b + 1] = s->prefix[o][b] + s->partial[o];
				}
				if (s->partial[o] > 0)
					s->last_nonzero[o] = (long long)b;
			}
			for (size_t p = 0; p < h->n_pools; p++)
				h->pool_hourly[p * (size_t)h->n_offsets + (size_t)o][b] = h->pool_partial[p * (size_t)h->n_offsets + (size_t)o];
			h->n_blocks[o] = b + 1;
		}
	}
	for (size_t k = 0; k < h->n_dirty; k++)
		h->series[h->dirty[k]].dirty = false;
	h->n_dirty = 0;
	h->n_samples = n + 1;
	h->last_time = now;
	return 0;
}

double pt_hist_sample_time(const struct pt_history *h, size_t n)
{
	return h->first_time + (double)n * h->interval;
}

double pt_hist_pool_total(const struct pt_history *h, size_t pool, size_t n)
{
	return h->pool_total[pool][n];
}

const double *pt_hist_pool_hourly(const struct pt_history *h, size_t pool, size_t offset_index)
{
	return h->pool_hourly[pool * (size_t)h->n_offsets + offset_index];
}

size_t pt_hist_window_count(const struct pt_history *h, int lookback_hours, int horizon_hours)
{
	size_t need = (size_t)(lookback_hours + horizon_hours) * (size_t)h->points_per_hour;
	if (h->n_samples < need)
		return 0;
	return (h->n_samples - need) / (size_t)h->stride_points + 1;
}

struct pt_hist_window pt_hist_window_at(const struct pt_history *h, size_t w, int lookback_hours)
{
	size_t s = w * (size_t)h->stride_points, pph = (size_t)h->points_per_hour;
	struct pt_hist_window x;
	x.offset_index = (s % pph) / (size_t)h->stride_points;
	x.first_block = s / pph;
	x.target_start = h->first_time + (double)(s + (size_t)lookback_hours * pph) * h->interval;
	return x;
}

struct pt_hist_vals pt_hist_hourly(const struct pt_history *h, size_t series, size_t offset_index)
{
	const struct pt_hist_series *s = &h->series[series];
	struct pt_hist_vals v = { .di = h->int_index ? s->prefix_i[offset_index] + 1 : NULL,
		                  .d = h->int_index ? NULL : s->hourly[offset_index],
		                  .unit = 1 / pow2(h->scale_exp) };
	return v;
}

struct pt_hist_vals pt_hist_prefix(const struct pt_history *h, size_t series, size_t offset_index)
{
	const struct pt_hist_series *s = &h->series[series];
	struct pt_hist_vals v = { .i = h->int_index ? s->prefix_i[offset_index] : NULL,
		                  .d = h->int_index ? NULL : s->prefix[offset_index],
		                  .unit = 1 / pow2(h->scale_exp) };
	return v;
}

void pt_hist_split_at(const struct pt_history *h, double trained_at, int lookback_hours, int horizon_hours,
                 int validation_hours, struct pt_hist_split *out)
{
	double boundary = trained_at - (double)validation_hours * 3600.0, span = (double)horizon_hours * 3600.0;
	size_t n = pt_hist_window_count(h, lookback_hours, horizon_hours);
	memset(out, 0, sizeof *out);
	out->n_windows = n;
	out->boundary = boundary;
	size_t w = 0;
	while (w < n && pt_hist_window_at(h, w, lookback_hours).target_start + span <= boundary + EPS)
		w++;
	out->n_train = w;
	while (w < n && pt_hist_window_at(h, w, lookback_hours).target_start < boundary - EPS)
		w++;  /* straddling the boundary: dropped */
	out->validation_first = w;
	while (w < n) {
		double t0 = pt_hist_window_at(h, w, lookback_hours).target_start;
		if (!(t0 >= boundary - EPS && t0 + span <= trained_at + EPS))
			break;
		w++;
	}
	out->validation_end = w;
}
