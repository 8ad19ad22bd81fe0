/* trace-synth — write a seeded synthetic trace stream calibrated to a profile of
 * aggregate tables (docs/profiles.md), optionally with a Markdown fit report. */
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/progress.h"
#include "core/zio.h"
#include "synth/synth.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"trace-synth --profile FILE [--seed N] [--load-factor F] [--days A-B] [--gpu-model M]... [--report FILE]\n"
	"[--progress | --no-progress] [-o OUT]\n";

static const char help[] =
	"\n"
	"Write a synthetic trace stream (schednav.trace/2) drawn from a profile: the real\n"
	"node inventory and the aggregate tables of a trace. Same profile, seed and options\n"
	"give byte-identical output. The trace's source says synthetic and names the profile.\n"
	"\n"
	"Options:\n"
	"  --profile FILE     the profile (schednav.synth-profile/1 to /4 JSON, .zst accepted)\n"
	"  --seed N           seed of the generator, 0..2^63-1 (default 1)\n"
	"  --load-factor F    scale every hour's job count by F > 0 (default 1: the profile's counts)\n"
	"  --days A-B         keep jobs submitted on days A..B (0-based, inclusive; 'A' = one day);\n"
	"                     submit times stay seconds from the profile's time origin\n"
	"  --gpu-model M      keep only nodes and jobs of model M (repeatable)\n"
	"  --report FILE      also write a Markdown fit report to FILE\n"
	"  --progress         say on stderr when generating and writing end, even when it is\n"
	"                     not a terminal (default: on a terminal, for steps of a second or more)\n"
	"  --no-progress      never print progress\n";

static const char schemas[] = "reads: " SYNTH_PROFILE_SCHEMA ", " SYNTH_PROFILE_SCHEMA2 ", " SYNTH_PROFILE_SCHEMA3 " (--profile)\nwrites: " TRACE_SCHEMA_V2 "\n";

static void parse_days(const char *s, struct synth_options *o)
{
	const char *dash = strchr(s, '-');
	long long a, b;
	if (dash ? num_parse_intn(s, (size_t)(dash - s), &a) || num_parse_int(dash + 1, &b) : num_parse_int(s, &(a)))
		usage_error(usage, "--days: invalid day range '%s'", s);
	if (!dash)
		b = a;
	if (a < 0 || b < a)
		usage_error(usage, "--days: invalid day range '%s'", s);
	o->has_days = true;
	o->day_first = a;
	o->day_last = b;
}

static struct json *params_of(struct arena *a, const struct synth_options *o)
{
	struct json *p = json_object(a), *models = json_array(a);
	json_set(a, p, "seed", json_int(a, (long long)o->seed));
	json_set(a, p, "load_factor", json_real(a, o->load_factor));
	if (o->has_days) {
		struct json *d = json_array(a);
		json_push(a, d, json_int(a, o->day_first));
		json_push(a, d, json_int(a, o->day_last));
		json_set(a, p, "days", d);
	} else
		json_set(a, p, "days", json_null(a));
	for (size_t i = 0; i < o->n_gpu_models; i++)
		json_push(a, models, json_str(a, o->gpu_models[i]));
	json_set(a, p, "gpu_models", o->n_gpu_models ? models : json_null(a));
	return p;
}

static void write_report(const char *path, const struct synth_profile *p, const struct synth_options *o,
	const struct trace *t, const struct synth_stats *st)
{
	char err[512];
	struct strbuf sb;
	sb_init(&sb);
	synth_fit(p, o, t, st, &sb);
	struct zio_writer *w = zw_open(path, false, err, sizeof err);
	if (!w || zw_write(w, sb.buf, sb.len, err, sizeof err) || zw_commit(w, err, sizeof err))
		die("%s", err);
	sb_release(&sb);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 's' },
		{ "load-factor", required_argument, NULL, 'f' },
		{ "days", required_argument, NULL, 'd' },
		{ "gpu-model", required_argument, NULL, 'm' },
		{ "report", required_argument, NULL, 'r' },
		PROGRESS_OPTIONS,
		CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli;
	cli_init(&cli, argv, CLI_OUTPUT, usage, help, schemas);
	const char *profile = NULL, *report = NULL;
	struct synth_options o = { .seed = 1, .load_factor = 1.0 };
	enum progress_mode progress_mode = PROGRESS_AUTO;
	const char **models = xcalloc((size_t)argc + 1, sizeof *models);
	int c;
	while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': profile = optarg; break;
		case 's': {
			long long s = opt_int("seed", optarg);
			if (s < 0)
				usage_error(usage, "--seed: must be >= 0, not '%s'", optarg);
			o.seed = (uint64_t)s;
			break;
		}
		case 'f':
			o.load_factor = opt_double("load-factor", optarg);
			if (!(o.load_factor > 0))
				usage_error(usage, "--load-factor: must be > 0, not '%s'", optarg);
			break;
		case 'd': parse_days(optarg, &o); break;
		case 'm': models[o.n_gpu_models++] = optarg; break;
		case 'r': report = optarg; break;
		case PROGRESS_OPT_ON: progress_mode = PROGRESS_ON; break;
		case PROGRESS_OPT_OFF: progress_mode = PROGRESS_OFF; break;
		default:
			if (c == 'h' || c == 'V')
				free(models);
			cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	const char *output = cli.output;
	if (!profile)
		usage_error(usage, "missing --profile");
	o.gpu_models = models;

	char err[1024];
	struct synth_profile p;
	if (synth_profile_load(&p, profile, err, sizeof err))
		die("%s", err);
	struct trace t;
	struct synth_stats st;
	struct progress pr;
	progress_init(&pr, progress_mode, "", 0);
	trace_init(&t);
	if (synth_generate(&p, &o, &t, &st, err, sizeof err))
		die("%s", err);
	if (trace_validate(&t, err, sizeof err))
		die("invalid trace: %s", err);
	progress_phase(&pr, "generated %zu jobs on %zu nodes", t.n_jobs, t.n_nodes);

	struct arena a;
	arena_init(&a);
	struct json *hdr = trace_header(&t, &a, "trace-synth");
	nd_header_add_file(&a, hdr, profile, p.bytes, p.xxh3, NULL);
	json_set(&a, hdr, "params", params_of(&a, &o));
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (trace_write(&t, hdr, w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	progress_phase(&pr, "wrote %zu jobs to '%s'", t.n_jobs, output);
	if (report) {
		write_report(report, &p, &o, &t, &st);
		progress_phase(&pr, "wrote the fit report '%s'", report);
	}
	synth_stats_release(&st);
	trace_release(&t);
	synth_profile_release(&p);
	arena_release(&a);
	free(models);
	return 0;
}
