/*
 * tenant_controller — the tenant-aware predictive Spot controller (docs/predictive-rules.md §2) with
 * the deterministic estimators of §6, as a state machine its driver feeds: the
 * simulator binding inside sim-run, or the offline replay of the cutoff bundle.
 *
 * Cadence. Samples every sample_interval (60 s) from the start time, by repeated
 * addition now + 60 (the driver's clock), until the evidence end; every fifth sample
 * (quota_update_interval, a grid anchored at the start) is a decision, and grid points
 * before the evidence start make none. A sample records every series' running HP GPUs
 * (series = [pool, tenant], pool = gpu_model, registered at its first run and kept).
 *
 * A decision, in this order: sample -> retrain (when ready: span >= lookback +
 * validation + horizon = 844 h and >= 1 series; and never trained, now >= next_retrain,
 * or the series set changed; next_retrain starts at the evidence start and becomes
 * now + retrain_interval after each fit) -> feedback (the η law per pool) -> forecast
 * (empty before the first fit) -> quota per pool and guarantee horizon (pc_quota,
 * inventory cap as configured) -> the decision record -> diagnostics (starvation: the
 * shortest-horizon quota 0 while idle > EPS and Spot backlog > EPS).
 *
 * Gate: Spot only, enforce mode only, and only when evidence_start - EPS <= now <
 * evidence_end - EPS (the evidence end is a wake-up): admit iff the pool's running Spot
 * GPUs + request <= the pool's quota of the policy's horizon + EPS. A denied job stays
 * queued; lowering a quota never evicts.
 *
 * Feedback events per pool, weight = distinct nodes of the pool in the run's allocation:
 * a Spot run start sets its checkpoint; each time checkpoint + g <= now (g > 0) the
 * checkpoint advances by g and a success "guarantee_duration_completed" is logged (these
 * times are wake-ups, emitted by pt_after_advance); a completion is a success
 * "job_completed", an eviction a failure "preempted"; events older than the feedback
 * window are dropped.
 *
 * Quirks, fixed when the controller id is ours (tenant_config.h): Q1 the η law runs only
 * when the pool gained an event since its last application (original: every decision);
 * Q2 pt_last_decision() is the last decision at any time, where the original's
 * pt_latest_update() is NULL after a minute-only sample; Q3 mean_error = actual - mu as
 * in the aggregate controller (original: mu - actual).
 *
 * Scoring: every point whose target <= evidence end + EPS is scored against the pool's
 * running-HP total at the sample of its target minute (sample n + 60 k).
 *
 * For the rolling controller (issue 12): pt_clone() forks the whole state (history,
 * estimator, feedback windows, runs, pending scores, report sums); pt_last_decision()
 * gives the last decision with its quotas per pool and horizon, which a frozen-quota gate
 * reads through pt_decision_quota(); pt_allows_spot_frozen() is that gate.
 *
 * Memory: the controller owns everything it allocates; pt_close frees it (NULL is fine).
 * The config and the trace strings it was opened with are borrowed and must outlive it.
 * Decision records go to the sink as they happen. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_CONTROLLER_H
#define SCHEDNAV_PREDICT_TENANT_CONTROLLER_H
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "predict/calendar.h"
#include "predict/tenant/estimator.h"
#include "predict/tenant/tenant_config.h"
#include "predict/tenant/tenant_history.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_feedback.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define PT_EPS 1e-9

enum pt_event_kind { PT_EVENT_COMPLETED, PT_EVENT_PREEMPTED, PT_EVENT_GUARANTEE, PT_EVENT_KINDS };
const char *pt_event_kind_name(enum pt_event_kind k);

struct pt_pool_observation {      /* one pool at an update, before admission at that instant */
	double idle_gpus;             /* free GPUs of the pool */
	double running_spot_gpus;     /* Spot GPUs allocated on the pool's nodes */
	double spot_backlog_gpus;     /* queued Spot demand of the pool */
	double maximum_spot_wait_seconds;  /* longest current wait (now - queued_since) */
};

struct pt_observation {
	double hp_outstanding_gpus, spot_backlog_gpus, running_spot_gpus;   /* cluster */
	const struct pt_pool_observation *pools;                          /* tc pool order */
	bool gating;                  /* the gate enforces at this instant ... */
	int gate_horizon;             /* ... at this horizon index (the policy's guarantee) */
	/* The queued Spot jobs of pool whose demand d satisfies above < d <= at_most: with the
	 * new quota the decision counts those that fit the idle GPUs but not its headroom
	 * (held_spot_jobs). NULL: none counted. */
	long long (*count_queued_spot)(const void *ctx, size_t pool, double above, double at_most);
	const void *count_ctx;
};

struct pt_pool_decision {
	double eta_before, eta_after;
	bool has_rate;
	double event_weight, eviction_rate;
	enum pc_reason reason;        /* of pc_eta_per_decision; named by pt_reason_name */
	bool skipped;                 /* Q1 fixed: no new event since the law last ran */
	long long *quota;             /* per horizon */
	double *free;                 /* predicted free per horizon (round6) */
	struct pt_pool_observation obs;
	double hp_running_gpus;       /* the pool's total at this sample */
	bool starvation;
	long long admitted_runs;      /* Spot run starts since the previous decision */
	long long held_jobs;          /* fitting queued Spot jobs above the new quota's headroom (gating only) */
};

struct pt_decision {
	double now;
	size_t sample_index;
	bool retained, history_ready, training_performed;
	double hp_outstanding_gpus, spot_backlog_gpus, running_spot_gpus, hp_running_gpus;
	struct pt_est_point *points;     /* n_points, pool then step */
	size_t n_points;
	struct pt_pool_decision *pools;
	long long *quota;             /* per horizon, summed over pools */
	double eta;                   /* minimum over pools (round9 when written) */
};

struct pt_scores {                /* forecast evaluation sums, in scoring order */
	size_t n;
	double abs_error, error, actual, pinball;
	size_t covered;
};

struct pt_cpu {                   /* CPU seconds spent in each part, for benchmarks */
	double sampling;              /* the 60-s samples: hourly maxima, prefix sums, scoring */
	double training;              /* fits (pt_est_fit) */
	double deciding;              /* the rest of each decision: feedback, forecast, quota, report sums */
	double records;               /* the decision sink (writing records) */
};

struct pt_controller;            /* opaque */
typedef void (*pt_sink)(void *ctx, const struct pt_controller *tc, const struct pt_decision *d);

/* Open a controller of the tenant family (cfg->tenant set): pools (gpu models, with their
 * node GPUs) in any order, the trace's time_origin, the first sample time and the
 * evidence window. The config is borrowed. */
struct pt_controller *pt_open(const struct pc_config *cfg, const char *const *pools, const double *capacities, size_t n_pools,
                        const char *time_origin, double start, double evidence_start, double evidence_end, size_t n_jobs,
                        char *err, size_t errlen);
void pt_close(struct pt_controller *tc);
struct pt_controller *pt_clone(const struct pt_controller *tc);
void pt_set_sink(struct pt_controller *tc, pt_sink sink, void *ctx);

/* The history runs from the first sample (start) to the evidence end, one sample per
 * sample interval and a decision record per quota interval: an evidence end more than
 * 3,650 days (the Slurm importer's span bound) after the start is refused by pt_open, since
 * no exact skip of an idle span inside the evidence window exists (every 300 s writes a
 * decision that differs from the last: its cutoff, sample count, wait, starvation sums). */
#define PT_MAX_SPAN_SECONDS (3650.0 * 86400.0)

/* The pool index of a gpu model, or -1. */
int pt_pool_index(const struct pt_controller *tc, const char *pool);
size_t pt_pool_count(const struct pt_controller *tc);
const char *pt_pool_name(const struct pt_controller *tc, size_t pool);

/* An HP run of tenant on pool started (+gpus) or stopped (-gpus); the series is
 * registered at its first start. Errors: unknown pool, bad tenant. */
int pt_hp_run(struct pt_controller *tc, const char *pool, const char *tenant, double gpus, bool started, char *err, size_t errlen);
/* A Spot run of job started at now with gpus GPUs on `nodes` distinct nodes of pool,
 * guarantee g (a job already running is ignored). */
void pt_spot_run_started(struct pt_controller *tc, size_t job, size_t pool, double nodes, double gpus, double now,
                         double guarantee_seconds);
/* The Spot run of job closed at now (evicted: a failure). */
void pt_spot_run_closed(struct pt_controller *tc, size_t job, double now, bool evicted);
/* After the clock moved to now: the guarantee-period events due by now + EPS. */
void pt_after_advance(struct pt_controller *tc, double now);

/* The earliest wake-up strictly after `after` (a sample, the evidence end, a guarantee
 * period's end), or INFINITY. */
double pt_next_wakeup(const struct pt_controller *tc, double after);
/* Idle spans (issue 35): after the evidence end (no sample, no decision any more), the
 * guarantee periods of a Spot run that nothing else interrupts for more than
 * PT_IDLE_MIN_PERIODS periods (more than any trace replayed here: every existing output is
 * unchanged) wake nobody; pt_after_advance adds them when the simulator's next event
 * (engine_next) comes, with the same report totals. Otherwise pt_next_wakeup. */
#define PT_IDLE_MIN_PERIODS 100000.0
double pt_next_wakeup_idle(const struct pt_controller *tc, double after, double engine_next);
bool pt_update_due(const struct pt_controller *tc, double now);
/* pt_update at now would make a decision (so the driver gathers the pool observations). */
bool pt_update_decides(const struct pt_controller *tc, double now);
/* GPUs of the pool's Spot runs in progress (the gate's running term); 0 for an unknown pool. */
double pt_running_spot(const struct pt_controller *tc, size_t pool);
double pt_evidence_start(const struct pt_controller *tc);
double pt_evidence_end(const struct pt_controller *tc);
/* One update at now (due): the sample and, on the decision grid, the decision. Returns
 * 1 when a decision was made, 0 for a sample only, -1 + message on error. */
int pt_update(struct pt_controller *tc, double now, const struct pt_observation *obs, char *err, size_t errlen);

/* Gate. */
bool pt_gate_active(const struct pt_controller *tc, double now);
bool pt_allows_spot(const struct pt_controller *tc, size_t pool, int horizon_index, double requested, double running_pool);

/* Q2: the last decision at any time (NULL before the first); the original's view is
 * pt_latest_update: NULL when the last update was a minute-only sample. */
const struct pt_decision *pt_last_decision(const struct pt_controller *tc);
const struct pt_decision *pt_latest_update(const struct pt_controller *tc);
long long pt_decision_quota(const struct pt_decision *d, size_t pool, int horizon_index);
bool pt_allows_spot_frozen(const struct pt_decision *d, size_t pool, int horizon_index, double requested, double running_pool);

/* The original's name of a pool's eta adjustment: high_eviction, low_eviction_high_queue,
 * unchanged; no_new_events when Q1's fix skipped the law. */
const char *pt_reason_name(const struct pt_pool_decision *pd);

/* The learned feedback state of a pool, for checkpoints (roll writes it into its state files
 * and checks a resumed run against it): its current eta, its feedback window, and the
 * number of decisions made so far. */
double pt_eta(const struct pt_controller *tc, size_t pool);
const struct pt_fb_window *pt_feedback(const struct pt_controller *tc, size_t pool);
size_t pt_decision_count(const struct pt_controller *tc);

/* Read-only views for the records and the report. */
const struct pt_config *pt_config(const struct pt_controller *tc);
const struct pt_history *pt_history(const struct pt_controller *tc);
const struct pt_estimator *pt_estimator(const struct pt_controller *tc);
const struct pt_scores *pt_scores(const struct pt_controller *tc);
/* Keep pt_cpu_seconds' counters (off by default: each part is timed with a system call). */
void pt_time_parts(struct pt_controller *tc, bool on);
const struct pt_cpu *pt_cpu_seconds(const struct pt_controller *tc);

/* Records: one control_decision line (no '\n'), the control_report line. */
void pt_write_decision(struct strbuf *sb, const struct pt_controller *tc, const struct pt_decision *d);
void pt_write_report(struct strbuf *sb, const struct pt_controller *tc);

/* The trace the tenant controller needs: schednav.trace/2, a tenant on every job, a
 * concrete gpu_model on every job. 0, or -1 + message. */
int pt_check_trace(const struct trace *t, char *err, size_t errlen);
/* Pools (sorted gpu models of the nodes) and their capacities, malloc'd; free both. */
size_t pt_trace_pools(const struct trace *t, char ***pools, double **capacities);

/*
 * The past-only cutoff bundle (§2 "Cutoff bundle", tenant_bundle.c): jobs with submit <=
 * cutoff only; offline occupancy from submit to submit + duration, the end applied only
 * when <= cutoff + EPS (ends before arrivals at one instant, then job id); no Spot backlog;
 * idle = C - HP - Spot per pool; samples from floor(first submit / 60) * 60 by + 60 to the
 * cutoff, which must lie on that grid and on the 300-s grid; the controller's evidence
 * window is [cutoff, cutoff], so it trains at the cutoff when ready. The record mirrors
 * the original's schednav.predictive-observation-bundle/v1 (snapshot, forecast, quota plan,
 * boundary flags, SHA-256 fingerprints of each document). Q10 fixed for our ids: the
 * observed-prefix fingerprint takes a duration only for jobs that ended by the cutoff
 * (null for the others), so a different future never changes a byte.
 * Built in a; NULL + message on error.
 */
struct json *pt_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err,
                       size_t errlen);
#endif
