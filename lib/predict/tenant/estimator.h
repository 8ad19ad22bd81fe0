/*
 * estimator — the deterministic tenant demand estimators that replace the original's
 * PyTorch network (docs/predictive-rules.md §2 "Forecast", docs/tenant-controller.md "The
 * estimators"). Same inputs
 * (the minute history of pt_history) and outputs (per-pool points with mu, sigma,
 * the guarantee quantile, raw, offset and method; a training summary; a fingerprint):
 *
 *   tenant-quantile-linear-v1  mu_{i,k} = max(0, beta_k . phi_{i,k}): ridge regression per
 *       horizon step k, pooled over every series, with pool and tenant intercepts; solved
 *       by Cholesky in double with a fixed summation order.
 *   seasonal-conformal-v1      mu_{i,k} = max(0, the same hour last week (a day when the
 *       lookback is under 192 h) + the level: (sum of the last 24 h - sum of the same 24 h
 *       one period earlier) / 24); no linear algebra.
 *
 * Features of window (series i, target start T0), from its hourly maxima x[0..L) (x[L-1]
 * the last full hour before T0, L = lookback_hours), for step k = 1..K:
 *   last hour x[L-1]; max of the last 4 h; mean of the last 24 h; x at target - 24 h
 *   (x[L-24+k-1]); x at target - 168 h (x[L-168+k-1]); the w-h moving-average slope
 *   (mean x[L-w..L-1] - mean x[L-2w+1..L-w]) / (w-1), w = moving_average_window; then
 *   workday (calendar at T0), hour one-hot (24), weekday one-hot (7), pool one-hot,
 *   tenant one-hot. Every mean is a difference of the history's prefix sums (added block
 *   by block as the history grew) divided by its count.
 * A row whose six demand features are all 0 is inactive: it is left out of the fit and
 * predicts mu = 0 (a series that showed no demand in the feature span carries no
 * signal for the intercepts; its later arrivals are what the conformal offset absorbs).
 * The ridge penalty is RIDGE_RELATIVE * diag(X'X) + RIDGE_ABSOLUTE (scale-free, and
 * positive for a category without rows, whose coefficient is then exactly 0).
 *
 * Spread and calibration (both), from the fit's validation windows only. For pool v
 * and step k, the actual Y is the hourly maximum of the pool's total over the target hour
 * (what the reservation must cover at every minute; at most the sum of the tenants'
 * maxima), r = Y - mu_v (mu_v = sum_i mu_{i,k}); sigma_{v,k} = the RMS of r
 * (left-to-right sum of squares over the windows, divided by n, square root); the raw
 * quantile is mu_v + z sigma. With calibration (the v2 configs,
 * quantile_calibration_method validation-residual-nearest-rank) the residuals of the raw
 * quantile, res = Y - (mu_v + z sigma), sorted ascending, give the nearest rank
 * r = clamp(ceil(p n) - 1, 0, n - 1) and offset = round6(res[r]) (split-conformal: the
 * pool total is covered at rate >= p on exchangeable windows, no independence needed);
 * without it the offset is 0. A point is mu, sigma, raw, offset and
 * q = max(0, raw + offset), each round6.
 *
 * Training windows are added to the normal equations once, in window order and, within
 * a window, in series id order; a refit only adds the windows that became train. The
 * sums are therefore those of a fit from scratch at the same time, whatever the refit
 * schedule, and everything is bit-reproducible (no threads, no RNG, -ffp-contract=off).
 *
 * The model fingerprint is SHA-256 of the sorted compact JSON of the metadata (model
 * id, controller fingerprint, series and their metadata, category maps, trained_at,
 * generation, calendar, estimator constants) followed by the little-endian IEEE-754
 * bytes of every coefficient (step by step, in column order), then sigma and offset of
 * every fitted (pool, step), pool by pool, step by step.
 *
 * Each estimator is one file (estimator_linear.c, estimator_seasonal.c) that fills a
 * struct pt_est_ops (estimator_internal.h) and one row of pt_est_registry (estimators.c);
 * estimator.c is the driver both share.
 *
 * Memory: an estimator owns its arrays; pt_est_release frees them, pt_est_clone deep-copies.
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_ESTIMATOR_H
#define SCHEDNAV_PREDICT_ESTIMATOR_H
#include "core/fp.h"
#include "predict/calendar.h"
#include "predict/tenant/tenant_history.h"
#include <stdbool.h>
#include <stddef.h>

#define PT_EST_LINEAR_ID "tenant-quantile-linear-v1"
#define PT_EST_SEASONAL_ID "seasonal-conformal-v1"
#define PT_EST_MAX_STEPS 24
#define PT_EST_RIDGE_RELATIVE 1e-4
#define PT_EST_RIDGE_ABSOLUTE 1e-6
#define PT_EST_FIXED_COLUMNS 38   /* 6 demand + workday + 24 hours + 7 weekdays */

struct pt_est_ops;                /* one estimator's operations (estimator_internal.h) */

struct pt_est_config {
	const struct pt_est_ops *kind; /* the estimator (pt_est_find) */
	int lookback_hours;        /* L, >= 48 (week-seasonal terms need >= 192) */
	int horizon_hours;         /* K, 1..PT_EST_MAX_STEPS */
	int validation_hours;
	int moving_average_window; /* odd, 2w - 1 <= L */
	double probability;        /* p of the guarantee quantile */
	bool calibrate;            /* conformal offset on the raw quantile (v2) */
	const struct pc_calendar *calendar;   /* borrowed */
	struct pc_cal_origin origin;
	char controller_fingerprint[FP_HEX_SHA256];
};

struct pt_est_calibration {
	size_t n, rank;            /* rank is 1-based: r + 1 (0 without calibration) */
	double sigma;              /* RMS of the validation residuals of mu */
	double offset, raw_coverage, calibrated_coverage;
};

struct pt_est_point {
	size_t pool;               /* pt_history pool index */
	int step;                  /* 1..K */
	double target;             /* now + 3600 step */
	double mu, sigma, quantile, raw, offset;   /* round6 */
};

struct pt_estimator {
	struct pt_est_config cfg;
	bool trained;
	double trained_at;
	long long generation;
	void *state;                       /* the estimator's own (linear: normal equations, coefficients) */
	/* the fit */
	size_t fit_series;                 /* series count at the fit */
	bool *pool_fitted;                 /* per history pool: has series */
	struct pt_est_calibration *cal;       /* n_pools x K */
	size_t n_cal_pools;
	size_t train_windows, validation_windows, history_samples, train_rows;
	char fingerprint[FP_HEX_SHA256];
};

/* Check the configuration and set up an untrained estimator. */
int pt_est_init(struct pt_estimator *e, const struct pt_est_config *cfg, char *err, size_t errlen);
void pt_est_release(struct pt_estimator *e);
int pt_est_clone(struct pt_estimator *dst, const struct pt_estimator *src);
/* The registered estimator named id ("tenant-quantile-linear-v1", "seasonal-conformal-v1"),
 * or NULL. */
const struct pt_est_ops *pt_est_find(const char *id);
const char *pt_est_id(const struct pt_est_ops *kind);
/* The registered ids for a message, quoted: "'a' or 'b'" ("'a', 'b' or 'c'"). */
void pt_est_id_list(char *buf, size_t len);

/* Fit at trained_at on the whole history (the split of pt_hist_split_at); generation += 1.
 * An empty train or validation set, or a date the calendar does not cover, is an error. */
int pt_est_fit(struct pt_estimator *e, const struct pt_history *h, double trained_at, char *err, size_t errlen);
/* Forecast at sample n = h->n_samples - 1 (now; n a multiple of the stride, n >= L * 60):
 * the window of T0 = now, whose last block ends at the sample before now. One point per
 * (pool with series, step), pools in order then steps; points holds n_pools * K. */
int pt_est_forecast(const struct pt_estimator *e, const struct pt_history *h, double now, struct pt_est_point *points,
                 size_t *n_points, char *err, size_t errlen);

/* Split-conformal nearest rank on residuals res[0..n) of the raw quantile (sorted in
 * place; sigma is left to the caller): rank
 * r = clamp(ceil(p n) - 1, 0, n - 1), offset = round6(res[r]), raw coverage =
 * frac(res <= 0), calibrated coverage = frac(res <= offset). n = 0 gives zeros. */
void pt_est_conformal(double *res, size_t n, double probability, struct pt_est_calibration *out);
#endif
