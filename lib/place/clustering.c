/* gpu-clustering: a GPU pod prefers nodes hosting only GPU pods of its class (shared, or
 * k-GPU): 75; its class and others 50; no GPU pod 25; only other classes 0; plus
 * floor(25 (8,000 - free milli) / 8,000). CPU-only pods score 0: the tie order decides. */
#include "place/place.h"

static int clustering_score(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p)
{
	(void)c;
	if (p->num_gpu == 0)
		return 0;
	int cls = p->gpu_milli < PLACE_GPU_MILLI ? 0 : p->num_gpu;
	uint32_t mine = n->gpu_pods[cls], others = 0;
	for (int k = 0; k <= PLACE_MAX_GPUS; k++)
		if (k != cls)
			others += n->gpu_pods[k];
	int base = mine && !others ? 75 : mine ? 50 : !others ? 25 : 0;
	return base + (int)(25 * (8000 - place_node_gpu_free(n)) / 8000);
}

static int clustering_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	return place_choose_by_score(c, p, out, clustering_score);
}

const struct place_ops place_clustering = {
	"gpu-clustering", "03-GpuClustering", NULL, clustering_choose, place_apply, place_undo, NULL, NULL,
};
