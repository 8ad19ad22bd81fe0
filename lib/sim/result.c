#include "sim/result.h"
#include "core/die.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json *result_header(struct arena *a, const struct trace *t, const struct sim_policy *p, const struct sim_output *o)
{
	struct json *h = nd_header_new(a, RESULT_SCHEMA, "sim-run");
	nd_header_add_stream(a, h, t->input_name, t->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, t->fingerprint);
	json_set(a, h, "policy", json_clone(a, p->canonical));
	json_set(a, h, "policy_fingerprint", json_str(a, p->fingerprint));
	json_set(a, h, "trace_id", json_str(a, t->trace_id));
	json_set(a, h, "trace_fingerprint", json_str(a, t->fingerprint));
	json_set(a, h, "time_origin", json_str(a, t->time_origin));
	json_set(a, h, "source", json_clone(a, t->source));
	json_set(a, h, "evaluation_start", json_real(a, o->evaluation_start));
	json_set(a, h, "evaluation_end", json_real(a, o->evaluation_end));
	return h;
}

static const struct trace *sort_trace;

static int by_id(const void *a, const void *b)
{
	return strcmp(sort_trace->jobs[*(const size_t *)a].id, sort_trace->jobs[*(const size_t *)b].id);
}

static void key(struct strbuf *sb, const char *k)
{
	sb_addc(sb, ',');
	sb_addc(sb, '"');
	sb_adds(sb, k);
	sb_adds(sb, "\":");
}

static void kstr(struct strbuf *sb, const char *k, const char *v)
{
	key(sb, k);
	sb_add_jstr(sb, v, strlen(v));
}

/*
 * Python repr of v, fast for the common case: a value with at most 15 significant digits and
 * at most 6 decimals in [1e-4, 1e15). By DBL_DIG at most one such decimal maps to v, so the
 * first k whose candidate round-trips gives the shortest form; anything else goes through
 * the general formatter. tests/unit/test_sim.c checks it against sb_add_double.
 */
static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };

void result_add_double(struct strbuf *sb, double v)
{
	if (v >= 1e-4 && v < 1e15) {
		for (int k = 0; k <= 6; k++) {
			double scaled = v * p10[k];
			if (scaled >= 1e15)
				break;
			long long m = llround(scaled);
			if ((double)m / p10[k] != v)
				continue;
			char digits[24];
			int n = snprintf(digits, sizeof digits, "%0*lld", k + 1, m);
			if (k == 0) {
				sb_add(sb, digits, (size_t)n);
				sb_add(sb, ".0", 2);
			} else {
				sb_add(sb, digits, (size_t)(n - k));
				sb_addc(sb, '.');
				sb_add(sb, digits + n - k, (size_t)k);
			}
			return;
		}
	} else if (v == 0 && !signbit(v)) {
		sb_add(sb, "0.0", 3);
		return;
	}
	/* Full-precision values (sums of times): sb_add_double searches precisions 0..16 in
	 * order. If 15 significant digits do not round-trip, no shorter form does either
	 * (DBL_DIG: a <=15-digit decimal comes back from its double unchanged), so the answer
	 * is 16 or 17 digits; find it directly and lay it out the same way. */
	char tmp[40];
	if (isfinite(v) && v > 0) {
		snprintf(tmp, sizeof tmp, "%.14e", v);
		if (strtod(tmp, NULL) != v) {
			snprintf(tmp, sizeof tmp, "%.15e", v);
			if (strtod(tmp, NULL) != v)
				snprintf(tmp, sizeof tmp, "%.16e", v);
			char digits[24];
			size_t nd = 0;
			const char *p = tmp;
			for (; *p && *p != 'e'; p++)
				if (*p != '.')
					digits[nd++] = *p;
			int e10 = atoi(p + 1);
			while (nd > 1 && digits[nd - 1] == '0')
				nd--;
			if (e10 >= -4 && e10 < 16) {
				if (e10 < 0) {
					sb_add(sb, "0.", 2);
					for (int i = 0; i < -e10 - 1; i++)
						sb_addc(sb, '0');
					sb_add(sb, digits, nd);
				} else {
					for (int i = 0; i <= e10; i++)
						sb_addc(sb, i < (int)nd ? digits[i] : '0');
					sb_addc(sb, '.');
					if ((int)nd > e10 + 1)
						sb_add(sb, digits + e10 + 1, nd - (size_t)e10 - 1);
					else
						sb_addc(sb, '0');
				}
			} else {
				sb_addc(sb, digits[0]);
				if (nd > 1) {
					sb_addc(sb, '.');
					sb_add(sb, digits + 1, nd - 1);
				}
				sb_addf(sb, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
			}
			return;
		}
	}
	sb_add_double(sb, v);
}

static void kdbl(struct strbuf *sb, const char *k, double v)
{
	key(sb, k);
	result_add_double(sb, v);
}

static void kint(struct strbuf *sb, const char *k, long long v)
{
	key(sb, k);
	sb_add_int(sb, v);
}

int result_write(struct nd_writer *w, const struct json *hdr, const struct trace *t, const struct sim_output *o, char *err, size_t errlen)
{
	struct strbuf sb;
	int rc = -1;
	sb_init(&sb);
	size_t *order = xmalloc((o->n_jobs + 1) * sizeof *order);
	for (size_t i = 0; i < o->n_jobs; i++)
		order[i] = i;
	sort_trace = t;
	qsort(order, o->n_jobs, sizeof *order, by_id);
	if (ndw_header(w, hdr, err, errlen))
		goto out;
	for (size_t k = 0; k < o->n_jobs; k++) {
		const struct trace_job *tj = &t->jobs[order[k]];
		const struct sim_job_result *r = &o->jobs[order[k]];
		sb_reset(&sb);
		sb_adds(&sb, "{\"type\":\"job_result\"");
		kstr(&sb, "job_id", tj->id);
		kstr(&sb, "service_class", tj->hp ? "HP" : "Spot");
		kdbl(&sb, "submit_time_seconds", tj->submit);
		kdbl(&sb, "start_time_seconds", r->start);
		kdbl(&sb, "completion_time_seconds", r->completion);
		kdbl(&sb, "duration_seconds", tj->duration);
		kdbl(&sb, "gpu_count", tj->gpus);
		kstr(&sb, "gpu_model", tj->model);
		if (t->version == 2)
			kstr(&sb, "tenant_id", tj->tenant ? tj->tenant : "");
		kdbl(&sb, "queue_seconds", r->queue_seconds);
		kdbl(&sb, "jct_seconds", r->completion - tj->submit);
		kint(&sb, "preemption_count", r->preemptions);
		kint(&sb, "run_count", r->runs);
		key(&sb, "evaluation_population");
		sb_adds(&sb, r->evaluation_population ? "true}" : "false}");
		if (ndw_raw(w, sb.buf, sb.len, err, errlen))
			goto out;
	}
	for (size_t i = 0; i < o->n_runs; i++) {
		const struct sim_spot_run *r = &o->runs[i];
		sb_reset(&sb);
		sb_adds(&sb, "{\"type\":\"run\"");
		kstr(&sb, "job_id", t->jobs[r->job].id);
		kint(&sb, "run_ordinal", r->ordinal);
		kdbl(&sb, "start_time_seconds", r->start);
		kdbl(&sb, "end_time_seconds", r->end);
		kstr(&sb, "end_reason", r->completed ? "completed" : "preempted");
		kdbl(&sb, "uninterrupted_seconds", r->uninterrupted);
		kint(&sb, "guarantee_seconds", r->guarantee);
		key(&sb, "guarantee_succeeded");
		sb_adds(&sb, r->guarantee_succeeded ? "true}" : "false}");
		if (ndw_raw(w, sb.buf, sb.len, err, errlen))
			goto out;
	}
	for (size_t i = 0; i < o->n_events; i++) {
		const struct sim_preemption *e = &o->events[i];
		sb_reset(&sb);
		sb_adds(&sb, "{\"type\":\"preemption\"");
		kdbl(&sb, "time_seconds", e->time);
		kstr(&sb, "preempted_job_id", t->jobs[e->victim].id);
		kstr(&sb, "triggering_job_id", t->jobs[e->trigger].id);
		kdbl(&sb, "rollback_seconds", e->rollback);
		kdbl(&sb, "overhead_seconds", e->overhead);
		kdbl(&sb, "added_gpu_seconds", e->added_gpu_seconds);
		sb_addc(&sb, '}');
		if (ndw_raw(w, sb.buf, sb.len, err, errlen))
			goto out;
	}
	sb_reset(&sb);
	sb_adds(&sb, "{\"type\":\"cluster\"");
	kint(&sb, "node_count", (long long)o->node_count);
	kint(&sb, "capacity_gpus", o->capacity_gpus);
	kdbl(&sb, "simulation_start", o->simulation_start);
	kdbl(&sb, "simulation_end", o->simulation_end);
	kdbl(&sb, "allocated_gpu_seconds", o->allocated);
	kdbl(&sb, "warmup_allocated_gpu_seconds", o->warmup_allocated);
	kdbl(&sb, "evaluation_allocated_gpu_seconds", o->evaluation_allocated);
	kdbl(&sb, "drain_allocated_gpu_seconds", o->drain_allocated);
	kdbl(&sb, "allocation_rate_mean", o->allocation_rate_mean);
	kdbl(&sb, "drain_end", o->simulation_end);
	sb_addc(&sb, '}');
	if (ndw_raw(w, sb.buf, sb.len, err, errlen) || ndw_end(w, NULL, err, errlen))
		goto out;
	rc = 0;
out:
	free(order);
	sb_release(&sb);
	return rc;
}
