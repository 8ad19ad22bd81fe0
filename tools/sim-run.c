/* sim-run — replay a trace stream under one policy and write the result stream. */
#include "core/die.h"
#include "core/ndjson.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/result.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "sim-run --policy FILE [--input FILE] [-o OUT]\n";

static const char help[] =
	"\n"
	"Replay a trace stream through the SchedNav simulator (the original engine's\n"
	"semantics, bit for bit) under one policy and write a result stream: header,\n"
	"job_result, run, preemption and cluster records, end.\n"
	"\n"
	"  -p, --policy FILE  schednav.simulation-policy/v1 JSON file (required)\n"
	"  -i, --input FILE   trace stream to read (default: stdin; .zst accepted)\n"
	"  -o, --output FILE  write to FILE (FILE.XXXXXX.tmp, then renamed; .zst compresses)\n"
	"  -h, --help         show this help\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_path = NULL, *input = "-", *output = "-";
	int c;
	tool_init(argc, argv, usage);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': policy_path = optarg; break;
		case 'i': input = optarg; break;
		case 'o': output = optarg; break;
		case 'h':
			usage_print(stdout, usage);
			print_help(help);
		case ':': usage_fail(usage, "option requires an argument");
		default: usage_fail(usage, "unknown option");
		}
	}
	if (optind < argc)
		usage_fail(usage, "unexpected operand");
	if (!policy_path)
		usage_fail(usage, "missing --policy FILE");

	char err[2048];
	struct arena a;
	struct sim_policy pol;
	struct trace t;
	struct sim_output out;
	arena_init(&a);
	trace_init(&t);
	if (policy_load(&pol, policy_path, &a, err, sizeof err))
		die("%s", err);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	if (sim_run(&t, &pol, &out, err, sizeof err))
		die("%s", err);
	struct json *hdr = result_header(&a, &t, &pol, &out);
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (result_write(w, hdr, &t, &out, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	sim_output_release(&out);
	trace_release(&t);
	arena_release(&a);
	return 0;
}
