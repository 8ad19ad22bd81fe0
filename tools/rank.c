/* rank — rank 3 to 5 audited candidates by the SLO's declared hierarchy and write one
 * self-fingerprinted `ranking` record (evaluation.md §6 "Rank"). */
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

static const char usage[] = "rank --slo SPEC [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read 3 to 5 metrics records and their audit records (metrics and audit streams,\n"
	"concatenated in any order, from FILEs or stdin) and write one schednav.ranking/1\n"
	"stream holding one `ranking` record: hard-SLO filter, allocation tie band, minimum\n"
	"second metric, minimum third metric; status selected, tie_requires_human_approval or\n"
	"no_eligible_policy. A tie is settled only by a person (approve(1)).\n"
	"\n"
	"  -s, --slo SPEC      SLO spec with a 'ranking' block (schednav.slo-spec/v1)\n"
	"  -o, --output FILE   write to FILE (FILE.XXXXXX.tmp, then renamed; .zst compresses)\n"
	"  -h, --help          show this help\n";

static const char *const schemas[] = { EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, NULL };

static void read_input(struct ev_input *in, const char *path, struct arena *a)
{
	char err[1024];
	size_t first = in->n;
	if (ev_read(in, path, schemas, a, err, sizeof err))
		die("%s", err);
	/* audits are verified by rank_build: an audit whose own fingerprint fails is not
	 * evidence (the candidate is out), as in the original; everything else must verify */
	for (size_t i = first; i < in->n; i++)
		if (strcmp(in->items[i].type, "audit") && ev_verify(in->items[i].rec, err, sizeof err))
			die("%s: %s", ev_where(&in->items[i]), err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slo", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	tool_init(argc, argv, usage);
	const char *slo_path = NULL, *output = "-";
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': slo_path = optarg; break;
		case 'o': output = optarg; break;
		case 'h': usage_print(stdout, usage); print_help(help);
		default: usage_fail(usage, "unknown option or missing argument");
		}
	}
	if (!slo_path)
		usage_fail(usage, "missing --slo SPEC");
	struct arena a;
	arena_init(&a);
	char err[1024];
	struct slo_spec slo;
	if (slo_load(&slo, slo_path, &a, err, sizeof err))
		die("%s", err);
	if (!slo.has_ranking)
		die("%s: the SLO spec has no 'ranking' block", slo_path);
	struct ev_input in;
	ev_input_init(&in);
	if (optind == argc)
		read_input(&in, "-", &a);
	for (int i = optind; i < argc; i++)
		read_input(&in, argv[i], &a);
	if (in.n == 0)
		die("no metrics or audit records in input");
	struct json *rec = rank_build(&slo, &in, &a, err, sizeof err);
	if (!rec)
		die("%s", err);

	struct json *hdr = nd_header_new(&a, EV_RANKING_SCHEMA, "rank");
	char *raw;
	size_t rawlen;
	char fp[33];
	if (zio_slurp(slo_path, &raw, &rawlen, err, sizeof err))
		die("%s", err);
	fp_xxh3_of(raw, rawlen, fp);
	free(raw);
	nd_header_add_file(&a, hdr, slo_path, rawlen, fp, NULL);
	for (size_t i = 0; i < in.nstreams; i++)
		nd_header_add_stream(&a, hdr, in.streams[i].path, in.streams[i].schema, in.streams[i].fp);
	json_set(&a, json_get(hdr, "params"), "slo_fingerprint", json_str(&a, slo.fingerprint));
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (ndw_header(w, hdr, err, sizeof err) || ndw_record(w, rec, err, sizeof err) ||
	    ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	ev_input_release(&in);
	slo_release(&slo);
	arena_release(&a);
	return 0;
}
