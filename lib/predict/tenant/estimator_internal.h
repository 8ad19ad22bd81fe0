/*
 * estimator_internal — what an estimator file implements and what the shared driver
 * (estimator.c) gives it: the table of operations of one estimator, the window a forecast
 * reads, the feature row of one (window, series) and the time categories of a window.
 * Not a public interface: the controller sees estimators only through estimator.h.
 *
 * A new estimator is one file defining a `const struct pt_est_ops` plus one row of
 * pt_est_registry (estimators.c). Its private state, if any, lives behind
 * pt_estimator.state (create, clone, destroy); everything else (the split, the
 * calibration, the points, the fingerprint's common part) is the driver's.
 */
#ifndef SCHEDNAV_PREDICT_ESTIMATOR_INTERNAL_H
#define SCHEDNAV_PREDICT_ESTIMATOR_INTERNAL_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "predict/tenant/estimator.h"

struct pt_est_time { int workday, weekday, hour; };

struct pt_est_row {
	bool active;                       /* any demand feature != 0 */
	double last, max4, mean24, slope;
	double lag_day[PT_EST_MAX_STEPS], lag_week[PT_EST_MAX_STEPS];
};

/* One (window, series) as mu sees it: hourly maxima x[0..L), prefix sums P
 * (P[j] - P[i] = x[i] + ... + x[j-1]), the window's time categories, and the feature row,
 * computed once per window on the first pt_est_window_row. */
struct pt_est_window {
	struct pt_hist_vals x, P;          /* read with pt_hv_at */
	const struct pt_est_time *t;
	struct pt_est_row row;
	bool row_done;
};

struct pt_est_ops {
	const char *id;                    /* the config's "model" */
	/* The earliest block (relative to the window start) any input of mu reads. */
	size_t (*span_start)(const struct pt_est_config *c);
	/* mu of series i at step k (0-based) of window w: >= 0 */
	double (*mu)(const struct pt_estimator *e, const struct pt_history *h, size_t series, struct pt_est_window *w,
	             int k);
	/* Optional (NULL: nothing): */
	void *(*create)(const struct pt_est_config *c);        /* the private state of an untrained estimator */
	void *(*clone)(const void *state);
	void (*destroy)(void *state);
	/* Fit on the train windows [0, n_train) before the driver calibrates; *rows = the
	 * rows the fit used. */
	int (*fit)(struct pt_estimator *e, const struct pt_history *h, size_t n_train, size_t *rows, char *err,
	           size_t errlen);
	/* Its constants into the fingerprint's "estimator" metadata object. */
	void (*describe)(struct arena *a, struct json *estimator);
	/* Its fitted coefficients into the fingerprint, after the metadata. */
	void (*hash)(const struct pt_estimator *e, struct fp_sha256 *sh);
};

/* The estimators a config may name, NULL-terminated (estimators.c, the only symbol of its
 * file: a test program may link its own table in its place). */
extern const struct pt_est_ops *const pt_est_registry[];

/* The feature row of w, computed on first use. */
const struct pt_est_row *pt_est_window_row(const struct pt_est_config *c, struct pt_est_window *w);
/* Demand features of the window whose hourly maxima start at x (x[0..L) read) and whose
 * prefix sums start at P (P[j] - P[i] = x[i] + ... + x[j-1], as the history added them). */
void pt_est_row_features(const struct pt_est_config *c, struct pt_hist_vals x, struct pt_hist_vals P,
                         struct pt_est_row *r);
/* Time categories at trace time t. */
int pt_est_time_at(const struct pt_est_config *c, double t, struct pt_est_time *out, char *err, size_t errlen);
/* Little-endian IEEE-754 bytes of v into the fingerprint. */
void pt_est_hash_double(struct fp_sha256 *sh, double v);
/* A copy of the n bytes at p (an estimator's clone), NULL for NULL. */
void *pt_est_dup(const void *p, size_t n);

/* linear, for the unit tests: the coefficients of step k (n = the solve columns), and the
 * train windows added to the normal equations so far. */
const double *pt_est_linear_coefficients(const struct pt_estimator *e, int k, size_t *n);
size_t pt_est_linear_windows_added(const struct pt_estimator *e);
#endif
