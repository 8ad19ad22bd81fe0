/*
 * estimator_internal — what estimator.c and estimator_linear.c share: the feature row of
 * one (window, series) and the time categories of a window. Not a public interface.
 */
#ifndef SCHEDNAV_PREDICT_ESTIMATOR_INTERNAL_H
#define SCHEDNAV_PREDICT_ESTIMATOR_INTERNAL_H
#include "predict/estimator.h"

struct est_time { int workday, weekday, hour; };

struct est_row {
	bool active;                       /* any demand feature != 0 */
	double last, max4, mean24, slope;
	double lag_day[EST_MAX_STEPS], lag_week[EST_MAX_STEPS];
};

/* Demand features of the window whose hourly maxima start at x (x[0..L) read) and whose
 * prefix sums start at P (P[j] - P[i] = x[i] + ... + x[j-1], as the history added them). */
void est_row_features(const struct est_config *c, const double *x, const double *P, struct est_row *r);
/* Time categories at trace time t. */
int est_time_at(const struct est_config *c, double t, struct est_time *out, char *err, size_t errlen);
/* The earliest block (relative to the window start) any demand feature reads. */
size_t est_span_start(const struct est_config *c);

/* linear: add train windows [acc.windows_added, n_train) to the normal equations */
int est_linear_accumulate(struct tenant_estimator *e, const struct tenant_history *h, size_t n_train, char *err,
                          size_t errlen);
/* linear: build the solve columns from the history's series and solve every step */
int est_linear_solve(struct tenant_estimator *e, const struct tenant_history *h, char *err, size_t errlen);
/* linear: mu of one active row at step k (0-based) for series i */
double est_linear_mu(const struct tenant_estimator *e, const struct tenant_history *h, size_t series,
                     const struct est_row *r, const struct est_time *t, int k);
#endif
