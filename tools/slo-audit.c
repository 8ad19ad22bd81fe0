/* slo-audit — audit candidate metrics records against an SLO spec and a FIFO baseline:
 * one self-fingerprinted `audit` record per candidate (docs/evaluation.md §5). */
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include "eval/slo.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "slo-audit --slo SPEC [--baseline FIFO_METRICS] [--exit-status] [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read metrics streams (FILEs or stdin, concatenated streams allowed) and write one\n"
	"schednav.audit/1 stream with an `audit` record per candidate, in input order.\n"
	"\n"
	"  -s, --slo SPEC           SLO spec (schednav.slo-spec/v1 JSON)\n"
	"  -b, --baseline FILE      the FIFO baseline's metrics stream; without it relative\n"
	"                           thresholds are unavailable (so hard ones fail)\n"
	"  -e, --exit-status        exit 3 when any audit failed\n";

static const char version_schemas[] = "reads: " EV_METRICS_SCHEMA ", " SLO_SPEC_SCHEMA "\nwrites: " EV_AUDIT_SCHEMA "\n";

static const char *const metrics_only[] = { EV_METRICS_SCHEMA, NULL };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slo", required_argument, NULL, 's' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "exit-status", no_argument, NULL, 'e' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *slo_path = NULL, *base_path = NULL;
	bool exit_status = false;
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, version_schemas);
	while ((c = getopt_long(argc, argv, ":s:b:ei:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's': slo_path = optarg; break;
		case 'b': base_path = optarg; break;
		case 'e': exit_status = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	const char *output = cli.output;
	if (!slo_path)
		usage_fail(usage, "missing --slo SPEC");

	struct arena a;
	arena_init(&a);
	char err[1024];
	struct slo_spec slo;
	if (ev_slo_load(&slo, slo_path, &a, err, sizeof err))
		die("%s", err);

	struct ev_input base, cand;
	ev_input_init(&base);
	ev_input_init(&cand);
	if (base_path) {
		if (ev_read_verified(&base, base_path, metrics_only, NULL, &a, err, sizeof err))
			die("%s", err);
		if (base.n != 1)
			die("%s: the baseline must be exactly one metrics record, found %zu", base_path, base.n);
	}
	for (size_t i = 0; i < cli.ninputs; i++)
		if (ev_read_verified(&cand, cli.inputs[i], metrics_only, NULL, &a, err, sizeof err))
			die("%s", err);
	if (cand.n == 0)
		die("no metrics records in input");

	struct json *hdr = nd_header_new(&a, EV_AUDIT_SCHEMA, "slo-audit");
	if (nd_header_add_config(&a, hdr, slo_path, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i < base.nstreams; i++)
		nd_header_add_stream(&a, hdr, base.streams[i].path, base.streams[i].schema, base.streams[i].fp);
	for (size_t i = 0; i < cand.nstreams; i++)
		nd_header_add_stream(&a, hdr, cand.streams[i].path, cand.streams[i].schema, cand.streams[i].fp);
	struct json *params = json_get(hdr, "params");
	json_set(&a, params, "slo_fingerprint", json_str(&a, slo.fingerprint));
	json_set(&a, params, "baseline_metrics_fingerprint", base.n ? json_str(&a, base.items[0].stream_fp) : json_null(&a));

	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	bool any_failed = false;
	for (size_t i = 0; i < cand.n; i++) {
		struct json *rec = ev_slo_audit(&slo, &a, cand.items[i].rec, cand.items[i].stream_fp,
		                             base.n ? base.items[0].rec : NULL, base.n ? base.items[0].stream_fp : NULL);
		if (json_get(rec, "audit_passed")->kind != JSON_TRUE)
			any_failed = true;
		if (ndw_record(w, rec, err, sizeof err))
			die("%s", err);
	}
	if (ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	ev_input_release(&base);
	ev_input_release(&cand);
	ev_slo_release(&slo);
	arena_release(&a);
	cli_release(&cli);
	return exit_status && any_failed ? 3 : 0;
}
