/* alibaba-v2023 — Alibaba cluster-trace-gpu-v2023 (openb) node and pod lists → trace/1.
 * LS pods become HP jobs, BE pods Spot; rows the source cannot support are skipped and
 * counted by reason (docs/traces.md §2). */
#include "trace/import.h"
#include "trace/import_util.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const IMP_V2023_PHASES[IMPORT_V2023_NPHASES] = { "Failed", "Running", "Succeeded" };   /* sorted */
enum { NPHASES = IMPORT_V2023_NPHASES };

static const char *const reasons[] = { "unsupported_qos", "excluded_phase", "no_gpu", "missing_or_invalid_interval" };

enum { NODE_SN, NODE_GPU, NODE_MODEL, NODE_CPU, NODE_MEM };

/* The node reader's context: the count of nodes without GPUs (skipped), and whether to read
 * CPU and memory (--resources). */
struct node_ctx { long long *skips; bool res; };

static int node_row(void *ctx, struct trace *t, const struct imp_csv *f, const int *idx, struct imp_node_row *n, char *err, size_t errlen)
{
	char **c = f->c.fields;
	if (imp_py_int(c[idx[NODE_GPU]], &n->gpus)) {
		imp_errf(err, errlen, imp_csv_name(f), imp_csv_line(f), "'gpu' is not an integer: '%s'", c[idx[NODE_GPU]]);
		return -1;
	}
	if (n->gpus <= 0) {
		++*((struct node_ctx *)ctx)->skips;
		return 0;
	}
	n->id = csv_trim(c[idx[NODE_SN]]);
	n->model = csv_trim(c[idx[NODE_MODEL]]);
	if (!*n->id || !*n->model) {
		imp_errf(err, errlen, imp_csv_name(f), imp_csv_line(f), "empty 'sn' or 'model'");
		return -1;
	}
	if (((struct node_ctx *)ctx)->res) {
		char rec[300];
		snprintf(rec, sizeof rec, "node '%s'", n->id);
		if (imp_res_cell(c[idx[NODE_CPU]], "cpu_milli", 1, 0, TRACE_MAX_RES, &n->cpu_milli, rec, imp_csv_name(f), imp_csv_line(f), err, errlen) ||
		    imp_res_cell(c[idx[NODE_MEM]], "memory_mib", 1, 0, TRACE_MAX_RES, &n->memory_mib, rec, imp_csv_name(f), imp_csv_line(f), err, errlen))
			return -1;
	}
	return 1;
}

static int read_nodes(struct trace *t, const char *path, bool res, struct json *hdr, struct arena *a, char sha[65], long long *node_skips, char *err,
		      size_t errlen)
{
	static const char *const cols[] = { "sn", "gpu", "model", "cpu_milli", "memory_mib" };
	struct node_ctx ctx = { node_skips, res };
	struct imp_node_file nf = { path, true, cols, res ? 5 : 3, node_row, &ctx, NULL, "%s: no node with GPUs" };
	return imp_read_nodes(t, &nf, hdr, a, sha, err, errlen);
}

struct pods {
	bool want[NPHASES];
	long long kept[NPHASES];
	double min_creation;
	bool resources;
};

static int phase_index(const char *p)
{
	for (int i = 0; i < NPHASES; i++)
		if (!strcmp(p, IMP_V2023_PHASES[i]))
			return i;
	return -1;
}

/* issue 36 (--resources): a kept pod's request, one worker: its CPU and memory, its share of
 * one GPU (num_gpu 1, gpu_milli < 1000) and its gpu_spec (when the list has the column). */
static int pod_resources(struct trace_job *j, long long num_gpu, double milli, char **c, const int *rc, const char *path, unsigned long line,
			 char *err, size_t errlen)
{
	char rec[300];
	snprintf(rec, sizeof rec, "job '%s'", j->id);
	if (imp_res_cell(c[rc[0]], "cpu_milli", 1, 0, TRACE_MAX_RES, &j->cpu_milli, rec, path, line, err, errlen) ||
	    imp_res_cell(c[rc[1]], "memory_mib", 1, 0, TRACE_MAX_RES, &j->memory_mib, rec, path, line, err, errlen))
		return -1;
	j->workers = 1;
	j->res = TRACE_RES_WORKERS | TRACE_RES_CPU | TRACE_RES_MEM;
	if (num_gpu == 1 && milli < 1000) {
		if (milli != (double)(long long)milli) {
			imp_errf(err, errlen, path, line, "%s: 'gpu_milli' %g is not a whole number of milli-GPUs", rec, milli);
			return -1;
		}
		j->gpu_milli = (long long)milli;
		j->res |= TRACE_RES_GPU_MILLI;
	}
	const char *spec = rc[2] >= 0 ? csv_trim(c[rc[2]]) : "";
	if (*spec) {
		j->gpu_spec = (char *)spec;     /* copied by the caller once checked */
		j->res |= TRACE_RES_GPU_SPEC;
	}
	return 0;
}

static int read_pods(struct trace *t, const char *path, bool res, struct pods *p, struct json *skipped, struct json *hdr, struct arena *a, char sha[65],
		     char *err, size_t errlen)
{
	static const char *const cols[] = { "name", "num_gpu", "gpu_milli", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time" };
	enum { NAME, NUM_GPU, GPU_MILLI, QOS, PHASE, CREATION, DELETION, SCHEDULED };
	struct imp_jobs_in in;
	int rc = -1;
	if (imp_jobs_open(&in, t, path, cols, 8, err, errlen))
		goto out;
	int rcols[3] = { -1, -1, -1 };         /* cpu_milli, memory_mib, gpu_spec (optional) */
	if (res) {
		if ((rcols[0] = imp_csv_col(&in.f, "cpu_milli", err, errlen)) < 0 || (rcols[1] = imp_csv_col(&in.f, "memory_mib", err, errlen)) < 0)
			goto out;
		char e[8];
		rcols[2] = imp_csv_col(&in.f, "gpu_spec", e, sizeof e);
	}
	int r;
	while ((r = imp_csv_next(&in.f, err, errlen)) > 0) {
		char **c = in.f.c.fields;
		const char *name = imp_csv_name(&in.f);
		unsigned long line = imp_csv_line(&in.f);
		const char *qos = c[in.idx[QOS]];
		if (strcmp(qos, "LS") && strcmp(qos, "BE")) {
			imp_count(&t->arena, skipped, "unsupported_qos");
			continue;
		}
		int ph = phase_index(c[in.idx[PHASE]]);
		if (ph < 0 || !p->want[ph]) {
			imp_count(&t->arena, skipped, "excluded_phase");
			continue;
		}
		long long num_gpu;
		if (imp_py_int(c[in.idx[NUM_GPU]], &num_gpu)) {
			imp_errf(err, errlen, name, line, "'num_gpu' is not an integer: '%s'", c[in.idx[NUM_GPU]]);
			goto out;
		}
		if (num_gpu <= 0) {
			imp_count(&t->arena, skipped, "no_gpu");
			continue;
		}
		if (!*csv_trim(c[in.idx[SCHEDULED]])) {
			imp_count(&t->arena, skipped, "missing_or_invalid_interval");
			continue;
		}
		double cr, sc, de;
		static const int times[] = { CREATION, SCHEDULED, DELETION };
		double *vals[] = { &cr, &sc, &de };
		for (int k = 0; k < 3; k++)
			if (imp_py_float(c[in.idx[times[k]]], vals[k], NULL)) {
				imp_errf(err, errlen, name, line, "'%s' is not a finite number: '%s'", cols[times[k]], c[in.idx[times[k]]]);
				goto out;
			}
		if (cr < 0 || sc < cr || de <= sc) {
			imp_count(&t->arena, skipped, "missing_or_invalid_interval");
			continue;
		}
		char *id = imp_new_id(t, &in.seen, c[in.idx[NAME]], "pod 'name'", "pod name", err, errlen, name, line);
		if (!id)
			goto out;
		double req = (double)num_gpu, milli = 1000;
		if (num_gpu == 1) {
			if (imp_py_float(c[in.idx[GPU_MILLI]], &milli, NULL)) {
				imp_errf(err, errlen, name, line, "'gpu_milli' is not a finite number: '%s'", c[in.idx[GPU_MILLI]]);
				goto out;
			}
			req = milli / 1000;
		}
		if (!(req > 0)) {
			imp_count(&t->arena, skipped, "no_gpu");
			continue;
		}
		if (!(de - sc > 1e-9)) {
			imp_errf(err, errlen, name, line, "duration must be > 1e-9 seconds");
			goto out;
		}
		struct trace_job *j = trace_add_job(t);
		j->id = id;
		j->submit = cr;         /* made relative to the earliest kept creation below */
		j->duration = de - sc;
		j->gpus = req;
		j->hp = !strcmp(qos, "LS");
		j->model = trace_strdup(t, "*");
		if (res && pod_resources(j, num_gpu, milli, c, rcols, name, line, err, errlen))
			goto out;
		if (imp_job_check(t, &in.caps, j, name, line, err, errlen)) {
			j->gpu_spec = NULL;
			goto out;
		}
		if (j->gpu_spec)
			j->gpu_spec = trace_strdup(t, j->gpu_spec);
		p->kept[ph]++;
	}
	if (r < 0 || imp_csv_finish(&in.f, a, hdr, sha, err, errlen))
		goto out;
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "%s: no pod kept", imp_csv_name(&in.f));
		goto out;
	}
	p->min_creation = t->jobs[0].submit;
	for (size_t i = 1; i < t->n_jobs; i++)
		if (t->jobs[i].submit < p->min_creation)
			p->min_creation = t->jobs[i].submit;
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].submit -= p->min_creation;
	rc = 0;
out:
	imp_jobs_close(&in);
	return rc;
}

static void build_source(struct trace *t, const struct pods *p, const char *node_sha, const char *pod_sha)
{
	struct arena *ta = &t->arena;
	struct json *s = t->source, *m = json_object(ta), *clock = json_object(ta);
	json_set(ta, s, "dataset", json_str(ta, "Alibaba cluster-trace-gpu-v2023"));
	json_set(ta, s, "repository", json_str(ta, "https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023"));
	json_set(ta, s, "commit", json_null(ta));
	json_set(ta, s, "license", json_str(ta, "Source repository terms apply (research and study use)."));
	json_set(ta, s, "node_info_sha256", json_str(ta, node_sha));
	json_set(ta, s, "pod_info_sha256", json_str(ta, pod_sha));
	json_set(ta, m, "LS", json_str(ta, "HP"));
	json_set(ta, m, "BE", json_str(ta, "Spot"));
	json_set(ta, m, "basis", json_str(ta, "source QoS labels"));
	json_set(ta, s, "service_class_mapping", m);
	json_set(ta, s, "gpu_demand", json_str(ta, "num_gpu == 1 -> gpu_milli / 1000 (fractional); otherwise num_gpu; gpu_model '*'"));
	if (p->resources)
		json_set(ta, s, "resources", json_str(ta, "nodes: cpu_milli, memory_mib; each pod one worker (workers 1) with its cpu_milli and memory_mib, "
							  "gpu_milli when num_gpu == 1 and gpu_milli < 1000, gpu_spec when set; CPU-only pods stay skipped (no_gpu)"));
	json_set(ta, s, "duration_semantics", json_str(ta, "deletion_time - scheduled_time (the pending time from creation to scheduling is not part of the duration)"));
	json_set(ta, clock, "kind", json_str(ta, "relative_seconds"));
	json_set(ta, clock, "normalized_origin_seconds", json_real(ta, p->min_creation));
	json_set(ta, clock, "canonical_time_origin", json_str(ta, t->time_origin));
	json_set(ta, s, "source_clock", clock);
	struct json *ph = json_array(ta), *counts = json_object(ta);
	for (int i = 0; i < NPHASES; i++)
		if (p->want[i]) {
			json_push(ta, ph, json_str(ta, IMP_V2023_PHASES[i]));
			json_set(ta, counts, IMP_V2023_PHASES[i], json_int(ta, p->kept[i]));
		}
	json_set(ta, s, "included_source_phases", ph);
	json_set(ta, s, "included_source_phase_counts", counts);
	struct json *sk = json_object(ta);
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		json_set(ta, sk, reasons[i], json_int(ta, imp_counter(t->skipped_rows, reasons[i])));
	json_set(ta, s, "skipped_rows", sk);
	json_set(ta, s, "redistribution", json_str(ta, "Derived per-job rows of a public trace released for research and study use; cite the FGD paper (USENIX ATC '23) and keep the upstream terms."));
}

int trace_import_alibaba_v2023(const struct import_alibaba_v2023_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	const char *nodes = o->nodes, *pods = o->pods;
	struct pods p = { .resources = o->resources };
	for (int i = 0; i < NPHASES; i++)
		p.want[i] = o->phases[i];
	struct json *ph = json_array(a);
	for (int i = 0; i < NPHASES; i++)
		if (p.want[i])
			json_push(a, ph, json_str(a, IMP_V2023_PHASES[i]));
	imp_param(a, hdr, "format", json_str(a, "alibaba-v2023"));
	imp_param(a, hdr, "nodes", json_str(a, nodes));
	imp_param(a, hdr, "pods", json_str(a, pods));
	imp_param(a, hdr, "phases", ph);
	if (o->resources)
		imp_param(a, hdr, "resources", json_bool(a, true));

	t->version = 1;
	t->trace_id = trace_strdup(t, "alibaba-gpu-v2023");
	t->time_origin = trace_strdup(t, "1970-01-01 00:00:00");
	char node_sha[65], pod_sha[65];
	long long node_skips = 0;
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		imp_reason(&t->arena, t->skipped_rows, reasons[i]);
	if (read_nodes(t, nodes, o->resources, hdr, a, node_sha, &node_skips, err, errlen) ||
	    read_pods(t, pods, o->resources, &p, t->skipped_rows, hdr, a, pod_sha, err, errlen))
		return IMPORT_DATA_ERROR;
	json_set(&t->arena, t->skipped_rows, "node_without_gpu", json_int(&t->arena, node_skips));
	build_source(t, &p, node_sha, pod_sha);
	return 0;
}
