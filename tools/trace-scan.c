/* trace-scan — find the eligible day windows of a trace, measure their pressure and Spot
 * share, and pick one medoid window per (pressure, share) stratum. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "trace/scan.h"
#include "trace/trace.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
	"trace-scan [--day-seconds W] [--sample-seconds I] [--min-hp N] [--min-spot N] [--pressure-strata P]\n"
	"[--share-strata S] [--warmup-days D] [--all-eligible] [--all-days] [-o OUT] [FILE]\n";

static const char help[] =
	"\n"
	"Read one trace stream and write a schednav.windows/1 stream: one 'window' record per\n"
	"eligible origin-aligned window [kW, kW+W-1] with its arrivals, hourly requested\n"
	"pressure and Spot share, its stratum and whether it is selected.\n"
	"\n"
	"  --day-seconds W      window length in seconds (default 86400)\n"
	"  --sample-seconds I   demand sampling interval; W must be a multiple (default 3600)\n"
	"  --min-hp N           eligibility: at least N HP arrivals (default 20)\n"
	"  --min-spot N         eligibility: at least N Spot arrivals (default 20)\n"
	"  --pressure-strata P  peak-pressure strata (default 3)\n"
	"  --share-strata S     Spot-share strata inside each pressure stratum (default 4)\n"
	"  --warmup-days D      warmup_start = max(0, start - D days) (default 30)\n"
	"  --all-eligible       select every eligible window instead of the medoids\n"
	"  --all-days           also write ineligible windows (eligible: false)\n";

static const char schemas[] = "reads: " TRACE_SCHEMA_V1 ", " TRACE_SCHEMA_V2 "\nwrites: " WINDOWS_SCHEMA "\n";

enum { OPT_DAY = 256, OPT_SAMPLE, OPT_MIN_HP, OPT_MIN_SPOT, OPT_PSTRATA, OPT_SSTRATA, OPT_WARMUP, OPT_ALL_ELIGIBLE, OPT_ALL_DAYS };

static const struct option longopts[] = {
	{ "day-seconds", required_argument, NULL, OPT_DAY },
	{ "sample-seconds", required_argument, NULL, OPT_SAMPLE },
	{ "min-hp", required_argument, NULL, OPT_MIN_HP },
	{ "min-spot", required_argument, NULL, OPT_MIN_SPOT },
	{ "pressure-strata", required_argument, NULL, OPT_PSTRATA },
	{ "share-strata", required_argument, NULL, OPT_SSTRATA },
	{ "warmup-days", required_argument, NULL, OPT_WARMUP },
	{ "all-eligible", no_argument, NULL, OPT_ALL_ELIGIBLE },
	{ "all-days", no_argument, NULL, OPT_ALL_DAYS },
	CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
	{ NULL, 0, NULL, 0 },
};

static long long int_at_least(const char *name, const char *s, long long min)
{
	long long v = opt_int(name, s);
	if (v < min) {
		char msg[128];
		snprintf(msg, sizeof msg, "--%s must be >= %lld", name, min);
		usage_fail(usage, msg);
	}
	return v;
}

static struct json *params_of(struct arena *a, const struct scan_opts *o, bool all_days)
{
	struct json *p = json_object(a);
	json_set(a, p, "day_seconds", json_int(a, o->day_seconds));
	json_set(a, p, "sample_seconds", json_int(a, o->sample_seconds));
	json_set(a, p, "min_hp_arrivals", json_int(a, o->min_hp));
	json_set(a, p, "min_spot_arrivals", json_int(a, o->min_spot));
	json_set(a, p, "pressure_strata", json_int(a, o->pressure_strata));
	json_set(a, p, "share_strata", json_int(a, o->share_strata));
	json_set(a, p, "warmup_days", json_int(a, o->warmup_days));
	json_set(a, p, "selection", json_str(a, o->all_eligible ? "all_eligible" : "stratified_medoid"));
	json_set(a, p, "all_days", json_bool(a, all_days));
	return p;
}

static struct json *window_record(struct arena *a, const struct scan_day *d, long long day_seconds)
{
	char id[48];
	snprintf(id, sizeof id, "%s-%04lld", day_seconds == 86400 ? "day" : "window", d->index);
	struct json *r = json_object(a);
	json_set(a, r, "type", json_str(a, "window"));
	json_set(a, r, "window_id", json_str(a, id));
	json_set(a, r, "index", json_int(a, d->index));
	json_set(a, r, "start", json_real(a, d->start));
	json_set(a, r, "end", json_real(a, d->end));
	json_set(a, r, "warmup_start", json_real(a, d->warmup_start));
	json_set(a, r, "eligible", json_bool(a, d->eligible));
	json_set(a, r, "hp_arrivals", json_int(a, d->hp_arrivals));
	json_set(a, r, "spot_arrivals", json_int(a, d->spot_arrivals));
	json_set(a, r, "hp_requested_gpus", json_real(a, d->hp_requested));
	json_set(a, r, "spot_requested_gpus", json_real(a, d->spot_requested));
	json_set(a, r, "peak_pressure", json_real(a, d->peak_pressure));
	json_set(a, r, "mean_pressure", json_real(a, d->mean_pressure));
	json_set(a, r, "spot_share", json_real_or_null(a, d->has_share, d->spot_share));
	json_set(a, r, "active_gpus_min", json_real(a, d->active_min));
	json_set(a, r, "active_gpus_mean", json_real(a, d->active_mean));
	json_set(a, r, "active_gpus_max", json_real(a, d->active_max));
	json_set(a, r, "active_gpus_cv", json_real_or_null(a, d->has_cv, d->active_cv));
	if (d->stratum_pressure >= 0) {
		struct json *s = json_object(a);
		json_set(a, s, "pressure", json_int(a, d->stratum_pressure));
		json_set(a, s, "share", json_int(a, d->stratum_share));
		json_set(a, r, "stratum", s);
	} else
		json_set(a, r, "stratum", json_null(a));
	json_set(a, r, "selected", json_bool(a, d->selected));
	return r;
}

int main(int argc, char **argv)
{
	struct cli cli;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	struct scan_opts o = { .day_seconds = 86400, .sample_seconds = 3600, .min_hp = 20, .min_spot = 20,
			       .pressure_strata = 3, .share_strata = 4, .warmup_days = 30 };
	bool all_days = false;
	int c;
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DAY: o.day_seconds = int_at_least("day-seconds", optarg, 1); break;
		case OPT_SAMPLE: o.sample_seconds = int_at_least("sample-seconds", optarg, 1); break;
		case OPT_MIN_HP: o.min_hp = int_at_least("min-hp", optarg, 0); break;
		case OPT_MIN_SPOT: o.min_spot = int_at_least("min-spot", optarg, 0); break;
		case OPT_PSTRATA: o.pressure_strata = int_at_least("pressure-strata", optarg, 1); break;
		case OPT_SSTRATA: o.share_strata = int_at_least("share-strata", optarg, 1); break;
		case OPT_WARMUP: o.warmup_days = int_at_least("warmup-days", optarg, 0); break;
		case OPT_ALL_ELIGIBLE: o.all_eligible = true; break;
		case OPT_ALL_DAYS: all_days = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 1);
	const char *input = cli.inputs[0], *output = cli.output;
	if (o.day_seconds % o.sample_seconds)
		usage_fail(usage, "--day-seconds must be a multiple of --sample-seconds");

	struct trace t;
	struct arena a;
	struct scan_result res;
	char err[1024];
	trace_init(&t);
	arena_init(&a);
	if (trace_load(&t, input, err, sizeof err))
		die("%s", err);
	if (trace_scan_run(&t, &o, &res, err, sizeof err))
		die("%s", err);

	struct json *hdr = nd_header_new(&a, WINDOWS_SCHEMA, "trace-scan");
	nd_header_add_stream(&a, hdr, t.input_name, t.version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, t.fingerprint);
	json_set(&a, hdr, "params", params_of(&a, &o, all_days));
	json_set(&a, hdr, "trace_id", json_str(&a, t.trace_id));
	json_set(&a, hdr, "capacity_gpus", json_int(&a, res.capacity));
	json_set(&a, hdr, "window_count", json_int(&a, (long long)res.n_days));
	json_set(&a, hdr, "eligible_count", json_int(&a, (long long)res.n_eligible));
	json_set(&a, hdr, "selected_count", json_int(&a, (long long)res.n_selected));
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	if (ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	struct arena rec;
	arena_init(&rec);
	for (size_t k = 0; k < res.n_days; k++) {
		if (!res.days[k].eligible && !all_days)
			continue;
		arena_reset(&rec);
		if (ndw_record(w, window_record(&rec, &res.days[k], o.day_seconds), err, sizeof err))
			die("%s", err);
	}
	arena_release(&rec);
	if (ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	trace_scan_result_release(&res);
	trace_release(&t);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
