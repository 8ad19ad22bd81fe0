/* The report model: every stream of an evaluation read (sealed, as one stream), joined,
 * and the decision table rendered (no gnuplot: charts are not drawn here). */
#include "fuzz.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb, out;
	struct rp_model m;
	char err[512];
	fz_seal(data, size, &sb);
	rp_model_init(&m);
	if (rp_model_read(&m, fz_file(0, sb.buf, sb.len), err, sizeof err) == 0 && rp_model_finish(&m, err, sizeof err) == 0) {
		sb_init(&out);
		rp_table_write(&out, &m);
		sb_release(&out);
	}
	rp_model_release(&m);
	sb_release(&sb);
	return 0;
}
