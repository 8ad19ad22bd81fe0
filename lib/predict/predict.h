/*
 * predict — the predictive Spot controller engine (docs/predictive-rules.md §1 and
 * docs/predictive.md "The controller engine").
 *
 * What it does. A controller observes the cluster at a fixed cadence, forecasts HP demand
 * from the past only, reserves capacity at the forecast's guarantee quantile, turns what is
 * left into a Spot quota per guarantee horizon, gates Spot starts by that quota and corrects
 * its scale factor eta from the Spot runs that actually closed. One engine hosts every
 * controller family; a family is a config schema plus a set of switches (struct
 * pc_switches) and an estimator. It hosts the aggregate `predictive-spot-v1`
 * (`seasonal-gaussian-v1`, struct pc_estimator_ops) exactly as the original engine
 * computes it, and the tenant family (`schednav.tenant-predictive-controller/1`,
 * docs/predictive-rules.md §2, docs/tenant-controller.md) with its deterministic estimators.
 *
 * Pieces, in the order an aggregate decision uses them (pc_update):
 *   1. observation  the HP demand sample (aggregate: HP outstanding = queued + running GPUs)
 *                   goes into the sample log (for scoring) and its hour bucket (max of the
 *                   bucket's samples); buckets older than the lookback are dropped for good;
 *   2. refit        when due (at the first update, then every retrain interval) the
 *                   estimator is fitted on the hourly history;
 *   3. forecast     the estimator gives one point per forecast step: target time, mu, sigma
 *                   and the guarantee quantile q, rounded to 6 dp as published;
 *   4. feedback     the eta law updates each pool's eta (event-triggered for the aggregate:
 *                   only when a Spot run closed since the last evaluation, plus the
 *                   starvation rule; per-decision for the tenant family, pc_eta_per_decision);
 *   5. quota        pc_quota(), the one quota function (the `quota` tool and the tenant
 *                   family call it too), per pool and guarantee horizon, from the rounded q
 *                   and the new eta.
 * The simulator binding (pc_sim_bind) calls pc_update at every point of the update grid
 * (first arrival, then now + interval, the event loop's own clock) after the arrivals of
 * that instant and before the start pass, consults pc_allows_spot from the start pass and
 * feeds pc_observe_run_end from every Spot run that closes (completion or eviction). The
 * offline cutoff bundle (pc_bundle) replays the same controller over a past-only
 * occupancy reconstruction.
 *
 * The tenant family (its row of pc_families, tenant/family.c): pc_config_from_json fills
 * the shared fields and the switches (pools per model, per-decision eta law, floor before
 * subtract, inventory cap, control window only, pool gate) and keeps the family's own
 * config in cfg->tenant; pc_controller_open opens its state machine (tenant_controller.h:
 * 60-s per-series samples, the decision grid, retraining, per-pool feedback, scoring) in
 * c->tenant, pc_sim_bind binds it through
 * tenant_sim.c (its sample and guarantee-period wake-ups, after_advance, per-pool
 * observations, the pool gate inside the evidence window, distinct-node feedback
 * weights), pc_bundle builds its bundle and pc_controller_clone forks it. It uses
 * pc_quota, pc_quota_free, pc_eta_per_decision, pc_normal_quantile and
 * pc_canonical_sha256 from here.
 *
 * Memory: a pc_config's strings and canonical dict live in the arena given to the parser.
 * A pc_controller owns everything it allocates (pc_controller_release frees it); decision
 * logs grow with the number of updates. Nothing here prints or exits; errors are returned
 * with a message. All arithmetic follows the original's operation order (-ffp-contract=off):
 * means are left-to-right sums divided by the count, rounding is Python's round().
 */
#ifndef SCHEDNAV_PREDICT_H
#define SCHEDNAV_PREDICT_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PC_EPS 1e-9
#define PC_CONFIG_SCHEMA "schednav.predictive-controller/v1"
#define PC_FORECAST_STREAM_SCHEMA "schednav.forecast/1"   /* forecast's stream */
#define PC_REPORT_SCHEMA "schednav.predictive-control-report/v1"
#define PC_BUNDLE_SCHEMA "schednav.predictive-observation-bundle/v1"
#define PC_SNAPSHOT_SCHEMA "schednav.observation-snapshot/v1"
#define PC_FORECAST_SCHEMA "schednav.demand-forecast/v1"
#define PC_QUOTA_SCHEMA "schednav.spot-quota-plan/v1"
#define PC_QUOTA_RULE "eta * minimum forecast free capacity across the guarantee horizon"

/* ---- switches: what distinguishes one controller family from another (§6) ---- */

enum pc_pools { PC_POOLS_CLUSTER, PC_POOLS_PER_MODEL };          /* one pool "*" | one per gpu_model */
enum pc_eta_law { PC_ETA_EVENT_TRIGGERED, PC_ETA_PER_DECISION };
enum pc_gate_scope { PC_GATE_CLUSTER, PC_GATE_POOL };            /* running Spot summed over the cluster | the job's pool */

struct pc_switches {
	enum pc_pools pools;
	enum pc_eta_law eta_law;
	bool floor_before_subtract;   /* free = C - clip(floor(q + EPS)) instead of max(0, C - q) */
	bool inventory_cap;           /* quota <= idle + running Spot */
	bool control_window_only;     /* gate only inside the evaluation window */
	enum pc_gate_scope gate_scope;
};

/* ---- the forecast and its estimator ---- */

struct pc_bucket {                /* one hour of history: start time (bucket index * 3600), max sample */
	double t, v;
};

struct pc_point {                 /* one forecast step, values as published (mu, sigma, q round6) */
	int step;                     /* 1..forecast_horizon_hours */
	double target, mu, sigma, q;
};

struct pc_config;

struct pc_estimator_ops {
	const char *model;            /* the config's "model" value it serves */
	void *(*create)(const struct pc_config *c, double capacity);
	void *(*clone)(const void *est);   /* an independent copy (fitted state included) */
	void (*destroy)(void *est);
	/* Fit on the history (time order, at least one bucket) at time trained_at. */
	void (*fit)(void *est, const struct pc_bucket *h, size_t n, double trained_at);
	/* One point per step 1..H at cutoff, into out[0..H). Fitted before. */
	void (*forecast)(void *est, const struct pc_bucket *h, size_t n, double cutoff, struct pc_point *out);
	double (*trained_at)(const void *est);
	size_t (*training_count)(const void *est);
	/* SHA-256 hex of the fitted model's canonical payload (the original's model_fingerprint),
	 * computed when first asked for after a fit. */
	const char *(*fingerprint)(void *est);
};

extern const struct pc_estimator_ops pc_seasonal_gaussian;   /* seasonal-gaussian-v1 (§1) */

/* z such that P(N(0,1) <= z) = p, 0 < p < 1: Wichura's AS241, as Python's NormalDist.inv_cdf. */
double pc_normal_quantile(double p);

/* ---- configuration ---- */

struct pt_config;                 /* the tenant family's own fields (tenant_config.h) */
struct pc_family;                 /* a controller family's operations (below) */

struct pc_config {
	const char *schema_version, *controller_id, *model;
	long long observation_interval_seconds, aggregation_interval_seconds, lookback_hours;
	long long forecast_horizon_hours, retrain_interval_seconds;
	double guarantee_probability;
	long long *horizons;          /* guarantee_horizons_hours, increasing, in the arena */
	size_t n_horizons;
	long long minimum_history_hours;
	double minimum_sigma_gpus, initial_eta, minimum_eta, maximum_eta;
	long long feedback_window_seconds, starvation_increase_after_seconds;
	double high_eviction_ratio, low_eviction_ratio, eta_increase_step;
	struct pc_switches sw;
	const struct pc_estimator_ops *estimator;
	struct json *canonical;       /* the original's to_dict(), coerced types */
	char fingerprint[65];         /* SHA-256 of its canonical sorted JSON (docs/predictive-rules.md §0) */
	const struct pc_family *family;   /* the family that parsed it (its operations) */
	const void *family_config;        /* a further family's own parsed fields (its from_json fills it) */
	/* The tenant family (schema schednav.tenant-predictive-controller/1): its full config;
	 * the fields above then hold what both families share (observation = the quota
	 * interval, minimum history = 844 h, starvation = the queue-wait threshold, ratios = the
	 * eviction multiples) and estimator is NULL. NULL for the aggregate family. */
	const struct pt_config *tenant;
};

/* Validate a parsed config (exact key set, the original's rules) and fill c; the
 * schema_version picks the family (PC_CONFIG_SCHEMA or the tenant's). 0 or -1 + message. */
int pc_config_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen);
/* Read and validate a config file ("PATH: message" errors). */
int pc_config_load(struct pc_config *c, const char *path, struct arena *a, char *err, size_t errlen);
/* Index into c->horizons of the smallest horizon >= max(1, ceil(g / 3600)), or -1 (g too long). */
int pc_config_horizon_for(const struct pc_config *c, long long guarantee_seconds);

/* ---- the quota function (controller and `quota` tool) ---- */

struct pc_quota_input {
	const struct pc_point *points;   /* steps 1..n in order */
	size_t n;
	double capacity, eta;
	bool floor_before_subtract;
	bool inventory_cap;
	double idle_gpus, running_spot_gpus;   /* read only with inventory_cap */
};

/* Integer Spot quota for a guarantee horizon of h hours (0 when fewer than h points). */
long long pc_quota(const struct pc_quota_input *in, long long h);
/* The forecast free capacity before eta and the cap: min over k <= h (0 when fewer than h points). */
double pc_quota_free(const struct pc_quota_input *in, long long h);

/* ---- feedback ---- */

enum pc_reason {
	PC_NO_NEW_COMPLETED_RUNS, PC_INSIDE_FEEDBACK_BAND, PC_HIGH_EVICTION_DECREASE,
	PC_LOW_EVICTION_BACKLOG_INCREASE, PC_STARVATION_BACKLOG_INCREASE, PC_REASONS
};
const char *pc_reason_name(enum pc_reason r);

struct pc_feedback {              /* the original's feedback dict of one decision */
	long long window_seconds;
	long long completed, evicted;   /* closed Spot runs in the window, evicted among them */
	bool has_rate;
	double rate;                  /* round9 */
	double target;                /* round9(1 - p) */
	double previous_eta, eta;     /* round9 */
	enum pc_reason reason;
};

/* The per-decision eta law of the tenant family (§2): failure weight / total weight r;
 * r >= high·e* -> eta times e* over r; elif r <= low·e* and the longest Spot wait > threshold ->
 * eta times (1.5 - r over e*); clamp; total weight 0 -> unchanged. Returns the new eta. */
double pc_eta_per_decision(double eta, double failure_weight, double total_weight, double longest_wait,
			   const struct pc_config *c, double wait_threshold, enum pc_reason *reason);

/* ---- the controller ---- */

struct pc_observation {           /* what one update sees, before admission at that instant */
	double hp_outstanding_gpus;   /* queued + running HP GPUs (the aggregate's demand sample) */
	double spot_backlog_gpus;     /* queued Spot GPUs */
	double running_spot_gpus;     /* allocated Spot GPUs */
};

struct pc_decision {              /* one update; points and quotas live in the controller's flat logs */
	double now;
	bool retained;                /* inside the evidence window */
	bool history_ready;
	size_t history_count;
	double trained_at;
	double hp_outstanding, spot_backlog, running_spot;   /* round6 */
	struct pc_feedback feedback;  /* pool 0 */
	double eta;                   /* round9, after feedback (pool 0; the minimum over pools later) */
	size_t points_at, quotas_at;  /* offsets into c->points (H per pool) / c->quotas (horizons per pool) */
};

struct pc_target {                /* a retained forecast point, for scoring */
	double target, mu, q;
};

struct pc_closed_run {            /* one closed Spot run the feedback window holds */
	double t;
	bool evicted;
	double weight;                /* distinct nodes of the pool (tenant family); 1 here */
};

struct pc_sample {
	double key;                   /* round9(time) */
	double v;
};

struct pc_pool {                  /* per-pool control state: one pool "*" for the cluster family */
	const char *name;
	int model;                    /* sim model index, -1 = "*" */
	double capacity;
	double eta;
	long long *latest_quotas;     /* per horizon, 0 before the first update */
	struct pc_closed_run *closed; /* ring: closed[(first + i) % cap], i < n */
	size_t closed_first, closed_n, closed_cap;
	unsigned long long feedback_version, evaluated_version;
	bool backlog_waiting;         /* the starvation clock runs */
	double backlog_since;
};

struct pt_controller;            /* the tenant family's state machine (tenant_controller.h) */
struct pt_pool_observation;
struct pt_queue;           /* the tenant binding's queued Spot jobs per pool (tenant_sim.c) */

struct pc_controller {
	const struct pc_config *cfg;
	/* The tenant family (cfg->tenant): its state machine does the work and the fields
	 * below stay empty; NULL for the aggregate family. */
	struct pt_controller *tenant;
	struct pt_pool_observation *tenant_obs;   /* per pool, the binding's scratch */
	struct pt_queue *tenant_queue;     /* the binding's queued Spot jobs per pool */
	void *impl;                   /* a further family's own state (its open/clone/close own it) */
	double capacity, z;
	bool has_evidence;
	double evidence_start, evidence_end;
	double next_update, next_retrain;
	struct pc_pool *pools;
	size_t n_pools;
	/* history: retained hour buckets in time order, buckets[bucket_first .. bucket_n) */
	struct pc_bucket *buckets;
	size_t bucket_first, bucket_n, bucket_cap;
	struct pc_sample *samples;    /* every update's demand sample a retained target can score */
	size_t n_samples, cap_samples;
	/* estimator */
	void *est;
	bool fitted;
	/* logs (with a sink: the last decision only, its points and quotas at offset 0) */
	struct pc_decision *decisions;
	size_t n_decisions, cap_decisions, retained;
	size_t total_decisions;       /* every update so far, logged or not */
	void (*sink)(void *ctx, const struct pc_controller *c, const struct pc_decision *d);
	void *sink_ctx;
	/* the report's figures over the retained decisions, kept as they are made (the same
	 * left-to-right order as a pass over the log) */
	struct pc_retained_sums {
		bool has_cutoffs;
		double first_cutoff, last_cutoff, eta_min, eta_max, qsum;
		size_t qn;
		long long quota_min, quota_max;
		size_t reason_counts[PC_REASONS];
		long long *last_quotas;   /* the last retained decision's quotas, per horizon */
	} rs;
	struct pc_point *points;
	size_t n_points, cap_points;
	long long *quotas;
	size_t n_quotas, cap_quotas;
	struct pc_target *targets;
	size_t n_targets, cap_targets;
	long long events_total, events_evicted;   /* closed Spot runs seen, for diagnostics */
	/* idle spans (pc_idle_next_update): the last update's raw observation, and whether the
	 * estimator was last fitted on a full, constant history (of fit_value) */
	struct pc_observation last_obs;
	bool fit_const;
	double fit_value;
	size_t skipped_updates;       /* grid points of idle spans not updated */
};

/* The next update time after skipping an idle span, or c->next_update. A span is idle when
 * the simulator's state does not change before its next event (engine_next) and the
 * controller is at a fixed point: every update until then would observe obs again (the
 * last update's observation), its lookback history is full and holds only that demand, the
 * estimator was fitted on such a history, no closed Spot run is in the feedback window and
 * no starvation clock can raise eta. Such updates would repeat the last decision (all but
 * its cutoff and its fit time), so they are not made: the next one is the first grid point
 * (last update + k x observation interval) at or after engine_next. Work then follows the
 * events, not the simulated seconds (docs/hardening.md). */
/* Only spans of more than this many grid points are skipped: more than any trace replayed
 * here holds (184 days are 52,992 updates of 300 s), so every shorter idle span keeps each
 * update and its record, and every existing output stays byte-identical. */
#define PC_IDLE_SKIP_MIN_UPDATES 100000.0
double pc_idle_next_update(struct pc_controller *c, double engine_next, const struct pc_observation *obs);
/* The cheap half of that test (no observation needed): false = no skip is possible now. */
bool pc_idle_candidate(const struct pc_controller *c, double engine_next);
/* Start a controller at time start (the first update); evidence window optional. 0 or -1 + message. */
int pc_controller_init(struct pc_controller *c, const struct pc_config *cfg, double capacity, double start,
		       bool has_evidence, double evidence_start, double evidence_end, char *err, size_t errlen);
/* Open the controller cfg describes for a simulation of trace t, either family: the
 * evidence window is the trace's evaluation window, else [first, last arrival]; the
 * aggregate runs on the cluster's capacity, the tenant family on one pool per gpu_model
 * of the nodes (it requires schednav.trace/2, a tenant on every job and a concrete
 * gpu_model that some node has) and samples from the first arrival. 0 or -1 + message. */
int pc_controller_open(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen);
void pc_controller_release(struct pc_controller *c);
/* dst = an independent deep copy of src (for a forked simulation session, sim_clone). */
void pc_controller_clone(struct pc_controller *dst, const struct pc_controller *src);
/* Hand every decision to sink(ctx, c, d) as it is made (pc_write_decision may read it and
 * c then) and keep only the last one in the log: memory stays O(retained decisions), not
 * O(updates) (a 10^12-s drain is 3.3e9 updates). pc_report is unchanged by it. */
void pc_controller_set_sink(struct pc_controller *c, void (*sink)(void *ctx, const struct pc_controller *c, const struct pc_decision *d),
			    void *ctx);
bool pc_update_due(const struct pc_controller *c, double now);
/* One update at now (due, and later than the previous one). 0 or -1 + message. */
int pc_update(struct pc_controller *c, double now, const struct pc_observation *obs, char *err, size_t errlen);
const struct pc_decision *pc_last_decision(const struct pc_controller *c);   /* NULL before the first */
/* The hourly history as of the last update (time order, at most lookback_hours buckets). */
const struct pc_bucket *pc_history(const struct pc_controller *c, size_t *n);
/* A Spot run closed at now (completed or evicted) in pool (0 for the cluster family). */
void pc_observe_run_end(struct pc_controller *c, size_t pool, double now, bool evicted, double weight);
/* Gate: running + requested <= the pool's quota of horizon index hi + EPS. */
bool pc_allows_spot(const struct pc_controller *c, size_t pool, int hi, double requested, double running);
/* A demand bound for the gate (sim gate_limit): no request above it is allowed. */
double pc_gate_limit(const struct pc_controller *c, size_t pool, int hi, double running);

struct pc_report {                /* the original's control report summary (finalize) */
	size_t update_count, total_update_count;
	bool has_cutoffs;
	double first_cutoff, last_cutoff;
	double eta_initial, eta_final;
	bool has_etas;
	double eta_min, eta_max;
	bool has_quotas;
	double quota_mean;
	long long quota_min, quota_max;
	size_t evaluated;
	bool has_scores, has_wape;
	double mae, wape, mean_error, coverage, pinball;
	size_t reason_counts[PC_REASONS];   /* retained decisions */
	long long events_total, events_evicted;
};

void pc_report(const struct pc_controller *c, struct pc_report *r);

/* ---- the simulator binding ---- */

#define PC_SIM_MAX_MODELS 64

struct pc_sim {
	struct pc_controller *c;
	int horizon;                  /* horizon index for the current policy's guarantee */
	bool enforce;                 /* the current policy's predictive_admission_mode */
	/* tenant family: sim model index -> pool (filled at the first hook call), and an
	 * error a void hook met, returned by the next at_instant */
	bool mapped;
	int pool_of_model[PC_SIM_MAX_MODELS];
	int model_of_pool[PC_SIM_MAX_MODELS];
	char failure[256];
};

/* Fill hooks that run c inside a simulation session (b must outlive it), for either
 * family (c->tenant: the tenant hooks of tenant_sim.c). For a fork (sim_clone):
 * pc_controller_clone the controller, bind the copy, then copy horizon and enforce from
 * the original binding (check_policy is not called again); a tenant clone shares the
 * original's decision sink until pt_set_sink gives it its own. */
void pc_sim_bind(struct pc_sim *b, struct pc_controller *c, struct sim_hooks *hooks);
/* The error a too-long guarantee gets (also from sim_open / sim_set_policy through the hooks). */
int pc_check_guarantee(const struct pc_config *cfg, const struct sim_policy *p, char *err, size_t errlen);

/* ---- controller families ----
 *
 * A family is one folder (lib/predict/aggregate/, lib/predict/tenant/) and one row of
 * pc_families (family.c). The generic entry points above and below dispatch through the
 * config's family: pc_config_from_json picks it by schema_version, then pc_controller_open,
 * _clone, _release, pc_sim_bind, pc_bundle and pc_controller_write_records call its
 * operations. A family's update and Spot gate are not operations here: the simulator
 * reaches them only through the hooks bind_sim fills (lib/sim knows controllers only
 * through struct sim_hooks), and the cutoff bundle through bundle. Checking a result
 * stream's control records (the metrics tool) is not wired through the table yet. */
struct pc_records;
struct sim_hooks;

/* A family's last decision as the rolling session projects it (its forecast points, pool
 * then step, the quota summed over pools per guarantee horizon and the minimum eta). */
struct pc_view_point {
	double target;
	long long step;
	const char *pool;             /* NULL: the cluster (the aggregate's "*") */
	double mu, sigma, q;
	bool calibrated;              /* raw, offset and method hold the quantile's calibration */
	double raw, offset;
	const char *method;
};
struct pc_view {
	double now;
	bool history_ready;
	struct pc_view_point *points; /* grown by the family (xgrow), freed by the caller */
	size_t n_points, cap_points;
	long long quota[64];          /* per guarantee horizon (at most 64, pc_field_horizons) */
	size_t n_quota;
	double eta;
};

/* One control_decision record as report(1) charts it, for one pool. */
struct pc_decision_point {
	double hp;                    /* actual HP demand */
	double target, mu, q;         /* the step-1 forecast point (NAN without one) */
	double quota, eta;            /* shortest-horizon quota; eta after feedback */
	double admitted, held;        /* Spot runs started since the previous decision, Spot jobs held (NAN: not the family's) */
};

/* How a family's control_decision records are read back (report(1)'s controller chart). */
struct pc_decision_reader {
	/* 1: rec has this family's shape; 0: it has not; -1 + message: its shape, malformed. */
	int (*shape)(const struct json *rec, char *err, size_t errlen);
	/* The pools of rec into names (pointers into rec), at most max; their count. */
	size_t (*pools)(const struct json *rec, const char **names, size_t max);
	/* The values of pool in rec (a name pools gave for an earlier record): 0, or -1 + message. */
	int (*point)(const struct json *rec, const char *pool, struct pc_decision_point *x, char *err, size_t errlen);
	const char *hp_title;         /* the chart's column title for hp */
	/* What its forecast quality is scored against, after "the NAME controller scores"
	 * (report(1)'s note under the quality table, pc_families_scored). */
	const char *scored;
	bool gate_counts;             /* admitted and held are the family's own (the chart's fourth panel) */
};

struct pc_family {
	const char *name;             /* "aggregate", "tenant" (the predictor_state's family) */
	/* The schema_version that selects it; NULL for the fallback family (the last row),
	 * which parses every other document and names the schema it wants. */
	const char *schema;
	/* The schema_version its config documents carry (the fallback's too): tools' --help
	 * and reads: lines list it (pc_families_help, pc_families_reads). */
	const char *config_schema;
	/* Fill c (set family, canonical, fingerprint and the shared fields). 0 or -1 + message. */
	int (*from_json)(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen);
	/* Open c (zeroed, c->cfg = cfg) for trace t (jobs and nodes present). 0 or -1 + message. */
	int (*open)(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen);
	/* d = *s already: deep-copy what d must own. */
	void (*clone)(struct pc_controller *d, const struct pc_controller *s);
	/* Free what c owns (c may be partly opened); the caller zeroes c. */
	void (*close)(struct pc_controller *c);
	/* Fill h (zeroed, h->ctx = b, b->c set) with the family's hooks. */
	void (*bind_sim)(struct pc_sim *b, struct sim_hooks *h);
	/* From now on, format every decision into r->line and call pc_records_add(r). */
	void (*spool)(struct pc_controller *c, struct pc_records *r);
	/* The control_report line (no '\n'). */
	void (*write_report)(struct strbuf *sb, const struct pc_controller *c);
	/* The observation_bundle (pc_bundle: the cutoff is within the trace range). */
	struct json *(*bundle)(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err,
			       size_t errlen);
	/* The learned state for the rolling session's predictor_state: the "model" object's
	 * keys and one "pools" entry per pool. */
	void (*learned_state)(const struct pc_controller *c, struct arena *a, struct json *model, struct json *pools);
	/* Fill v from the last decision; false before the first one. */
	bool (*last_decision)(const struct pc_controller *c, struct pc_view *v);
	/* Why the quota tool refuses the family ("is a ... controller: ..."), or NULL. */
	const char *quota_refusal;
	/* Its control_report as the result reader checks it (record_check.c), beyond what every
	 * family's holds: PC_REPORT_MISSING_BLOCK when a block of its own is missing or not an
	 * object, else PC_REPORT_WRONG_TYPE when a value of its own has the wrong kind, else NULL. */
	const char *(*check_report)(const struct json *report);
	/* The control_report keys of its own the metrics record carries when present
	 * (NULL-terminated; NULL: none). */
	const char *const *report_keys;
	/* Its control_decision records read back (report). */
	const struct pc_decision_reader *decision_reader;
	/* Its forecast in a rolling scenario (lib/roll/scenario.c): the pool a point that names
	 * no resource_pool covers (NULL: its points always name one; "*" is the trace's pool of
	 * every model, the whole cluster) and the tenant of the forecast jobs that no visible
	 * job's shape names. */
	const char *scenario_pool, *scenario_tenant;
};

/* check_report's two answers, the messages the result reader gives. */
#define PC_REPORT_MISSING_BLOCK "control_report: a summary block is missing or not an object"
#define PC_REPORT_WRONG_TYPE "control_report: a summary value has the wrong type"

/* The built-in families (family.c): the tenant's, then the aggregate's, the fallback, last. */
extern const struct pc_family *const pc_families[];
extern const size_t pc_n_families;
/* The family of families[0..n) that reads a config of schema_version schema (NULL: none
 * given): the first row naming it, else the fallback (the row without a schema), else NULL. */
const struct pc_family *pc_family_for_schema(const struct pc_family *const *families, size_t n, const char *schema);
/* A tool's --help lines for its controller option: OPTION (padded to the help's column),
 * then each family's config schema and name, the fallback family's (the default) first,
 * one a line, " or" between, " JSON file" and TAIL after the last; each line ends in '\n'. */
void pc_families_help(struct strbuf *sb, const char *option, const char *tail);
/* The families' config schemas, the fallback's first, ", " between (a tool's reads: line). */
void pc_families_reads(struct strbuf *sb);
/* report(1)'s sentence on what each family's forecast quality is scored against: "The NAME
 * controller scores SCORED", the table's order, ", the NAME controller SCORED" between, "." last. */
void pc_families_scored(struct strbuf *sb);
/* The decision reader of the family whose record shape rec has (the table's order; the
 * fallback family's last); NULL + message when rec has that shape malformed or none's. */
const struct pc_decision_reader *pc_decision_reader_of(const struct json *rec, char *err, size_t errlen);
/* The decision readers' shared pieces: a finite number of o[key] or NAN; the first quota of
 * a spot_quota_gpus_by_guarantee_hour object (the shortest horizon) or NAN; the step-1 point
 * of pool in a decision's points (pool NULL: any pool's), or NULL. */
double pc_decision_num(const struct json *o, const char *key);
double pc_decision_first_quota(const struct json *q);
const struct json *pc_decision_step1(const struct json *points, const char *pool);
/* x's target, mu and q from the step-1 point of pool in rec's points (NAN without one). */
void pc_decision_forecast(const struct json *rec, const char *pool, struct pc_decision_point *x);
/* pc_config_from_json over another table (a test registers a family of its own). */
int pc_config_from_json_in(const struct pc_family *const *families, size_t n, struct pc_config *c, const struct json *doc,
			   struct arena *a, char *err, size_t errlen);

/* The control_decision records of a run, spooled as they are made into a temporary file
 * (the controllers keep only their last decision: memory does not grow with the updates of
 * a long drain) until the plain records are out, with their count, bytes and XXH3. */
struct pc_records {
	const char *what;             /* "the control decisions": the temporary file's name in messages */
	FILE *f;
	struct strbuf line;           /* the family's spool formats one record here */
	bool failed;
	long long count, bytes;
	struct fp_xxh3 hash;
};
/* Start spooling c's decisions into r (a new temporary file). 0 or -1 + message. */
int pc_records_open(struct pc_records *r, struct pc_controller *c, const char *what, char *err, size_t errlen);
/* Append r->line (one record without '\n') to the spool. */
void pc_records_add(struct pc_records *r);
/* The controller's records after the plain ones: every spooled decision in update order,
 * then its control_report. 0 or -1 + message. */
int pc_controller_write_records(const struct pc_controller *c, struct pc_records *r, struct nd_writer *w, char *err,
				size_t errlen);
void pc_records_release(struct pc_records *r);   /* accepts a zeroed r */

/* ---- records ---- */

/* One control_decision line (no '\n') for decision d of c. */
void pc_write_decision(struct strbuf *sb, const struct pc_controller *c, const struct pc_decision *d);
/* The control_report line. */
void pc_write_report(struct strbuf *sb, const struct pc_controller *c, const struct pc_report *r);

/* ---- the past-only cutoff bundle (forecast) ---- */

/* The observation_bundle record for trace t at cutoff: jobs with submit <= cutoff + EPS
 * only, replayed offline on the update grid that ends at the cutoff. Built in a. NULL + message
 * (a cutoff before the first arrival, a trace without jobs). */
struct json *pc_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err, size_t errlen);
/* What a reader (quota) may take from a verified bundle: the plan's cutoff, capacity and eta,
 * and the forecast's points (arena-owned, steps 1..n). */
struct pc_bundle_view {
	double cutoff, capacity, eta;
	struct pc_point *points;
	size_t n;
	const char *forecast_fingerprint;
};
/* Largest capacity a quota is computed for: the trace model's capacity bound (2^40 GPUs). */
#define PC_MAX_CAPACITY 1099511627776.0
/* The value ranges of one forecast point: cutoff in [0, 1e12]; target after the cutoff and
 * at most 1e12 s past it; mu, sigma, q finite and >= 0; mu and q <= capacity when
 * capacity > 0. 0 or -1 + message naming the field. */
int pc_point_check(double cutoff, const struct pc_point *p, double capacity, char *err, size_t errlen);
/* Verify an observation_bundle record of the aggregate family against cfg before anything
 * is read from it: its own four SHA-256 fingerprints (snapshot, forecast, quota plan, the
 * bundle's), the links between them, the controller fingerprint everywhere, one cutoff,
 * every value range (pc_point_check, capacity an integer in [1, 2^40], eta within the
 * config's [minimum_eta, maximum_eta]) and the plan's quotas recomputed. Fills *out. 0 or -1
 * + message. */
int pc_bundle_verify(const struct json *b, const struct pc_config *cfg, struct arena *a, struct pc_bundle_view *out, char *err,
		     size_t errlen);
/* SHA-256 hex of the canonical sorted JSON of v (docs/predictive-rules.md §0). */
void pc_canonical_sha256(const struct json *v, char out[65]);
#endif
