/*
 * internal — simulator state shared by the files of lib/sim. Not a public interface: only
 * lib/sim includes it. All memory is owned by struct sim and freed by sim_structures_release.
 *
 * Layers (no circle: a file uses only files of its own line or below; tests/lint-cycles.py
 * checks it from the objects' symbols, docs/design.md "No circles"):
 *   branch.c, clone.c      counterfactuals: a new future, copies of a session (use engine.c)
 *   engine.c               the event loop and session life (sim_open ... sim_close)
 *   preempt.c              victims, and the structures' init/release over the layers below
 *   backfill.c             the backfill start pass; starts a job through s->start_fn
 *                          (sim_start_job below), which engine.c sets: its only way up
 *   backfill_col.c, queue.c, running.c, placement.c   (placement.c uses physical.c)
 *   physical.c             the node model (uses policy.c)
 *   policy.c, priority.c   (policy.c uses priority.c's sim_mf_parse)
 *   base.c                 helpers for every layer: xsum_*, sim_job_view_of, sim_mem_dup, sim_present_slots
 * result*.c read and write results and use only each other and policy.c.
 */
#ifndef SCHEDNAV_SIM_INTERNAL_H
#define SCHEDNAV_SIM_INTERNAL_H
#include "sim/engine.h"
#include <stdbool.h>
#include <stddef.h>

struct sim_node {
	int model;
	double free;
	const char *id;
};

struct sim_job {
	const struct trace_job *tj;
	double submit, gpu;
	double rem;            /* remaining work while not running (running: in its heap entry, running.c) */
	double qsince, qsec, first_start, run_start, completion, rg;
	long long eo, runs, preemptions;
	int model;             /* index into sim.models, -1 = "*" */
	bool hp, eval_pop, eval_spot;
	bool started, queued, running, done;
	struct sim_alloc *alloc;
	size_t n_alloc, cap_alloc;
	size_t pos;            /* position in the running heap */
	size_t qlane, qpos;    /* queue lane and position in it (queue.c) */
	struct sim_job *snext, *sprev;   /* running Spot list, in start order */
};

/* A running job's entry in the running heap (running.c): its remaining work, kept lazily
 * here rather than in the job, so that the heap's comparisons read the heap's own array. */
struct run_entry {
	double rem;            /* remaining work, current as of step ep */
	double now_ep;         /* the clock at that step */
	size_t ep;
	struct sim_job *j;
};

struct victim_list {
	struct sim_job **v;
	size_t n, cap, off;
	bool built;
};

/* Exact running sum of doubles: values that are multiples of 2^-60 below 2^62 in magnitude
 * ("coarse": every GPU amount a trace holds) are added as integers; other values are only
 * counted, and a sum with any of them is recomputed from its set by the owner. */
struct xsum {
	__int128 units;
	size_t fine;
};

void sim_xsum_add(struct xsum *x, double v, int sign);
double sim_xsum_value(const struct xsum *x);    /* when x->fine == 0: the exact sum, rounded once */

struct sim {
	const struct sim_policy *p;
	const struct trace *t;
	struct sim_output *out;
	struct sim_output res;             /* the output being built (out points here) */
	struct sim_hooks hooks;
	bool hooked;                       /* any hook: keep the hook-side state below */
	bool live_only;                    /* sim_clone_live: finished jobs not copied, no sim_finish */
	size_t *copied, n_copied;          /* live_only: the slots below fresh_from it copied (ascending) */
	size_t fresh_from;                 /* live_only: every slot from here to n holds a job */
	size_t jobs_trim;                  /* reused live clone: the whole pages of the slots below this were given back */
	bool gated;                        /* gate_limit and gate_admit set */
	bool class_lanes;                  /* queue lanes also split by class (fifo with a gate) */
	size_t next_arrival;
	double cap;
	bool by_guarantee;                 /* this step's time came from a guarantee expiry alone */
	long futile_steps;                 /* futile eviction steps in a row (engine.c, SIM_MAX_FUTILE_STEPS) */
	/* kept only when hooked */
	double hp_outstanding;
	struct xsum spot_backlog, running_spot;
	size_t queued_spot;
	double idle_since;                 /* NAN: not idle */
	double next_event;                 /* this step's own next event time, before the hooks' wake-up (issue 35) */
	bool idle_fits;                    /* some queued job would fit if the gate allowed it */
	struct sim_job *jobs;
	size_t n, completed;
	size_t cap_n;                      /* jobs[] capacity: n plus the reserve of sim_open_reserve */
	long long eo_base;                 /* a victim's eo is eo_base + k (eo_base = cap_n, fixed) */
	struct sim_node *nodes;
	size_t n_nodes;
	const char **models, **sorted_models;
	int n_models;
	double *fbm, tfree, now;
	long long k;                       /* evictions so far: a victim's eo is n + k */
	long long spot_runs_total, eval_spot_runs, eval_events;
	size_t hp_queued;
	/* queue.c */
	struct queue_index *qix;
	/* running.c */
	struct run_entry *running;
	size_t rn, rcap;
	struct sim_job **done;
	size_t dn, dcap;
	double *dlog;                      /* delta of every step */
	size_t steps, dcap_log, last_inexact;
	size_t last_nonint;                /* 1 + the last step whose delta was not an exact whole number > 0 */
	size_t *ms_idx;                    /* monotone stack of (step, lowest-bit exponent) */
	int *ms_g;
	size_t ms_n;
	struct sim_job *shead, *stail, *gfront;
	/* victims, per HP model (index model + 1; 0 = "*") */
	struct victim_list *vl;
	/* backfill.c (issue 37): running jobs by planned end; NULL = rebuilt when a pass needs it */
	struct bf_index *bfx;
	struct mf_state *mfs;              /* priority.c (issue 37): each tenant's decayed usage; NULL until a pass needs it */
	double bf_next, bf_last;           /* backfill.c (issue 37): the next backfill cycle (backfill_interval_seconds), the last */
	bool bf_blocked;                   /* the last pass left a queued job that could not start */
	long long bf_idle_cycles;          /* backfill cycles in a row that started nothing with nothing running or to arrive */
	/* placement.c */
	struct placement_index *pix;
	struct phys *phys;                 /* physical.c (issue 36): the node model; NULL = the pool model */
	struct sim_alloc *cand;
	size_t ccap;
	void (*start_fn)(struct sim *s, struct sim_job *j);   /* engine.c's, set by sim_open_reserve: sim_start_job */
};

int sim_structures_init(struct sim *s, char *err, size_t errlen);
/* A node model's index, -1 for "*" (any), -2 for one no node has. */
int sim_model_of(const struct sim *s, const char *model);
/* A fresh job slot from its trace job (the execution-order key eo, population by submit in
 * [eval_start, eval_end]): -1 when it asks for a model no node has (j->model is then -2). */
int sim_job_init(const struct sim *s, struct sim_job *j, const struct trace_job *tj, long long eo, double eval_start, double eval_end);
/* Deep copies for sim_clone: d is a copy of s's scalars whose jobs array is already copied;
 * job pointers are rebased from s->jobs to d->jobs. */
void sim_queue_clone(struct sim *d, const struct sim *s);
void sim_placement_clone(struct sim *d, const struct sim *s);
void sim_structures_release(struct sim *s);

/* base.c (with sim_xsum_add and sim_xsum_value above) */
void sim_job_view_of(const struct sim *s, const struct sim_job *j, struct sim_job_view *v);
void *sim_mem_dup(const void *p, size_t n);             /* xmalloc'd copy (n may be 0) */
/* The slots that hold a job, ascending (malloc'd, *n of them), or NULL when every slot below
 * s->n does (not a live clone): a live clone's zero slots are never read, so its cost
 * follows the live state. */
size_t *sim_present_slots(const struct sim *s, size_t *n);

/* queue.c: the queue ordered by (eo) or (HP first, eo). */
void sim_queue_init(struct sim *s);
void sim_queue_release(struct sim *s);
void sim_queue_insert(struct sim *s, struct sim_job *j);
void sim_queue_remove(struct sim *s, struct sim_job *j);
void sim_queue_rebuild(struct sim *s);                /* re-sort every queued job under s->p's key */
void sim_queue_each(const struct sim *s, void (*fn)(void *ctx, struct sim_job *j), void *ctx); /* lane order */
void sim_queue_pass_begin(struct sim *s);             /* a start pass: frees only shrink until the next begin */
struct sim_job *sim_queue_pass_next(struct sim *s);   /* next job in key order with demand <= its eligible free */
void sim_hp_iter_begin(struct sim *s);                /* walk the queued HP jobs in order */
struct sim_job *sim_hp_iter_next(struct sim *s);
void sim_hp_iter_skip_model(struct sim *s, int model); /* the rest of this walk skips HP jobs of model */
double sim_hp_next_wakeup(struct sim *s, double thr, double delay); /* min qsince+delay > thr */
size_t sim_queue_lane_count(const struct sim *s);     /* issue 37: sim_queue_order_next's cursors */
struct sim_job *sim_queue_order_next(struct sim *s, size_t *cur);   /* every queued job in key order */
void sim_queue_order_skip_unfit(struct sim *s, size_t *cur);        /* leave out models none of whose jobs fits now */

/* placement.c */
int sim_placement_init(struct sim *s);
void sim_placement_release(struct sim *s);
int sim_place(struct sim *s, struct sim_job *j);      /* 0 = j->alloc filled and its GPUs reserved, -1 = does not fit */
bool sim_placement_fits(struct sim *s, const struct sim_job *j); /* the original's left-to-right sum test */
void sim_release(struct sim *s, struct sim_job *j);   /* and clears j->alloc */

/* physical.c (issue 36, docs/simulator.md §3.13): the physical node model behind the same
 * calls when placement_strategy is not the pool's (placement.c dispatches) */
int sim_phys_init(struct sim *s, char *err, size_t errlen);
void sim_phys_release(struct sim *s);
void sim_phys_clone(struct sim *d, const struct sim *s);
bool sim_phys_fits(struct sim *s, const struct sim_job *j);
int sim_phys_place(struct sim *s, struct sim_job *j);
void sim_phys_unplace(struct sim *s, struct sim_job *j);
size_t sim_phys_victims(struct sim *s, struct sim_job *hp, const struct victim_list *vl, struct sim_job ***out);
void sim_phys_sample(struct sim *s);                  /* a placement sample at s->now when the state changed */
void sim_phys_finish(struct sim *s, struct sim_output *o);   /* o->placement from the samples and the jobs */
void sim_phys_forget(struct sim *s, size_t first);    /* the job slots from first on hold new jobs */

/* running.c */
void sim_running_add(struct sim *s, struct sim_job *j);
void sim_running_remove(struct sim *s, struct sim_job *j);
double sim_running_rem(struct sim *s, struct sim_job *j);           /* current remaining work */
void sim_running_advance(struct sim *s, double next, double delta); /* rem = max(0, rem - delta), lazily */
double sim_running_next_completion(struct sim *s, double thr);      /* min now+rem > thr */
double sim_running_next_guarantee(struct sim *s, double thr);       /* min run_start+rg > thr over Spot */
struct sim_job **sim_running_collect_done(struct sim *s, size_t *n); /* removes rem <= EPS, by job_id */
struct sim_job *sim_running_guarantee_frontier(struct sim *s, double thr); /* Spot before it: guarantee passed */

/* engine.c's start of j now (sim_queue_remove'd, placed), for the layers below it: a call
 * through s->start_fn, so that backfill.c does not use engine.c (no circle) */
static inline void sim_start_job(struct sim *s, struct sim_job *j) { s->start_fn(s, j); }

/* backfill.c (issue 37): the start pass under backfill easy or conservative (docs/simulator.md §3.10) */
size_t sim_backfill_pass(struct sim *s);
double sim_backfill_next_cycle(const struct sim *s, double thr);   /* a cycle time > thr the engine must visit, or INFINITY */
void sim_backfill_started(struct sim *s, struct sim_job *j);   /* from sim_start_job: index j's planned end */
void sim_backfill_release(struct sim *s);
void sim_backfill_stopped(struct sim *s, struct sim_job *j);   /* from sim_running_remove: j's run no longer in the plan */
/* priority.c (issue 37): the queued jobs v[0..n) in priority/multifactor order */
void sim_priority_sort(struct sim *s, struct sim_job **v, size_t n);
void sim_priority_release(struct sim *s);
void sim_priority_step(struct sim *s, double next);   /* from the engine's step: usage up to next */
void sim_priority_clone(struct sim *d, const struct sim *s);

/* preempt.c */
void sim_victims_reset(struct sim *s);
struct victim_list *sim_victims_for(struct sim *s, int model);
#endif
