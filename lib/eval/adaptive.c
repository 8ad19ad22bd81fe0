#include "eval/adaptive.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "core/ndjson.h"
#include "eval/evidence.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

bool ev_ad_id_ok(const char *s)
{
	return s && !text_id_problem(s, strlen(s));   /* the one identifier rule (docs/hardening.md) */
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

double ev_ad_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Zeroed arena memory (arena_alloc never returns NULL: xalloc.h). */
static void *alloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n ? n : 1);
	memset(p, 0, n ? n : 1);
	return p;
}

/* Members: a string identifier, a finite number, an object, an array. */
static const char *id_of(const struct json *o, const char *key, const char *what, char *err, size_t errlen)
{
	const struct json *v = json_get(o, key);
	if (!v || v->kind != JSON_STRING || !ev_ad_id_ok(v->u.str.s) || strlen(v->u.str.s) != v->u.str.len) {
		fail(err, errlen, "%s: '%s' must be a non-empty string without control characters", what, key);
		return NULL;
	}
	return v->u.str.s;
}

static int num_of(const struct json *o, const char *key, double *out, const char *what, char *err, size_t errlen)
{
	const struct json *v = json_get(o, key);
	if (!v || !json_is_num(v) || !isfinite(json_num(v)))
		return fail(err, errlen, "%s: '%s' must be a finite number", what, key);
	*out = json_num(v);
	return 0;
}

static const struct json *kind_of(const struct json *o, const char *key, enum json_kind kind, const char *what, char *err, size_t errlen)
{
	const struct json *v = json_get(o, key);
	if (!v || v->kind != kind) {
		fail(err, errlen, "%s: '%s' must be %s %s", what, key, kind == JSON_ARRAY ? "an" : "a", json_kind_name(kind));
		return NULL;
	}
	return v;
}

/* Entries of a NULL-terminated key list, the NULL included (what ND_KEYS gives an array). */
static size_t key_count(const char *const *keys)
{
	size_t n = 0;
	while (keys[n])
		n++;
	return n + 1;
}

/* keys: a NULL-terminated list of nkeys entries (the NULL counted); pass ND_KEYS(array). */
static int keys_exactly(const struct json *o, const char *const *keys, size_t nkeys, const char *what, char *err, size_t errlen)
{
	char e[256];
	if (!o || o->kind != JSON_OBJECT)
		return fail(err, errlen, "%s: not an object", what);
	if (nd_check_keys(o, keys, nkeys, e, sizeof e))
		return fail(err, errlen, "%s: %s", what, e);
	for (const char *const *k = keys; *k; k++)
		if (!json_get(o, *k))
			return fail(err, errlen, "%s: missing key '%s'", what, *k);
	return 0;
}

static long action_index(const struct ad_design *d, const char *id)
{
	for (size_t i = 0; i < d->nactions; i++)
		if (!strcmp(d->actions[i], id))
			return (long)i;
	return -1;
}

int ev_ad_design_parse(struct ad_design *d, const struct json *rec, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "schema_version", "trace_id", "trace_fingerprint", "capacity_gpus",
		"windows_fingerprint", "window_rule", "carry_in", "baseline_action_id", "actions", "candidate_count", "split",
		"workload_rule", "windows", "design_fingerprint", NULL };
	static const char *const action_keys[] = { "action_id", "policy_fingerprint", NULL };
	static const char *const window_keys[] = { "window_id", "partition", "start", "end", "warmup_start",
		"peak_pressure", "mean_pressure", "spot_share", NULL };
	static const char *const rule_keys[] = { "rule_id", "source", "peak_pressure_threshold", "spot_share_threshold", NULL };
	const char *what = "adaptive_design";
	memset(d, 0, sizeof *d);
	if (keys_exactly(rec, ND_KEYS(keys), what, err, errlen))
		return -1;
	const struct json *sv = json_get(rec, "schema_version");
	if (sv->kind != JSON_STRING || strcmp(sv->u.str.s, AD_DESIGN_SCHEMA))
		return fail(err, errlen, "%s: schema_version must be '%s'", what, AD_DESIGN_SCHEMA);
	if (!ev_self_fp_ok(rec, "design_fingerprint"))
		return fail(err, errlen, "%s: 'design_fingerprint' does not verify (the design was edited)", what);
	d->fingerprint = json_get_str(rec, "design_fingerprint");
	if (!(d->baseline = id_of(rec, "baseline_action_id", what, err, errlen)))
		return -1;
	const struct json *acts = kind_of(rec, "actions", JSON_ARRAY, what, err, errlen);
	if (!acts)
		return -1;
	d->nactions = acts->u.arr.n;
	if (d->nactions < AD_MIN_CANDIDATES || d->nactions > AD_MAX_CANDIDATES)
		return fail(err, errlen, "%s: the catalogue must hold %d to %d actions, not %zu", what, AD_MIN_CANDIDATES, AD_MAX_CANDIDATES, d->nactions);
	d->actions = alloc(a, d->nactions * sizeof *d->actions);
	d->policy_fps = alloc(a, d->nactions * sizeof *d->policy_fps);
	for (size_t i = 0; i < d->nactions; i++) {
		const struct json *o = acts->u.arr.items[i];
		if (keys_exactly(o, ND_KEYS(action_keys), "adaptive_design action", err, errlen) ||
		    !(d->actions[i] = id_of(o, "action_id", "adaptive_design action", err, errlen)) ||
		    !(d->policy_fps[i] = id_of(o, "policy_fingerprint", "adaptive_design action", err, errlen)))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->actions[j], d->actions[i]))
				return fail(err, errlen, "%s: action '%s' appears twice in the catalogue", what, d->actions[i]);
	}
	if (action_index(d, d->baseline) < 0)
		return fail(err, errlen, "%s: the baseline '%s' is not in the catalogue", what, d->baseline);
	const struct json *rule = json_get(rec, "workload_rule");
	if (keys_exactly(rule, ND_KEYS(rule_keys), "adaptive_design workload_rule", err, errlen) ||
	    num_of(rule, "peak_pressure_threshold", &d->peak_threshold, what, err, errlen) ||
	    num_of(rule, "spot_share_threshold", &d->share_threshold, what, err, errlen))
		return -1;
	const struct json *ws = kind_of(rec, "windows", JSON_ARRAY, what, err, errlen);
	if (!ws)
		return -1;
	d->nwindows = ws->u.arr.n;
	d->windows = alloc(a, d->nwindows * sizeof *d->windows);
	for (size_t i = 0; i < d->nwindows; i++) {
		const struct json *o = ws->u.arr.items[i];
		struct ad_window *w = &d->windows[i];
		const char *part;
		if (keys_exactly(o, ND_KEYS(window_keys), "adaptive_design window", err, errlen) ||
		    !(w->id = id_of(o, "window_id", "adaptive_design window", err, errlen)) ||
		    !(part = id_of(o, "partition", "adaptive_design window", err, errlen)) ||
		    num_of(o, "start", &w->start, w->id, err, errlen) || num_of(o, "end", &w->end, w->id, err, errlen) ||
		    num_of(o, "warmup_start", &w->warmup_start, w->id, err, errlen) ||
		    num_of(o, "peak_pressure", &w->peak_pressure, w->id, err, errlen) ||
		    num_of(o, "mean_pressure", &w->mean_pressure, w->id, err, errlen) ||
		    num_of(o, "spot_share", &w->spot_share, w->id, err, errlen))
			return -1;
		if (strcmp(part, "calibration") && strcmp(part, "evaluation"))
			return fail(err, errlen, "%s: window '%s': partition must be 'calibration' or 'evaluation'", what, w->id);
		w->evaluation = !strcmp(part, "evaluation");
		if (!w->evaluation) {
			if (i != d->ncalibration)
				return fail(err, errlen, "%s: calibration window '%s' comes after an evaluation window", what, w->id);
			d->ncalibration++;
		}
		if (i > 0 && !(w->start > d->windows[i - 1].start))
			return fail(err, errlen, "%s: window '%s' is not after '%s' (windows are chronological)", what, w->id, d->windows[i - 1].id);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->windows[j].id, w->id))
				return fail(err, errlen, "%s: window '%s' appears twice", what, w->id);
	}
	if (d->ncalibration == 0 || d->ncalibration == d->nwindows)
		return fail(err, errlen, "%s: the split leaves a partition empty (%zu calibration of %zu windows)", what, d->ncalibration, d->nwindows);
	return 0;
}

/* workload-rule-v1 (docs/studies-rules.md): the catalogue v3 ids it names, in its order. */
static const char *const rule_ids[5] = { "native-fifo", "native-preemptive-3600", "native-preemptive-g3600-b09-d0000",
	"native-preemptive-g3600-b09-d0900", "native-preemptive-g3600-b09-loss-aware" };
enum { FIFO, P3600, D0000, D0900, LOSS };

int ev_ad_rule_applies(const struct ad_design *d, char *err, size_t errlen)
{
	bool ok = d->nactions == 5 && !strcmp(d->baseline, rule_ids[FIFO]);
	for (int k = 0; ok && k < 5; k++)
		ok = action_index(d, rule_ids[k]) >= 0;
	if (!ok)
		return fail(err, errlen, "%s needs the catalogue v3 (native-fifo as the baseline, native-preemptive-3600, "
			    "native-preemptive-g3600-b09-d0000, native-preemptive-g3600-b09-d0900, "
			    "native-preemptive-g3600-b09-loss-aware)", AD_RULE_ID);
	return 0;
}

const char *ev_ad_rule_candidates(const struct ad_window *w, const struct ad_design *d, const char *ids[3])
{
	bool pressure = w->peak_pressure >= d->peak_threshold, share = w->spot_share >= d->share_threshold;
	static const int sets[4][3] = { { FIFO, D0000, D0900 }, { FIFO, D0900, LOSS }, { FIFO, P3600, D0000 }, { FIFO, D0000, LOSS } };
	static const char *const reasons[4] = { "lower-pressure-lower-spot-share", "lower-pressure-high-spot-share",
		"high-pressure-lower-spot-share", "high-pressure-high-spot-share" };
	int k = (pressure ? 2 : 0) + (share ? 1 : 0);
	for (int i = 0; i < 3; i++)
		ids[i] = rule_ids[sets[k][i]];
	return reasons[k];
}

static const char rule_definition[] =
	"A pre-registered workload rule: three candidates per evaluation window from the window's "
	"peak requested pressure and Spot share against the calibration medians; it reads no "
	"simulation outcome and chooses no placement.";

struct json *ev_ad_rule_record(struct arena *a, const struct ad_design *d)
{
	struct json *rec = json_object(a), *ws = json_array(a);
	json_set(a, rec, "type", json_str(a, "rule_selections"));
	json_set(a, rec, "schema_version", json_str(a, AD_RULE_SCHEMA));
	json_set(a, rec, "controller_id", json_str(a, AD_RULE_ID));
	json_set(a, rec, "design_fingerprint", json_str(a, d->fingerprint));
	json_set(a, rec, "selection_basis", json_str(a, "workload_only"));
	for (size_t i = d->ncalibration; i < d->nwindows; i++) {
		const char *ids[3];
		const char *reason = ev_ad_rule_candidates(&d->windows[i], d, ids);
		struct json *x = json_object(a), *c = json_array(a);
		json_set(a, x, "window_id", json_str(a, d->windows[i].id));
		for (int k = 0; k < 3; k++)
			json_push(a, c, json_str(a, ids[k]));
		json_set(a, x, "candidate_action_ids", c);
		json_set(a, x, "reason_code", json_str(a, reason));
		json_push(a, ws, x);
	}
	json_set(a, rec, "windows", ws);
	json_set(a, rec, "definition", json_str(a, rule_definition));
	ev_self_fp_stamp(a, rec, "fingerprint");
	return rec;
}

/* The per-window list of a controller (the agent's selections, the rule's windows): every
 * evaluation window of d exactly once, 3-5 distinct catalogue ids with the baseline, a
 * reason code; with observation, each item's observation_fingerprint must be it. */
static int parse_windows(struct ad_selections *s, const struct json *list, const char *const *item_keys, const char *observation, const struct ad_design *d, struct arena *a, const char *what, char *err, size_t errlen)
{
	size_t neval = d->nwindows - d->ncalibration;
	s->candidates = alloc(a, neval * sizeof *s->candidates);
	s->ncandidates = alloc(a, neval * sizeof *s->ncandidates);
	s->reasons = alloc(a, neval * sizeof *s->reasons);
	bool *seen = alloc(a, neval);
	for (size_t i = 0; i < list->u.arr.n; i++) {
		const struct json *o = list->u.arr.items[i];
		char wwhat[360];
		snprintf(wwhat, sizeof wwhat, "%s: item %zu", what, i);
		if (keys_exactly(o, item_keys, key_count(item_keys), wwhat, err, errlen))
			return -1;
		const char *wid = id_of(o, "window_id", wwhat, err, errlen);
		if (!wid)
			return -1;
		size_t k = 0;
		while (k < neval && strcmp(d->windows[d->ncalibration + k].id, wid))
			k++;
		if (k == neval) {
			for (size_t c = 0; c < d->ncalibration; c++)
				if (!strcmp(d->windows[c].id, wid))
					return fail(err, errlen, "%s: window '%s' is a calibration window (selections are for evaluation windows only)", what, wid);
			return fail(err, errlen, "%s: window '%s' is not a window of the design", what, wid);
		}
		if (seen[k])
			return fail(err, errlen, "%s: window '%s' appears twice (every evaluation window exactly once)", what, wid);
		seen[k] = true;
		snprintf(wwhat, sizeof wwhat, "%s: window '%s'", what, wid);
		if (observation) {
			const char *obs = json_get_str(o, "observation_fingerprint");
			if (!obs || strcmp(obs, observation))
				return fail(err, errlen, "%s: observed '%s', not this design ('%s')", wwhat, obs ? obs : "?", observation);
		}
		const struct json *c = kind_of(o, "candidate_action_ids", JSON_ARRAY, wwhat, err, errlen);
		if (!c)
			return -1;
		size_t n = c->u.arr.n;
		if (n < AD_MIN_CANDIDATES || n > AD_MAX_CANDIDATES)
			return fail(err, errlen, "%s: %zu candidates; a window takes %d to %d", wwhat, n, AD_MIN_CANDIDATES, AD_MAX_CANDIDATES);
		const char **ids = alloc(a, n * sizeof *ids);
		bool baseline = false;
		for (size_t j = 0; j < n; j++) {
			const struct json *v = c->u.arr.items[j];
			if (v->kind != JSON_STRING || !ev_ad_id_ok(v->u.str.s))
				return fail(err, errlen, "%s: candidate %zu is not an action id", wwhat, j);
			ids[j] = v->u.str.s;
			if (action_index(d, ids[j]) < 0)
				return fail(err, errlen, "%s: '%s' is not an action of the catalogue", wwhat, ids[j]);
			for (size_t m = 0; m < j; m++)
				if (!strcmp(ids[m], ids[j]))
					return fail(err, errlen, "%s: '%s' is named twice", wwhat, ids[j]);
			baseline = baseline || !strcmp(ids[j], d->baseline);
		}
		if (!baseline)
			return fail(err, errlen, "%s: the candidates must include the baseline '%s'", wwhat, d->baseline);
		const struct json *r = json_get(o, "reason_code");
		if (r->kind != JSON_STRING || r->u.str.len == 0 || r->u.str.len > AD_REASON_MAX || !ev_ad_id_ok(r->u.str.s) ||
		    strlen(r->u.str.s) != r->u.str.len)
			return fail(err, errlen, "%s: 'reason_code' must be one line of 1 to %d bytes", wwhat, AD_REASON_MAX);
		s->candidates[k] = ids;
		s->ncandidates[k] = n;
		s->reasons[k] = r->u.str.s;
	}
	for (size_t k = 0; k < neval; k++)
		if (!seen[k])
			return fail(err, errlen, "%s: evaluation window '%s' has no selection (every evaluation window exactly once)",
				    what, d->windows[d->ncalibration + k].id);
	return 0;
}

static const char *what_of(const struct json *rec, char *what, size_t n)
{
	const struct json *cid = json_get(rec, "controller_id");
	snprintf(what, n, "controller '%.200s'", cid && cid->kind == JSON_STRING ? cid->u.str.s : "?");
	return what;
}

int ev_ad_agent_parse(struct ad_selections *s, const struct json *rec, const struct ad_design *d, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "schema_version", "controller_id", "mode", "model_id", "source",
		"safety_action_id", "selections", "verified_stage_receipt_count", "source_anomalies", "selections_fingerprint", NULL };
	static const char *const item_keys[] = { "observation_fingerprint", "window_id", "candidate_action_ids", "reason_code",
		"llm_call_count", "agent_stage_receipts", NULL };
	char what[320];
	memset(s, 0, sizeof *s);
	if (!rec || rec->kind != JSON_OBJECT)
		return fail(err, errlen, "controller_selections: not an object");
	what_of(rec, what, sizeof what);
	if (keys_exactly(rec, ND_KEYS(keys), what, err, errlen))
		return -1;
	const struct json *sv = json_get(rec, "schema_version");
	if (sv->kind != JSON_STRING || strcmp(sv->u.str.s, AD_SELECTIONS_SCHEMA))
		return fail(err, errlen, "%s: schema_version must be '%s'", what, AD_SELECTIONS_SCHEMA);
	if (!ev_self_fp_ok(rec, "selections_fingerprint"))
		return fail(err, errlen, "%s: 'selections_fingerprint' does not verify (the selections were edited)", what);
	if (!(s->controller_id = id_of(rec, "controller_id", what, err, errlen)) || !(s->model_id = id_of(rec, "model_id", what, err, errlen)) ||
	    !id_of(rec, "mode", what, err, errlen))
		return -1;
	if (!strcmp(s->controller_id, AD_RULE_ID))
		return fail(err, errlen, "%s: the agent may not use the rule's controller id", what);
	const char *safety = json_get_str(rec, "safety_action_id");
	if (!safety || strcmp(safety, d->baseline))
		return fail(err, errlen, "%s: the safety action is '%s', not the design's baseline '%s'", what, safety ? safety : "?", d->baseline);
	s->fingerprint = json_get_str(rec, "selections_fingerprint");
	const struct json *list = kind_of(rec, "selections", JSON_ARRAY, what, err, errlen);
	return list ? parse_windows(s, list, item_keys, d->fingerprint, d, a, what, err, errlen) : -1;
}

int ev_ad_rule_parse(struct ad_selections *s, const struct json *rec, const struct ad_design *d, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "type", "schema_version", "controller_id", "design_fingerprint", "selection_basis",
		"windows", "definition", "fingerprint", NULL };
	static const char *const item_keys[] = { "window_id", "candidate_action_ids", "reason_code", NULL };
	char what[320];
	memset(s, 0, sizeof *s);
	if (!rec || rec->kind != JSON_OBJECT)
		return fail(err, errlen, "rule_selections: not an object");
	what_of(rec, what, sizeof what);
	if (keys_exactly(rec, ND_KEYS(keys), what, err, errlen))
		return -1;
	const struct json *sv = json_get(rec, "schema_version");
	if (sv->kind != JSON_STRING || !nd_schema_is(sv->u.str.s, AD_RULE_SCHEMA))
		return fail(err, errlen, "%s: schema_version must be '%s'", what, AD_RULE_SCHEMA);
	if (!ev_self_fp_ok(rec, "fingerprint"))
		return fail(err, errlen, "%s: 'fingerprint' does not verify (the selections were edited)", what);
	const char *dfp = json_get_str(rec, "design_fingerprint");
	if (!dfp || strcmp(dfp, d->fingerprint))
		return fail(err, errlen, "%s: made for design '%s', not this design ('%s')", what, dfp ? dfp : "?", d->fingerprint);
	if (!(s->controller_id = id_of(rec, "controller_id", what, err, errlen)))
		return -1;
	s->fingerprint = json_get_str(rec, "fingerprint");
	const struct json *list = kind_of(rec, "windows", JSON_ARRAY, what, err, errlen);
	return list ? parse_windows(s, list, item_keys, NULL, d, a, what, err, errlen) : -1;
}
