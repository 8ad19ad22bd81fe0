/* The policy loader (schednav.simulation-policy/v1: keys, kinds, bounds, action_id). */
#include "fuzz.h"
#include "sim/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_policy p;
	struct arena a;
	char err[512];
	arena_init(&a);
	(void)policy_load(&p, fz_file(0, data, size), &a, err, sizeof err);
	arena_release(&a);
	return 0;
}
