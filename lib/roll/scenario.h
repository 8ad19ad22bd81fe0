/*
 * scenario — the past-only workload of one candidate scenario over [cut, cut + H]
 * (docs/rolling-rules.md "Scenario" (`past-replay-scenario/v3`)), a pure function of explicit inputs:
 *   1. duration samples: jobs of either trace submitted and completed (offline: submit +
 *      duration) by the cutoff, one per (job id, class), grouped by (class, pool) with a
 *      fallback to the class;
 *   2. each carryover job (queued or running at the cutoff, scheduler-state order) gets an
 *      estimated remaining time: median of (d − elapsed) over samples d > elapsed
 *      ("conditional-survival-median"), else max(3600, median d)
 *      ("right-censored-class-median-fallback"), else 3600
 *      ("sparse-history-one-hour-fallback"); clamped to [60, H]. A queued job's current wait
 *      is kept as its initial wait;
 *   3. workload-history jobs with submit in (cut − H, cut] that completed by the cutoff are
 *      replayed shifted by +H, HP ones only when there are no forecast points;
 *   4. for each forecast point with target in (cut, cut + H]: total = min(C_pool, q) minus
 *      the running HP carryover of that pool whose estimate > target − cut; the increment
 *      is submitted at max(cut, target − 3600) for min(3600, cut + H − (target − 3600));
 *   5. split into pieces shaped like the visible HP jobs of the pool (the completed history
 *      HP jobs, then the HP carryover; 0 < g <= C), rotated by the point's index; without
 *      templates one piece of min(req, max(1, C/64)) for the family's scenario_tenant;
 *      piece = min(rem, max(req/256, template)), cycling, at most 256, any remainder added
 *      to the last piece so the sum is exact.
 * A point without a pool takes its family's scenario_pool; "*" (the trace's pool of every
 * model, a family forecasting the whole cluster) uses the whole cluster, subtracts every
 * running HP carryover and asks for any model: the original put it on the first model of
 * the node list, which we do not copy.
 * The oracle's scenario instead takes the execution trace's real jobs with submit in
 * (cut, cut + H] ("actual-future"; non-deployable). Scenario jobs are sorted by
 * (submit, id). Everything lives in the caller's arena. Nothing prints or exits.
 */
#ifndef SCHEDNAV_ROLL_SCENARIO_H
#define SCHEDNAV_ROLL_SCENARIO_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "roll/observe.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_SCENARIO_GENERATOR "schednav.horizon-scenario/1"
#define ROLL_MAX_PIECES 256

enum roll_scn_kind { SCN_CARRYOVER, SCN_HISTORY, SCN_FORECAST, SCN_FUTURE };

struct roll_scn_job {
	const char *id;                    /* carryover::NNNNNN::ID, history::…, forecast-hp::NNNNNN::PPPP::POOL, future::… */
	double submit, duration, gpus;
	bool hp;
	const char *model, *tenant;        /* tenant NULL = none */
	enum roll_scn_kind kind;
	const char *source_id;             /* the job it stands for (NULL for forecast pieces) */
	bool has_initial_wait;
	double initial_wait;               /* queued carryover: its current wait */
};

struct roll_estimate {
	const char *scenario_id;
	const struct roll_carry *carry;
	double estimate;                   /* clamped remaining seconds */
	const char *method;
	long long samples;
};

struct roll_piece { double gpus; const char *tenant, *source_id; };

/* Duration samples of the jobs visible and completed at a cutoff (step 1), shared by the
 * scenarios of a decision and grown from one cutoff to the next (malloc'd; the traces
 * are borrowed and must outlive it). Both traces hold the same row for the same job id. */
struct roll_samples;
struct roll_samples *roll_samples_new(const struct trace *exec, const struct trace *history);
/* Take in the jobs completed by cut + EPS (cut never decreases; an earlier cut is ignored). */
void roll_samples_advance(struct roll_samples *s, double cut);
void roll_samples_free(struct roll_samples *s);

/* The carryover part of a cutoff's scenarios: the runtime estimate of every carryover job
 * (step 2) and the record's fields over them. It depends on the cutoff, the state and the
 * samples only, so the scenarios of one decision share one (built by the first, summarized
 * by the first roll_scenario_json; zero-initialize it, one per cutoff, in the arena the
 * scenarios use). */
struct roll_carry_est {
	bool built, summarized;
	struct roll_estimate *est;           /* in the state's order */
	size_t n;
	char est_fp[FP_HEX_XXH3], wait_fp[FP_HEX_XXH3];
	long long n_waits, by_method[3];
	double min, median, max;             /* of the estimates (n > 0) */
};

struct roll_scenario_in {
	const struct trace *exec, *history;  /* execution and workload-history traces */
	double cut;
	long long horizon;
	const struct roll_state *state;      /* carryover, in its order */
	const struct roll_point *points;     /* the projection's points; none for the stress scenario */
	size_t n_points;
	const char *projection_fp;           /* NULL = none */
	const char *profile_id;              /* calibrated-p90 | recent-history-replay | actual-future */
	bool stress;
	bool actual_future;                  /* oracle */
	const struct roll_samples *samples;  /* advanced to cut; NULL: built here */
	struct roll_carry_est *carry_est;    /* shared with the cutoff's other scenarios; NULL: own */
	/* from the projection's family: the pool of a point that names none (NULL: such a point
	 * is skipped) and the tenant of forecast pieces no template names */
	const char *scenario_pool, *scenario_tenant;
};

struct roll_scenario {
	const char *profile_id;
	bool stress, actual_future;
	double cut;
	long long horizon;
	struct roll_scn_job *jobs;           /* the injected jobs (not the carryover, which the live
					      * simulator state holds), sorted by (submit, id) */
	size_t n_jobs;
	struct roll_estimate *est;           /* the carryover's estimates (= carry_est->est) */
	size_t n_est;
	struct roll_carry_est *carry_est;
	struct json *decomposition;          /* points array, or JSON null */
	const char *forecast_tenant;         /* in->scenario_tenant */
	char fp[FP_HEX_XXH3];                         /* filled by roll_scenario_json */
};

/* Build the scenario (never fails: an empty scenario is a valid one). */
void roll_scenario_build(struct arena *a, const struct roll_scenario_in *in, struct roll_scenario *out);
/* Decompose requested GPUs into pieces (step 5); returns the piece count (<= 256). */
size_t roll_decompose(double requested, const struct roll_piece *templates, size_t n_templates, double capacity,
		      size_t point_index, const char *tenant, struct roll_piece out[ROLL_MAX_PIECES]);
/* Median remaining estimate of step 2 for a job of class/pool with elapsed seconds. */
double roll_estimate_remaining(const double *sorted, size_t n, double elapsed, long long horizon, const char **method, long long *samples);
/* The estimator methods of step 2, in the order the record's summary counts them. */
extern const char *const roll_estimator_methods[3];
/* One carryover estimate as a JSON object (scenario_job_id, estimated_remaining_seconds,
 * estimator_method, estimator_sample_count), appended to sb: the line
 * carryover_runtime_estimates_fingerprint hashes per job. */
void roll_estimate_entry_write(struct strbuf *sb, const struct roll_estimate *e);
/* The `scenario` record (cutoff, profile, role, generator, snapshot fp, the estimates' count,
 * fingerprint and summary, the initial waits' count and fingerprint, decomposition, the injected jobs — every job but the carryover, which the live
 * simulator state already holds — and scenario_fingerprint, copied to s->fp). */
struct json *roll_scenario_json(struct arena *a, struct roll_scenario *s, const char *trace_id, const char *snapshot_fp,
				const char *projection_fp, long long decision_index);
#endif
