/* Unit tests for the controller families' decision readers (predict.h "pc_decision_reader")
 * and report's use of them (rp_control_add): which family a control_decision record's shape
 * names, the values each reads, and the messages for a malformed or mixed stream. */
#include "predict/predict.h"
#include "report/report.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct arena A;

static struct json *rec(const char *text)
{
	struct json *v;
	char err[200];
	if (json_parse(&A, text, strlen(text), &v, err, sizeof err)) {
		fprintf(stderr, "bad fixture: %s\n", err);
		return NULL;
	}
	return v;
}

#define AGG "{\"type\":\"control_decision\",\"cutoff_time_seconds\":3600,\"hp_outstanding_requested_gpus\":12," \
	    "\"eta\":0.5,\"spot_quota_gpus_by_guarantee_hour\":{\"1\":40,\"2\":30}," \
	    "\"points\":[{\"horizon_step\":2,\"mu_gpus\":9},{\"horizon_step\":1,\"target_time_seconds\":7200,\"mu_gpus\":10,\"guarantee_quantile_gpus\":14}]}"
#define TEN "{\"type\":\"control_decision\",\"cutoff_time_seconds\":7200,\"resource_pools\":{" \
	    "\"A\":{\"hp_running_gpus\":3,\"spot_quota_gpus_by_guarantee_hour\":{\"1\":5},\"feedback\":{\"eta_after\":0.25},\"gate\":{\"admitted_spot_runs\":2,\"held_spot_jobs\":1}}," \
	    "\"B\":{\"hp_running_gpus\":4}}," \
	    "\"points\":[{\"horizon_step\":1,\"resource_pool\":\"B\",\"mu_gpus\":6},{\"horizon_step\":1,\"resource_pool\":\"A\",\"mu_gpus\":7,\"target_time_seconds\":10800,\"guarantee_quantile_gpus\":8}]}"

static void readers(void)
{
	char err[300];
	const struct pc_decision_reader *agg = pc_decision_reader_of(rec(AGG), err, sizeof err);
	const struct pc_decision_reader *ten = pc_decision_reader_of(rec(TEN), err, sizeof err);
	CHECK(agg && ten && agg != ten, "the two shapes are read by two families");
	CHECK(agg && !agg->gate_counts && !strcmp(agg->hp_title, "actual HP demand (HP outstanding GPUs)"), "aggregate reader's chart");
	CHECK(ten && ten->gate_counts && !strcmp(ten->hp_title, "actual HP demand (running HP GPUs)"), "tenant reader's chart");
	if (!agg || !ten)
		return;
	const char *names[8];
	CHECK(agg->pools(rec(AGG), names, 8) == 1 && !strcmp(names[0], "cluster"), "aggregate: one pool, the cluster");
	size_t n = ten->pools(rec(TEN), names, 8);
	CHECK(n == 2 && !strcmp(names[0], "A") && !strcmp(names[1], "B"), "tenant: the pools in record order");
	CHECK(ten->pools(rec(TEN), names, 1) == 1, "tenant: at most max pools");
	struct pc_decision_point x;
	CHECK(!agg->point(rec(AGG), "cluster", &x, err, sizeof err), "aggregate point");
	CHECK(x.hp == 12 && x.quota == 40 && x.eta == 0.5 && x.target == 7200 && x.mu == 10 && x.q == 14 && isnan(x.admitted) && isnan(x.held),
	      "aggregate values: hp %g quota %g eta %g target %g mu %g q %g", x.hp, x.quota, x.eta, x.target, x.mu, x.q);
	CHECK(!ten->point(rec(TEN), "A", &x, err, sizeof err), "tenant point A");
	CHECK(x.hp == 3 && x.quota == 5 && x.eta == 0.25 && x.admitted == 2 && x.held == 1 && x.mu == 7 && x.target == 10800 && x.q == 8,
	      "tenant A values: hp %g quota %g eta %g admitted %g held %g mu %g", x.hp, x.quota, x.eta, x.admitted, x.held, x.mu);
	CHECK(!ten->point(rec(TEN), "B", &x, err, sizeof err) && x.hp == 4 && x.mu == 6 && isnan(x.quota) && isnan(x.target), "tenant B values");
	CHECK(ten->point(rec(TEN), "C", &x, err, sizeof err) == -1 && !strcmp(err, "'control_decision' record: resource pool 'C' missing"),
	      "missing pool: '%s'", err);
	CHECK(!pc_decision_reader_of(rec("{\"type\":\"control_decision\",\"resource_pools\":[1]}"), err, sizeof err) &&
	      !strcmp(err, "'control_decision' record: 'resource_pools' is not an object"), "malformed pools: '%s'", err);
}

static void report_control(void)
{
	struct rp_model m;
	struct rp_result r;
	char err[300];
	memset(&m, 0, sizeof m);
	memset(&r, 0, sizeof r);
	arena_init(&m.a);
	CHECK(!rp_control_add(&m, &r, rec(TEN), err, sizeof err), "tenant decision: %s", err);
	CHECK(!rp_control_add(&m, &r, rec(TEN), err, sizeof err), "second tenant decision: %s", err);
	CHECK(r.control.ndecisions == 2 && r.control.npools == 2 && r.control.n == 4, "2 decisions x 2 pools");
	CHECK(r.control.v[3].t == 7200 && r.control.v[3].hp == 4, "decision 2, pool B");
	CHECK(rp_control_add(&m, &r, rec(AGG), err, sizeof err) == -1 &&
	      !strcmp(err, "'control_decision' record: decisions of two controller families in one result stream"), "mixed: '%s'", err);
	/* a record outside the evidence window is skipped, but only once its shape is checked */
	CHECK(!rp_control_add(&m, &r, rec("{\"cutoff_time_seconds\":1,\"retained\":false}"), err, sizeof err) && r.control.ndecisions == 2,
	      "not retained: skipped");
	CHECK(rp_control_add(&m, &r, rec("{\"resource_pools\":\"x\",\"retained\":false,\"cutoff_time_seconds\":1}"), err, sizeof err) == -1,
	      "malformed and not retained: refused");
	CHECK(rp_control_add(&m, &r, rec("{\"resource_pools\":{}}"), err, sizeof err) == -1 &&
	      !strcmp(err, "'control_decision' record: 'cutoff_time_seconds' is missing or not a number"), "no cutoff: '%s'", err);
	rp_control_release(&r.control);
	arena_release(&m.a);
}

/* report(1)'s note under the quality table comes from the family table, in the table's order */
static void scored_note(void)
{
	struct strbuf sb;
	sb_init(&sb);
	pc_families_scored(&sb);
	CHECK(!strcmp(sb.buf, "The tenant controller scores each pool's running HP GPUs, the aggregate controller the cluster's HP "
			      "outstanding GPUs."), "scored note: '%s'", sb.buf);
	sb_release(&sb);
}

int main(void)
{
	arena_init(&A);
	readers();
	scored_note();
	report_control();
	arena_release(&A);
	printf("test_decision_read: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
