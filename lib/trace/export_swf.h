/* export_swf (issue 37) — a trace as a Standard Workload Format v2.2 log; see export_swf.c. */
#ifndef SCHEDNAV_EXPORT_SWF_H
#define SCHEDNAV_EXPORT_SWF_H
#include "core/strbuf.h"
#include "trace/trace.h"

/* Append the SWF log of t to out (header comments, one line per job). 0, or -1 + message
 * (a job whose GPUs are not whole processors of gpus_per_proc GPUs). */
int trace_export_swf(const struct trace *t, long long gpus_per_proc, struct strbuf *out, char *err, size_t errlen);
#endif
