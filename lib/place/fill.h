/*
 * fill — the FGD paper's experiment (placement-fgd.md, "Workload construction" and
 * "Recorded metrics"): a seeded arrival order inflated or thinned to a multiple of the GPU
 * capacity, pods placed one at a time and never leaving, and after every arrival the
 * arrived share, the allocation ratio and the fragmentation, reduced to one value per
 * integer "arrived" percent.
 */
#ifndef SCHEDNAV_PLACE_FILL_H
#define SCHEDNAV_PLACE_FILL_H
#include "place/place.h"

#define PLACE_FILL_XMAX 130     /* the x axis: 0..130 % arrived */

/* One record per arrival, all in percent of the GPU capacity (frag_ratio: of the free GPUs). */
struct place_fill_record { double arrived, alloc, frag, frag_ratio; };

struct place_fill_run {
	struct place_pod *pods;             /* the tuned arrival order */
	size_t npods, nplaced, nrejected;
	struct place_fill_record *records;  /* one per arrival */
};

/* The arrival order of pods[0..n) (name order) for seed: shuffled, then copies drawn with
 * replacement appended until the GPU request would pass tune x capacity, or random pods
 * deleted until it is at most that (a list asking for no GPU at all is only shuffled).
 * Malloc'd into *out. */
void place_fill_tune(const struct place_pod *pods, size_t n, int64_t capacity, double tune, uint64_t seed,
		     struct place_pod **out, size_t *nout);
/* Place run->pods in order on c (started with its policy); fills the records. */
void place_fill(struct place_cluster *c, struct place_fill_run *run);
void place_fill_free(struct place_fill_run *run);
/* The value per x = 0..PLACE_FILL_XMAX of the metric at offset field (offsetof in struct
 * place_fill_record): the mean over records whose arrived rounds to x, else over those
 * within x +- 1; NAN when there is none. */
void place_fill_discrete(const struct place_fill_run *run, size_t field, double out[PLACE_FILL_XMAX + 1]);
#endif
