/* The result stream's reader (see result_read.h). */
#include "sim/result_read.h"
#include "core/canon.h"
#include "core/ndstream.h"
#include "core/text.h"
#include "core/xalloc.h"
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
	V_WAIT,      /* finite number >= -RESULT_TIME_EPS (a difference of times, float noise) */
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
	{ "evaluation_population", V_BOOL, false }, { "timed_out", V_BOOL, true },
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
	case V_WAIT: return json_is_num(x) && isfinite(json_num(x)) && json_num(x) >= -RESULT_TIME_EPS;
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

static long find_job(const struct result_data *m, const char *id)
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

static int read_header(struct result_data *m, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
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
	return RESULT_TIME_EPS + fabs(largest) * 0x1p-40;
}

/* The cluster record describes a possible cluster: a capacity that holds the largest job,
 * a simulation that ends after it starts and after the last completion, allocations no larger than capacity x time (with
 * room for rounding) whose parts add up, a mean allocation rate in [0, 1]. */
static const char *cluster_problem(const struct json *v, const struct result_cluster_fields *cf, double max_gpus, double max_end)
{
	double cap = cf->capacity, t0 = cf->start, t1 = cf->end;
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
	struct result_cluster_fields cf;
	if (result_decode_cluster(r, v, &cf, err, errlen))
		return -1;
	const char *why = cluster_problem(v, &cf, max_gpus, max_end);
	if (why) {
		ndr_errorf(r, err, errlen, "cluster: %s", why);
		return -1;
	}
	return 0;
}

/* A job_result's fields, from the parsed record or from the fast path. */
struct jobfields {
	const char *id, *cls;
	double submit, start, end, duration, gpus, jct, queue;
	long long preemptions, runs;
	bool eval_pop, timed_out;
};

/* The record's fields once check_record has passed it against job_spec: what every reader
 * decodes (jf, from result_decode_job), then what only this one checks. */
static void job_from_tree(const struct json *v, const struct result_job_fields *jf, struct jobfields *f)
{
	f->id = jf->id;
	f->cls = jf->hp ? "HP" : "Spot";
	f->submit = jf->submit;
	f->start = jf->start;
	f->end = jf->completion;
	f->duration = num_of(v, "duration_seconds");
	f->gpus = jf->gpus;
	f->jct = num_of(v, "jct_seconds");
	f->queue = num_of(v, "queue_seconds");
	f->preemptions = int_of(v, "preemption_count");
	f->runs = int_of(v, "run_count");
	f->eval_pop = jf->eval_pop;
	struct json *to = json_get(v, "timed_out");
	f->timed_out = to && to->kind == JSON_TRUE;
}

/* Each derived field of a job_result against the fields it derives from (docs/hardening.md):
 * submit <= start <= completion (start may precede submit by float noise), jct =
 * completion - submit, the time queued and the time run fit inside the jct, and a job never
 * preempted queued exactly from its submit to its start. NULL or what is wrong. */
static const char *job_derived_problem(const struct jobfields *f)
{
	double tol = derived_tol(f->end);
	if (!(f->submit - RESULT_TIME_EPS <= f->start && f->start <= f->end))
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
static int add_job(struct result_data *m, struct nd_reader *r, const struct jobfields *f, double *max_gpus, double *max_end, char *err,
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
	struct result_job *j = &m->jobs[m->n_jobs++];
	j->jct = f->jct;
	j->queue = f->queue;
	j->preemptions = f->preemptions;
	j->runs = f->runs;
	j->eval_pop = f->eval_pop;
	j->timed_out = f->timed_out;
	m->any_time_out |= f->timed_out;
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
	const struct result_ext *const *exts;  /* the families whose counted records are skimmed */
	const char *skimmed;        /* fast_counted: the type of the line it accepted */
	size_t skimmed_ext;         /* and the index of its family in exts */
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
	f->timed_out = LIT(&p, end, ",\"timed_out\":true");
	if (p + 1 != end || *p != '}')
		return 0;
	/* job_spec's kinds and ranges: anything else is left to check_record and its message */
	if (!fast_id(f->id) || (strcmp(f->cls, "HP") && strcmp(f->cls, "Spot")) || !fast_id(model) || (tenant && !fast_id(tenant)) ||
	    !(f->submit >= 0 && f->start >= 0 && f->end >= 0 && f->duration > 0 && f->gpus > 0 && f->queue >= -RESULT_TIME_EPS &&
	      f->jct >= 0))
		return 0;
	f->preemptions = (long long)pre_d;
	f->runs = (long long)runs_d;
	return 1;
}

/*
 * Fast path for the records the reader only counts (struct result_ext's counted types): a
 * control_decision (a controlled run has one per 300 s, ~1 KB of nested numbers each) and
 * roll's decision records. The reader reads nothing in them, so a line need not become a
 * tree: it only has to be one the parser would accept, which json_skim (core/json.h) tells
 * for a strict subset of JSON; any other line is parsed as before, with its own errors.
 */
/* A line of a counted type of one of c->exts, by the prefix their writers give them (type
 * is the first key), that json_skim accepts: c->skimmed names its type. */
static int fast_counted(struct fastjob *c, const char *line, size_t len)
{
	static const char pre[] = "{\"type\":\"";
	if (!c->exts || len < sizeof pre - 1 || memcmp(line, pre, sizeof pre - 1))
		return 0;
	const char *t = line + sizeof pre - 1, *end = line + len;
	for (size_t x = 0; c->exts[x]; x++)
		for (const char *const *k = c->exts[x]->counted; k && *k; k++) {
			size_t n = strlen(*k);
			if ((size_t)(end - t) > n + 1 && !memcmp(t, *k, n) && t[n] == '"' && t[n + 1] == ',') {
					if (!json_skim(line, len))
					return 0;
				c->skimmed = *k;
				c->skimmed_ext = x;
				return 1;
			}
		}
	return 0;
}

/* The fast paths in turn: a job_result, or a counted record. */
static int fast_record(void *vctx, const char *line, size_t len)
{
	struct fastjob *c = vctx;
	c->skimmed = NULL;
	return fast_job(vctx, line, len) || fast_counted(c, line, len);
}

/* The family in exts whose counted type (*summary false) or summary type (*summary true) is
 * type, or -1. */
static long ext_of(const struct result_ext *const *exts, const char *type, bool *summary)
{
	for (size_t x = 0; exts && exts[x]; x++) {
		for (const char *const *k = exts[x]->counted; k && *k; k++)
			if (!strcmp(*k, type)) {
				*summary = false;
				return (long)x;
			}
		if (exts[x]->summary && !strcmp(exts[x]->summary, type)) {
			*summary = true;
			return (long)x;
		}
	}
	return -1;
}

/* A counted record, parsed or skimmed alike. */
static int counted_record(struct result_data *m, struct nd_reader *r, size_t x, const char *type, char *err, size_t errlen)
{
	char why[300];
	if (m->exts[x]->count && m->exts[x]->count(m->header, type, why, sizeof why)) {
		ndr_errorf(r, err, errlen, "%s", why);
		return -1;
	}
	m->counted[x] = true;
	return 0;
}

/* A summary record: at most one per family, checked by it, kept whole. */
static int summary_record(struct result_data *m, struct nd_reader *r, size_t x, const struct json *v, char *err, size_t errlen)
{
	char why[300];
	if (m->summary[x]) {
		ndr_errorf(r, err, errlen, "more than one %s record", m->exts[x]->summary);
		return -1;
	}
	if (m->exts[x]->check && m->exts[x]->check(m->header, v, why, sizeof why)) {
		ndr_errorf(r, err, errlen, "%s", why);
		return -1;
	}
	m->summary[x] = json_clone(&m->arena, v);
	return 0;
}

/* What the stream reader's callbacks share. fast comes first: ndr_read_stream hands this
 * context to fast_record, which reads it as its struct fastjob. */
struct readctx {
	struct fastjob fast;
	struct result_data *m;
	double max_gpus;         /* the largest job, checked against the cluster's capacity */
	double max_end;          /* the last completion, checked against the simulation's end */
	size_t n_exts;
};

static int on_header(void *ctx, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	return read_header(((struct readctx *)ctx)->m, r, h, err, errlen);
}

/* A line a fast path took: a counted record, or a job_result. */
static int on_fast(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct readctx *c = ctx;
	if (c->fast.skimmed)
		return counted_record(c->m, r, c->fast.skimmed_ext, c->fast.skimmed, err, errlen);
	return add_job(c->m, r, &c->fast.f, &c->max_gpus, &c->max_end, err, errlen);
}

static int on_record(void *ctx, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	struct readctx *c = ctx;
	struct result_data *m = c->m;
	const struct result_ext *const *exts = m->exts;
	const char *type = json_get(v, "type")->u.str.s;
	bool is_summary;
	long fam;
	if (!strcmp(type, "job_result")) {
		struct jobfields f;
		struct result_job_fields jf;
		if (check_record(r, v, SPEC(job_spec), err, errlen) || result_decode_job(r, v, 0, &jf, err, errlen))
			return -1;
		job_from_tree(v, &jf, &f);
		return add_job(m, r, &f, &c->max_gpus, &c->max_end, err, errlen);
	} else if (!strcmp(type, "run")) {
		struct result_run_fields rf;
		if (check_record(r, v, SPEC(run_spec), err, errlen) || result_decode_run(r, v, &rf, err, errlen))
			return -1;
		long k = find_job(m, rf.id);
		if (k < 0) {
			ndr_errorf(r, err, errlen, "run of unknown job '%s'", rf.id);
			return -1;
		}
		if (!(rf.start <= rf.end)) {
			ndr_errorf(r, err, errlen, "run of '%s' ends before it starts", rf.id);
			return -1;
		}
		m->runs = xgrow(m->runs, &m->cap_runs, m->n_runs + 1, sizeof *m->runs);
		struct result_run *x = &m->runs[m->n_runs++];
		x->job = (size_t)k;
		x->start = rf.start;
		x->preempted = rf.preempted;
		x->succeeded = bool_of(v, "guarantee_succeeded");
	} else if (!strcmp(type, "preemption")) {
		struct result_preemption_fields pf;
		if (check_record(r, v, SPEC(event_spec), err, errlen) || result_decode_preemption(r, v, &pf, err, errlen))
			return -1;
		const char *id = pf.victim, *by = str_of(v, "triggering_job_id");
		long k = find_job(m, id);
		if (k < 0 || find_job(m, by) < 0) {
			ndr_errorf(r, err, errlen, "preemption of unknown job '%s'", k < 0 ? id : by);
			return -1;
		}
		m->events = xgrow(m->events, &m->cap_events, m->n_events + 1, sizeof *m->events);
		struct result_event *e = &m->events[m->n_events++];
		e->victim = (size_t)k;
		e->time = pf.time;
		e->rollback = num_of(v, "rollback_seconds");
		e->overhead = num_of(v, "overhead_seconds");
		e->added = num_of(v, "added_gpu_seconds");
	} else if (!strcmp(type, "cluster")) {
		if (check_record(r, v, SPEC(cluster_spec), err, errlen))
			return -1;
		if (m->cluster) {
			ndr_errorf(r, err, errlen, "more than one cluster record");
			return -1;
		}
		if (check_cluster(r, v, c->max_gpus, c->max_end, err, errlen))
			return -1;
		m->cluster = json_clone(&m->arena, v);
	} else if ((fam = ext_of(exts, type, &is_summary)) >= 0) {
		return is_summary ? summary_record(m, r, (size_t)fam, v, err, errlen) : counted_record(m, r, (size_t)fam, type, err, errlen);
	} else {
		ndr_errorf(r, err, errlen, "unknown record type '%s' in a result stream", type);
		return -1;
	}
	return 0;
}

/* After the end record: the stream as a whole. */
static int on_finish(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct readctx *c = ctx;
	struct result_data *m = c->m;
	memcpy(m->fingerprint, ndr_fingerprint(r), 33);
	if (!m->n_jobs) {
		ndr_errorf(r, err, errlen, "result stream has no job_result records");
		return -1;
	}
	if (!m->cluster) {
		ndr_errorf(r, err, errlen, "result stream has no cluster record");
		return -1;
	}
	/* a family's missing summary, the last family's first (roll's rolling records were
	 * checked before the controller's control records, and the message says which) */
	for (size_t x = c->n_exts; x-- > 0;) {
		const char *why = !m->summary[x] && m->exts[x]->missing ? m->exts[x]->missing(m->header, m->counted[x]) : NULL;
		if (why) {
			ndr_errorf(r, err, errlen, "%s", why);
			return -1;
		}
	}
	return 0;
}

/* what, header, fast, fast_record, record, finish (core/ndstream.h) */
static const struct ndr_stream_ops result_stream = { "result", on_header, fast_record, on_fast, on_record, on_finish };

int result_read(struct result_data *m, struct nd_reader *r, const struct result_ext *const *exts, char *err, size_t errlen)
{
	struct readctx c = { .fast = { .exts = exts }, .m = m };
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	while (exts && exts[c.n_exts])
		c.n_exts++;
	if (c.n_exts > RESULT_EXT_MAX) {
		snprintf(err, errlen, "%s: more than %d record families for a result stream", ndr_name(r), RESULT_EXT_MAX);
		return -1;
	}
	m->exts = exts;
	int rc = ndr_read_stream(r, &result_stream, &c, err, errlen);
	free(c.fast.buf);
	return rc;
}

static void add_runs_events(struct result_data *m, const struct sim_output *o, const size_t *rank)
{
	m->runs = xmalloc((o->n_runs + 1) * sizeof *m->runs);
	m->cap_runs = o->n_runs + 1;
	for (size_t i = 0; i < o->n_runs; i++) {
		const struct sim_spot_run *r = &o->runs[i];
		m->runs[m->n_runs++] = (struct result_run){ rank[r->job], r->start, !r->completed, r->guarantee_succeeded };
	}
	m->events = xmalloc((o->n_events + 1) * sizeof *m->events);
	m->cap_events = o->n_events + 1;
	for (size_t i = 0; i < o->n_events; i++) {
		const struct sim_preemption *e = &o->events[i];
		m->events[m->n_events++] = (struct result_event){ rank[e->victim], e->time, e->rollback, e->overhead, e->added_gpu_seconds };
	}
}

static struct json *cluster_json(struct arena *a, const struct sim_output *o)
{
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
	return c;
}

/*
 * What result_read gives for the stream result_write would write (issue 23: a rolling
 * scenario's metrics without writing and re-reading its result). The values are the ones
 * written: every double is written in a form that reads back as the same double, jct is
 * computed as the writer computes it, jobs are in job_id order, runs and preemptions keep
 * their order. The checks a reader makes of a job, of the cluster and of an empty result
 * are made too, with the same messages (without PATH:LINE).
 */
static int from_output(struct result_data *m, const struct json *hdr, const struct sim_policy *p, const struct trace *t,
		       const struct sim_output *o, bool checked, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	m->header = json_clone(&m->arena, hdr);
	m->policy = *p;
	size_t n = o->n_jobs, *order = result_id_order(t, n), *rank = xmalloc((n + 1) * sizeof *rank);
	m->jobs = xmalloc((n + 1) * sizeof *m->jobs);
	m->cap_jobs = n + 1;
	double max_gpus = 0, max_end = 0;
	int rc = -1;
	for (size_t x = 0; x < n; x++) {
		const struct trace_job *tj = &t->jobs[order[x]];
		const struct sim_job_result *r = &o->jobs[order[x]];
		struct jobfields f = { tj->id, tj->hp ? "HP" : "Spot", tj->submit, r->start, r->completion, trace_job_run_seconds(tj), tj->gpus,
			r->completion - tj->submit, r->queue_seconds, r->preemptions, r->runs, r->evaluation_population, trace_job_times_out(tj) };
		const char *why = checked ? job_derived_problem(&f) : NULL;
		if (why) {
			snprintf(err, errlen, "job_result '%s': %s", f.id, why);
			goto out;
		}
		if (checked && x && strcmp(m->jobs[x - 1].id, f.id) >= 0) {
			snprintf(err, errlen, "job_result '%s': not sorted by job_id or duplicate", f.id);
			goto out;
		}
		if (f.end > max_end)
			max_end = f.end;
		if (f.gpus > max_gpus)
			max_gpus = f.gpus;
		m->jobs[x] = (struct result_job){ (char *)tj->id, tj->hp, f.eval_pop, f.jct, f.queue, f.preemptions, f.runs, f.timed_out };
		m->any_time_out |= f.timed_out;
		m->n_jobs = x + 1;
		rank[order[x]] = x;
	}
	add_runs_events(m, o, rank);
	struct json *c = cluster_json(&m->arena, o);
	struct result_cluster_fields cf = { (double)o->capacity_gpus, o->simulation_start, o->simulation_end };
	const char *why = checked ? cluster_problem(c, &cf, max_gpus, max_end) : NULL;
	if (why) {
		snprintf(err, errlen, "cluster: %s", why);
		goto out;
	}
	m->cluster = c;
	if (checked && !m->n_jobs) {
		snprintf(err, errlen, "result stream has no job_result records");
		goto out;
	}
	result_fingerprint_ordered(t, o, order, m->fingerprint);
	rc = 0;
out:
	free(order);
	free(rank);
	if (rc)
		result_data_release(m);
	return rc;
}

int result_from_output(struct result_data *m, const struct json *hdr, const struct sim_policy *p, const struct trace *t,
		       const struct sim_output *o, char *err, size_t errlen)
{
	return from_output(m, hdr, p, t, o, true, err, errlen);
}

void result_from_output_unchecked(struct result_data *m, const struct json *hdr, const struct sim_policy *p,
				  const struct trace *t, const struct sim_output *o)
{
	char err[1];
	(void)from_output(m, hdr, p, t, o, false, err, sizeof err);   /* makes no check: cannot fail */
}

void result_data_release(struct result_data *m)
{
	free(m->jobs);
	free(m->runs);
	free(m->events);
	arena_release(&m->arena);
	memset(m, 0, sizeof *m);
}
