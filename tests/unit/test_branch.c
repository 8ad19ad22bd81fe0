/* Unit tests for lib/sim/branch.c (counterfactual branches of a live session): replacing
 * the future with the very same jobs changes nothing; a different future changes only what
 * comes after; sim_drain matches sim_finish; swapped hooks take effect; the reserve and
 * the victims' enqueue order survive the swap; reused live clones, their slot buffer trimmed
 * below the live state, drain as full copies do; a reused buffer keeps resident only the
 * pages of live slots, even under a job that runs from the first slot to the end. */
#include "core/die.h"
#include "sim/engine.h"
#include "sim/internal.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include "sim_compare.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct trace T;
static struct arena A;

static void job(const char *id, double submit, double dur, double gpus, bool hp)
{
	struct trace_job *j = trace_add_job(&T);
	j->id = trace_strdup(&T, id);
	j->submit = submit;
	j->duration = dur;
	j->gpus = gpus;
	j->hp = hp;
	j->model = trace_strdup(&T, "A");
}

static struct sim_policy policy(const char *sched)
{
	char buf[512], err[200];
	snprintf(buf, sizeof buf,
		 "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"p\",\"scheduler\":\"%s\",\"spot_guarantee_seconds\":5,"
		 "\"checkpoint_interval_seconds\":3,\"preemption_overhead_seconds\":1,\"placement_strategy\":\"deterministic_best_fit\"}", sched);
	struct json *doc;
	struct sim_policy p;
	if (json_parse(&A, buf, strlen(buf), &doc, err, sizeof err) || policy_from_json(&p, doc, &A, err, sizeof err)) {
		fprintf(stderr, "policy: %s\n", err);
		exit(1);
	}
	return p;
}

/* A small preemptive workload: Spot fills the node, HP arrives and evicts. */
static void build(void)
{
	trace_init(&T);
	T.trace_id = trace_strdup(&T, "branch");
	T.time_origin = trace_strdup(&T, "2026-01-01 00:00:00");
	struct trace_node *n = trace_add_node(&T);
	n->id = trace_strdup(&T, "n1"), n->model = trace_strdup(&T, "A"), n->gpu_count = 4;
	n = trace_add_node(&T);
	n->id = trace_strdup(&T, "n2"), n->model = trace_strdup(&T, "A"), n->gpu_count = 2;
	char id[16];
	for (int i = 0; i < 24; i++) {
		snprintf(id, sizeof id, "j%02d", i);
		job(id, i * 2.5, 3 + (i * 7) % 11, 1 + i % 3, i % 3 == 0);
	}
	trace_sort(&T);
	trace_assign_phases(&T);
}

static int noop_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	(void)ctx, (void)s, (void)err, (void)errlen;
	return 0;
}

static bool deny_spot(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	(void)ctx, (void)s, (void)j;
	return false;
}

static double no_limit(void *ctx, const struct sim *s, int model)
{
	(void)ctx, (void)s, (void)model;
	return INFINITY;
}

static double wake_at_35(void *ctx, const struct sim *s, double after)
{
	(void)ctx, (void)s;
	return after < 35.0 ? 35.0 : INFINITY;
}

static void same_future(const char *sched)
{
	char err[512];
	struct sim_policy p = policy(sched);
	struct sim_hooks h = { .at_instant = noop_instant };
	struct sim_output ref, out;
	struct sim *s = sim_open_reserve(&T, &p, &h, 8, err, sizeof err);
	CHECK(s != NULL, "open: %s", err);
	CHECK(sim_advance(s, 20.0, err, sizeof err) == 0, "advance: %s", err);
	size_t adm = sim_admitted(s);
	CHECK(adm > 0 && adm < T.n_jobs, "some jobs admitted by 20: %zu", adm);
	struct sim *c = sim_clone(s, &h, err, sizeof err);
	CHECK(c != NULL, "clone: %s", err);
	CHECK(sim_finish(s, &ref, err, sizeof err) == 0, "finish: %s", err);
	/* the same future, as a separate array */
	size_t m = T.n_jobs - adm;
	struct trace_job *fut = xcalloc(m + 1, sizeof *fut);
	memcpy(fut, &T.jobs[adm], m * sizeof *fut);
	CHECK(sim_replace_future(c, fut, m, T.jobs[0].submit, T.jobs[T.n_jobs - 1].submit, err, sizeof err) == 0, "replace: %s", err);
	CHECK(sim_finish(c, &out, err, sizeof err) == 0, "finish the branch: %s", err);
	CHECK(out.n_jobs == ref.n_jobs, "job count %zu vs %zu", out.n_jobs, ref.n_jobs);
	for (size_t i = 0; i < ref.n_jobs && i < out.n_jobs; i++)
		CHECK(out.jobs[i].start == ref.jobs[i].start && out.jobs[i].completion == ref.jobs[i].completion &&
		      out.jobs[i].queue_seconds == ref.jobs[i].queue_seconds && out.jobs[i].runs == ref.jobs[i].runs &&
		      out.jobs[i].preemptions == ref.jobs[i].preemptions,
		      "%s: job %s differs after replacing the future by itself", sched, T.jobs[i].id);
	CHECK(out.n_runs == ref.n_runs && out.n_events == ref.n_events && out.simulation_end == ref.simulation_end,
	      "%s: ledgers %zu/%zu runs, %zu/%zu events", sched, out.n_runs, ref.n_runs, out.n_events, ref.n_events);
	/* done jobs left the population; the future's are in it */
	for (size_t i = 0; i < adm; i++)
		if (out.jobs[i].completion <= 20.0)
			CHECK(!out.jobs[i].evaluation_population, "%s: %s completed before the cut stays out", sched, T.jobs[i].id);
	CHECK(out.jobs[T.n_jobs - 1].evaluation_population, "the new future is in the population");
	sim_output_release(&ref);
	sim_output_release(&out);
	sim_close(s);
	sim_close(c);
	free(fut);
}

static void other_future(void)
{
	char err[512];
	struct sim_policy p = policy("priority_preemptive");
	struct sim_hooks h = { .at_instant = noop_instant };
	struct sim *s = sim_open_reserve(&T, &p, &h, 4, err, sizeof err);
	CHECK(sim_advance(s, 20.0, err, sizeof err) == 0, "advance: %s", err);
	size_t adm = sim_admitted(s);
	struct sim *c = sim_clone(s, &h, err, sizeof err), *d = sim_clone(s, &h, err, sizeof err);
	/* three new jobs, one more than the future slots the trace leaves plus the reserve allows? */
	struct trace_job fut[3];
	memset(fut, 0, sizeof fut);
	const char *ids[3] = { "x1", "x2", "x3" };
	for (int i = 0; i < 3; i++) {
		fut[i].id = (char *)ids[i];
		fut[i].submit = 21.0 + i;
		fut[i].duration = 4;
		fut[i].gpus = 2;
		fut[i].hp = i == 1;
		fut[i].model = (char *)"A";
	}
	CHECK(sim_replace_future(c, fut, 3, 20.0, 40.0, err, sizeof err) == 0, "replace: %s", err);
	CHECK(sim_job_count(c) == adm + 3, "admitted + 3 jobs: %zu", sim_job_count(c));
	CHECK(sim_drain(c, err, sizeof err) == 0, "drain: %s", err);
	const struct sim_output *o = sim_output_so_far(c);
	CHECK(o->evaluation_start == 20.0 && o->evaluation_end == 40.0, "window [20, 40]");
	CHECK(o->allocation_rate_mean >= 0 && o->allocation_rate_mean <= 1.0, "allocation over the new window: %g", o->allocation_rate_mean);
	struct sim_job_result r;
	sim_job_result_of(c, adm + 1, &r);
	CHECK(r.completion > 22.0 && r.evaluation_population, "the new HP job ran: %g", r.completion);
	/* an unsorted, too large, or unknown-model future is refused */
	struct trace_job bad[2] = { fut[1], fut[0] };
	CHECK(sim_replace_future(d, bad, 2, 20, 40, err, sizeof err) == -1, "out of order refused");
	struct trace_job *big = xcalloc(T.n_jobs + 8, sizeof *big);
	for (size_t i = 0; i < T.n_jobs + 8; i++)
		big[i] = fut[0];
	CHECK(sim_replace_future(d, big, T.n_jobs + 8, 20, 40, err, sizeof err) == -1 && strstr(err, "reserve"), "beyond the reserve: %s", err);
	struct trace_job um = fut[0];
	um.model = (char *)"Z";
	CHECK(sim_replace_future(d, &um, 1, 20, 40, err, sizeof err) == -1 && strstr(err, "model"), "unknown model: %s", err);
	free(big);
	/* swapped hooks take effect: a gate that denies every Spot start */
	struct sim_hooks g = { .next_wakeup = wake_at_35, .gate_limit = no_limit, .gate_admit = deny_spot };
	CHECK(sim_replace_future(d, fut, 3, 20.0, 40.0, err, sizeof err) == 0, "replace: %s", err);
	CHECK(sim_set_hooks(d, &g, err, sizeof err) == 0, "set hooks: %s", err);
	CHECK(sim_advance(d, 30.0, err, sizeof err) == 0, "advance: %s", err);
	struct sim_job_state js;
	sim_job_state(d, adm, &js);
	CHECK(!js.running && !js.done && js.queued, "the gated Spot job x1 waits");
	sim_close(c);
	sim_close(d);
	/* a session opened without hooks cannot take hooks later */
	struct sim *u = sim_open_reserve(&T, &p, NULL, 0, err, sizeof err);
	CHECK(sim_set_hooks(u, &g, err, sizeof err) == -1, "hooks on an unhooked session refused");
	sim_close(u);
	sim_close(s);
}

/* sim_clone_live_reuse: at several cutoffs, each clone taking over the last one's buffers, a
 * counterfactual drains to what a full sim_clone given the same future gives (every job of
 * the clone's, the ledgers, the integrals), and it holds no job of the old future. */
static void reused_clones(const char *sched)
{
	char err[512];
	struct sim_policy p = policy(sched);
	struct sim_hooks h = { .at_instant = noop_instant };
	struct sim *s = sim_open_reserve(&T, &p, &h, 4, err, sizeof err), *spare = NULL;
	struct trace_job fut[3];
	memset(fut, 0, sizeof fut);
	const char *ids[3] = { "y1", "y2", "y3" };
	for (double cut = 12.0; cut <= 42.0; cut += 10.0) {
		CHECK(sim_advance(s, cut, err, sizeof err) == 0, "advance: %s", err);
		for (int i = 0; i < 3; i++)
			fut[i] = (struct trace_job){ .id = (char *)ids[i], .submit = cut + 1 + i, .duration = 5, .gpus = 1 + i, .hp = i != 1,
				.model = (char *)"A" };
		for (int rep = 0; rep < 2; rep++) {
			struct sim *full = sim_clone(s, &h, err, sizeof err), *c = sim_clone_live_reuse(s, &h, spare, err, sizeof err);
			spare = NULL;
			CHECK(full && c, "clone: %s", err);
			CHECK(sim_job_count(c) == sim_admitted(s), "%s at %g: the clone holds no future before the new one (%zu jobs)", sched, cut,
			      sim_job_count(c));
			/* every slot holds s's job or nothing: none of the last clone's (its future's
			 * jobs, its finished ones) is left over, a live job never missing */
			size_t stale = 0;
			for (size_t i = 0; i < sim_job_count(c); i++) {
				struct sim_job_state js;
				sim_job_state(s, i, &js);
				const struct trace_job *tc = sim_job_trace(c, i);
				stale += js.done ? tc && tc != sim_job_trace(s, i) : tc != sim_job_trace(s, i);
			}
			CHECK(stale == 0, "%s at %g (reuse %d): %zu slots of the reused clone are not s's", sched, cut, rep, stale);
			CHECK(sim_replace_future(full, fut, 3, cut, cut + 20, err, sizeof err) == 0 &&
			      sim_replace_future(c, fut, 3, cut, cut + 20, err, sizeof err) == 0, "replace: %s", err);
			CHECK(sim_drain(full, err, sizeof err) == 0 && sim_drain(c, err, sizeof err) == 0, "drain: %s", err);
			size_t *pop = xmalloc((sim_job_count(c) + 1) * sizeof *pop), np = sim_population_indices(c, pop), bad = 0;
			for (size_t i = 0; i < sim_job_count(c); i++) {
				if (!sim_job_trace(c, i))
					continue;
				struct sim_job_result x, y;
				sim_job_result_of(full, i, &x);
				sim_job_result_of(c, i, &y);
				/* field by field: memcmp would compare the struct's padding, never written */
				bad += !(x.start == y.start && x.completion == y.completion && x.queue_seconds == y.queue_seconds &&
					 x.preemptions == y.preemptions && x.runs == y.runs && x.evaluation_population == y.evaluation_population);
			}
			free(pop);
			const struct sim_output *fo = sim_output_so_far(full), *co = sim_output_so_far(c);
			CHECK(!bad && np >= 3, "%s at %g (reuse %d): %zu jobs end differently in the reused clone", sched, cut, rep, bad);
			CHECK(fo->n_runs == co->n_runs && fo->n_events == co->n_events && fo->allocated == co->allocated &&
			      fo->evaluation_allocated == co->evaluation_allocated && fo->simulation_end == co->simulation_end &&
			      same_runs(fo, co), "%s at %g: the reused clone's ledgers differ", sched, cut);
			sim_close(full);
			spare = c;
		}
	}
	sim_close(spare);
	sim_close(s);
}

/* A long trace on one node of `gpus` GPUs: n jobs k00000.. one a second, 3-5 s long (the
 * first first_duration s), one GPU each, every fourth HP. */
static void long_trace(struct trace *L, const char *trace_id, int n, int gpus, double first_duration)
{
	trace_init(L);
	L->trace_id = trace_strdup(L, trace_id);
	L->time_origin = trace_strdup(L, "2026-01-01 00:00:00");
	struct trace_node *nd = trace_add_node(L);
	nd->id = trace_strdup(L, "n1"), nd->model = trace_strdup(L, "A"), nd->gpu_count = gpus;
	char id[16];
	for (int i = 0; i < n; i++) {
		struct trace_job *j = trace_add_job(L);
		snprintf(id, sizeof id, "k%05d", i);
		j->id = trace_strdup(L, id);
		j->submit = i * 1.0;
		j->duration = i ? 3 + i % 3 : first_duration;
		j->gpus = 1;
		j->hp = i % 4 == 0;
		j->model = trace_strdup(L, "A");
	}
	trace_sort(L);
	trace_assign_phases(L);
}

/* How many of the jobs a drained live clone c holds (*held) differ from the full copy's
 * results, or (below > 0) lie below slot `below`. */
static size_t differing(const struct sim *full, const struct sim *c, size_t below, size_t *held)
{
	size_t bad = 0;
	*held = 0;
	for (size_t i = 0; i < sim_job_count(c); i++) {
		if (!sim_job_trace(c, i))
			continue;
		++*held;
		bad += i < below;   /* long finished: never copied, or given back */
		struct sim_job_result x, y;
		sim_job_result_of(full, i, &x);
		sim_job_result_of(c, i, &y);
		bad += !(x.start == y.start && x.completion == y.completion && x.queue_seconds == y.queue_seconds &&
			 x.preemptions == y.preemptions && x.runs == y.runs && x.evaluation_population == y.evaluation_population);
	}
	return bad;
}

/* A reused clone's slot buffer lives on from cutoff to cutoff and gives back the pages below
 * the lowest live slot once the live state has moved more than a MiB of slots up the trace:
 * a long trace whose short queue moves along it, cutoffs 7,000 jobs apart. The clone still
 * drains to the full copy's results, and a given-back slot reads as an empty one. */
static void trimmed_clones(void)
{
	char err[512];
	struct trace L;
	long_trace(&L, "long", 24000, 4, 3);
	struct sim_policy p = policy("fifo");
	struct sim_hooks h = { .at_instant = noop_instant };
	struct sim *s = sim_open_reserve(&L, &p, &h, 4, err, sizeof err), *spare = NULL;
	CHECK(s != NULL, "open: %s", err);
	struct trace_job fut[2] = { { .id = (char *)"z1", .duration = 5, .gpus = 2, .hp = true, .model = (char *)"A" },
				    { .id = (char *)"z2", .duration = 4, .gpus = 1, .model = (char *)"A" } };
	for (double cut = 2000.5; s && cut < 23000; cut += 7000) {
		CHECK(sim_advance(s, cut, err, sizeof err) == 0, "advance: %s", err);
		fut[0].submit = cut + 1, fut[1].submit = cut + 2;
		struct sim *full = sim_clone(s, &h, err, sizeof err), *c = sim_clone_live_reuse(s, &h, spare, err, sizeof err);
		spare = NULL;
		CHECK(full && c, "clone: %s", err);
		if (!full || !c)
			break;
		CHECK(sim_replace_future(full, fut, 2, cut, cut + 50, err, sizeof err) == 0 &&
		      sim_replace_future(c, fut, 2, cut, cut + 50, err, sizeof err) == 0, "replace: %s", err);
		CHECK(sim_drain(full, err, sizeof err) == 0 && sim_drain(c, err, sizeof err) == 0, "drain: %s", err);
		size_t held, bad = differing(full, c, (size_t)cut - 100, &held);
		const struct sim_output *fo = sim_output_so_far(full), *co = sim_output_so_far(c);
		CHECK(!bad && held >= 2 && held < 200, "at %g: %zu of the %zu jobs the clone holds differ or lie below the live state", cut, bad, held);
		CHECK(fo->allocated == co->allocated && fo->simulation_end == co->simulation_end && same_runs(fo, co),
		      "at %g: the trimmed clone's ledgers differ", cut);
		sim_close(full);
		spare = c;
	}
	sim_close(spare);
	sim_close(s);
	trace_release(&L);
}

/* Pages of the clone's slot buffer resident now (mincore). */
static size_t resident_pages(const struct sim *c)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)c->jobs & ~((uintptr_t)pg - 1), e = (uintptr_t)(c->jobs + c->cap_n + 1);
	size_t n = (e - a + (uintptr_t)pg - 1) / (uintptr_t)pg, r = 0;
	unsigned char *v = xmalloc(n);
	if (mincore((void *)a, e - a, v) == 0)
		for (size_t i = 0; i < n; i++)
			r += v[i] & 1;
	else
		r = (size_t)-1;
	free(v);
	return r;
}

/* Job k00000 runs from the first second to the end, so the lowest live slot stays 0 and
 * trim_below gives nothing back; a clone every 3 s (jobs of 3-5 s arriving each second) has
 * touched every slot by the end. The pages of the slots that left the live set must have
 * been given back: a handful stay resident, not the ~540 the 12,000 slots span; and the
 * last clone still drains as a full copy does. */
static void released_pages(void)
{
	char err[512];
	struct trace L;
	long_trace(&L, "pinned", 15000, 8, 1e6);
	struct sim_policy p = policy("fifo");
	struct sim_hooks h = { .at_instant = noop_instant };
	struct sim *s = sim_open_reserve(&L, &p, &h, 4, err, sizeof err), *spare = NULL, *c = NULL;
	CHECK(s != NULL, "open: %s", err);
	struct trace_job fut[1] = { { .id = (char *)"z1", .duration = 5, .gpus = 2, .hp = true, .model = (char *)"A" } };
	size_t peak = 0;
	for (double cut = 2.5; s && cut < 12000; cut += 3) {
		CHECK(sim_advance(s, cut, err, sizeof err) == 0, "advance: %s", err);
		c = sim_clone_live_reuse(s, &h, spare, err, sizeof err);
		spare = NULL;
		CHECK(c != NULL, "clone: %s", err);
		if (!c)
			break;
		fut[0].submit = cut + 1;
		CHECK(sim_replace_future(c, fut, 1, cut, cut + 10, err, sizeof err) == 0, "replace: %s", err);
		CHECK(sim_advance(c, cut + 10, err, sizeof err) == 0, "advance the clone: %s", err);
		size_t r = resident_pages(c);
		if (r > peak && cut > 6000)
			peak = r;
		if (cut + 3 < 12000)
			spare = c;
	}
	CHECK(peak <= 12, "a reused buffer kept %zu pages resident (live slots span a few)", peak);
	if (c && s) {
		struct sim *full = sim_clone(s, &h, err, sizeof err);
		CHECK(full && sim_replace_future(full, fut, 1, s->now, s->now + 10, err, sizeof err) == 0, "full: %s", err);
		CHECK(sim_drain(full, err, sizeof err) == 0 && sim_drain(c, err, sizeof err) == 0, "drain: %s", err);
		size_t held, bad = differing(full, c, 0, &held);
		CHECK(!bad && held >= 2 && held < 20, "%zu of the %zu jobs the last clone holds differ from the full copy's", bad, held);
		sim_close(full);
	}
	sim_close(c);
	sim_close(s);
	trace_release(&L);
}

int main(void)
{
	arena_init(&A);
	build();
	same_future("fifo");
	same_future("priority_preemptive");
	other_future();
	reused_clones("fifo");
	reused_clones("priority_preemptive");
	trimmed_clones();
	released_pages();
	trace_release(&T);
	arena_release(&A);
	printf("test_branch: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
