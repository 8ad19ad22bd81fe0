/*
 * import — one function per source format, called by tools/trace-import.c.
 * Each parses its own options from argv (argv[0] is the format name; getopt state is
 * reset by the caller), fills the empty trace t (nodes, jobs, version, trace_id,
 * time_origin, source, skipped_rows, window), records its parameters in params and
 * each source file in hdr.inputs (via nd_header_add_file), all in arena a.
 * The trace is sorted and validated by the caller afterwards.
 * Returns 0, IMPORT_DATA_ERROR (message in err: "PATH:LINE: message" for a bad row)
 * or IMPORT_USAGE_ERROR (message in err, the caller prints the usage and exits 2).
 * Nothing here prints or exits.
 */
#ifndef SCHEDNAV_IMPORT_H
#define SCHEDNAV_IMPORT_H
#include "core/arena.h"
#include "core/json.h"
#include "trace/trace.h"
#include <stddef.h>

#define IMPORT_DATA_ERROR (-1)
#define IMPORT_USAGE_ERROR (-2)

typedef int import_fn(int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);

import_fn trace_import_alibaba_spot;
import_fn trace_import_alibaba_v2023;
import_fn trace_import_philly;
import_fn trace_import_canonical;
import_fn trace_import_csv;
#endif
