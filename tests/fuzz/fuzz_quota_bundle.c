/* The quota bundle reader: observation_bundle records through pc_bundle_verify (quota's
 * check before it reads a bundle), first as given, then with every fingerprint recomputed
 * (snapshot -> forecast -> plan -> bundle, the controller's own fingerprint set), so that
 * the fuzzer reaches the value ranges behind the SHA-256 checks; forecast_point records
 * through pc_point_check. The input is sealed as one stream; the controller is
 * configs/controllers/predictive-spot-v1.json, built in. */
#include "fuzz.h"
#include "core/ndjson.h"
#include "predict/predict.h"
#include <string.h>

static const char config_json[] = "{\"schema_version\":\"schednav.predictive-controller/v1\",\"controller_id\":\"predictive-spot-v1\",\"model\":\"seasonal-gaussian-v1\",\"observation_interval_seconds\":300,\"aggregation_interval_seconds\":3600,\"lookback_hours\":672,\"forecast_horizon_hours\":4,\"retrain_interval_seconds\":86400,\"guarantee_probability\":0.9,\"guarantee_horizons_hours\":[1,2,4],\"minimum_history_hours\":24,\"minimum_sigma_gpus\":1.0,\"initial_eta\":1.0,\"minimum_eta\":0.25,\"maximum_eta\":1.25,\"feedback_window_seconds\":14400,\"starvation_increase_after_seconds\":3600,\"high_eviction_ratio\":1.5,\"low_eviction_ratio\":0.5,\"eta_increase_step\":0.1}";

/* doc[key] = the SHA-256 of doc without key (and without "type") */
static void restamp(struct arena *a, struct json *doc, const char *key)
{
	if (!doc || doc->kind != JSON_OBJECT)
		return;
	struct json *rest = json_object(a);
	char fp[65];
	for (size_t i = 0; i < doc->u.obj.n; i++)
		if (strcmp(doc->u.obj.keys[i], key) && strcmp(doc->u.obj.keys[i], "type"))
			json_set(a, rest, doc->u.obj.keys[i], doc->u.obj.vals[i]);
	pc_canonical_sha256(rest, fp);
	json_set(a, doc, key, json_str(a, fp));
}

static void reseal(struct arena *a, struct json *b, const struct pc_config *cfg)
{
	struct json *s = json_get(b, "observation_snapshot"), *f = json_get(b, "demand_forecast"), *q = json_get(b, "spot_quota_plan");
	const struct json *v;
	json_set(a, b, "controller_fingerprint", json_str(a, cfg->fingerprint));
	restamp(a, s, "snapshot_fingerprint");
	if (f && f->kind == JSON_OBJECT) {
		json_set(a, f, "controller_fingerprint", json_str(a, cfg->fingerprint));
		if ((v = json_get(s, "snapshot_fingerprint")))
			json_set(a, f, "observation_snapshot_fingerprint", json_clone(a, v));
		restamp(a, f, "forecast_fingerprint");
	}
	if (q && q->kind == JSON_OBJECT) {
		json_set(a, q, "controller_fingerprint", json_str(a, cfg->fingerprint));
		if ((v = json_get(f, "forecast_fingerprint")))
			json_set(a, q, "forecast_fingerprint", json_clone(a, v));
		restamp(a, q, "quota_plan_fingerprint");
	}
	restamp(a, b, "observation_bundle_fingerprint");
}

static double num_or(const struct json *o, const char *k)
{
	const struct json *v = json_get(o, k);
	return v && json_is_num(v) ? json_num(v) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct arena ca;
	static struct pc_config cfg;
	static int ready;
	char err[1024];
	if (!ready) {
		struct json *doc;
		arena_init(&ca);
		if (json_parse(&ca, config_json, sizeof config_json - 1, &doc, err, sizeof err) ||
		    pc_config_from_json(&cfg, doc, &ca, err, sizeof err))
			__builtin_trap();
		ready = 1;
	}
	struct strbuf sb;
	struct arena a;
	struct json *rec;
	struct pc_bundle_view bv;
	enum nd_event ev;
	fz_seal(data, size, &sb);
	struct nd_reader *r = ndr_open(fz_file(0, sb.buf, sb.len), err, sizeof err);
	arena_init(&a);
	while (r && (ev = ndr_next(r, &a, &rec, err, sizeof err)) > 0) {
		const struct json *type = json_get(rec, "type");
		if (ev == ND_RECORD && type && type->kind == JSON_STRING && !strcmp(type->u.str.s, "observation_bundle")) {
			(void)pc_bundle_verify(rec, &cfg, &a, &bv, err, sizeof err);
			reseal(&a, rec, &cfg);
			if (pc_bundle_verify(rec, &cfg, &a, &bv, err, sizeof err) == 0) {
				/* what quota then computes from it */
				struct pc_quota_input in = { bv.points, bv.n, bv.capacity, bv.eta, false, false, 0, 0 };
				for (size_t i = 0; i < cfg.n_horizons; i++)
					(void)pc_quota(&in, cfg.horizons[i]);
			}
		} else if (ev == ND_RECORD && type && type->kind == JSON_STRING && !strcmp(type->u.str.s, "forecast_point")) {
			struct pc_point p = { 1, num_or(rec, "target_time_seconds"), num_or(rec, "mu_gpus"), num_or(rec, "sigma_gpus"),
					      num_or(rec, "guarantee_quantile_gpus") };
			(void)pc_point_check(num_or(rec, "cutoff_time_seconds"), &p, num_or(rec, "capacity_gpus"), err, sizeof err);
		}
		arena_reset(&a);
	}
	if (r)
		ndr_close(r);
	arena_release(&a);
	sb_release(&sb);
	return 0;
}
