/* import_slurm_internal — what the two files of the Slurm importer share: import_slurm.c
 * (sacct's jobs, the job builder and trace_import_slurm) and import_slurm_nodes.c (the node
 * inventory of scontrol show node -o). Not part of the trace API. */
#ifndef SCHEDNAV_IMPORT_SLURM_INTERNAL_H
#define SCHEDNAV_IMPORT_SLURM_INTERNAL_H
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "trace/trace.h"
#include <stddef.h>

/* One input read a line at a time. */
struct lines {
	struct zio_reader *z;
	const char *name;
	unsigned long line;
	struct strbuf buf;              /* the current line, NUL-terminated, fields cut in place */
};

/* 1 = a line in l->buf (without '\r\n'), 0 = end, -1 = error (not UTF-8, NUL, too long). */
int slurm_next_line(struct lines *l, char *err, size_t errlen);
/* Read the node inventory at path (scontrol show node -o) into t's nodes, count nodes
 * without GPUs in t->skipped_rows, and record the file in hdr.inputs (SHA-256 into sha). */
int slurm_read_nodes(struct trace *t, const char *path, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen);
/* issue 37 (--hetjob join): merge the kept components 123+N of t->jobs[first..] into one job
 * 123 each (import_slurm_het.c), counting them in kinds.heterogeneous_jobs. */
void slurm_join_hetjobs(struct trace *t, size_t first, struct json *kinds);
#endif
