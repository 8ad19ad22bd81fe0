/* Comparing simulator outputs in the unit tests, field by field (doubles by their bits):
 * memcmp of the entries would also compare their padding, which the engine never promises to
 * write. Shared by test_branch.c and test_sim.c. */
#ifndef SCHEDNAV_TESTS_UNIT_SIM_COMPARE_H
#define SCHEDNAV_TESTS_UNIT_SIM_COMPARE_H

#include "sim/engine.h"
#include <stdbool.h>
#include <string.h>

static inline bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Two Spot-run ledgers hold the same runs. */
static inline bool same_runs(const struct sim_output *a, const struct sim_output *b)
{
	if (a->n_runs != b->n_runs)
		return false;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct sim_spot_run *x = &a->runs[i], *y = &b->runs[i];
		if (x->job != y->job || x->ordinal != y->ordinal || !same_bits(x->start, y->start) || !same_bits(x->end, y->end) ||
		    !same_bits(x->uninterrupted, y->uninterrupted) || x->completed != y->completed || x->guarantee != y->guarantee ||
		    x->guarantee_succeeded != y->guarantee_succeeded)
			return false;
	}
	return true;
}

#endif
