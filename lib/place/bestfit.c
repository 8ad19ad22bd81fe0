/* best-fit: raw floor(100 (1 - [0.5 (free CPU - req) / 128,000 + 0.5 (free milli - req) /
 * 8,000])), min-max rescaled to 0..100 over the feasible nodes (all 0 when equal): the
 * tightest fit wins. The rescaling floors, so nodes whose raw scores differ may tie and the
 * seeded rank decides, as in the artifact. */
#include "place/place.h"
#include "core/xalloc.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>

struct bestfit_state { int *raw; size_t cap; };

static void bestfit_init(struct place_cluster *c, uint64_t seed)
{
	(void)seed;
	c->state = xcalloc(1, sizeof(struct bestfit_state));
}

static void bestfit_free(void *state)
{
	struct bestfit_state *s = state;
	if (s)
		free(s->raw);
	free(s);
}

static int bestfit_raw(const struct place_node *n, const struct place_pod *p)
{
	double cpu = (double)(n->cpu_free - p->cpu) / PLACE_NORM_CPU;
	double gpu = (double)(place_node_gpu_free(n) - place_pod_gpu_milli(p)) / PLACE_NORM_GPU;
	return place_score_int(100.0 * (1.0 - (0.5 * cpu + 0.5 * gpu)));
}

static int bestfit_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	struct bestfit_state *s = c->state;
	s->raw = xgrow(s->raw, &s->cap, c->nnodes ? c->nnodes : 1, sizeof *s->raw);
	int lo = 0, hi = 0;
	bool any = false;
	for (size_t i = 0; i < c->nnodes; i++) {
		if (!place_fits(c, &c->nodes[i], p)) {
			s->raw[i] = INT_MIN;
			continue;
		}
		int r = s->raw[i] = bestfit_raw(&c->nodes[i], p);
		if (!any || r < lo)
			lo = r;
		if (!any || r > hi)
			hi = r;
		any = true;
	}
	if (!any)
		return -1;
	int best_score = -1;
	uint32_t best_rank = UINT32_MAX;
	size_t best = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		if (s->raw[i] == INT_MIN)
			continue;
		int score = hi == lo ? 0 : (int)((int64_t)(s->raw[i] - lo) * 100 / (hi - lo));
		if (place_better(score, c->nodes[i].rank, best_score, best_rank)) {
			best_score = score;
			best_rank = c->nodes[i].rank;
			best = i;
		}
	}
	out->node = best;
	out->score = best_score;
	place_best_fit_gpus(&c->nodes[best], p, out->gpu);
	return 0;
}

static void bestfit_clone(struct place_cluster *dst, const struct place_cluster *src)
{
	(void)src;
	dst->state = xcalloc(1, sizeof(struct bestfit_state));
}

const struct place_ops place_bestfit = {
	"best-fit", "05-BestFit", bestfit_init, bestfit_choose, place_apply, place_undo, bestfit_clone, bestfit_free,
};
