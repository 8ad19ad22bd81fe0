/* The result record validator of metrics: the input sealed as one result stream, read by
 * result_read (with every family of records above sim) and, when valid, turned into the metrics record. */
#include "fuzz.h"
#include "eval/metrics.h"
#include "registry/result_families.h"
#include "sim/result_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb;
	char err[512];
	fz_seal(data, size, &sb);
	struct nd_reader *r = ndr_open(fz_file(0, sb.buf, sb.len), err, sizeof err);
	if (r) {
		struct result_data m;
		if (result_read(&m, r, registry_result_exts, err, sizeof err) == 0) {
			struct arena a;
			arena_init(&a);
			(void)ev_metrics_record(&a, &m);
			arena_release(&a);
		}
		result_data_release(&m);
		ndr_close(r);
	}
	sb_release(&sb);
	return 0;
}
