#include "eval/slo.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char audit_definition[] =
	"audit_passed is true when the metrics schema is supported, the metrics fingerprint verifies, "
	"the three ledger checks hold, the FIFO baseline verifies and is compatible whenever a constraint "
	"needs it, and every hard constraint passed; an unavailable hard constraint fails; soft "
	"constraints are counted in soft_violation_count and never gate";

static bool nonempty_str(const struct json *v)
{
	return v && v->kind == JSON_STRING && v->u.str.len > 0;
}

static int fail(char *err, size_t errlen, const char *path, const char *what, const char *msg)
{
	snprintf(err, errlen, "%s: %s%s%s", path, what, *what ? ": " : "", msg);
	return -1;
}

/* SLO and constraint ids follow the identifier rule (core/text.h). */
static int id_bad(char *err, size_t errlen, const char *path, const char *what, const char *key, const struct json *v)
{
	const char *why = text_id_problem(v->u.str.s, v->u.str.len);
	if (!why)
		return 0;
	char q[100], msg[200];
	text_quote(q, sizeof q, v->u.str.s, v->u.str.len);
	snprintf(msg, sizeof msg, "'%s' '%s' %s", key, q, why);
	return fail(err, errlen, path, what, msg);
}

static int load_constraint(struct slo_constraint *c, const struct json *v, const char *path, size_t idx, char *err, size_t errlen)
{
	static const char *const keys[] = { "id", "metric", "operator", "threshold", "severity", NULL };
	static const char *const tkeys[] = { "kind", "baseline_metric", "multiplier", "addend", NULL };
	char what[160], e[200];
	snprintf(what, sizeof what, "constraint %zu", idx + 1);
	if (v->kind != JSON_OBJECT)
		return fail(err, errlen, path, what, "not an object");
	if (nd_check_keys(v, ND_KEYS(keys), e, sizeof e))
		return fail(err, errlen, path, what, e);
	struct json *id = json_get(v, "id");
	if (!nonempty_str(id))
		return fail(err, errlen, path, what, "'id' must be a non-empty string");
	if (id_bad(err, errlen, path, what, "id", id))
		return -1;
	c->id = id->u.str.s;
	snprintf(what, sizeof what, "constraint '%s'", c->id);
	struct json *m = json_get(v, "metric");
	if (!m || m->kind != JSON_STRING)
		return fail(err, errlen, path, what, "'metric' must be a string");
	if (!ev_is_catalogue(m->u.str.s)) {
		snprintf(e, sizeof e, "unknown metric '%s'", m->u.str.s);
		return fail(err, errlen, path, what, e);
	}
	c->metric = m->u.str.s;
	struct json *op = json_get(v, "operator");
	if (!op || op->kind != JSON_STRING)
		return fail(err, errlen, path, what, "'operator' must be a string");
	if (strcmp(op->u.str.s, "<") && strcmp(op->u.str.s, "<=") && strcmp(op->u.str.s, ">") && strcmp(op->u.str.s, ">=")) {
		snprintf(e, sizeof e, "unknown operator '%s' (expected <, <=, > or >=)", op->u.str.s);
		return fail(err, errlen, path, what, e);
	}
	c->op = op->u.str.s;
	struct json *sev = json_get(v, "severity");
	if (!sev || sev->kind != JSON_STRING)
		return fail(err, errlen, path, what, "'severity' must be a string");
	if (strcmp(sev->u.str.s, "hard") && strcmp(sev->u.str.s, "soft")) {
		snprintf(e, sizeof e, "unknown severity '%s' (expected hard or soft)", sev->u.str.s);
		return fail(err, errlen, path, what, e);
	}
	c->hard = !strcmp(sev->u.str.s, "hard");
	struct json *t = json_get(v, "threshold");
	if (!t)
		return fail(err, errlen, path, what, "missing 'threshold'");
	if (json_is_num(t)) {
		c->relative = false;
		c->threshold = json_num(t);
		return 0;
	}
	if (t->kind != JSON_OBJECT)
		return fail(err, errlen, path, what, "'threshold' must be a number or a baseline_relative object");
	if (nd_check_keys(t, ND_KEYS(tkeys), e, sizeof e))
		return fail(err, errlen, path, what, e);
	const char *kind = json_get_str(t, "kind");
	if (!kind || strcmp(kind, "baseline_relative")) {
		snprintf(e, sizeof e, "unknown threshold kind '%s' (expected baseline_relative)", kind ? kind : "(none)");
		return fail(err, errlen, path, what, e);
	}
	const char *bm = json_get_str(t, "baseline_metric");
	if (!bm || !ev_is_catalogue(bm)) {
		snprintf(e, sizeof e, "unknown baseline_metric '%s'", bm ? bm : "(none)");
		return fail(err, errlen, path, what, e);
	}
	c->relative = true;
	c->baseline_metric = bm;
	c->multiplier = 1.0;
	c->addend = 0.0;
	struct json *mul = json_get(t, "multiplier"), *add = json_get(t, "addend");
	if (mul && !json_is_num(mul))
		return fail(err, errlen, path, what, "'multiplier' must be a number");
	if (add && !json_is_num(add))
		return fail(err, errlen, path, what, "'addend' must be a number");
	if (mul)
		c->multiplier = json_num(mul);
	if (add)
		c->addend = json_num(add);
	return 0;
}

static int load_ranking(struct slo_spec *s, const struct json *r, const char *path, char *err, size_t errlen)
{
	static const char *const keys[] = { "allocation_metric", "allocation_tie_band", "second_metric", "third_metric", "unresolved_tie", NULL };
	static const char *const names[] = { "allocation_metric", "second_metric", "third_metric" };
	const char **dst[] = { &s->allocation_metric, &s->second_metric, &s->third_metric };
	char e[200];
	if (r->kind != JSON_OBJECT)
		return fail(err, errlen, path, "ranking", "not an object");
	if (nd_check_keys(r, ND_KEYS(keys), e, sizeof e))
		return fail(err, errlen, path, "ranking", e);
	for (int i = 0; i < 3; i++) {
		const char *m = json_get_str(r, names[i]);
		if (!m || !ev_is_catalogue(m)) {
			snprintf(e, sizeof e, "'%s' must name a catalogue metric, not '%s'", names[i], m ? m : "(none)");
			return fail(err, errlen, path, "ranking", e);
		}
		*dst[i] = m;
	}
	if (!strcmp(s->allocation_metric, s->second_metric) || !strcmp(s->allocation_metric, s->third_metric) ||
	    !strcmp(s->second_metric, s->third_metric))
		return fail(err, errlen, path, "ranking", "the three ranking metrics must be distinct");
	struct json *band = json_get(r, "allocation_tie_band");
	if (!band || !json_is_num(band))
		return fail(err, errlen, path, "ranking", "'allocation_tie_band' must be a number");
	s->tie_band = json_num(band);
	if (!(s->tie_band > 0.0)) {
		snprintf(e, sizeof e, "'allocation_tie_band' must be > 0, not %g (a band <= 0 would leave no policy)", s->tie_band);
		return fail(err, errlen, path, "ranking", e);
	}
	s->unresolved_tie = json_get_str(r, "unresolved_tie");
	if (!s->unresolved_tie || strcmp(s->unresolved_tie, "human_approval"))
		return fail(err, errlen, path, "ranking", "'unresolved_tie' must be \"human_approval\"");
	s->has_ranking = true;
	return 0;
}

int ev_slo_load(struct slo_spec *s, const char *path, struct arena *a, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "name", "provenance", "constraints", "ranking", NULL };
	memset(s, 0, sizeof *s);
	char *buf;
	size_t len;
	char e[256];
	if (zio_slurp(path, &buf, &len, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	struct json *doc;
	int rc = json_parse(a, buf, len, &doc, e, sizeof e);
	free(buf);
	if (rc)
		return fail(err, errlen, path, "", e);
	if (doc->kind != JSON_OBJECT)
		return fail(err, errlen, path, "", "SLO spec is not a JSON object");
	if (nd_check_keys(doc, ND_KEYS(keys), e, sizeof e))
		return fail(err, errlen, path, "", e);
	const char *schema = json_get_str(doc, "schema_version");
	if (!schema || strcmp(schema, SLO_SPEC_SCHEMA)) {
		snprintf(e, sizeof e, "unsupported schema_version '%s' (expected '%s')", schema ? schema : "(none)", SLO_SPEC_SCHEMA);
		return fail(err, errlen, path, "", e);
	}
	struct json *name = json_get(doc, "name");
	if (!nonempty_str(name))
		return fail(err, errlen, path, "", "'name' must be a non-empty string");
	if (id_bad(err, errlen, path, "", "name", name))
		return -1;
	s->name = name->u.str.s;
	struct json *cs = json_get(doc, "constraints");
	if (!cs || cs->kind != JSON_ARRAY || cs->u.arr.n == 0)
		return fail(err, errlen, path, "", "'constraints' must be a non-empty array");
	s->c = xcalloc(cs->u.arr.n, sizeof *s->c);
	s->n = cs->u.arr.n;
	for (size_t i = 0; i < s->n; i++) {
		if (load_constraint(&s->c[i], cs->u.arr.items[i], path, i, err, errlen))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->c[j].id, s->c[i].id)) {
				snprintf(e, sizeof e, "duplicate constraint id '%s'", s->c[i].id);
				return fail(err, errlen, path, "", e);
			}
		if (s->c[i].relative)
			s->baseline_required = true;
	}
	struct json *r = json_get(doc, "ranking");
	if (r && load_ranking(s, r, path, err, errlen))
		return -1;
	ev_sorted_fp(doc, s->fingerprint);
	return 0;
}

void ev_slo_release(struct slo_spec *s)
{
	free(s->c);
	s->c = NULL;
	s->n = 0;
}

static bool compare_op(const char *op, double x, double t)
{
	if (!strcmp(op, "<"))
		return x < t;
	if (!strcmp(op, "<="))
		return x <= t;
	if (!strcmp(op, ">"))
		return x > t;
	return x >= t;
}

static bool flag(const struct json *rec, const char *key)
{
	struct json *v = json_get(rec, key);
	return v && v->kind == JSON_TRUE;
}

static bool same(const struct json *x, const struct json *y, const char *key)
{
	struct json *a = json_get(x, key), *b = json_get(y, key);
	return a && b && json_equal(a, b);
}

/* docs/evaluation.md §5: deep-equal source, trace_id, window, (HP, Spot) counts; baseline is fifo. */
static bool baseline_compatible(const struct json *cand, const struct json *base)
{
	const char *sched = json_get_str(base, "scheduler");
	return same(cand, base, "source") && same(cand, base, "trace_id") && same(cand, base, "evaluation_start") &&
	       same(cand, base, "evaluation_end") && same(cand, base, "hp_job_count") && same(cand, base, "spot_job_count") &&
	       sched && !strcmp(sched, "fifo");
}

struct json *ev_slo_audit(const struct slo_spec *s, struct arena *a, const struct json *cand, const char *cand_fp,
                       const struct json *baseline, const char *base_fp)
{
	bool compatible = baseline && baseline_compatible(cand, baseline);
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "audit"));
	json_set(a, rec, "slo_name", json_str(a, s->name));
	json_set(a, rec, "slo_fingerprint", json_str(a, s->fingerprint));
	json_set(a, rec, "metrics_fingerprint", json_str(a, cand_fp));
	/* The reader accepted only schednav.metrics/1 streams whose end fingerprint verified. */
	json_set(a, rec, "metrics_schema_supported", json_bool(a, true));
	json_set(a, rec, "metrics_fingerprint_valid", json_bool(a, true));
	json_set(a, rec, "trace_id", json_clone(a, json_get(cand, "trace_id")));
	json_set(a, rec, "policy_fingerprint", json_clone(a, json_get(cand, "policy_fingerprint")));
	json_set(a, rec, "action_id", json_clone(a, json_get(cand, "action_id")));
	json_set(a, rec, "scheduler", json_clone(a, json_get(cand, "scheduler")));
	struct json *b = json_object(a);
	json_set(a, b, "required", json_bool(a, s->baseline_required));
	json_set(a, b, "metrics_fingerprint", baseline ? json_str(a, base_fp) : json_null(a));
	json_set(a, b, "policy_fingerprint", baseline ? json_clone(a, json_get(baseline, "policy_fingerprint")) : json_null(a));
	json_set(a, b, "compatible_fifo", json_bool(a, compatible));
	json_set(a, rec, "baseline", b);

	struct json *cons = json_array(a), *failed = json_array(a), *unavail = json_array(a);
	bool hard_ok = true;
	long long soft_bad = 0, hard_n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct slo_constraint *c = &s->c[i];
		struct json *o = json_object(a), *src = json_object(a);
		struct json *observed = json_get(cand, c->metric);
		bool have_t = true;
		double t = c->threshold;
		if (c->relative) {
			struct json *bv = baseline ? json_get(baseline, c->baseline_metric) : NULL;
			have_t = compatible && bv && json_is_num(bv);
			if (have_t)
				t = json_num(bv) * c->multiplier + c->addend;
			json_set(a, src, "kind", json_str(a, "baseline_relative"));
			json_set(a, src, "baseline_metric", json_str(a, c->baseline_metric));
			json_set(a, src, "baseline_observed", bv ? json_clone(a, bv) : json_null(a));
			json_set(a, src, "multiplier", json_real(a, c->multiplier));
			json_set(a, src, "addend", json_real(a, c->addend));
		} else
			json_set(a, src, "kind", json_str(a, "absolute"));
		bool have_o = observed && json_is_num(observed);
		bool passed = have_o && have_t && compare_op(c->op, json_num(observed), t);
		const char *status = passed ? "passed" : (!have_o || !have_t) ? "unavailable" : "failed";
		json_set(a, o, "id", json_str(a, c->id));
		json_set(a, o, "metric", json_str(a, c->metric));
		json_set(a, o, "operator", json_str(a, c->op));
		json_set(a, o, "threshold", have_t ? json_real(a, t) : json_null(a));
		json_set(a, o, "threshold_source", src);
		json_set(a, o, "severity", json_str(a, c->hard ? "hard" : "soft"));
		json_set(a, o, "observed", observed ? json_clone(a, observed) : json_null(a));
		json_set(a, o, "status", json_str(a, status));
		json_set(a, o, "passed", json_bool(a, passed));
		json_push(a, cons, o);
		if (!strcmp(status, "failed"))
			json_push(a, failed, json_str(a, c->id));
		if (!strcmp(status, "unavailable"))
			json_push(a, unavail, json_str(a, c->id));
		if (c->hard) {
			hard_n++;
			hard_ok = hard_ok && passed;
		} else if (!passed)
			soft_bad++;
	}
	json_set(a, rec, "constraints", cons);
	json_set(a, rec, "failed_constraint_ids", failed);
	json_set(a, rec, "unavailable_constraint_ids", unavail);

	bool pre = flag(cand, "preemption_ledger_consistent"), run = flag(cand, "spot_run_ledger_consistent");
	bool gua = flag(cand, "spot_guarantee_ledger_consistent");
	bool base_fp_ok = s->baseline_required ? baseline != NULL : true;
	bool base_compat = s->baseline_required ? compatible : true;
	struct json *ev = json_object(a);
	json_set(a, ev, "preemption_ledger_consistent", json_bool(a, pre));
	json_set(a, ev, "spot_run_ledger_consistent", json_bool(a, run));
	json_set(a, ev, "spot_guarantee_ledger_consistent", json_bool(a, gua));
	json_set(a, ev, "baseline_required", json_bool(a, s->baseline_required));
	json_set(a, ev, "baseline_metrics_fingerprint_valid", json_bool(a, base_fp_ok));
	json_set(a, ev, "baseline_compatible_fifo", json_bool(a, base_compat));
	json_set(a, rec, "evidence_checks", ev);
	json_set(a, rec, "audit_passed", json_bool(a, pre && run && gua && base_fp_ok && base_compat && hard_ok));
	json_set(a, rec, "soft_violation_count", json_int(a, soft_bad));
	json_set(a, rec, "hard_constraint_count", json_int(a, hard_n));
	json_set(a, rec, "definition", json_str(a, audit_definition));
	ev_self_fp_stamp(a, rec, "audit_fingerprint");
	return rec;
}

int ev_slo_audit_check(const struct json *rec, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"type", "slo_name", "slo_fingerprint", "metrics_fingerprint", "metrics_schema_supported",
		"metrics_fingerprint_valid", "trace_id", "policy_fingerprint", "action_id", "scheduler", "baseline",
		"constraints", "failed_constraint_ids", "unavailable_constraint_ids", "evidence_checks", "audit_passed",
		"soft_violation_count", "hard_constraint_count", "definition", "audit_fingerprint", NULL
	};
	char e[200];
	if (nd_check_keys(rec, ND_KEYS(keys), e, sizeof e)) {
		snprintf(err, errlen, "audit record: %s", e);
		return -1;
	}
	for (const char *const *k = keys; *k; k++)
		if (!json_get(rec, *k)) {
			snprintf(err, errlen, "audit record: missing key '%s'", *k);
			return -1;
		}
	static const char *const strs[] = { "slo_fingerprint", "metrics_fingerprint", "policy_fingerprint", "action_id", "audit_fingerprint", NULL };
	for (const char *const *k = strs; *k; k++)
		if (!json_get_str(rec, *k)) {
			snprintf(err, errlen, "audit record: '%s' must be a string", *k);
			return -1;
		}
	static const char *const bools[] = { "metrics_schema_supported", "metrics_fingerprint_valid", "audit_passed", NULL };
	for (const char *const *k = bools; *k; k++) {
		struct json *v = json_get(rec, *k);
		if (v->kind != JSON_TRUE && v->kind != JSON_FALSE) {
			snprintf(err, errlen, "audit record: '%s' must be a boolean", *k);
			return -1;
		}
	}
	struct json *cons = json_get(rec, "constraints");
	if (cons->kind != JSON_ARRAY) {
		snprintf(err, errlen, "audit record: 'constraints' must be an array");
		return -1;
	}
	for (size_t i = 0; i < cons->u.arr.n; i++) {
		struct json *c = cons->u.arr.items[i], *p = json_get(c, "passed");
		if (!json_get_str(c, "id") || !p || (p->kind != JSON_TRUE && p->kind != JSON_FALSE)) {
			snprintf(err, errlen, "audit record: constraint %zu has no string 'id' or boolean 'passed'", i + 1);
			return -1;
		}
	}
	struct json *b = json_get(rec, "baseline");
	if (b->kind != JSON_OBJECT) {
		snprintf(err, errlen, "audit record: 'baseline' must be an object");
		return -1;
	}
	if (ev_check_id(rec, "action_id", err, errlen))
		return -1;
	for (size_t i = 0; i < cons->u.arr.n; i++)
		if (ev_check_id(cons->u.arr.items[i], "id", err, errlen))
			return -1;
	return 0;
}
