/* The trace record validator: the input sealed as one stream and read by trace_load
 * (header, node and job rules, the bounds, sorting, the window, trace_validate). */
#include "fuzz.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb;
	struct trace t;
	char err[512];
	fz_seal(data, size, &sb);
	trace_init(&t);
	if (trace_load(&t, fz_file(0, sb.buf, sb.len), err, sizeof err) == 0) {
		struct trace_caps caps;
		trace_caps_build(&caps, &t);
		for (size_t i = 0; i < t.n_jobs; i++)
			(void)trace_caps_get(&caps, t.jobs[i].model);
		trace_caps_release(&caps);
	}
	trace_release(&t);
	sb_release(&sb);
	return 0;
}
