/* sim-run — replay a trace stream under one policy (optionally with a predictive Spot
 * controller inside the event loop) and write the result stream. */
#include "core/cli.h"
#include "core/die.h"
#include "core/num.h"
#include "core/ndjson.h"
#include "core/progress.h"
#include "core/strbuf.h"
#include "predict/predict.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/result.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "sim-run --policy FILE [--placement S [--placement-seed N]] [--controller FILE] [--progress | --no-progress] [-o OUT] [FILE]\n";

static const char help_head[] =
	"\n"
	"Replay a trace stream through the SchedNav simulator (the original engine's\n"
	"semantics, bit for bit) under one policy and write a result stream: header,\n"
	"job_result, run, preemption and cluster records, end. With --controller the predictive\n"
	"Spot controller runs inside the event loop, gates Spot starts by its quota (unless the\n"
	"policy says predictive_admission_mode bypass) and the stream also holds one\n"
	"control_decision record per controller update and one control_report.\n"
	"\n"
	"  -p, --policy FILE      schednav.simulation-policy/v1 JSON file (required)\n"
	"      --placement S      the policy's placement_strategy replaced by S: deterministic_best_fit\n"
	"                         (the pool model) or a physical one (largest-free, random,\n"
	"                         dot-product, gpu-clustering, gpu-packing, best-fit, fgd)\n"
	"      --placement-seed N the policy's placement_seed replaced by N (with --placement)\n"
	/* the --controller lines: pc_families_help */
	;

static const char help_tail[] =
	"      --progress         print the jobs arrived so far on stderr even when it is not a\n"
	"                         terminal (default: on a terminal, after the first second)\n"
	"      --no-progress      never print progress\n";

/* The help and the schemas line: the controller families' part from their table. */
static void cli_texts(struct strbuf *help, struct strbuf *schemas)
{
	sb_init(help);
	sb_adds(help, help_head);
	pc_families_help(help, "-c, --controller FILE", "");
	sb_adds(help, help_tail);
	sb_init(schemas);
	sb_adds(schemas, "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 ", " POLICY_SCHEMA ", ");
	pc_families_reads(schemas);
	sb_adds(schemas, "\nwrites: " RESULT_SCHEMA "\n");
}

/* Run the session to the end, an hour of simulated time at a time, so that progress can be
 * shown: sim_advance takes exactly the steps sim_finish would, so the bytes are the same. */
static int run_session(struct sim *s, struct progress *pr, struct sim_output *out, char *err, size_t errlen)
{
	while (!sim_done(s)) {
		if (sim_advance(s, sim_now(s) + 3600, err, errlen))
			return -1;
		progress_update(pr, (long long)sim_admitted(s));
	}
	int rc = sim_finish(s, out, err, errlen);
	if (!rc)
		progress_finish(pr);
	return rc;
}

/* Simulate with the controller attached: its hooks gate and observe the session. */
static int run_controlled(const struct trace *t, const struct sim_policy *pol, const struct pc_config *cfg, struct pc_controller *pc,
			  struct pc_records *rec, struct progress *pr, struct sim_output *out, char *err, size_t errlen)
{
	struct pc_sim bind;
	struct sim_hooks hooks;
	if (pc_check_guarantee(cfg, pol, err, errlen) || pc_controller_open(pc, cfg, t, err, errlen))
		return -1;
	/* every decision is written as it is made, into a temporary file until the plain records are out */
	if (pc_records_open(rec, pc, "the control decisions", err, errlen))
		return -1;
	pc_sim_bind(&bind, pc, &hooks);
	struct sim *s = sim_open(t, pol, &hooks, err, errlen);
	int rc = s ? run_session(s, pr, out, err, errlen) : -1;
	sim_close(s);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "placement", required_argument, NULL, 'P' },
		{ "placement-seed", required_argument, NULL, 'S' },
		{ "controller", required_argument, NULL, 'c' },
		PROGRESS_OPTIONS,
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_path = NULL, *controller_path = NULL, *placement = NULL;
	long long placement_seed = -1;
	enum progress_mode progress_mode = PROGRESS_AUTO;
	struct cli cli;
	static struct strbuf help, schemas;   /* static: alive to the end (cli keeps the pointers) */
	int c;
	cli_texts(&help, &schemas);
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help.buf, schemas.buf);
	while ((c = getopt_long(argc, argv, ":p:c:i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': policy_path = optarg; break;
		case 'c': controller_path = optarg; break;
		case 'P': placement = optarg; break;
		case 'S':
			if (num_parse_int(optarg, &placement_seed) || placement_seed < 0 || placement_seed > POLICY_MAX_SECONDS)
				usage_fail(usage, "--placement-seed wants a whole number in 0..10^12");
			break;
		case PROGRESS_OPT_ON: progress_mode = PROGRESS_ON; break;
		case PROGRESS_OPT_OFF: progress_mode = PROGRESS_OFF; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	if (!policy_path)
		usage_fail(usage, "missing --policy FILE");
	const char *input = cli.inputs[0], *output = cli.output;

	char err[2048];
	struct arena a;
	struct sim_policy pol;
	struct trace t;
	struct sim_output out;
	struct pc_config cfg;
	struct pc_controller pc;
	struct pc_records rec = { 0 };
	arena_init(&a);
	trace_init(&t);
	if (placement_seed >= 0 && !placement)
		usage_fail(usage, "--placement-seed needs --placement");
	if (policy_load_placement(&pol, policy_path, placement, placement_seed, &a, err, sizeof err))
		die("%s", err);
	if (controller_path && pc_config_load(&cfg, controller_path, &a, err, sizeof err))
		die("%s", err);
	if (controller_path && pc_check_guarantee(&cfg, &pol, err, sizeof err))
		die("%s", err);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	struct progress pr;
	progress_init(&pr, progress_mode, "jobs arrived", (long long)t.n_jobs);
	if (controller_path) {
		if (run_controlled(&t, &pol, &cfg, &pc, &rec, &pr, &out, err, sizeof err))
			die("%s", err);
	} else {
		struct sim *s = sim_open(&t, &pol, NULL, err, sizeof err);
		if (!s || run_session(s, &pr, &out, err, sizeof err))
			die("%s", err);
		sim_close(s);
	}
	struct json *hdr = result_header(&a, &t, &pol, &out);
	if (controller_path) {
		json_set(&a, hdr, "controller", json_clone(&a, cfg.canonical));
		json_set(&a, hdr, "controller_fingerprint", json_str(&a, cfg.fingerprint));
	}
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (result_write_records(w, hdr, &t, &out, err, sizeof err) || (controller_path && pc_controller_write_records(&pc, &rec, w, err, sizeof err)) ||
	    ndw_end(w, NULL, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	if (controller_path)
		pc_controller_release(&pc);
	pc_records_release(&rec);
	sim_output_release(&out);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
