/*
 * policy — the original `schednav.simulation-policy/v1` file: validation, defaults and
 * the canonical dict whose XXH3-128 is the policy fingerprint (docs/simulator.md §3.1).
 * Strings point into the arena given to policy_parse; nothing here prints or exits.
 *
 * Divergence from the original: policy seconds must be integers (3600 or 3600.0);
 * the original's int() silently truncated 1800.7 to 1800, we reject it. They must also be
 * at most POLICY_MAX_SECONDS, and action_id follows the identifier rule (core/text.h).
 */
#ifndef SCHEDNAV_SIM_POLICY_H
#define SCHEDNAV_SIM_POLICY_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "sim/priority.h"
#include <stdbool.h>
#include <stddef.h>

#define POLICY_SCHEMA "schednav.simulation-policy/v1"
#define POLICY_MAX_SECONDS 1000000000000LL   /* every policy duration: the trace model's bound (1e12 s) */

enum sim_scheduler { SCHED_FIFO, SCHED_PRIORITY_PREEMPTIVE };
enum sim_victim_order { VICTIM_LONGEST_REMAINING, VICTIM_LOWEST_CHECKPOINT_LOSS };
/* predictive_admission_mode: whether an attached predictive controller's quota gates Spot
 * starts (enforce, the default, left out of the canonical dict and so of the fingerprint)
 * or the controller only runs and reports (bypass). Inert without a controller. */
enum sim_admission { ADMISSION_ENFORCE, ADMISSION_BYPASS };
/* issue 37: the queue discipline. none = the original's greedy in-order pass (§3.5); easy =
 * a reservation for the first blocked job only; conservative = a reservation for every queued
 * job (lib/sim/backfill.c, docs/simulator.md §3.10). */
enum sim_backfill { BACKFILL_NONE, BACKFILL_EASY, BACKFILL_CONSERVATIVE };
/* issue 37: what a reservation holds. jobs = the job's GPUs; whole_nodes = every GPU of the
 * whole nodes it needs, as Slurm's backfill plans a pending job (docs/simulator.md §3.10). */
enum sim_bf_reservation { BF_RESERVE_JOBS, BF_RESERVE_WHOLE_NODES };
/* issue 37: the plan's times. rounded_up = every planned end rounded up to bf_resolution, a
 * job fits before a reservation that starts at its end; slurm = Slurm's backfill arithmetic:
 * running and started jobs end exactly at start + limit, a reservation's start and end are
 * rounded down to bf_resolution, and a job fits before a reservation only if it ends strictly
 * before it starts (docs/simulator.md §3.10). */
enum sim_bf_rounding { BF_ROUND_UP, BF_ROUND_DOWN };

/* issue 36: placement_strategy. POOL ('deterministic_best_fit', the default) is the original's
 * pool model (docs/simulator.md §3.6); every other value selects the physical node model
 * (lib/sim/physical.c, §3.13) with the lib/place policy of the same name. */
enum sim_placement { PLACEMENT_POOL, PLACEMENT_LARGEST_FREE, PLACEMENT_RANDOM, PLACEMENT_DOT_PRODUCT, PLACEMENT_GPU_CLUSTERING,
		     PLACEMENT_GPU_PACKING, PLACEMENT_BEST_FIT, PLACEMENT_FGD };

/* A new knob is its field here and one row of knobs[] in policy.c (key, kind, whether
 * required, the field, its names or its least value): the key check, the parse and its
 * range, the time bound and the canonical form all come from that row. */
struct sim_policy {
	const char *action_id;
	enum sim_scheduler scheduler;
	long long guarantee_seconds;          /* spot_guarantee_seconds, >= 0 */
	long long checkpoint_seconds;         /* checkpoint_interval_seconds, > 0 */
	long long overhead_seconds;           /* preemption_overhead_seconds, >= 0 */
	long long hp_delay_seconds;           /* hp_preemption_delay_seconds, default 0 */
	bool has_budget;                      /* spot_eviction_budget_rate given and not null */
	double budget;                        /* in [0,1] when has_budget */
	enum sim_victim_order victim_order;   /* default longest_remaining */
	enum sim_admission admission;         /* predictive_admission_mode, default enforce */
	/* issue 37 (cluster replay): backfill and its parameters, every default = today's engine */
	enum sim_backfill backfill;           /* backfill, default none */
	long long bf_default_limit;           /* backfill_default_time_limit_seconds: plan for a job without time_limit (0 = never ends) */
	long long bf_window;                  /* backfill_window_seconds (Slurm bf_window): no reservation beyond now + this (0 = none) */
	long long bf_resolution;              /* backfill_resolution_seconds (bf_resolution): planned ends rounded up to it (0 = exact) */
	long long bf_max_job_test;            /* backfill_max_job_test (bf_max_job_test): queued jobs tried per pass (0 = all) */
	long long bf_interval;                /* backfill_interval_seconds (bf_interval): a backfill cycle every so often, the
	                                       * in-order pass at the other instants (0 = a cycle at every instant) */
	enum sim_placement placement;         /* issue 36: placement_strategy, default the pool model */
	long long placement_seed;             /* placement_seed: the physical model's seed (ranks, random), default 0 */
	enum sim_bf_reservation bf_reservation; /* backfill_reservation, default jobs */
	enum sim_bf_rounding bf_rounding;     /* backfill_plan_times, default rounded_up */
	long long bf_res_phase;               /* backfill_resolution_phase_seconds: the bf_resolution grid is
	                                       * {k * res - phase} (0 = multiples of res), < res */
	const struct mf_config *mf;           /* priority_multifactor (needs backfill), NULL = the key order of §3.4 */
	struct json *canonical;               /* the canonical dict (original key names) */
	char fingerprint[FP_HEX_XXH3];                 /* XXH3-128 of json_write_sorted(canonical) */
};

/* Validate a parsed policy document and fill p (strings and canonical dict in a). 0 or -1 + message. */
int policy_from_json(struct sim_policy *p, const struct json *doc, struct arena *a, char *err, size_t errlen);
/* Read and validate a policy file ("PATH: message" errors). */
int policy_load(struct sim_policy *p, const char *path, struct arena *a, char *err, size_t errlen);
/* issue 36: policy_load with placement_strategy set to placement (NULL: the file's) and
 * placement_seed to seed (< 0: the file's) before validation: the policy, its canonical dict
 * and fingerprint are those of the file so edited (sim-run --placement, studies' PLACEMENT). */
int policy_load_placement(struct sim_policy *p, const char *path, const char *placement, long long seed, struct arena *a, char *err,
			  size_t errlen);
const char *policy_scheduler_name(enum sim_scheduler s);
const char *policy_victim_name(enum sim_victim_order v);
const char *policy_admission_name(enum sim_admission m);
const char *policy_backfill_name(enum sim_backfill b);
/* issue 36: a placement_strategy's name ('deterministic_best_fit', 'largest-free', ..., 'fgd'). */
const char *policy_placement_name(enum sim_placement m);
#endif
