/*
 * The quota function (docs/predictive-rules.md §1 "Quota", §2 "Quota"), shared by the controller
 * inside sim-run and the `quota` tool. Aggregate form:
 *   Q_h = int(clip(floor(eta * min_{k<=h} max(0, C - q_k) + EPS), 0, C))
 * with q as published (round6), not floored first, and no inventory cap. The tenant form
 * floors q first (free = min_k (C - clip(floor(q_k + EPS), 0, C))), scales by eta, caps by
 * idle + running Spot, then floors and clips.
 */
#include "predict/predict.h"
#include <math.h>

static double clip(double x, double lo, double hi)
{
	double m = x < hi ? x : hi;   /* Python min(hi, x): x when smaller, else hi */
	return m > lo ? m : lo;
}

/* min over k < h of the free capacity the forecast leaves (h <= n) */
static double min_free(const struct pc_quota_input *in, long long h)
{
	double C = in->capacity, free = 0.0;
	for (long long k = 0; k < h; k++) {
		double f;
		if (in->floor_before_subtract)
			f = C - clip(floor(in->points[k].q + PC_EPS), 0.0, C);
		else {
			f = C - in->points[k].q;
			f = f > 0.0 ? f : 0.0;
		}
		if (k == 0 || f < free)
			free = f;
	}
	return free;
}

double pc_quota_free(const struct pc_quota_input *in, long long h)
{
	return h <= 0 || (size_t)h > in->n ? 0.0 : min_free(in, h);
}

long long pc_quota(const struct pc_quota_input *in, long long h)
{
	double C = in->capacity;
	if (h <= 0 || (size_t)h > in->n)
		return 0;
	double q = min_free(in, h) * in->eta;
	if (in->inventory_cap) {
		double inv = in->idle_gpus + in->running_spot_gpus;
		q = q < inv ? q : inv;
	}
	return (long long)clip(floor(q + PC_EPS), 0.0, C);
}
