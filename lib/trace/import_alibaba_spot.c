/* alibaba-spot — Alibaba cluster-trace-v2026-spot-gpu (node_info_df.csv + job_info_df.csv)
 * → trace/2 with organization as tenant. Filters (GPU models, submit cut-off, evaluation
 * window with bounded warm-up, no warm-up Spot) follow docs/traces.md §2; the rows they
 * drop are counted by reason in the header's skipped_rows. */
#include "trace/import.h"
#include "trace/import_util.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static bool model_wanted(const struct import_alibaba_spot_opts *o, const char *raw)
{
	if (!o->gpu_models)
		return true;
	for (size_t i = 0; i < o->n_gpu_models; i++)
		if (!strcmp(o->gpu_models[i], raw))
			return true;
	return false;
}

enum { NODE_MODEL, NODE_CAP, NODE_NAME, NODE_CPU };

static int node_row(void *ctx, struct trace *t, const struct imp_csv *f, const int *idx, struct imp_node_row *n, char *err, size_t errlen)
{
	const struct import_alibaba_spot_opts *o = ctx;
	char **c = f->c.fields;
	if (!model_wanted(o, c[idx[NODE_MODEL]])) {
		imp_count(&t->arena, t->skipped_rows, "node_gpu_model_not_selected");
		return 0;
	}
	if (imp_py_int(c[idx[NODE_CAP]], &n->gpus) || n->gpus <= 0) {
		imp_errf(err, errlen, imp_csv_name(f), imp_csv_line(f), "'gpu_capacity_num' must be a positive integer, not '%s'", c[idx[NODE_CAP]]);
		return -1;
	}
	n->id = csv_trim(c[idx[NODE_NAME]]);
	n->model = csv_trim(c[idx[NODE_MODEL]]);
	if (!*n->id || !*n->model) {
		imp_errf(err, errlen, imp_csv_name(f), imp_csv_line(f), "empty 'node_name' or 'gpu_model'");
		return -1;
	}
	if (o->resources) {     /* issue 36: cpu_num cores -> cpu_milli; the list has no memory */
		char rec[300];
		snprintf(rec, sizeof rec, "node '%s'", n->id);
		if (imp_res_cell(c[idx[NODE_CPU]], "cpu_num", 1000, 0, TRACE_MAX_RES, &n->cpu_milli, rec, imp_csv_name(f), imp_csv_line(f), err, errlen))
			return -1;
	}
	return 1;
}

static int read_nodes(struct trace *t, const struct import_alibaba_spot_opts *o, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	static const char *const cols[] = { "gpu_model", "gpu_capacity_num", "node_name", "cpu_num" };
	struct imp_node_file nf = { o->nodes, true, cols, o->resources ? 4 : 3, node_row, (void *)o, "%s: no node rows: the file holds only its header row",
				    "%s: no node left after the GPU model filter" };
	return imp_read_nodes(t, &nf, hdr, a, sha, err, errlen);
}

static int read_jobs(struct trace *t, const struct import_alibaba_spot_opts *o, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	static const char *const cols[] = { "job_name", "organization", "gpu_model", "gpu_request", "worker_num", "submit_time", "duration", "job_type" };
	enum { NAME, ORG, MODEL, GPU_REQUEST, WORKERS, SUBMIT, DURATION, TYPE };
	struct imp_jobs_in in;
	int rc = -1;
	if (imp_jobs_open(&in, t, o->jobs, cols, 8, err, errlen))
		goto out;
	int r;
	unsigned long rows = 0;
	while ((r = imp_csv_next(&in.f, err, errlen)) > 0) {
		char **c = in.f.c.fields;
		const char *name = imp_csv_name(&in.f);
		rows++;
		unsigned long line = imp_csv_line(&in.f);
		if (!model_wanted(o, c[in.idx[MODEL]])) {
			imp_count(&t->arena, t->skipped_rows, "gpu_model_not_selected");
			continue;
		}
		double submit, duration;
		if (imp_py_float(c[in.idx[SUBMIT]], &submit, NULL)) {
			imp_errf(err, errlen, name, line, "'submit_time' is not a finite number: '%s'", c[in.idx[SUBMIT]]);
			goto out;
		}
		if (o->has_max_submit && submit > o->max_submit) {
			imp_count(&t->arena, t->skipped_rows, "after_max_submit");
			continue;
		}
		if (o->has_warmup && submit < o->warmup_start) {
			imp_count(&t->arena, t->skipped_rows, "before_warmup_start");
			continue;
		}
		const char *cls = csv_trim(c[in.idx[TYPE]]);
		if (!o->include_warmup_spot && !strcmp(cls, "Spot") && submit < o->eval_start) {
			imp_count(&t->arena, t->skipped_rows, "warmup_spot_excluded");
			continue;
		}
		char *id = imp_new_id(t, &in.seen, c[in.idx[NAME]], "'job_name'", "job_name", err, errlen, name, line);
		if (!id)
			goto out;
		double request;
		long long workers;
		if (imp_py_float(c[in.idx[GPU_REQUEST]], &request, NULL)) {
			imp_errf(err, errlen, name, line, "'gpu_request' is not a finite number: '%s'", c[in.idx[GPU_REQUEST]]);
			goto out;
		}
		if (imp_py_int(c[in.idx[WORKERS]], &workers)) {
			imp_errf(err, errlen, name, line, "'worker_num' is not an integer: '%s'", c[in.idx[WORKERS]]);
			goto out;
		}
		double gpus = request * (double)workers;
		if (!(gpus > 0)) {
			imp_errf(err, errlen, name, line, "job '%s' asks for %g GPUs (gpu_request x worker_num must be > 0)", id, gpus);
			goto out;
		}
		if (imp_py_float(c[in.idx[DURATION]], &duration, NULL)) {
			imp_errf(err, errlen, name, line, "'duration' is not a finite number: '%s'", c[in.idx[DURATION]]);
			goto out;
		}
		if (!(duration > 1e-9)) {
			imp_errf(err, errlen, name, line, "job '%s': duration must be > 1e-9 seconds", id);
			goto out;
		}
		if (submit < 0) {
			imp_errf(err, errlen, name, line, "job '%s': submit_time must be >= 0", id);
			goto out;
		}
		if (strcmp(cls, "HP") && strcmp(cls, "Spot")) {
			imp_errf(err, errlen, name, line, "job '%s': job_type must be 'HP' or 'Spot', not '%s'", id, cls);
			goto out;
		}
		const char *org = csv_trim(c[in.idx[ORG]]), *model = csv_trim(c[in.idx[MODEL]]);
		if (!*org) {
			imp_errf(err, errlen, name, line, "job '%s': empty 'organization'", id);
			goto out;
		}
		if (!*model) {
			imp_errf(err, errlen, name, line, "job '%s': empty 'gpu_model'", id);
			goto out;
		}
		struct trace_job *j = trace_add_job(t);
		j->id = id;
		j->submit = submit;
		j->duration = duration;
		j->gpus = gpus;
		j->hp = !strcmp(cls, "HP");
		j->model = trace_strdup(t, model);
		j->tenant = trace_strdup(t, org);
		if (imp_job_check(t, &in.caps, j, name, line, err, errlen))
			goto out;
	}
	if (r < 0 || imp_csv_finish(&in.f, a, hdr, sha, err, errlen))
		goto out;
	if (rows == 0) {
		snprintf(err, errlen, "%s: no job rows: the file holds only its header row (the real job_info_df.csv is not redistributed; see trace-import(1))", imp_csv_name(&in.f));
		goto out;
	}
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "%s: no job left after the filters", imp_csv_name(&in.f));
		goto out;
	}
	rc = 0;
out:
	imp_jobs_close(&in);
	return rc;
}

static int strcmp_ptr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void build_source(struct trace *t, const struct import_alibaba_spot_opts *o, const char *node_sha, const char *job_sha)
{
	struct arena *ta = &t->arena;
	struct json *s = t->source, *f = json_object(ta);
	imp_provenance(ta, s, "dataset", "Alibaba cluster-trace-v2026-spot-gpu", "repository",
		       "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-v2026-spot-gpu", "commit", "0d0f3f1e", "redistribution",
		       "The job file is not redistributed here; obtain job_info_df.csv from the upstream repository (research and study use) and check its SHA-256.",
		       "node_info_sha256", node_sha, "job_info_sha256", job_sha, (char *)NULL);
	struct json *models = json_null(ta);
	if (o->gpu_models) {
		const char **sorted = xmalloc(o->n_gpu_models * sizeof *sorted);
		memcpy(sorted, o->gpu_models, o->n_gpu_models * sizeof *sorted);
		qsort(sorted, o->n_gpu_models, sizeof *sorted, strcmp_ptr);
		models = json_array(ta);
		for (size_t i = 0; i < o->n_gpu_models; i++)
			if (!i || strcmp(sorted[i - 1], sorted[i]))
				json_push(ta, models, json_str(ta, sorted[i]));
		free(sorted);
	}
	json_set(ta, f, "gpu_models", models);
	json_set(ta, f, "max_submit_time_seconds", json_real_or_null(ta, o->has_max_submit, o->max_submit));
	json_set(ta, f, "evaluation_start_seconds", json_real_or_null(ta, o->has_window, o->eval_start));
	json_set(ta, f, "evaluation_end_seconds", json_real_or_null(ta, o->has_window, o->eval_end));
	json_set(ta, f, "warmup_start_seconds", json_real_or_null(ta, o->has_warmup, o->warmup_start));
	json_set(ta, f, "include_warmup_spot", json_bool(ta, o->include_warmup_spot));
	const char *sem = o->has_warmup
		? "bounded warm-up: arrivals in [warmup_start, evaluation_end] are replayed; arrivals in [evaluation_start, evaluation_end] are the evaluation population; all selected jobs drain to completion"
		: o->has_window
		? "full carry-in: every arrival up to evaluation_end is replayed; arrivals in [evaluation_start, evaluation_end] are the evaluation population; all selected jobs drain to completion"
		: "plain cutoff: arrivals up to max_submit_time_seconds (all arrivals when null) are replayed over the implicit window";
	json_set(ta, f, "semantics", json_str(ta, sem));
	json_set(ta, f, "tenant_mapping", json_str(ta, "organization (trimmed) -> tenant"));
	json_set(ta, s, "filter", f);
	if (o->resources)
		json_set(ta, s, "resources", json_str(ta, "nodes: cpu_milli = cpu_num x 1000 (the list has no memory); jobs: none (cpu_request's unit, per job or per worker, is not documented)"));
}

int trace_import_alibaba_spot(const struct import_alibaba_spot_opts *opts, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct import_alibaba_spot_opts o = *opts;
	if (o.has_window) {
		o.has_max_submit = true;
		o.max_submit = o.eval_end;
	}
	if (!o.n_gpu_models)
		o.gpu_models = NULL;
	struct json *pm = json_array(a);
	for (size_t i = 0; i < o.n_gpu_models; i++)
		json_push(a, pm, json_str(a, o.gpu_models[i]));
	imp_param(a, hdr, "format", json_str(a, "alibaba-spot"));
	imp_param(a, hdr, "nodes", json_str(a, o.nodes));
	imp_param(a, hdr, "jobs", json_str(a, o.jobs));
	imp_param(a, hdr, "gpu_models", o.n_gpu_models ? pm : json_null(a));
	imp_param(a, hdr, "max_submit", json_real_or_null(a, o.has_max_submit, o.max_submit));
	imp_param(a, hdr, "eval_start", json_real_or_null(a, o.has_window, o.eval_start));
	imp_param(a, hdr, "eval_end", json_real_or_null(a, o.has_window, o.eval_end));
	imp_param(a, hdr, "warmup_start", json_real_or_null(a, o.has_warmup, o.warmup_start));
	imp_param(a, hdr, "include_warmup_spot", json_bool(a, o.include_warmup_spot));
	if (o.resources)
		imp_param(a, hdr, "resources", json_bool(a, true));

	t->version = 2;
	t->trace_id = trace_strdup(t, "alibaba-spot-gpu");
	t->time_origin = trace_strdup(t, "2024-03-01 00:00:00");
	t->has_window = o.has_window;
	t->eval_start = o.eval_start;
	t->eval_end = o.eval_end;
	t->has_warmup = o.has_warmup;
	t->warmup_start = o.warmup_start;
	static const char *const reasons[] = { "node_gpu_model_not_selected", "gpu_model_not_selected", "after_max_submit", "before_warmup_start", "warmup_spot_excluded" };
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		imp_reason(&t->arena, t->skipped_rows, reasons[i]);
	char node_sha[65], job_sha[65];
	if (read_nodes(t, &o, hdr, a, node_sha, err, errlen) || read_jobs(t, &o, hdr, a, job_sha, err, errlen))
		return IMPORT_DATA_ERROR;
	build_source(t, &o, node_sha, job_sha);
	return 0;
}
