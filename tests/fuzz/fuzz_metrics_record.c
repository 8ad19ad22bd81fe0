/* The metrics record validator (ev_read + ev_verify on a sealed schednav.metrics/1 stream). */
#include "fuzz_evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const schemas[] = { EV_METRICS_SCHEMA, NULL };
	return evidence_one(data, size, schemas);
}
