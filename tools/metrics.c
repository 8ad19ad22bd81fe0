/* metrics — compute the flat metrics record from a result stream. */
#include "core/die.h"
#include "core/ndjson.h"
#include "eval/metrics.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "metrics [--input FILE] [-o OUT]\n";

static const char help[] =
	"\n"
	"Read one result stream (from sim-run), verify it, and write a metrics stream with\n"
	"one metrics record: the effective policy, provenance, the 37 catalogue metrics,\n"
	"extras and the three ledger-consistency flags.\n"
	"\n"
	"  -i, --input FILE   result stream to read (default: stdin; .zst accepted)\n"
	"  -o, --output FILE  write to FILE (FILE.XXXXXX.tmp, then renamed; .zst compresses)\n"
	"  -h, --help         show this help\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "-", *output = "-";
	int c;
	tool_init(argc, argv, usage);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:h", longopts, NULL)) != -1) {
		switch (c) {
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

	char err[1024];
	struct metrics_result m;
	struct arena a;
	arena_init(&a);
	struct nd_reader *r = ndr_open(input, err, sizeof err);
	if (!r)
		die("%s", err);
	if (metrics_read(&m, r, err, sizeof err))
		die("%s", err);
	ndr_close(r);
	struct json *hdr = nd_header_new(&a, METRICS_SCHEMA, "metrics");
	nd_header_add_stream(&a, hdr, strcmp(input, "-") ? input : "<stdin>", "schednav.result/1", m.fingerprint);
	struct json *rec = metrics_record(&a, &m);
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (ndw_header(w, hdr, err, sizeof err) || ndw_record(w, rec, err, sizeof err) || ndw_end(w, NULL, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	metrics_result_release(&m);
	arena_release(&a);
	return 0;
}
