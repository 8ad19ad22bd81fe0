/* trace-import csv: mapping (JSON) FZ_SEP node list FZ_SEP job file: the map loader, both
 * CSV readers, skip rules, constants, the seeded subset. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	size_t len[3];
	fz_split(data, size, part, len, 3);
	char *argv[] = { "csv", "--map", (char *)fz_file(0, part[0], len[0]), "--nodes-file", (char *)fz_file(1, part[1], len[1]),
		(char *)fz_file(2, part[2], len[2]), NULL };
	return import_one(trace_import_csv, 6, argv);
}
