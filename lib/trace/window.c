#include "trace/window.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prefix_semantics[] =
	"jobs submitted at or before max_submit_time_seconds are kept, and when gpu_models is a list "
	"only those asking for one of its models or for any model ('*'); nodes are kept when their "
	"model is the concrete model of a kept job, or all nodes when every kept job asks for '*'; a "
	"parent evaluation window is kept only when it starts before max_submit_time_seconds and "
	"then ends at the earlier of its end and that time";

static const char eval_semantics[] =
	"arrivals in [warmup_start_seconds, evaluation_end_seconds] are replayed on every node; only "
	"arrivals in [evaluation_start_seconds, evaluation_end_seconds] are the evaluation population; "
	"all replayed jobs drain to completion";

static const char eval_semantics_no_spot[] =
	"arrivals in [warmup_start_seconds, evaluation_end_seconds] are replayed on every node, except "
	"Spot jobs submitted before evaluation_start_seconds, which are dropped; only arrivals in "
	"[evaluation_start_seconds, evaluation_end_seconds] are the evaluation population; all replayed "
	"jobs drain to completion";

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_sorted(const char *const *set, size_t n, const char *s)
{
	return bsearch(&s, set, n, sizeof *set, str_cmp) != NULL;
}

/* Sorted copy of models without duplicates (malloc'd array of borrowed strings). */
static const char **sorted_models(const char *const *models, size_t n, size_t *n_out)
{
	const char **v = xmalloc((n ? n : 1) * sizeof *v);
	memcpy(v, models, n * sizeof *v);
	qsort(v, n, sizeof *v, str_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	*n_out = k;
	return v;
}

/* Replace t->source by a copy carrying key = rec (the parent's object stays untouched). */
static void add_provenance(struct trace *t, const char *key, struct json *rec)
{
	struct json *src = json_clone(&t->arena, t->source);
	json_set(&t->arena, src, key, rec);
	t->source = src;
}

int trace_window_prefix_slice(struct trace *t, const struct window_prefix *p, const char *parent_fp, char *err, size_t errlen)
{
	char num[NUM_FMT_MAX];
	num_fmt_double(num, p->max_submit);
	if (!(p->max_submit >= 0)) {
		snprintf(err, errlen, "prefix slice needs max_submit >= 0, not %s", num);
		return -1;
	}
	size_t n_models = 0;
	const char **models = p->models ? sorted_models(p->models, p->n_models, &n_models) : NULL;
	size_t kept = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (j->submit > p->max_submit)
			continue;
		if (models && strcmp(j->model, "*") && !in_sorted(models, n_models, j->model))
			continue;
		t->jobs[kept++] = *j;
	}
	t->n_jobs = kept;
	if (kept == 0) {
		snprintf(err, errlen, models ? "no job of the selected GPU models is submitted at or before %s" : "no job is submitted at or before %s", num);
		free(models);
		return -1;
	}
	/* [ODD] kept for parity: the nodes are chosen by the kept jobs' concrete models, so nodes
	 * that only '*' jobs could use are dropped even without a model filter. */
	const char **used = xmalloc(kept * sizeof *used);
	size_t n_used = 0;
	for (size_t i = 0; i < kept; i++)
		if (strcmp(t->jobs[i].model, "*"))
			used[n_used++] = t->jobs[i].model;
	qsort(used, n_used, sizeof *used, str_cmp);
	if (n_used) {
		size_t k = 0;
		for (size_t i = 0; i < t->n_nodes; i++)
			if (in_sorted(used, n_used, t->nodes[i].model))
				t->nodes[k++] = t->nodes[i];
		t->n_nodes = k;
	}
	free(used);
	if (t->n_nodes == 0) {
		snprintf(err, errlen, "no node is left by the prefix slice");
		free(models);
		return -1;
	}
	if (t->has_window && p->max_submit > t->eval_start) {
		if (p->max_submit < t->eval_end)
			t->eval_end = p->max_submit;
	} else
		t->has_window = t->has_warmup = false;
	trace_assign_phases(t);

	struct arena *a = &t->arena;
	struct json *rec = json_object(a);
	json_set(a, rec, "parent_trace_id", json_str(a, t->trace_id));
	json_set(a, rec, "parent_trace_fingerprint", json_str(a, parent_fp));
	json_set(a, rec, "max_submit_time_seconds", json_real(a, p->max_submit));
	if (models) {
		struct json *arr = json_array(a);
		for (size_t i = 0; i < n_models; i++)
			json_push(a, arr, json_str(a, models[i]));
		json_set(a, rec, "gpu_models", arr);
	} else
		json_set(a, rec, "gpu_models", json_null(a));
	json_set(a, rec, "semantics", json_str(a, prefix_semantics));
	add_provenance(t, "canonical_slice", rec);
	free(models);
	return 0;
}

int trace_window_eval_slice(struct trace *t, const struct window_eval *e, const char *parent_fp, char *err, size_t errlen)
{
	char ws[NUM_FMT_MAX], ss[NUM_FMT_MAX], es[NUM_FMT_MAX];
	num_fmt_double(ws, e->warmup_start);
	num_fmt_double(ss, e->eval_start);
	num_fmt_double(es, e->eval_end);
	if (!(e->warmup_start >= 0 && e->warmup_start <= e->eval_start && e->eval_start < e->eval_end)) {
		snprintf(err, errlen, "evaluation slice needs 0 <= warmup start <= start < end, not %s, %s, %s", ws, ss, es);
		return -1;
	}
	if (t->has_window) {
		snprintf(err, errlen, "the input trace already has an evaluation window; slice a trace without one");
		return -1;
	}
	size_t kept = 0, in_window = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (j->submit < e->warmup_start || j->submit > e->eval_end)
			continue;
		if (!e->include_warmup_spot && !j->hp && j->submit < e->eval_start)
			continue;
		if (j->submit >= e->eval_start)
			in_window++;
		t->jobs[kept++] = *j;
	}
	t->n_jobs = kept;
	if (in_window == 0) {
		snprintf(err, errlen, "no job arrives inside the evaluation window [%s, %s]", ss, es);
		return -1;
	}
	/* The original loader's rule 7: the replay must start at or before the window. */
	if (t->jobs[0].submit > e->eval_start) {
		snprintf(err, errlen, "no kept job arrives at or before the evaluation start %s", ss);
		return -1;
	}
	t->has_window = t->has_warmup = true;
	t->warmup_start = e->warmup_start;
	t->eval_start = e->eval_start;
	t->eval_end = e->eval_end;
	trace_assign_phases(t);

	struct arena *a = &t->arena;
	struct json *rec = json_object(a);
	json_set(a, rec, "parent_trace_id", json_str(a, t->trace_id));
	json_set(a, rec, "parent_trace_fingerprint", json_str(a, parent_fp));
	json_set(a, rec, "warmup_start_seconds", json_real(a, e->warmup_start));
	json_set(a, rec, "evaluation_start_seconds", json_real(a, e->eval_start));
	json_set(a, rec, "evaluation_end_seconds", json_real(a, e->eval_end));
	json_set(a, rec, "include_warmup_spot", json_bool(a, e->include_warmup_spot));
	json_set(a, rec, "semantics", json_str(a, e->include_warmup_spot ? eval_semantics : eval_semantics_no_spot));
	add_provenance(t, "canonical_evaluation_slice", rec);
	return 0;
}
