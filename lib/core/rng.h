/*
 * rng — the one seeded generator SchedNav's modules share (issue 38): xoshiro256**
 * (Blackman and Vigna) over a 4-word state, seeded through splitmix64; written from the
 * published algorithm descriptions. Fixed output sequences: synth's traces, placement's
 * seeded ranks and the importers' node subsets depend on them byte for byte.
 */
#ifndef SCHEDNAV_RNG_H
#define SCHEDNAV_RNG_H
#include <stdint.h>

/* One splitmix64 step: advance *x and return its mixed output. */
uint64_t rng_splitmix64(uint64_t *x);
/* s[0..3] = four splitmix64 outputs from x. */
void rng_seed(uint64_t s[4], uint64_t x);
/* One xoshiro256** step. */
uint64_t rng_next(uint64_t s[4]);
/* [0, n), unbiased by rejecting the top sliver of outputs; n > 0. */
uint64_t rng_below(uint64_t s[4], uint64_t n);
/* [0, 1) from the top 53 bits of one step. */
double rng_unit(uint64_t s[4]);
#endif
