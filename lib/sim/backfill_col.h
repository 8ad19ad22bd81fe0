/*
 * One column of conservative backfill's fast plan (backfill.c, issue 37): the free GPUs of one
 * GPU model over time, a step function on the column's own breakpoints. Rows: f[i] free from
 * t[i] to t[i + 1] (the last one on for ever); t[0] is now.
 */
#ifndef SCHEDNAV_SIM_BACKFILL_COL_H
#define SCHEDNAV_SIM_BACKFILL_COL_H
#include <stdbool.h>
#include <stddef.h>
#include <math.h>

struct col {
	double *t, *f;
	size_t n, cap;
	double lo;      /* no row is below it */
	bool built;     /* in this pass (backfill.c's flag) */
};

void sim_col_begin(struct col *c, double now, double free_now);             /* row 0 only */
void sim_col_release(struct col *c, double t, double g);   /* g freed at t (t ascending, >= now) */
void sim_col_end(struct col *c);                           /* built: lo computed */
void sim_col_take(struct col *c, size_t i0, double end, double g);   /* g less over [t[i0], end) */
size_t sim_col_point_at(struct col *c, double t);   /* the row at t (> t[0]), inserted when absent */
void sim_col_take_upto(struct col *c, size_t i0, double end, double g, double upto);   /* whole-node reservation */
/* Whether row time ti is past the L seconds of a start at tc (row c; first: c is now). res < 0:
 * ours, [tc, tc + L). res >= 0, Slurm's (backfill_plan_times slurm): a start now is tested on
 * [tc, tc + L], a reservation on [tc, tc + L rounded down to res's grid {k * res - ph}). */
static inline bool col_past(double tc, double ti, bool first, double L, double res, double ph)
{
	if (res < 0)
		return ti >= tc + L;
	if (first)
		return ti > tc + L;
	return ti >= (res > 0 ? floor((tc + L + ph) / res) * res - ph : tc + L);
}

/* A pass's memo of reservation searches for one model (backfill.c's full profile): within a
 * pass the plan only loses free GPUs, so a job of g >= g0 GPUs for L >= L0 seconds can start
 * no earlier than a search for (g0, L0) found (t0; INFINITY: never). A few recent searches. */
struct bf_memo {
	double g[8], L[8], t[8];
	unsigned n, next;
};
double sim_bf_memo_bound(const struct bf_memo *m, double g, double L);   /* the latest t0 that binds; -INFINITY: none */
void sim_bf_memo_note(struct bf_memo *m, double g, double L, double t);

/* backfill_index.c: true = conservative always plans with the full profile of all models (the
 * reference the unit test compares the per-model plan with); false by default. */
extern bool sim_bf_force_full;

size_t sim_col_earliest(const struct col *c, double g, double L, double res, double ph);    /* n: never */

/* backfill_times.c: the plan's arithmetic under backfill_plan_times and backfill_reservation */
struct sim;
double sim_bf_phase(const struct sim *s);
double sim_bf_round_up(const struct sim *s, double t);
bool sim_bf_closed(const struct sim *s);
double sim_bf_test_res(const struct sim *s);
double sim_bf_res_down(const struct sim *s, double t);
double sim_bf_whole_nodes(const struct sim *s, int m, double g);
bool sim_bf_cycle_now(struct sim *s);   /* this instant runs a backfill cycle (bf_interval) */
bool sim_col_holds_now(const struct col *c, double g, double L, bool closed);
void sim_col_free(struct col *c);

#endif
