/* fgd: floor(100 sigmoid((F(n) - F(n after placement)) / 1,000)), F the node's expected
 * fragmentation over the typical pod types (place_node_frag); 50 means no change. A shared
 * pod tries every GPU with room and the one leaving the least F sets the score and the GPU;
 * other GPU pods take the tightest fitting (lowest fully free) GPUs; a CPU-only pod can only
 * raise F through CPU exhaustion, so it goes, in tie order, where F does not change. */
#include "place/place.h"
#include <math.h>

/* F of node n after p takes gpu[] (n itself unchanged). */
static double frag_after(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p, const int *gpu)
{
	struct place_node after = *n;
	after.cpu_free -= p->cpu;
	for (int k = 0; k < p->num_gpu; k++)
		after.gpu_free[gpu[k]] -= p->gpu_milli;
	return place_node_frag(c, &after);
}

static int fgd_score(double before, double after)
{
	return (int)floor(100.0 / (1.0 + exp(-(before - after) / 1000.0)));
}

/* The score of n for p and the GPUs it takes. */
static int fgd_node(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p, int gpu[PLACE_MAX_GPUS])
{
	if (!(p->num_gpu == 1 && p->gpu_milli < PLACE_GPU_MILLI)) {
		place_best_fit_gpus(n, p, gpu);
		return fgd_score(n->frag, frag_after(c, n, p, gpu));
	}
	double best_after = 0;
	int best = -1;
	for (int g = 0; g < n->ngpu; g++) {
		if (n->gpu_free[g] < p->gpu_milli)
			continue;
		bool seen = false;      /* a GPU as free as an earlier one gives the same F */
		for (int h = 0; h < g && !seen; h++)
			seen = n->gpu_free[h] == n->gpu_free[g];
		if (seen)
			continue;
		double after = frag_after(c, n, p, &g);
		if (best < 0 || after < best_after) {
			best_after = after;
			best = g;
		}
	}
	gpu[0] = best;
	return fgd_score(n->frag, best_after);
}

static int fgd_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	int best_score = -1;
	uint32_t best_rank = UINT32_MAX;
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct place_node *n = &c->nodes[i];
		if (!place_fits(c, n, p))
			continue;
		int gpu[PLACE_MAX_GPUS];
		int s = fgd_node(c, n, p, gpu);
		if (place_better(s, n->rank, best_score, best_rank)) {
			best_score = s;
			best_rank = n->rank;
			out->node = i;
			for (int k = 0; k < p->num_gpu; k++)
				out->gpu[k] = gpu[k];
		}
	}
	out->score = best_score;
	return best_score < 0 ? -1 : 0;
}

const struct place_ops place_fgd = {
	"fgd", "06-FGD", NULL, fgd_choose, place_apply, place_undo, NULL, NULL,
};
