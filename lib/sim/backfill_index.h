/*
 * backfill_index — the index of running jobs by planned end that conservative and easy
 * backfill (backfill.c, issue 37) keep across passes.
 */
#ifndef SCHEDNAV_SIM_BACKFILL_INDEX_H
#define SCHEDNAV_SIM_BACKFILL_INDEX_H
#include "sim/internal.h"
#include "sim/backfill_col.h"
#include <math.h>

struct release {
	double t;
	size_t job;     /* index into s->jobs (ties in job order: deterministic) */
	size_t run;     /* the job's run ordinal when it started */
	struct sim_job *j;
	double gpu;     /* the job's, kept here: a plan reads the index, not the jobs */
	int model;
	size_t seq;     /* bf_index.starts at its start (0: in the index's build) */
};

/* ---- the index of running jobs by planned end, kept across passes ----
 * An entry is (planned end, job, run ordinal); it is stale once the job no longer runs that
 * run (completed or evicted: no hook there), skipped when read and dropped when the index is
 * compacted. A job planned never to end is not in it. The index remembers the planning
 * parameters it was built under; another policy's (sim_set_policy) rebuilds it. */
struct rvec {
	struct release *v;
	size_t n, cap;
};

struct bf_index {
	struct rvec all;                /* the entries (fast: unused) */
	size_t count;                   /* fast: the entries over every model */
	long long dflt, res, ph;        /* bf_default_limit, bf_resolution and its phase it was built with */
	enum sim_backfill mode;         /* the policy it was built for */
	bool fast;                      /* conservative on a trace of concrete models: per model */
	size_t starts;                  /* the entries inserted since the build */
	bool star;                      /* some job is of "*" (any model): the total binds every job */
	struct rvec *bym;               /* fast: the entries per model (v unused) */
	struct col *cols;               /* fast: the plan's columns, their buffers kept across passes */
	size_t nm, checked;             /* fast: models; jobs looked at for "*" */
	size_t *cur;                    /* per job: its run ordinal + 1 while it runs, else 0 */
	size_t ncur;
};

/* Whether an entry's run still runs: read from the index's own array, not from the jobs (a
 * cache miss each, and the plan reads every entry every cycle). */
static inline bool live(const struct bf_index *x, const struct release *r)
{
	return x->cur[r->job] == r->run + 1;
}

/* A job's planned run: its time limit, else the policy's default, else never ending. */
static inline double planned_run(const struct sim *s, const struct sim_job *j)
{
	if (j->tj->time_limit > 0)
		return (double)j->tj->time_limit;
	return s->p->bf_default_limit > 0 ? (double)s->p->bf_default_limit : INFINITY;
}

int sim_bf_release_cmp(const void *a, const void *b);   /* (t, job) */
struct bf_index *sim_bf_index_get(struct sim *s);         /* built when missing or planned otherwise */

#endif
