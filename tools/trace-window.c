/* trace-window — cut a trace stream: a prefix slice (submit time, GPU models) and/or an
 * evaluation slice (window with a warm-up start), as the original slicers do. */
#include "core/cli.h"
#include "core/die.h"
#include "core/text.h"
#include "core/ndjson.h"
#include "trace/trace.h"
#include "trace/window.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"trace-window [--max-submit T] [--gpu-model M]... [--eval-start S --eval-end E [--warmup-start W]] [--no-warmup-spot]\n"
	"[--trace-id ID] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read one trace stream and write the slice of it that the options ask for.\n"
	"The prefix slice runs first, then the evaluation slice.\n"
	"\n"
	"Prefix slice:\n"
	"  --max-submit T       keep jobs submitted at or before T seconds; nodes follow the\n"
	"                       kept jobs' concrete GPU models (all nodes if only '*' jobs)\n"
	"  --gpu-model M        keep only jobs of model M or '*' (repeatable); without\n"
	"                       --max-submit the cut is the last submit time\n"
	"Evaluation slice (input without a window):\n"
	"  --eval-start S       evaluation window start, seconds\n"
	"  --eval-end E         evaluation window end (inclusive for arrivals)\n"
	"  --warmup-start W     keep jobs from W on (default 0: full carry-in)\n"
	"  --no-warmup-spot     drop Spot jobs submitted before S\n"
	"Other:\n"
	"  --trace-id ID        trace_id of the slice (default: the input's)\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\nwrites: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 " (as the input)\n";

enum { OPT_MAX_SUBMIT = 256, OPT_GPU_MODEL, OPT_EVAL_START, OPT_EVAL_END, OPT_WARMUP_START, OPT_NO_WARMUP_SPOT, OPT_TRACE_ID };

static const struct option longopts[] = {
	{ "max-submit", required_argument, NULL, OPT_MAX_SUBMIT },
	{ "gpu-model", required_argument, NULL, OPT_GPU_MODEL },
	{ "eval-start", required_argument, NULL, OPT_EVAL_START },
	{ "eval-end", required_argument, NULL, OPT_EVAL_END },
	{ "warmup-start", required_argument, NULL, OPT_WARMUP_START },
	{ "no-warmup-spot", no_argument, NULL, OPT_NO_WARMUP_SPOT },
	{ "trace-id", required_argument, NULL, OPT_TRACE_ID },
	CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char *trace_id;
	bool has_max, has_start, has_end, has_warmup, no_warmup_spot;
	double max_submit, eval_start, eval_end, warmup_start;
	const char **models;
	size_t n_models;
};

static void parse_options(int argc, char **argv, struct cli *cli, struct opts *o)
{
	int c;
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MAX_SUBMIT: o->max_submit = opt_double("max-submit", optarg); o->has_max = true; break;
		case OPT_GPU_MODEL:
			if (!*optarg)
				usage_fail(usage, "--gpu-model: empty model name");
			o->models = xrealloc(o->models, (o->n_models + 1) * sizeof *o->models);
			o->models[o->n_models++] = optarg;
			break;
		case OPT_EVAL_START: o->eval_start = opt_double("eval-start", optarg); o->has_start = true; break;
		case OPT_EVAL_END: o->eval_end = opt_double("eval-end", optarg); o->has_end = true; break;
		case OPT_WARMUP_START: o->warmup_start = opt_double("warmup-start", optarg); o->has_warmup = true; break;
		case OPT_NO_WARMUP_SPOT: o->no_warmup_spot = true; break;
		case OPT_TRACE_ID:
			if (text_id_problem(optarg, strlen(optarg)))
				usage_error(usage, "--trace-id: the id %s", text_id_problem(optarg, strlen(optarg)));
			o->trace_id = optarg;
			break;
		default: cli_option(cli, c, argv);
		}
	}
	cli_operands(cli, argc, argv, 1);
	if (o->has_start != o->has_end)
		usage_fail(usage, "--eval-start and --eval-end go together");
	if ((o->has_warmup || o->no_warmup_spot) && !o->has_start)
		usage_fail(usage, "--warmup-start and --no-warmup-spot need --eval-start and --eval-end");
	if (!o->has_max && !o->n_models && !o->has_start)
		usage_fail(usage, "nothing to do: give --max-submit, --gpu-model or --eval-start/--eval-end");
	if (o->has_max && o->max_submit < 0)
		usage_fail(usage, "--max-submit must be >= 0");
	if (o->has_start && !(o->eval_start >= 0 && o->eval_start < o->eval_end))
		usage_fail(usage, "the evaluation window needs 0 <= --eval-start < --eval-end");
	if (o->has_warmup && !(o->warmup_start >= 0 && o->warmup_start <= o->eval_start))
		usage_fail(usage, "--warmup-start must be in [0, --eval-start]");
}

/* params: every option, in a fixed order, null when not given. */
static struct json *params_of(struct arena *a, const struct opts *o)
{
	struct json *p = json_object(a);
	json_set(a, p, "max_submit", o->has_max ? json_real(a, o->max_submit) : json_null(a));
	struct json *models = json_null(a);
	if (o->n_models) {
		models = json_array(a);
		for (size_t i = 0; i < o->n_models; i++)
			json_push(a, models, json_str(a, o->models[i]));
	}
	json_set(a, p, "gpu_models", models);
	json_set(a, p, "eval_start", o->has_start ? json_real(a, o->eval_start) : json_null(a));
	json_set(a, p, "eval_end", o->has_end ? json_real(a, o->eval_end) : json_null(a));
	json_set(a, p, "warmup_start", o->has_warmup ? json_real(a, o->warmup_start) : json_null(a));
	json_set(a, p, "no_warmup_spot", json_bool(a, o->no_warmup_spot));
	json_set(a, p, "trace_id", o->trace_id ? json_str(a, o->trace_id) : json_null(a));
	return p;
}

static void slice(struct trace *t, const struct opts *o)
{
	char err[512];
	/* Both records name the input stream: a combined run makes no intermediate stream, and
	 * the input fingerprint plus the recorded parameters determine the output. */
	const char *parent_fp = t->fingerprint;
	if (o->has_max || o->n_models) {
		struct window_prefix p = {
			.max_submit = o->has_max ? o->max_submit : t->jobs[t->n_jobs - 1].submit,
			.models = o->models, .n_models = o->n_models,
		};
		if (trace_window_prefix_slice(t, &p, parent_fp, err, sizeof err))
			die("%s", err);
	}
	if (o->has_start) {
		struct window_eval e = {
			.warmup_start = o->has_warmup ? o->warmup_start : 0.0,
			.eval_start = o->eval_start, .eval_end = o->eval_end,
			.include_warmup_spot = !o->no_warmup_spot,
		};
		if (trace_window_eval_slice(t, &e, parent_fp, err, sizeof err))
			die("%s", err);
	}
	if (o->trace_id)
		t->trace_id = trace_strdup(t, o->trace_id);
	if (trace_validate(t, err, sizeof err))
		die("the slice is not a valid trace: %s", err);
}

int main(int argc, char **argv)
{
	struct cli cli;
	struct opts o = { 0 };
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	parse_options(argc, argv, &cli, &o);

	struct trace t;
	struct arena a;
	char err[1024];
	trace_init(&t);
	arena_init(&a);
	if (trace_load(&t, cli.inputs[0], err, sizeof err))
		die("%s", err);
	const char *in_schema = t.version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1;
	char in_fp[FP_HEX_XXH3], in_name[256];
	memcpy(in_fp, t.fingerprint, sizeof in_fp);
	snprintf(in_name, sizeof in_name, "%s", t.input_name);
	slice(&t, &o);

	struct json *hdr = trace_header(&t, &a, "trace-window");
	nd_header_add_stream(&a, hdr, in_name, in_schema, in_fp);
	json_set(&a, hdr, "params", params_of(&a, &o));
	struct nd_writer *w = ndw_open(cli.output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (trace_write(&t, hdr, w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	free(o.models);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
