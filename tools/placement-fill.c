/* placement-fill — the FGD paper's experiment (../shared/spec/placement-fgd.md): pods of an
 * openb pod list arrive in a seeded order on the nodes of an openb node list, placed by one
 * policy and never leaving; the allocation ratio and the fragmentation against the arrived
 * GPU share, at 1 % steps, as NDJSON, an SVG chart or the artifact's CSV rows. */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "place/fill.h"
#include "place/from_trace.h"
#include "place/openb.h"
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_SCHEMA "schednav.placement-fill/1"

static const char usage[] =
	"placement-fill --nodes NODES.csv --pods PODS.csv --policy P [--seed S[-S2]] [--tune T]\n"
	"[--format ndjson|svg|fgd-csv] [--metric alloc|frag|frag-ratio] [--workload NAME] [-o OUT]\n"
	"placement-fill --trace TRACE --policy P [--seed S[-S2]] [--tune T]\n"
	"[--format ndjson|svg|fgd-csv] [--metric alloc|frag|frag-ratio] [--workload NAME] [-o OUT]\n";

static const char help[] =
	"\n"
	"Place the pods of PODS.csv one at a time, in a seeded order and never leaving, on the nodes\n"
	"of NODES.csv (the openb CSVs of the FGD artifact), and record the GPU allocation ratio,\n"
	"the fragmented GPU amount and the fragmentation ratio against the arrived GPU share.\n"
	"\n"
	"  --nodes FILE        the node list (sn,cpu_milli,memory_mib,gpu,model)\n"
	"  --pods FILE         the pod list (name,cpu_milli,memory_mib,num_gpu[,gpu_milli[,gpu_spec]])\n"
	"  --trace TRACE       instead of --nodes and --pods: a canonical trace stream whose nodes\n"
	"                      have cpu_milli and memory_mib (trace-import --resources); each job\n"
	"                      is one pod per worker\n"
	"  --policy P          random, dot-product, gpu-clustering, gpu-packing, best-fit or fgd\n"
	"  --seed S[-S2]       the run's seed, or every seed from S to S2 (default 42)\n"
	"  --tune T            inflate or thin the pods to T x the GPU capacity (default 1.3)\n"
	"  --format F          ndjson (default): the curves at every arrived percent 0..130;\n"
	"                      svg: a chart of the three curves (mean over the seeds);\n"
	"                      fgd-csv: one row per seed in the artifact's layout\n"
	"  --metric M          for fgd-csv: alloc (default), frag or frag-ratio\n"
	"  --workload NAME     the workload column of fgd-csv (default: PODS.csv's name without .csv,\n"
	"                      or the trace's trace_id)\n";

static const char schemas[] = "reads: openb node and pod lists (CSV), schednav.trace/1, /2\nwrites: " FILL_SCHEMA ", SVG, FGD artifact CSV\n";

enum { OPT_NODES = 256, OPT_PODS, OPT_POLICY, OPT_SEED, OPT_TUNE, OPT_FORMAT, OPT_METRIC, OPT_WORKLOAD, OPT_TRACE };

static const struct option longopts[] = {
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "pods", required_argument, NULL, OPT_PODS },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "tune", required_argument, NULL, OPT_TUNE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "workload", required_argument, NULL, OPT_WORKLOAD },
	{ "trace", required_argument, NULL, OPT_TRACE },
	CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 }
};

enum format { FORMAT_NDJSON, FORMAT_SVG, FORMAT_CSV };

static const struct { const char *name; size_t field; } metrics[] = {
	{ "alloc", offsetof(struct place_fill_record, alloc) },
	{ "frag", offsetof(struct place_fill_record, frag) },
	{ "frag-ratio", offsetof(struct place_fill_record, frag_ratio) },
};
#define NMETRICS 3

struct opts {
	const char *nodes, *pods, *workload, *trace;
	const struct place_ops *policy;
	long long seed_lo, seed_hi;
	double tune;
	enum format format;
	int metric;
};

/* One seed's curves: curve[metric][x]. */
struct curves { long long seed; size_t pods, placed, rejected; double v[NMETRICS][PLACE_FILL_XMAX + 1]; };

static void run_seed(const struct place_cluster *base, const struct place_pod *pods, size_t n, const struct opts *o, long long seed, struct curves *out)
{
	struct place_cluster c;
	struct place_fill_run run = { 0 };
	place_cluster_clone(&c, base);
	place_start(&c, o->policy, (uint64_t)seed);
	place_fill_tune(pods, n, c.gpu_capacity, o->tune, (uint64_t)seed, &run.pods, &run.npods);
	place_fill(&c, &run);
	out->seed = seed;
	out->pods = run.npods;
	out->placed = run.nplaced;
	out->rejected = run.nrejected;
	for (int m = 0; m < NMETRICS; m++)
		place_fill_discrete(&run, metrics[m].field, out->v[m]);
	place_fill_free(&run);
	place_cluster_release(&c);
}

/* A value as the artifact writes it: rounded to 2 decimals, Python's repr; "" for none. */
static void add_value(struct strbuf *sb, double v)
{
	if (isnan(v))
		return;
	sb_add_double(sb, num_round(v, 2));
}

static void write_csv(struct strbuf *sb, const struct opts *o, const struct curves *cv, size_t ncv, int64_t capacity)
{
	sb_adds(sb, "workload,sc_policy,tune,seed,total_gpus");
	for (int x = 0; x <= PLACE_FILL_XMAX; x++)
		sb_addf(sb, ",%d", x);
	sb_addc(sb, '\n');
	for (size_t i = 0; i < ncv; i++) {
		sb_addf(sb, "%s,%s,", o->workload, o->policy->fgd_name);
		sb_add_double(sb, o->tune);
		sb_addf(sb, ",%lld,%lld", cv[i].seed, (long long)(capacity / PLACE_GPU_MILLI));
		for (int x = 0; x <= PLACE_FILL_XMAX; x++) {
			sb_addc(sb, ',');
			add_value(sb, cv[i].v[o->metric][x]);
		}
		sb_addc(sb, '\n');
	}
}

static void add_xml(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '&': sb_adds(sb, "&amp;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		case '\'': sb_adds(sb, "&#39;"); break;
		default: sb_addc(sb, *s);
		}
}

/* The chart: x 0..130 % arrived, y 0..100 %, the seeds' mean of each metric. */
static void write_svg(struct strbuf *sb, const struct opts *o, const struct curves *cv, size_t ncv)
{
	static const char *const color[NMETRICS] = { "#1f77b4", "#d62728", "#2ca02c" };
	static const char *const label[NMETRICS] = { "GPU allocation ratio", "fragmented GPUs (% of capacity)", "fragmentation ratio (% of free)" };
	const double L = 60, T = 40, W = 650, H = 360;
	sb_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", L + W + 20, T + H + 50);
	sb_adds(sb, "<text x=\"60\" y=\"20\" font-size=\"14\">");
	add_xml(sb, o->workload);
	sb_addf(sb, " · %s · tune ", o->policy->name);
	sb_add_double(sb, o->tune);
	sb_addf(sb, " · seeds %lld-%lld</text>\n", o->seed_lo, o->seed_hi);
	sb_addf(sb, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W, H);
	for (int x = 0; x <= PLACE_FILL_XMAX; x += 10)
		sb_addf(sb, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d</text>\n", L + W * x / PLACE_FILL_XMAX, T + H + 16, x);
	for (int y = 0; y <= 100; y += 20)
		sb_addf(sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", L - 6, T + H - H * y / 100 + 4, y);
	sb_addf(sb, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">arrived GPU request (%% of capacity)</text>\n", L + W / 2, T + H + 36);
	for (int m = 0; m < NMETRICS; m++) {
		sb_addf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color[m]);
		for (int x = 0; x <= PLACE_FILL_XMAX; x++) {
			double s = 0;
			size_t k = 0;
			for (size_t i = 0; i < ncv; i++)
				if (!isnan(cv[i].v[m][x])) {
					s += cv[i].v[m][x];
					k++;
				}
			if (k)
				sb_addf(sb, "%.1f,%.1f ", L + W * x / PLACE_FILL_XMAX, T + H - H * fmin(100, s / (double)k) / 100);
		}
		sb_adds(sb, "\"/>\n");
		sb_addf(sb, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", L + 10, T + 16 + 16.0 * m, color[m], label[m]);
	}
	sb_adds(sb, "</svg>\n");
}

static void write_ndjson(const char *path, const struct opts *o, const struct curves *cv, size_t ncv, int64_t capacity)
{
	struct arena a;
	char err[512];
	arena_init(&a);
	struct json *hdr = nd_header_new(&a, FILL_SCHEMA, "placement-fill"), *p = json_object(&a);
	if (o->trace) {
		if (nd_header_add_config(&a, hdr, o->trace, err, sizeof err))
			die("%s", err);
		json_set(&a, p, "trace", json_str(&a, o->trace));
	} else {
		if (nd_header_add_config(&a, hdr, o->nodes, err, sizeof err) || nd_header_add_config(&a, hdr, o->pods, err, sizeof err))
			die("%s", err);
		json_set(&a, p, "nodes", json_str(&a, o->nodes));
		json_set(&a, p, "pods", json_str(&a, o->pods));
	}
	json_set(&a, p, "policy", json_str(&a, o->policy->name));
	json_set(&a, p, "seed_first", json_int(&a, o->seed_lo));
	json_set(&a, p, "seed_last", json_int(&a, o->seed_hi));
	json_set(&a, p, "tune", json_real(&a, o->tune));
	json_set(&a, p, "total_gpus", json_int(&a, capacity / PLACE_GPU_MILLI));
	json_set(&a, hdr, "params", p);
	struct nd_writer *w = ndw_open(path, err, sizeof err);
	if (!w || ndw_header(w, hdr, err, sizeof err))
		die("%s", err);
	for (size_t i = 0; i < ncv; i++) {
		struct json *r = json_object(&a);
		json_set(&a, r, "type", json_str(&a, "placement_run"));
		json_set(&a, r, "seed", json_int(&a, cv[i].seed));
		json_set(&a, r, "pods", json_int(&a, (long long)cv[i].pods));
		json_set(&a, r, "placed", json_int(&a, (long long)cv[i].placed));
		json_set(&a, r, "rejected", json_int(&a, (long long)cv[i].rejected));
		if (ndw_record(w, r, err, sizeof err))
			die("%s", err);
		for (int x = 0; x <= PLACE_FILL_XMAX; x++) {
			r = json_object(&a);
			json_set(&a, r, "type", json_str(&a, "placement_point"));
			json_set(&a, r, "seed", json_int(&a, cv[i].seed));
			json_set(&a, r, "arrived", json_int(&a, x));
			for (int m = 0; m < NMETRICS; m++)
				json_set(&a, r, m == 2 ? "frag_ratio" : metrics[m].name,
					 json_real_or_null(&a, !isnan(cv[i].v[m][x]), num_round(cv[i].v[m][x], 4)));
			if (ndw_record(w, r, err, sizeof err))
				die("%s", err);
		}
	}
	if (ndw_end(w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	arena_release(&a);
}

static void write_text(const char *path, const struct strbuf *sb)
{
	char err[512];
	struct zio_writer *w = zw_open(path, false, err, sizeof err);
	if (!w || zw_write(w, sb->buf, sb->len, err, sizeof err) || zw_commit(w, err, sizeof err))
		die("%s", err);
}

static void parse_seeds(const char *s, struct opts *o)
{
	const char *dash = strchr(s + (*s == '-'), '-');
	char lo[32];
	if (!dash) {
		o->seed_lo = o->seed_hi = opt_int("seed", s);
	} else {
		if ((size_t)(dash - s) >= sizeof lo)
			usage_error(usage, "--seed: invalid range '%s'", s);
		memcpy(lo, s, (size_t)(dash - s));
		lo[dash - s] = '\0';
		o->seed_lo = opt_int("seed", lo);
		o->seed_hi = opt_int("seed", dash + 1);
	}
	if (o->seed_lo < 0 || o->seed_hi < o->seed_lo || o->seed_hi - o->seed_lo >= 10000)
		usage_error(usage, "--seed: want S or S-S2 with 0 <= S <= S2 < S + 10000, not '%s'", s);
}

static void parse_options(int argc, char **argv, struct cli *cli, struct opts *o)
{
	int c;
	while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_NODES: o->nodes = optarg; break;
		case OPT_PODS: o->pods = optarg; break;
		case OPT_POLICY:
			if (!(o->policy = place_policy(optarg)))
				usage_error(usage, "--policy: unknown policy '%s'", optarg);
			break;
		case OPT_SEED: parse_seeds(optarg, o); break;
		case OPT_TUNE:
			o->tune = opt_double("tune", optarg);
			if (!(o->tune > 0 && o->tune <= 100))
				usage_error(usage, "--tune: want a number in (0, 100], not '%s'", optarg);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "ndjson")) o->format = FORMAT_NDJSON;
			else if (!strcmp(optarg, "svg")) o->format = FORMAT_SVG;
			else if (!strcmp(optarg, "fgd-csv")) o->format = FORMAT_CSV;
			else usage_error(usage, "--format: want ndjson, svg or fgd-csv, not '%s'", optarg);
			break;
		case OPT_METRIC:
			o->metric = -1;
			for (int m = 0; m < NMETRICS; m++)
				if (!strcmp(optarg, metrics[m].name))
					o->metric = m;
			if (o->metric < 0)
				usage_error(usage, "--metric: want alloc, frag or frag-ratio, not '%s'", optarg);
			break;
		case OPT_WORKLOAD: o->workload = optarg; break;
		case OPT_TRACE: o->trace = optarg; break;
		default: cli_option(cli, c, argv);
		}
	}
	cli_operands(cli, argc, argv, 0);
	if (o->trace && (o->nodes || o->pods))
		usage_fail(usage, "--trace replaces --nodes and --pods: give one or the other");
	if ((!o->trace && (!o->nodes || !o->pods)) || !o->policy)
		usage_fail(usage, "--nodes, --pods and --policy are required (or --trace and --policy)");
}

/* PODS.csv's file name without its folder and ".csv" (the artifact's workload column). */
static char *workload_of(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".csv"))
		n -= 4;
	char *w = xstrndup(base, n);
	for (char *p = w; *p; p++)
		if (*p == ',' || *p == '\n' || *p == '\r' || *p == '"')
			*p = '_';      /* the CSV column stays one field */
	return w;
}

/* Refuse a pod list that cannot fill anything, or would be inflated beyond memory. */
static void check_workload(const struct opts *o, const struct place_pod *pods, size_t n, int64_t capacity)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += (double)place_pod_gpu_milli(&pods[i]);
	const char *src = o->trace ? o->trace : o->pods;
	if (total == 0)
		die("%s: no pod asks for a GPU: nothing fills the cluster", src);
	if ((double)n * (o->tune * (double)capacity / total) > 1e8)
		die("%s: --tune %g would make more than 100,000,000 pods", src, o->tune);
}

int main(int argc, char **argv)
{
	struct cli cli;
	cli_init(&cli, argv, CLI_OUTPUT, usage, help, schemas);
	struct opts o = { .seed_lo = 42, .seed_hi = 42, .tune = 1.3 };
	parse_options(argc, argv, &cli, &o);
	struct place_cluster base;
	struct place_pod *pods;
	size_t npods;
	char err[1024];
	place_cluster_init(&base);
	char *workload;
	if (o.trace) {
		struct trace t;
		trace_init(&t);
		if (trace_load(&t, o.trace, err, sizeof err))
			die("%s", err);
		if (place_from_trace(&base, &t, &pods, &npods, err, sizeof err))
			die("%s: %s", o.trace, err);
		workload = workload_of(o.workload ? o.workload : t.trace_id);
		trace_release(&t);
	} else {
		workload = workload_of(o.workload ? o.workload : o.pods);
		if (place_read_nodes(&base, o.nodes, err, sizeof err) || place_read_pods(&base, o.pods, &pods, &npods, err, sizeof err))
			die("%s", err);
	}
	o.workload = workload;
	place_set_types(&base, pods, npods);
	check_workload(&o, pods, npods, base.gpu_capacity);

	size_t ncv = (size_t)(o.seed_hi - o.seed_lo + 1);
	struct curves *cv = xcalloc(ncv, sizeof *cv);
	for (size_t i = 0; i < ncv; i++)
		run_seed(&base, pods, npods, &o, o.seed_lo + (long long)i, &cv[i]);

	if (o.format == FORMAT_NDJSON) {
		write_ndjson(cli.output, &o, cv, ncv, base.gpu_capacity);
	} else {
		struct strbuf sb;
		sb_init(&sb);
		if (o.format == FORMAT_CSV)
			write_csv(&sb, &o, cv, ncv, base.gpu_capacity);
		else
			write_svg(&sb, &o, cv, ncv);
		write_text(cli.output, &sb);
		sb_release(&sb);
	}
	free(cv);
	free(pods);
	free(workload);
	place_cluster_release(&base);
	cli_release(&cli);
	return 0;
}
