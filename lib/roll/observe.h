/*
 * observe — what the rolling controller knows at a cutoff (docs/rolling-rules.md "Observation",
 * `schednav.rolling-observation/v2`), computed as pure functions over explicit inputs:
 *   - workload signals over (cut − W, cut] of the workload-history trace;
 *   - the multi-timescale state (short 1 h, previous 1 h, long W), runtime pressure, forecast
 *     risk, risk level and regime;
 *   - the predictive projection (the inner predictor's latest decision: Q2 fixed, the
 *     projection never vanishes off the 5-minute grid, the caller passes the last decision);
 *   - the scheduler state the simulator reports at the cutoff (struct roll_state).
 * Only jobs with submit <= cut + EPS are ever read from the history trace; the state holds
 * no job's remaining work (only the opaque handoff fingerprint that covers it).
 * Every JSON value is built in the caller's arena; the input structs are borrowed.
 * Numbers follow the original: GPU amounts round6, ratios and pressures round9, times raw.
 * Fingerprints are XXH3-128 of the record's canonical bytes without its own fingerprint key;
 * the observation's hashes its scheduler state by the state's snapshot_fingerprint.
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_OBSERVE_H
#define SCHEDNAV_ROLL_OBSERVE_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "roll/config.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_OBSERVATION_SCHEMA "schednav.rolling-observation/v2"
#define ROLL_SNAPSHOT_SCHEMA "schednav.scheduler-state-snapshot/2"

struct roll_signals {
	double start, end;                 /* the window (start, end] */
	long long observed, hp_jobs, spot_jobs;
	double hp_requested, spot_requested;  /* sums in trace order, unrounded */
	double spot_share;                 /* round9(spot / total), 0.0 when total is 0 */
	double hp_peak_active;             /* max HP GPUs active at the hourly points, unrounded */
	double hp_peak_pressure;           /* round9(peak / capacity) */
	double hp_volatility;              /* round6(population std of the hourly points) */
	double recent_to_prior;            /* round9(recent / prior); 2.0 if prior is 0 < recent; 1.0 if both 0 */
	bool has_max_submit;
	double max_submit;
};

/* Signals of the jobs of t with submit in (cut − window, cut + EPS]; capacity > 0. */
/* The first job index with submit > x (a trace's jobs are sorted by submit). */
size_t roll_first_after(const struct trace *t, double x);

void roll_signals_compute(const struct trace *t, double capacity, double cut, long long window, struct roll_signals *out);
struct json *roll_signals_json(struct arena *a, const struct roll_signals *s);

/* A forecast point of the inner predictor (the keys of the original's projection). */
struct roll_point {
	double target;
	long long step;
	const char *pool;                  /* resource_pool; NULL = absent (the family's scenario_pool) */
	double mu, sigma, q;               /* mu_gpus, sigma_gpus, guarantee_quantile_gpus */
	bool has_raw, has_offset;
	double raw, offset;                /* raw_guarantee_quantile_gpus, quantile_calibration_offset_gpus */
	const char *method;                /* quantile_calibration_method or NULL */
};

struct roll_quota { long long hour, gpus; };

struct roll_projection {
	double cutoff;                     /* the predictor decision's time */
	const char *snapshot_fp, *forecast_fp, *quota_fp;  /* NULL = null */
	int history_ready;                 /* 1, 0, or -1 = null */
	const struct roll_point *points;
	size_t n_points;
	struct roll_quota quota[8];        /* aggregate quota by guarantee hour, ascending hours */
	size_t n_quota;
	bool has_eta;
	double eta;
	/* the predictor's family's scenario names (predict.h: scenario_pool, scenario_tenant) */
	const char *scenario_pool, *scenario_tenant;
};

/* The projection object with its projection_fingerprint (copied to fp when not NULL). */
struct json *roll_projection_json(struct arena *a, const struct roll_projection *p, char fp[FP_HEX_XXH3]);
/* The stress variant (recent-history-replay): the same projection without points, with
 * base_projection_fingerprint and scenario_profile_id (docs/rolling-rules.md "dual-forecast-replay-v1"). */
struct json *roll_projection_stress_json(struct arena *a, const struct roll_projection *p, const char *base_fp, char fp[FP_HEX_XXH3]);

struct roll_pool_gpus { const char *pool; double gpus; };

/* One job queued or running at the cutoff, as an agent may see it (no remaining work). */
struct roll_carry {
	const char *id;
	bool hp, running;
	double gpus;
	const char *model, *tenant;        /* tenant NULL = null */
	double queue_wait;                 /* now − queued_since when queued, else 0 */
	double run_elapsed;                /* now − run_start when running, else 0 */
	bool has_guarantee;                /* a running Spot job's guarantee of this run */
	long long guarantee;
	double allocated;                  /* GPUs held, 0 when queued */
};

struct roll_state {
	double cutoff;
	const char *trace_id;
	const char *visible_prefix_fp;     /* of the execution trace's arrivals so far */
	long long visible_count;
	bool has_max_visible;
	double max_visible_submit;
	long long capacity;
	double free_total;
	const struct roll_pool_gpus *free_by_pool;       /* sorted by pool */
	size_t n_free_pools;
	long long queue_jobs, queue_hp, queue_spot;
	double queue_gpus, queue_hp_gpus, queue_spot_gpus;
	double max_hp_wait, max_spot_wait;               /* accumulated + current wait */
	long long running_jobs;
	double running_spot_gpus;
	const struct roll_pool_gpus *running_spot_by_pool; /* sorted by pool */
	size_t n_running_pools;
	const char *active_id, *active_fp;
	const char *handoff_fp;            /* over the private per-job state */
	const struct roll_carry *carry;    /* sorted by job id */
	size_t n_carry;
	long long completed_jobs, preemption_events, spot_runs;
	const double *hp_completed_queue;  /* evaluation HP completed so far, round6, sorted */
	size_t n_hp_completed;
	const double *hp_completed_jct;    /* round6, sorted */
	size_t n_hp_jct;
};

/* The scheduler_state object with its snapshot_fingerprint (copied to fp when not NULL). */
struct json *roll_state_json(struct arena *a, const struct roll_state *s, char fp[FP_HEX_XXH3]);
/* One carryover job as a JSON object (job_id, service_class, gpu_count, gpu_model, tenant_id,
 * status, current_queue_wait_seconds, current_run_elapsed_seconds, run_guarantee_seconds,
 * allocated_gpus), appended to sb: the line carryover_jobs_fingerprint hashes per job. */
void roll_carry_entry_write(struct strbuf *sb, const struct roll_carry *c);

enum roll_risk { ROLL_RISK_LOW, ROLL_RISK_MODERATE, ROLL_RISK_HIGH };
enum roll_regime { ROLL_REGIME_HP, ROLL_REGIME_FORECAST, ROLL_REGIME_SPOT_HEAVY, ROLL_REGIME_BALANCED };
extern const char *const roll_risk_names[3];
extern const char *const roll_regime_names[4];

/* Inputs of the risk and regime classification (deterministic-cutoff-state/v1). */
struct roll_risk_inputs {
	long long queued_hp;
	double running_hp_pressure;        /* running_hp / C, unrounded */
	double peak_q_pressure;            /* max calibrated q / C */
	double peak_raw_pressure;          /* max raw q / C */
	double growth;                     /* short HP / previous HP, safe ratio */
	double short_spot_share;           /* the short window's Spot share */
};
enum roll_risk roll_risk_level(const struct roll_risk_inputs *in);
enum roll_regime roll_regime_of(const struct roll_risk_inputs *in);
/* round9(n / d) when d > EPS; else 2.0 when n > EPS; else 1.0. */
double roll_safe_ratio(double n, double d);

/* Everything the observation is made of. */
struct roll_observation_in {
	const struct roll_config *cfg;
	const struct roll_catalog *cat;
	const struct trace *history;       /* the workload-history trace */
	const struct roll_state *state;
	const struct roll_projection *projection;  /* NULL = no predictor output yet */
	bool oracle;                       /* the non-deployable arm: marked in the boundary */
};

struct roll_observation {
	struct json *record;               /* {"type":"rolling_observation",...,"observation_fingerprint"} */
	char fp[FP_HEX_XXH3], snapshot_fp[FP_HEX_XXH3], projection_fp[FP_HEX_XXH3];  /* projection_fp "" when there is none */
	struct roll_signals signals;       /* the long window (history_window_seconds) */
	struct roll_signals short_w, previous_w;
	struct roll_risk_inputs risk_in;
	enum roll_risk risk;
	enum roll_regime regime;
	struct json *mts;                  /* the multi_timescale_state object (inside record) */
};

/* Build the observation at in->state->cutoff. */
void roll_observe(struct arena *a, const struct roll_observation_in *in, struct roll_observation *out);
#endif
