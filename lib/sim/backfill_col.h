/*
 * One column of conservative backfill's fast plan (backfill.c, issue 37): the free GPUs of one
 * GPU model over time, a step function on the column's own breakpoints. Rows: f[i] free from
 * t[i] to t[i + 1] (the last one on for ever); t[0] is now.
 */
#ifndef SCHEDNAV_SIM_BACKFILL_COL_H
#define SCHEDNAV_SIM_BACKFILL_COL_H
#include <stdbool.h>
#include <stddef.h>

struct col {
	double *t, *f;
	size_t n, cap;
	double lo;      /* no row is below it */
	bool built;     /* in this pass (backfill.c's flag) */
};

void col_begin(struct col *c, double now, double free_now);             /* row 0 only */
void col_release(struct col *c, double t, double g);   /* g freed at t (t ascending, >= now) */
void col_end(struct col *c);                           /* built: lo computed */
void col_take(struct col *c, size_t i0, double end, double g);   /* g less over [t[i0], end) */
size_t col_point_at(struct col *c, double t);   /* the row at t (> t[0]), inserted when absent */
void col_take_upto(struct col *c, size_t i0, double end, double g, double upto);   /* whole-node reservation */
/* closed: a row that starts at the end of the L seconds counts too (Slurm's test) */
size_t col_earliest(const struct col *c, double g, double L, bool closed);    /* n: never */
bool col_holds_now(const struct col *c, double g, double L, bool closed);
void col_free(struct col *c);

#endif
