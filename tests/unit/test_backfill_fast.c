/* Unit test of conservative backfill's per-model plan (lib/sim/backfill.c, issue 37) against the
 * straightforward reference, the full profile of all models (sim_bf_force_full): random seeded
 * traces of several GPU models, whole and fractional GPU amounts (some not exact in binary, as
 * the v3 trace's 0.01 and 0.1), with and without time limits, under the policy's variants. Every
 * job's start, completion and queue time, and the run ledger, must be the same bits.
 *
 * Since the total no longer binds a concrete job on a trace without "*" jobs (2026-12-06), the
 * per-model plan is taken on the traces with inexact amounts too: they are compared here.
 * Not in the variants: backfill_plan_times slurm. Under it the per-model plan still differs from
 * the full profile on a few random traces (resolution 5, interval 20, default limit 3600: seed 14
 * of the first 20, down from 9 before the total stopped binding; docs/performance.md). Seed 21
 * of it used to cycle forever on an idle cluster; the check at the end keeps that closed. On every tests/data/sim trace both give the same bytes under
 * slurm-live-*.json. FAST_DEBUG=1
 * prints each case and, for a difference, every job's starts (per-model, full). */
#include "core/json.h"
#include "sim/backfill_col.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include "sim_compare.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

static const char *const models[] = { "A", "B", "C" };

/* A random trace: 2-6 nodes per model, 40-160 jobs over a few hours; sorted, phased and
 * validated (a bad one stops the test). */
static void make_trace(struct trace *t, unsigned seed)
{
	char id[32];
	rng_state = seed * 2654435761ULL + 1;
	trace_init(t);
	t->trace_id = trace_strdup(t, "fast");
	t->time_origin = trace_strdup(t, "2026-01-01 00:00:00");
	size_t nm = 1 + rnd(3);
	unsigned cap[3] = { 0, 0, 0 };
	for (size_t m = 0; m < nm; m++)
		for (unsigned k = 0, n = 2 + rnd(5); k < n; k++) {
			struct trace_node *x = trace_add_node(t);
			snprintf(id, sizeof id, "n%zu-%u", m, k);
			x->id = trace_strdup(t, id);
			x->model = trace_strdup(t, models[m]);
			x->gpu_count = 1 + rnd(8);
			cap[m] += (unsigned)x->gpu_count;
		}
	static const double frac[] = { 0.5, 0.25, 0.01, 0.1, 0.3 };
	double submit = 0;
	for (unsigned k = 0, n = 40 + rnd(120); k < n; k++) {
		struct trace_job *j = trace_add_job(t);
		snprintf(id, sizeof id, "j%u", k);
		j->id = trace_strdup(t, id);
		submit += rnd(4) ? rnd(120) : 0;
		j->submit = submit;
		j->duration = 10 + rnd(rnd(4) ? 3600 : 30000);
		unsigned m = rnd((unsigned)nm);
		j->gpus = rnd(6) ? (double)(1 + rnd(cap[m] < 8 ? cap[m] : 8)) : frac[rnd(seed % 3 ? 2 : 5)];
		j->hp = rnd(3) != 0;
		j->model = trace_strdup(t, models[m]);
		if (rnd(2))     /* a limit at or above the run (never below: no timeouts to differ on) */
			j->time_limit = (long long)j->duration + rnd(2) * rnd(7200);
	}
	char err[512];
	trace_sort(t);
	trace_assign_phases(t);
	if (trace_validate(t, err, sizeof err)) {
		fprintf(stderr, "bad trace %u: %s\n", seed, err);
		exit(1);
	}
}

static const char *const variants[] = {
	"\"backfill_default_time_limit_seconds\":3600,\"backfill_window_seconds\":86400,\"backfill_resolution_seconds\":60,"
	"\"backfill_max_job_test\":500,\"backfill_interval_seconds\":30",
	"\"backfill_default_time_limit_seconds\":7200",
	"\"backfill_resolution_seconds\":5,\"backfill_interval_seconds\":20,\"backfill_reservation\":\"whole_nodes\","
	"\"backfill_default_time_limit_seconds\":3600",
	"\"backfill_window_seconds\":1800,\"backfill_max_job_test\":7",
	/* SLURM_VARIANT: only the hang check below runs it (the plans may differ, see above) */
	"\"backfill_resolution_seconds\":5,\"backfill_interval_seconds\":20,\"backfill_plan_times\":\"slurm\","
	"\"backfill_default_time_limit_seconds\":3600",
};
#define SLURM_VARIANT 4

/* One simulation of t under conservative with variant v; 0 or sim_run's -1. */
static int simulate(const struct trace *t, int v, bool full, bool preempt, struct sim_output *o, char *err, size_t errlen)
{
	char buf[1024];
	snprintf(buf, sizeof buf,
		"{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"t\",\"scheduler\":\"%s\","
		"\"spot_guarantee_seconds\":600,\"checkpoint_interval_seconds\":300,\"preemption_overhead_seconds\":30,"
		"\"placement_strategy\":\"deterministic_best_fit\",\"backfill\":\"conservative\",%s}",
		preempt ? "priority_preemptive" : "fifo", variants[v]);
	struct arena a;
	struct json *doc;
	struct sim_policy p;
	arena_init(&a);
	if (json_parse(&a, buf, strlen(buf), &doc, err, errlen) || policy_from_json(&p, doc, &a, err, errlen)) {
		fprintf(stderr, "bad policy: %s\n", err);
		exit(1);
	}
	sim_bf_force_full = full;
	int rc = sim_run(t, &p, o, err, errlen);
	sim_bf_force_full = false;
	arena_release(&a);
	return rc;
}

static bool same_jobs(const struct sim_output *a, const struct sim_output *b)
{
	if (a->n_jobs != b->n_jobs)
		return false;
	for (size_t i = 0; i < a->n_jobs; i++) {
		const struct sim_job_result *x = &a->jobs[i], *y = &b->jobs[i];
		if (!same_bits(x->start, y->start) || !same_bits(x->completion, y->completion) ||
		    !same_bits(x->queue_seconds, y->queue_seconds) || x->preemptions != y->preemptions || x->runs != y->runs)
			return false;
	}
	return true;
}

int main(void)
{
	size_t compared = 0, backfilled = 0;
	for (unsigned seed = 1; seed <= 150; seed++) {
		struct trace t;
		char err[512], err2[512];
		make_trace(&t, seed);
		for (int v = 0; v < SLURM_VARIANT; v++) {
			struct sim_output fast = { 0 }, full = { 0 };
			bool preempt = (seed + (unsigned)v) % 3 == 0;
			if (getenv("FAST_DEBUG"))
				fprintf(stderr, "seed %u variant %d\n", seed, v);
			int rf = simulate(&t, v, false, preempt, &fast, err, sizeof err);
			int rr = simulate(&t, v, true, preempt, &full, err2, sizeof err2);
			CHECK(rf == rr && (rf == 0 || strcmp(err, err2) == 0), "seed %u variant %d: status %d against %d", seed, v, rf, rr);
			if (getenv("FAST_DEBUG") && !(same_jobs(&fast, &full) && same_runs(&fast, &full))) {
				for (size_t i = 0; i < t.n_jobs; i++)
					fprintf(stderr, "%s %s %.17g %g lim %lld: %.17g %.17g\n", t.jobs[i].id, t.jobs[i].model, t.jobs[i].gpus, t.jobs[i].submit, t.jobs[i].time_limit, fast.jobs[i].start, full.jobs[i].start);
			}
			if (rf == 0 && rr == 0) {
				CHECK(same_jobs(&fast, &full) && same_runs(&fast, &full), "seed %u variant %d: the per-model plan's results differ from the full profile's", seed, v);
				compared++;
				for (size_t i = 0; i < fast.n_jobs; i++)
					backfilled += fast.jobs[i].queue_seconds > 0;
			}
			sim_output_release(&fast);
			sim_output_release(&full);
		}
		trace_release(&t);
	}
	CHECK(compared > 500, "only %zu simulations compared", compared);
	/* Under Slurm's plan times with a bf_interval, seed 21 leaves a 4-GPU job the model's total
	 * admits but whose nodes' frees drifted to 3.9999999999999996 (0.01-GPU jobs ran there):
	 * cycles on the idle cluster used to wake every 20 s forever. Both plans must now stop with
	 * the engine's "cannot make progress", the same message, and every seed must end. */
	size_t stopped = 0;
	for (unsigned seed = 1; seed <= 40; seed++) {
		struct trace t;
		char err[512], err2[512];
		make_trace(&t, seed);
		struct sim_output fast = { 0 }, full = { 0 };
		int rf = simulate(&t, SLURM_VARIANT, false, false, &fast, err, sizeof err);
		int rr = simulate(&t, SLURM_VARIANT, true, false, &full, err2, sizeof err2);
		CHECK(rf == rr && (rf == 0 || strcmp(err, err2) == 0), "slurm seed %u: status %d against %d", seed, rf, rr);
		if (rf != 0 && strstr(err, "cannot make progress"))
			stopped++;
		if (seed == 21)
			CHECK(rf == -1 && strstr(err, "cannot make progress") && strstr(err, "'j41' needs 4 GPU"), "slurm seed 21: %d %s", rf, rf ? err : "");
		sim_output_release(&fast);
		sim_output_release(&full);
		trace_release(&t);
	}
	CHECK(stopped >= 1, "no Slurm-plan seed stopped");
	printf("test_backfill_fast: %d checks, %d failures (%zu simulations, %zu jobs that queued)\n", checks, failures, compared, backfilled);
	return failures != 0;
}
