/* Reading the streams of one evaluation into a report model. */
#include "report/report.h"
#include "core/xalloc.h"
#include "core/ndjson.h"
#include "core/text.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include "sim/result_read.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rp_model_init(struct rp_model *m)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->a);
}

void rp_model_release(struct rp_model *m)
{
	for (size_t i = 0; i < m->nresults; i++) {
		free(m->results[i].jobs);
		free(m->results[i].runs);
		free(m->results[i].preemptions);
		free(m->results[i].frag_t);
		free(m->results[i].frag_gpus);
		free(m->results[i].decisions);
		rp_control_release(&m->results[i].control);
	}
	free(m->results);
	free(m->metrics);
	free(m->audits);
	free(m->rankings);
	free(m->approvals);
	free(m->study);
	free(m->saturation);
	free(m->inputs);
	free(m->policies);
	arena_release(&m->a);
	memset(m, 0, sizeof *m);
}

const struct json *rp_audit_constraints(const struct json *audit)
{
	const struct json *v = json_get(audit, "constraints");
	if (!v)
		v = json_get(audit, "results");
	return v && v->kind == JSON_ARRAY ? v : NULL;
}

const char *rp_ranking_status(const struct json *ranking)
{
	const char *s = rp_str(ranking, "status");
	return s ? s : rp_str(ranking, "selection_status");
}

const struct json *rp_ranking_selected(const struct json *ranking)
{
	const struct json *v = json_get(ranking, "selected_action_ids");
	if (!v)
		v = json_get(ranking, "remaining_action_ids");
	return v && v->kind == JSON_ARRAY ? v : NULL;
}

const struct rp_rec *rp_model_ranking(const struct rp_model *m)
{
	return m->nrankings ? &m->rankings[m->nrankings - 1] : NULL;
}

/* ---- reading ----
 *
 * A report input holds any number of streams of any schema, result streams among them; each
 * result record is decoded by lib/sim/result_read's decoders (result_decode_*, leniently:
 * null times are drawn as never started or never finished), the ones result_read uses on
 * the records it checks, so the stream's two readers decode its records one way. The report
 * does not use result_read itself: that reads exactly one result stream and refuses what
 * follows it, refuses null times and keys it does not know, and counts the control_decision
 * records unparsed, where the report charts every control_decision and the rolling
 * decisions, keeps each stream's records until its end fingerprint, and draws streams the
 * strict reader refuses (issue 20 item 4).
 */

struct reader_state {
	struct rp_model *m;
	struct nd_reader *r;
	struct json *header;
	struct rp_result *result;      /* result of the current stream, created on demand */
	size_t result_index;
	/* records of the current stream waiting for its end fingerprint */
	struct { struct rp_rec **list; size_t *count; size_t first; } pending[5];
	size_t npending;
	char bad[1024];                /* the first record of the stream that does not verify */
};

static char *keep(struct rp_model *m, const char *s)
{
	return s ? arena_strndup(&m->a, s, strlen(s)) : NULL;
}

/* The action id a result stream declares in its header (policy.action_id). */
static const char *header_action_id(const struct json *hdr)
{
	return rp_str(json_get(hdr, "policy"), "action_id");
}

static const char *header_policy_fingerprint(const struct json *hdr)
{
	return rp_str(hdr, "policy_fingerprint");
}

static struct rp_result *current_result(struct reader_state *st, char *err, size_t errlen)
{
	if (st->result)
		return st->result;
	struct rp_model *m = st->m;
	const char *action = header_action_id(st->header);
	if (!action) {
		ndr_errorf(st->r, err, errlen, "result stream header declares no 'policy.action_id'");
		return NULL;
	}
	m->results = xgrow(m->results, &m->cap_results, m->nresults + 1, sizeof *m->results);
	struct rp_result *res = &m->results[m->nresults];
	memset(res, 0, sizeof *res);
	res->action_id = keep(m, action);
	res->policy_fingerprint = keep(m, header_policy_fingerprint(st->header));
	res->path = keep(m, ndr_name(st->r));
	res->simulation_start = res->simulation_end = NAN;
	res->eval_start = res->eval_end = NAN;
	/* The evaluation window sim-run declares in the header. */
	double s = rp_num(st->header, "evaluation_start"), e = rp_num(st->header, "evaluation_end");
	if (!isnan(s) && !isnan(e) && e >= s) {
		res->eval_start = s;
		res->eval_end = e;
		res->has_window = true;
	}
	st->result_index = m->nresults++;
	st->result = res;
	return res;
}

static int add_job(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	if (!res)
		return -1;
	struct result_job_fields f;
	if (result_decode_job(st->r, rec, RESULT_LENIENT, &f, err, errlen))
		return -1;
	res->jobs = xgrow(res->jobs, &res->cap_jobs, res->njobs + 1, sizeof *res->jobs);
	res->jobs[res->njobs++] = (struct rp_job){ .job_id = keep(st->m, f.id), .submit = f.submit, .start = f.start,
		.completion = f.completion, .gpus = f.gpus, .hp = f.hp, .eval_pop = f.eval_pop };
	return 0;
}

static int add_run(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	if (!res)
		return -1;
	struct result_run_fields f;
	if (result_decode_run(st->r, rec, &f, err, errlen))
		return -1;
	if (f.end < f.start) {
		ndr_errorf(st->r, err, errlen, "'run' record: ends before it starts");
		return -1;
	}
	res->runs = xgrow(res->runs, &res->cap_runs, res->nruns + 1, sizeof *res->runs);
	res->runs[res->nruns++] = (struct rp_run){ .job_id = keep(st->m, f.id), .start = f.start, .end = f.end, .preempted = f.preempted };
	return 0;
}

static int add_preemption(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	struct result_preemption_fields f;
	if (!res || result_decode_preemption(st->r, rec, &f, err, errlen))
		return -1;
	res->preemptions = xgrow(res->preemptions, &res->cap_preemptions, res->npreemptions + 1, sizeof *res->preemptions);
	res->preemptions[res->npreemptions++] = (struct rp_preemption){ f.time, f.victim ? keep(st->m, f.victim) : NULL };
	return 0;
}

/* issue 36: a placement_sample (time order, as sim-run writes them), for the fragmentation chart. */
static int add_frag(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	double t, g;
	if (!res || result_field_num(st->r, rec, "time_seconds", &t, err, errlen) ||
	    result_field_num(st->r, rec, "fragmented_gpus", &g, err, errlen))
		return -1;
	res->frag_t = xgrow(res->frag_t, &res->cap_frag_t, res->nfrag + 1, sizeof *res->frag_t);
	res->frag_gpus = xgrow(res->frag_gpus, &res->cap_frag_g, res->nfrag + 1, sizeof *res->frag_gpus);
	res->frag_t[res->nfrag] = t;
	res->frag_gpus[res->nfrag++] = g;
	return 0;
}

/* roll's decisions and report, kept with the arm's result for the rolling timeline. */
static int add_rolling(struct reader_state *st, const struct json *rec, bool report, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	double t;
	const char *sel;
	if (!res)
		return -1;
	if (report) {
		res->rolling_report = json_clone(&st->m->a, rec);
		return 0;
	}
	if (result_field_num(st->r, rec, "cutoff_time_seconds", &t, err, errlen) ||
	    result_field_str(st->r, rec, "selected_action_id", &sel, err, errlen))
		return -1;
	if (res->ndecisions && rp_num(res->decisions[res->ndecisions - 1], "cutoff_time_seconds") >= t) {
		ndr_errorf(st->r, err, errlen, "'rolling_decision' record: cutoffs must increase");
		return -1;
	}
	res->decisions = xgrow(res->decisions, &res->cap_decisions, res->ndecisions + 1, sizeof *res->decisions);
	res->decisions[res->ndecisions++] = json_clone(&st->m->a, rec);
	return 0;
}

static int add_cluster(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_result *res = current_result(st, err, errlen);
	struct result_cluster_fields f;
	if (!res || result_decode_cluster(st->r, rec, &f, err, errlen))
		return -1;
	res->capacity_gpus = f.capacity;
	res->simulation_start = f.start;
	res->simulation_end = f.end;
	res->has_cluster = true;
	return 0;
}

/* Keep a whole record; its stream fingerprint is filled in at the stream's end. */
static void keep_record(struct reader_state *st, struct rp_rec **list, size_t *n, size_t *cap, const struct json *rec)
{
	struct rp_model *m = st->m;
	*list = xgrow(*list, cap, *n + 1, sizeof **list);
	(*list)[*n] = (struct rp_rec){ json_clone(&m->a, rec), NULL, keep(m, ndr_name(st->r)) };
	size_t k;
	for (k = 0; k < st->npending; k++)
		if (st->pending[k].count == n)
			break;
	if (k == st->npending) {
		st->pending[k].list = list;
		st->pending[k].count = n;
		st->pending[k].first = *n;
		st->npending++;
	}
	(*n)++;
}

static int record(struct reader_state *st, const struct json *rec, char *err, size_t errlen)
{
	struct rp_model *m = st->m;
	const char *type = rp_str(rec, "type");
	char e[600];
	/* the verification rank, aggregate and approve --verify run: an edited audit, ranking or
	 * study record (even in a resealed stream) is refused, not shown */
	if (!st->bad[0] && ev_verify(rec, e, sizeof e))
		ndr_errorf(st->r, st->bad, sizeof st->bad, "%s", e);   /* reported once the stream verifies */
	const char *schema = rp_str(st->header, "schema");
	bool in_result = schema && strstr(schema, "result");
	if (!strcmp(type, "job_result") || (in_result && !strcmp(type, "job")))
		return add_job(st, rec, err, errlen);
	if (!strcmp(type, "run"))
		return add_run(st, rec, err, errlen);
	if (!strcmp(type, "preemption"))
		return add_preemption(st, rec, err, errlen);
	if (!strcmp(type, "cluster"))
		return add_cluster(st, rec, err, errlen);
	if (in_result && !strcmp(type, "placement_sample"))
		return add_frag(st, rec, err, errlen);
	if (in_result && (!strcmp(type, "rolling_decision") || !strcmp(type, "rolling_report")))
		return add_rolling(st, rec, !strcmp(type, "rolling_report"), err, errlen);
	if (in_result && !strcmp(type, "control_decision")) {
		struct rp_result *res = current_result(st, err, errlen);
		char why[256];
		if (!res)
			return -1;
		if (rp_control_add(m, res, rec, why, sizeof why)) {
			ndr_errorf(st->r, err, errlen, "%s", why);
			return -1;
		}
		return 0;
	}
	if (!strcmp(type, "metrics")) {
		const char *id;
		if (result_field_str(st->r, rec, "action_id", &id, err, errlen))
			return -1;
		keep_record(st, &m->metrics, &m->nmetrics, &m->cap_metrics, rec);
	} else if (!strcmp(type, "audit")) {
		if (!rp_audit_constraints(rec)) {
			ndr_errorf(st->r, err, errlen, "'audit' record: 'constraints' is missing or not an array");
			return -1;
		}
		keep_record(st, &m->audits, &m->naudits, &m->cap_audits, rec);
	} else if (!strcmp(type, "ranking")) {
		if (!rp_ranking_status(rec)) {
			ndr_errorf(st->r, err, errlen, "'ranking' record: no 'status'");
			return -1;
		}
		keep_record(st, &m->rankings, &m->nrankings, &m->cap_rankings, rec);
	} else if (!strcmp(type, "window_result") || !strcmp(type, "selection") || !strcmp(type, "aggregate_action") ||
		   !strcmp(type, "aggregate_summary")) {
		keep_record(st, &m->study, &m->nstudy, &m->cap_study, rec);
	} else if (!strcmp(type, "pool_saturation")) {
		if (!rp_str(rec, "gpu_model")) {
			ndr_errorf(st->r, err, errlen, "'pool_saturation' record: no 'gpu_model'");
			return -1;
		}
		keep_record(st, &m->saturation, &m->nsaturation, &m->cap_saturation, rec);
	}
	return 0;   /* other record types (trace nodes and jobs, comparisons...) are not charted */
}

int rp_model_read(struct rp_model *m, const char *path, char *err, size_t errlen)
{
	struct reader_state st = { .m = m };
	st.r = ndr_open(path, err, errlen);
	if (!st.r)
		return -1;
	struct arena scratch;
	arena_init(&scratch);
	int rc = -1;
	for (;;) {
		struct json *rec;
		enum nd_event ev = ndr_next(st.r, &scratch, &rec, err, errlen);
		if (ev == ND_ERROR)
			goto out;
		if (ev == ND_EOF)
			break;
		if (ev == ND_HEADER) {
			st.header = json_clone(&m->a, rec);
			st.result = NULL;
			st.npending = 0;
			const char *action = header_action_id(rec);
			if (action && text_id_problem(action, strlen(action))) {
				ndr_errorf(st.r, err, errlen, "header: 'policy.action_id' %s", text_id_problem(action, strlen(action)));
				goto out;
			}
		} else if (ev == ND_RECORD) {
			if (record(&st, rec, err, errlen))
				goto out;
		} else {
			if (st.bad[0]) {
				snprintf(err, errlen, "%s", st.bad);
				goto out;
			}
			const char *fp = keep(m, ndr_fingerprint(st.r));
			for (size_t k = 0; k < st.npending; k++)
				for (size_t i = st.pending[k].first; i < *st.pending[k].count; i++)
					(*st.pending[k].list)[i].fingerprint = fp;
			if (st.result)
				st.result->fingerprint = fp;
			m->inputs = xgrow(m->inputs, &m->cap_inputs, m->ninputs + 1, sizeof *m->inputs);
			const struct json *n = json_get(rec, "records");
			m->inputs[m->ninputs++] = (struct rp_input){
				keep(m, ndr_name(st.r)), keep(m, rp_str(st.header, "schema")),
				keep(m, rp_str(st.header, "tool")), fp, (unsigned long long)n->u.i };
		}
		arena_reset(&scratch);
	}
	rc = 0;
out:
	arena_release(&scratch);
	ndr_close(st.r);
	return rc;
}

int rp_model_read_approvals(struct rp_model *m, const char *path, char *err, size_t errlen)
{
	if (access(path, F_OK) != 0)
		return 0;   /* nobody has approved anything yet */
	char *buf;
	size_t len;
	if (zio_slurp(path, &buf, &len, err, errlen))
		return -1;
	/* the whole log, verified exactly as approve --verify does: fingerprints and chain */
	struct ev_approvals log;
	int rc = ev_approvals_read(&log, buf, len, path, &m->a, err, errlen);
	free(buf);
	for (size_t i = 0; rc == 0 && i < log.n; i++) {
		m->approvals = xgrow(m->approvals, &m->cap_approvals, m->napprovals + 1, sizeof *m->approvals);
		m->approvals[m->napprovals++] = (struct rp_rec){ log.rec[i], NULL, keep(m, path) };
	}
	ev_approvals_release(&log);
	return rc;
}

/* ---- joining ---- */

static size_t policy_index(struct rp_model *m, const char *action_id)
{
	for (size_t i = 0; i < m->npolicies; i++)
		if (!strcmp(m->policies[i].action_id, action_id))
			return i;
	m->policies[m->npolicies] = (struct rp_policy){ .action_id = action_id };
	return m->npolicies++;
}

int rp_model_finish(struct rp_model *m, char *err, size_t errlen)
{
	m->policies = xcalloc(m->nresults + m->nmetrics + 1, sizeof *m->policies);
	/* Policies in the order their metrics came, then results without metrics. */
	for (size_t i = 0; i < m->nmetrics; i++) {
		const char *id = rp_str(m->metrics[i].rec, "action_id");
		size_t k = policy_index(m, id);
		if (m->policies[k].metrics) {
			snprintf(err, errlen, "%s: two metrics records for action '%s' (one run per policy; several windows belong in a study)", m->metrics[i].path, id);
			return -1;
		}
		m->policies[k].metrics = &m->metrics[i];
	}
	for (size_t i = 0; i < m->nresults; i++) {
		struct rp_result *r = &m->results[i];
		size_t k = policy_index(m, r->action_id);
		if (m->policies[k].result) {
			snprintf(err, errlen, "%s: two result streams for action '%s'", r->path, r->action_id);
			return -1;
		}
		if (!r->has_cluster) {
			snprintf(err, errlen, "%s: result stream for '%s' has no 'cluster' record", r->path, r->action_id);
			return -1;
		}
		m->policies[k].result = r;
	}
	/* Audits name the metrics they judged by fingerprint (else by policy fingerprint). */
	for (size_t i = 0; i < m->naudits; i++) {
		const struct json *a = m->audits[i].rec;
		const char *mfp = rp_str(a, "metrics_fingerprint"), *pfp = rp_str(a, "policy_fingerprint");
		struct rp_policy *hit = NULL;
		for (size_t k = 0; k < m->npolicies && !hit; k++) {
			const struct rp_rec *mr = m->policies[k].metrics;
			if (mr && mfp && mr->fingerprint && !strcmp(mr->fingerprint, mfp))
				hit = &m->policies[k];
		}
		for (size_t k = 0; k < m->npolicies && !hit; k++) {
			const struct rp_rec *mr = m->policies[k].metrics;
			const char *p2 = mr ? rp_str(mr->rec, "policy_fingerprint") : NULL;
			if (p2 && pfp && !strcmp(p2, pfp))
				hit = &m->policies[k];
		}
		if (!hit) {
			snprintf(err, errlen, "%s: audit of metrics '%s' matches no metrics record in the input", m->audits[i].path, mfp ? mfp : "?");
			return -1;
		}
		hit->audit = &m->audits[i];   /* a later audit of the same metrics replaces an earlier one */
	}
	return 0;
}

int rp_model_load(struct rp_model *m, const char *const *inputs, size_t ninputs, const char *approvals, const char *approve_program,
		  char *err, size_t errlen)
{
	rp_model_init(m);
	for (size_t i = 0; i < ninputs; i++)
		if (rp_model_read(m, inputs[i], err, errlen))
			return -1;
	if (m->ninputs == 0) {
		snprintf(err, errlen, "no streams in the input");
		return -1;
	}
	if (approvals && rp_model_read_approvals(m, approvals, err, errlen))
		return -1;
	m->approvals_log = approvals;
	m->approve_program = approve_program;
	return rp_model_finish(m, err, errlen);
}
