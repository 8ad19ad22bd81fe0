/*
 * openb — the FGD artifact's openb CSVs read into the physical model (place.h): the node
 * list (sn,cpu_milli,memory_mib,gpu,model) and a pod list (name,cpu_milli,memory_mib,
 * num_gpu[,gpu_milli[,gpu_spec,...]]). Values are checked (non-negative integers, GPUs
 * 0..8, gpu_milli 0..1000, a share only on one GPU, a gpu_spec naming at least one node's
 * model; names it lists that no node has are ignored); the first bad one is the error
 * "PATH:LINE: message" in err, and nothing is kept. A pod with num_gpu 0 is CPU-only (its
 * gpu_milli is ignored); a GPU pod without gpu_milli takes whole GPUs (1000 each).
 */
#ifndef SCHEDNAV_PLACE_OPENB_H
#define SCHEDNAV_PLACE_OPENB_H
#include "place/place.h"

/* Append the nodes of path to c (at least one must have a GPU). 0 or -1 + err. */
int place_read_nodes(struct place_cluster *c, const char *path, char *err, size_t errlen);
/* The pods of path, sorted by name (ties in file order), into a malloc'd array. The
 * cluster's models resolve gpu_spec, so read the nodes first. 0 or -1 + err. */
int place_read_pods(const struct place_cluster *c, const char *path, struct place_pod **pods, size_t *npods, char *err, size_t errlen);
#endif
