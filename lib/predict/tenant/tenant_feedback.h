/*
 * tenant_feedback — the feedback window of one resource pool of the tenant controller
 * (docs/predictive-rules.md §2 "Feedback events"): events (time, failure?, weight = distinct nodes of
 * the pool in the run's allocation) in arrival order, pruned to the feedback window, and
 * the failure rate r = failure weight / total weight the eta law reads
 * (pc_eta_per_decision, predict.h). A version counter says whether the window gained an
 * event since the law last ran (quirk Q1, fixed under our ids). The window owns its
 * array (tf_release frees it); nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_FEEDBACK_H
#define SCHEDNAV_PREDICT_TENANT_FEEDBACK_H
#include <stdbool.h>
#include <stddef.h>

struct tf_event { double time, weight; bool failure; };
struct tf_window {
	struct tf_event *events;
	size_t n, cap;
	unsigned long long version, evaluated;   /* events added; version at the last application */
	/* totals since the start, for the report */
	long long event_count;
	double success_weight, failure_weight;
};
void tf_add(struct tf_window *f, double time, bool failure, double weight);
/* Drop events older than now - window (kept: time >= now - window); sum the window's
 * weights in order into *total and *failed. Returns whether any weight remains. */
bool tf_rate(struct tf_window *f, double now, double window_seconds, double *total, double *failed);
/* Drop the events with time < t, in order (only those tf_rate would drop at any now >= t +
 * window: the window then never grows with the length of a simulation). */
void tf_forget_before(struct tf_window *f, double t);
void tf_release(struct tf_window *f);
void tf_clone(struct tf_window *dst, const struct tf_window *src);
#endif
