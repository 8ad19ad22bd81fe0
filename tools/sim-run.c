/* sim-run — replay a trace stream under one policy (optionally with a predictive Spot
 * controller inside the event loop) and write the result stream. */
#include "core/die.h"
#include "core/ndjson.h"
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

static const char usage[] = "sim-run --policy FILE [--controller FILE] [--input FILE] [-o OUT]\n";

static const char help[] =
	"\n"
	"Replay a trace stream through the SchedNav simulator (the original engine's\n"
	"semantics, bit for bit) under one policy and write a result stream: header,\n"
	"job_result, run, preemption and cluster records, end. With --controller the predictive\n"
	"Spot controller runs inside the event loop, gates Spot starts by its quota (unless the\n"
	"policy says predictive_admission_mode bypass) and the stream also holds one\n"
	"control_decision record per controller update and one control_report.\n"
	"\n"
	"  -p, --policy FILE      schednav.simulation-policy/v1 JSON file (required)\n"
	"  -c, --controller FILE  schednav.predictive-controller/v1 JSON file\n"
	"  -i, --input FILE       trace stream to read (default: stdin; .zst accepted)\n"
	"  -o, --output FILE      write to FILE (FILE.XXXXXX.tmp, then renamed; .zst compresses)\n"
	"  -h, --help             show this help\n";

/* The controller records after the plain ones: every decision in update order, the report. */
static int write_control(struct nd_writer *w, const struct pc_controller *pc, char *err, size_t errlen)
{
	struct strbuf sb;
	struct pc_report rep;
	int rc = 0;
	sb_init(&sb);
	for (size_t i = 0; i < pc->n_decisions && !rc; i++) {
		sb_reset(&sb);
		pc_write_decision(&sb, pc, &pc->decisions[i]);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	if (!rc) {
		pc_report(pc, &rep);
		sb_reset(&sb);
		pc_write_report(&sb, pc, &rep);
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	sb_release(&sb);
	return rc;
}

/* Simulate with the controller attached: its hooks gate and observe the session. */
static int run_controlled(const struct trace *t, const struct sim_policy *pol, const struct pc_config *cfg, struct pc_controller *pc,
			  struct sim_output *out, char *err, size_t errlen)
{
	struct pc_sim bind;
	struct sim_hooks hooks;
	long long cap = trace_capacity(t, "*");
	double es = t->has_window ? t->eval_start : t->n_jobs ? t->jobs[0].submit : 0;
	double ee = t->has_window ? t->eval_end : t->n_jobs ? t->jobs[t->n_jobs - 1].submit : 0;
	if (pc_check_guarantee(cfg, pol, err, errlen))
		return -1;
	if (t->n_jobs == 0 || t->n_nodes == 0) {
		snprintf(err, errlen, "trace has no jobs or no nodes");
		return -1;
	}
	if (pc_controller_init(pc, cfg, (double)cap, t->jobs[0].submit, true, es, ee, err, errlen))
		return -1;
	pc_sim_bind(&bind, pc, &hooks);
	struct sim *s = sim_open(t, pol, &hooks, err, errlen);
	int rc = s ? sim_finish(s, out, err, errlen) : -1;
	sim_close(s);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "controller", required_argument, NULL, 'c' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_path = NULL, *controller_path = NULL, *input = "-", *output = "-";
	int c;
	tool_init(argc, argv, usage);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:c:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': policy_path = optarg; break;
		case 'c': controller_path = optarg; break;
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
	if (!policy_path)
		usage_fail(usage, "missing --policy FILE");

	char err[2048];
	struct arena a;
	struct sim_policy pol;
	struct trace t;
	struct sim_output out;
	struct pc_config cfg;
	struct pc_controller pc;
	arena_init(&a);
	trace_init(&t);
	if (policy_load(&pol, policy_path, &a, err, sizeof err))
		die("%s", err);
	if (controller_path && pc_config_load(&cfg, controller_path, &a, err, sizeof err))
		die("%s", err);
	if (controller_path && pc_check_guarantee(&cfg, &pol, err, sizeof err))
		die("%s", err);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	if (controller_path ? run_controlled(&t, &pol, &cfg, &pc, &out, err, sizeof err) : sim_run(&t, &pol, &out, err, sizeof err))
		die("%s", err);
	struct json *hdr = result_header(&a, &t, &pol, &out);
	if (controller_path) {
		json_set(&a, hdr, "controller", json_clone(&a, cfg.canonical));
		json_set(&a, hdr, "controller_fingerprint", json_str(&a, cfg.fingerprint));
	}
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (result_write_records(w, hdr, &t, &out, err, sizeof err) || (controller_path && write_control(w, &pc, err, sizeof err)) ||
	    ndw_end(w, NULL, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	if (controller_path)
		pc_controller_release(&pc);
	sim_output_release(&out);
	trace_release(&t);
	arena_release(&a);
	return 0;
}
