/* trace-import — read a source trace (Alibaba, Philly, the original directory, any CSV, Slurm)
 * and write a canonical trace stream. This file owns the command line: each format's
 * options are parsed and checked here into its struct import_*_opts (lib/trace/import.h). */
#include "core/cli.h"
#include "core/text.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/progress.h"
#include "core/num.h"
#include "core/zio.h"
#include "trace/import.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The usage (one SYNOPSIS line per format) and the help, made from the formats table in main. */
static char usage[2048], help[4096];

static const char help_head[] =
	"\n"
	"Read a source trace and write a canonical trace stream (schednav.trace/1 or /2):\n"
	"header, nodes sorted by node_id, jobs sorted by (submit, job_id), end.\n"
	"\n"
	"Formats:\n";
static const char help_tail[] =
	"\n"
	"alibaba-v2023, alibaba-spot and slurm:\n"
	"  --resources        also write the CPU, memory, workers, GPU share and GPU spec of\n"
	"                     the nodes and jobs, as far as the source has them (issue 36)\n"
	"\n"
	"Every format:\n"
	"  --trace-id ID      the trace's trace_id instead of the format's own (alibaba-spot-gpu,\n"
	"                     alibaba-gpu-v2023, philly, slurm, the manifest's, the mapping's)\n"
	"  --progress         say on stderr when reading and writing end, even when it is not\n"
	"                     a terminal (default: on a terminal, for steps of a second or more)\n"
	"  --no-progress      never print progress\n"
	"\n"
	"See trace-import(1) for every format's options.\n";

static const char schemas[] = "reads: source files (CSV, the Philly JSON job log, sacct -P and scontrol show node -o output, the original trace directory " "schednav.trace/v1, /v2)\n"
			      "writes: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\n";

enum {
	OPT_TRACE_ID = 256, OPT_NODES, OPT_JOBS, OPT_GPU_MODEL, OPT_MAX_SUBMIT, OPT_EVAL_START, OPT_EVAL_END,
	OPT_WARMUP_START, OPT_NO_WARMUP_SPOT, OPT_PODS, OPT_PHASE, OPT_MACHINES, OPT_JOB_LOG, OPT_CLASS,
	OPT_MAP, OPT_NODES_FILE, OPT_SUBSET, OPT_SEED, OPT_TENANT_FROM, OPT_HASH_KEY,
	OPT_GPUS_PER_PROC, OPT_PROCS_PER_GPU, OPT_GPUS_PER_NODE, OPT_NODE_COUNT, OPT_HETJOB, OPT_RESOURCES,
};

#define COMMON_OPTIONS { "trace-id", required_argument, NULL, OPT_TRACE_ID }, PROGRESS_OPTIONS, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 }

static const struct option spot_options[] = {
	{ "nodes", required_argument, NULL, OPT_NODES }, { "jobs", required_argument, NULL, OPT_JOBS },
	{ "gpu-model", required_argument, NULL, OPT_GPU_MODEL }, { "max-submit", required_argument, NULL, OPT_MAX_SUBMIT },
	{ "eval-start", required_argument, NULL, OPT_EVAL_START }, { "eval-end", required_argument, NULL, OPT_EVAL_END },
	{ "warmup-start", required_argument, NULL, OPT_WARMUP_START }, { "no-warmup-spot", no_argument, NULL, OPT_NO_WARMUP_SPOT },
	{ "resources", no_argument, NULL, OPT_RESOURCES },
	COMMON_OPTIONS,
};
static const struct option v2023_options[] = {
	{ "nodes", required_argument, NULL, OPT_NODES }, { "pods", required_argument, NULL, OPT_PODS },
	{ "phase", required_argument, NULL, OPT_PHASE }, { "resources", no_argument, NULL, OPT_RESOURCES },
	COMMON_OPTIONS,
};
static const struct option philly_options[] = {
	{ "machines", required_argument, NULL, OPT_MACHINES }, { "job-log", required_argument, NULL, OPT_JOB_LOG },
	{ "class", required_argument, NULL, OPT_CLASS },
	COMMON_OPTIONS,
};
static const struct option canonical_options[] = { CLI_OPTION_INPUT, COMMON_OPTIONS };
static const struct option csv_options[] = {
	{ "map", required_argument, NULL, OPT_MAP }, { "nodes-file", required_argument, NULL, OPT_NODES_FILE },
	{ "node-subset-gpus", required_argument, NULL, OPT_SUBSET }, { "seed", required_argument, NULL, OPT_SEED },
	CLI_OPTION_INPUT, COMMON_OPTIONS,
};

static const struct option slurm_options[] = {
	{ "jobs", required_argument, NULL, OPT_JOBS }, { "nodes", required_argument, NULL, OPT_NODES },
	{ "class", required_argument, NULL, OPT_CLASS }, { "tenant-from", required_argument, NULL, OPT_TENANT_FROM },
	{ "hash-key", required_argument, NULL, OPT_HASH_KEY }, { "hetjob", required_argument, NULL, OPT_HETJOB },
	{ "resources", no_argument, NULL, OPT_RESOURCES },
	COMMON_OPTIONS,
};

static const struct option swf_options[] = {
	{ "jobs", required_argument, NULL, OPT_JOBS }, { "gpus-per-proc", required_argument, NULL, OPT_GPUS_PER_PROC },
	{ "procs-per-gpu", required_argument, NULL, OPT_PROCS_PER_GPU }, { "gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE },
	{ "node-count", required_argument, NULL, OPT_NODE_COUNT }, { "gpu-model", required_argument, NULL, OPT_GPU_MODEL },
	{ "class", required_argument, NULL, OPT_CLASS }, { "tenant-from", required_argument, NULL, OPT_TENANT_FROM },
	COMMON_OPTIONS,
};

/* What every format shares: the cli state and --trace-id. */
struct run {
	struct cli cli;
	const char *trace_id;
	enum progress_mode progress;
};

/* getopt_long over argv[1..] (argv[0] is the format) with one format's table; every value
 * that is not the format's own goes through the common options. Returns the next value
 * for the format, or -1 at the end. */
static int next_option(struct run *r, int argc, char **argv, const struct option *table)
{
	int c;
	while ((c = getopt_long(argc, argv, (r->cli.flags & CLI_INPUT) ? ":o:i:hV" : ":o:hV", table, NULL)) != -1) {
		if (c == PROGRESS_OPT_ON || c == PROGRESS_OPT_OFF) {
			r->progress = c == PROGRESS_OPT_ON ? PROGRESS_ON : PROGRESS_OFF;
			continue;
		}
		if (c >= OPT_NODES)
			return c;
		if (c == OPT_TRACE_ID) {
			if (!*optarg)
				usage_error(usage, "--trace-id: empty id");
			if (text_id_problem(optarg, strlen(optarg)))
				usage_error(usage, "--trace-id: the id %s", text_id_problem(optarg, strlen(optarg)));
			r->trace_id = optarg;
		} else
			cli_option(&r->cli, c, argv);
	}
	return -1;
}

static double number(const char *option, const char *s)
{
	double v;
	if (num_parse_double(s, &v))
		usage_error(usage, "--%s: invalid number '%s'", option, s);
	return v;
}

static long long integer_at_least(const char *option, const char *s, long long min, const char *what)
{
	long long v;
	if (num_parse_int(s, &v) || v < min)
		usage_error(usage, "--%s: invalid %s '%s'", option, what, s);
	return v;
}

static void not_both_stdin(const char *a, const char *b)
{
	if (a && b && !strcmp(a, "-") && !strcmp(b, "-"))
		usage_error(usage, "only one input can be standard input");
}

static int import_spot(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_alibaba_spot_opts o = { .include_warmup_spot = true };
	const char **models = xcalloc((size_t)argc, sizeof *models);
	bool has_start = false, has_end = false;
	int c;
	while ((c = next_option(r, argc, argv, spot_options)) != -1) {
		switch (c) {
		case OPT_NODES: o.nodes = optarg; break;
		case OPT_JOBS: o.jobs = optarg; break;
		case OPT_GPU_MODEL: models[o.n_gpu_models++] = optarg; break;
		case OPT_MAX_SUBMIT: o.has_max_submit = true; o.max_submit = number("max-submit", optarg); break;
		case OPT_EVAL_START: has_start = true; o.eval_start = number("eval-start", optarg); break;
		case OPT_EVAL_END: has_end = true; o.eval_end = number("eval-end", optarg); break;
		case OPT_WARMUP_START: o.has_warmup = true; o.warmup_start = number("warmup-start", optarg); break;
		case OPT_NO_WARMUP_SPOT: o.include_warmup_spot = false; break;
		case OPT_RESOURCES: o.resources = true; break;
		}
	}
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.nodes || !o.jobs)
		usage_error(usage, "alibaba-spot needs --nodes and --jobs");
	not_both_stdin(o.nodes, o.jobs);
	if (has_start != has_end)
		usage_error(usage, "--eval-start and --eval-end go together");
	o.has_window = has_start;
	if (o.has_window && !(o.eval_start >= 0 && o.eval_start < o.eval_end))
		usage_error(usage, "the evaluation window needs 0 <= start < end");
	if (o.has_window && o.has_max_submit && o.max_submit != o.eval_end)
		usage_error(usage, "--max-submit must equal --eval-end when a window is given");
	if (o.has_warmup && !(o.has_window && o.warmup_start >= 0 && o.warmup_start <= o.eval_start))
		usage_error(usage, "--warmup-start needs a window and 0 <= warmup-start <= eval-start");
	if (!o.include_warmup_spot && !o.has_window)
		usage_error(usage, "--no-warmup-spot needs --eval-start and --eval-end");
	o.gpu_models = models;
	int rc = trace_import_alibaba_spot(&o, t, hdr, a, err, errlen);
	free(models);
	return rc;
}

static int import_v2023(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_alibaba_v2023_opts o = { 0 };
	bool any_phase = false;
	int c;
	while ((c = next_option(r, argc, argv, v2023_options)) != -1) {
		switch (c) {
		case OPT_NODES: o.nodes = optarg; break;
		case OPT_PODS: o.pods = optarg; break;
		case OPT_RESOURCES: o.resources = true; break;
		case OPT_PHASE: {
			int i = 0;
			while (i < IMPORT_V2023_NPHASES && strcmp(optarg, IMP_V2023_PHASES[i]))
				i++;
			if (i == IMPORT_V2023_NPHASES)
				usage_error(usage, "--phase: unknown pod phase '%s' (Running, Failed or Succeeded)", optarg);
			o.phases[i] = any_phase = true;
			break;
		}
		}
	}
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.nodes || !o.pods)
		usage_error(usage, "alibaba-v2023 needs --nodes and --pods");
	not_both_stdin(o.nodes, o.pods);
	for (int i = 0; !any_phase && i < IMPORT_V2023_NPHASES; i++)
		o.phases[i] = true;
	return trace_import_alibaba_v2023(&o, t, hdr, a, err, errlen);
}

static int import_philly(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_philly_opts o = { 0 };
	const char *cls = NULL;
	int c;
	while ((c = next_option(r, argc, argv, philly_options)) != -1) {
		switch (c) {
		case OPT_MACHINES: o.machines = optarg; break;
		case OPT_JOB_LOG: o.job_log = optarg; break;
		case OPT_CLASS: cls = optarg; break;
		}
	}
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.machines || !o.job_log || !cls)
		usage_error(usage, "philly needs --machines, --job-log and --class");
	if (strcmp(cls, "HP") && strcmp(cls, "Spot"))
		usage_error(usage, "--class must be 'HP' or 'Spot', not '%s'", cls);
	o.hp = !strcmp(cls, "HP");
	not_both_stdin(o.machines, o.job_log);
	return trace_import_philly(&o, t, hdr, a, err, errlen);
}

static int import_canonical(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	while (next_option(r, argc, argv, canonical_options) != -1)
		;
	if (optind == argc && r->cli.ninputs == 0)
		usage_error(usage, "canonical needs one DIR");
	cli_operands(&r->cli, argc, argv, 1);
	struct import_canonical_opts o = { .dir = r->cli.inputs[0] };
	return trace_import_canonical(&o, t, hdr, a, err, errlen);
}

static int import_csv(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_csv_opts o = { 0 };
	bool has_seed = false;
	int c;
	while ((c = next_option(r, argc, argv, csv_options)) != -1) {
		switch (c) {
		case OPT_MAP: o.map = optarg; break;
		case OPT_NODES_FILE: o.nodes_file = optarg; break;
		case OPT_SUBSET:
			o.node_subset_gpus = integer_at_least("node-subset-gpus", optarg, 1, "positive integer");
			o.has_node_subset = true;
			break;
		case OPT_SEED:
			o.seed = (unsigned long long)integer_at_least("seed", optarg, 0, "non-negative integer");
			has_seed = true;
			break;
		}
	}
	size_t given = r->cli.ninputs + (size_t)(argc - optind);
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.map || given == 0)
		usage_error(usage, "csv needs --map SPEC and at least one FILE");
	if (o.has_node_subset != has_seed)
		usage_error(usage, "--node-subset-gpus and --seed go together");
	int stdin_uses = !strcmp(o.map, "-") + (o.nodes_file && !strcmp(o.nodes_file, "-"));
	for (size_t i = 0; i < r->cli.ninputs; i++)
		stdin_uses += !strcmp(r->cli.inputs[i], "-");
	if (stdin_uses > 1)
		usage_error(usage, "only one input can be standard input");
	o.files = r->cli.inputs;
	o.n_files = r->cli.ninputs;
	return trace_import_csv(&o, t, hdr, a, err, errlen);
}

/* RULE: qos:NAME=CLASS, partition:NAME=CLASS or *=CLASS. */
static struct import_slurm_rule slurm_rule(char *arg)
{
	struct import_slurm_rule u = { 0 };
	char *eq = strrchr(arg, '=');
	if (!eq || (strcmp(eq + 1, "HP") && strcmp(eq + 1, "Spot")))
		usage_error(usage, "--class: '%s' is not qos:NAME=HP|Spot, partition:NAME=HP|Spot or *=HP|Spot", arg);
	u.hp = !strcmp(eq + 1, "HP");
	*eq = 0;
	if (!strcmp(arg, "*"))
		u.field = IMPORT_SLURM_BY_ANY;
	else if (!strncmp(arg, "qos:", 4) && arg[4])
		u.field = IMPORT_SLURM_BY_QOS, u.value = arg + 4;
	else if (!strncmp(arg, "partition:", 10) && arg[10])
		u.field = IMPORT_SLURM_BY_PARTITION, u.value = arg + 10;
	else
		usage_error(usage, "--class: '%s' names no QOS or partition (qos:NAME, partition:NAME or *)", arg);
	return u;
}

static int import_slurm(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_slurm_opts o = { .tenant_from = IMPORT_SLURM_TENANT_ACCOUNT };
	struct import_slurm_rule *rules = xcalloc((size_t)argc, sizeof *rules);
	const char *key_file = NULL;
	char *key = NULL;
	int c;
	while ((c = next_option(r, argc, argv, slurm_options)) != -1) {
		switch (c) {
		case OPT_JOBS: o.jobs = optarg; break;
		case OPT_NODES: o.nodes = optarg; break;
		case OPT_CLASS: rules[o.n_rules++] = slurm_rule(optarg); break;
		case OPT_TENANT_FROM:
			if (!strcmp(optarg, "account"))
				o.tenant_from = IMPORT_SLURM_TENANT_ACCOUNT;
			else if (!strcmp(optarg, "user"))
				o.tenant_from = IMPORT_SLURM_TENANT_USER;
			else if (!strcmp(optarg, "none"))
				o.tenant_from = IMPORT_SLURM_TENANT_NONE;
			else
				usage_error(usage, "--tenant-from must be 'account', 'user' or 'none', not '%s'", optarg);
			break;
		case OPT_HASH_KEY: key_file = optarg; break;
		case OPT_HETJOB:
			if (strcmp(optarg, "join") && strcmp(optarg, "split"))
				usage_error(usage, "--hetjob must be 'join' or 'split', not '%s'", optarg);
			o.het_split = !strcmp(optarg, "split");
			break;
		case OPT_RESOURCES: o.resources = true; break;
		}
	}
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.jobs || !o.nodes || o.n_rules == 0)
		usage_error(usage, "slurm needs --jobs, --nodes and at least one --class rule");
	not_both_stdin(o.jobs, o.nodes);
	if (key_file) {
		size_t len;
		if (o.tenant_from == IMPORT_SLURM_TENANT_NONE)
			usage_error(usage, "--hash-key hashes tenants, and --tenant-from none writes none");
		if (!strcmp(key_file, "-") && (!strcmp(o.jobs, "-") || !strcmp(o.nodes, "-")))
			usage_error(usage, "only one input can be standard input");
		if (zio_slurp(key_file, &key, &len, err, errlen)) {
			free(rules);
			return IMPORT_DATA_ERROR;
		}
		/* the key is the first line (trace-import(1)); the rest of the file is not read */
		char *nl = memchr(key, '\n', len);
		if (nl)
			*nl = 0, len = (size_t)(nl - key);
		if (len && key[len - 1] == '\r')
			key[--len] = 0;
		if (len == 0 || strlen(key) != len) {
			snprintf(err, errlen, "%s: the hash key must be a non-empty first line without NUL bytes", key_file);
			free(key);
			free(rules);
			return IMPORT_DATA_ERROR;
		}
		o.hash_key = key;
	}
	o.rules = rules;
	int rc = trace_import_slurm(&o, t, hdr, a, err, errlen);
	free(rules);
	free(key);
	return rc;
}

/* issue 37: RULE is queue:N=CLASS, partition:N=CLASS, user:N=CLASS or *=CLASS. */
static struct import_swf_rule swf_rule(char *arg)
{
	struct import_swf_rule u = { 0 };
	char *eq = strrchr(arg, '=');
	if (!eq || (strcmp(eq + 1, "HP") && strcmp(eq + 1, "Spot")))
		usage_error(usage, "--class: '%s' is not queue:N=HP|Spot, partition:N=HP|Spot, user:N=HP|Spot or *=HP|Spot", arg);
	u.hp = !strcmp(eq + 1, "HP");
	*eq = 0;
	static const char *const words[] = { "queue:", "partition:", "user:" };
	if (!strcmp(arg, "*")) {
		u.field = IMPORT_SWF_BY_ANY;
		return u;
	}
	for (int k = 0; k < 3; k++) {
		size_t n = strlen(words[k]);
		long long v;
		if (!strncmp(arg, words[k], n)) {
			if (num_parse_int(arg + n, &v) || v < -1)
				usage_error(usage, "--class: '%s' needs a number after '%s'", arg, words[k]);
			u.field = k;
			u.value = v;
			return u;
		}
	}
	usage_error(usage, "--class: '%s' names no queue, partition or user (queue:N, partition:N, user:N or *)", arg);
	return u;
}

static long long count_arg(const char *option, const char *s)
{
	long long v;
	if (num_parse_int(s, &v) || v < 1 || v > (1LL << 40))
		usage_error(usage, "--%s: '%s' is not a whole number >= 1", option, s);
	return v;
}

static int import_swf(struct run *r, int argc, char **argv, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_swf_opts o = { .gpu_model = "gpu", .tenant_from = IMPORT_SWF_TENANT_NONE };
	struct import_swf_rule *rules = xcalloc((size_t)argc, sizeof *rules);
	int c;
	while ((c = next_option(r, argc, argv, swf_options)) != -1) {
		switch (c) {
		case OPT_JOBS: o.jobs = optarg; break;
		case OPT_GPUS_PER_PROC: o.gpus_per_proc = count_arg("gpus-per-proc", optarg); break;
		case OPT_PROCS_PER_GPU: o.procs_per_gpu = count_arg("procs-per-gpu", optarg); break;
		case OPT_GPUS_PER_NODE: o.gpus_per_node = count_arg("gpus-per-node", optarg); break;
		case OPT_NODE_COUNT: o.nodes = count_arg("node-count", optarg); break;
		case OPT_GPU_MODEL:
			if (text_id_problem(optarg, strlen(optarg)) || !*optarg || !strcmp(optarg, "*"))
				usage_error(usage, "--gpu-model: '%s' is not a model name", optarg);
			o.gpu_model = optarg;
			break;
		case OPT_CLASS: rules[o.n_rules++] = swf_rule(optarg); break;
		case OPT_TENANT_FROM:
			if (!strcmp(optarg, "none"))
				o.tenant_from = IMPORT_SWF_TENANT_NONE;
			else if (!strcmp(optarg, "user"))
				o.tenant_from = IMPORT_SWF_TENANT_USER;
			else if (!strcmp(optarg, "group"))
				o.tenant_from = IMPORT_SWF_TENANT_GROUP;
			else
				usage_error(usage, "--tenant-from must be 'none', 'user' or 'group', not '%s'", optarg);
			break;
		}
	}
	cli_operands(&r->cli, argc, argv, 0);
	if (!o.jobs || !o.gpus_per_node || o.n_rules == 0)
		usage_error(usage, "swf needs --jobs, --gpus-per-node and at least one --class rule");
	if (o.gpus_per_proc && o.procs_per_gpu)
		usage_error(usage, "--gpus-per-proc and --procs-per-gpu are two ways to say one thing: give one");
	if (!o.gpus_per_proc && !o.procs_per_gpu)
		o.gpus_per_proc = 1;
	o.rules = rules;
	int rc = trace_import_swf(&o, t, hdr, a, err, errlen);
	free(rules);
	return rc;
}

typedef int import_run(struct run *, int, char **, struct trace *, struct json *, struct arena *, char *, size_t);

/* One row per format: a new importer is its reader in lib/trace (import.h), its options and
 * parser above and its row here; the usage and the help's list are made from the rows. */
static const struct {
	const char *name;
	import_run *run;
	int flags;
	const char *synopsis;   /* its options in the usage line (= the man page's SYNOPSIS), or NULL */
	const char *operands;   /* its operands, after the common options ("" for none) */
	const char *what;       /* its lines of the help's "Formats:" list, after the name's column */
} formats[] = {
	{ "alibaba-spot", import_spot, CLI_OUTPUT,
	  "--nodes FILE --jobs FILE [--gpu-model M]... [--max-submit T] [--eval-start S --eval-end E] [--warmup-start W] [--no-warmup-spot] [--resources]", "",
	  "Alibaba cluster-trace-v2026-spot-gpu (node_info_df.csv, job_info_df.csv)\n" },
	{ "alibaba-v2023", import_v2023, CLI_OUTPUT, "--nodes FILE --pods FILE [--phase P]... [--resources]", "",
	  "Alibaba cluster-trace-gpu-v2023 openb node and pod lists\n" },
	{ "philly", import_philly, CLI_OUTPUT, "--machines FILE --job-log FILE --class HP|Spot", "",
	  "Microsoft Philly cluster_job_log (streamed) + cluster_machine_list\n" },
	{ "canonical", import_canonical, CLI_INPUT | CLI_OUTPUT, NULL, " DIR",
	  "the original three-file directory (trace.json, nodes.csv, jobs.csv);\n"
	  "                  -i DIR is the same as the DIR operand\n" },
	{ "csv", import_csv, CLI_INPUT | CLI_OUTPUT, "--map SPEC [--nodes-file FILE] [--node-subset-gpus N --seed S]", " FILE...",
	  "any CSV with an explicit column and label mapping; -i FILE is the\n"
	  "                  same as a FILE operand\n" },
	{ "slurm", import_slurm, CLI_OUTPUT, "--jobs FILE --nodes FILE --class RULE... [--tenant-from account|user|none] [--hash-key FILE] [--hetjob join|split] [--resources]", "",
	  "sacct -P output and scontrol show node -o output; RULE is\n"
	  "                  qos:NAME=HP|Spot, partition:NAME=HP|Spot or *=HP|Spot (first match wins)\n" },
	{ "swf", import_swf, CLI_OUTPUT,
	  "--jobs FILE --gpus-per-node N [--gpus-per-proc G | --procs-per-gpu P] [--node-count N] [--gpu-model M] --class RULE... "
	  "[--tenant-from none|user|group]", "",
	  "Standard Workload Format v2.2 (Parallel Workloads Archive); RULE is\n"
	  "                  queue:N=HP|Spot, partition:N=..., user:N=... or *=... (first match wins)\n" },
};
#define N_FORMATS (sizeof formats / sizeof *formats)

/* The usage lines (the format's own options, the common ones, its operands) and the help. */
static void make_texts(void)
{
	size_t u = 0, h = (size_t)snprintf(help, sizeof help, "%s", help_head);
	for (size_t f = 0; f < N_FORMATS; f++) {
		const char *operand = formats[f].operands;
		u += (size_t)snprintf(usage + u, sizeof usage - u, "trace-import %s%s%s [--trace-id ID] [--progress | --no-progress] [-o OUT]%s\n",
				      formats[f].name, formats[f].synopsis ? " " : "", formats[f].synopsis ? formats[f].synopsis : "", operand);
		h += (size_t)snprintf(help + h, sizeof help - h, "  %-15s %s", formats[f].name, formats[f].what);
	}
	snprintf(help + h, sizeof help - h, "%s", help_tail);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	make_texts();
	cli_init(&r.cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	if (argc >= 2 && argv[1][0] == '-' && argv[1][1]) {
		/* Only -h and -V come before FORMAT. */
		static const struct option top[] = { CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 } };
		int c = getopt_long(2, argv, ":hV", top, NULL);
		cli_option(&r.cli, c == -1 ? '?' : c, argv);
	}
	if (argc < 2)
		usage_fail(usage, "missing FORMAT");
	size_t f = 0;
	while (f < N_FORMATS && strcmp(argv[1], formats[f].name))
		f++;
	if (f == N_FORMATS)
		usage_error(usage, "unknown format '%s'", argv[1]);
	r.cli.flags = formats[f].flags;

	struct trace t;
	struct arena a;
	char err[1024];
	trace_init(&t);
	arena_init(&a);
	struct json *hdr = nd_header_new(&a, TRACE_SCHEMA_V1, "trace-import");
	struct progress pr;
	progress_init(&pr, PROGRESS_AUTO, "", 0);
	int rc = formats[f].run(&r, argc - 1, argv + 1, &t, hdr, &a, err, sizeof err);
	if (rc == IMPORT_USAGE_ERROR)
		usage_fail(usage, err);
	if (rc != 0)
		die("%s", err);
	/* --trace-id replaces the format's own id; params record it either way. */
	if (r.trace_id)
		t.trace_id = trace_strdup(&t, r.trace_id);
	json_set(&a, json_get(hdr, "params"), "trace_id", r.trace_id ? json_str(&a, r.trace_id) : json_null(&a));
	trace_sort(&t);
	trace_assign_phases(&t);
	if (trace_validate(&t, err, sizeof err))
		die("invalid trace: %s", err);
	/* the options are parsed only now: restart the clock in the mode they chose */
	double read_start = pr.start;
	progress_init(&pr, r.progress, "", 0);
	pr.start = read_start;
	progress_phase(&pr, "read %zu jobs on %zu nodes", t.n_jobs, t.n_nodes);
	/* Build the final header: trace facts plus this run's inputs and params. */
	struct json *out_hdr = trace_header(&t, &a, "trace-import");
	json_set(&a, out_hdr, "inputs", json_get(hdr, "inputs"));
	json_set(&a, out_hdr, "params", json_get(hdr, "params"));
	struct nd_writer *w = ndw_open(r.cli.output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (trace_write(&t, out_hdr, w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	progress_phase(&pr, "wrote %zu jobs to '%s'", t.n_jobs, r.cli.output);
	trace_release(&t);
	arena_release(&a);
	cli_release(&r.cli);
	return 0;
}
