/* decision-table — print the policy decision as a readable table: one row per policy
 * (allocation, HP and Spot p95 JCT, eviction rate, SLO verdict, ranking outcome), the
 * constraints not met, the decision and what a person must do to approve it. */
#include "core/die.h"
#include "report/report.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "decision-table [--approvals LOG] [--approve-program PROG] [FILE...]\n";

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
	"      --approve-program PROG  how to spell the approve command (default 'approve')\n"
	"  -h, --help                  show this help\n";

int main(int argc, char **argv)
{
	tool_init(argc, argv, usage);
	static const struct option longopts[] = {
		{ "approvals", required_argument, NULL, 'A' },
		{ "approve-program", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *approvals = NULL, *approve_program = NULL;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'A': approvals = optarg; break;
		case 'P': approve_program = optarg; break;
		case 'h':
			usage_print(stdout, usage);
			print_help(help);
		default:
			usage_fail(usage, "unknown option or missing argument");
		}
	}
	char err[1024];
	struct rp_model m;
	rp_model_init(&m);
	if (optind == argc && rp_model_read(&m, "-", err, sizeof err))
		die("%s", err);
	for (int i = optind; i < argc; i++)
		if (rp_model_read(&m, argv[i], err, sizeof err))
			die("%s", err);
	if (m.ninputs == 0)
		die("no streams in the input");
	if (approvals && rp_model_read_approvals(&m, approvals, err, sizeof err))
		die("%s", err);
	m.approvals_log = approvals;
	m.approve_program = approve_program;
	if (rp_model_finish(&m, err, sizeof err))
		die("%s", err);
	if (m.nmetrics == 0)
		die("no metrics records in the input");
	struct strbuf sb;
	sb_init(&sb);
	rp_table_write(&sb, &m);
	fwrite(sb.buf, 1, sb.len, stdout);
	sb_release(&sb);
	rp_model_release(&m);
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0)
		die("cannot write the table to stdout");
	return 0;
}
