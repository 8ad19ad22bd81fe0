/* trace-export — write a trace stream as the original engine's three-file directory
 * (trace.json, nodes.csv, jobs.csv), byte for byte as its writer did. */
#include "core/die.h"
#include "trace/export.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "trace-export [-f] [-v] DIR [TRACE]\n";

static const char help[] =
	"\n"
	"Read one trace stream (TRACE, or stdin; zstd is sniffed) and write DIR/nodes.csv,\n"
	"DIR/jobs.csv and DIR/trace.json (schednav.trace/v1 or /v2) as the original engine\n"
	"writes them. DIR is created when missing.\n"
	"\n"
	"Options:\n"
	"  -f, --force    overwrite trace files already in DIR\n"
	"  -v, --verbose  report what was written on stderr\n"
	"  -h, --help     show this help\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool force = false, verbose = false;
	int ch;
	tool_init(argc, argv, usage);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "fvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f': force = true; break;
		case 'v': verbose = true; break;
		case 'h':
			printf("usage: %s", usage);
			print_help(help);
		default: {
			char msg[128];
			snprintf(msg, sizeof msg, "unknown option '%s'", argv[optind - 1]);
			usage_fail(usage, msg);
		}
		}
	}
	if (argc - optind < 1)
		usage_fail(usage, "missing DIR");
	if (argc - optind > 2)
		usage_fail(usage, "too many operands");
	const char *dir = argv[optind];
	const char *input = argc - optind == 2 ? argv[optind + 1] : "-";
	struct trace t;
	char err[1024];
	trace_init(&t);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	if (trace_export_dir(&t, dir, force, err, sizeof err))
		die("%s", err);
	if (verbose)
		fprintf(stderr, "%s: wrote %s (%zu nodes, %zu jobs, schema v%d)\n", progname, dir, t.n_nodes, t.n_jobs, t.version);
	trace_release(&t);
	return 0;
}
