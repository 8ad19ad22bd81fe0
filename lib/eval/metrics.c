#include "eval/metrics.h"
#include "core/canon.h"
#include "core/xalloc.h"
#include "core/fp.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "sim/result.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The result stream, validated as strictly as a trace (issue 9, defect 12): every record's
 * exact key set, the kind of each value and its range, then the cross-record rules (jobs
 * sorted and unique, runs and preemptions of known jobs, one cluster whose capacity and
 * allocation are possible). Every error is "PATH:LINE: TYPE: message".
 */
enum vkind {
	V_ID,        /* string, identifier rule */
	V_CLASS,     /* "HP" | "Spot" */
	V_REASON,    /* "completed" | "preempted" */
	V_NUM,       /* finite number */
	V_TIME,      /* finite number >= 0 */
	V_WAIT,      /* finite number >= -METRICS_TIME_EPS (a difference of times, float noise) */
	V_POS,       /* finite number > 0 */
	V_COUNT,     /* integer >= 0 */
	V_COUNT1,    /* integer >= 1 */
	V_BOOL,
};

struct vkey {
	const char *key;
	enum vkind kind;
	bool optional;
};

static const struct vkey job_spec[] = {
	{ "type", V_ID, false }, { "job_id", V_ID, false }, { "service_class", V_CLASS, false },
	{ "submit_time_seconds", V_TIME, false }, { "start_time_seconds", V_TIME, false },
	{ "completion_time_seconds", V_TIME, false }, { "duration_seconds", V_POS, false }, { "gpu_count", V_POS, false },
	{ "gpu_model", V_ID, false }, { "tenant_id", V_ID, true }, { "queue_seconds", V_WAIT, false },
	{ "jct_seconds", V_TIME, false }, { "preemption_count", V_COUNT, false }, { "run_count", V_COUNT1, false },
	{ "evaluation_population", V_BOOL, false },
};
static const struct vkey run_spec[] = {
	{ "type", V_ID, false }, { "job_id", V_ID, false }, { "run_ordinal", V_COUNT1, false },
	{ "start_time_seconds", V_TIME, false }, { "end_time_seconds", V_TIME, false }, { "end_reason", V_REASON, false },
	{ "uninterrupted_seconds", V_TIME, false }, { "guarantee_seconds", V_COUNT, false }, { "guarantee_succeeded", V_BOOL, false },
};
static const struct vkey event_spec[] = {
	{ "type", V_ID, false }, { "time_seconds", V_TIME, false }, { "preempted_job_id", V_ID, false },
	{ "triggering_job_id", V_ID, false }, { "rollback_seconds", V_TIME, false }, { "overhead_seconds", V_TIME, false },
	{ "added_gpu_seconds", V_TIME, false },
};
static const struct vkey cluster_spec[] = {
	{ "type", V_ID, false }, { "node_count", V_COUNT1, false }, { "capacity_gpus", V_COUNT1, false },
	{ "simulation_start", V_TIME, false }, { "simulation_end", V_TIME, false }, { "allocated_gpu_seconds", V_TIME, false },
	{ "warmup_allocated_gpu_seconds", V_TIME, false }, { "evaluation_allocated_gpu_seconds", V_TIME, false },
	{ "drain_allocated_gpu_seconds", V_NUM, false }, { "allocation_rate_mean", V_TIME, false }, { "drain_end", V_TIME, false },
};
#define SPEC(a) (a), (sizeof(a) / sizeof((a)[0]))

static const char *const header_keys[] = { "type", "schema", "tool", "version", "inputs", "params", "policy",
	"policy_fingerprint", "trace_id", "trace_fingerprint", "time_origin", "source", "evaluation_start", "evaluation_end",
	"controller", "controller_fingerprint" };

static const char *kind_text(enum vkind k)
{
	static const char *const t[] = { "an identifier", "'HP' or 'Spot'", "'completed' or 'preempted'", "a finite number", "a finite number >= 0",
		"a finite number >= 0 (float noise down to -1e-06 allowed)", "a finite number > 0", "an integer >= 0", "an integer >= 1",
		"a boolean" };
	return t[k];
}

static bool value_ok(const struct json *x, enum vkind k)
{
	switch (k) {
	case V_ID: return x->kind == JSON_STRING && !text_id_problem(x->u.str.s, x->u.str.len);
	case V_CLASS: return x->kind == JSON_STRING && (!strcmp(x->u.str.s, "HP") || !strcmp(x->u.str.s, "Spot"));
	case V_REASON: return x->kind == JSON_STRING && (!strcmp(x->u.str.s, "completed") || !strcmp(x->u.str.s, "preempted"));
	case V_NUM: return json_is_num(x) && isfinite(json_num(x));
	case V_TIME: return json_is_num(x) && isfinite(json_num(x)) && json_num(x) >= 0;
	case V_WAIT: return json_is_num(x) && isfinite(json_num(x)) && json_num(x) >= -METRICS_TIME_EPS;
	case V_POS: return json_is_num(x) && isfinite(json_num(x)) && json_num(x) > 0;
	case V_COUNT: return x->kind == JSON_INT && x->u.i >= 0;
	case V_COUNT1: return x->kind == JSON_INT && x->u.i >= 1;
	case V_BOOL: return x->kind == JSON_TRUE || x->kind == JSON_FALSE;
	}
	return false;
}

/* Exact key set and every value's kind and range. */
static int check_record(struct nd_reader *r, const struct json *v, const struct vkey *spec, size_t n, char *err, size_t errlen)
{
	const char *type = json_get(v, "type")->u.str.s;
	for (size_t i = 0; i < v->u.obj.n; i++) {
		size_t k = 0;
		while (k < n && strcmp(spec[k].key, v->u.obj.keys[i]))
			k++;
		if (k == n) {
			ndr_errorf(r, err, errlen, "%s: unknown key '%s'", type, v->u.obj.keys[i]);
			return -1;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct json *x = json_get(v, spec[k].key);
		if (!x) {
			if (spec[k].optional)
				continue;
			ndr_errorf(r, err, errlen, "%s: missing key '%s'", type, spec[k].key);
			return -1;
		}
		if (!value_ok(x, spec[k].kind)) {
			/* a number is named by its value: "not integer" for -5 said nothing */
			bool whole = spec[k].kind == V_COUNT || spec[k].kind == V_COUNT1;
			if (x->kind == JSON_INT)
				ndr_errorf(r, err, errlen, "%s: '%s' must be %s, not %lld", type, spec[k].key, kind_text(spec[k].kind), x->u.i);
			else if (x->kind == JSON_REAL)
				ndr_errorf(r, err, errlen, "%s: '%s' must be %s, not %.17g%s", type, spec[k].key, kind_text(spec[k].kind),
					   x->u.d, whole ? " written as a real number" : "");
			else
				ndr_errorf(r, err, errlen, "%s: '%s' must be %s, not %s", type, spec[k].key, kind_text(spec[k].kind),
					   x->kind == JSON_STRING ? "this string" : json_kind_name(x->kind));
			return -1;
		}
	}
	return 0;
}

static double num_of(const struct json *v, const char *k) { return json_num(json_get(v, k)); }
static long long int_of(const struct json *v, const char *k) { return json_get(v, k)->u.i; }
static const char *str_of(const struct json *v, const char *k) { return json_get(v, k)->u.str.s; }
static bool bool_of(const struct json *v, const char *k) { return json_get(v, k)->kind == JSON_TRUE; }

/* The common case, checked in one pass: the record's keys are the list's, in its order (as
 * sim-run writes them; controller and controller_fingerprint may be absent). Anything else
 * takes need_keys' full check. */
static bool keys_in_order(const struct json *v, const char *const *keys, size_t nkeys)
{
	size_t i = 0;
	for (size_t k = 0; k < nkeys; k++) {
		if (i < v->u.obj.n && !strcmp(v->u.obj.keys[i], keys[k]))
			i++;
		else if (strcmp(keys[k], "controller") && strcmp(keys[k], "controller_fingerprint"))
			return false;
	}
	return i == v->u.obj.n;
}

static int need_keys(struct nd_reader *r, const struct json *v, const char *const *keys, size_t nkeys, char *err, size_t errlen)
{
	char kerr[200];
	if (keys_in_order(v, keys, nkeys))
		return 0;
	const char *type = json_get(v, "type")->u.str.s;
	if (nd_check_keys(v, keys, nkeys, kerr, sizeof kerr)) {
		ndr_errorf(r, err, errlen, "%s: %s", type, kerr);
		return -1;
	}
	for (size_t i = 0; i < nkeys; i++)
		if (!json_get(v, keys[i]) && strcmp(keys[i], "controller") && strcmp(keys[i], "controller_fingerprint")) {
			ndr_errorf(r, err, errlen, "%s: missing key '%s'", type, keys[i]);
			return -1;
		}
	return 0;
}

static int num(struct nd_reader *r, const struct json *v, const char *k, double *out, char *err, size_t errlen)
{
	struct json *x = json_get(v, k);
	if (!json_is_num(x) || !isfinite(json_num(x))) {
		ndr_errorf(r, err, errlen, "'%s' must be a finite number", k);
		return -1;
	}
	*out = json_num(x);
	return 0;
}

static const char *string(struct nd_reader *r, const struct json *v, const char *k, char *err, size_t errlen)
{
	struct json *x = json_get(v, k);
	if (!x || x->kind != JSON_STRING) {
		ndr_errorf(r, err, errlen, "'%s' must be a string", k);
		return NULL;
	}
	return x->u.str.s;
}

static long find_job(const struct metrics_result *m, const char *id)
{
	size_t lo = 0, hi = m->n_jobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->jobs[mid].id, id);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int read_header(struct metrics_result *m, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	struct json *schema = json_get(h, "schema");
	if (!schema || schema->kind != JSON_STRING || strcmp(schema->u.str.s, RESULT_SCHEMA)) {
		ndr_errorf(r, err, errlen, "not a result stream (want schema '%s')", RESULT_SCHEMA);
		return -1;
	}
	if (need_keys(r, h, ND_KEYS(header_keys), err, errlen))
		return -1;
	double d;
	const char *s;
	if (!(s = string(r, h, "trace_id", err, errlen)) || !(s = string(r, h, "trace_fingerprint", err, errlen)) ||
	    !(s = string(r, h, "policy_fingerprint", err, errlen)) || num(r, h, "evaluation_start", &d, err, errlen) ||
	    num(r, h, "evaluation_end", &d, err, errlen))
		return -1;
	struct json *src = json_get(h, "source"), *pol = json_get(h, "policy");
	if (src->kind != JSON_OBJECT || pol->kind != JSON_OBJECT) {
		ndr_errorf(r, err, errlen, "'source' and 'policy' must be objects");
		return -1;
	}
	if (!value_ok(json_get(h, "trace_id"), V_ID)) {
		ndr_errorf(r, err, errlen, "header: 'trace_id' must be %s", kind_text(V_ID));
		return -1;
	}
	double es = num_of(h, "evaluation_start"), ee = num_of(h, "evaluation_end");
	if (!(es >= 0 && es <= ee)) {
		ndr_errorf(r, err, errlen, "header: the evaluation window needs 0 <= evaluation_start <= evaluation_end");
		return -1;
	}
	m->header = json_clone(&m->arena, h);
	/* Re-validate the canonical policy: it must round-trip to itself and its fingerprint. */
	struct json *doc = json_object(&m->arena);
	json_set(&m->arena, doc, "schema_version", json_str(&m->arena, POLICY_SCHEMA));
	for (size_t i = 0; i < pol->u.obj.n; i++)
		json_set(&m->arena, doc, pol->u.obj.keys[i], json_clone(&m->arena, pol->u.obj.vals[i]));
	char perr[300];
	if (policy_from_json(&m->policy, doc, &m->arena, perr, sizeof perr)) {
		ndr_errorf(r, err, errlen, "policy: %s", perr);
		return -1;
	}
	if (!json_identical(m->policy.canonical, pol) || strcmp(m->policy.fingerprint, s)) {
		ndr_errorf(r, err, errlen, "policy is not canonical or does not match 'policy_fingerprint'");
		return -1;
	}
	return 0;
}

/* How far a derived time may be from what it derives from: the noise bound plus 2^-40 of
 * the largest time involved (the rounding of a few sums at that magnitude). */
static double derived_tol(double largest)
{
	return METRICS_TIME_EPS + fabs(largest) * 0x1p-40;
}

/* The cluster record describes a possible cluster: a capacity that holds the largest job,
 * a simulation that ends after it starts and after the last completion, allocations no larger than capacity x time (with
 * room for rounding) whose parts add up, a mean allocation rate in [0, 1]. */
static const char *cluster_problem(const struct json *v, double max_gpus, double max_end)
{
	double cap = (double)int_of(v, "capacity_gpus"), t0 = num_of(v, "simulation_start"), t1 = num_of(v, "simulation_end");
	double all = num_of(v, "allocated_gpu_seconds"), warm = num_of(v, "warmup_allocated_gpu_seconds");
	double eval = num_of(v, "evaluation_allocated_gpu_seconds"), rate = num_of(v, "allocation_rate_mean");
	double slack = 1e-9 * (cap * (t1 - t0) + 1);
	const char *why = NULL;
	if (max_gpus > cap)
		why = "a job asks for more GPUs than 'capacity_gpus'";
	else if (!(t0 <= t1) || num_of(v, "drain_end") < t0)
		why = "the simulation ends before it starts";
	else if (!(max_end <= t1 + derived_tol(t1)))
		why = "a job completes after 'simulation_end'";
	else if (!(all <= cap * (t1 - t0) + slack))
		why = "'allocated_gpu_seconds' is more than capacity_gpus x (simulation_end - simulation_start)";
	else if (!(warm + eval <= all + slack) || !(num_of(v, "drain_allocated_gpu_seconds") >= -slack))
		why = "the warm-up and evaluation allocations add up to more than 'allocated_gpu_seconds'";
	else if (!(rate <= 1 + 1e-9))
		why = "'allocation_rate_mean' is above 1";
	return why;
}

static int check_cluster(struct nd_reader *r, const struct json *v, double max_gpus, double max_end, char *err, size_t errlen)
{
	const char *why = cluster_problem(v, max_gpus, max_end);
	if (why) {
		ndr_errorf(r, err, errlen, "cluster: %s", why);
		return -1;
	}
	return 0;
}

/* A number or null at o.k (nullable) / a non-negative integer / a boolean. */
static bool num_or_null(const struct json *o, const char *k)
{
	const struct json *x = json_get(o, k);
	return x && (x->kind == JSON_NULL || (json_is_num(x) && isfinite(json_num(x))));
}

static bool count_at(const struct json *o, const char *k)
{
	const struct json *x = json_get(o, k);
	return x && x->kind == JSON_INT && x->u.i >= 0;
}

static bool bool_at(const struct json *o, const char *k)
{
	const struct json *x = json_get(o, k);
	return x && (x->kind == JSON_TRUE || x->kind == JSON_FALSE);
}

#define TENANT_CONTROLLER_SCHEMA "schednav.tenant-predictive-controller/v1"

/* The controller family of a controlled run, from the header's controller echo. */
static bool tenant_family(const struct json *hdr)
{
	const struct json *c = json_get(hdr, "controller"), *sv = c ? json_get(c, "schema_version") : NULL;
	return sv && sv->kind == JSON_STRING && !strcmp(sv->u.str.s, TENANT_CONTROLLER_SCHEMA);
}

static bool obj_at(const struct json *o, const char *k)
{
	const struct json *x = json_get(o, k);
	return x && x->kind == JSON_OBJECT;
}

/* The control_report keys metrics carries into predictive_control, checked for kind: the
 * aggregate family's (predictive-records.md §1.2) or the tenant family's (predictive.md §2:
 * eta final per pool, scored_point_count, the admission diagnostics). */
static int control_check(struct nd_reader *r, const struct json *v, const struct json *hdr, char *err, size_t errlen)
{
	static const char *const objs[] = { "information_boundary", "evidence_window_seconds", "eta", "spot_quota_gpus", "forecast_evaluation", NULL };
	const struct json *id = json_get(v, "controller_id"), *fp = json_get(v, "controller_fingerprint");
	const char *bad = NULL;
	bool tenant = tenant_family(hdr);
	if (!json_get(hdr, "controller"))
		bad = "control_report in a result stream without a controller";
	else if (!id || id->kind != JSON_STRING || !fp || fp->kind != JSON_STRING || !json_identical(fp, json_get(hdr, "controller_fingerprint")))
		bad = "control_report: controller_id and controller_fingerprint must be strings matching the header";
	else if (!count_at(v, "update_count") || !count_at(v, "total_runtime_update_count"))
		bad = "control_report: update counts must be non-negative integers";
	for (const char *const *k = objs; !bad && *k; k++)
		if (!obj_at(v, *k))
			bad = "control_report: a summary block is missing or not an object";
	if (!bad && tenant && (!obj_at(v, "admission_diagnostics") || !obj_at(v, "forecast_evaluation_sums")))
		bad = "control_report: a summary block is missing or not an object";
	if (!bad) {
		const struct json *ib = json_get(v, "information_boundary"), *w = json_get(v, "evidence_window_seconds"),
				  *eta = json_get(v, "eta"), *q = json_get(v, "spot_quota_gpus"), *f = json_get(v, "forecast_evaluation");
		bool ok = bool_at(ib, "forecast_scoring_occurs_after_target_observation") && num_or_null(w, "start") &&
			  num_or_null(w, "end") && num_or_null(eta, "initial") && num_or_null(eta, "minimum_observed") &&
			  num_or_null(eta, "maximum_observed") && num_or_null(q, "mean") && num_or_null(q, "minimum") &&
			  num_or_null(q, "maximum") && num_or_null(f, "mae_gpus") && num_or_null(f, "wape") &&
			  num_or_null(f, "mean_error_gpus") && num_or_null(f, "guarantee_quantile_coverage") && num_or_null(f, "pinball_loss");
		if (tenant)
			ok = ok && bool_at(ib, "actual_future_demand_used_for_prediction") && obj_at(eta, "final_by_resource_pool") &&
			     count_at(f, "scored_point_count");
		else
			ok = ok && bool_at(ib, "future_workload_fields_accepted") && num_or_null(eta, "final") &&
			     count_at(f, "evaluated_point_count");
		if (!ok)
			bad = "control_report: a summary value has the wrong type";
	}
	if (bad) {
		ndr_errorf(r, err, errlen, "%s", bad);
		return -1;
	}
	return 0;
}

/* The rolling_report keys metrics carries into rolling_control (roll(1)), checked for kind. */
static const char *const rolling_keys[] = { "controller_id", "controller_fingerprint", "arm_id", "decider_kind", "deployable",
	"non_deployable", "decision_count", "expected_decision_count", "candidate_budget_per_decision", "baseline_action_id",
	"candidate_scenario_set_id", "candidate_simulation_count", "llm_usage", "rejected_reply_count", "minimum_hold_override_count",
	"selected_action_sequence", "report_fingerprint", NULL };

static int rolling_check(struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	static const char *const strs[] = { "controller_id", "controller_fingerprint", "arm_id", "decider_kind", "baseline_action_id",
		"candidate_scenario_set_id", "report_fingerprint", NULL };
	static const char *const counts[] = { "decision_count", "expected_decision_count", "candidate_budget_per_decision",
		"candidate_simulation_count", "rejected_reply_count", "minimum_hold_override_count", NULL };
	const char *bad = NULL;
	for (const char *const *k = strs; !bad && *k; k++)
		if (!json_get(v, *k) || json_get(v, *k)->kind != JSON_STRING)
			bad = "rolling_report: ids and fingerprints must be strings";
	for (const char *const *k = counts; !bad && *k; k++)
		if (!count_at(v, *k))
			bad = "rolling_report: counts must be non-negative integers";
	const struct json *u = json_get(v, "llm_usage"), *seq = json_get(v, "selected_action_sequence");
	if (!bad && (!bool_at(v, "deployable") || !bool_at(v, "non_deployable")))
		bad = "rolling_report: 'deployable' and 'non_deployable' must be booleans";
	if (!bad && (!u || u->kind != JSON_OBJECT || !count_at(u, "call_count") || !count_at(u, "prompt_tokens") || !count_at(u, "completion_tokens")))
		bad = "rolling_report: 'llm_usage' must hold three counts";
	if (!bad && (!seq || seq->kind != JSON_ARRAY))
		bad = "rolling_report: 'selected_action_sequence' must be an array";
	if (bad) {
		ndr_errorf(r, err, errlen, "%s", bad);
		return -1;
	}
	return 0;
}


/* A job_result's fields, from the parsed record or from the fast path. */
struct jobfields {
	const char *id, *cls;
	double submit, start, end, duration, gpus, jct, queue;
	long long preemptions, runs;
	bool eval_pop;
};

/* The record's fields once check_record has passed it against job_spec. */
static void job_from_tree(const struct json *v, struct jobfields *f)
{
	f->id = str_of(v, "job_id");
	f->cls = str_of(v, "service_class");
	f->submit = num_of(v, "submit_time_seconds");
	f->start = num_of(v, "start_time_seconds");
	f->end = num_of(v, "completion_time_seconds");
	f->duration = num_of(v, "duration_seconds");
	f->gpus = num_of(v, "gpu_count");
	f->jct = num_of(v, "jct_seconds");
	f->queue = num_of(v, "queue_seconds");
	f->preemptions = int_of(v, "preemption_count");
	f->runs = int_of(v, "run_count");
	f->eval_pop = bool_of(v, "evaluation_population");
}

/* Each derived field of a job_result against the fields it derives from (docs/hardening.md):
 * submit <= start <= completion (start may precede submit by float noise), jct =
 * completion - submit, the time queued and the time run fit inside the jct, and a job never
 * preempted queued exactly from its submit to its start. NULL or what is wrong. */
static const char *job_derived_problem(const struct jobfields *f)
{
	double tol = derived_tol(f->end);
	if (!(f->submit - METRICS_TIME_EPS <= f->start && f->start <= f->end))
		return "needs submit <= start <= completion";
	if (!(fabs(f->jct - (f->end - f->submit)) <= tol))
		return "jct_seconds is not completion_time_seconds - submit_time_seconds";
	if (!(f->queue <= f->jct - f->duration + tol) || !(f->queue >= f->start - f->submit - tol))
		return "queue_seconds must lie between start - submit and jct_seconds - duration_seconds";
	if (f->preemptions == 0 && !(fabs(f->queue - (f->start - f->submit)) <= tol))
		return "queue_seconds of a job never preempted is not start_time_seconds - submit_time_seconds";
	return NULL;
}

/* The cross-record rules every job_result passes, however it was read; *max_gpus tracks the
 * largest job for the cluster check, *max_end the last completion. */
static int add_job(struct metrics_result *m, struct nd_reader *r, const struct jobfields *f, double *max_gpus, double *max_end, char *err,
		   size_t errlen)
{
	if (m->n_runs || m->n_events || m->cluster) {
		ndr_errorf(r, err, errlen, "job_result after run, preemption or cluster records");
		return -1;
	}
	const char *why = job_derived_problem(f);
	if (why) {
		ndr_errorf(r, err, errlen, "job_result '%s': %s", f->id, why);
		return -1;
	}
	if (f->end > *max_end)
		*max_end = f->end;
	if (m->n_jobs && strcmp(m->jobs[m->n_jobs - 1].id, f->id) >= 0) {
		ndr_errorf(r, err, errlen, "job_result '%s': not sorted by job_id or duplicate", f->id);
		return -1;
	}
	m->jobs = xgrow(m->jobs, &m->cap_jobs, m->n_jobs + 1, sizeof *m->jobs);
	struct mres_job *j = &m->jobs[m->n_jobs++];
	j->jct = f->jct;
	j->queue = f->queue;
	j->preemptions = f->preemptions;
	j->runs = f->runs;
	j->eval_pop = f->eval_pop;
	j->hp = !strcmp(f->cls, "HP");
	j->id = arena_strndup(&m->arena, f->id, strlen(f->id));
	if (f->gpus > *max_gpus)
		*max_gpus = f->gpus;
	return 0;
}

/*
 * Fast path for job_result lines exactly as sim-run writes them: every key in order (tenant_id
 * optional), plain strings and decimals, and every value inside job_spec's kind and range
 * (identifiers by the identifier rule). Such a line is the record the parser would give and
 * check_record would pass, so it goes through the same add_job; any other line (a null time,
 * an escape, another order, a value out of range) is declined and parsed and checked as
 * before, with the same errors. Result streams are mostly job_result lines; this is most of
 * metrics' reading time.
 */
struct fastjob {
	char *buf;
	size_t cap;
	struct jobfields f;
	const char *skimmed;        /* fast_counted: the type of the line it accepted */
};

#define LIT(p, end, s) canon_lit(p, end, s, sizeof s - 1)

static bool fast_id(const char *s)
{
	return !text_id_problem(s, strlen(s));
}

static int fast_job(void *vctx, const char *line, size_t len)
{
	static const char pre[] = "{\"type\":\"job_result\",\"job_id\":";
	struct fastjob *c = vctx;
	if (len < sizeof pre - 1 || memcmp(line, pre, sizeof pre - 1))
		return 0;
	c->buf = xgrow(c->buf, &c->cap, len + 1, 1);
	memcpy(c->buf, line, len);
	c->buf[len] = 0;
	char *p = c->buf + sizeof pre - 1, *end = c->buf + len;
	const char *model, *tenant = NULL;
	double pre_d, runs_d;
	bool is_int, pre_int, runs_int;
	struct jobfields *f = &c->f;
	if (!canon_str(&p, end, &f->id) || !LIT(&p, end, ",\"service_class\":") || !canon_str(&p, end, &f->cls) ||
	    !LIT(&p, end, ",\"submit_time_seconds\":") || !canon_num(&p, end, &f->submit, &is_int) ||
	    !LIT(&p, end, ",\"start_time_seconds\":") || !canon_num(&p, end, &f->start, &is_int) ||
	    !LIT(&p, end, ",\"completion_time_seconds\":") || !canon_num(&p, end, &f->end, &is_int) ||
	    !LIT(&p, end, ",\"duration_seconds\":") || !canon_num(&p, end, &f->duration, &is_int) ||
	    !LIT(&p, end, ",\"gpu_count\":") || !canon_num(&p, end, &f->gpus, &is_int))
		return 0;
	if (!LIT(&p, end, ",\"gpu_model\":") || !canon_str(&p, end, &model))
		return 0;
	if (LIT(&p, end, ",\"tenant_id\":") && !canon_str(&p, end, &tenant))
		return 0;
	if (!LIT(&p, end, ",\"queue_seconds\":") || !canon_num(&p, end, &f->queue, &is_int) ||
	    !LIT(&p, end, ",\"jct_seconds\":") || !canon_num(&p, end, &f->jct, &is_int) ||
	    !LIT(&p, end, ",\"preemption_count\":") || !canon_num(&p, end, &pre_d, &pre_int) || !pre_int || pre_d < 0 ||
	    !LIT(&p, end, ",\"run_count\":") || !canon_num(&p, end, &runs_d, &runs_int) || !runs_int || runs_d < 1 ||
	    !LIT(&p, end, ",\"evaluation_population\":"))
		return 0;
	if (LIT(&p, end, "true"))
		f->eval_pop = true;
	else if (LIT(&p, end, "false"))
		f->eval_pop = false;
	else
		return 0;
	if (p + 1 != end || *p != '}')
		return 0;
	/* job_spec's kinds and ranges: anything else is left to check_record and its message */
	if (!fast_id(f->id) || (strcmp(f->cls, "HP") && strcmp(f->cls, "Spot")) || !fast_id(model) || (tenant && !fast_id(tenant)) ||
	    !(f->submit >= 0 && f->start >= 0 && f->end >= 0 && f->duration > 0 && f->gpus > 0 && f->queue >= -METRICS_TIME_EPS &&
	      f->jct >= 0))
		return 0;
	f->preemptions = (long long)pre_d;
	f->runs = (long long)runs_d;
	return 1;
}

/*
 * Fast path for the records metrics only counts: a control_decision (a controlled run has
 * one per 300 s, ~1 KB of nested numbers each) and roll's decision records. metrics reads
 * nothing in them, so a line need not become a tree: it only has to be one the parser
 * would accept. skim_value accepts a strict subset of JSON that the parser accepts as is —
 * no whitespace, strings of bytes 0x20..0x7e without '"' or '\\', numbers of at most 17
 * digits with an exponent of at most 2 digits (finite; integers within long long), no key
 * twice in an object (at most SKIM_KEYS keys each), nesting at most SKIM_DEPTH — and
 * declines anything else, which the parser then reads as before, with its own errors.
 */
#define SKIM_DEPTH 16
#define SKIM_KEYS 64

static bool skim_string(const char **p, const char *end)
{
	const char *q = *p;
	if (q >= end || *q != '"')
		return false;
	for (q++; q < end && *q != '"'; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e || *q == '\\')
			return false;
	if (q >= end)
		return false;
	*p = q + 1;
	return true;
}

static bool skim_digits(const char **p, const char *end, int *n)
{
	const char *q = *p;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	*n = (int)(q - *p);
	*p = q;
	return *n > 0;
}

static bool skim_number(const char **p, const char *end)
{
	const char *q = *p;
	int ni, nf = 0, ne = 0;
	bool real = false;
	if (q < end && *q == '-')
		q++;
	if (q < end && *q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9')
		return false;   /* a leading zero is not JSON */
	if (!skim_digits(&q, end, &ni))
		return false;
	if (q < end && *q == '.') {
		q++;
		real = true;
		if (!skim_digits(&q, end, &nf))
			return false;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		real = true;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (!skim_digits(&q, end, &ne) || ne > 2)
			return false;
	}
	/* integers within long long; reals below 10^17 * 10^99, finite (the parser refuses a
	 * non-finite real) */
	if (real ? ni + nf > 17 : ni > 18)
		return false;
	*p = q;
	return true;
}

static bool skim_value(const char **p, const char *end, int depth)
{
	const char *q = *p;
	if (q >= end)
		return false;
	if (*q == '"')
		return skim_string(p, end);
	if (*q == '{' || *q == '[') {
		bool obj = *q == '{';
		const char *keys[SKIM_KEYS];
		size_t klen[SKIM_KEYS], nk = 0;
		if (depth >= SKIM_DEPTH)
			return false;
		q++;
		if (q < end && *q == (obj ? '}' : ']')) {
			*p = q + 1;
			return true;
		}
		for (;;) {
			if (obj) {
				const char *k = q;
				if (nk == SKIM_KEYS || !skim_string(&q, end) || q >= end || *q != ':')
					return false;
				size_t kl = (size_t)(q - k);
				for (size_t i = 0; i < nk; i++)
					if (klen[i] == kl && !memcmp(keys[i], k, kl))
						return false;   /* a duplicate key: the parser names it */
				keys[nk] = k;
				klen[nk++] = kl;
				q++;
			}
			if (!skim_value(&q, end, depth + 1) || q >= end)
				return false;
			if (*q == ',') {
				q++;
				continue;
			}
			if (*q != (obj ? '}' : ']'))
				return false;
			*p = q + 1;
			return true;
		}
	}
	if (*q == '-' || (*q >= '0' && *q <= '9'))
		return skim_number(p, end);
	static const char *const lits[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		if ((size_t)(end - q) >= n && !memcmp(q, lits[i], n)) {
			*p = q + n;
			return true;
		}
	}
	return false;
}

/* The record types skimmed, by the prefix their writers give them (type is the first key). */
static const char *const skim_types[] = { "control_decision", "rolling_observation", "scenario", "candidate_evidence",
	"rolling_decision", NULL };

/* A line of a skimmed type that skim_value accepts whole: c->skimmed names its type. */
static int fast_counted(struct fastjob *c, const char *line, size_t len)
{
	static const char pre[] = "{\"type\":\"";
	if (len < sizeof pre - 1 || memcmp(line, pre, sizeof pre - 1))
		return 0;
	const char *t = line + sizeof pre - 1, *end = line + len;
	for (const char *const *k = skim_types; *k; k++) {
		size_t n = strlen(*k);
		if ((size_t)(end - t) > n + 1 && !memcmp(t, *k, n) && t[n] == '"' && t[n + 1] == ',') {
			const char *p = line;
			if (!skim_value(&p, end, 0) || p != end)
				return 0;
			c->skimmed = *k;
			return 1;
		}
	}
	return 0;
}

/* The fast paths in turn: a job_result, or a record metrics only counts. */
static int fast_record(void *vctx, const char *line, size_t len)
{
	struct fastjob *c = vctx;
	c->skimmed = NULL;
	return fast_job(vctx, line, len) || fast_counted(c, line, len);
}

/* What metrics does with a record it only counts, parsed or skimmed alike. */
static int counted_record(struct metrics_result *m, struct nd_reader *r, const char *type, char *err, size_t errlen)
{
	if (!strcmp(type, "control_decision")) {
		if (!json_get(m->header, "controller")) {
			ndr_errorf(r, err, errlen, "control_decision in a result stream without a controller");
			return -1;
		}
		return 0;
	}
	m->rolling_records = true;   /* roll's decision records: read by report, not by metrics */
	return 0;
}

int metrics_read(struct metrics_result *m, struct nd_reader *r, char *err, size_t errlen)
{
	struct fastjob fast = { 0 };
	struct arena scratch;
	struct json *v;
	int rc = -1;
	double max_gpus = 0;     /* the largest job, checked against the cluster's capacity */
	double max_end = 0;      /* the last completion, checked against the simulation's end */
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	arena_init(&scratch);
	enum nd_event ev = ndr_next(r, &scratch, &v, err, errlen);
	if (ev == ND_EOF) {
		snprintf(err, errlen, "%s: empty input: expected a result stream", ndr_name(r));
		goto out;
	}
	if (ev != ND_HEADER || read_header(m, r, v, err, errlen))
		goto out;
	for (;;) {
		arena_reset(&scratch);
		ev = ndr_next_fast(r, &scratch, &v, fast_record, &fast, err, errlen);
		if (ev == ND_ERROR)
			goto out;
		if (ev == ND_END)
			break;
		if (ev == ND_RECORD && !v && fast.skimmed) {
			if (counted_record(m, r, fast.skimmed, err, errlen))
				goto out;
			continue;
		}
		if (ev == ND_RECORD && !v) {
			if (add_job(m, r, &fast.f, &max_gpus, &max_end, err, errlen))
				goto out;
			continue;
		}
		const char *type = json_get(v, "type")->u.str.s;
		if (!strcmp(type, "job_result")) {
			struct jobfields f;
			if (check_record(r, v, SPEC(job_spec), err, errlen))
				goto out;
			job_from_tree(v, &f);
			if (add_job(m, r, &f, &max_gpus, &max_end, err, errlen))
				goto out;
		} else if (!strcmp(type, "run")) {
			if (check_record(r, v, SPEC(run_spec), err, errlen))
				goto out;
			const char *id = str_of(v, "job_id");
			long k = find_job(m, id);
			if (k < 0) {
				ndr_errorf(r, err, errlen, "run of unknown job '%s'", id);
				goto out;
			}
			if (!(num_of(v, "start_time_seconds") <= num_of(v, "end_time_seconds"))) {
				ndr_errorf(r, err, errlen, "run of '%s' ends before it starts", id);
				goto out;
			}
			m->runs = xgrow(m->runs, &m->cap_runs, m->n_runs + 1, sizeof *m->runs);
			struct mres_run *x = &m->runs[m->n_runs++];
			x->job = (size_t)k;
			x->start = num_of(v, "start_time_seconds");
			x->preempted = !strcmp(str_of(v, "end_reason"), "preempted");
			x->succeeded = bool_of(v, "guarantee_succeeded");
		} else if (!strcmp(type, "preemption")) {
			if (check_record(r, v, SPEC(event_spec), err, errlen))
				goto out;
			const char *id = str_of(v, "preempted_job_id"), *by = str_of(v, "triggering_job_id");
			long k = find_job(m, id);
			if (k < 0 || find_job(m, by) < 0) {
				ndr_errorf(r, err, errlen, "preemption of unknown job '%s'", k < 0 ? id : by);
				goto out;
			}
			m->events = xgrow(m->events, &m->cap_events, m->n_events + 1, sizeof *m->events);
			struct mres_event *e = &m->events[m->n_events++];
			e->victim = (size_t)k;
			e->time = num_of(v, "time_seconds");
			e->rollback = num_of(v, "rollback_seconds");
			e->overhead = num_of(v, "overhead_seconds");
			e->added = num_of(v, "added_gpu_seconds");
		} else if (!strcmp(type, "cluster")) {
			if (check_record(r, v, SPEC(cluster_spec), err, errlen))
				goto out;
			if (m->cluster) {
				ndr_errorf(r, err, errlen, "more than one cluster record");
				goto out;
			}
			if (check_cluster(r, v, max_gpus, max_end, err, errlen))
				goto out;
			m->cluster = json_clone(&m->arena, v);
		} else if (!strcmp(type, "control_decision")) {
			if (counted_record(m, r, type, err, errlen))
				goto out;
		} else if (!strcmp(type, "control_report")) {
			if (m->control) {
				ndr_errorf(r, err, errlen, "more than one control_report record");
				goto out;
			}
			if (control_check(r, v, m->header, err, errlen))
				goto out;
			m->control = json_clone(&m->arena, v);
		} else if (!strcmp(type, "rolling_observation") || !strcmp(type, "scenario") || !strcmp(type, "candidate_evidence") ||
			   !strcmp(type, "rolling_decision")) {
			if (counted_record(m, r, type, err, errlen))
				goto out;
		} else if (!strcmp(type, "rolling_report")) {
			if (m->rolling) {
				ndr_errorf(r, err, errlen, "more than one rolling_report record");
				goto out;
			}
			if (rolling_check(r, v, err, errlen))
				goto out;
			m->rolling = json_clone(&m->arena, v);
		} else {
			ndr_errorf(r, err, errlen, "unknown record type '%s' in a result stream", type);
			goto out;
		}
	}
	memcpy(m->fingerprint, ndr_fingerprint(r), 33);
	if (!m->n_jobs) {
		ndr_errorf(r, err, errlen, "result stream has no job_result records");
		goto out;
	}
	if (!m->cluster) {
		ndr_errorf(r, err, errlen, "result stream has no cluster record");
		goto out;
	}
	if (m->rolling_records && !m->rolling) {
		ndr_errorf(r, err, errlen, "result stream with rolling records has no rolling_report record");
		goto out;
	}
	if (json_get(m->header, "controller") && !m->control) {
		ndr_errorf(r, err, errlen, "result stream of a controlled run has no control_report record");
		goto out;
	}
	ev = ndr_next(r, &scratch, &v, err, errlen);
	if (ev == ND_ERROR)
		goto out;
	if (ev != ND_EOF) {
		ndr_errorf(r, err, errlen, "expected exactly one result stream");
		goto out;
	}
	rc = 0;
out:
	free(fast.buf);
	arena_release(&scratch);
	return rc;
}

static const struct trace *sort_trace;

static int by_id(const void *a, const void *b)
{
	return strcmp(sort_trace->jobs[*(const size_t *)a].id, sort_trace->jobs[*(const size_t *)b].id);
}

/*
 * What metrics_read gives for the stream result_write would write (issue 23: a rolling
 * scenario's metrics without writing and re-reading its result). The values are the ones
 * written: every double is written in a form that reads back as the same double, jct is
 * computed as the writer computes it, jobs are in job_id order, runs and preemptions keep
 * their order. The checks a reader makes of a job, of the cluster and of an empty result
 * are made too, with the same messages (without PATH:LINE).
 */
int metrics_from_output(struct metrics_result *m, const struct json *hdr, const struct sim_policy *p, const struct trace *t,
			const struct sim_output *o, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	m->header = json_clone(&m->arena, hdr);
	m->policy = *p;
	size_t n = o->n_jobs, *order = xmalloc((n + 1) * sizeof *order), *rank = xmalloc((n + 1) * sizeof *rank);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = strcmp(t->jobs[i - 1].id, t->jobs[i].id) < 0;
	if (!sorted) {
		sort_trace = t;
		qsort(order, n, sizeof *order, by_id);
	}
	m->jobs = xmalloc((n + 1) * sizeof *m->jobs);
	m->cap_jobs = n + 1;
	double max_gpus = 0, max_end = 0;
	int rc = -1;
	for (size_t x = 0; x < n; x++) {
		const struct trace_job *tj = &t->jobs[order[x]];
		const struct sim_job_result *r = &o->jobs[order[x]];
		struct jobfields f = { tj->id, tj->hp ? "HP" : "Spot", tj->submit, r->start, r->completion, tj->duration, tj->gpus,
			r->completion - tj->submit, r->queue_seconds, r->preemptions, r->runs, r->evaluation_population };
		const char *why = job_derived_problem(&f);
		if (why) {
			snprintf(err, errlen, "job_result '%s': %s", f.id, why);
			goto out;
		}
		if (x && strcmp(m->jobs[x - 1].id, f.id) >= 0) {
			snprintf(err, errlen, "job_result '%s': not sorted by job_id or duplicate", f.id);
			goto out;
		}
		if (f.end > max_end)
			max_end = f.end;
		if (f.gpus > max_gpus)
			max_gpus = f.gpus;
		m->jobs[x] = (struct mres_job){ (char *)tj->id, tj->hp, f.eval_pop, f.jct, f.queue, f.preemptions, f.runs };
		m->n_jobs = x + 1;
		rank[order[x]] = x;
	}
	m->runs = xmalloc((o->n_runs + 1) * sizeof *m->runs);
	m->cap_runs = o->n_runs + 1;
	for (size_t i = 0; i < o->n_runs; i++) {
		const struct sim_spot_run *r = &o->runs[i];
		m->runs[m->n_runs++] = (struct mres_run){ rank[r->job], r->start, !r->completed, r->guarantee_succeeded };
	}
	m->events = xmalloc((o->n_events + 1) * sizeof *m->events);
	m->cap_events = o->n_events + 1;
	for (size_t i = 0; i < o->n_events; i++) {
		const struct sim_preemption *e = &o->events[i];
		m->events[m->n_events++] = (struct mres_event){ rank[e->victim], e->time, e->rollback, e->overhead, e->added_gpu_seconds };
	}
	struct arena *a = &m->arena;
	struct json *c = json_object(a);
	json_set(a, c, "type", json_str(a, "cluster"));
	json_set(a, c, "node_count", json_int(a, (long long)o->node_count));
	json_set(a, c, "capacity_gpus", json_int(a, o->capacity_gpus));
	json_set(a, c, "simulation_start", json_real(a, o->simulation_start));
	json_set(a, c, "simulation_end", json_real(a, o->simulation_end));
	json_set(a, c, "allocated_gpu_seconds", json_real(a, o->allocated));
	json_set(a, c, "warmup_allocated_gpu_seconds", json_real(a, o->warmup_allocated));
	json_set(a, c, "evaluation_allocated_gpu_seconds", json_real(a, o->evaluation_allocated));
	json_set(a, c, "drain_allocated_gpu_seconds", json_real(a, o->drain_allocated));
	json_set(a, c, "allocation_rate_mean", json_real(a, o->allocation_rate_mean));
	json_set(a, c, "drain_end", json_real(a, o->simulation_end));
	const char *why = cluster_problem(c, max_gpus, max_end);
	if (why) {
		snprintf(err, errlen, "cluster: %s", why);
		goto out;
	}
	m->cluster = c;
	if (!m->n_jobs) {
		snprintf(err, errlen, "result stream has no job_result records");
		goto out;
	}
	result_fingerprint(t, o, m->fingerprint);
	rc = 0;
out:
	free(order);
	free(rank);
	if (rc)
		metrics_result_release(m);
	return rc;
}

void metrics_result_release(struct metrics_result *m)
{
	free(m->jobs);
	free(m->runs);
	free(m->events);
	arena_release(&m->arena);
	memset(m, 0, sizeof *m);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double metrics_quantile(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	double pos = (double)(n - 1) * p;
	double lo_f = floor(pos);
	size_t lo = (size_t)lo_f, hi = lo + 1 < n ? lo + 1 : n - 1;
	return v[lo] + (v[hi] - v[lo]) * (pos - lo_f);
}

static struct json *real_or_null(struct arena *a, bool ok, double v)
{
	return ok ? json_real(a, v) : json_null(a);
}

/* Per-class job figures (evaluation.md §4 jobs.<class>). */
struct class_stats {
	long long n, completed, preemptions, preempted_jobs, runs;
	double jct_mean, jct_p50, jct_p95, queue_mean, queue_p50, queue_p95;
};

static void class_stats(const struct metrics_result *m, bool hp, struct class_stats *c)
{
	memset(c, 0, sizeof *c);
	double *jct = xmalloc((m->n_jobs + 1) * sizeof *jct), *q = xmalloc((m->n_jobs + 1) * sizeof *q);
	double sj = 0, sq = 0;
	for (size_t i = 0; i < m->n_jobs; i++) {
		const struct mres_job *j = &m->jobs[i];
		if (!j->eval_pop || j->hp != hp)
			continue;
		jct[c->n] = j->jct;
		q[c->n] = j->queue;
		sj += j->jct;       /* naive left-to-right, job_id order */
		sq += j->queue;
		c->n++;
		c->completed++;
		c->preemptions += j->preemptions;
		c->preempted_jobs += j->preemptions > 0;
		c->runs += j->runs;
	}
	if (c->n > 0) {
		c->jct_mean = num_round(sj / (double)c->n, 6);
		c->queue_mean = num_round(sq / (double)c->n, 6);
		c->jct_p50 = num_round(metrics_quantile(jct, (size_t)c->n, 0.5), 6);
		c->jct_p95 = num_round(metrics_quantile(jct, (size_t)c->n, 0.95), 6);
		c->queue_p50 = num_round(metrics_quantile(q, (size_t)c->n, 0.5), 6);
		c->queue_p95 = num_round(metrics_quantile(q, (size_t)c->n, 0.95), 6);
	}
	free(jct);
	free(q);
}

static void set_class(struct arena *a, struct json *o, const char *pre, const struct class_stats *c, bool with_rate)
{
	char k[64];
	bool any = c->n > 0;
#define K(name) (snprintf(k, sizeof k, "%s_%s", pre, name), k)
	json_set(a, o, K("job_count"), json_int(a, c->n));
	json_set(a, o, K("completed_count"), json_int(a, c->completed));
	json_set(a, o, K("completion_rate"), real_or_null(a, any, 1.0));
	json_set(a, o, K("jct_mean_seconds"), real_or_null(a, any, c->jct_mean));
	json_set(a, o, K("jct_p50_seconds"), real_or_null(a, any, c->jct_p50));
	json_set(a, o, K("jct_p95_seconds"), real_or_null(a, any, c->jct_p95));
	json_set(a, o, K("queue_mean_seconds"), real_or_null(a, any, c->queue_mean));
	json_set(a, o, K("queue_p50_seconds"), real_or_null(a, any, c->queue_p50));
	json_set(a, o, K("queue_p95_seconds"), real_or_null(a, any, c->queue_p95));
	json_set(a, o, K("preemption_count"), json_int(a, c->preemptions));
	json_set(a, o, K("preempted_job_count"), json_int(a, c->preempted_jobs));
	if (with_rate)
		json_set(a, o, K("preempted_job_rate"), real_or_null(a, any, any ? (double)c->preempted_jobs / (double)c->n : 0));
#undef K
}

struct json *metrics_record(struct arena *a, const struct metrics_result *m)
{
	const struct sim_policy *p = &m->policy;
	const struct json *h = m->header, *cl = m->cluster;
	struct json *o = json_object(a);
	json_set(a, o, "type", json_str(a, "metrics"));
	/* 1. policy, flat, defaults filled */
	json_set(a, o, "action_id", json_str(a, p->action_id));
	json_set(a, o, "scheduler", json_str(a, policy_scheduler_name(p->scheduler)));
	json_set(a, o, "spot_guarantee_seconds", json_int(a, p->guarantee_seconds));
	json_set(a, o, "checkpoint_interval_seconds", json_int(a, p->checkpoint_seconds));
	json_set(a, o, "policy_preemption_overhead_seconds", json_int(a, p->overhead_seconds));
	json_set(a, o, "hp_preemption_delay_seconds", json_int(a, p->hp_delay_seconds));
	json_set(a, o, "spot_eviction_budget_rate", p->has_budget ? json_real(a, p->budget) : json_null(a));
	json_set(a, o, "preemption_victim_strategy", json_str(a, policy_victim_name(p->victim_order)));
	json_set(a, o, "placement_strategy", json_str(a, "deterministic_best_fit"));
	json_set(a, o, "policy", json_clone(a, json_get(h, "policy")));
	json_set(a, o, "policy_fingerprint", json_clone(a, json_get(h, "policy_fingerprint")));
	/* 2. provenance */
	json_set(a, o, "trace_id", json_clone(a, json_get(h, "trace_id")));
	json_set(a, o, "trace_fingerprint", json_clone(a, json_get(h, "trace_fingerprint")));
	struct json *src = json_get(h, "source"), *ds = json_get(src, "dataset");
	json_set(a, o, "dataset", json_clone(a, ds && ds->kind == JSON_STRING ? ds : json_get(h, "trace_id")));
	json_set(a, o, "source", json_clone(a, src));
	struct json *eng = json_object(a);
	json_set(a, eng, "name", json_str(a, "schednav-sim"));
	json_set(a, eng, "version", json_str(a, "1"));
	json_set(a, o, "engine", eng);
	json_set(a, o, "evaluation_start", json_real(a, json_num(json_get(h, "evaluation_start"))));
	json_set(a, o, "evaluation_end", json_real(a, json_num(json_get(h, "evaluation_end"))));
	json_set(a, o, "result_fingerprint", json_str(a, m->fingerprint));
	json_set(a, o, "node_count", json_clone(a, json_get(cl, "node_count")));
	json_set(a, o, "capacity_gpus", json_clone(a, json_get(cl, "capacity_gpus")));
	json_set(a, o, "simulation_start", json_real(a, json_num(json_get(cl, "simulation_start"))));
	json_set(a, o, "simulation_end", json_real(a, json_num(json_get(cl, "simulation_end"))));
	/* 3. the catalogue */
	static const char *const alloc_keys[] = { "allocation_rate_mean", "allocated_gpu_seconds", "warmup_allocated_gpu_seconds",
		"evaluation_allocated_gpu_seconds", "drain_allocated_gpu_seconds", NULL };
	for (const char *const *k = alloc_keys; *k; k++)
		json_set(a, o, *k, json_real(a, json_num(json_get(cl, *k))));
	struct class_stats hp, spot;
	class_stats(m, true, &hp);
	class_stats(m, false, &spot);
	set_class(a, o, "hp", &hp, false);
	set_class(a, o, "spot", &spot, true);
	double ee = json_num(json_get(h, "evaluation_end"));
	/* Ev: events whose victim is an evaluation Spot job; Ru: runs of evaluation Spot jobs. */
	long long ev = 0, ev_in = 0, ev_drain = 0, victims = 0;
	double rb = 0, ov = 0, add = 0;
	unsigned char *seen = xcalloc(m->n_jobs + 1, 1);
	for (size_t i = 0; i < m->n_events; i++) {
		const struct mres_event *e = &m->events[i];
		const struct mres_job *j = &m->jobs[e->victim];
		if (!j->eval_pop || j->hp)
			continue;
		ev++;
		rb += e->rollback;
		ov += e->overhead;
		add += e->added;
		if (e->time <= ee)
			ev_in++;
		else
			ev_drain++;
		if (!seen[e->victim]) {
			seen[e->victim] = 1;
			victims++;
		}
	}
	free(seen);
	long long ru = 0, ru_in = 0, ru_drain = 0, succ = 0;
	bool all_ok = true;
	for (size_t i = 0; i < m->n_runs; i++) {
		const struct mres_run *x = &m->runs[i];
		const struct mres_job *j = &m->jobs[x->job];
		if (!j->eval_pop || j->hp)
			continue;
		ru++;
		if (x->start <= ee)
			ru_in++;
		else
			ru_drain++;
		succ += x->succeeded;
		if (!x->succeeded && !x->preempted)
			all_ok = false;
	}
	json_set(a, o, "spot_run_count", json_int(a, ru));
	json_set(a, o, "spot_eviction_rate_per_run", real_or_null(a, ru > 0, ru > 0 ? (double)ev / (double)ru : 0));
	json_set(a, o, "preemption_event_count", json_int(a, ev));
	json_set(a, o, "preemption_added_gpu_seconds", ev ? json_real(a, add) : json_int(a, 0));
	json_set(a, o, "preemption_rollback_seconds", ev ? json_real(a, rb) : json_int(a, 0));
	json_set(a, o, "preemption_overhead_seconds", ev ? json_real(a, ov) : json_int(a, 0));
	json_set(a, o, "spot_guarantee_success_rate", real_or_null(a, ru > 0, ru > 0 ? (double)succ / (double)ru : 0));
	json_set(a, o, "spot_guarantee_succeeded_count", json_int(a, succ));
	json_set(a, o, "spot_guarantee_failed_count", json_int(a, ru - succ));
	/* 4. extras */
	json_set(a, o, "hp_preempted_job_rate", real_or_null(a, hp.n > 0, hp.n > 0 ? (double)hp.preempted_jobs / (double)hp.n : 0));
	json_set(a, o, "preempted_job_count", json_int(a, victims));
	json_set(a, o, "preemption_events_during_evaluation_window", json_int(a, ev_in));
	json_set(a, o, "preemption_events_during_drain", json_int(a, ev_drain));
	json_set(a, o, "spot_runs_during_evaluation_window", json_int(a, ru_in));
	json_set(a, o, "spot_runs_during_drain", json_int(a, ru_drain));
	/* 5. ledger flags */
	json_set(a, o, "preemption_ledger_consistent", json_bool(a, ev == spot.preemptions));
	json_set(a, o, "spot_run_ledger_consistent", json_bool(a, ru == spot.runs));
	json_set(a, o, "spot_guarantee_ledger_consistent", json_bool(a, ru - succ <= ev && all_ok));
	/* 6. the controller's summary (predictive-records.md §1.3), only for controlled runs */
	if (m->control) {
		static const char *const keys[] = { "controller_id", "controller_fingerprint", "update_count", "total_runtime_update_count",
			"evidence_window_seconds", "eta", "spot_quota_gpus", "forecast_evaluation", "information_boundary", NULL };
		/* the tenant family adds its estimator, the scoring sums (to pool windows exactly)
		 * and the starvation diagnostic */
		static const char *const tenant_keys[] = { "estimator", "forecast_evaluation_sums", "admission_diagnostics", NULL };
		struct json *pcb = json_object(a);
		json_set(a, pcb, "available", json_bool(a, true));
		for (const char *const *k = keys; *k; k++)
			json_set(a, pcb, *k, json_clone(a, json_get(m->control, *k)));
		for (const char *const *k = tenant_keys; tenant_family(m->header) && *k; k++)
			if (json_get(m->control, *k))
				json_set(a, pcb, *k, json_clone(a, json_get(m->control, *k)));
		json_set(a, o, "predictive_control", pcb);
	}
	/* 7. the rolling controller's summary (roll(1)) */
	if (m->rolling) {
		struct json *rcb = json_object(a);
		json_set(a, rcb, "available", json_bool(a, true));
		for (const char *const *k = rolling_keys; *k; k++)
			json_set(a, rcb, *k, json_clone(a, json_get(m->rolling, *k)));
		json_set(a, o, "rolling_control", rcb);
	}
	return o;
}
