/* seasonal-conformal-v1: the same hour a week (else a day) earlier plus the level of the
 * last 24 h against the same hours one period earlier. No fit and no state: the driver's
 * calibration is all it learns. */
#include "predict/tenant/estimator_internal.h"

static size_t seasonal_span_start(const struct pt_est_config *c)
{
	size_t L = (size_t)c->lookback_hours;
	return L >= 192 ? L - 192 : L - 48;
}

static double seasonal_mu(const struct pt_estimator *e, const struct pt_history *h, size_t series,
                          struct pt_est_window *w, int k)
{
	struct pt_hist_vals x = w->x, P = w->P;
	size_t L = (size_t)e->cfg.lookback_hours, period = L >= 192 ? 168 : 24;
	double level = ((pt_hv_at(P, L) - pt_hv_at(P, L - 24)) - (pt_hv_at(P, L - period) - pt_hv_at(P, L - period - 24))) / 24;
	double v = pt_hv_at(x, L - period + (size_t)k) + level;
	return v > 0 ? v : 0;
}

const struct pt_est_ops pt_est_seasonal_ops = {
	.id = PT_EST_SEASONAL_ID,
	.span_start = seasonal_span_start,
	.mu = seasonal_mu,
};
