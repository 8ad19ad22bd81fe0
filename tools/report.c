/* report — render the streams of an evaluation (results, metrics, audits, ranking,
 * approvals, study records) as one self-contained HTML page with inline SVG charts. */
#include "core/cli.h"
#include "core/die.h"
#include "core/zio.h"
#include "report/report.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"report [-o OUT] [--title TEXT] [--date TEXT] [--bins N] [--approvals LOG] [--approve-program PROG] [--gnuplot PROG] [FILE...]\n";

static const char help[] =
	"\n"
	"Read result, metrics, audit, ranking, approval, study and pool saturation streams (any\n"
	"order, any mix, concatenated or in separate files; FILE '-' or none = stdin; .zst\n"
	"accepted) and write one self-contained HTML page: the decision, a policy table, the SLO\n"
	"matrix, the ranking stages, allocation / queue / preemption time series, a window x arm\n"
	"study grid and the pools' saturation.\n"
	"Charts are drawn by gnuplot and embedded as inline SVG; the page loads nothing else.\n"
	"\n"
	"Options:\n"
	"  -t, --title TEXT     page title (default 'SchedNav policy report')\n"
	"      --date TEXT      print TEXT as the report date (no date unless given)\n"
	"      --bins N         time bins of the time-series charts (default 240)\n"
	"      --approvals LOG  approval log of approve(1): show approvals of the ranking and\n"
	"                       name LOG in the approve command (a missing LOG holds none)\n"
	"      --approve-program PROG  how the page spells the approve command (default 'approve')\n"
	"      --gnuplot PROG   gnuplot program to run (default 'gnuplot')\n";

static const char schemas[] = "reads: schednav.result/1, schednav.metrics/1, schednav.audit/1, schednav.ranking/1,\n"
			      "       schednav.aggregate/1, schednav.selection/1, approval log lines\n"
			      "writes: one HTML page (not a stream)\n";

int main(int argc, char **argv)
{
	struct rp_html_opts o = { .title = "SchedNav policy report", .gnuplot = "gnuplot", .bins = 240 };
	const char *approvals = NULL, *approve_program = NULL;
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "date", required_argument, NULL, 'D' },
		{ "bins", required_argument, NULL, 'b' },
		{ "gnuplot", required_argument, NULL, 'g' },
		{ "approvals", required_argument, NULL, 'A' },
		{ "approve-program", required_argument, NULL, 'P' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":t:i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o.title = optarg; break;
		case 'D': o.date = optarg; break;
		case 'g': o.gnuplot = optarg; break;
		case 'A': approvals = optarg; break;
		case 'P': approve_program = optarg; break;
		case 'b': {
			long long n = opt_int("bins", optarg);
			if (n < 2 || n > 100000)
				usage_error(usage, "--bins: must be between 2 and 100000");
			o.bins = (size_t)n;
			break;
		}
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	const char *output = cli.output;
	char err[1024];
	struct rp_model m;
	if (rp_model_load(&m, cli.inputs, cli.ninputs, approvals, approve_program, err, sizeof err))
		die("%s", err);
	if (m.npolicies == 0 && m.nrankings == 0 && m.nstudy == 0)
		die("nothing to report: no result, metrics, audit, ranking or study records in the input");

	struct strbuf page;
	sb_init(&page);
	if (rp_html_render(&page, &m, &o, err, sizeof err))
		die("%s", err);
	struct zio_writer *w = zw_open(output, false, err, sizeof err);
	if (!w || zw_write(w, page.buf, page.len, err, sizeof err) || zw_commit(w, err, sizeof err))
		die("%s", err);
	sb_release(&page);
	rp_model_release(&m);
	cli_release(&cli);
	return 0;
}
