/* dot-product: floor(100 (1 - r.d / 2)) with r the node's free (CPU / 128 cores, all its free
 * GPU milli / 8,000) and d the pod's request on the same scale: the smallest product wins. */
#include "place/place.h"
#include <math.h>

static int dotprod_score(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p)
{
	(void)c;
	double dot = (double)n->cpu_free / PLACE_NORM_CPU * ((double)p->cpu / PLACE_NORM_CPU)
		+ (double)place_node_gpu_free(n) / PLACE_NORM_GPU * ((double)place_pod_gpu_milli(p) / PLACE_NORM_GPU);
	return place_score_int(100.0 * (1.0 - dot / 2.0));
}

static int dotprod_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	return place_choose_by_score(c, p, out, dotprod_score);
}

const struct place_ops place_dotprod = {
	"dot-product", "02-DotProd", NULL, dotprod_choose, place_apply, place_undo, NULL, NULL,
};
