/* forecast — the past-only cutoff bundle of a predictive controller for one trace stream. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "predict/predict.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "forecast --controller FILE --cutoff SECONDS [-o OUT] [FILE]\n";

static const char help_head[] =
	"\n"
	"Read one trace stream and write the controller's observation bundle at the cutoff:\n"
	"only jobs submitted by the cutoff are read, their occupancy is replayed offline on the\n"
	"controller's update grid ending at the cutoff, and the bundle holds the last update's\n"
	"observation snapshot, demand forecast and Spot quota plan with the prefix fingerprint.\n"
	"\n"
	/* the --controller lines: pc_families_help */
	;

static const char help_tail[] =
	"  -t, --cutoff SECONDS   cutoff time, seconds from the trace origin (required)\n";

/* The help and the schemas line: the controller families' part from their table. */
static void cli_texts(struct strbuf *help, struct strbuf *schemas)
{
	sb_init(help);
	sb_adds(help, help_head);
	pc_families_help(help, "-c, --controller FILE", " (required)");
	sb_adds(help, help_tail);
	sb_init(schemas);
	sb_adds(schemas, "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 ", ");
	pc_families_reads(schemas);
	sb_adds(schemas, "\nwrites: " PC_FORECAST_STREAM_SCHEMA "\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "controller", required_argument, NULL, 'c' },
		{ "cutoff", required_argument, NULL, 't' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *controller = NULL, *cutoff_arg = NULL;
	struct cli cli;
	static struct strbuf help, schemas;   /* static: alive to the end (cli keeps the pointers) */
	int c;
	cli_texts(&help, &schemas);
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help.buf, schemas.buf);
	while ((c = getopt_long(argc, argv, ":c:t:i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': controller = optarg; break;
		case 't': cutoff_arg = optarg; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	const char *input = cli.inputs[0], *output = cli.output;
	if (!controller)
		usage_fail(usage, "missing --controller FILE");
	if (!cutoff_arg)
		usage_fail(usage, "missing --cutoff SECONDS");
	double cutoff = opt_double("cutoff", cutoff_arg);

	char err[2048];
	struct arena a;
	struct pc_config cfg;
	struct trace t;
	arena_init(&a);
	trace_init(&t);
	if (pc_config_load(&cfg, controller, &a, err, sizeof err))
		die("%s", err);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	struct json *bundle = pc_bundle(&a, &t, &cfg, cutoff, err, sizeof err);
	if (!bundle)
		die("%s", err);
	/* The header names the input but not its fingerprint: that would identify the whole
	 * trace, future included. The bundle's observed_prefix_fingerprint says what was read. */
	struct json *hdr = nd_header_new(&a, PC_FORECAST_STREAM_SCHEMA, "forecast");
	struct json *in = json_object(&a);
	json_set(&a, in, "path", json_str(&a, strcmp(input, "-") ? input : "<stdin>"));
	json_set(&a, in, "schema", json_str(&a, t.version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1));
	json_push(&a, json_get(hdr, "inputs"), in);
	struct json *params = json_get(hdr, "params");
	json_set(&a, params, "cutoff_time_seconds", json_real(&a, cutoff));
	json_set(&a, params, "controller_id", json_str(&a, cfg.controller_id));
	json_set(&a, params, "controller_fingerprint", json_str(&a, cfg.fingerprint));
	if (ndw_write_one(output, hdr, bundle, err, sizeof err))
		die("%s", err);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
