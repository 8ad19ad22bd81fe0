/* xoshiro256** seeded by splitmix64 (see rng.h). */
#include "core/rng.h"

uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(uint64_t s[4], uint64_t x)
{
	for (int i = 0; i < 4; i++)
		s[i] = rng_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(uint64_t s[4])
{
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t rng_below(uint64_t s[4], uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = rng_next(s);
	while (x >= limit);
	return x % n;
}

double rng_unit(uint64_t s[4])
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}
