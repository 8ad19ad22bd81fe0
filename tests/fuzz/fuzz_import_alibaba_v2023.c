/* trace-import alibaba-v2023: openb node list FZ_SEP pod list (every phase kept). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	struct import_alibaba_v2023_opts o = { .nodes = fz_file(0, part[0], len[0]), .pods = fz_file(1, part[1], len[1]),
		.phases = { true, true, true } };
	IMPORT(trace_import_alibaba_v2023, o);
	return 0;
}
