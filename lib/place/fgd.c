/* fgd: floor(100 sigmoid((F(n) - F(n after placement)) / 1,000)), F the node's expected
 * fragmentation over the typical pod types (place_node_frag); 50 means no change. A shared
 * pod tries every GPU with room and the one leaving the least F sets the score and the GPU;
 * other GPU pods take the tightest fitting (lowest fully free) GPUs; a CPU-only pod can only
 * raise F through CPU exhaustion, so it goes, in tie order, where F does not change.
 *
 * Speed: a node's score depends only on its state and the pod's (CPU, milli, GPUs), and one
 * arrival changes one node, so scores are memoised per (pod class, node) and reused while the
 * node's version is unchanged. The memo is bounded (PLACE_FGD_MEMO entries); classes beyond
 * it are scored afresh every time. */
#include "place/place.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLACE_FGD_MEMO (1u << 22)       /* memo entries at most (32 MiB) */

struct fgd_memo { uint32_t version; int16_t score; int8_t gpu; };
struct fgd_class { int64_t cpu; int milli, num; };

struct fgd_state {
	struct fgd_class *classes;
	size_t nclasses, capclasses, maxclasses;
	struct fgd_memo *memo;              /* nclasses x nnodes */
	size_t nnodes;
};

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
	return place_score_int(100.0 / (1.0 + exp(-(before - after) / 1000.0)));
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

static void memo_reset(struct fgd_state *s, size_t nnodes)
{
	free(s->memo);
	free(s->classes);
	memset(s, 0, sizeof *s);
	s->nnodes = nnodes;
	s->maxclasses = nnodes ? PLACE_FGD_MEMO / nnodes : 0;
}

static void fgd_init(struct place_cluster *c, uint64_t seed)
{
	(void)seed;
	struct fgd_state *s = xcalloc(1, sizeof *s);
	memo_reset(s, c->nnodes);
	c->state = s;
}

static void fgd_free(void *state)
{
	struct fgd_state *s = state;
	if (s) {
		free(s->memo);
		free(s->classes);
	}
	free(s);
}

/* The memo row of p's class (added when new), or NULL when the memo is full. */
static struct fgd_memo *memo_row(struct fgd_state *s, const struct place_pod *p)
{
	for (size_t i = 0; i < s->nclasses; i++)
		if (s->classes[i].cpu == p->cpu && s->classes[i].milli == p->gpu_milli && s->classes[i].num == p->num_gpu)
			return s->memo + i * s->nnodes;
	if (s->nclasses >= s->maxclasses)
		return NULL;
	s->classes = xgrow(s->classes, &s->capclasses, s->nclasses + 1, sizeof *s->classes);
	s->classes[s->nclasses] = (struct fgd_class){ p->cpu, p->gpu_milli, p->num_gpu };
	s->memo = xrealloc(s->memo, (s->nclasses + 1) * s->nnodes * sizeof *s->memo);
	struct fgd_memo *row = s->memo + s->nclasses++ * s->nnodes;
	memset(row, 0, s->nnodes * sizeof *row);      /* version 0: no node has it */
	return row;
}

static int fgd_choose(struct place_cluster *c, const struct place_pod *p, struct place_choice *out)
{
	struct fgd_state *s = c->state;
	if (s->nnodes != c->nnodes)
		memo_reset(s, c->nnodes);
	struct fgd_memo *row = memo_row(s, p);
	int best_score = -1;
	uint32_t best_rank = UINT32_MAX;
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct place_node *n = &c->nodes[i];
		if (!place_fits(c, n, p))
			continue;
		int gpu[PLACE_MAX_GPUS], score;
		if (row && row[i].version == n->version) {
			score = row[i].score;
			gpu[0] = row[i].gpu;
		} else {
			score = fgd_node(c, n, p, gpu);
			if (row)
				row[i] = (struct fgd_memo){ n->version, (int16_t)score, (int8_t)gpu[0] };
		}
		if (place_better(score, n->rank, best_score, best_rank)) {
			best_score = score;
			best_rank = n->rank;
			out->node = i;
			out->gpu[0] = gpu[0];
		}
	}
	out->score = best_score;
	if (best_score < 0)
		return -1;
	if (!(p->num_gpu == 1 && p->gpu_milli < PLACE_GPU_MILLI))
		place_best_fit_gpus(&c->nodes[out->node], p, out->gpu);
	return 0;
}

static void fgd_clone(struct place_cluster *dst, const struct place_cluster *src)
{
	const struct fgd_state *s = src->state;
	struct fgd_state *d = xcalloc(1, sizeof *d);
	*d = *s;
	d->classes = xmalloc((s->nclasses ? s->nclasses : 1) * sizeof *d->classes);
	size_t entries = s->nclasses * s->nnodes;
	d->memo = xmalloc((entries ? entries : 1) * sizeof *d->memo);
	if (s->nclasses) {
		memcpy(d->classes, s->classes, s->nclasses * sizeof *d->classes);
		memcpy(d->memo, s->memo, entries * sizeof *d->memo);
	}
	d->capclasses = s->nclasses;
	dst->state = d;
}

const struct place_ops place_fgd = {
	"fgd", "06-FGD", fgd_init, fgd_choose, place_apply, place_undo, fgd_clone, fgd_free,
};
