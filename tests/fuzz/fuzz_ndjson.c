/* The NDJSON stream reader, plain input: framing, JSON, fingerprints, concatenated streams. */
#include "fuzz.h"
#include "core/ndjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct nd_reader *r = ndr_open(fz_file(0, data, size), err, sizeof err);
	if (!r)
		return 0;
	struct arena a;
	struct json *rec;
	arena_init(&a);
	while (ndr_next(r, &a, &rec, err, sizeof err) > 0)
		arena_reset(&a);
	arena_release(&a);
	ndr_close(r);
	return 0;
}
