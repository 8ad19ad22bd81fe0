/* sim-run — replay a trace stream under one policy and write the result stream. */
#include "core/cli.h"
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

static const char usage[] = "sim-run --policy FILE [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Replay a trace stream through the SchedNav simulator (the original engine's\n"
	"semantics, bit for bit) under one policy and write a result stream: header,\n"
	"job_result, run, preemption and cluster records, end.\n"
	"\n"
	"  -p, --policy FILE  schednav.simulation-policy/v1 JSON file (required)\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 ", " POLICY_SCHEMA "\nwrites: " RESULT_SCHEMA "\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_path = NULL;
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":p:i:o:hV", longopts, NULL)) != -1) {
		if (c == 'p')
			policy_path = optarg;
		else
			cli_option(&cli, c, argv);
	}
	cli_operands(&cli, argc, argv, 1);
	if (!policy_path)
		usage_fail(usage, "missing --policy FILE");
	const char *input = cli.inputs[0], *output = cli.output;

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
	cli_release(&cli);
	return 0;
}
