/*
 * tenant_controller_internal — the tenant controller's state, shared by the state machine
 * (tenant_controller.c) and the writer of its two records (tenant_records.c). Not a public
 * interface: everything else sees struct pt_controller only through tenant_controller.h.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_CONTROLLER_INTERNAL_H
#define SCHEDNAV_PREDICT_TENANT_CONTROLLER_INTERNAL_H
#include "predict/tenant/tenant_controller.h"

struct pt_spot_run {
	bool active;
	size_t pool;
	double nodes, gpus, guarantee, checkpoint;
};

struct pt_wake { double t; size_t job; };

struct pt_pending { size_t sample; size_t pool; double mu, q; };

struct pt_controller {
	const struct pc_config *pc;        /* the engine's view (eta law fields) */
	const struct pt_config *cfg;       /* pc->tenant */
	struct pc_calendar cal;
	struct pt_history hist;
	struct pt_estimator est;
	size_t n_pools, n_horizons, steps, points_per_hour, samples_per_decision;
	double *capacity, *eta;
	double *running_spot;              /* per pool: GPUs of the Spot runs in progress */
	size_t *running_spot_runs;
	struct pt_fb_window *fb;
	double *by_kind;                   /* n_pools x PT_EVENT_KINDS weights */
	double start, evidence_start, evidence_end;
	double next_sample, next_quota, next_retrain;
	/* HP series: running job counts and values, by series index */
	size_t *series_runs;
	double *series_value;
	size_t cap_series;
	/* Spot runs by job, and the guarantee-period wake-ups (a min-heap on t, then job) */
	size_t n_jobs;
	struct pt_spot_run *runs;
	struct pt_wake *heap;
	size_t n_heap, cap_heap;
	/* gate counts since the previous decision */
	long long *admitted;               /* Spot run starts per pool since the previous decision */
	/* decisions */
	struct pt_decision last;
	bool have_last, last_update_decided;
	size_t decision_count, retained_count;
	/* scoring: one FIFO per step, targets in increasing sample order */
	struct pt_pending **pend;
	size_t *pend_head, *pend_n, *pend_cap;
	struct pt_scores scores;
	/* report sums over retained decisions */
	double first_cutoff, last_cutoff, eta_min, eta_max, quota_sum;
	long long quota_min, quota_max;
	size_t quota_n;
	size_t pool_updates, flagged;
	double flagged_idle_seconds, flagged_max_wait;
	pt_sink sink;
	void *sink_ctx;
	/* CPU seconds by part, for benchmarks (never written to a record); kept only when
	 * pt_time_parts turned it on: the process CPU clock is a system call, four per sample */
	struct pt_cpu cpu;
	bool timing;
};
#endif
