/* quota — the controller's quota function as a filter: forecast points, eta and inventory in,
 * one Spot quota plan per point set out (the same library code sim-run's controller calls). */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "eval/evidence.h"
#include "predict/predict.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "quota --controller FILE [--eta ETA] [--capacity GPUS] [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read observation_bundle records (from forecast) and/or forecast_point records with\n"
	"inventory records, and write one quota_plan record per bundle or per run of points\n"
	"with the same cutoff and pool: the Spot quota of every guarantee horizon of the\n"
	"controller. eta and the capacity come from the options, else the latest inventory\n"
	"record, else the bundle's own plan (eta defaults to the controller's initial eta).\n"
	"Other record types are ignored.\n"
	"\n"
	"  -c, --controller FILE  schednav.predictive-controller/v1 JSON file (required)\n"
	"  -e, --eta ETA          eta for every plan\n"
	"  -C, --capacity GPUS    capacity for every plan\n";

#define QUOTA_SCHEMA "schednav.quota/1"

static const char schemas[] = "reads: schednav.forecast/1 (observation_bundle), forecast_point and inventory records, " PC_CONFIG_SCHEMA "\n"
			      "writes: " QUOTA_SCHEMA "\n";

struct opt_num {
	bool set;
	double v;
};

struct state {
	struct arena *a;
	const struct pc_config *cfg;
	struct opt_num eta, capacity;
	struct opt_num inv_eta, inv_capacity;   /* from the latest inventory record */
	double inv_idle, inv_running;
	/* the current run of forecast_point records */
	struct pc_point *pts;
	size_t n, cap;
	double cutoff;
	const char *pool;
	struct json *plans;                     /* array of quota_plan records */
	struct json *inputs;                    /* header inputs */
};

static const struct json *need(struct nd_reader *r, const struct json *o, const char *k, enum json_kind kind, char *err, size_t errlen)
{
	const struct json *v = json_get(o, k);
	bool ok = v && (kind == JSON_REAL ? json_is_num(v) && isfinite(json_num(v)) : v->kind == kind);
	if (!ok) {
		ndr_errorf(r, err, errlen, "'%s' is missing or not %s", k, kind == JSON_REAL ? "a finite number" : json_kind_name(kind));
		return NULL;
	}
	return v;
}

/* One plan, the original's spot_quota_plan document: its fingerprint covers everything but itself. */
static void emit(struct state *st, double cutoff, double capacity, double eta, const struct pc_point *pts, size_t n, const char *forecast_fp,
		 const char *pool)
{
	struct arena *a = st->a;
	const struct pc_config *cfg = st->cfg;
	struct json *q = json_object(a), *by = json_object(a);
	struct pc_quota_input in = { pts, n, capacity, eta, cfg->sw.floor_before_subtract, cfg->sw.inventory_cap, st->inv_idle, st->inv_running };
	char hk[24], fp[65];
	json_set(a, q, "schema_version", json_str(a, PC_QUOTA_SCHEMA));
	json_set(a, q, "controller_id", json_str(a, cfg->controller_id));
	json_set(a, q, "controller_fingerprint", json_str(a, cfg->fingerprint));
	if (forecast_fp)
		json_set(a, q, "forecast_fingerprint", json_str(a, forecast_fp));
	json_set(a, q, "cutoff_time_seconds", json_real(a, cutoff));
	json_set(a, q, "capacity_gpus", json_real(a, capacity));
	json_set(a, q, "eta", json_real(a, eta));
	json_set(a, q, "guarantee_probability", json_real(a, cfg->guarantee_probability));
	for (size_t i = 0; i < cfg->n_horizons; i++) {
		snprintf(hk, sizeof hk, "%lld", cfg->horizons[i]);
		json_set(a, by, hk, json_int(a, pc_quota(&in, cfg->horizons[i])));
	}
	json_set(a, q, "spot_quota_gpus_by_guarantee_hour", by);
	json_set(a, q, "rule", json_str(a, PC_QUOTA_RULE));
	if (pool)
		json_set(a, q, "resource_pool", json_str(a, pool));
	pc_canonical_sha256(q, fp);
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "quota_plan"));
	for (size_t i = 0; i < q->u.obj.n; i++)
		json_set(a, rec, q->u.obj.keys[i], q->u.obj.vals[i]);
	json_set(a, rec, "quota_plan_fingerprint", json_str(a, fp));
	json_push(a, st->plans, rec);
}

static int flush(struct state *st, struct nd_reader *r, char *err, size_t errlen)
{
	if (st->n == 0)
		return 0;
	double capacity = st->capacity.set ? st->capacity.v : st->inv_capacity.v;
	double eta = st->eta.set ? st->eta.v : st->inv_eta.set ? st->inv_eta.v : st->cfg->initial_eta;
	if (!st->capacity.set && !st->inv_capacity.set) {
		ndr_errorf(r, err, errlen, "forecast points at cutoff %.17g without a capacity: give --capacity or an inventory record", st->cutoff);
		return -1;
	}
	emit(st, st->cutoff, capacity, eta, st->pts, st->n, NULL, st->pool);
	st->n = 0;
	return 0;
}

static int read_point(struct state *st, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "cutoff_time_seconds", "horizon_step", "target_time_seconds", "mu_gpus", "sigma_gpus",
		"guarantee_quantile_gpus", "resource_pool", NULL };
	char kerr[200];
	if (nd_check_keys(v, ND_KEYS(keys), kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "forecast_point: %s", kerr);
		return -1;
	}
	const struct json *cut, *step, *tgt, *mu, *sg, *q, *pool = json_get(v, "resource_pool");
	if (!(cut = need(r, v, "cutoff_time_seconds", JSON_REAL, err, errlen)) || !(step = need(r, v, "horizon_step", JSON_INT, err, errlen)) ||
	    !(tgt = need(r, v, "target_time_seconds", JSON_REAL, err, errlen)) || !(mu = need(r, v, "mu_gpus", JSON_REAL, err, errlen)) ||
	    !(sg = need(r, v, "sigma_gpus", JSON_REAL, err, errlen)) || !(q = need(r, v, "guarantee_quantile_gpus", JSON_REAL, err, errlen)) ||
	    (pool && !need(r, v, "resource_pool", JSON_STRING, err, errlen)))
		return -1;
	if (pool && ev_check_id(v, "resource_pool", kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "%s", kerr);
		return -1;
	}
	const char *pname = pool ? pool->u.str.s : NULL;
	bool same = st->n > 0 && st->cutoff == json_num(cut) && (st->pool == pname || (st->pool && pname && !strcmp(st->pool, pname)));
	if (st->n > 0 && !same && flush(st, r, err, errlen))
		return -1;
	if (step->u.i != (long long)st->n + 1) {
		ndr_errorf(r, err, errlen, "forecast_point: horizon_step %lld where step %zu was expected (steps run 1, 2, ... per cutoff)",
			   step->u.i, st->n + 1);
		return -1;
	}
	struct pc_point pt = { (int)step->u.i, json_num(tgt), json_num(mu), json_num(sg), json_num(q) };
	if (pc_point_check(json_num(cut), &pt, 0, kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "forecast_point: %s", kerr);
		return -1;
	}
	st->pts = xgrow(st->pts, &st->cap, st->n + 1, sizeof *st->pts);
	st->pts[st->n++] = pt;
	st->cutoff = json_num(cut);
	st->pool = pname ? arena_strndup(st->a, pname, strlen(pname)) : NULL;
	return 0;
}

static int read_inventory(struct state *st, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "cutoff_time_seconds", "resource_pool", "capacity_gpus", "eta", "idle_gpus", "running_spot_gpus", NULL };
	char kerr[200];
	if (nd_check_keys(v, ND_KEYS(keys), kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "inventory: %s", kerr);
		return -1;
	}
	const struct json *cap = need(r, v, "capacity_gpus", JSON_REAL, err, errlen), *x;
	if (!cap || flush(st, r, err, errlen))
		return -1;
	if (!(json_num(cap) > 0 && json_num(cap) <= PC_MAX_CAPACITY)) {
		ndr_errorf(r, err, errlen, "inventory: capacity_gpus must be in (0, 2^40 = 1099511627776], not %.17g", json_num(cap));
		return -1;
	}
	st->inv_capacity = (struct opt_num){ true, json_num(cap) };
	st->inv_eta.set = false;
	if (json_get(v, "eta")) {
		if (!(x = need(r, v, "eta", JSON_REAL, err, errlen)))
			return -1;
		if (!(json_num(x) > 0)) {
			ndr_errorf(r, err, errlen, "inventory: eta must be > 0");
			return -1;
		}
		st->inv_eta = (struct opt_num){ true, json_num(x) };
	}
	st->inv_idle = st->inv_running = 0;
	if (json_get(v, "idle_gpus")) {
		if (!(x = need(r, v, "idle_gpus", JSON_REAL, err, errlen)))
			return -1;
		st->inv_idle = json_num(x);
	}
	if (!(st->inv_idle >= 0 && st->inv_idle <= PC_MAX_CAPACITY)) {
		ndr_errorf(r, err, errlen, "inventory: idle_gpus must be in [0, 2^40]");
		return -1;
	}
	if (json_get(v, "running_spot_gpus")) {
		if (!(x = need(r, v, "running_spot_gpus", JSON_REAL, err, errlen)))
			return -1;
		st->inv_running = json_num(x);
	}
	if (!(st->inv_running >= 0 && st->inv_running <= PC_MAX_CAPACITY)) {
		ndr_errorf(r, err, errlen, "inventory: running_spot_gpus must be in [0, 2^40]");
		return -1;
	}
	return 0;
}

/* A bundle is evidence only when it verifies (pc_bundle_verify): its own fingerprints, the
 * links between its documents and every value range; the options and inventory override
 * its capacity and eta as documented. */
static int read_bundle(struct state *st, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	struct pc_bundle_view bv;
	char verr[512];
	if (flush(st, r, err, errlen))
		return -1;
	if (pc_bundle_verify(v, st->cfg, st->a, &bv, verr, sizeof verr)) {
		ndr_errorf(r, err, errlen, "%s", verr);
		return -1;
	}
	/* the forecast's fingerprint is copied into the plan: an identifier like any other */
	char kerr[200];
	if (ev_check_id(json_get(v, "demand_forecast"), "forecast_fingerprint", kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "observation_bundle: %s", kerr);
		return -1;
	}
	emit(st, bv.cutoff, st->capacity.set ? st->capacity.v : st->inv_capacity.set ? st->inv_capacity.v : bv.capacity,
	     st->eta.set ? st->eta.v : st->inv_eta.set ? st->inv_eta.v : bv.eta, bv.points, bv.n, bv.forecast_fingerprint, NULL);
	return 0;
}

static void process(struct state *st, const char *path)
{
	char err[1024] = "";
	struct arena scratch;
	struct json *v, *hdr = NULL;
	enum nd_event ev;
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	if (!r)
		die("%s", err);
	arena_init(&scratch);
	while ((ev = ndr_next(r, &scratch, &v, err, sizeof err)) > 0) {
		int rc = 0;
		if (ev == ND_HEADER)
			hdr = json_clone(st->a, v);
		else if (ev == ND_END) {
			rc = flush(st, r, err, sizeof err);
			const struct json *schema = json_get(hdr, "schema");
			nd_header_add_stream(st->a, st->inputs, strcmp(path, "-") ? path : "<stdin>",
					     schema && schema->kind == JSON_STRING ? schema->u.str.s : "?", ndr_fingerprint(r));
		} else {
			const char *type = json_get(v, "type")->u.str.s;
			if (!strcmp(type, "forecast_point"))
				rc = read_point(st, r, v, err, sizeof err);
			else if (!strcmp(type, "inventory"))
				rc = read_inventory(st, r, v, err, sizeof err);
			else if (!strcmp(type, "observation_bundle"))
				rc = read_bundle(st, r, v, err, sizeof err);
		}
		if (rc)
			die("%s", err);
		arena_reset(&scratch);
	}
	if (ev == ND_ERROR)
		die("%s", err);
	if (ndr_streams(r) == 0)
		die("%s: empty input: expected a stream of forecast points or bundles", ndr_name(r));
	arena_release(&scratch);
	ndr_close(r);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "controller", required_argument, NULL, 'c' },
		{ "eta", required_argument, NULL, 'e' },
		{ "capacity", required_argument, NULL, 'C' },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *controller = NULL;
	struct state st = { 0 };
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":c:e:C:i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': controller = optarg; break;
		case 'e': st.eta = (struct opt_num){ true, opt_double("eta", optarg) }; break;
		case 'C': st.capacity = (struct opt_num){ true, opt_double("capacity", optarg) }; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	const char *output = cli.output;
	if (!controller)
		usage_fail(usage, "missing --controller FILE");
	if (st.eta.set && !(st.eta.v > 0))
		usage_error(usage, "--eta: must be > 0, not '%.17g'", st.eta.v);
	if (st.capacity.set && !(st.capacity.v > 0 && st.capacity.v <= PC_MAX_CAPACITY))
		usage_error(usage, "--capacity: must be in (0, 2^40 = 1099511627776], not '%.17g'", st.capacity.v);

	char err[2048];
	struct arena a;
	struct pc_config cfg;
	arena_init(&a);
	if (pc_config_load(&cfg, controller, &a, err, sizeof err))
		die("%s", err);
	/* a family whose plan is per pool, from its own inventory: its bundle carries it */
	if (cfg.family->quota_refusal)
		die("'%s' %s", controller, cfg.family->quota_refusal);
	st.a = &a;
	st.cfg = &cfg;
	st.plans = json_array(&a);
	struct json *hdr = nd_header_new(&a, QUOTA_SCHEMA, "quota");
	st.inputs = hdr;
	for (size_t i = 0; i < cli.ninputs; i++)
		process(&st, cli.inputs[i]);
	struct json *params = json_get(hdr, "params");
	json_set(&a, params, "controller_id", json_str(&a, cfg.controller_id));
	json_set(&a, params, "controller_fingerprint", json_str(&a, cfg.fingerprint));
	json_set(&a, params, "eta", st.eta.set ? json_real(&a, st.eta.v) : json_null(&a));
	json_set(&a, params, "capacity_gpus", st.capacity.set ? json_real(&a, st.capacity.v) : json_null(&a));
	struct nd_writer *w = ndw_open(output, err, sizeof err);
	if (!w)
		die("%s", err);
	int rc = ndw_header(w, hdr, err, sizeof err);
	for (size_t i = 0; !rc && i < st.plans->u.arr.n; i++)
		rc = ndw_record(w, st.plans->u.arr.items[i], err, sizeof err);
	if (rc || ndw_end(w, NULL, err, sizeof err)) {
		ndw_abort(w);
		die("%s", err);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	free(st.pts);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
