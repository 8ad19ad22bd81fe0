#include "predict/tenant_quota.h"
#include "core/die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static double clip(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

long long tq_pool_quota(double capacity, const double *quantiles, size_t n_quantiles, int horizon, double eta,
                        double idle, double running_spot, bool inventory_cap, double *free_out)
{
	*free_out = 0;
	if (horizon <= 0 || n_quantiles < (size_t)horizon)
		return 0;
	double free = 0;
	for (int k = 0; k < horizon; k++) {
		/* the original: max(0, min(C, floor(q + EPS))), then C minus that */
		double reserved = fmax(0.0, fmin(capacity, floor(quantiles[k] + EPS)));
		double f = capacity - reserved;
		if (k == 0 || f < free)
			free = f;
	}
	*free_out = free;
	double quota = free * eta;
	if (inventory_cap && idle + running_spot < quota)
		quota = idle + running_spot;
	return (long long)clip(floor(quota + EPS), 0.0, capacity);
}

const char *tq_reason_name(enum tq_reason r)
{
	switch (r) {
	case TQ_HIGH_EVICTION: return "high_eviction";
	case TQ_LOW_EVICTION_HIGH_QUEUE: return "low_eviction_high_queue";
	case TQ_NO_NEW_EVENTS: return "no_new_events";
	default: return "unchanged";
	}
}

double tq_eta_apply(const struct tq_eta_law *law, double eta, bool has_rate, double rate, double max_wait_seconds,
                    enum tq_reason *reason)
{
	double target = 1.0 - law->probability;
	*reason = TQ_UNCHANGED;
	if (has_rate && rate >= law->high_multiple * target) {
		eta *= target / rate;
		*reason = TQ_HIGH_EVICTION;
	} else if (has_rate && rate <= law->low_multiple * target && max_wait_seconds > law->queue_threshold_seconds) {
		eta *= 1.5 - rate / target;
		*reason = TQ_LOW_EVICTION_HIGH_QUEUE;
	}
	return fmax(law->minimum, fmin(law->maximum, eta));
}

void tq_feedback_add(struct tq_feedback *f, double time, bool failure, double weight)
{
	f->events = xgrow(f->events, &f->cap, f->n + 1, sizeof *f->events);
	f->events[f->n++] = (struct tq_event){ .time = time, .weight = weight, .failure = failure };
	f->version++;
	f->event_count++;
	if (failure)
		f->failure_weight += weight;
	else
		f->success_weight += weight;
}

bool tq_feedback_rate(struct tq_feedback *f, double now, double window_seconds, double *total, double *rate)
{
	double cutoff = now - window_seconds;
	size_t keep = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->events[i].time >= cutoff)
			f->events[keep++] = f->events[i];
	f->n = keep;
	double t = 0, failed = 0;
	for (size_t i = 0; i < f->n; i++)
		t += f->events[i].weight;
	for (size_t i = 0; i < f->n; i++)
		if (f->events[i].failure)
			failed += f->events[i].weight;
	*total = t;
	*rate = t > 0 ? failed / t : 0;
	return t > 0;
}

double tq_feedback_step(struct tq_feedback *f, const struct tq_eta_law *law, double now, double window_seconds,
                        double eta, double max_wait_seconds, double *total, bool *has_rate, double *rate,
                        enum tq_reason *reason)
{
	*has_rate = tq_feedback_rate(f, now, window_seconds, total, rate);
	if (law->event_triggered && f->version == f->evaluated) {
		*reason = TQ_NO_NEW_EVENTS;
		return eta;
	}
	f->evaluated = f->version;
	return tq_eta_apply(law, eta, *has_rate, *rate, max_wait_seconds, reason);
}

void tq_feedback_release(struct tq_feedback *f)
{
	free(f->events);
	memset(f, 0, sizeof *f);
}

int tq_feedback_clone(struct tq_feedback *d, const struct tq_feedback *s)
{
	*d = *s;
	d->events = NULL;
	d->cap = 0;
	if (s->n) {
		d->events = xmalloc(s->n * sizeof *d->events);
		memcpy(d->events, s->events, s->n * sizeof *d->events);
		d->cap = s->n;
	}
	return 0;
}
