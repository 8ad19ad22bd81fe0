/*
 * tenant_quota — the tenant controller's per-pool arithmetic (predictive.md §2 "Quota",
 * "η law", "Feedback events"): pure functions of their arguments, no state but the
 * caller's, nothing printed, nothing allocated except by tq_feedback_*.
 *
 * Quota of pool v at guarantee horizon h from its guarantee quantiles q_1..q_n (the
 * round6 forecast points, step order):
 *   free = min_{k<=h} (C_v - clip(floor(q_k + EPS), 0, C_v)); Q = free * eta_v;
 *   with the inventory cap Q = min(Q, idle_v + running_spot_v); then
 *   int(clip(floor(Q + EPS), 0, C_v)). Fewer than h points (or h <= 0) give 0 and free 0.
 *
 * η law of one pool: r = failure weight / total weight of the feedback window (none
 * without events); e* = 1 - p. r >= high * e* -> eta *= e* / r ("high_eviction"); else
 * r <= low * e* and the longest current Spot wait of the pool > the queue threshold ->
 * eta *= 1.5 - r / e* ("low_eviction_high_queue"); else "unchanged". Then clamp.
 * The original applies it at every decision, so eta compounds on the same events (Q1).
 * With event_triggered (our tenant controller ids) it runs only when the pool's window
 * gained an event since the last application, else "no_new_events".
 */
#ifndef SCHEDNAV_PREDICT_TENANT_QUOTA_H
#define SCHEDNAV_PREDICT_TENANT_QUOTA_H
#include <stdbool.h>
#include <stddef.h>

long long tq_pool_quota(double capacity, const double *quantiles, size_t n_quantiles, int horizon, double eta,
                        double idle, double running_spot, bool inventory_cap, double *free_out);

struct tq_eta_law {
	double probability;            /* p: e* = 1 - p */
	double minimum, maximum;
	double high_multiple, low_multiple;
	double queue_threshold_seconds;
	bool event_triggered;          /* Q1 fixed: apply only on new evidence */
};

enum tq_reason { TQ_UNCHANGED, TQ_HIGH_EVICTION, TQ_LOW_EVICTION_HIGH_QUEUE, TQ_NO_NEW_EVENTS };
const char *tq_reason_name(enum tq_reason r);

/* One application of the law (the caller decides whether it is due). has_rate false:
 * no events. Returns the new eta. */
double tq_eta_apply(const struct tq_eta_law *law, double eta, bool has_rate, double rate, double max_wait_seconds,
                    enum tq_reason *reason);

/* The feedback window of one pool: events (time, failure?, weight) in arrival order. */
struct tq_event { double time, weight; bool failure; };
struct tq_feedback {
	struct tq_event *events;
	size_t n, cap;
	unsigned long long version, evaluated;   /* events added; version at the last application */
	/* totals since the start, for the report */
	long long event_count;
	double success_weight, failure_weight;
};
void tq_feedback_add(struct tq_feedback *f, double time, bool failure, double weight);
/* Drop events older than now - window (kept: time >= now - window); sum the window in
 * order. Returns whether any weight remains (then *rate = failure / total). */
bool tq_feedback_rate(struct tq_feedback *f, double now, double window_seconds, double *total, double *rate);
/* The per-decision step of §2 for one pool: prune, rate, apply the law when due. */
double tq_feedback_step(struct tq_feedback *f, const struct tq_eta_law *law, double now, double window_seconds,
                        double eta, double max_wait_seconds, double *total, bool *has_rate, double *rate,
                        enum tq_reason *reason);
void tq_feedback_release(struct tq_feedback *f);
int tq_feedback_clone(struct tq_feedback *dst, const struct tq_feedback *src);
#endif
