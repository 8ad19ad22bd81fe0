/* The predictive controller config loader (schednav.predictive-controller/v1), which
 * sim-run --controller, forecast and quota read. */
#include "fuzz.h"
#include "predict/predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_config c;
	struct arena a;
	char err[512];
	arena_init(&a);
	(void)pc_config_load(&c, fz_file(0, data, size), &a, err, sizeof err);
	arena_release(&a);
	return 0;
}
