/* trace-import alibaba-spot: node_info_df.csv FZ_SEP job_info_df.csv (the CSV reader and
 * every row rule), once plain and once with an evaluation window and warm-up filters. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	char *nodes = (char *)fz_file(0, part[0], len[0]), *jobs = (char *)fz_file(1, part[1], len[1]);
	char *plain[] = { "alibaba-spot", "--nodes", nodes, "--jobs", jobs, NULL };
	import_one(trace_import_alibaba_spot, 5, plain);
	char *window[] = { "alibaba-spot", "--nodes", nodes, "--jobs", jobs, "--eval-start", "3600", "--eval-end", "86400",
		"--warmup-start", "600", "--no-warmup-spot", "--gpu-model", "A100", "--gpu-model", "H800", NULL };
	return import_one(trace_import_alibaba_spot, 16, window);
}
