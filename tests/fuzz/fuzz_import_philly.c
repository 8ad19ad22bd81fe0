/* trace-import philly: cluster_machine_list (CSV) FZ_SEP cluster_job_log (the incremental
 * JSON array scanner, each job object, the time parser). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	struct import_philly_opts o = { .machines = fz_file(0, part[0], len[0]), .job_log = fz_file(1, part[1], len[1]), .hp = false };
	IMPORT(trace_import_philly, o);
	return 0;
}
