/* trace-import alibaba-spot: node_info_df.csv FZ_SEP job_info_df.csv (the CSV reader and
 * every row rule), once plain and once with an evaluation window and warm-up filters. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	const char *nodes = fz_file(0, part[0], len[0]), *jobs = fz_file(1, part[1], len[1]);
	struct import_alibaba_spot_opts plain = { .nodes = nodes, .jobs = jobs, .include_warmup_spot = true };
	IMPORT(trace_import_alibaba_spot, plain);
	static const char *const models[] = { "A100", "H800" };
	struct import_alibaba_spot_opts window = {
		.nodes = nodes, .jobs = jobs, .gpu_models = models, .n_gpu_models = 2,
		.has_window = true, .eval_start = 3600, .eval_end = 86400, .max_submit = 86400,
		.has_warmup = true, .warmup_start = 600, .include_warmup_spot = false,
	};
	IMPORT(trace_import_alibaba_spot, window);
	return 0;
}
