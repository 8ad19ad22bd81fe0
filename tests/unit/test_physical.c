/* Unit tests for the simulator on the physical node model (lib/sim/physical.c, issue 36):
 * the hand-computed cases of docs/simulator.md §3.13, on tiny traces built in C. */
#include "core/arena.h"
#include "core/json.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct trace T;
static struct arena A;
static struct sim_output O;
static struct sim_policy P;
static char ERR[2048];
static char POL[1024];

static void tr_begin(void)
{
	trace_init(&T);
	T.trace_id = trace_strdup(&T, "unit");
	T.time_origin = trace_strdup(&T, "2026-01-01 00:00:00");
}

static struct trace_node *node(const char *id, const char *model, long long n)
{
	struct trace_node *x = trace_add_node(&T);
	x->id = trace_strdup(&T, id);
	x->model = trace_strdup(&T, model);
	x->gpu_count = n;
	return x;
}

static struct trace_job *job(const char *id, double submit, double dur, double gpus, bool hp)
{
	struct trace_job *j = trace_add_job(&T);
	j->id = trace_strdup(&T, id);
	j->submit = submit;
	j->duration = dur;
	j->gpus = gpus;
	j->hp = hp;
	j->model = trace_strdup(&T, "*");
	return j;
}

static void pol(const char *sched, const char *strategy)
{
	snprintf(POL, sizeof POL,
		 "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"t\",\"scheduler\":\"%s\","
		 "\"spot_guarantee_seconds\":0,\"checkpoint_interval_seconds\":100,\"preemption_overhead_seconds\":0,"
		 "\"placement_strategy\":\"%s\"}", sched, strategy);
}

/* Sort, validate, parse the policy and run: sim_run's status (ERR holds its message). */
static int run(void)
{
	struct json *doc;
	char err[300];
	arena_init(&A);
	trace_sort(&T);
	trace_assign_phases(&T);
	if (trace_validate(&T, err, sizeof err) || json_parse(&A, POL, strlen(POL), &doc, err, sizeof err) ||
	    policy_from_json(&P, doc, &A, err, sizeof err)) {
		fprintf(stderr, "bad test input: %s\n", err);
		exit(1);
	}
	return sim_run(&T, &P, &O, ERR, sizeof ERR);
}

static void done(void)
{
	sim_output_release(&O);
	trace_release(&T);
	arena_release(&A);
}

static size_t idx(const char *id)
{
	for (size_t i = 0; i < T.n_jobs; i++)
		if (!strcmp(T.jobs[i].id, id))
			return i;
	fprintf(stderr, "no job %s\n", id);
	exit(1);
}

/* §3.13 case 1, fragmentation: two 4-GPU nodes; a and b take 1 GPU each (largest-free: a on
 * n1, b on n2), so c's 4 GPUs are free in total (6) but on no one node: c waits for a and b
 * (t = 100). best-fit puts b beside a, leaving n2 whole: c starts at 1. The pool model
 * splits c at 1. */
static void fragmentation(void)
{
	const char *strategies[] = { "largest-free", "best-fit", "deterministic_best_fit" };
	const double c_start[] = { 100, 1, 1 };
	for (int k = 0; k < 3; k++) {
		tr_begin();
		node("n1", "A", 4);
		node("n2", "A", 4);
		job("a", 0, 100, 1, false);
		job("b", 0, 100, 1, false);
		job("c", 1, 10, 4, false);
		pol("fifo", strategies[k]);
		CHECK(run() == 0, "%s: %s", strategies[k], ERR);
		CHECK(O.jobs[idx("c")].start == c_start[k], "%s: c starts at %.17g, want %g", strategies[k], O.jobs[idx("c")].start, c_start[k]);
		done();
	}
}

/* Case 2, gang start: three 2-GPU nodes; a (n1) and b (n2, the tie after n1... largest-free:
 * n2 and n3 tie at 2, n2 first) take 1 GPU each until 100. e has 2 workers of 2 GPUs: 4 GPUs
 * are free but only n3 holds a worker, so e starts whole at 100, not one worker at 1; f
 * (1 GPU, behind e) starts at 2 on n3 and ends at 7. */
static void gang(void)
{
	tr_begin();
	node("n1", "A", 2);
	node("n2", "A", 2);
	node("n3", "A", 2);
	job("a", 0, 100, 1, false);
	job("b", 0, 100, 1, false);
	struct trace_job *e = job("e", 1, 10, 4, false);
	e->workers = 2;
	e->res |= TRACE_RES_WORKERS;
	job("f", 2, 5, 1, false);
	pol("fifo", "largest-free");
	CHECK(run() == 0, "gang: %s", ERR);
	CHECK(O.jobs[idx("e")].start == 100 && O.jobs[idx("e")].completion == 110, "gang: e runs [%g, %g], want [100, 110]",
	      O.jobs[idx("e")].start, O.jobs[idx("e")].completion);
	CHECK(O.jobs[idx("f")].start == 2 && O.jobs[idx("f")].completion == 7, "gang: f runs [%g, %g], want [2, 7]", O.jobs[idx("f")].start,
	      O.jobs[idx("f")].completion);
	done();
}

/* Case 3, GPU shares: one 1-GPU node; two 0.5 jobs share it from 0. At 10 h1 ends and 500
 * milli are free: the 0.6 job (first in the queue) does not fit, the gpu_milli 400 job behind
 * it does; at 20 h2 ends and the 0.6 job takes the 600 milli left. */
static void shares(void)
{
	tr_begin();
	node("n1", "A", 1);
	job("h1", 0, 10, 0.5, false);
	job("h2", 0, 20, 0.5, false);
	job("s6", 1, 10, 0.6, false);
	struct trace_job *m = job("m4", 2, 5, 0.4, false);
	m->gpu_milli = 400;
	m->res |= TRACE_RES_GPU_MILLI;
	pol("fifo", "fgd");
	CHECK(run() == 0, "shares: %s", ERR);
	CHECK(O.jobs[idx("h1")].start == 0 && O.jobs[idx("h2")].start == 0, "shares: h1 %g h2 %g, want 0 0", O.jobs[idx("h1")].start,
	      O.jobs[idx("h2")].start);
	CHECK(O.jobs[idx("s6")].start == 20 && O.jobs[idx("m4")].start == 10, "shares: s6 %g m4 %g, want 20 10",
	      O.jobs[idx("s6")].start, O.jobs[idx("m4")].start);
	done();
}

/* Case 4, HP-first preemption (§3.13): two 2-GPU nodes; Spot s1 (rem 990 at 10) and s3 (790)
 * on n1, s2 (890) on n2. HP h (2 GPUs on one node) arrives at 10. The victim order is s1, s2,
 * s3; releasing s1 leaves 1 + 1 free (no fit), s1 and s2 make n2 whole (fit), and s1 is then
 * put back (h still fits): only s2 is evicted, and h starts at 10. The pool model evicts s1. */
static void preemption(void)
{
	const char *strategies[] = { "largest-free", "deterministic_best_fit" };
	const char *victim[] = { "s2", "s1" };
	for (int k = 0; k < 2; k++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "A", 2);
		job("s1", 0, 1000, 1, false);
		job("s2", 0, 900, 1, false);
		job("s3", 0, 800, 1, false);
		job("h", 10, 50, 2, true);
		pol("priority_preemptive", strategies[k]);
		CHECK(run() == 0, "%s: %s", strategies[k], ERR);
		CHECK(O.n_events == 1 && O.n_events && !strcmp(T.jobs[O.events[0].victim].id, victim[k]),
		      "%s: %zu evictions, first victim %s, want 1 of %s", strategies[k], O.n_events,
		      O.n_events ? T.jobs[O.events[0].victim].id : "-", victim[k]);
		CHECK(O.jobs[idx("h")].start == 10, "%s: h starts at %g, want 10", strategies[k], O.jobs[idx("h")].start);
		done();
	}
	/* no victim helps: HP hA and hB hold 1 GPU of each node, Spot s1 the other of n1. HP h (2
	 * GPUs) fits nowhere even without s1: nobody is evicted and h waits for hA and hB (100);
	 * the pool model evicts s1 and starts h split at 10. */
	for (int k = 0; k < 2; k++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "A", 2);
		job("hA", 0, 100, 1, true);
		job("hB", 0, 100, 1, true);
		job("s1", 0, 1000, 1, false);
		job("h", 10, 50, 2, true);
		pol("priority_preemptive", strategies[k]);
		CHECK(run() == 0, "%s: %s", strategies[k], ERR);
		CHECK(O.n_events == (size_t)k && O.jobs[idx("h")].start == (k ? 10 : 100), "%s: %zu evictions, h at %g; want %d, %d",
		      strategies[k], O.n_events, O.jobs[idx("h")].start, k, k ? 10 : 100);
		done();
	}
}

/* Refusals: a fraction that is neither whole nor a share, a CPU ask no node has, a node of
 * more than 8 GPUs, a gpu_spec naming no model; and placement_seed without a physical model. */
static void refusals(void)
{
	struct { double gpus; long long cpu; long long ngpu; const char *spec; const char *want; } c[] = {
		{ 1.5, 0, 2, NULL, "job 'x': gpus 1.5 over 1 worker(s) is neither" },
		{ 1, 64000, 2, NULL, "job 'x' can never be placed: a worker needs 64000 milli-CPUs, and the most a node with its GPUs has is 32000" },
		{ 1, 0, 16, NULL, "node 'n1' has 16 GPUs" },
		{ 1, 0, 2, "V100|P100", "job 'x': gpu_spec 'V100|P100' names no node's GPU model" },
	};
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		tr_begin();
		struct trace_node *n = node("n1", "A", c[k].ngpu);
		n->cpu_milli = 32000;
		n->res = TRACE_RES_CPU;
		struct trace_job *j = job("x", 0, 10, c[k].gpus, false);
		if (c[k].cpu) {
			j->cpu_milli = c[k].cpu;
			j->res |= TRACE_RES_CPU;
		}
		if (c[k].spec) {
			j->gpu_spec = trace_strdup(&T, c[k].spec);
			j->res |= TRACE_RES_GPU_SPEC;
		}
		pol("fifo", "gpu-packing");
		CHECK(run() == -1 && strstr(ERR, c[k].want), "refusal %zu: got '%s', want '%s'", k, ERR, c[k].want);
		done();
	}
	struct json *doc;
	char err[300];
	arena_init(&A);
	const char *bad = "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"t\",\"scheduler\":\"fifo\","
			  "\"spot_guarantee_seconds\":0,\"checkpoint_interval_seconds\":100,\"preemption_overhead_seconds\":0,"
			  "\"placement_strategy\":\"deterministic_best_fit\",\"placement_seed\":3}";
	CHECK(json_parse(&A, bad, strlen(bad), &doc, err, sizeof err) == 0 && policy_from_json(&P, doc, &A, err, sizeof err) == -1 &&
	      strstr(err, "'placement_seed' seeds the physical node model"), "placement_seed on the pool: %s", err);
	arena_release(&A);
}

/* A CPU-bound node: n1 has GPUs free but 4 cores; a 6-core job goes to n2 (fewer free GPUs). */
static void cpu_bound(void)
{
	tr_begin();
	struct trace_node *n1 = node("n1", "A", 4), *n2 = node("n2", "A", 2);
	n1->cpu_milli = 4000;
	n2->cpu_milli = 64000;
	n1->res = n2->res = TRACE_RES_CPU;
	struct trace_job *j = job("a", 0, 10, 1, false);
	j->cpu_milli = 6000;
	j->res |= TRACE_RES_CPU;
	struct trace_job *b = job("b", 0, 10, 2, false);
	b->cpu_milli = 60000;
	b->res |= TRACE_RES_CPU;
	pol("fifo", "largest-free");
	CHECK(run() == 0, "cpu: %s", ERR);
	/* a on n2 (the only node with 6 cores), so b (60 cores) waits for it: starts at 10 */
	CHECK(O.jobs[idx("a")].start == 0 && O.jobs[idx("b")].start == 10, "cpu: a %g b %g, want 0 10", O.jobs[idx("a")].start,
	      O.jobs[idx("b")].start);
	done();
}

/* gpu_spec: n1 (model A, 4 GPUs) has the most free, but x may run on B only: it goes to n2 (B,
 * 2 GPUs), so y (2 GPUs, spec B too) waits for it (10); z (gpu_model A) starts on n1 at 0. */
static void spec(void)
{
	tr_begin();
	node("n1", "A", 4);
	node("n2", "B", 2);
	struct trace_job *x = job("x", 0, 10, 1, false), *y = job("y", 0, 10, 2, false), *z = job("z", 0, 10, 4, false);
	x->gpu_spec = trace_strdup(&T, "B|C");
	y->gpu_spec = trace_strdup(&T, "B");
	x->res |= TRACE_RES_GPU_SPEC;
	y->res |= TRACE_RES_GPU_SPEC;
	z->model = trace_strdup(&T, "A");
	pol("fifo", "largest-free");
	CHECK(run() == 0, "spec: %s", ERR);
	CHECK(O.jobs[idx("x")].start == 0 && O.jobs[idx("y")].start == 10 && O.jobs[idx("z")].start == 0, "spec: x %g y %g z %g, want 0 10 0",
	      O.jobs[idx("x")].start, O.jobs[idx("y")].start, O.jobs[idx("z")].start);
	done();
}

/* A clone continues exactly as the session it was copied from. */
static void clone_continues(void)
{
	const char *strategies[] = { "random", "fgd", "largest-free" };
	for (int k = 0; k < 3; k++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "A", 4);
		node("n3", "B", 1);
		for (int i = 0; i < 12; i++) {
			char id[8];
			snprintf(id, sizeof id, "j%02d", i);
			struct trace_job *j = job(id, i * 3, 17 + (i * 7) % 13, i % 4 == 3 ? 0.5 : 1 + i % 3, i % 5 == 0);
			if (i % 6 == 1) {
				j->workers = 2;
				j->gpus = 2;
				j->res |= TRACE_RES_WORKERS;
			}
		}
		pol("priority_preemptive", strategies[k]);
		CHECK(run() == 0, "%s: %s", strategies[k], ERR);
		struct sim_hooks none = { 0 };
		struct sim *s = sim_open(&T, &P, &none, ERR, sizeof ERR);
		CHECK(s && sim_advance(s, 15, ERR, sizeof ERR) == 0, "%s", ERR);
		struct sim *c = sim_clone(s, &none, ERR, sizeof ERR);
		struct sim_output o2, o3;
		CHECK(sim_finish(c, &o2, ERR, sizeof ERR) == 0 && sim_finish(s, &o3, ERR, sizeof ERR) == 0, "%s", ERR);
		bool same = o2.n_events == O.n_events && o3.n_events == O.n_events;
		for (size_t i = 0; i < T.n_jobs && same; i++)
			same = o2.jobs[i].start == O.jobs[i].start && o2.jobs[i].completion == O.jobs[i].completion &&
			       o3.jobs[i].start == O.jobs[i].start && o3.jobs[i].completion == O.jobs[i].completion;
		CHECK(same, "%s: the clone or the session differs from sim_run", strategies[k]);
		sim_output_release(&o2);
		sim_output_release(&o3);
		sim_close(c);
		sim_close(s);
		done();
	}
}

/* Nodes without cpu_milli (the simulator's unbounded CPU) keep best-fit a best fit, whatever
 * the seeded ranks: a (4 GPUs) takes n2 or n3; b (2 GPUs) the tightest, n1; c (4 GPUs) the
 * 4-GPU node left, at 1; d (4 GPUs) then finds no room until a and c end. With the CPU term
 * overflowing the score (it did at 2^50 milli), no node scored and every choice fell on node
 * 0, n1, whether it fit or not: a, b and c piled onto n1's 2 GPUs, and d started at 2. */
static void unbounded_cpu(void)
{
	for (int seed = 0; seed < 8; seed++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "A", 4);
		node("n3", "A", 4);
		job("a", 0, 100, 4, false);
		job("b", 0.5, 100, 2, false);
		job("c", 1, 10, 4, false);
		job("d", 2, 10, 4, false);
		snprintf(POL, sizeof POL,
			 "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"t\",\"scheduler\":\"fifo\","
			 "\"spot_guarantee_seconds\":0,\"checkpoint_interval_seconds\":100,\"preemption_overhead_seconds\":0,"
			 "\"placement_strategy\":\"best-fit\",\"placement_seed\":%d}", seed);
		CHECK(run() == 0, "seed %d: %s", seed, ERR);
		CHECK(O.jobs[idx("b")].start == 0.5 && O.jobs[idx("c")].start == 1 && O.jobs[idx("d")].start == 11,
		      "seed %d: b, c, d start at %g, %g, %g, want 0.5, 1, 11", seed, O.jobs[idx("b")].start, O.jobs[idx("c")].start,
		      O.jobs[idx("d")].start);
		done();
	}
}

int main(void)
{
	fragmentation();
	unbounded_cpu();
	gang();
	shares();
	preemption();
	refusals();
	cpu_bound();
	spec();
	clone_continues();
	printf("test_physical: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
