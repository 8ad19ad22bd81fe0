/* Writing a trace stream (trace.h): its header record and its node, job and extra lines in
 * the canonical form trace_read's fast path takes back (trace.c). It uses nothing of
 * trace.c: what a trace is and how one is read and checked stay there. */
#include "trace/trace.h"
#include "trace/res.h"
#include "core/strbuf.h"
#include <math.h>
#include <string.h>

struct json *trace_header(struct trace *t, struct arena *a, const char *tool)
{
	struct json *h = nd_header_new(a, t->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, tool);
	json_set(a, h, "trace_id", json_str(a, t->trace_id));
	json_set(a, h, "time_origin", json_str(a, t->time_origin));
	if (t->has_window) {
		struct json *w = json_object(a);
		json_set(a, w, "eval_start", json_real(a, t->eval_start));
		json_set(a, w, "eval_end", json_real(a, t->eval_end));
		if (t->has_warmup)
			json_set(a, w, "warmup_start", json_real(a, t->warmup_start));
		json_set(a, h, "window", w);
	} else
		json_set(a, h, "window", json_null(a));
	json_set(a, h, "source", json_clone(a, t->source));
	json_set(a, h, "skipped_rows", json_clone(a, t->skipped_rows));
	return h;
}

static void add_num(struct strbuf *sb, double v, bool is_int)
{
	if (is_int && fabs(v) < 9.2e18)
		sb_add_int(sb, (long long)v);
	else
		sb_add_double(sb, v);
}

int trace_write(const struct trace *t, const struct json *header, struct nd_writer *w, char fp_out[FP_HEX_XXH3], char *err, size_t errlen)
{
	struct strbuf sb;
	int rc = 0;
	sb_init(&sb);
	if (ndw_header(w, header, err, errlen))
		goto fail;
	for (size_t i = 0; i < t->n_nodes && rc == 0; i++) {
		const struct trace_node *n = &t->nodes[i];
		sb_reset(&sb);
		sb_adds(&sb, "{\"type\":\"node\",\"node_id\":");
		sb_add_jstr(&sb, n->id, strlen(n->id));
		sb_adds(&sb, ",\"gpu_model\":");
		sb_add_jstr(&sb, n->model, strlen(n->model));
		sb_adds(&sb, ",\"gpu_count\":");
		sb_add_int(&sb, n->gpu_count);
		trace_res_node_write(&sb, n);
		sb_addc(&sb, '}');
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	for (size_t i = 0; i < t->n_jobs && rc == 0; i++) {
		const struct trace_job *j = &t->jobs[i];
		sb_reset(&sb);
		sb_adds(&sb, "{\"type\":\"job\",\"job_id\":");
		sb_add_jstr(&sb, j->id, strlen(j->id));
		sb_adds(&sb, ",\"submit\":");
		add_num(&sb, j->submit, j->submit_int);
		sb_adds(&sb, ",\"duration\":");
		add_num(&sb, j->duration, j->duration_int);
		sb_adds(&sb, ",\"gpus\":");
		add_num(&sb, j->gpus, j->gpus_int);
		sb_adds(&sb, j->hp ? ",\"class\":\"HP\",\"gpu_model\":" : ",\"class\":\"Spot\",\"gpu_model\":");
		sb_add_jstr(&sb, j->model, strlen(j->model));
		if (t->version == 2) {
			sb_adds(&sb, ",\"tenant\":");
			sb_add_jstr(&sb, j->tenant ? j->tenant : "", j->tenant ? strlen(j->tenant) : 0);
		}
		if (t->has_window)
			sb_adds(&sb, j->submit < t->eval_start ? ",\"phase\":\"warmup\"" : ",\"phase\":\"eval\"");
		if (j->time_limit > 0) {
			sb_adds(&sb, ",\"time_limit\":");
			sb_add_int(&sb, j->time_limit);
		}
		trace_res_job_write(&sb, j);
		sb_addc(&sb, '}');
		rc = ndw_raw(w, sb.buf, sb.len, err, errlen);
	}
	for (size_t i = 0; i < t->n_extra && rc == 0; i++)
		rc = ndw_raw(w, t->extra[i], strlen(t->extra[i]), err, errlen);
	if (rc == 0)
		rc = ndw_end(w, fp_out, err, errlen);
	sb_release(&sb);
	return rc;
fail:
	sb_release(&sb);
	return -1;
}
