/*
 * place — the physical node model and the placement extension point (issue 36;
 * ../shared/spec/placement-fgd.md, the FGD paper's model exactly).
 *
 * A node has CPU (milli-cores), memory (MiB), 1..PLACE_MAX_GPUS GPUs of 1,000 milli each and
 * one GPU model. A pod (one worker) asks for CPU, memory and either nothing on a GPU (CPU-only),
 * a share of one GPU (num_gpu 1, gpu_milli < 1000) or k whole GPUs on one node, optionally
 * restricted to a set of models (spec_mask; 0 = any model).
 *
 * A placement policy is a struct place_ops, one file per policy under lib/place/ and one row
 * of place_policies[] (policies.c): choose() scores the feasible nodes (an integer 0..100, the
 * maximum wins, ties go to the lowest seeded node rank) and picks the GPUs; place() and
 * release() apply and undo a choice; init() and clone() set up and copy the policy's own state.
 * The cluster keeps the FGD fragmentation of every node up to date through place/release, so
 * every policy can report it.
 *
 * Memory: struct place_cluster owns its nodes, model names, pod types and policy state
 * (place_cluster_release frees them). Nothing here prints or exits (but out of memory).
 */
#ifndef SCHEDNAV_PLACE_H
#define SCHEDNAV_PLACE_H
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLACE_MAX_GPUS 8        /* GPUs per node (openb: 1, 2, 4 or 8) */
#define PLACE_MAX_MODELS 64     /* distinct GPU models (bits of spec_mask) */
#define PLACE_GPU_MILLI 1000    /* one whole GPU */
/* The paper's normalisers: a node of 128 cores and 8 GPUs. */
#define PLACE_NORM_CPU 128000.0
#define PLACE_NORM_GPU 8000.0

struct place_node {
	int64_t cpu_total, cpu_free;        /* milli-cores */
	int64_t mem_total, mem_free;        /* MiB */
	int ngpu;                           /* 0..PLACE_MAX_GPUS */
	int model;                          /* index into the cluster's model names; -1 without GPUs */
	int gpu_free[PLACE_MAX_GPUS];       /* free milli per GPU, 0..1000 */
	uint32_t rank;                      /* seeded tie rank: lower wins a tie */
	uint32_t gpu_pods[PLACE_MAX_GPUS + 1];  /* GPU pods hosted, by class: 0 shared, k k-GPU */
	double frag;                        /* F(n), kept up to date */
	uint32_t version;                   /* changes whenever the node's state or F does (memos) */
};

struct place_pod {
	int64_t cpu, mem;                   /* milli-cores, MiB */
	int num_gpu;                        /* 0 = CPU-only, else 1..PLACE_MAX_GPUS */
	int gpu_milli;                      /* per GPU: < 1000 only when num_gpu is 1 (a share) */
	uint64_t spec_mask;                 /* allowed models (bit = model index); 0 = any */
};

/* A typical pod type of the fragmentation measure, with its renormalised frequency. */
struct place_type {
	struct place_pod pod;               /* mem unused */
	double p;
};

/* Where a pod goes: a node and the GPUs it takes (gpu[0..num_gpu)), milli each. */
struct place_choice {
	size_t node;
	int gpu[PLACE_MAX_GPUS];
	int score;
};

/* A tiny seeded generator (splitmix64 seeding xoshiro256**): ours, not Go's. */
struct place_rng { uint64_t s[4]; };
void place_rng_seed(struct place_rng *r, uint64_t seed);
uint64_t place_rng_next(struct place_rng *r);
uint64_t place_rng_below(struct place_rng *r, uint64_t n);     /* uniform in [0, n), n > 0 */

struct place_cluster;

struct place_ops {
	const char *name;                   /* the policy's name, e.g. "fgd" */
	const char *fgd_name;               /* the artifact's sc_policy column, e.g. "06-FGD" */
	/* Set up the policy's state (c->state) for a run seeded with seed. */
	void (*init)(struct place_cluster *c, uint64_t seed);
	/* Score the feasible nodes and fill *out; 0 = placed, -1 = fits nowhere. */
	int (*choose)(struct place_cluster *c, const struct place_pod *p, struct place_choice *out);
	/* Apply / undo a choice made by choose (the node model and its fragmentation). */
	void (*place)(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch);
	void (*release)(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch);
	/* Copy src's policy state into dst (whose nodes are already a copy of src's). */
	void (*clone)(struct place_cluster *dst, const struct place_cluster *src);
	void (*state_free)(void *state);
};

struct place_cluster {
	struct place_node *nodes;
	size_t nnodes;
	char *models[PLACE_MAX_MODELS];     /* GPU model names, in order of first appearance */
	int nmodels;
	struct place_type *types;           /* the typical pod types (place_set_types) */
	size_t ntypes;
	const struct place_ops *ops;
	void *state;                        /* the policy's own (ops->init) */
	double frag_total;                  /* sum of the nodes' F(n) */
	int64_t gpu_capacity, gpu_used;     /* milli */
};

/* The table of policies (policies.c), NULL-terminated, and a lookup by name (NULL if none). */
extern const struct place_ops *const place_policies[];
const struct place_ops *place_policy(const char *name);

void place_cluster_init(struct place_cluster *c);
void place_cluster_release(struct place_cluster *c);
/* The index of a model name, added when new; -1 when the table is full. */
int place_model_index(struct place_cluster *c, const char *name);
/* The index of a model name, or -1 when no node has it. */
int place_model_find(const struct place_cluster *c, const char *name);
/* Append a node (all free; model -1 when it has no GPU); returns its index. */
size_t place_add_node(struct place_cluster *c, int64_t cpu, int64_t mem, int ngpu, int model);
/* Choose ops for the run, give every node a seeded rank and call ops->init. Call after
 * every node is added and the types are set. */
void place_start(struct place_cluster *c, const struct place_ops *ops, uint64_t seed);
/* The typical pod types of pods[0..n): most frequent (CPU, milli, GPUs, spec) first until
 * they cover >= 95 % of the pods, frequencies renormalised; recomputes every node's F. */
void place_set_types(struct place_cluster *c, const struct place_pod *pods, size_t n);
/* Make dst an independent copy of src (nodes, types, policy state). */
void place_cluster_clone(struct place_cluster *dst, const struct place_cluster *src);

/* The shared helpers every policy builds on. */
bool place_fits(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p);
/* The GPUs a pod takes on a node it fits: shared pods the least free GPU that fits (lowest
 * index on ties), others the lowest-indexed fully free GPUs. */
void place_best_fit_gpus(const struct place_node *n, const struct place_pod *p, int gpu[PLACE_MAX_GPUS]);
int64_t place_node_gpu_free(const struct place_node *n);     /* free milli over its GPUs */
int64_t place_pod_gpu_milli(const struct place_pod *p);      /* num_gpu x gpu_milli */
/* F(n) of a node in the state given, over the cluster's types. */
double place_node_frag(const struct place_cluster *c, const struct place_node *n);
/* A score computed in double, floored and held within +-PLACE_SCORE_LIMIT before it becomes
 * an int: a node far beyond the paper's scale (the simulator gives a node without CPU or memory
 * in its trace 2^50 of it) must not overflow the conversion, which is undefined. */
#define PLACE_SCORE_LIMIT 1000000000
static inline int place_score_int(double x)
{
	x = floor(x);
	if (!(x > -PLACE_SCORE_LIMIT))
		return -PLACE_SCORE_LIMIT;
	return x > PLACE_SCORE_LIMIT ? PLACE_SCORE_LIMIT : (int)x;
}
/* Highest score wins, ties the lowest rank: whether (score, rank) beats the best so far. */
static inline bool place_better(int score, uint32_t rank, int best_score, uint32_t best_rank)
{
	return score > best_score || (score == best_score && rank < best_rank);
}
/* The generic place and release: update CPU, memory, GPUs, class counts and F. */
void place_apply(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch);
void place_undo(struct place_cluster *c, const struct place_pod *p, const struct place_choice *ch);
/* The generic choose: the node of highest score(c, node, pod) with GPUs by best fit. */
typedef int (*place_score_fn)(const struct place_cluster *c, const struct place_node *n, const struct place_pod *p);
int place_choose_by_score(struct place_cluster *c, const struct place_pod *p, struct place_choice *out, place_score_fn score);
#endif
