/* trace-export — write a trace stream as the original engine's three-file directory
 * (trace.json, nodes.csv, jobs.csv), byte for byte as its writer did, or (issue 37,
 * --format swf) as a Standard Workload Format v2.2 log. */
#include "core/cli.h"
#include "core/die.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "trace/export.h"
#include "trace/export_swf.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"trace-export [-f] [-v] DIR [FILE]\n"
	"trace-export [-f] [-v] -o DIR [FILE]\n"
	"trace-export --format swf [--gpus-per-proc G] [-v] -o OUT [FILE]\n";

static const char help[] =
	"\n"
	"Read one trace stream (FILE, or stdin; zstd is sniffed) and write DIR/nodes.csv,\n"
	"DIR/jobs.csv and DIR/trace.json (schednav.trace/v1 or /v2) as the original engine\n"
	"writes them. DIR is created when missing.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR   the directory to write (then every operand is an input)\n"
	"  -f, --force        overwrite trace files already in DIR\n"
	"  -v, --verbose      report what was written on stderr\n"
	"  --format swf       write a Standard Workload Format v2.2 log to OUT instead\n"
	"                     ('-' = stdout; .zst is compressed; see trace-export(1))\n"
	"  --gpus-per-proc G  with --format swf: G GPUs are one SWF processor (default 1)\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\nwrites: the original trace directory, " CANON_SCHEMA_V1 " or " CANON_SCHEMA_V2 "\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "gpus-per-proc", required_argument, NULL, 'G' },
		CLI_OPTION_INPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	bool force = false, verbose = false, swf = false;
	long long gpp = 1;
	const char *dir = NULL;
	struct cli cli;
	int ch;
	cli_init(&cli, argv, CLI_INPUT, usage, help, schemas);
	while ((ch = getopt_long(argc, argv, ":fvo:i:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f': force = true; break;
		case 'v': verbose = true; break;
		case 'o': dir = optarg; break;
		case 'F':
			if (strcmp(optarg, "swf") && strcmp(optarg, "dir"))
				usage_error(usage, "--format must be 'dir' or 'swf', not '%s'", optarg);
			swf = !strcmp(optarg, "swf");
			break;
		case 'G':
			if (num_parse_int(optarg, &gpp) || gpp < 1 || gpp > (1LL << 20))
				usage_error(usage, "--gpus-per-proc: '%s' is not a whole number >= 1", optarg);
			break;
		default: cli_option(&cli, ch, argv);
		}
	}
	/* Without -o the first operand is DIR. */
	if (!dir) {
		if (optind == argc)
			usage_fail(usage, "missing DIR");
		dir = argv[optind++];
	}
	cli_operands(&cli, argc, argv, 1);
	const char *input = cli.inputs[0];
	struct trace t;
	char err[1024];
	trace_init(&t);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	if (swf) {
		struct strbuf sb;
		sb_init(&sb);
		struct zio_writer *w = NULL;
		if (trace_export_swf(&t, gpp, &sb, err, sizeof err) || !(w = zw_open(dir, false, err, sizeof err)) ||
		    zw_write(w, sb.buf, sb.len, err, sizeof err) || zw_commit(w, err, sizeof err)) {
			if (w)
				zw_abort(w);
			die("%s", err);
		}
		sb_release(&sb);
	} else if (trace_export_dir(&t, dir, force, err, sizeof err))
		die("%s", err);
	if (verbose)
		fprintf(stderr, "%s: wrote %s (%zu nodes, %zu jobs, schema v%d)\n", progname, dir, t.n_nodes, t.n_jobs, t.version);
	trace_release(&t);
	cli_release(&cli);
	return 0;
}
