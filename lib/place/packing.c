/* gpu-packing: shared GPUs first, then nodes already using GPUs, then small idle nodes.
 * With the best-fit GPUs the pod would take: none fully free -> 100 - floor(their free
 * percent summed / 10), at least 50; some fully free on a node with GPUs in use ->
 * max(50 - fully free GPUs taken, 33); an idle node -> max(33 - its GPUs, its GPUs).
 * CPU-only pods score 0. */
#include "place/place.h"

static int packing_score(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p)
{
	(void)c;
	if (p->num_gpu == 0)
		return 0;
	int gpu[PLACE_MAX_GPUS];
	place_best_fit_gpus(n, p, gpu);
	int fully_free = 0, free_milli = 0;
	for (int k = 0; k < p->num_gpu; k++) {
		fully_free += n->gpu_free[gpu[k]] == PLACE_GPU_MILLI;
		free_milli += n->gpu_free[gpu[k]];
	}
	if (!fully_free) {
		/* free percent = milli / 10; summed, over 10 */
		int s = 100 - free_milli / 100;
		return s < 50 ? 50 : s;
	}
	bool in_use = false;
	for (int g = 0; g < n->ngpu; g++)
		in_use |= n->gpu_free[g] < PLACE_GPU_MILLI;
	if (in_use)
		return 50 - fully_free < 33 ? 33 : 50 - fully_free;
	return 33 - n->ngpu > n->ngpu ? 33 - n->ngpu : n->ngpu;
}

static int packing_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	return place_choose_by_score(c, p, out, packing_score);
}

const struct place_ops place_packing = {
	"gpu-packing", "04-GpuPacking", NULL, packing_choose, place_apply, place_undo, NULL, NULL,
};
