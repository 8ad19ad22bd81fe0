/* The NDJSON stream reader, plain input: framing, JSON, fingerprints, concatenated streams. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_read_streams(fz_file(0, data, size));
	return 0;
}
