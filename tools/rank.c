/* rank — rank 3 to 5 (up to 8 with --max-candidates) audited candidates by the SLO's declared hierarchy and write one
 * self-fingerprinted `ranking` record (docs/evaluation.md §6 "Rank"). */
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include "eval/ranking.h"
#include "eval/slo.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "rank --slo SPEC [--max-candidates N] [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read 3 to 5 (--max-candidates N) metrics records and their audit records (metrics and audit streams,\n"
	"concatenated in any order, from FILEs or stdin) and write one schednav.ranking/1\n"
	"stream holding one `ranking` record: hard-SLO filter, allocation tie band, minimum\n"
	"second metric, minimum third metric; status selected, tie_requires_human_approval or\n"
	"no_eligible_policy. A tie is settled only by a person (approve(1)).\n"
	"\n"
	"  -s, --slo SPEC      SLO spec with a 'ranking' block (schednav.slo-spec/v1)\n"
	"      --max-candidates N  accept up to N candidates, 3..8 (default 5, the original's\n"
	"                      portfolio bound; a study with more arms asks for more)\n";

static const char version_schemas[] = "reads: " EV_METRICS_SCHEMA ", " EV_AUDIT_SCHEMA ", " SLO_SPEC_SCHEMA "\nwrites: " EV_RANKING_SCHEMA "\n";

static const char *const schemas[] = { EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, NULL };

static void read_input(struct ev_input *in, const char *path, struct arena *a)
{
	char err[1024];
	/* audits are verified by ev_rank_build: an audit whose own fingerprint fails is not
	 * evidence (the candidate is out), as in the original; everything else must verify */
	if (ev_read_verified(in, path, schemas, "audit", a, err, sizeof err))
		die("%s", err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slo", required_argument, NULL, 's' },
		{ "max-candidates", required_argument, NULL, 'm' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *slo_path = NULL;
	long long max = RANK_MAX_CANDIDATES;
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, version_schemas);
	while ((c = getopt_long(argc, argv, ":s:i:o:hV", opts, NULL)) != -1) {
		if (c == 's')
			slo_path = optarg;
		else if (c == 'm') {
			max = opt_int("max-candidates", optarg);
			if (max < RANK_MIN_CANDIDATES || max > RANK_LIMIT_CANDIDATES)
				usage_error(usage, "--max-candidates: %lld is outside %d..%d", max, RANK_MIN_CANDIDATES, RANK_LIMIT_CANDIDATES);
		} else
			cli_option(&cli, c, argv);
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
	if (!slo.has_ranking)
		die("%s: the SLO spec has no 'ranking' block", slo_path);
	struct ev_input in;
	ev_input_init(&in);
	for (size_t i = 0; i < cli.ninputs; i++)
		read_input(&in, cli.inputs[i], &a);
	if (in.n == 0)
		die("no metrics or audit records in input");
	struct json *rec = ev_rank_build(&slo, &in, (size_t)max, &a, err, sizeof err);
	if (!rec)
		die("%s", err);

	struct json *hdr = nd_header_new(&a, EV_RANKING_SCHEMA, "rank");
	if (nd_header_add_config(&a, hdr, slo_path, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i < in.nstreams; i++)
		nd_header_add_stream(&a, hdr, in.streams[i].path, in.streams[i].schema, in.streams[i].fp);
	json_set(&a, json_get(hdr, "params"), "slo_fingerprint", json_str(&a, slo.fingerprint));
	if (ndw_write_one(output, hdr, rec, err, sizeof err))
		die("%s", err);
	ev_input_release(&in);
	ev_slo_release(&slo);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
