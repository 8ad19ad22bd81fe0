/* trace-import — read a source trace (Alibaba, Philly, the original directory, any CSV)
 * and write a canonical trace stream. */
#include "core/die.h"
#include "core/ndjson.h"
#include "trace/import.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"trace-import alibaba-spot --nodes FILE --jobs FILE [--gpu-model M]... [--max-submit T] [--eval-start S --eval-end E] [--warmup-start W] [--no-warmup-spot] [-o OUT]\n"
	"trace-import alibaba-v2023 --nodes FILE --pods FILE [--phase P]... [-o OUT]\n"
	"trace-import philly --machines FILE --job-log FILE --class HP|Spot [-o OUT]\n"
	"trace-import canonical DIR [-o OUT]\n"
	"trace-import csv --map SPEC [--nodes-file FILE] [--node-subset-gpus N --seed S] FILE... [-o OUT]\n";

static const char help[] =
	"\n"
	"Read a source trace and write a canonical trace stream (schednav.trace/1 or /2):\n"
	"header, nodes sorted by node_id, jobs sorted by (submit, job_id), end.\n"
	"\n"
	"Formats:\n"
	"  alibaba-spot    Alibaba cluster-trace-v2026-spot-gpu (node_info_df.csv, job_info_df.csv)\n"
	"  alibaba-v2023   Alibaba cluster-trace-gpu-v2023 openb node and pod lists\n"
	"  philly          Microsoft Philly cluster_job_log (streamed) + cluster_machine_list\n"
	"  canonical       the original three-file directory (trace.json, nodes.csv, jobs.csv)\n"
	"  csv             any CSV with an explicit column and label mapping\n"
	"\n"
	"Common options:\n"
	"  -o, --output FILE  write to FILE (FILE.XXXXXX.tmp, then renamed; .zst compresses)\n"
	"  -h, --help         show this help\n"
	"\n"
	"See trace-import(1) for every format's options.\n";

static const struct { const char *name; import_fn *fn; } formats[] = {
	{ "alibaba-spot", trace_import_alibaba_spot },
	{ "alibaba-v2023", trace_import_alibaba_v2023 },
	{ "philly", trace_import_philly },
	{ "canonical", trace_import_canonical },
	{ "csv", trace_import_csv },
};

int main(int argc, char **argv)
{
	tool_init(argc, argv, usage);
	const char *output = "-";
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage_print(stdout, usage);
		print_help(help);
	}
	if (argc < 2)
		usage_fail(usage, "missing FORMAT");
	if (argv[1][0] == '-')
		usage_fail(usage, NULL);
	import_fn *fn = NULL;
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (!strcmp(argv[1], formats[i].name))
			fn = formats[i].fn;
	if (!fn) {
		fprintf(stderr, "%s: unknown format '%s'\n", progname, argv[1]);
		usage_fail(usage, NULL);
	}
	/* Pull the common -o/--output out of the argument list before the format parses it. */
	char **args = xcalloc((size_t)argc, sizeof *args);
	int nargs = 0;
	args[nargs++] = argv[1];
	for (int i = 2; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			output = argv[++i];
		else if (!strncmp(argv[i], "--output=", 9))
			output = argv[i] + 9;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_print(stdout, usage);
			print_help(help);
		} else
			args[nargs++] = argv[i];
	}
	struct trace t;
	struct arena a;
	char err[1024];
	trace_init(&t);
	arena_init(&a);
	struct json *hdr = nd_header_new(&a, TRACE_SCHEMA_V1, "trace-import");
	optind = 1;
	opterr = 0;
	int rc = fn(nargs, args, &t, hdr, &a, err, sizeof err);
	if (rc == IMPORT_USAGE_ERROR)
		usage_fail(usage, err);
	if (rc != 0)
		die("%s", err);
	trace_sort(&t);
	trace_assign_phases(&t);
	if (trace_validate(&t, err, sizeof err))
		die("invalid trace: %s", err);
	/* Build the final header: trace facts plus this run's inputs and params. */
	struct json *out_hdr = trace_header(&t, &a, "trace-import");
	json_set(&a, out_hdr, "inputs", json_get(hdr, "inputs"));
	json_set(&a, out_hdr, "params", json_get(hdr, "params"));
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (trace_write(&t, out_hdr, w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	free(args);
	trace_release(&t);
	arena_release(&a);
	return 0;
}
