/* Unit tests for lib/sim and lib/eval/metrics: the edge cases of docs/simulator.md and
 * docs/evaluation.md §8, on tiny hand-made traces with exact expected times. */
#include "core/die.h"
#include "core/fp.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "eval/metrics.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/result.h"
#include "trace/trace.h"
#include "sim_compare.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* ---- tiny trace / policy builders ---- */

static struct trace T;
static struct arena A;
static struct sim_output O;
static void tr_begin(void)
{
	trace_init(&T);
	T.trace_id = trace_strdup(&T, "unit");
	T.time_origin = trace_strdup(&T, "2026-01-01 00:00:00");
}

static void node(const char *id, const char *model, long long n)
{
	struct trace_node *x = trace_add_node(&T);
	x->id = trace_strdup(&T, id);
	x->model = trace_strdup(&T, model);
	x->gpu_count = n;
}

static void job(const char *id, double submit, double dur, double gpus, const char *cls, const char *model)
{
	struct trace_job *j = trace_add_job(&T);
	j->id = trace_strdup(&T, id);
	j->submit = submit;
	j->duration = dur;
	j->gpus = gpus;
	j->hp = !strcmp(cls, "HP");
	j->model = trace_strdup(&T, model);
}

static const char *policy_json;
static struct sim_policy P;

static void pol(const char *sched, int guarantee, int ckpt, int overhead, const char *extra)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		"{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"t\",\"scheduler\":\"%s\","
		"\"spot_guarantee_seconds\":%d,\"checkpoint_interval_seconds\":%d,\"preemption_overhead_seconds\":%d,"
		"\"placement_strategy\":\"deterministic_best_fit\"%s}", sched, guarantee, ckpt, overhead, extra ? extra : "");
	policy_json = buf;
}

/* Run; returns sim_run's status and keeps the error message. */
static char ERR[2048];
/* Sort and validate the trace, parse the policy (exit on a bad test input). */
static void prepare(void)
{
	struct json *doc;
	char err[300];
	arena_init(&A);
	trace_sort(&T);
	trace_assign_phases(&T);
	if (trace_validate(&T, err, sizeof err) ||
	    json_parse(&A, policy_json, strlen(policy_json), &doc, err, sizeof err) || policy_from_json(&P, doc, &A, err, sizeof err)) {
		fprintf(stderr, "bad test input: %s\n", err);
		exit(1);
	}
}

static int run(void)
{
	prepare();
	return sim_run(&T, &P, &O, ERR, sizeof ERR);
}

static void done(void)
{
	sim_output_release(&O);
	trace_release(&T);
	arena_release(&A);
}

static const struct sim_job_result *res(const char *id)
{
	for (size_t i = 0; i < T.n_jobs; i++)
		if (!strcmp(T.jobs[i].id, id))
			return &O.jobs[i];
	fprintf(stderr, "no job %s\n", id);
	exit(1);
}

#define START(id, t) CHECK(res(id)->start == (t), "%s starts at %.17g, want %.17g", id, res(id)->start, (double)(t))
#define END(id, t) CHECK(res(id)->completion == (t), "%s ends at %.17g, want %.17g", id, res(id)->completion, (double)(t))

/* ---- cases ---- */

static void fifo_backfill(void)
{
	tr_begin();
	node("n1", "A", 3);
	job("J1", 0, 10, 2, "Spot", "A");
	job("J2", 1, 5, 2, "Spot", "A");
	job("J3", 2, 3, 1, "Spot", "A");
	job("J4", 5, 20, 1, "Spot", "A");
	pol("fifo", 3600, 3600, 80, NULL);
	CHECK(run() == 0, "%s", ERR);
	START("J1", 0);
	START("J3", 2);
	START("J4", 5);
	START("J2", 10);
	CHECK(res("J2")->queue_seconds == 9, "J2 queued %.17g", res("J2")->queue_seconds);
	done();
}

/* §3.8 golden trace, with variants. */
static void small(const char *sched, int guarantee, int ckpt, const char *extra)
{
	tr_begin();
	node("n1", "A", 2);
	job("spot", 0, 10, 2, "Spot", "A");
	job("hp", 2, 2, 2, "HP", "A");
	pol(sched, guarantee, ckpt, 0, extra);
	CHECK(run() == 0, "%s", ERR);
}

static void golden_small(void)
{
	small("priority_preemptive", 0, 2, NULL);
	START("hp", 2);
	END("hp", 4);
	CHECK(O.n_events == 1 && O.events[0].time == 2 && O.events[0].rollback == 0.0, "one eviction at 2 with rollback 0");
	CHECK(O.n_runs == 2 && O.runs[1].start == 4 && O.runs[1].end == 12, "rerun [4,12]");
	CHECK(O.allocation_rate_mean == 1.0, "allocation %.17g", O.allocation_rate_mean);
	CHECK(res("spot")->runs == 2 && res("spot")->preemptions == 1, "spot runs/preemptions");
	done();

	small("priority_preemptive", 5, 2, NULL);          /* guarantee 5: eviction at 5, rollback 1 */
	CHECK(O.n_events == 1 && O.events[0].time == 5 && O.events[0].rollback == 1.0, "guarantee 5: eviction @%g rollback %g",
		O.n_events ? O.events[0].time : -1, O.n_events ? O.events[0].rollback : -1);
	CHECK(res("hp")->queue_seconds == 3, "HP queue %.17g", res("hp")->queue_seconds);
	done();

	small("priority_preemptive", 0, 2, ",\"hp_preemption_delay_seconds\":3,\"spot_eviction_budget_rate\":1.0");
	CHECK(O.n_events == 1 && O.events[0].time == 5, "delay 3: eviction @5");
	done();

	small("fifo", 0, 2, NULL);                          /* fifo never preempts */
	CHECK(O.n_events == 0, "fifo evicted");
	START("hp", 10);
	CHECK(O.runs[0].guarantee == 0, "fifo run records the policy guarantee");
	done();
}

static void budget_boundary(void)
{
	small("priority_preemptive", 0, 2, ",\"spot_eviction_budget_rate\":0.49");
	CHECK(O.n_events == 0, "budget 0.49 must block (1/2 > 0.49)");
	done();
	small("priority_preemptive", 0, 2, ",\"spot_eviction_budget_rate\":0.5");
	CHECK(O.n_events == 1, "budget 0.50 must allow (1/2)");
	done();
	small("priority_preemptive", 0, 2, ",\"spot_eviction_budget_rate\":0");
	CHECK(O.n_events == 0, "budget 0 never preempts");
	done();
}

static void warmup_dilution(void)
{
	tr_begin();
	node("n1", "A", 1);
	for (int i = 0; i < 10; i++) {
		char id[16];
		snprintf(id, sizeof id, "w%d", i);
		job(id, i, 1, 1, "Spot", "A");
	}
	job("s", 10, 10, 1, "Spot", "A");
	job("h", 12, 1, 1, "HP", "A");
	T.has_window = true;
	T.eval_start = 10;
	T.eval_end = 30;
	pol("priority_preemptive", 0, 3600, 0, ",\"spot_eviction_budget_rate\":0.1");
	CHECK(run() == 0, "%s", ERR);
	CHECK(O.n_events == 0, "evaluation Spot evicted despite the evaluation budget");
	CHECK(res("h")->queue_seconds == 8, "HP queue %.17g", res("h")->queue_seconds);
	CHECK(O.warmup_allocated == 10, "warm-up allocation %.17g", O.warmup_allocated);
	CHECK(res("w0")->evaluation_population == false && res("s")->evaluation_population, "population");
	done();
}

/* 1 HP: the evaluation victim blocks and ends the search. 2 HP: the second resumes past the
 * consumed victim and evicts the warm-up job, which the first HP then gets in pass 2. */
static void break_consumed(int n_hp)
{
	tr_begin();
	node("n1", "A", 2);
	job("W", 0, 50, 1, "Spot", "A");
	job("E", 10, 100, 1, "Spot", "A");
	job("h1", 20, 5, 1, "HP", "A");
	if (n_hp == 2)
		job("h2", 20, 5, 1, "HP", "A");
	T.has_window = true;
	T.eval_start = 10;
	T.eval_end = 100;
	pol("priority_preemptive", 0, 3600, 0, ",\"spot_eviction_budget_rate\":0.4");
	CHECK(run() == 0, "%s", ERR);
	if (n_hp == 1) {
		CHECK(O.n_events == 0, "1 HP: nothing evicted");
		START("h1", 50);
	} else {
		CHECK(O.n_events == 1 && !strcmp(T.jobs[O.events[0].victim].id, "W") && !strcmp(T.jobs[O.events[0].trigger].id, "h2"),
			"2 HP: W evicted for h2");
		START("h1", 20);
	}
	done();
}

static void victim_ties(const char *order)
{
	tr_begin();
	node("n1", "A", 2);
	job("a", 0, 100, 1, "Spot", "A");
	job("b", 0, 100, 1, "Spot", "A");
	job("h", 50, 1, 1, "HP", "A");
	pol("priority_preemptive", 0, 7, 0, order);
	CHECK(run() == 0, "%s", ERR);
	CHECK(O.n_events == 1 && !strcmp(T.jobs[O.events[0].victim].id, "b"), "tie: the larger id goes first");
	done();
	/* loss-aware: the smallest rollback (run started at 49 -> 1 s) goes first */
	tr_begin();
	node("n1", "A", 2);
	job("a", 0, 100, 1, "Spot", "A");
	job("x", 0, 49, 1, "Spot", "A");
	job("b", 49, 100, 1, "Spot", "A");
	job("h", 50, 1, 1, "HP", "A");
	pol("priority_preemptive", 0, 40, 0, ",\"preemption_victim_strategy\":\"lowest_checkpoint_loss\"");
	CHECK(run() == 0, "%s", ERR);
	CHECK(O.n_events == 1 && !strcmp(T.jobs[O.events[0].victim].id, "b") && O.events[0].rollback == 1.0, "loss-aware picks b");
	done();
}

/* A victim gets eo = N + k: it sorts behind a Spot that arrived after it was first queued. */
static void victim_behind_later(void)
{
	tr_begin();
	node("n1", "A", 1);
	job("v", 0, 10, 1, "Spot", "A");
	job("h", 1, 1, 1, "HP", "A");
	job("late", 1.5, 1, 1, "Spot", "A");
	pol("priority_preemptive", 0, 3600, 0, NULL);
	CHECK(run() == 0, "%s", ERR);
	START("h", 1);
	START("late", 2);
	CHECK(res("v")->runs == 2, "v restarted");
	CHECK(O.runs[O.n_runs - 1].start == 3, "v restarts at 3 after 'late', got %g", O.runs[O.n_runs - 1].start);
	done();
}

static void futile_eviction(void)
{
	tr_begin();
	node("n1", "A", 2);
	node("n2", "B", 1);
	job("s", 0, 10, 1, "Spot", "A");
	job("o", 0, 10, 1, "HP", "A");
	job("h", 1, 1, 3, "HP", "*");
	pol("priority_preemptive", 0, 3600, 0, NULL);
	CHECK(run() == 0, "%s", ERR);
	/* h needs 3 of 3: s is evicted at 1 and restarted at once (free B + s's GPU), run_count 2 */
	CHECK(O.n_events >= 1 && O.events[0].time == 1, "futile eviction at 1");
	CHECK(res("s")->runs >= 2 && O.runs[1].start == 1, "s restarted at the same instant");
	done();
}

static void same_timestamp(void)
{
	tr_begin();
	node("n1", "A", 1);
	job("a", 0, 5, 1, "Spot", "A");
	job("b", 5, 5, 1, "Spot", "A");
	pol("fifo", 0, 3600, 0, NULL);
	CHECK(run() == 0, "%s", ERR);
	START("b", 5);
	done();
}

static void placement(void)
{
	/* largest free first, node_id on ties, split across nodes, wildcard across models */
	tr_begin();
	node("n1", "A", 2);
	node("n2", "A", 4);
	node("n3", "B", 4);
	job("x", 0, 10, 3, "HP", "A");
	job("y", 0, 10, 2, "HP", "A");
	job("z", 0, 10, 4, "HP", "*");
	job("w", 1, 10, 1, "HP", "*");
	pol("fifo", 0, 3600, 0, NULL);
	CHECK(run() == 0, "%s", ERR);
	START("x", 0);          /* n2: 4 -> 1 */
	START("y", 0);          /* n1: 2 -> 0 */
	START("z", 0);          /* "*": 5 free (n2 1, n3 4) >= 4 -> n3 */
	START("w", 1);          /* the last free GPU, on n2 */
	done();
	/* fractional drift ends in "cannot make progress" naming the job */
	tr_begin();
	node("d1", "D", 1);
	job("a", 0, 100, 0.1, "Spot", "D");
	job("b", 0, 50, 0.2, "HP", "D");
	job("c", 200, 100, 1, "HP", "D");
	pol("fifo", 0, 3600, 0, NULL);
	CHECK(run() == -1 && strstr(ERR, "cannot make progress") && strstr(ERR, "'c'"), "drift: %s", ERR);
	trace_release(&T);
	arena_release(&A);
}

static void window_integrals(void)
{
	tr_begin();
	node("n1", "A", 1);
	job("w", 0, 20, 1, "Spot", "A");
	job("e", 10, 5, 1, "HP", "A");
	T.has_window = true;
	T.eval_start = 10;
	T.eval_end = 20;
	pol("fifo", 0, 3600, 0, NULL);
	CHECK(run() == 0, "%s", ERR);
	CHECK(O.warmup_allocated == 10 && O.evaluation_allocated == 10 && O.drain_allocated == 5, "integrals %g %g %g",
		O.warmup_allocated, O.evaluation_allocated, O.drain_allocated);
	CHECK(O.allocation_rate_mean == 1.0, "allocation %.17g", O.allocation_rate_mean);
	done();
}

static void quantiles(void)
{
	double v[20];
	for (int i = 0; i < 19; i++)
		v[i] = 19 - i;
	v[19] = 100;
	double q = ev_metrics_quantile(v, 20, 0.95);
	CHECK(fabs(q - 23.05) < 1e-12 && num_round(q, 6) == 23.05, "p95 = %.17g", q);
	CHECK(num_round(0.0078125, 6) == 0.007812, "round6 half-even");
	CHECK(num_round(5e-7, 6) == 0.0, "round6(5e-7)");
	/* the selection gives the same bits as the sort: ties, runs of equal values, zeros of
	 * both signs and NaNs (those two take the sort), sizes around the selection's cut-over */
	static const double ps[][2] = { { 0.5, 0.95 }, { 0.0, 1.0 }, { 0.25, 0.25 }, { 0.05, 0.5 } };
	unsigned long long seed = 12345;
	for (int round = 0; round < 4000; round++) {
		size_t n = 1 + (size_t)(round % 97) + (round % 7 == 0 ? 2000 : 0);
		double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned r = (unsigned)(seed >> 33);
			a[i] = round % 3 == 0 ? (double)(r % 5) : round % 3 == 1 ? (double)(r % 100000) / 7.0 : (double)(r % 40) * 0.25;
			if (round % 11 == 0 && r % 13 == 0)
				a[i] = -0.0;
			if (round % 17 == 0 && r % 29 == 0)
				a[i] = NAN;
			b[i] = a[i];
		}
		const double *p = ps[round % 4];
		double q1, q2;
		ev_metrics_quantile_pair(a, n, p[0], p[1], &q1, &q2);
		double w1 = ev_metrics_quantile(b, n, p[0]), w2 = ev_metrics_quantile(b, n, p[1]);
		CHECK(memcmp(&q1, &w1, sizeof q1) == 0 && memcmp(&q2, &w2, sizeof q2) == 0, "round %d (n %zu): %.17g %.17g, sorted %.17g %.17g",
		      round, n, q1, q2, w1, w2);
		free(a);
		free(b);
	}
}

/* The canonical dict's bytes are the original's: its SHA-256 prefixes are in docs/simulator.md §3.1. */
static void canonical_policy(void)
{
	static const struct { const char *extra, *sha; } cases[] = {
		{ "\"action_id\":\"native-fifo\",\"scheduler\":\"fifo\",\"spot_guarantee_seconds\":3600.0", "4fc0c2c331d76dd6" },
		{ "\"action_id\":\"native-preemptive-3600\",\"scheduler\":\"priority_preemptive\",\"spot_guarantee_seconds\":3600", "53299ec7e6464f5e" },
		{ "\"action_id\":\"native-preemptive-g3600-b09-d0000\",\"scheduler\":\"priority_preemptive\",\"spot_guarantee_seconds\":3600,"
		  "\"hp_preemption_delay_seconds\":0,\"spot_eviction_budget_rate\":0.09", "1492bfc6b0d159e0" },
		{ "\"action_id\":\"native-preemptive-g3600-b09-loss-aware\",\"scheduler\":\"priority_preemptive\",\"spot_guarantee_seconds\":3600,"
		  "\"hp_preemption_delay_seconds\":0,\"spot_eviction_budget_rate\":0.09,\"preemption_victim_strategy\":\"lowest_checkpoint_loss\"",
		  "90528091010f904f" },
		/* predictive_admission_mode: enforce is the default and leaves the fingerprint alone;
		 * bypass is part of it (the original's oracle-pred-bypass-3600 fingerprint) */
		{ "\"action_id\":\"native-preemptive-3600\",\"scheduler\":\"priority_preemptive\",\"spot_guarantee_seconds\":3600,"
		  "\"predictive_admission_mode\":\"enforce\"", "53299ec7e6464f5e" },
		{ "\"action_id\":\"native-fifo\",\"scheduler\":\"fifo\",\"spot_guarantee_seconds\":3600,\"predictive_admission_mode\":\"enforce\"",
		  "4fc0c2c331d76dd6" },
		{ "\"action_id\":\"oracle-pred-bypass-3600\",\"scheduler\":\"priority_preemptive\",\"spot_guarantee_seconds\":3600,"
		  "\"predictive_admission_mode\":\"bypass\"", "638bd2d3874a3766" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char buf[1024], err[200], hex[65];
		struct arena a;
		struct json *doc;
		struct sim_policy p;
		struct strbuf sb;
		arena_init(&a);
		sb_init(&sb);
		snprintf(buf, sizeof buf, "{\"schema_version\":\"schednav.simulation-policy/v1\",%s,\"checkpoint_interval_seconds\":3600,"
			"\"preemption_overhead_seconds\":80,\"placement_strategy\":\"deterministic_best_fit\"}", cases[i].extra);
		int rc = json_parse(&a, buf, strlen(buf), &doc, err, sizeof err) || policy_from_json(&p, doc, &a, err, sizeof err);
		CHECK(rc == 0, "policy %zu: %s", i, err);
		if (rc == 0) {
			json_write_sorted(&sb, p.canonical);
			fp_sha256_of(sb.buf, sb.len, hex);
			CHECK(!strncmp(hex, cases[i].sha, 16), "policy %zu: sha256 %.16s, want %s (%s)", i, hex, cases[i].sha, sb.buf);
		}
		sb_release(&sb);
		arena_release(&a);
	}
}

/* The fast repr path in result.c agrees with the general formatter. */
static const char *const *cmp_ids;

static int by_id_strcmp(const void *a, const void *b)
{
	return strcmp(cmp_ids[*(const size_t *)a], cmp_ids[*(const size_t *)b]);
}

/* result_id_order is the order a sort by strcmp gives: ids sharing 8-byte prefixes, shorter
 * than 8, with bytes >= 0x80, already sorted or not */
static void id_order(void)
{
	static const char *const stems[] = { "j", "forecast-hp::", "forecast", "forecasu", "\xc3\xa9t", "a", "" };
	unsigned long long seed = 99;
	for (int round = 0; round < 300; round++) {
		size_t n = 1 + (size_t)(round * 7 % 500);
		struct trace t;
		trace_init(&t);
		t.jobs = calloc(n, sizeof *t.jobs);
		const char **ids = calloc(n, sizeof *ids);
		char (*buf)[48] = calloc(n, sizeof *buf);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned r = (unsigned)(seed >> 33);
			if (round % 5 == 0)
				snprintf(buf[i], sizeof buf[i], "j%07zu", i);   /* increasing */
			else
				snprintf(buf[i], sizeof buf[i], "%s%0*zu", stems[r % 7], (int)(r / 7 % 9), i * 7919 % 100003);
			ids[i] = buf[i];
			t.jobs[i].id = buf[i];
		}
		t.n_jobs = n;
		size_t *got = result_id_order(&t, n), *want = calloc(n, sizeof *want);
		for (size_t i = 0; i < n; i++)
			want[i] = i;
		cmp_ids = ids;
		qsort(want, n, sizeof *want, by_id_strcmp);
		CHECK(memcmp(got, want, n * sizeof *got) == 0, "round %d: id order differs from the strcmp sort", round);
		free(got);
		free(want);
		free(buf);
		free(ids);
		free(t.jobs);
		t.jobs = NULL;
		trace_release(&t);
	}
}

static void fast_repr(void)
{
	struct strbuf a, b;
	sb_init(&a);
	sb_init(&b);
	unsigned long long x = 88172645463325252ULL;
	int bad = 0;
	for (int i = 0; i < 400000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		if (i >= 200000) {   /* the 16/17-digit exact path: full-precision values in [1e-4, 1e15) */
			double d;
			unsigned long long bits = x;
			switch (i % 5) {
			case 0: v = (double)(x % 100000000) / 10.0 + (double)((x >> 30) % 100000000) / 10.0; break;
			case 1: bits = (bits & 0x000fffffffffffffULL) | ((unsigned long long)(1009 + (x >> 52) % 63) << 52);
				memcpy(&d, &bits, sizeof d); v = d; break;   /* 2^-14 .. 2^48, random mantissa */
			case 2: v = nextafter(pow(10, (double)((int)(x % 19) - 4)), (x >> 32) & 1 ? 0 : 1e300);
				for (unsigned j = 0; j < (x >> 40) % 4; j++)
					v = nextafter(v, (x >> 33) & 1 ? 0 : 1e300);
				break;
			case 3: v = ldexp(1.0, (int)(x % 62) - 13); v = (x >> 32) & 1 ? nextafter(v, 0) : nextafter(v, 1e300); break;
			default: v = (double)(x % 1000000) * 0.1 * (double)((x >> 24) % 1000) / 7.0; break;
			}
			if (!(v >= 1e-4 && v < 1e15))
				v = 1.5;
		} else
		switch (i % 6) {
		case 0: v = (double)(x % 100000000) / 10.0; break;
		case 1: v = (double)(x % 1000000000) / 1000.0; break;
		case 2: v = (double)(x % 100000) * 0.1 + (double)(x >> 40) * 1e-7; break;
		default: v = (double)(x % 10000000) * 0.1 + (double)((x >> 20) % 100000) * 0.7; break;
		case 3: { double d; memcpy(&d, &x, sizeof d); v = isfinite(d) ? fabs(d) : 1.0; } break;
		case 4: v = (double)(x % 1000000007) / 64.0 - 1e6; break;
		}
		sb_reset(&a);
		sb_reset(&b);
		result_add_double(&a, v);
		sb_add_double(&b, v);
		if (strcmp(a.buf, b.buf) && bad++ < 5)
			CHECK(0, "repr(%.17g): fast '%s', general '%s'", v, a.buf, b.buf);
	}
	/* 7 to 9 decimals (round9 etas and rates of the controller records) */
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		switch (i % 4) {
		case 0: v = (double)(x % 1000000000000ULL) / 1e9; break;
		case 1: v = (double)(x % 100000000000ULL) / 1e8; break;
		case 2: v = (double)(x % 10000000000ULL) / 1e7; break;
		default: v = num_round((double)(x >> 11) * 0x1p-53 * 1.25, 9); break;
		}
		sb_reset(&a);
		sb_reset(&b);
		result_add_double(&a, v);
		sb_add_double(&b, v);
		if (strcmp(a.buf, b.buf) && bad++ < 5)
			CHECK(0, "repr(%.17g): fast '%s', general '%s'", v, a.buf, b.buf);
	}
	CHECK(bad == 0, "%d fast repr mismatches", bad);
	sb_release(&a);
	sb_release(&b);
}


/* ---- sessions and hooks ---- */

static bool same_output(const struct sim_output *a, const struct sim_output *b)
{
	if (a->n_jobs != b->n_jobs || a->n_runs != b->n_runs || a->n_events != b->n_events)
		return false;
	for (size_t i = 0; i < a->n_jobs; i++) {
		const struct sim_job_result *x = &a->jobs[i], *y = &b->jobs[i];
		if (x->start != y->start || x->completion != y->completion || x->queue_seconds != y->queue_seconds ||
		    x->preemptions != y->preemptions || x->runs != y->runs)
			return false;
	}
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct sim_spot_run *x = &a->runs[i], *y = &b->runs[i];
		if (x->job != y->job || x->start != y->start || x->end != y->end || x->completed != y->completed)
			return false;
	}
	for (size_t i = 0; i < a->n_events; i++) {
		const struct sim_preemption *x = &a->events[i], *y = &b->events[i];
		if (x->time != y->time || x->victim != y->victim || x->rollback != y->rollback)
			return false;
	}
	return a->allocated == b->allocated && a->warmup_allocated == b->warmup_allocated &&
	       a->evaluation_allocated == b->evaluation_allocated && a->simulation_end == b->simulation_end;
}

/* Several workloads: a session advanced piecewise, with an empty hook set, equals sim_run. */
static void session_equals_run(void)
{
	for (int variant = 0; variant < 2; variant++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "B", 3);
		job("s1", 0, 10, 2, "Spot", "A");
		job("s2", 0.5, 7.25, 1.5, "Spot", "*");
		job("h1", 2, 2, 2, "HP", "A");
		job("h2", 3, 4, 1, "HP", "B");
		job("s3", 3, 9, 0.1, "Spot", "B");
		job("h3", 8, 1, 3, "HP", "*");
		pol(variant ? "priority_preemptive" : "fifo", 0, 2, 1, NULL);
		CHECK(run() == 0, "%s", ERR);
		struct sim_hooks none = { 0 };
		struct sim *s = sim_open(&T, &P, &none, ERR, sizeof ERR);
		struct sim_output o2;
		CHECK(s && sim_advance(s, 2.5, ERR, sizeof ERR) == 0, "%s", ERR);
		CHECK(sim_now(s) >= 2.5 && !sim_done(s), "advance(2.5) stopped at %.17g", sim_now(s));
		CHECK(sim_advance(s, 3, ERR, sizeof ERR) == 0 && sim_now(s) == 3, "advance(3) at %.17g", sim_now(s));
		CHECK(sim_finish(s, &o2, ERR, sizeof ERR) == 0, "%s", ERR);
		CHECK(same_output(&O, &o2), "variant %d: piecewise session differs from sim_run", variant);
		sim_output_release(&o2);
		sim_close(s);
		done();
	}
}

/* A hook that records what the engine tells it, gates Spot by a quota and wakes up on a grid. */
struct probe {
	double wake[8];
	int n_wake;
	double instants[64];
	double hp_out[64], backlog[64], running_spot[64];
	int n_instants;
	char log[1024];
	double quota, quota_after, switch_at;
};

static double probe_wakeup(void *ctx, const struct sim *s, double after)
{
	struct probe *p = ctx;
	for (int i = 0; i < p->n_wake; i++)
		if (p->wake[i] > after)
			return p->wake[i];
	return INFINITY;
}

static int probe_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct probe *p = ctx;
	if (p->n_instants < 64) {
		p->instants[p->n_instants] = sim_now(s);
		p->hp_out[p->n_instants] = sim_hp_outstanding_gpus(s);
		p->backlog[p->n_instants] = sim_spot_backlog_gpus(s);
		p->running_spot[p->n_instants++] = sim_running_spot_gpus(s);
	}
	if (sim_now(s) + 1e-9 >= p->switch_at)
		p->quota = p->quota_after;
	return 0;
}

static double probe_limit(void *ctx, const struct sim *s, int model)
{
	struct probe *p = ctx;
	return p->quota + 1e-9 - sim_running_spot_gpus(s) + 1e-6;
}

static bool probe_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct probe *p = ctx;
	return sim_running_spot_gpus(s) + j->gpu <= p->quota + 1e-9;
}

static void probe_started(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct probe *p = ctx;
	size_t n = strlen(p->log);
	snprintf(p->log + n, sizeof p->log - n, "start %s@%g;", j->tj->id, sim_now(s));
}

static void probe_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct probe *p = ctx;
	size_t n = strlen(p->log);
	snprintf(p->log + n, sizeof p->log - n, "%s %s@%g on %zu node(s) %g;", evicted ? "evict" : "close", j->tj->id, sim_now(s),
		 j->n_alloc, j->n_alloc ? j->alloc[0].x : 0.0);
}

static struct sim_hooks probe_hooks(struct probe *p, bool gate)
{
	struct sim_hooks h = { 0 };
	h.ctx = p;
	h.next_wakeup = probe_wakeup;
	h.at_instant = probe_instant;
	h.run_started = probe_started;
	h.run_closed = probe_closed;
	if (gate) {
		h.gate_limit = probe_limit;
		h.gate_admit = probe_admit;
	}
	return h;
}

/* The gate holds a Spot job (fifo: HP and Spot in separate lanes, HP never gated) until a
 * wake-up at t = 5 raises the quota; wake-ups join the event minimum. */
static void gate_and_wakeups(void)
{
	tr_begin();
	node("n1", "A", 4);
	job("s1", 0, 10, 1, "Spot", "A");
	job("s2", 0, 10, 1, "Spot", "A");
	job("h1", 0, 3, 1, "HP", "A");
	job("s3", 1, 2, 1, "Spot", "A");
	pol("fifo", 3600, 3600, 80, NULL);
	prepare();
	struct probe p = { .wake = { 5, 6.5 }, .n_wake = 2, .quota = 1, .quota_after = 3, .switch_at = 5 };
	struct sim_hooks h = probe_hooks(&p, true);
	struct sim *s = sim_open(&T, &P, &h, ERR, sizeof ERR);
	CHECK(s && sim_finish(s, &O, ERR, sizeof ERR) == 0, "%s", ERR);
	START("s1", 0);
	START("h1", 0);
	START("s2", 5);
	START("s3", 5);
	double want[] = { 0, 1, 3, 5, 6.5, 7, 10 };   /* the loop ends with the last completion (15) */
	CHECK(p.n_instants == 7, "%d instants", p.n_instants);
	for (int i = 0; i < 7 && i < p.n_instants; i++)
		CHECK(p.instants[i] == want[i], "instant %d at %g, want %g", i, p.instants[i], want[i]);
	/* at t = 0: h1 admitted (outstanding 1), s1 s2 queued (backlog 2), nothing running yet */
	CHECK(p.hp_out[0] == 1 && p.backlog[0] == 2 && p.running_spot[0] == 0, "t=0: %g %g %g", p.hp_out[0], p.backlog[0], p.running_spot[0]);
	CHECK(p.hp_out[2] == 0 && p.backlog[2] == 2 && p.running_spot[2] == 1, "t=3: %g %g %g", p.hp_out[2], p.backlog[2], p.running_spot[2]);
	CHECK(p.backlog[4] == 0 && p.running_spot[4] == 3, "t=6.5: %g %g", p.backlog[4], p.running_spot[4]);
	CHECK(strstr(p.log, "start h1@0;start s1@0;close h1@3 on 1 node(s) 1;start s2@5;start s3@5;") == p.log, "log: %s", p.log);
	sim_close(s);
	done();
}

/* Evictions are notified with the victim's allocation, before its GPUs are released. */
static void notifications(void)
{
	tr_begin();
	node("n1", "A", 2);
	job("spot", 0, 10, 2, "Spot", "A");
	job("hp", 2, 2, 2, "HP", "A");
	pol("priority_preemptive", 0, 2, 0, NULL);
	prepare();
	struct probe p = { .n_wake = 0, .quota = 100, .switch_at = INFINITY };
	struct sim_hooks h = probe_hooks(&p, false);
	struct sim *s = sim_open(&T, &P, &h, ERR, sizeof ERR);
	CHECK(s && sim_finish(s, &O, ERR, sizeof ERR) == 0, "%s", ERR);
	CHECK(!strcmp(p.log, "start spot@0;evict spot@2 on 1 node(s) 2;start hp@2;close hp@4 on 1 node(s) 2;start spot@4;close spot@12 on 1 node(s) 2;"),
	      "log: %s", p.log);
	START("hp", 2);
	END("spot", 12);
	sim_close(s);
	done();
}

/* sim_set_policy re-sorts the queue: after the switch to priority_preemptive the HP job
 * that arrived last starts first. */
static void policy_switch(void)
{
	tr_begin();
	node("n1", "A", 1);
	job("j1", 0, 10, 1, "Spot", "A");
	job("j2", 1, 1, 1, "Spot", "A");
	job("j3", 2, 1, 1, "HP", "A");
	pol("fifo", 3600, 3600, 0, NULL);
	prepare();
	struct sim_policy fifo = P, prio;
	pol("priority_preemptive", 3600, 3600, 0, NULL);
	struct json *doc;
	char err[300];
	CHECK(json_parse(&A, policy_json, strlen(policy_json), &doc, err, sizeof err) == 0 && policy_from_json(&prio, doc, &A, err, sizeof err) == 0, "%s", err);
	struct sim *s = sim_open(&T, &fifo, NULL, ERR, sizeof ERR);
	CHECK(s && sim_advance(s, 5, ERR, sizeof ERR) == 0, "%s", ERR);
	CHECK(sim_set_policy(s, &prio, ERR, sizeof ERR) == 0, "%s", ERR);
	CHECK(sim_policy(s) == &prio, "policy not switched");
	CHECK(sim_finish(s, &O, ERR, sizeof ERR) == 0, "%s", ERR);
	START("j3", 10);
	START("j2", 11);
	sim_close(s);
	done();
}

/* A fork mid-run continues exactly as the original: both finish with sim_run's output
 * (plain), and with hooks each copy drives its own hook context. */
static void fork_session(void)
{
	for (int variant = 0; variant < 2; variant++) {
		tr_begin();
		node("n1", "A", 2);
		node("n2", "B", 3);
		job("s1", 0, 10, 2, "Spot", "A");
		job("s2", 0.5, 7.25, 1.5, "Spot", "*");
		job("h1", 2, 2, 2, "HP", "A");
		job("h2", 3, 4, 1, "HP", "B");
		job("s3", 3, 9, 0.1, "Spot", "B");
		job("h3", 8, 1, 3, "HP", "*");
		job("s4", 8.5, 30, 1, "Spot", "B");
		pol(variant ? "priority_preemptive" : "fifo", 0, 2, 1, NULL);
		CHECK(run() == 0, "%s", ERR);
		struct sim_output a, b;
		struct sim *s = sim_open(&T, &P, NULL, ERR, sizeof ERR);
		CHECK(s && sim_advance(s, 3.5, ERR, sizeof ERR) == 0, "%s", ERR);
		struct sim *c = sim_clone(s, NULL, ERR, sizeof ERR);
		CHECK(c != NULL, "%s", ERR);
		CHECK(sim_finish(s, &a, ERR, sizeof ERR) == 0 && sim_finish(c, &b, ERR, sizeof ERR) == 0, "%s", ERR);
		CHECK(same_output(&O, &a) && same_output(&O, &b), "variant %d: the fork or its original differs from sim_run", variant);
		struct sim_hooks none = { 0 };
		CHECK(sim_clone(s, &none, ERR, sizeof ERR) == NULL && strstr(ERR, "exactly when"), "hooks on a clone of a plain session are refused");
		sim_output_release(&a);
		sim_output_release(&b);
		sim_close(s);
		sim_close(c);
		/* a live-state clone drains like a full one: every job it copied ends alike, the
		 * ledgers and integrals too; the finished ones read as absent; no sim_finish */
		s = sim_open(&T, &P, NULL, ERR, sizeof ERR);
		CHECK(s && sim_advance(s, 8.2, ERR, sizeof ERR) == 0, "%s", ERR);
		struct sim *full = sim_clone(s, NULL, ERR, sizeof ERR), *live = sim_clone_live(s, NULL, ERR, sizeof ERR);
		CHECK(full && live && sim_drain(full, ERR, sizeof ERR) == 0 && sim_drain(live, ERR, sizeof ERR) == 0, "%s", ERR);
		size_t copied = 0, left_out = 0;
		for (size_t i = 0; i < sim_job_count(full); i++) {
			struct sim_job_result x, y;
			sim_job_result_of(full, i, &x);
			sim_job_result_of(live, i, &y);
			if (sim_job_trace(live, i)) {
				copied++;
				/* field by field: memcmp would compare the struct's padding, never written */
				CHECK(x.start == y.start && x.completion == y.completion && x.queue_seconds == y.queue_seconds
				      && x.preemptions == y.preemptions && x.runs == y.runs && x.evaluation_population == y.evaluation_population,
				      "variant %d: job %zu ends differently in the live clone", variant, i);
			} else
				left_out += !sim_job_in_population(live, i);
		}
		const struct sim_output *fo = sim_output_so_far(full), *lo = sim_output_so_far(live);
		CHECK(copied > 0 && left_out > 0 && copied + left_out == sim_job_count(full), "variant %d: %zu copied, %zu left out", variant, copied, left_out);
		CHECK(fo->n_runs == lo->n_runs && fo->n_events == lo->n_events && fo->allocated == lo->allocated &&
		      fo->simulation_end == lo->simulation_end && same_runs(fo, lo),
		      "variant %d: the live clone's ledgers differ", variant);
		CHECK(sim_finish(live, &a, ERR, sizeof ERR) == -1 && strstr(ERR, "live-state clone"), "sim_finish on a live clone is refused");
		sim_close(full);
		sim_close(live);
		sim_close(s);
		done();
	}
	/* with a gate and wake-ups: the clone's probe sees the rest of the run */
	tr_begin();
	node("n1", "A", 4);
	job("s1", 0, 10, 1, "Spot", "A");
	job("s2", 0, 10, 1, "Spot", "A");
	job("h1", 0, 3, 1, "HP", "A");
	job("s3", 1, 2, 1, "Spot", "A");
	pol("fifo", 3600, 3600, 80, NULL);
	prepare();
	struct probe p = { .wake = { 5, 6.5 }, .n_wake = 2, .quota = 1, .quota_after = 3, .switch_at = 5 };
	struct sim_hooks h = probe_hooks(&p, true);
	struct sim *s = sim_open(&T, &P, &h, ERR, sizeof ERR);
	CHECK(s && sim_advance(s, 4, ERR, sizeof ERR) == 0, "%s", ERR);
	struct probe q = p;
	struct sim_hooks hq = probe_hooks(&q, true);
	struct sim *c = sim_clone(s, &hq, ERR, sizeof ERR);
	struct sim_output a;
	CHECK(c && sim_finish(c, &O, ERR, sizeof ERR) == 0 && sim_finish(s, &a, ERR, sizeof ERR) == 0, "%s", ERR);
	START("s2", 5);
	START("s3", 5);
	CHECK(same_output(&O, &a) && p.n_instants == 7 && q.n_instants == 7 && !strcmp(p.log, q.log), "gated fork: %d/%d instants, logs %s | %s",
	      p.n_instants, q.n_instants, p.log, q.log);
	sim_output_release(&a);
	sim_close(s);
	sim_close(c);
	done();
}

/* A gate that never opens while nothing else can happen ends with a clear error instead of
 * waking up forever; a job no placement could ever hold is reported at once. */
static void gate_stall(void)
{
	tr_begin();
	node("n1", "A", 2);
	job("s1", 0, 10, 1, "Spot", "A");
	pol("fifo", 3600, 3600, 0, NULL);
	prepare();
	struct probe p = { .n_wake = 0, .quota = 0, .quota_after = 0, .switch_at = INFINITY };
	for (int i = 0; i < 8; i++)
		p.wake[i] = 300.0 * (i + 1);
	p.n_wake = 8;
	struct sim_hooks h = probe_hooks(&p, true);
	h.idle_limit_seconds = 1000;
	struct sim *s = sim_open(&T, &P, &h, ERR, sizeof ERR);
	CHECK(s && sim_finish(s, &O, ERR, sizeof ERR) == -1, "a gate that never opens must stop the run");
	CHECK(strstr(ERR, "cannot make progress: the admission gate held 1 queued job(s) back for 1200 s") != NULL, "message: %s", ERR);
	sim_close(s);
	done();
}

int main(void)
{
	set_progname("test_sim");
	fifo_backfill();
	golden_small();
	budget_boundary();
	warmup_dilution();
	break_consumed(1);
	break_consumed(2);
	victim_ties(NULL);
	victim_behind_later();
	futile_eviction();
	same_timestamp();
	placement();
	window_integrals();
	quantiles();
	canonical_policy();
	fast_repr();
	id_order();
	session_equals_run();
	gate_and_wakeups();
	notifications();
	policy_switch();
	fork_session();
	gate_stall();
	printf("test_sim: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
