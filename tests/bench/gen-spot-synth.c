/*
 * gen-spot-synth — deterministic synthetic trace for benchmarks: the real Alibaba v2026
 * node inventory (node_info_df.csv) and N synthetic jobs over 184 days whose model mix,
 * class mix, duration quantiles and worker counts roughly follow the published
 * aggregates (derived-aggregates-sultanul-ovi). Labelled synthetic in its source.
 * usage: gen-spot-synth NODE_INFO_CSV N_JOBS SEED > trace.ndjson
 * Built by tests/bench/20-sim.sh against build/libschednav.a; not a shipped tool.
 */
#include "core/csv.h"
#include "core/die.h"
#include "core/zio.h"
#include "trace/trace.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;
static double unif(void)   /* (0,1), xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

int main(int argc, char **argv)
{
	set_progname(argv[0]);
	if (argc != 4)
		die("usage: gen-spot-synth NODE_INFO_CSV N_JOBS SEED");
	long n = atol(argv[2]);
	rng = strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
	char err[512];
	struct trace t;
	trace_init(&t);
	struct zio_reader *z = zr_open(argv[1], false, err, sizeof err);
	if (!z)
		die("%s", err);
	struct csv_reader c;
	csv_init(&c, z);
	if (csv_next(&c, err, sizeof err) != 1)
		die("%s: empty", argv[1]);
	int cm = csv_column(&c, "gpu_model"), cc = csv_column(&c, "gpu_capacity_num"), cn = csv_column(&c, "node_name");
	while (csv_next(&c, err, sizeof err) == 1) {
		struct trace_node *nd = trace_add_node(&t);
		nd->id = trace_strdup(&t, csv_trim(c.fields[cn]));
		nd->model = trace_strdup(&t, csv_trim(c.fields[cm]));
		nd->gpu_count = atoll(c.fields[cc]);
	}
	csv_release(&c);
	zr_close(z);
	static const struct { const char *model; double share; int per_node; } models[] = {
		{ "A10", 0.4897, 1 }, { "A100-SXM4-80GB", 0.3620, 8 }, { "GPU-series-2", 0.0651, 8 },
		{ "GPU-series-1", 0.0405, 8 }, { "H800", 0.0238, 8 }, { "A800-SXM4-80GB", 0.0189, 8 },
	};
	double span = 184.0 * 86400, tnow = 0;
	for (long i = 0; i < n; i++) {
		struct trace_job *j = trace_add_job(&t);
		char id[32];
		snprintf(id, sizeof id, "syn%07ld", i);
		j->id = trace_strdup(&t, id);
		tnow += -log(unif()) * span / (double)n;
		j->submit = round(tnow * 10) / 10;
		double d = 3.5 * exp(7.1 + 2.9 * normal());
		if (d > 45 * 86400.0)
			d = 45 * 86400.0;
		j->duration = round(d * 10) / 10 + 1;
		double u = unif(), acc = 0;
		size_t m = 0;
		for (; m + 1 < sizeof models / sizeof *models; m++)
			if (u < (acc += models[m].share))
				break;
		j->model = trace_strdup(&t, models[m].model);
		double g;
		if (models[m].per_node == 1)
			g = unif() < 0.08 ? 0.5 : 1;
		else {
			double v = unif();
			g = v < 0.70 ? 1 : v < 0.82 ? 2 : v < 0.90 ? 4 : 8;
			double w = unif();
			g *= w < 0.95 ? 1 : w < 0.985 ? 2 : 4;
		}
		j->gpus = g;
		j->gpus_int = g == floor(g);
		j->hp = unif() < 0.89;
		char org[16];
		snprintf(org, sizeof org, "org%d", (int)(unif() * unif() * 84));
		j->tenant = trace_strdup(&t, org);
	}
	t.version = 2;
	t.trace_id = trace_strdup(&t, "synthetic-spot-v2026");
	t.time_origin = trace_strdup(&t, "2024-03-01 00:00:00");
	struct arena a;
	arena_init(&a);
	t.source = json_object(&t.arena);
	json_set(&t.arena, t.source, "dataset", json_str(&t.arena, "synthetic (gen-spot-synth) on the Alibaba v2026 node inventory"));
	json_set(&t.arena, t.source, "synthetic", json_bool(&t.arena, true));
	json_set(&t.arena, t.source, "seed", json_str(&t.arena, argv[3]));
	trace_sort(&t);
	if (trace_validate(&t, err, sizeof err))
		die("%s", err);
	struct json *h = trace_header(&t, &a, "gen-spot-synth");
	struct nd_writer *w = ndw_open("-", err, sizeof err);
	if (!w || trace_write(&t, h, w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err))
		die("%s", err);
	arena_release(&a);
	trace_release(&t);
	return 0;
}
