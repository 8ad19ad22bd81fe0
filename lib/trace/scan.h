/*
 * scan — day windows of a trace, their eligibility and workload signals, and the
 * stratified medoid selection of docs/evaluation.md §6 "Window selection" / docs/studies-rules.md
 *
 * Windows are origin-aligned: K = floor((max submit + 1) / W) windows [kW, kW + W - 1].
 * Arrivals are binned by floor(submit / W). Demand is sampled every I seconds: a job is
 * active on samples ceil(submit / I) .. ceil((submit + duration) / I) - 1, clipped to
 * [0, K·W/I); per sample the requested GPUs of the active jobs are summed in trace order.
 * Every reported real is rounded to 6 decimals (num_round) before it is used again.
 * trace_scan_run fills a scan_result whose days array is malloc'd; trace_scan_result_release frees it.
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_SCAN_H
#define SCHEDNAV_SCAN_H
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define WINDOWS_SCHEMA "schednav.windows/1"   /* trace-scan's stream of eligible windows */
#define SCAN_MAX_DAYS 100000LL      /* refuse traces spanning more windows than this */
#define SCAN_MAX_SAMPLES 4000000LL  /* ... or more demand samples */

struct scan_opts {
	long long day_seconds;          /* W > 0, a multiple of sample_seconds */
	long long sample_seconds;       /* I > 0 */
	long long min_hp, min_spot;     /* eligibility: arrivals per window (>= 0) */
	long long pressure_strata;      /* P >= 1 */
	long long share_strata;         /* S >= 1 */
	long long warmup_days;          /* warm-up = max(0, start - warmup_days * 86400) */
	bool all_eligible;              /* select every eligible window, no strata */
};

struct scan_day {
	long long index;
	double start, end, warmup_start;
	bool eligible;
	long long hp_arrivals, spot_arrivals;
	double hp_requested, spot_requested;    /* sum of requested GPUs of the arrivals */
	double peak_pressure, mean_pressure;    /* max and mean active GPUs / capacity */
	bool has_share;                         /* false when the window has no arrival */
	double spot_share;                      /* spot_requested / all requested */
	double active_min, active_mean, active_max;
	bool has_cv;                            /* false when active_mean is 0 */
	double active_cv;                       /* population sd / mean of active GPUs */
	long long stratum_pressure, stratum_share; /* 0-based, lowest first; -1 = none */
	bool selected;
};

struct scan_result {
	long long capacity;             /* total GPUs of every node */
	struct scan_day *days;          /* K windows, index order */
	size_t n_days, n_eligible, n_selected;
};

/* Scan t with o into res. -1 + message on bad options, a too long trace or an empty stratum. */
int trace_scan_run(const struct trace *t, const struct scan_opts *o, struct scan_result *res, char *err, size_t errlen);
void trace_scan_result_release(struct scan_result *res);
#endif
