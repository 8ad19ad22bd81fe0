/* decision-table — print the policy decision as a readable table: one row per policy
 * (allocation, HP and Spot p95 JCT, eviction rate, SLO verdict, ranking outcome), the
 * constraints not met, the decision and what a person must do to approve it. */
#include "core/cli.h"
#include "core/die.h"
#include "core/zio.h"
#include "report/report.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "decision-table [--approvals LOG] [--approve-program PROG] [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read metrics, audit, ranking and approval streams (any order; FILE '-' or none =\n"
	"stdin; .zst accepted) and print a plain-text table for people, not a stream:\n"
	"policy, allocation, HP p95 JCT, Spot p95 JCT, evictions per Spot run, preemptions,\n"
	"SLO verdict and ranking outcome; then every SLO constraint not met, the decision, and\n"
	"the approval status with the exact 'approve' command to run when a person must decide.\n"
	"\n"
	"Options:\n"
	"      --approvals LOG         approval log of approve(1): report an approval of this\n"
	"                              ranking, and name LOG in the approve command (a LOG that\n"
	"                              does not exist yet holds no approvals)\n"
	"      --approve-program PROG  how to spell the approve command (default 'approve')\n";

static const char schemas[] = "reads: schednav.metrics/1, schednav.audit/1, schednav.ranking/1, approval log lines\n"
			      "writes: a plain-text table (not a stream)\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "approvals", required_argument, NULL, 'A' },
		{ "approve-program", required_argument, NULL, 'P' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *approvals = NULL, *approve_program = NULL;
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'A': approvals = optarg; break;
		case 'P': approve_program = optarg; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	char err[1024];
	struct rp_model m;
	if (rp_model_load(&m, cli.inputs, cli.ninputs, approvals, approve_program, err, sizeof err))
		die("%s", err);
	if (m.nmetrics == 0)
		die("no metrics records in the input");
	struct strbuf sb;
	sb_init(&sb);
	rp_table_write(&sb, &m);
	struct zio_writer *w = zw_open(cli.output, false, err, sizeof err);
	if (!w || zw_write(w, sb.buf, sb.len, err, sizeof err) || zw_commit(w, err, sizeof err))
		die("%s", err);
	sb_release(&sb);
	rp_model_release(&m);
	cli_release(&cli);
	return 0;
}
