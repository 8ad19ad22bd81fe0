/* trace-import philly: cluster_machine_list (CSV) FZ_SEP cluster_job_log (the incremental
 * JSON array scanner, each job object, the time parser). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	char *argv[] = { "philly", "--machines", (char *)fz_file(0, part[0], len[0]), "--job-log", (char *)fz_file(1, part[1], len[1]),
		"--class", "Spot", NULL };
	return import_one(trace_import_philly, 7, argv);
}
