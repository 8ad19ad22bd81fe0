/* synth's streams on the core generator (core/rng.h: xoshiro256** seeded by splitmix64):
 * one stream per (seed, stream number). */
#include "synth/synth.h"
#include "core/rng.h"

void synth_rng_seed(struct synth_rng *r, uint64_t seed, uint64_t stream)
{
	rng_seed(r->s, seed ^ (stream * 0xd1342543de82ef95ULL));
}

uint64_t synth_rng_next(struct synth_rng *r)
{
	return rng_next(r->s);
}

double synth_rng_unit(struct synth_rng *r)
{
	return rng_unit(r->s);
}

uint64_t synth_rng_below(struct synth_rng *r, uint64_t n)
{
	return rng_below(r->s, n);
}
