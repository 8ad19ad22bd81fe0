/*
 * tenant-replay — the tenant controller's full replay inside one simulation, timed by part:
 * the bench of tests/bench/26-tenant.sh. Runs sim-run's session (the trace as its own
 * evidence window, so the controller samples every 60 s from the first to the last arrival
 * and refits daily once 844 h are there), formats every decision record as sim-run would
 * (into memory, then dropped) and prints one line:
 *   total_cpu sampling training deciding records simulation peak_rss_kib samples decisions fits series jobs
 * (CPU seconds; simulation = total - the controller's parts - loading the inputs).
 * usage: tenant-replay POLICY CONTROLLER TRACE
 * Built by the bench script against build/libschednav.a; not a shipped tool.
 */
#include "core/die.h"
#include "core/strbuf.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_controller.h"
#include "sim/engine.h"
#include "trace/trace.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct sink { struct strbuf line; size_t decisions, bytes; };

static void keep(void *ctx, const struct pt_controller *tc, const struct pt_decision *d)
{
	struct sink *s = ctx;
	sb_reset(&s->line);
	pt_write_decision(&s->line, tc, d);
	s->decisions++;
	s->bytes += s->line.len + 1;
}

int main(int argc, char **argv)
{
	char err[2048];
	struct arena a;
	struct sim_policy pol;
	struct pc_config cfg;
	struct trace t;
	struct pc_controller pc;
	struct pc_sim bind;
	struct sim_hooks hooks;
	struct sim_output out;
	struct sink sk = { 0 };
	set_progname(argv[0]);
	if (argc != 4)
		die("usage: tenant-replay POLICY CONTROLLER TRACE");
	arena_init(&a);
	trace_init(&t);
	sb_init(&sk.line);
	if (policy_load(&pol, argv[1], &a, err, sizeof err) || pc_config_load(&cfg, argv[2], &a, err, sizeof err) ||
	    trace_load(&t, argv[3], err, sizeof err))
		die("%s", err);
	if (!cfg.tenant)
		die("'%s' is not a tenant controller", argv[2]);
	double t0 = cpu();
	if (pc_controller_open(&pc, &cfg, &t, err, sizeof err))
		die("%s", err);
	pt_set_sink(pc.tenant, keep, &sk);
	pt_time_parts(pc.tenant, true);
	pc_sim_bind(&bind, &pc, &hooks);
	struct sim *s = sim_open(&t, &pol, &hooks, err, sizeof err);
	if (!s || sim_finish(s, &out, err, sizeof err))
		die("%s", err);
	sim_close(s);
	double total = cpu() - t0;
	const struct pt_cpu *c = pt_cpu_seconds(pc.tenant);
	const struct pt_estimator *e = pt_estimator(pc.tenant);
	const struct pt_history *h = pt_history(pc.tenant);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%.2f %.2f %.2f %.2f %.2f %.2f %ld %zu %zu %lld %zu %zu\n", total, c->sampling, c->training, c->deciding, c->records,
	       total - c->sampling - c->training - c->deciding - c->records, ru.ru_maxrss, h->n_samples, sk.decisions,
	       e->generation, h->n_series, t.n_jobs);
	pc_controller_release(&pc);
	sim_output_release(&out);
	trace_release(&t);
	sb_release(&sk.line);
	arena_release(&a);
	return 0;
}
