/* trace-import alibaba-v2023: openb node list FZ_SEP pod list. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	char *argv[] = { "alibaba-v2023", "--nodes", (char *)fz_file(0, part[0], len[0]), "--pods", (char *)fz_file(1, part[1], len[1]), NULL };
	return import_one(trace_import_alibaba_v2023, 5, argv);
}
