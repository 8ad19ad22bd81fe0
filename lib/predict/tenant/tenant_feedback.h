/*
 * tenant_feedback — the feedback window of one resource pool of the tenant controller
 * (docs/predictive-rules.md §2 "Feedback events"): events (time, failure?, weight = distinct nodes of
 * the pool in the run's allocation) in arrival order, pruned to the feedback window, and
 * the failure rate r = failure weight / total weight the eta law reads
 * (pc_eta_per_decision, predict.h). A version counter says whether the window gained an
 * event since the law last ran (quirk Q1, fixed under our ids). The window owns its
 * array (pt_fb_release frees it); nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_FEEDBACK_H
#define SCHEDNAV_PREDICT_TENANT_FEEDBACK_H
#include <stdbool.h>
#include <stddef.h>

struct pt_fb_event { double time, weight; bool failure; };
struct pt_fb_window {
	struct pt_fb_event *events;
	size_t n, cap;
	unsigned long long version, evaluated;   /* events added; version at the last application */
	/* totals since the start, for the report */
	long long event_count;
	double success_weight, failure_weight;
};
void pt_fb_add(struct pt_fb_window *f, double time, bool failure, double weight);
/* Drop events older than now - window (kept: time >= now - window); sum the window's
 * weights in order into *total and *failed. Returns whether any weight remains. */
bool pt_fb_rate(struct pt_fb_window *f, double now, double window_seconds, double *total, double *failed);
/* Drop the events with time < t, in order (only those pt_fb_rate would drop at any now >= t +
 * window: the window then never grows with the length of a simulation). */
void pt_fb_forget_before(struct pt_fb_window *f, double t);
void pt_fb_release(struct pt_fb_window *f);
void pt_fb_clone(struct pt_fb_window *dst, const struct pt_fb_window *src);
#endif
