/* What the tenant estimators and their driver share (estimator_internal.h): the features of a
 * history row, the window's row, the calendar time of an instant, a double hashed into the
 * model fingerprint, a copy of a state array. It uses no other file of the folder. */
#include "core/fp.h"
#include "core/xalloc.h"
#include "predict/tenant/estimator_internal.h"
#include "predict/predict.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- features ---- */

/* mean of x[from..to) from the prefix sums */
static inline double mean_of(struct pt_hist_vals P, size_t from, size_t to)
{
	return (pt_hv_at(P, to) - pt_hv_at(P, from)) / (double)(to - from);
}

void pt_est_row_features(const struct pt_est_config *c, struct pt_hist_vals x, struct pt_hist_vals P,
                         struct pt_est_row *r)
{
	size_t L = (size_t)c->lookback_hours, w = (size_t)c->moving_average_window;
	int K = c->horizon_hours;
	r->last = pt_hv_at(x, L - 1);
	r->max4 = pt_hv_at(x, L - 4);
	for (size_t j = L - 3; j < L; j++)
		if (pt_hv_at(x, j) > r->max4)
			r->max4 = pt_hv_at(x, j);
	r->mean24 = mean_of(P, L - 24, L);
	r->slope = (mean_of(P, L - w, L) - mean_of(P, L - 2 * w + 1, L - w + 1)) / (double)(w - 1);
	bool any = r->last != 0 || r->max4 != 0 || r->mean24 != 0 || r->slope != 0;
	for (int k = 0; k < K; k++) {
		r->lag_day[k] = pt_hv_at(x, L - 24 + (size_t)k);
		r->lag_week[k] = L >= 168 ? pt_hv_at(x, L - 168 + (size_t)k) : r->lag_day[k];
		any = any || r->lag_day[k] != 0 || r->lag_week[k] != 0;
	}
	r->active = any;
}

const struct pt_est_row *pt_est_window_row(const struct pt_est_config *c, struct pt_est_window *w)
{
	if (!w->row_done) {
		pt_est_row_features(c, w->x, w->P, &w->row);
		w->row_done = true;
	}
	return &w->row;
}

int pt_est_time_at(const struct pt_est_config *c, double t, struct pt_est_time *out, char *err, size_t errlen)
{
	struct pc_cal_time ct;
	bool wd;
	if (pc_cal_civil(&c->origin, t, &ct)) {
		snprintf(err, errlen, "trace time %.17g is out of the calendar's range", t);
		return -1;
	}
	if (pc_cal_is_workday(c->calendar, &ct, &wd, err, errlen))
		return -1;
	out->workday = wd;
	out->weekday = ct.weekday;
	out->hour = ct.hour;
	return 0;
}

void pt_est_hash_double(struct fp_sha256 *sh, double v)
{
	uint64_t u;
	unsigned char b[8];
	memcpy(&u, &v, 8);
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(u >> (8 * i));
	fp_sha256_update(sh, b, 8);
}

void *pt_est_dup(const void *p, size_t n)
{
	if (!p)
		return NULL;
	void *q = xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return q;
}
