/* Unit tests for lib/sim/backfill_col: one column of conservative backfill's per-model plan
 * (issue 37), on a hand-computed step function. */
#include "sim/backfill_col.h"
#include <stdio.h>
#include <stdlib.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

int main(void)
{
	struct col c = { 0 };
	/* now = 0 with 1 GPU free; 3 more free at 100 (a running job's planned end). */
	sim_col_begin(&c, 0, 1);
	sim_col_release(&c, 100, 3);
	sim_col_end(&c);
	CHECK(c.n == 2 && c.t[1] == 100 && c.f[1] == 4 && c.lo == 1, "built: n %zu lo %g", c.n, c.lo);
	CHECK(sim_col_earliest(&c, 4, 50, -1, 0) == 1, "4 GPUs start at the release");
	CHECK(sim_col_earliest(&c, 1, 1000, -1, 0) == 0, "1 GPU starts now");
	CHECK(sim_col_earliest(&c, 5, 1, -1, 0) == c.n, "5 GPUs never fit");
	CHECK(!sim_col_holds_now(&c, 2, 10, false), "2 GPUs are not free now");
	CHECK(sim_col_holds_now(&c, 1, 1e9, false), "1 GPU is free now and later (lo)");
	/* A reservation of 4 GPUs over [100, 200): a breakpoint at 200 is inserted. */
	sim_col_take(&c, 1, 200, 4);
	CHECK(c.n == 3 && c.t[2] == 200 && c.f[1] == 0 && c.f[2] == 4 && c.lo == 0, "reserved: n %zu f1 %g f2 %g lo %g", c.n, c.f[1], c.f[2], c.lo);
	CHECK(sim_col_earliest(&c, 1, 50, -1, 0) == 0, "1 GPU for 50 s ends before the reservation");
	CHECK(sim_col_earliest(&c, 1, 150, -1, 0) == 2, "1 GPU for 150 s waits for the reservation's end");
	CHECK(sim_col_holds_now(&c, 1, 100, false), "[0, 100) holds 1 GPU");
	CHECK(!sim_col_holds_now(&c, 1, 101, false), "[0, 101) reaches the reserved row");
	/* A release due now gives a second row at now (not free now, the first thing to be). */
	sim_col_begin(&c, 50, 0);
	sim_col_release(&c, 50, 2);
	sim_col_end(&c);
	CHECK(c.n == 2 && c.t[1] == 50 && c.f[0] == 0 && c.f[1] == 2, "due now: n %zu", c.n);
	CHECK(sim_col_earliest(&c, 2, 10, -1, 0) == 1 && !sim_col_holds_now(&c, 1, 10, false), "due now is not free now");
	sim_col_free(&c);
	/* col_past: ours is half-open; Slurm's is closed for a start now and rounds a later
	 * start's end down to bf_resolution (backfill_plan_times slurm) */
	CHECK(col_past(0, 60, true, 60, -1, 0) && !col_past(0, 60, true, 60, 5, 0), "a row at now + L: past for ours, not for Slurm's now");
	CHECK(col_past(10, 65, false, 57, 5, 0) && !col_past(10, 64, false, 57, 5, 0), "a later start's window ends at floor(67 / 5) x 5 = 65");
	CHECK(col_past(10, 67, false, 57, 0, 0) && !col_past(10, 66, false, 57, 0, 0), "resolution 0: the exact end");
	/* backfill_resolution_phase_seconds: the grid {k x 5 - 2} = ..., 63, 68: the window
	 * [10, 67) ends at 63 (floor(69 / 5) x 5 - 2), not 65 */
	CHECK(col_past(10, 63, false, 57, 5, 2) && !col_past(10, 62, false, 57, 5, 2), "phase 2: the window ends at 63");
	CHECK(!col_past(0, 60, true, 60, 5, 2) && col_past(0, 61, true, 60, 5, 2), "phase 2: a start now is not rounded");
	printf("test_backfill_col: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
