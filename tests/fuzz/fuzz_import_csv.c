/* trace-import csv: mapping (JSON) FZ_SEP node list FZ_SEP job file: the map loader, both
 * CSV readers, skip rules, constants, the seeded subset. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	size_t len[3];
	fz_split(data, size, part, len, 3);
	const char *files[] = { fz_file(2, part[2], len[2]) };
	struct import_csv_opts o = { .map = fz_file(0, part[0], len[0]), .nodes_file = fz_file(1, part[1], len[1]),
		.files = files, .n_files = 1 };
	IMPORT(trace_import_csv, o);
	return 0;
}
