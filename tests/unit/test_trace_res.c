/* Unit tests for the optional resource fields of trace records (issue 36, lib/trace/res.c):
 * the rules of trace_check_node/trace_check_job on hand-made records, and trace_load_sharing
 * carrying them (an equal trace shares the job array and gpu_spec strings; a trace that
 * differs only in one job's cpu_milli does not). */
#include "core/ndjson.h"
#include "trace/trace.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const char SRC[] = "tests/data/res/small.trace.ndjson";

/* A job of 2 whole GPUs with each field settable; check gives 0 or -1 and err. */
static int check_job(struct trace_job j, const char *want)
{
	char err[300] = "";
	int rc = trace_check_job(&j, 1, err, sizeof err);
	CHECK(want ? rc == -1 && !strcmp(err, want) : rc == 0, "job: got %d '%s', want '%s'", rc, err, want ? want : "ok");
	return rc;
}

static void rule_cases(void)
{
	struct trace_job b = { .id = "j", .submit = 0, .duration = 10, .gpus = 2, .model = "*" };
	struct trace_job j = b;
	check_job(j, NULL);
	j.res = TRACE_RES_CPU, j.cpu_milli = -1;
	check_job(j, "job 'j': cpu_milli -1 is outside 0..4294967296");
	j.cpu_milli = TRACE_MAX_RES;
	check_job(j, NULL);
	j = b, j.res = TRACE_RES_MEM, j.memory_mib = TRACE_MAX_RES + 1;
	check_job(j, "job 'j': memory_mib 4294967297 is outside 0..4294967296");
	j = b, j.res = TRACE_RES_WORKERS, j.workers = 2;
	check_job(j, NULL);
	j.workers = 4;
	check_job(j, "job 'j': 4 workers do not divide gpus 2 into whole GPUs");
	j.workers = 0;
	check_job(j, "job 'j': workers 0 is outside 1..1048576");
	j = b, j.res = TRACE_RES_GPU_MILLI, j.gpu_milli = 250, j.gpus = 0.25;
	check_job(j, NULL);
	j.gpus = 0.5;
	check_job(j, "job 'j': gpus 0.5 is not gpu_milli / 1000 (250 / 1000)");
	j.gpu_milli = 1000, j.gpus = 1;
	check_job(j, "job 'j': gpu_milli 1000 is outside 1..999");
	j = b, j.res = TRACE_RES_GPU_MILLI | TRACE_RES_WORKERS, j.gpu_milli = 500, j.gpus = 0.5, j.workers = 2;
	check_job(j, "job 'j': a share of one GPU (gpu_milli) has one worker, not 2");
	j = b, j.res = TRACE_RES_GPU_SPEC, j.gpu_spec = "A100|H100";
	check_job(j, NULL);
	j.gpu_spec = "A100||H100";
	check_job(j, "job 'j': gpu_spec 'A100||H100': a model name is empty");
	j.gpu_spec = "";
	check_job(j, "job 'j': gpu_spec must be 1..1024 bytes");
	j.gpu_spec = "A100| H100";
	check_job(j, "job 'j': gpu_spec 'A100| H100': a model name has white space at its start or end");
	struct trace_node n = { .id = "n", .model = "A", .gpu_count = 1, .res = TRACE_RES_CPU, .cpu_milli = -5 };
	char err[300] = "";
	CHECK(trace_check_node(&n, NULL, err, sizeof err) == -1 && !strcmp(err, "node 'n': cpu_milli -5 is outside 0..4294967296"), "node: '%s'", err);
	n.cpu_milli = 0;
	CHECK(trace_check_node(&n, NULL, err, sizeof err) == 0, "a node of no CPU is allowed: '%s'", err);
}

static void write_trace(struct trace *t, const char *path)
{
	char err[512];
	struct arena a;
	arena_init(&a);
	struct nd_writer *w = ndw_open(path, err, sizeof err);
	if (!w || trace_write(t, trace_header(t, &a, "test_trace_res"), w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err)) {
		fprintf(stderr, "test_trace_res: %s\n", err);
		exit(1);
	}
	arena_release(&a);
}

static void sharing_cases(void)
{
	char err[512], p1[] = "/tmp/test_trace_resXXXXXX";
	int fd = mkstemp(p1);
	CHECK(fd >= 0, "mkstemp");
	close(fd);
	struct trace like, same, edited, plain;
	trace_init(&like);
	trace_init(&same);
	trace_init(&edited);
	trace_init(&plain);
	if (trace_load(&like, SRC, err, sizeof err) || trace_load_sharing(&same, SRC, &like, err, sizeof err)) {
		CHECK(0, "load: %s", err);
		return;
	}
	CHECK(like.n_nodes == 2 && like.nodes[0].res == (TRACE_RES_CPU | TRACE_RES_MEM) && like.nodes[0].cpu_milli == 64000 &&
	      like.nodes[0].memory_mib == 262144 && like.nodes[1].res == 0, "the nodes' fields as written");
	const struct trace_job *a = &like.jobs[0], *b = &like.jobs[1];
	CHECK(a->res == (TRACE_RES_WORKERS | TRACE_RES_CPU | TRACE_RES_MEM | TRACE_RES_GPU_SPEC) && a->workers == 2 &&
	      a->cpu_milli == 8000 && a->memory_mib == 1024 && !strcmp(a->gpu_spec, "A|B"), "job a's fields as written");
	CHECK(b->res == (TRACE_RES_CPU | TRACE_RES_GPU_MILLI) && b->gpu_milli == 500 && b->time_limit == 50, "job b's fields as written");
	CHECK(same.jobs_shared && same.jobs == like.jobs, "an equal trace with resource fields shares the job array");
	trace_load(&plain, SRC, err, sizeof err);
	plain.jobs[0].cpu_milli += 1;   /* one field of one job differs */
	write_trace(&plain, p1);
	if (trace_load_sharing(&edited, p1, &like, err, sizeof err)) {
		CHECK(0, "load edited: %s", err);
		return;
	}
	CHECK(!edited.jobs_shared && edited.jobs[0].cpu_milli == 8001, "a changed cpu_milli keeps its own array");
	CHECK(edited.jobs[0].gpu_spec == like.jobs[0].gpu_spec, "and takes like's equal gpu_spec string");
	trace_release(&same);
	trace_release(&edited);
	trace_release(&plain);
	trace_release(&like);
	unlink(p1);
}

/* trace_check_fits on a two-node cluster: n1 (A, 4 GPUs, 32 cores, 1,000 MiB) and n2 (B, 8
 * GPUs, 64 cores, 4,000 MiB); one job at a time, then two bad jobs (the earlier is named). */
static void fits_case(struct trace_job j, const char *want)
{
	struct trace t;
	trace_init(&t);
	struct trace_node *n = trace_add_node(&t);
	*n = (struct trace_node){ .id = "n1", .model = "A", .gpu_count = 4, .cpu_milli = 32000, .memory_mib = 1000, .res = TRACE_RES_CPU | TRACE_RES_MEM };
	n = trace_add_node(&t);
	*n = (struct trace_node){ .id = "n2", .model = "B", .gpu_count = 8, .cpu_milli = 64000, .memory_mib = 4000, .res = TRACE_RES_CPU | TRACE_RES_MEM };
	struct trace_job *ok = trace_add_job(&t);
	*ok = (struct trace_job){ .id = "fine", .submit = 0, .duration = 1, .gpus = 1, .model = "*" };
	*trace_add_job(&t) = j;
	char err[512] = "";
	int rc = trace_check_fits(&t, err, sizeof err);
	CHECK(want ? rc == -1 && !strcmp(err, want) : rc == 0, "fits '%s': got %d '%s', want '%s'", j.id, rc, err, want ? want : "ok");
	trace_release(&t);
}

static void fits_cases(void)
{
	const struct trace_job b = { .id = "j", .submit = 1, .duration = 1, .gpus = 2, .model = "*" };
	struct trace_job j = b;
	fits_case(j, NULL);
	j.model = "C";
	fits_case(j, "job 'j' can never be placed: no node has GPU model 'C'");
	j = b, j.res = TRACE_RES_GPU_SPEC, j.gpu_spec = "C|D";
	fits_case(j, "job 'j' can never be placed: no node has a model of its gpu_spec 'C|D'");
	j.gpu_spec = "D|B";
	fits_case(j, NULL);
	j = b, j.gpus = 16;
	fits_case(j, "job 'j' can never be placed: a worker needs 16 GPUs on one node, and the largest node of its models has 8");
	j = b, j.gpus = 8, j.res = TRACE_RES_GPU_SPEC, j.gpu_spec = "A";
	fits_case(j, "job 'j' can never be placed: a worker needs 8 GPUs on one node, and the largest node of its models has 4");
	j = b, j.res = TRACE_RES_CPU, j.cpu_milli = 100000;
	fits_case(j, "job 'j' can never be placed: a worker needs 100000 milli-CPUs, and the most a node with its GPUs has is 64000");
	j = b, j.res = TRACE_RES_MEM | TRACE_RES_CPU, j.memory_mib = 2000, j.cpu_milli = 40000;
	fits_case(j, NULL);   /* n2 only: n1 has too little CPU and memory */
	j.memory_mib = 5000;
	fits_case(j, "job 'j' can never be placed: a worker needs 5000 MiB of memory, and the most a node with its GPUs and CPUs has is 4000");
	j = b, j.gpus = 24, j.workers = 3, j.res = TRACE_RES_WORKERS;
	fits_case(j, "job 'j' can never be placed: its 3 workers fit the empty cluster only 1 at a time");
	j.gpus = 12;     /* 4 GPUs each: one on n1, two on n2 */
	fits_case(j, NULL);
	j = b, j.gpus = 0.5, j.gpu_milli = 500, j.cpu_milli = 20000, j.res = TRACE_RES_GPU_MILLI | TRACE_RES_CPU;
	fits_case(j, NULL);
	/* two jobs that can never be placed: the earlier in trace order is named */
	struct trace t;
	trace_init(&t);
	struct trace_node *n = trace_add_node(&t);
	*n = (struct trace_node){ .id = "n1", .model = "A", .gpu_count = 4 };
	*trace_add_job(&t) = (struct trace_job){ .id = "z-first", .submit = 0, .duration = 1, .gpus = 1, .model = "B" };
	*trace_add_job(&t) = (struct trace_job){ .id = "a-second", .submit = 1, .duration = 1, .gpus = 9, .model = "*" };
	char err[512] = "";
	CHECK(trace_check_fits(&t, err, sizeof err) == -1 && !strcmp(err, "job 'z-first' can never be placed: no node has GPU model 'B'"), "first bad: '%s'", err);
	trace_release(&t);
}

int main(void)
{
	rule_cases();
	sharing_cases();
	fits_cases();
	printf("test_trace_res: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
