/* One importer harness: the input is split at FZ_SEP into the importer's files (memfds),
 * the importer runs on them with the given options struct, and a trace it accepts is
 * sorted and validated as tools/trace-import.c does. */
#include "fuzz.h"
#include "trace/import.h"

/* IMPORT(fn, opts): run trace_import_fn on &opts, then sort and validate; always 0. */
#define IMPORT(fn, opts)                                                              \
	do {                                                                          \
		struct trace t_;                                                      \
		struct arena a_;                                                      \
		char err_[1024];                                                      \
		trace_init(&t_);                                                      \
		arena_init(&a_);                                                      \
		struct json *hdr_ = nd_header_new(&a_, TRACE_SCHEMA_V1, "trace-import"); \
		if (fn(&(opts), &t_, hdr_, &a_, err_, sizeof err_) == 0) {            \
			trace_sort(&t_);                                              \
			trace_assign_phases(&t_);                                     \
			(void)trace_validate(&t_, err_, sizeof err_);                 \
		}                                                                     \
		trace_release(&t_);                                                   \
		arena_release(&a_);                                                   \
	} while (0)
