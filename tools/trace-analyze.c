/* trace-analyze — the workload summary a Workload Analyst reads: one self-fingerprinted
 * `workload_summary` record for a trace window (docs/evaluation.md §9); with
 * --cutoff only the past of the cutoff. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "eval/workload.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"trace-analyze [--sample-interval SECONDS] [--eval-start S] [--eval-end E] [--cutoff T] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read one trace stream and write a schednav.workload/1 stream holding one\n"
	"workload_summary record (schema_version schednav.workload-summary/v2): per class the\n"
	"window's arrivals, requested GPUs and GPU-hours, duration, arrival and sampled-active\n"
	"statistics, the regime signals, and our class profile and regime label.\n"
	"\n"
	"  --sample-interval SECONDS  sampling interval, 60..86400 (default 3600)\n"
	"  --eval-start S             window start (default: the trace's window, else the first submit)\n"
	"  --eval-end E               window end (default: the trace's window, else the last submit)\n"
	"  --cutoff T                 read only jobs submitted by T; the window ends by T\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\nwrites: " WORKLOAD_SCHEMA "\n";

enum { OPT_INTERVAL = 256, OPT_START, OPT_END, OPT_CUTOFF };

static struct json *params_of(struct arena *a, const struct workload_opts *o)
{
	struct json *p = json_object(a);
	json_set(a, p, "sample_interval_seconds", json_int(a, o->sample_interval));
	json_set(a, p, "eval_start", o->has_start ? json_real(a, o->start) : json_null(a));
	json_set(a, p, "eval_end", o->has_end ? json_real(a, o->end) : json_null(a));
	json_set(a, p, "cutoff", o->has_cutoff ? json_real(a, o->cutoff) : json_null(a));
	return p;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sample-interval", required_argument, NULL, OPT_INTERVAL },
		{ "eval-start", required_argument, NULL, OPT_START },
		{ "eval-end", required_argument, NULL, OPT_END },
		{ "cutoff", required_argument, NULL, OPT_CUTOFF },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct workload_opts o = { .sample_interval = 3600 };
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_INTERVAL:
			o.sample_interval = opt_int("sample-interval", optarg);
			if (o.sample_interval < 60 || o.sample_interval > 86400)
				usage_fail(usage, "--sample-interval must be 60..86400 seconds");
			break;
		case OPT_START: o.has_start = true; o.start = opt_double("eval-start", optarg); break;
		case OPT_END: o.has_end = true; o.end = opt_double("eval-end", optarg); break;
		case OPT_CUTOFF: o.has_cutoff = true; o.cutoff = opt_double("cutoff", optarg); break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	const char *input = cli.inputs[0], *output = cli.output;

	char err[1024];
	struct trace t;
	struct arena a;
	trace_init(&t);
	arena_init(&a);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	struct json *rec;
	if (workload_summary(&a, &t, &o, &rec, err, sizeof err))
		die("%s: %s", t.input_name, err);
	struct json *hdr = nd_header_new(&a, WORKLOAD_SCHEMA, "trace-analyze");
	nd_header_add_stream(&a, hdr, t.input_name, t.version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1,
			     t.fingerprint);
	json_set(&a, hdr, "params", params_of(&a, &o));
	if (ndw_write_one(output, hdr, rec, err, sizeof err))
		die("%s", err);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
