/* random: one feasible node, drawn uniformly with the run's seed, gets 100 and every other
 * 0; a shared pod takes a random GPU with room (placement-fgd.md, "Policies"). */
#include "place/place.h"
#include "core/xalloc.h"
#include <stdlib.h>

static void random_init(struct place_cluster *c, uint64_t seed)
{
	struct place_rng *r = xmalloc(sizeof *r);
	place_rng_seed(r, seed ^ 0x72616e646f6dULL);
	c->state = r;
}

static int random_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	struct place_rng *r = c->state;
	size_t feasible = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		feasible += place_fits(c, &c->nodes[i], p);
	if (!feasible)
		return -1;
	size_t pick = (size_t)place_rng_below(r, feasible);
	size_t i = 0;
	for (;; i++)
		if (place_fits(c, &c->nodes[i], p) && pick-- == 0)
			break;
	const struct place_node *n = &c->nodes[i];
	out->node = i;
	out->score = 100;
	if (p->num_gpu == 1 && p->gpu_milli < PLACE_GPU_MILLI) {
		int room[PLACE_MAX_GPUS], nroom = 0;
		for (int g = 0; g < n->ngpu; g++)
			if (n->gpu_free[g] >= p->gpu_milli)
				room[nroom++] = g;
		out->gpu[0] = room[place_rng_below(r, (uint64_t)nroom)];
	} else {
		place_best_fit_gpus(n, p, out->gpu);
	}
	return 0;
}

static void random_clone(struct place_cluster *dst, const struct place_cluster *src)
{
	struct place_rng *r = xmalloc(sizeof *r);
	*r = *(const struct place_rng *)src->state;
	dst->state = r;
}

const struct place_ops place_random = {
	"random", "01-Random", random_init, random_choose, place_apply, place_undo, random_clone, free,
};
