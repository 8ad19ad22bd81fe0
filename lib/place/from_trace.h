/*
 * from_trace — a canonical trace (trace.h) read into the physical model (place.h), for
 * placement-fill --trace (issue 36). Every node becomes a node of its cpu_milli, memory_mib,
 * gpu_count (1..PLACE_MAX_GPUS) and gpu_model; every node must have cpu_milli and memory_mib.
 * Every job becomes one pod per worker: its cpu_milli and memory_mib (0 when absent), and
 * either a share of one GPU (gpu_milli) or gpus / workers whole GPUs (a whole number,
 * 1..PLACE_MAX_GPUS), restricted to its gpu_model (when not '*') and to its gpu_spec's models
 * that some node has. The trace must pass trace_check_fits. Pods come sorted by job_id
 * (bytewise; a job's workers together), as the artifact sorts pods by name.
 */
#ifndef SCHEDNAV_PLACE_FROM_TRACE_H
#define SCHEDNAV_PLACE_FROM_TRACE_H
#include "place/place.h"
#include "trace/trace.h"

/* Append t's nodes to c and return its pods in a malloc'd array. 0, or -1 and
 * "node 'N': ..." / "job 'J': ..." in err. */
int place_from_trace(struct place_cluster *c, const struct trace *t, struct place_pod **pods, size_t *npods, char *err, size_t errlen);
#endif
