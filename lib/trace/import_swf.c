/* swf — the Standard Workload Format v2.2 of the Parallel Workloads Archive (issue 37): `;`
 * header comments, then one job a line of 18 whitespace-separated numeric fields, -1 for
 * unknown. Processors become GPUs and the cluster becomes nodes by the caller's declared
 * mapping; classes come from declared rules on the queue, the partition or the user. Every
 * line has a rule (docs/slurm-import.md "SWF"): what is not a job that ran is counted in
 * skipped_rows by reason; what is malformed stops the import at PATH:LINE. Read one line at
 * a time; memory holds the jobs, never the file. */
#include "trace/import.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "trace/import_slurm_internal.h"
#include "trace/import_util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWF_FIELDS 18
#define SWF_MAX_LINE 4096

static const char *const field_names[SWF_FIELDS] = {
	"Job Number", "Submit Time", "Wait Time", "Run Time", "Allocated Processors", "Average CPU Time", "Used Memory",
	"Requested Processors", "Requested Time", "Requested Memory", "Status", "User ID", "Group ID", "Executable Number",
	"Queue Number", "Partition Number", "Preceding Job Number", "Think Time",
};
enum { F_JOB, F_SUBMIT, F_WAIT, F_RUN, F_PROCS, F_CPU, F_MEM, F_REQPROCS, F_REQTIME, F_REQMEM, F_STATUS, F_USER, F_GROUP, F_EXE,
       F_QUEUE, F_PARTITION, F_PREV, F_THINK };

static const char *const reasons[] = { "partial_execution", "cancelled_before_start", "unknown_run_time", "zero_run_time",
				       "unknown_processors" };

struct swf {
	const struct import_swf_opts *o;
	struct trace *t;
	struct lines l;
	double f[SWF_FIELDS];
	double last_submit;
	long long max_procs, max_nodes;
	bool has_unix_start;
	long long unix_start;
	struct json *hdr_comments;      /* source.swf_header: the header comments we read */
	const struct trace_caps *caps;
};

/* A number as SWF writes it: an integer or a decimal, optionally negative. 0, or -1. */
static int swf_number(const char *s, size_t n, double *out)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-')
		neg = true, i = 1;
	if (i == n)
		return -1;
	long long v = 0;
	size_t d0 = i;
	while (i < n && s[i] >= '0' && s[i] <= '9' && i - d0 < 15)
		v = v * 10 + (s[i++] - '0');
	if (i == n) {
		*out = neg ? -(double)v : (double)v;
		return 0;
	}
	char buf[64];              /* a fraction, an exponent or a long number: strtod (C locale) */
	if (n >= sizeof buf || strspn(s, "-+0123456789.eE") < n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	double d = strtod(buf, &end);
	if (end != buf + n || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

/* "; Key: value" header comments: the ones a mapping reads are checked, all are recorded. */
static int header_comment(struct swf *p, char *s, char *err, size_t errlen)
{
	s++;
	s += strspn(s, " \t");
	char *colon = strchr(s, ':');
	if (!colon)
		return 0;           /* free text */
	*colon = 0;
	char *key = s, *val = colon + 1;
	val += strspn(val, " \t");
	size_t vn = strlen(val);
	while (vn && (val[vn - 1] == ' ' || val[vn - 1] == '\t'))
		val[--vn] = 0;
	if (strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != strlen(key) || !*key)
		return 0;
	long long *want = !strcmp(key, "MaxProcs") ? &p->max_procs : !strcmp(key, "MaxNodes") ? &p->max_nodes :
			  !strcmp(key, "UnixStartTime") ? &p->unix_start : NULL;
	if (want) {
		double d;
		if (swf_number(val, vn, &d) || d != floor(d) || d < 0 || d > TRACE_MAX_SECONDS * 10) {
			imp_errf(err, errlen, p->l.name, p->l.line, "header %s '%s' is not a whole number >= 0", key, val);
			return -1;
		}
		*want = (long long)d;
		if (want == &p->unix_start)
			p->has_unix_start = true;
	}
	if (!text_id_problem(val, vn) || !vn)
		json_set(&p->t->arena, p->hdr_comments, arena_strndup(&p->t->arena, key, strlen(key)),
			 json_strn(&p->t->arena, val, vn));
	return 0;
}

/* The class of a job by the first declared rule that matches: 1 HP, 0 Spot, -1 none. */
static int class_of(const struct import_swf_opts *o, const double *f)
{
	for (size_t i = 0; i < o->n_rules; i++) {
		const struct import_swf_rule *u = &o->rules[i];
		double v = u->field == IMPORT_SWF_BY_QUEUE ? f[F_QUEUE] : u->field == IMPORT_SWF_BY_PARTITION ? f[F_PARTITION] :
			   u->field == IMPORT_SWF_BY_USER ? f[F_USER] : 0;
		if (u->field == IMPORT_SWF_BY_ANY || v == (double)u->value)
			return u->hp;
	}
	return -1;
}

static int job_line(struct swf *p, char *s, size_t n, char *err, size_t errlen)
{
	struct lines *l = &p->l;
	size_t k = 0, i = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		size_t w = 0;
		while (i + w < n && s[i + w] != ' ' && s[i + w] != '\t')
			w++;
		if (k == SWF_FIELDS) {
			imp_errf(err, errlen, l->name, l->line, "more than %d fields (SWF v2.2 has exactly %d)", SWF_FIELDS, SWF_FIELDS);
			return -1;
		}
		if (swf_number(s + i, w, &p->f[k])) {
			char q[40];
			text_quote(q, sizeof q, s + i, w < 30 ? w : 30);
			imp_errf(err, errlen, l->name, l->line, "field %zu (%s) '%s' is not a number", k + 1, field_names[k], q);
			return -1;
		}
		k++;
		i += w;
	}
	if (k != SWF_FIELDS) {
		imp_errf(err, errlen, l->name, l->line, "%zu fields, SWF v2.2 has exactly %d", k, SWF_FIELDS);
		return -1;
	}
	const double *f = p->f;
	if (f[F_JOB] < 1 || f[F_JOB] != floor(f[F_JOB]) || f[F_JOB] > 1e15) {
		imp_errf(err, errlen, l->name, l->line, "Job Number %.17g is not a whole number >= 1", f[F_JOB]);
		return -1;
	}
	if (!(f[F_SUBMIT] >= 0 && f[F_SUBMIT] <= TRACE_MAX_SECONDS)) {
		imp_errf(err, errlen, l->name, l->line, "job %.0f: Submit Time %.17g is not in [0, 1e12]", f[F_JOB], f[F_SUBMIT]);
		return -1;
	}
	bool partial = f[F_STATUS] >= 2 && f[F_STATUS] <= 4;   /* submit of the job, repeated */
	if (!partial && f[F_SUBMIT] < p->last_submit) {
		imp_errf(err, errlen, l->name, l->line, "job %.0f: Submit Time %.17g goes backwards (the line before: %.17g); SWF lines are sorted by submit time",
			 f[F_JOB], f[F_SUBMIT], p->last_submit);
		return -1;
	}
	if (!partial)
		p->last_submit = f[F_SUBMIT];
	for (int c = 0; c < SWF_FIELDS; c++)
		if (c != F_SUBMIT && f[c] < 0 && f[c] != -1) {
			imp_errf(err, errlen, l->name, l->line, "job %.0f: %s %.17g is negative (-1 is the only negative value: unknown)", f[F_JOB],
				 field_names[c], f[c]);
			return -1;
		}
	int st = (int)f[F_STATUS];
	if (f[F_STATUS] != floor(f[F_STATUS]) || st < -1 || st > 5) {
		imp_errf(err, errlen, l->name, l->line, "job %.0f: Status %.17g is not -1, 0, 1, 2, 3, 4 or 5", f[F_JOB], f[F_STATUS]);
		return -1;
	}
	double procs = f[F_PROCS] > 0 ? f[F_PROCS] : f[F_REQPROCS];
	if (p->max_procs > 0 && procs > (double)p->max_procs) {
		imp_errf(err, errlen, l->name, l->line, "job %.0f: %.17g processors, more than the header's MaxProcs %lld", f[F_JOB], procs, p->max_procs);
		return -1;
	}
	struct trace *t = p->t;
	if (st >= 2 && st <= 4) {       /* a partial execution: the job's own line holds the whole job */
		imp_count(&t->arena, t->skipped_rows, "partial_execution");
		return 0;
	}
	if (f[F_RUN] == -1) {
		imp_count(&t->arena, t->skipped_rows, st == 5 ? "cancelled_before_start" : "unknown_run_time");
		return 0;
	}
	if (f[F_RUN] == 0) {
		imp_count(&t->arena, t->skipped_rows, st == 5 ? "cancelled_before_start" : "zero_run_time");
		return 0;
	}
	if (!(procs > 0)) {
		imp_count(&t->arena, t->skipped_rows, "unknown_processors");
		return 0;
	}
	int cls = class_of(p->o, f);
	if (cls < 0) {
		imp_errf(err, errlen, l->name, l->line, "job %.0f: no --class rule for queue %.0f, partition %.0f, user %.0f (declare one; there is no default)",
			 f[F_JOB], f[F_QUEUE], f[F_PARTITION], f[F_USER]);
		return -1;
	}
	const struct import_swf_opts *o = p->o;
	double gpus = o->procs_per_gpu > 0 ? ceil(procs / (double)o->procs_per_gpu) : procs * (double)o->gpus_per_proc;
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)f[F_JOB]);
	struct trace_job *j = trace_add_job(t);
	j->id = trace_strdup(t, id);
	j->submit = f[F_SUBMIT];
	j->submit_int = f[F_SUBMIT] == floor(f[F_SUBMIT]);
	j->duration = f[F_RUN];
	j->duration_int = f[F_RUN] == floor(f[F_RUN]);
	j->gpus = gpus;
	j->gpus_int = gpus == floor(gpus);
	j->hp = cls == 1;
	j->model = (char *)"*";
	if (f[F_REQTIME] > 0)
		j->time_limit = (long long)ceil(f[F_REQTIME]);
	if (o->tenant_from != IMPORT_SWF_TENANT_NONE) {
		double u = o->tenant_from == IMPORT_SWF_TENANT_USER ? f[F_USER] : f[F_GROUP];
		snprintf(id, sizeof id, u >= 0 ? "%s%.0f" : "%sunknown", o->tenant_from == IMPORT_SWF_TENANT_USER ? "u" : "g", u);
		j->tenant = trace_strdup(t, id);
	}
	return imp_job_check(t, p->caps, j, l->name, l->line, err, errlen);
}

static int make_nodes(struct swf *p, char *err, size_t errlen)
{
	const struct import_swf_opts *o = p->o;
	long long nodes = o->nodes > 0 ? o->nodes : p->max_nodes;
	if (nodes <= 0 && p->max_procs > 0) {
		double g = o->procs_per_gpu > 0 ? ceil((double)p->max_procs / (double)o->procs_per_gpu) : (double)p->max_procs * (double)o->gpus_per_proc;
		nodes = (long long)ceil(g / (double)o->gpus_per_node);
	}
	if (nodes <= 0) {
		snprintf(err, errlen, "%s: no node count: the header has neither MaxNodes nor MaxProcs (give --node-count N)", p->l.name);
		return -1;
	}
	if ((double)nodes * (double)o->gpus_per_node > (double)TRACE_MAX_CAPACITY || nodes > 10000000) {
		snprintf(err, errlen, "%s: %lld nodes of %lld GPUs exceed the trace model's capacity", p->l.name, nodes, o->gpus_per_node);
		return -1;
	}
	int width = snprintf(NULL, 0, "%lld", nodes);
	for (long long i = 1; i <= nodes; i++) {
		char id[40];
		snprintf(id, sizeof id, "n%0*lld", width, i);
		struct trace_node *nd = trace_add_node(p->t);
		nd->id = trace_strdup(p->t, id);
		nd->model = trace_strdup(p->t, o->gpu_model);
		nd->gpu_count = o->gpus_per_node;
	}
	return 0;
}

static void provenance(struct swf *p, const char *sha)
{
	const struct import_swf_opts *o = p->o;
	struct trace *t = p->t;
	struct arena *ta = &t->arena;
	struct json *s = t->source, *m = json_object(ta);
	imp_provenance(ta, s, "dataset", "Standard Workload Format v2.2 (Parallel Workloads Archive)", "swf_sha256", sha, (char *)NULL);
	json_set(ta, s, "swf_header", p->hdr_comments);
	json_set(ta, m, "gpus", json_str(ta, o->procs_per_gpu > 0 ? "ceil(processors / procs_per_gpu)" : "processors * gpus_per_proc"));
	json_set(ta, m, "processors", json_str(ta, "Allocated Processors (field 5), else Requested Processors (field 8)"));
	json_set(ta, m, "nodes", json_str(ta, o->nodes > 0 ? "--nodes" : p->max_nodes > 0 ? "MaxNodes" : "ceil(GPUs of MaxProcs / gpus_per_node)"));
	json_set(ta, s, "resource_mapping", m);
	json_set(ta, s, "duration_semantics", json_str(ta, "Run Time (field 4); partial executions (status 2, 3, 4) are skipped, the job's own line holds the whole job"));
	json_set(ta, s, "submit_semantics", json_str(ta, "Submit Time (field 2), seconds from the log's start (UnixStartTime)"));
	json_set(ta, s, "time_limit_semantics", json_str(ta, "Requested Time (field 9) rounded up to whole seconds; -1 gives none"));
}

static const char *const field_words[] = { "queue", "partition", "user", "*" };

static void params(const struct import_swf_opts *o, struct json *hdr, struct arena *a)
{
	imp_param(a, hdr, "format", json_str(a, "swf"));
	imp_param(a, hdr, "jobs", json_str(a, o->jobs));
	if (o->procs_per_gpu > 0)
		imp_param(a, hdr, "procs_per_gpu", json_int(a, o->procs_per_gpu));
	else
		imp_param(a, hdr, "gpus_per_proc", json_int(a, o->gpus_per_proc));
	imp_param(a, hdr, "gpus_per_node", json_int(a, o->gpus_per_node));
	imp_param(a, hdr, "nodes", o->nodes > 0 ? json_int(a, o->nodes) : json_null(a));
	imp_param(a, hdr, "gpu_model", json_str(a, o->gpu_model));
	struct json *rules = json_array(a);
	for (size_t i = 0; i < o->n_rules; i++) {
		const struct import_swf_rule *u = &o->rules[i];
		char value[24];
		snprintf(value, sizeof value, "%lld", u->value);
		imp_push_rule(a, rules, u->field != IMPORT_SWF_BY_ANY ? field_words[u->field] : NULL, value, u->hp);
	}
	imp_param(a, hdr, "class", rules);
	static const char *const tw[] = { "none", "user", "group" };
	imp_param(a, hdr, "tenant_from", json_str(a, tw[o->tenant_from]));
}

static int read_swf(struct swf *p, struct trace_caps *caps, char *err, size_t errlen)
{
	int rc;
	bool nodes_made = false;
	while ((rc = imp_slurm_next_line(&p->l, err, errlen)) > 0) {
		char *s = p->l.buf.buf;
		size_t n = p->l.buf.len - 1;
		if (n > SWF_MAX_LINE) {
			imp_errf(err, errlen, p->l.name, p->l.line, "line of %zu bytes (an SWF line holds 18 numbers: at most %d bytes)", n, SWF_MAX_LINE);
			return -1;
		}
		size_t lead = strspn(s, " \t");
		if (s[lead] == ';') {
			if (nodes_made)
				continue;   /* a comment among the jobs */
			if (header_comment(p, s + lead, err, errlen))
				return -1;
			continue;
		}
		if (!s[lead])
			continue;
		if (!nodes_made) {      /* the header is over: the cluster it declares */
			if (make_nodes(p, err, errlen))
				return -1;
			trace_caps_build(caps, p->t);
			p->caps = caps;
			nodes_made = true;
		}
		if (job_line(p, s, n, err, errlen))
			return -1;
	}
	if (rc < 0)
		return -1;
	if (p->t->n_jobs == 0) {
		snprintf(err, errlen, "%s: no job kept (every line was a comment or skipped: see skipped_rows rules in docs/slurm-import.md)", p->l.name);
		return -1;
	}
	return 0;
}

int trace_import_swf(const struct import_swf_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	params(o, hdr, a);
	t->version = o->tenant_from == IMPORT_SWF_TENANT_NONE ? 1 : 2;
	t->trace_id = trace_strdup(t, "swf");
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		imp_reason(&t->arena, t->skipped_rows, reasons[i]);
	struct swf p;
	struct trace_caps caps = { 0 };
	memset(&p, 0, sizeof p);
	p.o = o;
	p.t = t;
	p.hdr_comments = json_object(&t->arena);
	sb_init(&p.l.buf);
	int rc = IMPORT_DATA_ERROR;
	char sha[65];
	p.l.z = zr_open(o->jobs, true, err, errlen);
	if (!p.l.z)
		goto out;
	p.l.name = zr_name(p.l.z);
	if (read_swf(&p, &caps, err, errlen))
		goto out;
	imp_record_file(p.l.z, a, hdr, o->jobs, sha);
	provenance(&p, sha);
	if (p.has_unix_start) {
		long long u = p.unix_start;
		long long days = u / 86400, rem = u % 86400;
		long long z = days + 719468, era = z / 146097, doe = z - era * 146097;
		long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
		long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
		int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
		char buf[40];
		snprintf(buf, sizeof buf, "%04lld-%02d-%02d %02d:%02d:%02d", yoe + era * 400 + (m <= 2), m, d, (int)(rem / 3600),
			 (int)(rem / 60 % 60), (int)(rem % 60));
		t->time_origin = trace_strdup(t, buf);
	} else
		t->time_origin = trace_strdup(t, "unknown");
	rc = 0;
out:
	trace_caps_release(&caps);
	imp_slurm_lines_close(&p.l);
	return rc;
}
