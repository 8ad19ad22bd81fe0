/* One importer harness: the input is split at FZ_SEP into the importer's files (memfds),
 * the importer runs on them with the given arguments, and a trace it accepts is sorted
 * and validated as tools/trace-import.c does. */
#include "fuzz.h"
#include "trace/import.h"
#include <getopt.h>

static int import_one(import_fn *fn, int argc, char **argv)
{
	struct trace t;
	struct arena a;
	char err[1024];
	trace_init(&t);
	arena_init(&a);
	struct json *hdr = nd_header_new(&a, TRACE_SCHEMA_V1, "trace-import");
	optind = 0;   /* glibc: reinitialise getopt for a fresh argument vector */
	opterr = 0;
	if (fn(argc, argv, &t, hdr, &a, err, sizeof err) == 0) {
		trace_sort(&t);
		trace_assign_phases(&t);
		(void)trace_validate(&t, err, sizeof err);
	}
	trace_release(&t);
	arena_release(&a);
	return 0;
}
