/*
 * backfill_times — the plan's arithmetic under the issue-37 backfill knobs that make it
 * Slurm's (docs/simulator.md §3.10): bf_resolution's rounding (backfill_plan_times) and the
 * GPUs a whole-node reservation holds (backfill_reservation), and when a cycle runs
 * (bf_interval). Used by backfill.c.
 */
#include "sim/internal.h"
#include "sim/backfill_col.h"
#include <math.h>

/* backfill_resolution_phase_seconds: the grid is {k * r - phase} (Slurm's is on the epoch's
 * seconds, the replay counts from its own origin). 0 by default: multiples of r. */
double sim_bf_phase(const struct sim *s)
{
	return (double)s->p->bf_res_phase;
}

/* bf_resolution: running and started jobs' planned ends rounded up (exact under plan times slurm). */
double sim_bf_round_up(const struct sim *s, double t)
{
	double r = (double)s->p->bf_resolution, ph = sim_bf_phase(s);
	return r > 0 && isfinite(t) && s->p->bf_rounding == BF_ROUND_UP ? ceil((t + ph) / r) * r - ph : t;
}

/* Plan times slurm: a job starting now must end strictly before a reservation starts. */
bool sim_bf_closed(const struct sim *s)
{
	return s->p->bf_rounding == BF_ROUND_DOWN;
}

/* col_past's reservation test: -1 ours, else Slurm's with bf_resolution. */
double sim_bf_test_res(const struct sim *s)
{
	return sim_bf_closed(s) ? (double)s->p->bf_resolution : -1;
}

/* Plan times slurm: a reservation's start and end rounded down to bf_resolution. */
double sim_bf_res_down(const struct sim *s, double t)
{
	double r = (double)s->p->bf_resolution, ph = sim_bf_phase(s);
	return r > 0 && isfinite(t) && s->p->bf_rounding == BF_ROUND_DOWN ? floor((t + ph) / r) * r - ph : t;
}

/* The GPUs of the whole nodes g needs, ceil(g / G) x G, G the largest node of model m (any: -1). */
double sim_bf_whole_nodes(const struct sim *s, int m, double g)
{
	double G = 0;
	for (size_t k = 0; k < s->n_nodes; k++)
		if (m < 0 || s->nodes[k].model == m)
			G = fmax(G, (double)s->t->nodes[k].gpu_count);
	return G > 0 ? ceil(g / G) * G : g;
}

/* bf_interval: a backfill cycle runs at the first instant at or after each multiple of the
 * interval (the engine visits it while a job is blocked); the instants between run the
 * main scheduler's in-order pass only. */
double sim_backfill_next_cycle(const struct sim *s, double thr)
{
	if (s->p->bf_interval <= 0 || !s->bf_blocked)
		return INFINITY;
	/* An idle cluster (nothing runs, nothing is left to arrive) changes between two cycles only
	 * by the reservation grid's phase, which repeats within bf_resolution cycles (whole seconds
	 * apart). After that many cycles that started nothing, no later one can start a job (a job
	 * the totals admit but the nodes refuse, their frees drifted below their model's sum):
	 * no more cycles, so the engine reports that it cannot make progress instead of waking
	 * forever. Not under multifactor, whose priorities still age while idle. */
	long long phases = s->p->bf_resolution > 0 ? s->p->bf_resolution : 1;
	if (!s->p->mf && s->bf_idle_cycles > phases)
		return INFINITY;
	return s->bf_next > thr ? s->bf_next : INFINITY;
}

/* Whether this instant runs a backfill cycle (bf_interval); the clock of the next one kept. */
bool sim_bf_cycle_now(struct sim *s)
{
	double iv = (double)s->p->bf_interval;
	if (iv <= 0 || s->now == s->bf_last)
		return true;    /* every instant; or the second pass of a cycle's instant */
	if (s->now + SIM_EPS < s->bf_next)
		return false;
	s->bf_next = (floor(s->now / iv) + 1) * iv;
	s->bf_last = s->now;
	return true;
}
