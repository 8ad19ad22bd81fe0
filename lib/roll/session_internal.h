/*
 * session_internal — what the three files of the rolling session share (lib/roll internal):
 * session.c (the hooks, open, run, close), state.c (the state at a cutoff) and evaluate.c
 * (the scenario evaluations).
 */
#ifndef SCHEDNAV_ROLL_SESSION_INTERNAL_H
#define SCHEDNAV_ROLL_SESSION_INTERNAL_H
#include "roll/session.h"
#include <stdint.h>

struct roll_live {
	struct roll_controller *ctl;
	const struct trace *exec;
	struct sim *sim;
	struct roll_predictor *pred;       /* the inner predictor (NULL: none) */
	struct sim_hooks pc_hooks;         /* the predictor's hooks, wrapped */
	/* what the scheduler state needs that the session does not keep */
	double *hp_queue, *hp_jct;         /* evaluation HP completed so far (round6, sorted) */
	size_t n_hp, cap_hp;
	long long closed_spot_runs, evictions;
	/* completed jobs at the last cutoff: admitted indices below done_seen that were not
	 * done then are in undone[] (done is final, so the rest is n_done) */
	size_t done_seen, *undone, n_undone, cap_undone;
	long long n_done;
	struct fp_xxh3 prefix;             /* visible prefix fingerprint, fed in trace order */
	size_t prefix_n;
	struct roll_live_options o;         /* as opened */
	long long replayed;                /* decisions re-applied so far (resume) */
	/* set when a decision asked the run to stop (plan: pending); the pending request
	 * lives in pending_arena until roll_live_close */
	bool stopped;
	struct arena pending_arena;
	/* restrict_output's job flags (all zero between scenarios), index map and kept list */
	unsigned char *ro_flag;
	size_t *ro_map, *ro_kept, ro_cap;
	struct sim *spare;                   /* snapshot: the last scenario's clone, whose buffers the next one reuses */
	/* the trace's jobs by id (id_order) and each job's place there (id_rank), built once
	 * for id_n jobs: the carryover is sorted by rank, not by strcmp, at every cutoff */
	uint32_t *id_order, *id_rank;
	size_t id_n;
	struct roll_live_timing t;            /* benchmark counters */
	char err[1024];
};


/* The scheduler state at the live session's cutoff (roll_engine.state). */
int roll_live_state(void *ctx, struct arena *a, struct roll_state *st, char *err, size_t errlen);
/* The inner predictor's latest decision, or NULL (roll_engine.projection). */
const struct roll_projection *roll_live_projection(void *ctx, struct arena *a);

#endif
