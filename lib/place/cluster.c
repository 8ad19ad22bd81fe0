/* The node model every policy shares: feasibility, the GPUs a pod takes, placing and
 * releasing, the seeded node ranks and the FGD fragmentation measure
 * (../shared/spec/placement-fgd.md, "Cluster and pods" and "Fragmentation measure"). */
#include "place/place.h"
#include "core/rng.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

void place_rng_seed(struct place_rng *r, uint64_t seed)
{
	rng_seed(r->s, seed);
}

uint64_t place_rng_next(struct place_rng *r)
{
	return rng_next(r->s);
}

uint64_t place_rng_below(struct place_rng *r, uint64_t n)
{
	return rng_below(r->s, n);
}

void place_cluster_init(struct place_cluster *c)
{
	memset(c, 0, sizeof *c);
}

void place_cluster_release(struct place_cluster *c)
{
	if (c->ops && c->ops->state_free)
		c->ops->state_free(c->state);
	for (int i = 0; i < c->nmodels; i++)
		free(c->models[i]);
	free(c->nodes);
	free(c->types);
	memset(c, 0, sizeof *c);
}

int place_model_find(const struct place_cluster *c, const char *name)
{
	for (int i = 0; i < c->nmodels; i++)
		if (!strcmp(c->models[i], name))
			return i;
	return -1;
}

int place_model_index(struct place_cluster *c, const char *name)
{
	int i = place_model_find(c, name);
	if (i >= 0)
		return i;
	if (c->nmodels == PLACE_MAX_MODELS)
		return -1;
	c->models[c->nmodels] = xstrdup(name);
	return c->nmodels++;
}

size_t place_add_node(struct place_cluster *c, int64_t cpu, int64_t mem, int ngpu, int model)
{
	size_t cap = c->nnodes;
	c->nodes = xgrow(c->nodes, &cap, c->nnodes + 1, sizeof *c->nodes);
	struct place_node *n = &c->nodes[c->nnodes];
	memset(n, 0, sizeof *n);
	n->cpu_total = n->cpu_free = cpu;
	n->mem_total = n->mem_free = mem;
	n->ngpu = ngpu;
	n->model = model;
	for (int g = 0; g < ngpu; g++)
		n->gpu_free[g] = PLACE_GPU_MILLI;
	n->rank = (uint32_t)c->nnodes;
	n->version = 1;
	c->gpu_capacity += (int64_t)ngpu * PLACE_GPU_MILLI;
	return c->nnodes++;
}

static void refresh_frag(struct place_cluster *c)
{
	c->frag_total = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		c->nodes[i].frag = place_node_frag(c, &c->nodes[i]);
		c->nodes[i].version++;
		c->frag_total += c->nodes[i].frag;
	}
}

void place_start(struct place_cluster *c, const struct place_ops *ops, uint64_t seed)
{
	/* Ranks: a seeded permutation of the nodes (Fisher-Yates), a stream of its own so the
	 * policy's draws do not shift it. */
	struct place_rng r;
	place_rng_seed(&r, seed ^ 0x72616e6b73ULL);
	uint32_t *perm = xmalloc((c->nnodes ? c->nnodes : 1) * sizeof *perm);
	for (size_t i = 0; i < c->nnodes; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = c->nnodes; i > 1; i--) {
		size_t j = (size_t)place_rng_below(&r, i);
		uint32_t t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < c->nnodes; i++)
		c->nodes[perm[i]].rank = (uint32_t)i;
	free(perm);
	if (c->ops && c->ops->state_free)
		c->ops->state_free(c->state);
	c->state = NULL;
	c->ops = ops;
	if (ops->init)
		ops->init(c, seed);
	refresh_frag(c);
}

int64_t place_node_gpu_free(const struct place_node *n)
{
	int64_t f = 0;
	for (int g = 0; g < n->ngpu; g++)
		f += n->gpu_free[g];
	return f;
}

int64_t place_pod_gpu_milli(const struct place_pod *p)
{
	return (int64_t)p->num_gpu * p->gpu_milli;
}

static bool model_allowed(const struct place_node *n, const struct place_pod *p)
{
	/* A node without GPUs has no model (-1): no gpu_spec allows it. */
	return !p->spec_mask || (n->model >= 0 && (p->spec_mask >> n->model & 1));
}

/* Whether the node's GPUs (CPU and model apart) can hold the pod. */
static bool gpus_hold(const struct place_node *n, const struct place_pod *p)
{
	int fit = 0;
	for (int g = 0; g < n->ngpu; g++)
		fit += n->gpu_free[g] >= p->gpu_milli;
	return fit >= p->num_gpu;
}

bool place_fits(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p)
{
	(void)c;
	if (n->cpu_free < p->cpu || n->mem_free < p->mem || !model_allowed(n, p))
		return false;
	return p->num_gpu == 0 || gpus_hold(n, p);
}

void place_best_fit_gpus(const struct place_node *n, const struct place_pod *p, int gpu[PLACE_MAX_GPUS])
{
	if (p->num_gpu == 1 && p->gpu_milli < PLACE_GPU_MILLI) {
		int best = -1;
		for (int g = 0; g < n->ngpu; g++)
			if (n->gpu_free[g] >= p->gpu_milli && (best < 0 || n->gpu_free[g] < n->gpu_free[best]))
				best = g;
		gpu[0] = best;
		return;
	}
	int k = 0;
	for (int g = 0; g < n->ngpu && k < p->num_gpu; g++)
		if (n->gpu_free[g] == PLACE_GPU_MILLI)
			gpu[k++] = g;
}

double place_node_frag(const struct place_cluster *c, const struct place_node *n)
{
	int64_t all = place_node_gpu_free(n);
	double F = 0;
	for (size_t t = 0; t < c->ntypes; t++) {
		const struct place_pod *m = &c->types[t].pod;
		int64_t f;
		if (m->num_gpu == 0 || !model_allowed(n, m) || n->cpu_free < m->cpu || !gpus_hold(n, m)) {
			f = all;
		} else {
			f = 0;
			for (int g = 0; g < n->ngpu; g++)
				if (n->gpu_free[g] < m->gpu_milli)
					f += n->gpu_free[g];
		}
		F += c->types[t].p * (double)f;
	}
	return F;
}

static int type_key_cmp(const struct place_pod *a, const struct place_pod *b)
{
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->gpu_milli != b->gpu_milli)
		return a->gpu_milli < b->gpu_milli ? -1 : 1;
	if (a->num_gpu != b->num_gpu)
		return a->num_gpu < b->num_gpu ? -1 : 1;
	if (a->spec_mask != b->spec_mask)
		return a->spec_mask < b->spec_mask ? -1 : 1;
	return 0;
}

static int pod_key_qsort(const void *a, const void *b)
{
	return type_key_cmp(a, b);
}

struct counted { struct place_pod pod; size_t count; };

static int by_count(const void *a, const void *b)
{
	const struct counted *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return type_key_cmp(&x->pod, &y->pod);
}

void place_set_types(struct place_cluster *c, const struct place_pod *pods, size_t n)
{
	free(c->types);
	c->types = NULL;
	c->ntypes = 0;
	if (n == 0) {
		refresh_frag(c);
		return;
	}
	struct place_pod *keys = xmalloc(n * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		keys[i] = pods[i];
		keys[i].mem = 0;      /* memory is in no type */
	}
	qsort(keys, n, sizeof *keys, pod_key_qsort);
	struct counted *u = xmalloc(n * sizeof *u);
	size_t nu = 0;
	for (size_t i = 0; i < n; i++) {
		if (nu && !type_key_cmp(&u[nu - 1].pod, &keys[i]))
			u[nu - 1].count++;
		else
			u[nu++] = (struct counted){ keys[i], 1 };
	}
	qsort(u, nu, sizeof *u, by_count);
	size_t covered = 0, keep = 0;
	while (keep < nu && covered * 100 < n * 95)
		covered += u[keep++].count;
	c->types = xmalloc(keep * sizeof *c->types);
	for (size_t i = 0; i < keep; i++)
		c->types[i] = (struct place_type){ u[i].pod, (double)u[i].count / (double)covered };
	c->ntypes = keep;
	free(u);
	free(keys);
	refresh_frag(c);
}

static void set_frag(struct place_cluster *c, struct place_node *n)
{
	c->frag_total -= n->frag;
	n->frag = place_node_frag(c, n);
	n->version++;
	c->frag_total += n->frag;
}

static int pod_class(const struct place_pod *p)
{
	return p->gpu_milli < PLACE_GPU_MILLI ? 0 : p->num_gpu;
}

void place_apply(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch)
{
	struct place_node *n = &c->nodes[ch->node];
	n->cpu_free -= p->cpu;
	n->mem_free -= p->mem;
	for (int k = 0; k < p->num_gpu; k++)
		n->gpu_free[ch->gpu[k]] -= p->gpu_milli;
	if (p->num_gpu) {
		n->gpu_pods[pod_class(p)]++;
		c->gpu_used += place_pod_gpu_milli(p);
	}
	set_frag(c, n);
}

void place_undo(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch)
{
	struct place_node *n = &c->nodes[ch->node];
	n->cpu_free += p->cpu;
	n->mem_free += p->mem;
	for (int k = 0; k < p->num_gpu; k++)
		n->gpu_free[ch->gpu[k]] += p->gpu_milli;
	if (p->num_gpu) {
		n->gpu_pods[pod_class(p)]--;
		c->gpu_used -= place_pod_gpu_milli(p);
	}
	set_frag(c, n);
}

int place_choose_by_score(struct place_cluster *c, const struct place_pod *p, struct place_choice *out, place_score_fn score)
{
	int best_score = -1;
	uint32_t best_rank = UINT32_MAX;
	size_t best = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct place_node *n = &c->nodes[i];
		if (!place_fits(c, n, p))
			continue;
		int s = score(c, n, p);
		if (place_better(s, n->rank, best_score, best_rank)) {
			best_score = s;
			best_rank = n->rank;
			best = i;
		}
	}
	if (best_score < 0)
		return -1;
	out->node = best;
	out->score = best_score;
	place_best_fit_gpus(&c->nodes[best], p, out->gpu);
	return 0;
}

void place_cluster_clone(struct place_cluster *dst, const struct place_cluster *src)
{
	*dst = *src;
	dst->nodes = xmalloc((src->nnodes ? src->nnodes : 1) * sizeof *dst->nodes);
	if (src->nnodes)
		memcpy(dst->nodes, src->nodes, src->nnodes * sizeof *dst->nodes);
	for (int i = 0; i < src->nmodels; i++)
		dst->models[i] = xstrdup(src->models[i]);
	dst->types = xmalloc((src->ntypes ? src->ntypes : 1) * sizeof *dst->types);
	if (src->ntypes)
		memcpy(dst->types, src->types, src->ntypes * sizeof *dst->types);
	dst->state = NULL;
	if (src->ops && src->ops->clone)
		src->ops->clone(dst, src);
}
