/* csv — any job CSV (private traces, the Chronus Philly files) driven by an explicit
 * mapping file (schednav.csv-map/1, documented in trace-import(1)): which column or
 * constant gives each job field, how labels map to HP/Spot, the time unit, skip rules with
 * named reasons, and where the nodes come from (a machine list, optionally a seeded subset).
 * Labels are never invented: every mapping is copied into the trace's source. */
#include "trace/import.h"
#include "trace/import_util.h"
#include "core/xalloc.h"
#include "core/num.h"
#include "core/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAP_FORMAT "schednav.csv-map/1"

enum field { F_JOB_ID, F_SUBMIT, F_DURATION, F_GPUS, F_CLASS, F_GPU_MODEL, F_TENANT, NFIELDS };
static const char *const field_names[NFIELDS] = { "job_id", "submit", "duration", "gpus", "class", "gpu_model", "tenant" };

/* A field is a column (name) or a constant JSON value. */
struct ref {
	bool present;
	const char *column;
	const struct json *constant;
};

enum op { OP_LE, OP_LT, OP_GE, OP_GT, OP_EQ, OP_NE, OP_EMPTY };

struct skip_rule {
	const char *column, *reason;
	enum op op;
	const struct json *value;       /* number or string; NULL for OP_EMPTY */
	int col;                        /* per file */
};

struct map {
	const char *path;
	struct json *doc;
	const char *trace_id, *time_origin;
	struct ref f[NFIELDS];
	const struct json *class_mapping;
	double time_scale;
	bool origin_min, all_float, skip_oversize, latin1;
	struct skip_rule *skips;
	size_t n_skips;
	const char *nodes_file;
	struct ref node_id, node_count, node_model;
	bool has_subset;
	long long subset_gpus;
	unsigned long long subset_seed;
};

/* ---- reading the map ---- */

static int map_err(char *err, size_t errlen, const char *path, const char *msg, const char *key)
{
	snprintf(err, errlen, "%s: %s%s%s%s", path, msg, key ? " '" : "", key ? key : "", key ? "'" : "");
	return -1;
}

static int check_keys(const struct json *o, const char *const *allowed, size_t nallowed, const char *path, const char *what, char *err, size_t errlen)
{
	char kerr[160];
	if (o->kind != JSON_OBJECT)
		return map_err(err, errlen, path, what, NULL);
	if (nd_check_keys(o, allowed, nallowed, kerr, sizeof kerr)) {
		snprintf(err, errlen, "%s: %s: %s", path, what, kerr);
		return -1;
	}
	return 0;
}

static int get_ref(const struct json *v, struct ref *r, const char *path, const char *name, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (!v)
		return 0;
	r->present = true;
	if (v->kind == JSON_STRING && v->u.str.len) {
		r->column = v->u.str.s;
		return 0;
	}
	struct json *c = json_get(v, "constant");
	if (v->kind == JSON_OBJECT && v->u.obj.n == 1 && c && (c->kind == JSON_STRING || json_is_num(c))) {
		r->constant = c;
		return 0;
	}
	return map_err(err, errlen, path, "a field must be a column name or {\"constant\": value}:", name);
}

static const char *opt_str(const struct json *o, const char *key, const char *def)
{
	struct json *v = json_get(o, key);
	return v && v->kind == JSON_STRING ? v->u.str.s : def;
}

/* The mapping's skip rules ("skip": [{column, op, value, reason}...]) into m->skips. */
static int load_skips(struct map *m, const struct json *d, const char *name, char *err, size_t errlen)
{
	struct json *sk = json_get(d, "skip");
	if (sk && sk->kind != JSON_ARRAY) {
		map_err(err, errlen, name, "'skip' must be an array of rules", NULL);
		return -1;
	}
	if (sk && sk->u.arr.n) {
		m->skips = xcalloc(sk->u.arr.n, sizeof *m->skips);
		static const char *const rk[] = { "column", "op", "value", "reason", NULL };
		static const char *const ops[] = { "<=", "<", ">=", ">", "==", "!=", "empty" };
		for (size_t i = 0; i < sk->u.arr.n; i++) {
			struct json *rule = sk->u.arr.items[i];
			struct skip_rule *s = &m->skips[m->n_skips++];
			if (check_keys(rule, ND_KEYS(rk), name, "a skip rule must be an object", err, errlen))
				return -1;
			s->column = opt_str(rule, "column", NULL);
			s->reason = opt_str(rule, "reason", NULL);
			const char *op = opt_str(rule, "op", "");
			s->value = json_get(rule, "value");
			int k = 0;
			while (k < 7 && strcmp(op, ops[k]))
				k++;
			s->op = (enum op)k;
			bool ok = s->column && *s->column && s->reason && *s->reason && k < 7;
			if (ok && s->op == OP_EMPTY)
				ok = !s->value;
			else if (ok && s->op <= OP_GT)
				ok = json_is_num(s->value);
			else if (ok)
				ok = s->value && (json_is_num(s->value) || s->value->kind == JSON_STRING);
			if (!ok) {
				map_err(err, errlen, name, "a skip rule needs 'column', 'reason', 'op' (<=, <, >=, >, ==, !=, empty) and a matching 'value'", NULL);
				return -1;
			}
		}
	}
	return 0;
}

static int load_map(struct map *m, const char *path, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	struct zio_reader *r = zr_open(path, true, err, errlen);
	if (!r)
		return -1;
	char *buf = NULL;
	size_t len = 0;
	const char *name = zr_name(r);
	int rc = -1;
	char perr[256];
	if (zr_slurp(r, &buf, &len, err, errlen))
		goto out;
	if (len == 0) {
		map_err(err, errlen, name, "empty mapping file", NULL);
		goto out;
	}
	if (json_parse(a, buf, len, &m->doc, perr, sizeof perr)) {
		snprintf(err, errlen, "%s: %s", name, perr);
		goto out;
	}
	imp_record_file(r, a, hdr, path, sha);
	static const char *const top[] = { "format", "trace_id", "time_origin", "source", "columns", "class_mapping", "time_scale",
		"submit_origin", "numbers", "skip", "nodes", "oversize_jobs", "encoding", NULL };
	struct json *d = m->doc;
	if (check_keys(d, ND_KEYS(top), name, "the mapping must be an object", err, errlen))
		goto out;
	if (strcmp(opt_str(d, "format", ""), MAP_FORMAT)) {
		map_err(err, errlen, name, "'format' must be", MAP_FORMAT);
		goto out;
	}
	m->trace_id = opt_str(d, "trace_id", "");
	m->time_origin = opt_str(d, "time_origin", "1970-01-01 00:00:00");
	if (!*m->trace_id || (json_get(d, "time_origin") && json_get(d, "time_origin")->kind != JSON_STRING)) {
		map_err(err, errlen, name, "needs a non-empty string 'trace_id' (and 'time_origin' must be a string)", NULL);
		goto out;
	}
	struct json *src = json_get(d, "source");
	if (src && src->kind != JSON_OBJECT) {
		map_err(err, errlen, name, "'source' must be an object", NULL);
		goto out;
	}
	struct json *cols = json_get(d, "columns");
	if (!cols || check_keys(cols, ND_KEYS(field_names), name, "'columns' must be an object of job fields", err, errlen)) {
		if (!cols)
			map_err(err, errlen, name, "missing", "columns");
		goto out;
	}
	for (int i = 0; i < NFIELDS; i++) {
		if (get_ref(json_get(cols, field_names[i]), &m->f[i], name, field_names[i], err, errlen))
			goto out;
		if (!m->f[i].present && i != F_TENANT) {
			map_err(err, errlen, name, "'columns' misses the field", field_names[i]);
			goto out;
		}
	}
	if (m->f[F_CLASS].constant) {
		const struct json *c = m->f[F_CLASS].constant;
		if (c->kind != JSON_STRING || (strcmp(c->u.str.s, "HP") && strcmp(c->u.str.s, "Spot"))) {
			map_err(err, errlen, name, "a constant class must be \"HP\" or \"Spot\"", NULL);
			goto out;
		}
	}
	m->class_mapping = json_get(d, "class_mapping");
	if (m->f[F_CLASS].column) {
		const struct json *cm = m->class_mapping;
		if (!cm || cm->kind != JSON_OBJECT || cm->u.obj.n == 0) {
			map_err(err, errlen, name, "a class column needs a non-empty 'class_mapping' object", NULL);
			goto out;
		}
		for (size_t i = 0; i < cm->u.obj.n; i++) {
			const struct json *v = cm->u.obj.vals[i];
			if (v->kind != JSON_STRING || (strcmp(v->u.str.s, "HP") && strcmp(v->u.str.s, "Spot"))) {
				map_err(err, errlen, name, "class_mapping values must be \"HP\" or \"Spot\": label", cm->u.obj.keys[i]);
				goto out;
			}
		}
	}
	struct json *ts = json_get(d, "time_scale");
	m->time_scale = 1;
	if (ts) {
		if (!json_is_num(ts) || !(json_num(ts) > 0) || !isfinite(json_num(ts))) {
			map_err(err, errlen, name, "'time_scale' must be a number > 0", NULL);
			goto out;
		}
		m->time_scale = json_num(ts);
	}
	const char *so = opt_str(d, "submit_origin", "as_is"), *nums = opt_str(d, "numbers", "as_written");
	const char *ov = opt_str(d, "oversize_jobs", "error");
	if ((strcmp(so, "as_is") && strcmp(so, "min_submit")) || (strcmp(nums, "as_written") && strcmp(nums, "float")) ||
	    (strcmp(ov, "error") && strcmp(ov, "skip"))) {
		map_err(err, errlen, name, "'submit_origin' is as_is|min_submit, 'numbers' as_written|float, 'oversize_jobs' error|skip", NULL);
		goto out;
	}
	m->origin_min = !strcmp(so, "min_submit");
	m->all_float = !strcmp(nums, "float");
	m->skip_oversize = !strcmp(ov, "skip");
	const char *enc = opt_str(d, "encoding", "utf-8");
	if ((json_get(d, "encoding") && json_get(d, "encoding")->kind != JSON_STRING) || (strcmp(enc, "utf-8") && strcmp(enc, "latin-1"))) {
		map_err(err, errlen, name, "'encoding' is utf-8 (the default: invalid bytes are an error) or latin-1 (transcoded to UTF-8)", NULL);
		goto out;
	}
	m->latin1 = !strcmp(enc, "latin-1");
	if (load_skips(m, d, name, err, errlen))
		goto out;
	struct json *nodes = json_get(d, "nodes");
	static const char *const nk[] = { "file", "id_column", "gpu_count_column", "gpu_model", "subset", NULL };
	if (!nodes || check_keys(nodes, ND_KEYS(nk), name, "'nodes' must be an object", err, errlen)) {
		if (!nodes)
			map_err(err, errlen, name, "missing", "nodes");
		goto out;
	}
	m->nodes_file = opt_str(nodes, "file", NULL);
	if (get_ref(json_get(nodes, "id_column"), &m->node_id, name, "nodes.id_column", err, errlen) ||
	    get_ref(json_get(nodes, "gpu_count_column"), &m->node_count, name, "nodes.gpu_count_column", err, errlen) ||
	    get_ref(json_get(nodes, "gpu_model"), &m->node_model, name, "nodes.gpu_model", err, errlen))
		goto out;
	if (!m->node_id.column || !m->node_count.column || !m->node_model.present ||
	    (m->node_model.constant && m->node_model.constant->kind != JSON_STRING)) {
		map_err(err, errlen, name, "'nodes' needs 'id_column', 'gpu_count_column' (column names) and 'gpu_model' (column or string constant)", NULL);
		goto out;
	}
	struct json *sub = json_get(nodes, "subset");
	if (sub) {
		static const char *const sk2[] = { "gpus", "seed", NULL };
		struct json *g = json_get(sub, "gpus"), *s = json_get(sub, "seed");
		if (check_keys(sub, ND_KEYS(sk2), name, "'nodes.subset' must be an object", err, errlen))
			goto out;
		if (!g || g->kind != JSON_INT || g->u.i <= 0 || !s || s->kind != JSON_INT || s->u.i < 0) {
			map_err(err, errlen, name, "'nodes.subset' needs integers 'gpus' > 0 and 'seed' >= 0", NULL);
			goto out;
		}
		m->has_subset = true;
		m->subset_gpus = g->u.i;
		m->subset_seed = (unsigned long long)s->u.i;
	}
	rc = 0;
out:
	free(buf);
	zr_close(r);
	return rc;
}

/* ---- nodes ---- */

static int read_nodes(struct trace *t, struct map *m, struct json *hdr, struct arena *a, char sha[65], struct json **subset_info, char *err, size_t errlen)
{
	struct imp_csv f;
	struct imp_nodes seen;
	int rc = -1, r;
	struct trace all;
	trace_init(&all);
	imp_nodes_init(&seen);
	if (imp_csv_open_enc(&f, m->nodes_file, true, m->latin1, err, errlen))
		goto out;
	int id = imp_csv_col(&f, m->node_id.column, err, errlen);
	int cnt = id < 0 ? -1 : imp_csv_col(&f, m->node_count.column, err, errlen);
	int model = m->node_model.column && cnt >= 0 ? imp_csv_col(&f, m->node_model.column, err, errlen) : cnt;
	if (model < 0)
		goto out;
	while ((r = imp_csv_next(&f, err, errlen)) > 0) {
		char **c = f.c.fields;
		const char *nid = csv_trim(c[id]);
		const char *nm = m->node_model.column ? csv_trim(c[model]) : m->node_model.constant->u.str.s;
		long long n;
		if (!*nid || !*nm) {
			imp_errf(err, errlen, imp_csv_name(&f), imp_csv_line(&f), "empty node id or GPU model");
			goto out;
		}
		if (imp_py_int(c[cnt], &n) || n <= 0) {
			imp_errf(err, errlen, imp_csv_name(&f), imp_csv_line(&f), "node '%s': GPU count must be a positive integer, not '%s'", nid, c[cnt]);
			goto out;
		}
		if (imp_node(&all, t, &seen, nid, nm, n, imp_csv_name(&f), imp_csv_line(&f), err, errlen))
			goto out;
	}
	if (r < 0 || imp_csv_finish(&f, a, hdr, sha, err, errlen))
		goto out;
	if (all.n_nodes == 0) {
		snprintf(err, errlen, "%s: no node", imp_csv_name(&f));
		goto out;
	}
	size_t *order = xmalloc(all.n_nodes * sizeof *order);
	long long *gpus = xmalloc(all.n_nodes * sizeof *gpus), total = 0;
	for (size_t i = 0; i < all.n_nodes; i++)
		total += gpus[i] = all.nodes[i].gpu_count;
	size_t k = all.n_nodes;
	if (m->has_subset)
		k = imp_seeded_subset(gpus, all.n_nodes, m->subset_gpus, m->subset_seed, order);
	else
		for (size_t i = 0; i < k; i++)
			order[i] = i;
	long long chosen = 0;
	for (size_t i = 0; i < k; i++) {
		*trace_add_node(t) = all.nodes[order[i]];
		chosen += all.nodes[order[i]].gpu_count;
	}
	struct arena *ta = &t->arena;
	if (m->has_subset) {
		struct json *s = json_object(ta);
		json_set(ta, s, "rule", json_str(ta, "seeded SplitMix64 Fisher-Yates shuffle of the node list in file order, then the shortest prefix whose GPU count reaches the target"));
		json_set(ta, s, "seed", json_int(ta, (long long)m->subset_seed));
		json_set(ta, s, "target_gpus", json_int(ta, m->subset_gpus));
		json_set(ta, s, "source_node_count", json_int(ta, (long long)all.n_nodes));
		json_set(ta, s, "source_capacity_gpus", json_int(ta, total));
		json_set(ta, s, "selected_node_count", json_int(ta, (long long)k));
		json_set(ta, s, "selected_capacity_gpus", json_int(ta, chosen));
		*subset_info = s;
	} else
		*subset_info = json_null(ta);
	free(order);
	free(gpus);
	rc = 0;
out:
	imp_nodes_release(&seen);
	trace_release(&all);
	imp_csv_close(&f);
	return rc;
}

/* ---- jobs ---- */

static int skip_matches(const struct skip_rule *s, char *cell, bool *match, const char *name, unsigned long line, char *err, size_t errlen)
{
	const char *v = csv_trim(cell);     /* every later use of a cell trims it too */
	if (s->op == OP_EMPTY) {
		*match = !*v;
		return 0;
	}
	if ((s->op == OP_EQ || s->op == OP_NE) && s->value->kind == JSON_STRING) {
		*match = !strcmp(v, s->value->u.str.s) == (s->op == OP_EQ);
		return 0;
	}
	double x, y = json_num(s->value);
	if (imp_py_float(cell, &x, NULL)) {
		imp_errf(err, errlen, name, line, "skip rule on '%s': not a finite number: '%s'", s->column, cell);
		return -1;
	}
	switch (s->op) {
	case OP_LE: *match = x <= y; break;
	case OP_LT: *match = x < y; break;
	case OP_GE: *match = x >= y; break;
	case OP_GT: *match = x > y; break;
	case OP_EQ: *match = x == y; break;
	default: *match = x != y; break;
	}
	return 0;
}

/* Numeric field from a cell or a constant; kind int when written as an integer. */
static int num_field(const struct map *m, const struct ref *r, char **c, const int *col, int fi, double *v, bool *is_int, const char *name, unsigned long line, char *err, size_t errlen)
{
	if (r->constant) {
		if (!json_is_num(r->constant)) {
			imp_errf(err, errlen, name, line, "constant '%s' is not a number", field_names[fi]);
			return -1;
		}
		*v = json_num(r->constant);
		*is_int = r->constant->kind == JSON_INT;
	} else if (imp_py_float(c[col[fi]], v, is_int)) {
		imp_errf(err, errlen, name, line, "'%s' is not a finite number: '%s'", r->column, c[col[fi]]);
		return -1;
	}
	if (m->all_float)
		*is_int = false;
	return 0;
}

static const char *str_field(const struct ref *r, char **c, const int *col, int fi, char *numbuf)
{
	if (!r->constant)
		return csv_trim(c[col[fi]]);
	if (r->constant->kind == JSON_STRING)
		return r->constant->u.str.s;
	if (r->constant->kind == JSON_INT)
		num_fmt_int(numbuf, r->constant->u.i);
	else
		num_fmt_double(numbuf, r->constant->u.d);
	return numbuf;
}

struct jobs_state {
	struct imp_strset ids;
	struct trace_caps caps;
	struct job_where { size_t file; unsigned long line; } *where;   /* per job, for min_submit errors */
	size_t cap_where;
};

static int read_jobs(struct trace *t, const struct map *m, const char *path, size_t file_index, struct jobs_state *js, struct json *files,
		     struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	struct imp_csv f;
	int rc = -1, r, col[NFIELDS];
	if (imp_csv_open_enc(&f, path, true, m->latin1, err, errlen))
		goto out;
	for (int i = 0; i < NFIELDS; i++)
		if (m->f[i].column && (col[i] = imp_csv_col(&f, m->f[i].column, err, errlen)) < 0)
			goto out;
	for (size_t i = 0; i < m->n_skips; i++)
		if ((m->skips[i].col = imp_csv_col(&f, m->skips[i].column, err, errlen)) < 0)
			goto out;
	while ((r = imp_csv_next(&f, err, errlen)) > 0) {
		char **c = f.c.fields, nb[NFIELDS][NUM_FMT_MAX];
		const char *name = imp_csv_name(&f);
		unsigned long line = imp_csv_line(&f);
		const char *reason = NULL;
		for (size_t i = 0; i < m->n_skips && !reason; i++) {
			bool hit;
			if (skip_matches(&m->skips[i], c[m->skips[i].col], &hit, name, line, err, errlen))
				goto out;
			if (hit)
				reason = m->skips[i].reason;
		}
		if (reason) {
			imp_count(&t->arena, t->skipped_rows, reason);
			continue;
		}
		double submit, duration, gpus;
		bool si, di, gi;
		if (num_field(m, &m->f[F_SUBMIT], c, col, F_SUBMIT, &submit, &si, name, line, err, errlen) ||
		    num_field(m, &m->f[F_DURATION], c, col, F_DURATION, &duration, &di, name, line, err, errlen) ||
		    num_field(m, &m->f[F_GPUS], c, col, F_GPUS, &gpus, &gi, name, line, err, errlen))
			goto out;
		if (m->time_scale != 1) {
			submit *= m->time_scale;
			duration *= m->time_scale;
			si = di = false;
		}
		const char *id = str_field(&m->f[F_JOB_ID], c, col, F_JOB_ID, nb[F_JOB_ID]);
		const char *label = str_field(&m->f[F_CLASS], c, col, F_CLASS, nb[F_CLASS]);
		const char *model = str_field(&m->f[F_GPU_MODEL], c, col, F_GPU_MODEL, nb[F_GPU_MODEL]);
		const char *tenant = m->f[F_TENANT].present ? str_field(&m->f[F_TENANT], c, col, F_TENANT, nb[F_TENANT]) : NULL;
		if (!*id) {
			imp_errf(err, errlen, name, line, "empty job id");
			goto out;
		}
		if (!(gpus > 0)) {
			imp_errf(err, errlen, name, line, "job '%s': gpus must be > 0 (add a skip rule to drop such rows)", id);
			goto out;
		}
		if (!(duration > 1e-9)) {
			imp_errf(err, errlen, name, line, "job '%s': duration must be > 1e-9 seconds", id);
			goto out;
		}
		if (!isfinite(submit) || !isfinite(duration) || (!m->origin_min && submit < 0)) {
			imp_errf(err, errlen, name, line, "job '%s': submit must be >= 0", id);
			goto out;
		}
		const char *cls = label;
		if (m->f[F_CLASS].column) {
			struct json *v = json_get(m->class_mapping, label);
			if (!v) {
				imp_errf(err, errlen, name, line, "job '%s': class label '%s' has no entry in class_mapping", id, label);
				goto out;
			}
			cls = v->u.str.s;
		}
		if (!*model || (tenant && !*tenant)) {
			imp_errf(err, errlen, name, line, "job '%s': empty %s", id, !*model ? "gpu_model" : "tenant");
			goto out;
		}
		long long cap = trace_caps_get(&js->caps, model);
		if (gpus > (double)cap) {
			if (m->skip_oversize) {
				imp_count(&t->arena, t->skipped_rows, "larger_than_node_capacity");
				continue;
			}
			imp_errf(err, errlen, name, line, "job '%s' asks for %g GPUs of model '%s', the nodes have %lld", id, gpus, model, cap);
			goto out;
		}
		char *kid = trace_strdup(t, id);
		if (imp_strset_add(&js->ids, kid)) {
			imp_errf(err, errlen, name, line, "duplicate job id '%s'", kid);
			goto out;
		}
		struct trace_job *j = trace_add_job(t);
		j->id = kid;
		j->submit = submit;
		j->submit_int = si;
		j->duration = duration;
		j->duration_int = di;
		j->gpus = gpus;
		j->gpus_int = gi;
		j->hp = !strcmp(cls, "HP");
		j->model = trace_strdup(t, model);
		j->tenant = tenant ? trace_strdup(t, tenant) : NULL;
		/* a min_submit origin is subtracted later: check the bounds on the shifted value then */
		double raw = j->submit;
		if (m->origin_min)
			j->submit = 0;
		if (imp_job_check(t, &js->caps, j, name, line, err, errlen))
			goto out;
		j->submit = raw;
		js->where = xgrow(js->where, &js->cap_where, t->n_jobs, sizeof *js->where);
		js->where[t->n_jobs - 1] = (struct job_where){ file_index, line };
	}
	char sha[65];
	if (r < 0 || imp_csv_finish(&f, a, hdr, sha, err, errlen))
		goto out;
	struct json *fo = json_object(&t->arena);
	json_set(&t->arena, fo, "path", json_str(&t->arena, path));
	json_set(&t->arena, fo, "sha256", json_str(&t->arena, sha));
	json_push(&t->arena, files, fo);
	rc = 0;
out:
	imp_csv_close(&f);
	return rc;
}

int trace_import_csv(const struct import_csv_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	const char *map_path = o->map, *nodes_file = o->nodes_file;
	struct map m;
	memset(&m, 0, sizeof m);
	char map_sha[65], node_sha[65];
	struct jobs_state js = { 0 };
	imp_strset_init(&js.ids);
	int rc = IMPORT_DATA_ERROR;
	if (load_map(&m, map_path, hdr, a, map_sha, err, errlen))
		goto out;
	if (nodes_file)
		m.nodes_file = nodes_file;
	if (o->has_node_subset) {
		m.has_subset = true;
		m.subset_gpus = o->node_subset_gpus;
		m.subset_seed = o->seed;
	}
	if (!m.nodes_file) {
		snprintf(err, errlen, "no node list: give --nodes-file or 'nodes.file' in the mapping");
		rc = IMPORT_USAGE_ERROR;
		goto out;
	}
	struct json *files = json_array(a);
	for (size_t i = 0; i < o->n_files; i++)
		json_push(a, files, json_str(a, o->files[i]));
	imp_param(a, hdr, "format", json_str(a, "csv"));
	imp_param(a, hdr, "map", json_str(a, map_path));
	imp_param(a, hdr, "files", files);
	imp_param(a, hdr, "nodes_file", json_str(a, m.nodes_file));
	imp_param(a, hdr, "node_subset_gpus", m.has_subset ? json_int(a, m.subset_gpus) : json_null(a));
	imp_param(a, hdr, "seed", m.has_subset ? json_int(a, (long long)m.subset_seed) : json_null(a));

	t->version = m.f[F_TENANT].present ? 2 : 1;
	t->trace_id = trace_strdup(t, m.trace_id);
	t->time_origin = trace_strdup(t, m.time_origin);
	for (size_t i = 0; i < m.n_skips; i++)
		imp_reason(&t->arena, t->skipped_rows, m.skips[i].reason);
	if (m.skip_oversize)
		imp_reason(&t->arena, t->skipped_rows, "larger_than_node_capacity");
	struct json *subset_info;
	if (read_nodes(t, &m, hdr, a, node_sha, &subset_info, err, errlen))
		goto out;
	trace_caps_build(&js.caps, t);
	struct json *job_files = json_array(&t->arena);
	for (size_t i = 0; i < o->n_files; i++)
		if (read_jobs(t, &m, o->files[i], i, &js, job_files, hdr, a, err, errlen))
			goto out;
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "no job kept from the input files");
		goto out;
	}
	double origin = 0;
	bool origin_int = true;
	if (m.origin_min) {
		size_t lo = 0;
		for (size_t i = 1; i < t->n_jobs; i++)
			if (t->jobs[i].submit < t->jobs[lo].submit)
				lo = i;
		origin = t->jobs[lo].submit;
		origin_int = t->jobs[lo].submit_int;
		for (size_t i = 0; i < t->n_jobs; i++) {
			t->jobs[i].submit -= origin;
			t->jobs[i].submit_int = t->jobs[i].submit_int && origin_int;
			if (!(t->jobs[i].submit <= TRACE_MAX_SECONDS)) {
				const struct job_where *w = &js.where[i];
				imp_errf(err, errlen, strcmp(o->files[w->file], "-") ? o->files[w->file] : "<stdin>", w->line,
					 "job '%s': submit is %.17g seconds after the earliest submit, more than 1e12", t->jobs[i].id, t->jobs[i].submit);
				goto out;
			}
		}
	}

	/* source: the mapping's own source object first, then what this import did */
	struct arena *ta = &t->arena;
	struct json *s = t->source, *usrc = json_get(m.doc, "source"), *so = json_object(ta), *cm = json_object(ta);
	if (usrc)
		for (size_t i = 0; i < usrc->u.obj.n; i++)
			json_set(ta, s, usrc->u.obj.keys[i], json_clone(ta, usrc->u.obj.vals[i]));
	json_set(ta, s, "importer", json_str(ta, "trace-import csv"));
	json_set(ta, s, "map", json_clone(ta, m.doc));
	json_set(ta, s, "map_sha256", json_str(ta, map_sha));
	json_set(ta, s, "job_files", job_files);
	struct json *nf = json_object(ta);
	json_set(ta, nf, "path", json_str(ta, m.nodes_file));
	json_set(ta, nf, "sha256", json_str(ta, node_sha));
	json_set(ta, s, "node_file", nf);
	json_set(ta, s, "node_subset", subset_info);
	if (m.f[F_CLASS].column) {
		json_set(ta, cm, "mode", json_str(ta, "column_labels"));
		json_set(ta, cm, "column", json_str(ta, m.f[F_CLASS].column));
		json_set(ta, cm, "mapping", json_clone(ta, m.class_mapping));
	} else {
		json_set(ta, cm, "mode", json_str(ta, "caller_supplied_constant"));
		json_set(ta, cm, "value", json_clone(ta, m.f[F_CLASS].constant));
	}
	json_set(ta, s, "service_class_mapping", cm);
	json_set(ta, so, "mode", json_str(ta, m.origin_min ? "min_submit" : "as_is"));
	json_set(ta, so, "subtracted_seconds", json_real(ta, origin));
	json_set(ta, s, "submit_origin", so);
	json_set(ta, s, "time_scale", json_real(ta, m.time_scale));
	json_set(ta, s, "text_encoding", json_str(ta, m.latin1 ? "latin-1, transcoded to UTF-8" : "utf-8, invalid bytes rejected"));
	json_set(ta, s, "skipped_rows", json_clone(ta, t->skipped_rows));
	rc = 0;
out:
	trace_caps_release(&js.caps);
	free(js.where);
	imp_strset_release(&js.ids);
	free(m.skips);
	return rc;
}
