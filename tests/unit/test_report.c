/* Unit tests for lib/report: the time series swept from a result's job and run ledgers. */
#include "report/report.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void near(double got, double want, const char *what, size_t bin)
{
	CHECK(fabs(got - want) < 1e-12, "%s[%zu] = %.17g, want %.17g", what, bin, got, want);
}

/* Capacity-free hand case over [0, 40) in 4 bins of 10 s:
 *   HP  h1: 2 GPUs, submit 0, start 5, completion 25
 *   Spot s1: 1 GPU, submit 0; runs [0, 12) preempted, [30, 35) completed
 *   Spot s2: 4 GPUs, submit 15, no run ledger entry: start 20, completion 40 (fallback)
 * allocated: bin0 = (2*5 + 1*10)/10 = 2, bin1 = (2*10 + 1*2 + 4*0)/10 = 2.2,
 *            bin2 = (2*5 + 4*10)/10 = 5, bin3 = (1*5 + 4*10)/10 = 4.5
 * queue HP:  bin0 = 5/10 = 0.5, then 0
 * queue Spot: s1 queued [12, 30), s2 queued [15, 20):
 *            bin0 = 0, bin1 = (8 + 5)/10 = 1.3, bin2 = 1, bin3 = 0
 * preemptions at 12 (victim s1) and 32 (victim s2, not in the evaluation population):
 *            every event 0, 1, 1, 2; the evaluation population's 0, 1, 1, 1 */
static void sweep_case(void)
{
	struct rp_job jobs[] = {
		{ "s2", 15, 20, 40, 4, false, false },
		{ "h1", 0, 5, 25, 2, true, true },
		{ "s1", 0, 0, 35, 1, false, true },
	};
	struct rp_run runs[] = {
		{ "s1", 0, 12, true },
		{ "s1", 30, 35, false },
	};
	struct rp_preemption pre[] = { { 12, "s1" }, { 32, "s2" } };
	struct rp_result r;
	memset(&r, 0, sizeof r);
	r.action_id = "hand";
	r.path = "hand";
	r.jobs = jobs;
	r.njobs = 3;
	r.runs = runs;
	r.nruns = 2;
	r.preemptions = pre;
	r.npreemptions = 2;
	struct rp_series s;
	char err[200];
	CHECK(rp_series_build(&r, 0, 40, 4, &s, err, sizeof err) == 0, "build: %s", err);
	const double alloc[] = { 2, 2.2, 5, 4.5 }, qhp[] = { 0.5, 0, 0, 0 }, qspot[] = { 0, 1.3, 1, 0 }, cum[] = { 0, 1, 1, 2 }, cum_eval[] = { 0, 1, 1, 1 };
	for (size_t i = 0; i < 4; i++) {
		near(s.allocated[i], alloc[i], "allocated", i);
		near(s.queue_hp[i], qhp[i], "queue_hp", i);
		near(s.queue_spot[i], qspot[i], "queue_spot", i);
		near(s.preemptions[i], cum[i], "preemptions", i);
		near(s.preemptions_eval[i], cum_eval[i], "preemptions_eval", i);
	}
	rp_series_release(&s);

	/* A run of a job the result does not list is an error, not a silent gap. */
	struct rp_run orphan[] = { { "nobody", 0, 1, false } };
	r.runs = orphan;
	r.nruns = 1;
	CHECK(rp_series_build(&r, 0, 40, 4, &s, err, sizeof err) == -1 && strstr(err, "'nobody'"), "orphan run: %s", err);
	CHECK(rp_series_build(&r, 5, 5, 4, &s, err, sizeof err) == -1, "empty range accepted");
}

int main(void)
{
	sweep_case();
	printf("test_report: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
