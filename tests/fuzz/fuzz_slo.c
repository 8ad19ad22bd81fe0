/* The SLO spec loader (schednav.slo-spec/v1: constraints, ids, thresholds, ranking block). */
#include "fuzz.h"
#include "eval/slo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slo_spec s;
	struct arena a;
	char err[512];
	arena_init(&a);
	(void)ev_slo_load(&s, fz_file(0, data, size), &a, err, sizeof err);
	ev_slo_release(&s);
	arena_release(&a);
	return 0;
}
