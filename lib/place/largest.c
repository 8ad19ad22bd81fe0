/* largest-free: the original's choice (docs/simulator.md §3.6) on the physical model. The
 * feasible node with the most free GPU milli wins (a CPU-only pod: the most free CPU), ties
 * go to the node that comes first in node order (not the seeded rank: the pool model has
 * no rank); the GPUs by best fit (place_best_fit_gpus). The score reported is 100. */
#include "place/place.h"

static int largest_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	int64_t best_free = -1;
	size_t best = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct place_node *n = &c->nodes[i];
		if (!place_fits(c, n, p))
			continue;
		int64_t f = p->num_gpu ? place_node_gpu_free(n) : n->cpu_free;
		if (f > best_free) {
			best_free = f;
			best = i;
		}
	}
	if (best_free < 0)
		return -1;
	out->node = best;
	out->score = 100;
	place_best_fit_gpus(&c->nodes[best], p, out->gpu);
	return 0;
}

const struct place_ops place_largest = {
	"largest-free", "00-LargestFree", NULL, largest_choose, place_apply, place_undo, NULL, NULL,
};
