/* trace-analyze — the workload summary a Workload Analyst reads: one self-fingerprinted
 * `workload_summary` record for a trace window (docs/evaluation.md §9); with
 * --cutoff only the past of the cutoff. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "eval/saturation.h"
#include "eval/workload.h"
#include "trace/trace.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"trace-analyze [--sample-interval SECONDS] [--eval-start S] [--eval-end E] [--cutoff T]\n"
	"              [--saturation] [--capacity MODEL=GPUS]... [-o OUT] [FILE]\n";

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
	"  --cutoff T                 read only jobs submitted by T; the window ends by T\n"
	"  --saturation               also one pool_saturation record per GPU model: hourly demand\n"
	"                             over capacity across the window, and whether it saturates\n"
	"  --capacity MODEL=GPUS      the pool's capacity instead of its nodes' GPUs (implies\n"
	"                             --saturation; recorded in the records and the params)\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\nwrites: " WORKLOAD_SCHEMA "\n";

enum { OPT_INTERVAL = 256, OPT_START, OPT_END, OPT_CUTOFF, OPT_SATURATION, OPT_CAPACITY };

#define MAX_CAPACITIES 64

static struct json *params_of(struct arena *a, const struct workload_opts *o)
{
	struct json *p = json_object(a);
	json_set(a, p, "sample_interval_seconds", json_int(a, o->sample_interval));
	json_set(a, p, "eval_start", o->has_start ? json_real(a, o->start) : json_null(a));
	json_set(a, p, "eval_end", o->has_end ? json_real(a, o->end) : json_null(a));
	json_set(a, p, "cutoff", o->has_cutoff ? json_real(a, o->cutoff) : json_null(a));
	return p;
}

/* The hours [h0, h1) --saturation looks at: the given bounds, else the trace's window, else
 * its submits. */
static void window_hours(const struct trace *t, const struct workload_opts *o, long long *h0, long long *h1)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < t->n_jobs; i++) {
		lo = t->jobs[i].submit < lo ? t->jobs[i].submit : lo;
		hi = t->jobs[i].submit > hi ? t->jobs[i].submit : hi;
	}
	double s0 = o->has_start ? o->start : t->has_window ? t->eval_start : lo, s1 = o->has_end ? o->end : t->has_window ? t->eval_end : hi;
	*h0 = isfinite(s0) ? (long long)floor(s0 / 3600) : 0;
	*h1 = isfinite(s1) ? (long long)floor(s1 / 3600) + 1 : 0;
}

/* The workload record, then one pool_saturation record per model; nothing at output on failure. */
static void write_saturation(const char *output, struct json *hdr, struct json *rec, struct json **sat, size_t n_sat)
{
	char err[1024];
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	int rc = !w || ndw_header(w, hdr, err, sizeof err) || ndw_record(w, rec, err, sizeof err);
	for (size_t k = 0; k < n_sat && !rc; k++)
		rc = ndw_record(w, sat[k], err, sizeof err);
	if (!rc)
		rc = ndw_end(w, NULL, err, sizeof err);
	if (rc) {
		if (w)
			ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sample-interval", required_argument, NULL, OPT_INTERVAL },
		{ "eval-start", required_argument, NULL, OPT_START },
		{ "eval-end", required_argument, NULL, OPT_END },
		{ "cutoff", required_argument, NULL, OPT_CUTOFF },
		{ "saturation", no_argument, NULL, OPT_SATURATION },
		{ "capacity", required_argument, NULL, OPT_CAPACITY },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct workload_opts o = { .sample_interval = 3600 };
	struct saturation_capacity caps[MAX_CAPACITIES];
	size_t n_caps = 0;
	bool saturation = false;
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
		case OPT_SATURATION: saturation = true; break;
		case OPT_CAPACITY: {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || n_caps == MAX_CAPACITIES)
				usage_fail(usage, "--capacity wants MODEL=GPUS (at most 64 of them)");
			*eq = 0;
			caps[n_caps].model = optarg;
			caps[n_caps++].gpus = opt_int("capacity", eq + 1);
			if (caps[n_caps - 1].gpus < 1 || caps[n_caps - 1].gpus > 100000000)
				usage_fail(usage, "--capacity GPUS must be 1..100000000");
			saturation = true;
			break;
		}
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	if (saturation && o.has_cutoff)
		usage_fail(usage, "--saturation reads whole jobs: not with --cutoff");
	const char *input = cli.inputs[0], *output = cli.output;

	char err[1024];
	struct trace t;
	struct arena a;
	trace_init(&t);
	arena_init(&a);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	struct json *rec;
	if (ev_workload_summary(&a, &t, &o, &rec, err, sizeof err))
		die("%s: %s", t.input_name, err);
	struct json *hdr = nd_header_new(&a, WORKLOAD_SCHEMA, "trace-analyze");
	nd_header_add_stream(&a, hdr, t.input_name, t.version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1,
			     t.fingerprint);
	struct json *params = params_of(&a, &o), **sat = NULL;
	size_t n_sat = 0;
	if (saturation) {
		long long h0, h1;
		window_hours(&t, &o, &h0, &h1);
		if (ev_saturation_records(&a, &t, h0, h1, caps, n_caps, &sat, &n_sat, err, sizeof err))
			die("%s: %s", t.input_name, err);
		struct json *pc = json_object(&a);
		for (size_t k = 0; k < n_caps; k++)
			json_set(&a, pc, caps[k].model, json_int(&a, caps[k].gpus));
		json_set(&a, params, "saturation", json_bool(&a, true));
		json_set(&a, params, "capacity", pc);
	}
	json_set(&a, hdr, "params", params);
	if (!saturation) {
		if (ndw_write_one(output, hdr, rec, err, sizeof err))
			die("%s", err);
	} else
		write_saturation(output, hdr, rec, sat, n_sat);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
