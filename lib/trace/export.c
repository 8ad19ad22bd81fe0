#include "trace/export.h"
#include "trace/res.h"
#include "core/xalloc.h"
#include "core/num.h"
#include "core/zio.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- ISO 8601 as datetime.fromisoformat (Python 3.11) reads it ---- */

static int digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* HH[:MM[:SS[(.|,)f+]]] or HH[MM[SS[(.|,)f+]]], the whole of s[0..n). */
static bool iso_clock(const char *s, size_t n, bool frac_ok)
{
	int h, m, sec;
	size_t p = 0;
	if (n < 2 || digits(s, 2, &h) || h > 23)
		return false;
	p = 2;
	if (p == n)
		return true;
	bool ext = s[p] == ':';
	for (int part = 0; part < 2; part++) {
		if (p == n)
			return true;
		if (ext) {
			if (s[p] != ':')
				return false;
			p++;
		}
		if (n - p < 2 || digits(s + p, 2, part ? &sec : &m) || (part ? sec : m) > 59)
			return false;
		p += 2;
	}
	if (p == n)
		return true;
	if (!frac_ok || (s[p] != '.' && s[p] != ','))
		return false;
	p++;
	if (p == n)
		return false;
	for (; p < n; p++)
		if (s[p] < '0' || s[p] > '9')
			return false;
	return true;
}

bool trace_iso_time_valid(const char *s)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d;
	size_t n = strlen(s), p;
	if (n >= 10 && s[4] == '-' && s[7] == '-') {
		if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d))
			return false;
		p = 10;
	} else if (n >= 8) {
		if (digits(s, 4, &y) || digits(s + 4, 2, &mo) || digits(s + 6, 2, &d))
			return false;
		p = 8;
	} else
		return false;
	if (y < 1 || mo < 1 || mo > 12 || d < 1)
		return false;
	int md = mdays[mo - 1] + (mo == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
	if (d > md)
		return false;
	if (p == n)
		return true;
	/* one separator character (any, UTF-8 sequences count as one) */
	unsigned char c = (unsigned char)s[p];
	if (c >= '0' && c <= '9')
		return false;
	p++;
	if (c >= 0x80)
		while (p < n && ((unsigned char)s[p] & 0xC0) == 0x80)
			p++;
	const char *t = s + p;
	size_t tn = n - p, cut = tn;
	for (size_t i = 0; i < tn; i++)
		if (t[i] == 'Z' || t[i] == '+' || t[i] == '-') {
			cut = i;
			break;
		}
	if (!iso_clock(t, cut, true))
		return false;
	if (cut == tn)
		return true;
	if (t[cut] == 'Z')
		return cut + 1 == tn;
	return iso_clock(t + cut + 1, tn - cut - 1, true);
}

/* ---- manifest fingerprint ---- */

void trace_manifest_fingerprint(const struct json *manifest, char out[FP_HEX_SHA256])
{
	struct arena a;
	struct strbuf sb;
	arena_init(&a);
	sb_init(&sb);
	struct json *o = json_object(&a);
	for (size_t i = 0; manifest->kind == JSON_OBJECT && i < manifest->u.obj.n; i++)
		if (strcmp(manifest->u.obj.keys[i], "trace_fingerprint"))
			json_set(&a, o, manifest->u.obj.keys[i], manifest->u.obj.vals[i]);
	json_write_sorted(&sb, o);
	fp_sha256_of(sb.buf, sb.len, out);
	sb_release(&sb);
	arena_release(&a);
}

/* ---- rendering ---- */

/* A cell as Python's csv writer quotes it (QUOTE_MINIMAL, "\n" line ends). */
static void csv_cell(struct strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_addc(sb, '"');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

/* str() of the supplied value: an integer cell stays "10", a float is repr ("10.0"). */
static void csv_num(struct strbuf *sb, double v, bool is_int)
{
	if (is_int && fabs(v) < 9.2e18)
		sb_add_int(sb, (long long)v);
	else
		sb_add_double(sb, v);
}

int trace_export_render(const struct trace *t, struct strbuf *manifest, struct strbuf *nodes, struct strbuf *jobs,
                        char *err, size_t errlen)
{
	sb_reset(manifest);
	sb_reset(nodes);
	sb_reset(jobs);
	if (!t->trace_id || !*t->trace_id) {
		snprintf(err, errlen, "trace_id is empty");
		return -1;
	}
	if (!t->time_origin || !trace_iso_time_valid(t->time_origin)) {
		snprintf(err, errlen, "time_origin '%s' is not an ISO 8601 date-time", t->time_origin ? t->time_origin : "");
		return -1;
	}
	if (!t->source || t->source->kind != JSON_OBJECT) {
		snprintf(err, errlen, "source is not an object");
		return -1;
	}
	if (t->has_window && !(isfinite(t->eval_start) && isfinite(t->eval_end) && t->eval_start >= 0 && t->eval_start < t->eval_end)) {
		snprintf(err, errlen, "window needs 0 <= start < end");
		return -1;
	}
	/* issue 36: the resource columns follow only when some record has a resource field */
	bool nres = trace_res_any_node(t), jres = trace_res_any_job(t);
	sb_adds(nodes, nres ? "node_id,gpu_model,gpu_count,cpu_milli,memory_mib\n" : "node_id,gpu_model,gpu_count\n");
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct trace_node *n = &t->nodes[i];
		csv_cell(nodes, n->id);
		sb_addc(nodes, ',');
		csv_cell(nodes, n->model);
		sb_addc(nodes, ',');
		sb_add_int(nodes, n->gpu_count);
		if (nres)
			trace_res_node_csv(nodes, n);
		sb_addc(nodes, '\n');
	}
	sb_adds(jobs, "job_id,submit_time_seconds,duration_seconds,gpu_count,service_class,gpu_model");
	sb_adds(jobs, t->version == 2 ? ",tenant_id" : "");
	sb_adds(jobs, jres ? ",workers,cpu_milli,memory_mib,gpu_milli,gpu_spec\n" : "\n");
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if ((t->version == 2) != (j->tenant != NULL)) {
			snprintf(err, errlen, "job '%s': %s", j->id, j->tenant ? "tenant in a schema v1 trace" : "schema v2 needs a tenant");
			return -1;
		}
		csv_cell(jobs, j->id);
		sb_addc(jobs, ',');
		csv_num(jobs, j->submit, j->submit_int);
		sb_addc(jobs, ',');
		csv_num(jobs, j->duration, j->duration_int);
		sb_addc(jobs, ',');
		csv_num(jobs, j->gpus, j->gpus_int);
		sb_adds(jobs, j->hp ? ",HP," : ",Spot,");
		csv_cell(jobs, j->model);
		if (j->tenant) {
			sb_addc(jobs, ',');
			csv_cell(jobs, j->tenant);
		}
		if (jres)
			trace_res_job_csv(jobs, j);
		sb_addc(jobs, '\n');
	}
	char nsha[FP_HEX_SHA256], jsha[FP_HEX_SHA256], tfp[FP_HEX_SHA256];
	fp_sha256_of(nodes->buf, nodes->len, nsha);
	fp_sha256_of(jobs->buf, jobs->len, jsha);

	struct arena a;
	arena_init(&a);
	struct json *m = json_object(&a), *files = json_object(&a);
	json_set(&a, m, "schema_version", json_str(&a, t->version == 2 ? CANON_SCHEMA_V2 : CANON_SCHEMA_V1));
	json_set(&a, m, "trace_id", json_str(&a, t->trace_id));
	json_set(&a, m, "time_origin", json_str(&a, t->time_origin));
	json_set(&a, m, "source", json_clone(&a, t->source));
	json_set(&a, m, "nodes_file", json_str(&a, "nodes.csv"));
	json_set(&a, m, "jobs_file", json_str(&a, "jobs.csv"));
	json_set(&a, files, "nodes.csv", json_str(&a, nsha));
	json_set(&a, files, "jobs.csv", json_str(&a, jsha));
	json_set(&a, m, "files", files);
	if (t->has_window) {
		struct json *w = json_object(&a);
		json_set(&a, w, "start", json_real(&a, t->eval_start));
		json_set(&a, w, "end", json_real(&a, t->eval_end));
		json_set(&a, m, "evaluation_window_seconds", w);
	}
	trace_manifest_fingerprint(m, tfp);
	json_set(&a, m, "trace_fingerprint", json_str(&a, tfp));
	json_write_pretty_sorted(manifest, m);
	sb_addc(manifest, '\n');
	arena_release(&a);
	return 0;
}

/* ---- writing the directory ---- */

static const char *const names[3] = { "nodes.csv", "jobs.csv", "trace.json" };

int trace_export_dir(const struct trace *t, const char *dir, bool force, char *err, size_t errlen)
{
	struct strbuf bufs[3];
	struct zio_writer *w[3] = { NULL, NULL, NULL };
	char *paths[3] = { NULL, NULL, NULL };
	bool made_dir = false;
	int rc = -1;
	for (int i = 0; i < 3; i++)
		sb_init(&bufs[i]);
	if (trace_export_render(t, &bufs[2], &bufs[0], &bufs[1], err, errlen))
		goto out;
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: not a directory", dir);
			goto out;
		}
	} else if (errno == ENOENT) {
		if (mkdir(dir, 0777)) {
			snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
			goto out;
		}
		made_dir = true;
	} else {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	for (int i = 0; i < 3; i++) {
		paths[i] = zio_join_path(dir, names[i]);
		if (!force && lstat(paths[i], &st) == 0) {
			snprintf(err, errlen, "%s: already exists (use --force to overwrite)", paths[i]);
			goto out;
		}
	}
	for (int i = 0; i < 3; i++) {
		w[i] = zw_open(paths[i], false, err, errlen);
		if (!w[i] || zw_write(w[i], bufs[i].buf, bufs[i].len, err, errlen))
			goto out;
	}
	/* trace.json last: a reader never sees a manifest before the files it lists */
	for (int i = 0; i < 3; i++) {
		int crc = zw_commit(w[i], err, errlen);
		w[i] = NULL;
		if (crc)
			goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < 3; i++) {
		if (w[i])
			zw_abort(w[i]);
		free(paths[i]);
		sb_release(&bufs[i]);
	}
	if (rc && made_dir)
		rmdir(dir);
	return rc;
}
