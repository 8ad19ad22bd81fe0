/* tenant-quantile-linear-v1: the normal equations, kept incrementally, and their
 * Cholesky solve. Registration columns: the 38 fixed ones, then every history pool (in
 * pool order), then every tenant in registration order; a fit solves over the fixed
 * columns, the pools that have series, and the tenants sorted by name. */
#include "core/xalloc.h"
#include "predict/tenant/estimator_internal.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Registration columns of the two step-dependent features. */
#define LAG_DAY_COLUMN 3
#define LAG_WEEK_COLUMN 4

/* The normal equations X'X and X'y of every step, kept as sums in row order. Of a row's
 * 11 entries only lag_day[k] and lag_week[k] (and y) depend on the step k, and every
 * step's row has the same 11 columns, so each cell of X'X whose two entries both do not
 * depend on k receives the same product, row after row, in every step: its sum is the
 * same double in every step and is kept once (common). Per step are kept only the
 * cells of the two lag rows (lag, the step's lag_day and lag_week rows, the cells of a
 * lower column read through symmetry) and X'y. */
struct ridge_acc {
	size_t cap;                        /* columns allocated */
	double *common;                    /* cap x cap, upper triangle, registration columns */
	double *lag[PT_EST_MAX_STEPS];     /* 2 x cap: cell (3, j) at [j], cell (4, j) at [cap + j] */
	double *xty[PT_EST_MAX_STEPS];
	size_t rows;                       /* active rows added */
	size_t windows_added;
};

/* pt_estimator.state */
struct linear {
	struct ridge_acc acc;
	size_t n_cols;                     /* solve columns: fixed + observed pools + tenants */
	size_t *solve_of_reg, reg_cap;     /* registration column -> solve column (SIZE_MAX: none) */
	double *beta[PT_EST_MAX_STEPS];       /* n_cols each */
};

static size_t linear_span_start(const struct pt_est_config *c)
{
	size_t L = (size_t)c->lookback_hours, w = (size_t)c->moving_average_window;
	size_t a = L >= 168 ? L - 168 : L - 24, b = L - (2 * w - 1);
	return a < b ? a : b;
}

static size_t reg_dim(const struct pt_history *h)
{
	return PT_EST_FIXED_COLUMNS + h->n_pools + h->n_tenants;
}

/* old (old_rows x old_cap, NULL when old_cap is 0) widened to rows x cap, zero-filled */
static double *grow(double *old, size_t old_rows, size_t old_cap, size_t rows, size_t cap)
{
	double *m = xcalloc(rows * cap, sizeof *m);
	for (size_t i = 0; i < old_rows && old_cap; i++)
		memcpy(m + i * cap, old + i * old_cap, old_cap * sizeof *m);
	free(old);
	return m;
}

static void acc_reserve(struct ridge_acc *a, int steps, size_t dim)
{
	if (dim <= a->cap)
		return;
	size_t cap = a->cap ? a->cap : 64;
	while (cap < dim)
		cap *= 2;
	a->common = grow(a->common, a->cap, a->cap, cap, cap);
	for (int k = 0; k < steps; k++) {
		a->lag[k] = grow(a->lag[k], 2, a->cap, 2, cap);
		a->xty[k] = grow(a->xty[k], 1, a->cap, 1, cap);
	}
	a->cap = cap;
}

/* Cell (i, j), i <= j, of step k's X'X. */
static double xtx_at(const struct ridge_acc *a, int k, size_t i, size_t j)
{
	if (i == LAG_DAY_COLUMN || i == LAG_WEEK_COLUMN)
		return a->lag[k][(i - LAG_DAY_COLUMN) * a->cap + j];
	if (j == LAG_DAY_COLUMN || j == LAG_WEEK_COLUMN)
		return a->lag[k][(j - LAG_DAY_COLUMN) * a->cap + i];
	return a->common[i * a->cap + j];
}

/* row[c] += v at the row's four one-hot columns */
static inline void add_one_hot(double *row, const size_t one_hot[4], double v)
{
	row[one_hot[0]] += v;
	row[one_hot[1]] += v;
	row[one_hot[2]] += v;
	row[one_hot[3]] += v;
}

/* One active row into the normal equations of every step. The row's entries, in column
 * order: last, max4, mean24 (columns 0-2), lag_day[k], lag_week[k] (3-4), slope (5),
 * workday (6), then four one-hot 1s at columns one_hot[] (hour, weekday, pool, tenant);
 * y = the target of step k. Each cell receives the product it always did (v[p] * v[q],
 * p before q), once per row; a product with a one-hot entry is the other entry itself
 * (v * 1 == v exactly), so it is added without the multiply. Written out: the loops over
 * 11 entries cost more than the additions. */
static void add_row(struct ridge_acc *a, int K, const struct pt_est_row *r, double workday, const size_t one_hot[4],
                    struct pt_hist_vals y)
{
	size_t cap = a->cap;
	double last = r->last, max4 = r->max4, mean24 = r->mean24, slope = r->slope;
	double *m = a->common;
	m[0] += last * last;
	m[1] += last * max4;
	m[2] += last * mean24;
	m[5] += last * slope;
	m[6] += last * workday;
	add_one_hot(m, one_hot, last);
	m += cap;
	m[1] += max4 * max4;
	m[2] += max4 * mean24;
	m[5] += max4 * slope;
	m[6] += max4 * workday;
	add_one_hot(m, one_hot, max4);
	m += cap;
	m[2] += mean24 * mean24;
	m[5] += mean24 * slope;
	m[6] += mean24 * workday;
	add_one_hot(m, one_hot, mean24);
	m += 3 * cap;
	m[5] += slope * slope;
	m[6] += slope * workday;
	add_one_hot(m, one_hot, slope);
	m += cap;
	m[6] += workday * workday;
	add_one_hot(m, one_hot, workday);
	for (int p = 0; p < 4; p++) {
		m = a->common + one_hot[p] * cap;
		for (int q = p; q < 4; q++)
			m[one_hot[q]] += 1;
	}
	for (int k = 0; k < K; k++) {
		double day = r->lag_day[k], week = r->lag_week[k], yk = pt_hv_at(y, (size_t)k);
		double *dm = a->lag[k], *wm = dm + cap, *b = a->xty[k];
		dm[0] += last * day;
		dm[1] += max4 * day;
		dm[2] += mean24 * day;
		dm[3] += day * day;
		dm[4] += day * week;
		dm[5] += day * slope;
		dm[6] += day * workday;
		add_one_hot(dm, one_hot, day);
		wm[0] += last * week;
		wm[1] += max4 * week;
		wm[2] += mean24 * week;
		wm[4] += week * week;
		wm[5] += week * slope;
		wm[6] += week * workday;
		add_one_hot(wm, one_hot, week);
		b[0] += last * yk;
		b[1] += max4 * yk;
		b[2] += mean24 * yk;
		b[3] += day * yk;
		b[4] += week * yk;
		b[5] += slope * yk;
		b[6] += workday * yk;
		add_one_hot(b, one_hot, yk);
	}
}

/* add train windows [acc.windows_added, n_train) to the normal equations */
static int accumulate(struct pt_estimator *e, const struct pt_history *h, size_t n_train, char *err, size_t errlen)
{
	const struct pt_est_config *c = &e->cfg;
	struct ridge_acc *a = &((struct linear *)e->state)->acc;
	int K = c->horizon_hours, L = c->lookback_hours;
	if (n_train < a->windows_added) {
		snprintf(err, errlen, "training windows went backwards (%zu after %zu)", n_train, a->windows_added);
		return -1;
	}
	acc_reserve(a, K, reg_dim(h));
	size_t span = linear_span_start(c);
	for (size_t w = a->windows_added; w < n_train; w++) {
		struct pt_hist_window win = pt_hist_window_at(h, w, L);
		struct pt_est_time t;
		if (pt_est_time_at(c, win.target_start, &t, err, errlen))
			return -1;
		for (size_t si = 0; si < h->n_series; si++) {
			size_t i = h->sorted[si];
			const struct pt_hist_series *s = &h->series[i];
			if (s->last_nonzero[win.offset_index] < (long long)(win.first_block + span))
				continue;  /* no demand anywhere in the feature span: inactive */
			struct pt_hist_vals x = pt_hv_from(pt_hist_hourly(h, i, win.offset_index), win.first_block);
			struct pt_hist_vals P = pt_hv_from(pt_hist_prefix(h, i, win.offset_index), win.first_block);
			struct pt_est_row r;
			pt_est_row_features(c, x, P, &r);
			if (!r.active)
				continue;
			size_t one_hot[4] = { 7 + (size_t)t.hour, 31 + (size_t)t.weekday, PT_EST_FIXED_COLUMNS + s->pool_index,
				              PT_EST_FIXED_COLUMNS + h->n_pools + s->tenant_index };
			add_row(a, K, &r, (double)t.workday, one_hot, pt_hv_from(x, (size_t)L));
			a->rows++;
		}
	}
	a->windows_added = n_train;
	return 0;
}

static int cmp_tenant(const void *x, const void *y, void *ctx)
{
	char **names = ctx;
	return strcmp(names[*(const size_t *)x], names[*(const size_t *)y]);
}

/* Insertion sort with a context (n is small: the tenants). */
static void sort_tenants(size_t *idx, size_t n, char **names)
{
	for (size_t i = 1; i < n; i++) {
		size_t v = idx[i], j = i;
		while (j && cmp_tenant(&idx[j - 1], &v, names) > 0) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

/* Cholesky of the n x n symmetric positive definite a (lower triangle written in place),
 * then a x = b. Every inner sum runs over increasing index. */
static int cholesky_solve(double *a, size_t n, double *b)
{
	for (size_t j = 0; j < n; j++) {
		double d = a[j * n + j];
		for (size_t m = 0; m < j; m++)
			d -= a[j * n + m] * a[j * n + m];
		if (!(d > 0))
			return -1;
		double l = sqrt(d);
		a[j * n + j] = l;
		for (size_t i = j + 1; i < n; i++) {
			double s = a[i * n + j];
			for (size_t m = 0; m < j; m++)
				s -= a[i * n + m] * a[j * n + m];
			a[i * n + j] = s / l;
		}
	}
	for (size_t i = 0; i < n; i++) {
		double s = b[i];
		for (size_t m = 0; m < i; m++)
			s -= a[i * n + m] * b[m];
		b[i] = s / a[i * n + i];
	}
	for (size_t i = n; i-- > 0;) {
		double s = b[i];
		for (size_t m = i + 1; m < n; m++)
			s -= a[m * n + i] * b[m];
		b[i] = s / a[i * n + i];
	}
	return 0;
}

/* build the solve columns from the history's series and solve every step */
static int solve(struct pt_estimator *est, const struct pt_history *h, char *err, size_t errlen)
{
	struct linear *e = est->state;
	struct ridge_acc *a = &e->acc;
	int K = est->cfg.horizon_hours;
	size_t rdim = reg_dim(h);
	acc_reserve(a, K, rdim);
	/* solve columns */
	size_t *reg_of_solve = xmalloc(rdim * sizeof *reg_of_solve), n = 0;
	for (size_t j = 0; j < PT_EST_FIXED_COLUMNS; j++)
		reg_of_solve[n++] = j;
	for (size_t p = 0; p < h->n_pools; p++)
		if (h->n_pool_series[p])
			reg_of_solve[n++] = PT_EST_FIXED_COLUMNS + p;
	size_t *tenants = xmalloc((h->n_tenants ? h->n_tenants : 1) * sizeof *tenants);
	for (size_t t = 0; t < h->n_tenants; t++)
		tenants[t] = t;
	sort_tenants(tenants, h->n_tenants, h->tenants);
	for (size_t t = 0; t < h->n_tenants; t++)
		reg_of_solve[n++] = PT_EST_FIXED_COLUMNS + h->n_pools + tenants[t];
	free(tenants);
	free(e->solve_of_reg);
	e->solve_of_reg = xmalloc(rdim * sizeof *e->solve_of_reg);
	e->reg_cap = rdim;
	for (size_t j = 0; j < rdim; j++)
		e->solve_of_reg[j] = SIZE_MAX;
	for (size_t j = 0; j < n; j++)
		e->solve_of_reg[reg_of_solve[j]] = j;
	e->n_cols = n;
	double *m = xmalloc(n * n * sizeof *m);
	for (int k = 0; k < K; k++) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j <= i; j++) {
				size_t ri = reg_of_solve[i], rj = reg_of_solve[j];
				double v = ri <= rj ? xtx_at(a, k, ri, rj) : xtx_at(a, k, rj, ri);
				m[i * n + j] = m[j * n + i] = v;
			}
		for (size_t j = 0; j < n; j++) {
			double d = m[j * n + j];
			m[j * n + j] = d + (PT_EST_RIDGE_RELATIVE * d + PT_EST_RIDGE_ABSOLUTE);
		}
		free(e->beta[k]);
		e->beta[k] = xmalloc(n * sizeof *e->beta[k]);
		for (size_t j = 0; j < n; j++)
			e->beta[k][j] = a->xty[k][reg_of_solve[j]];
		if (cholesky_solve(m, n, e->beta[k])) {
			snprintf(err, errlen, "ridge system of step %d is not positive definite", k + 1);
			free(m);
			free(reg_of_solve);
			return -1;
		}
	}
	free(m);
	free(reg_of_solve);
	return 0;
}

static double linear_mu(const struct pt_estimator *est, const struct pt_history *h, size_t series,
                        struct pt_est_window *w, int k)
{
	const struct linear *e = est->state;
	const struct pt_est_row *r = pt_est_window_row(&est->cfg, w);
	const struct pt_est_time *t = w->t;
	if (!r->active)
		return 0;
	const double *b = e->beta[k];
	const struct pt_hist_series *s = &h->series[series];
	size_t pc = PT_EST_FIXED_COLUMNS + s->pool_index, tc = PT_EST_FIXED_COLUMNS + h->n_pools + s->tenant_index;
	double v = r->last * b[0];
	v += r->max4 * b[1];
	v += r->mean24 * b[2];
	v += r->lag_day[k] * b[3];
	v += r->lag_week[k] * b[4];
	v += r->slope * b[5];
	v += (double)t->workday * b[6];
	v += b[7 + t->hour];
	v += b[31 + t->weekday];
	if (pc < e->reg_cap && e->solve_of_reg[pc] != SIZE_MAX)
		v += b[e->solve_of_reg[pc]];
	if (tc < e->reg_cap && e->solve_of_reg[tc] != SIZE_MAX)
		v += b[e->solve_of_reg[tc]];
	return v > 0 ? v : 0;
}

static int linear_fit(struct pt_estimator *e, const struct pt_history *h, size_t n_train, size_t *rows, char *err,
                      size_t errlen)
{
	if (accumulate(e, h, n_train, err, errlen) || solve(e, h, err, errlen))
		return -1;
	*rows = ((struct linear *)e->state)->acc.rows;
	return 0;
}

static void *linear_create(const struct pt_est_config *c)
{
	return xcalloc(1, sizeof(struct linear));
}

static void *linear_clone(const void *state)
{
	const struct linear *s = state;
	struct linear *d = xmalloc(sizeof *d);
	*d = *s;
	d->acc.common = pt_est_dup(s->acc.common, s->acc.cap * s->acc.cap * sizeof(double));
	for (int k = 0; k < PT_EST_MAX_STEPS; k++) {
		d->acc.lag[k] = pt_est_dup(s->acc.lag[k], 2 * s->acc.cap * sizeof(double));
		d->acc.xty[k] = pt_est_dup(s->acc.xty[k], s->acc.cap * sizeof(double));
		d->beta[k] = pt_est_dup(s->beta[k], s->n_cols * sizeof(double));
	}
	d->solve_of_reg = pt_est_dup(s->solve_of_reg, s->reg_cap * sizeof *s->solve_of_reg);
	return d;
}

static void linear_destroy(void *state)
{
	struct linear *e = state;
	free(e->acc.common);
	for (int k = 0; k < PT_EST_MAX_STEPS; k++) {
		free(e->acc.lag[k]);
		free(e->acc.xty[k]);
		free(e->beta[k]);
	}
	free(e->solve_of_reg);
	free(e);
}

static void linear_describe(struct arena *a, struct json *est)
{
	json_set(a, est, "ridge_relative", json_real(a, PT_EST_RIDGE_RELATIVE));
	json_set(a, est, "ridge_absolute", json_real(a, PT_EST_RIDGE_ABSOLUTE));
	json_set(a, est, "inactive_rows", json_str(a, "skipped by the fit, predict 0"));
}

static void linear_hash(const struct pt_estimator *est, struct fp_sha256 *sh)
{
	const struct linear *e = est->state;
	for (int k = 0; k < est->cfg.horizon_hours; k++)
		for (size_t j = 0; j < e->n_cols; j++)
			pt_est_hash_double(sh, e->beta[k][j]);
}

const double *pt_est_linear_coefficients(const struct pt_estimator *est, int k, size_t *n)
{
	const struct linear *e = est->state;
	*n = e->n_cols;
	return e->beta[k];
}

size_t pt_est_linear_windows_added(const struct pt_estimator *est)
{
	return ((const struct linear *)est->state)->acc.windows_added;
}

const struct pt_est_ops pt_est_linear_ops = {
	.id = PT_EST_LINEAR_ID,
	.span_start = linear_span_start,
	.mu = linear_mu,
	.create = linear_create,
	.clone = linear_clone,
	.destroy = linear_destroy,
	.fit = linear_fit,
	.describe = linear_describe,
	.hash = linear_hash,
};
