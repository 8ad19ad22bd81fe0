/* metrics — compute the flat metrics record from a result stream. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "eval/metrics.h"
#include "eval/evidence.h"
#include "registry/result_families.h"
#include "sim/result.h"
#include "sim/result_read.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "metrics [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read one result stream (from sim-run), verify it, and write a metrics stream with\n"
	"one metrics record: the effective policy, provenance, the 37 catalogue metrics,\n"
	"extras and the three ledger-consistency flags.\n";

static const char schemas[] = "reads: " RESULT_SCHEMA "\nwrites: " EV_METRICS_SCHEMA "\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = { CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 } };
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1)
		cli_option(&cli, c, argv);
	cli_operands(&cli, argc, argv, 1);
	const char *input = cli.inputs[0], *output = cli.output;

	char err[1024];
	struct result_data m;
	struct arena a;
	arena_init(&a);
	struct nd_reader *r = ndr_open(input, err, sizeof err);
	if (!r)
		die("%s", err);
	if (result_read(&m, r, registry_result_exts, err, sizeof err))
		die("%s", err);
	ndr_close(r);
	struct json *hdr = nd_header_new(&a, EV_METRICS_SCHEMA, "metrics");
	nd_header_add_stream(&a, hdr, strcmp(input, "-") ? input : "<stdin>", RESULT_SCHEMA, m.fingerprint);
	struct json *rec = ev_metrics_record(&a, &m);
	if (ndw_write_one(output, hdr, rec, err, sizeof err))
		die("%s", err);
	result_data_release(&m);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
