/* The audit record validator (ev_read + ev_verify on a sealed schednav.audit/1 stream). */
#include "fuzz_evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const schemas[] = { EV_AUDIT_SCHEMA, NULL };
	return evidence_one(data, size, schemas);
}
