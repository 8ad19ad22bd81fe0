/* The synthesis profile loader (schednav.synth-profile/1 and /2). */
#include "fuzz.h"
#include "synth/synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct synth_profile p;
	char err[512];
	(void)synth_profile_load(&p, fz_file(0, data, size), err, sizeof err);
	synth_profile_release(&p);
	return 0;
}
