/* The placement policies of lib/place/ on hand-computed cases (placement-fgd.md): a shared
 * GPU that fits, a 2-GPU pod that cannot split, a CPU-bound node, a gpu_spec mismatch and a
 * tie broken by the seeded rank, for every policy; the FGD fragmentation of a node by hand;
 * the typical pod types' 95 % cut; the tuning to a multiple of the capacity. */
#include "place/fill.h"
#include "place/place.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const struct place_pod shared500 = { 1000, 1024, 1, 500, 0 };

/* Occupy a node with a pod through the policy-independent path (class counts and F kept). */
static void occupy(struct place_cluster *c, size_t node, const struct place_pod *p, int gpu)
{
	struct place_choice ch = { node, { gpu, gpu + 1, gpu + 2, gpu + 3 }, 0 };
	place_apply(c, p, &ch);
}

static bool is_random(const struct place_ops *ops)
{
	return !strcmp(ops->name, "random");
}

/* Shared pod of 500 milli: node 0's one GPU has 300 free (no room), node 1's GPUs have 1000
 * and 600 free. Everyone goes to node 1; best fit takes GPU 1 (600, the least free that
 * fits); FGD, with the one type "500 milli" (F 0 before), takes GPU 0: on GPU 1 the 100
 * left would be a fragment (F 100), on GPU 0 nothing is (F 0), score floor(100 sigmoid(0)) = 50. */
static void case_shared(const struct place_ops *ops)
{
	struct place_cluster c;
	place_cluster_init(&c);
	int m = place_model_index(&c, "T4");
	place_add_node(&c, 32000, 65536, 1, m);
	place_add_node(&c, 32000, 65536, 2, m);
	place_set_types(&c, &shared500, 1);
	place_start(&c, ops, 7);
	occupy(&c, 0, &(struct place_pod){ 0, 0, 1, 700, 0 }, 0);
	occupy(&c, 1, &(struct place_pod){ 0, 0, 1, 400, 0 }, 1);
	CHECK(c.nodes[1].frag == 0, "%s: F(node 1) %g, want 0", ops->name, c.nodes[1].frag);
	struct place_choice ch;
	int rc = ops->choose(&c, &shared500, &ch);
	CHECK(rc == 0 && ch.node == 1, "%s: shared pod: rc %d node %zu, want node 1", ops->name, rc, ch.node);
	if (!strcmp(ops->name, "fgd"))
		CHECK(ch.gpu[0] == 0 && ch.score == 50, "fgd: GPU %d score %d, want GPU 0 score 50", ch.gpu[0], ch.score);
	else if (!is_random(ops))
		CHECK(ch.gpu[0] == 1, "%s: GPU %d, want 1 (best fit)", ops->name, ch.gpu[0]);
	else
		CHECK(ch.gpu[0] == 0 || ch.gpu[0] == 1, "random: GPU %d", ch.gpu[0]);
	/* The scores by hand (node 1: CPU 32,000 free, GPUs 1,600 milli free, one shared pod). */
	if (!strcmp(ops->name, "dot-product"))   /* floor(100 (1 - (0.25 x 1/128 + 0.2 x 0.0625) / 2)) = floor(99.28) */
		CHECK(ch.score == 99, "dot-product: score %d, want 99", ch.score);
	if (!strcmp(ops->name, "gpu-clustering"))   /* 75 + floor(25 x 6400 / 8000) */
		CHECK(ch.score == 95, "gpu-clustering: score %d, want 95", ch.score);
	if (!strcmp(ops->name, "gpu-packing"))   /* 100 - floor(60 / 10) */
		CHECK(ch.score == 94, "gpu-packing: score %d, want 94", ch.score);
	if (!rc) {
		ops->place(&c, &shared500, &ch);
		CHECK(c.gpu_used == 700 + 400 + 500, "%s: used %lld", ops->name, (long long)c.gpu_used);
		ops->release(&c, &shared500, &ch);
		CHECK(c.gpu_used == 1100 && c.nodes[1].gpu_free[0] + c.nodes[1].gpu_free[1] == 1600 && c.nodes[1].cpu_free == 32000,
		      "%s: release did not undo the placement", ops->name);
	}
	place_cluster_release(&c);
}

/* A 2-GPU pod: node 0 has one whole GPU and a half-used one, nodes 1 and 2 one GPU each:
 * three free GPUs, but on no node two, so it fits nowhere; a 4-GPU node 3 then takes it on
 * its GPUs 0 and 1. */
static void case_no_split(const struct place_ops *ops)
{
	struct place_cluster c;
	struct place_pod two = { 8000, 1024, 2, 1000, 0 };
	place_cluster_init(&c);
	int m = place_model_index(&c, "V100M16");
	place_add_node(&c, 64000, 65536, 2, m);
	place_add_node(&c, 64000, 65536, 1, m);
	place_add_node(&c, 64000, 65536, 1, m);
	place_set_types(&c, &two, 1);
	place_start(&c, ops, 3);
	occupy(&c, 0, &shared500, 1);
	struct place_choice ch;
	CHECK(ops->choose(&c, &two, &ch) == -1, "%s: a 2-GPU pod was split or squeezed onto node %zu", ops->name, ch.node);
	place_add_node(&c, 64000, 65536, 4, m);
	place_start(&c, ops, 3);
	int rc = ops->choose(&c, &two, &ch);
	CHECK(rc == 0 && ch.node == 3 && ch.gpu[0] == 0 && ch.gpu[1] == 1, "%s: rc %d node %zu GPUs %d,%d, want node 3 GPUs 0,1",
	      ops->name, rc, ch.node, ch.gpu[0], ch.gpu[1]);
	place_cluster_release(&c);
}

/* A CPU-bound node: node 0's 8 GPUs are free but only 2 cores are; the pod wants 4 cores
 * and one GPU, so only node 1 (one GPU, 16 cores) holds it. For the one type "this pod",
 * node 0's 8,000 free milli are all fragment: F = 8,000. */
static void case_cpu_bound(const struct place_ops *ops)
{
	struct place_cluster c;
	struct place_pod pod = { 4000, 1024, 1, 1000, 0 };
	place_cluster_init(&c);
	int m = place_model_index(&c, "G2");
	place_add_node(&c, 2000, 65536, 8, m);
	place_add_node(&c, 16000, 65536, 1, m);
	place_set_types(&c, &pod, 1);
	place_start(&c, ops, 11);
	CHECK(c.nodes[0].frag == 8000 && c.nodes[1].frag == 0, "%s: F %g, %g, want 8000, 0", ops->name, c.nodes[0].frag, c.nodes[1].frag);
	struct place_choice ch;
	int rc = ops->choose(&c, &pod, &ch);
	CHECK(rc == 0 && ch.node == 1 && ch.gpu[0] == 0, "%s: rc %d node %zu, want node 1", ops->name, rc, ch.node);
	place_cluster_release(&c);
}

/* gpu_spec: nodes of models A and B; a pod allowing only B goes to node 1 whatever the
 * scores; once node 1 is full it fits nowhere although node 0 is idle. */
static void case_spec(const struct place_ops *ops)
{
	struct place_cluster c;
	place_cluster_init(&c);
	int a = place_model_index(&c, "A10"), b = place_model_index(&c, "P100");
	place_add_node(&c, 64000, 65536, 1, a);
	place_add_node(&c, 64000, 65536, 1, b);
	struct place_pod pod = { 1000, 1024, 1, 1000, 1ULL << b };
	place_set_types(&c, &pod, 1);
	place_start(&c, ops, 5);
	struct place_choice ch;
	int rc = ops->choose(&c, &pod, &ch);
	CHECK(rc == 0 && ch.node == 1, "%s: spec B: rc %d node %zu, want node 1", ops->name, rc, ch.node);
	if (!rc)
		ops->place(&c, &pod, &ch);
	CHECK(ops->choose(&c, &pod, &ch) == -1, "%s: spec B placed on model A's node %zu", ops->name, ch.node);
	/* Node 0 is all fragment for a pod that may not use it. */
	CHECK(c.nodes[0].frag == 1000, "%s: F(node 0) %g, want 1000", ops->name, c.nodes[0].frag);
	/* A node without GPUs has no model: a CPU-only pod with a gpu_spec may not use it, one
	 * without may. */
	size_t cpu_node = place_add_node(&c, 64000, 65536, 0, -1);
	struct place_pod cpu_b = { 1000, 1, 0, 0, 1ULL << b }, cpu_any = { 1000, 1, 0, 0, 0 };
	CHECK(!place_fits(&c, &c.nodes[cpu_node], &cpu_b) && place_fits(&c, &c.nodes[cpu_node], &cpu_any),
	      "%s: the GPU-less node and gpu_spec", ops->name);
	place_cluster_release(&c);
}

/* Two identical idle nodes: every score ties, the lower seeded rank wins (random draws
 * among both); the ranks differ across seeds, so both nodes win for some seed. */
static void case_tie(const struct place_ops *ops)
{
	int wins[2] = { 0, 0 };
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct place_cluster c;
		place_cluster_init(&c);
		int m = place_model_index(&c, "T4");
		place_add_node(&c, 64000, 65536, 2, m);
		place_add_node(&c, 64000, 65536, 2, m);
		place_set_types(&c, &shared500, 1);
		place_start(&c, ops, seed);
		struct place_choice ch, again;
		int rc = ops->choose(&c, &shared500, &ch);
		CHECK(rc == 0, "%s: seed %llu: no node", ops->name, (unsigned long long)seed);
		if (rc)
			continue;
		wins[ch.node]++;
		/* largest-free breaks ties by node order, as the pool model does */
		size_t low = !strcmp(ops->name, "largest-free") ? 0 : c.nodes[0].rank < c.nodes[1].rank ? 0 : 1;
		if (!is_random(ops))
			CHECK(ch.node == low, "%s: seed %llu: node %zu won the tie, want rank-lower node %zu", ops->name,
			      (unsigned long long)seed, ch.node, low);
		place_start(&c, ops, seed);
		ops->choose(&c, &shared500, &again);
		CHECK(again.node == ch.node && again.gpu[0] == ch.gpu[0], "%s: seed %llu: not deterministic", ops->name, (unsigned long long)seed);
		place_cluster_release(&c);
	}
	if (strcmp(ops->name, "largest-free"))
		CHECK(wins[0] > 0 && wins[1] > 0, "%s: one node won every seed (%d, %d)", ops->name, wins[0], wins[1]);
	else
		CHECK(wins[0] == 40, "largest-free: node 0 won %d of 40 ties, want all (node order)", wins[0]);
}

/* A clone is independent and continues as the original would: fill a small cluster halfway,
 * clone it, then place the same pods on both (same choices, same end state), and check that
 * placing on the clone alone leaves the original untouched. */
static void case_clone(const struct place_ops *ops)
{
	struct place_cluster c, d;
	place_cluster_init(&c);
	int m = place_model_index(&c, "T4");
	for (int i = 0; i < 6; i++)
		place_add_node(&c, 32000, 65536, 1 + i % 4, m);
	struct place_pod pods[12];
	for (int i = 0; i < 12; i++)
		pods[i] = (struct place_pod){ 1000 * (1 + i % 3), 64, i % 4 == 3 ? 2 : 1, i % 2 ? 1000 : 300 + 50 * i, 0 };
	for (int i = 0; i < 12; i++)
		if (pods[i].num_gpu > 1)
			pods[i].gpu_milli = 1000;
	place_set_types(&c, pods, 12);
	place_start(&c, ops, 9);
	struct place_choice ch, dh;
	for (int i = 0; i < 6; i++)
		if (!ops->choose(&c, &pods[i], &ch))
			ops->place(&c, &pods[i], &ch);
	place_cluster_clone(&d, &c);
	for (int i = 6; i < 12; i++) {
		int a = ops->choose(&c, &pods[i], &ch), b = ops->choose(&d, &pods[i], &dh);
		CHECK(a == b && (a || (ch.node == dh.node && ch.gpu[0] == dh.gpu[0])), "%s: pod %d: the clone chose otherwise", ops->name, i);
		if (!a)
			ops->place(&c, &pods[i], &ch);
		if (!b)
			ops->place(&d, &pods[i], &dh);
	}
	CHECK(c.gpu_used == d.gpu_used && c.frag_total == d.frag_total, "%s: the clone ended elsewhere", ops->name);
	struct place_pod tiny = { 100, 1, 0, 0, 0 };
	int64_t cpu_c = 0, cpu_d = 0;
	int rc = ops->choose(&d, &tiny, &dh);
	if (!rc)
		ops->place(&d, &tiny, &dh);
	for (size_t i = 0; i < c.nnodes; i++) {
		cpu_c += c.nodes[i].cpu_free;
		cpu_d += d.nodes[i].cpu_free;
	}
	CHECK(rc == 0 && cpu_c == cpu_d + 100, "%s: placing on the clone changed the original", ops->name);
	place_cluster_release(&d);
	place_cluster_release(&c);
}

/* F(n) by hand: GPUs free 1000, 1000, 300, 0; types shared 500 (p 1/2), 2-GPU (1/4) and
 * CPU-only (1/4): 0.5 x 300 + 0.25 x 300 + 0.25 x 2300 = 800. */
static void case_frag(void)
{
	struct place_cluster c;
	place_cluster_init(&c);
	place_add_node(&c, 64000, 65536, 4, place_model_index(&c, "T4"));
	struct place_pod pods[4] = { shared500, shared500, { 2000, 0, 2, 1000, 0 }, { 2000, 0, 0, 0, 0 } };
	place_set_types(&c, pods, 4);
	CHECK(c.ntypes == 3, "types %zu, want 3", c.ntypes);
	place_start(&c, place_policy("fgd"), 1);
	occupy(&c, 0, &(struct place_pod){ 0, 0, 1, 700, 0 }, 2);
	occupy(&c, 0, &(struct place_pod){ 0, 0, 1, 1000, 0 }, 3);
	CHECK(fabs(c.nodes[0].frag - 800) < 1e-9 && fabs(c.frag_total - 800) < 1e-9, "F %g, want 800", c.nodes[0].frag);
	place_cluster_release(&c);
}

/* The 95 % cut: 10, 6, 3 and 1 pods of four types keep the first three (19 of 20), p 10/19,
 * 6/19, 3/19, most frequent first. */
static void case_types(void)
{
	struct place_pod pods[20];
	for (int i = 0; i < 20; i++)
		pods[i] = (struct place_pod){ 1000 * (i < 10 ? 1 : i < 16 ? 2 : i < 19 ? 3 : 4), 7, 1, 1000, 0 };
	struct place_cluster c;
	place_cluster_init(&c);
	place_add_node(&c, 1000, 1000, 1, place_model_index(&c, "T4"));
	place_set_types(&c, pods, 20);
	CHECK(c.ntypes == 3 && c.types[0].pod.cpu == 1000 && c.types[2].pod.cpu == 3000, "types %zu", c.ntypes);
	CHECK(c.ntypes == 3 && fabs(c.types[0].p - 10.0 / 19) < 1e-12 && fabs(c.types[1].p - 6.0 / 19) < 1e-12, "frequencies");
	place_cluster_release(&c);
}

/* Tuning: 10 whole-GPU pods on a capacity of 4 GPUs at 1.3 keep 5 (5,000 milli <= 5,200);
 * 2 pods inflate to 5 in order (the originals first). */
static void case_tune(void)
{
	struct place_pod pods[10], *out;
	size_t n;
	for (int i = 0; i < 10; i++)
		pods[i] = (struct place_pod){ 1000 + i, 0, 1, 1000, 0 };
	place_fill_tune(pods, 10, 4000, 1.3, 42, &out, &n);
	CHECK(n == 5, "thinned to %zu pods, want 5", n);
	free(out);
	place_fill_tune(pods, 2, 4000, 1.3, 42, &out, &n);
	CHECK(n == 5 && out[0].cpu + out[1].cpu == 2001, "inflated to %zu pods, want 5 with both originals first", n);
	free(out);
}

int main(void)
{
	for (size_t i = 0; place_policies[i]; i++) {
		case_shared(place_policies[i]);
		case_no_split(place_policies[i]);
		case_cpu_bound(place_policies[i]);
		case_spec(place_policies[i]);
		case_tie(place_policies[i]);
		case_clone(place_policies[i]);
	}
	case_frag();
	case_types();
	case_tune();
	printf("test_place: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
