/* slurm — a Slurm cluster's own history: the parsable output of sacct (-P, '|'-separated,
 * a header row naming the fields, any order) and the node inventory of
 * `scontrol show node -o` → trace/2 (trace/1 without tenants). Both files are read one line
 * at a time; memory holds one record per job id (steps are counted and dropped at once),
 * never the file. Several records of one job id (a requeued job, with sacct --duplicates)
 * become one job: submit from the earliest record, run time from the last attempt. Every
 * state has a rule (docs/slurm-import.md); what is not a finished run is counted in
 * skipped_rows by reason. Classes come only from the caller's declared rules. This file
 * reads sacct and builds the jobs; import_slurm_nodes.c reads the node inventory. */
#include "trace/import.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "trace/import_slurm_internal.h"
#include "trace/import_util.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const reasons[] = {
	"job_step", "requeued_earlier_record", "pending_at_end", "running_at_end", "cancelled_before_start",
	"never_started", "zero_run_time", "no_gpus", "node_without_gpus",
};

/* ---- fields ---- */

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

/* Cut s at every '|' into at most cap fields; returns the field count (cap + 1 = too many). */
static size_t split_bar(char *s, char **f, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char *bar = strchr(s, '|');
		if (n == cap)
			return cap + 1;
		f[n++] = s;
		if (!bar)
			return n;
		*bar = 0;
		s = bar + 1;
	}
}

/* ---- times ---- */

static int64_t days_since_1970(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static int two(const char *s, int lo, int hi)
{
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	int v = (s[0] - '0') * 10 + s[1] - '0';
	return v < lo || v > hi ? -1 : v;
}

/* sacct's time: "YYYY-MM-DDTHH:MM:SS" (ISO, SLURM_TIME_FORMAT unset or "standard") or
 * whole seconds since 1970 (SLURM_TIME_FORMAT=%s); "Unknown", "None" or "" = not set.
 * 1 = *t, 0 = not set, -1 = malformed. The clock is taken as written (see docs: TZ=UTC). */
static int parse_time(const char *s, int64_t *t)
{
	if (!*s || !strcmp(s, "Unknown") || !strcmp(s, "None"))
		return 0;
	size_t n = strlen(s);
	if (strspn(s, "0123456789") == n) {
		long long v;
		if (n > 12 || imp_py_int(s, &v))
			return -1;
		*t = v;
		return 1;
	}
	if (n != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || strspn(s, "0123456789") != 4)
		return -1;
	int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + s[3] - '0';
	int mo = two(s + 5, 1, 12), d = two(s + 8, 1, 31), h = two(s + 11, 0, 23), mi = two(s + 14, 0, 59), sec = two(s + 17, 0, 59);
	if (y < 1970 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0)
		return -1;
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100) || y % 400 == 0;
	if (d > mdays[mo - 1] + (mo == 2 && leap))
		return -1;
	*t = days_since_1970(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	return 1;
}

/* Elapsed "[D-]HH:MM:SS" (also "MM:SS"): seconds, or -1. */
static long long parse_elapsed(const char *s)
{
	long long days = 0;
	const char *dash = strchr(s, '-');
	if (dash) {
		if (dash == s || dash - s > 6 || (size_t)(dash - s) != strspn(s, "0123456789"))
			return -1;
		days = atoll(s);
		s = dash + 1;
	}
	int part[3], k = 0;
	for (;;) {
		if (k == 3 || (part[k] = two(s, 0, 59)) < 0)
			return -1;
		k++;
		if (s[2] == 0)
			break;
		if (s[2] != ':')
			return -1;
		s += 3;
	}
	if (k == 1 || (dash && k != 3))
		return -1;
	long long v = k == 3 ? part[0] * 3600LL + part[1] * 60 + part[2] : part[0] * 60LL + part[1];
	return days * 86400 + v;
}

/* ---- TRES: "billing=1,cpu=1,gres/gpu:tesla=2,gres/gpu=2,mem=1G,node=1" ---- */

/* issue 36: "mem=" as sacct prints it, a number and a unit (K, M, G, T, P; powers of 1024;
 * none = M), in MiB rounded to the nearest; -1 when it is not one. */
static long long tres_mem_mib(const char *v)
{
	char *end;
	double x = strtod(v, &end);
	static const char units[] = "KMGTP";
	const char *u = *end ? strchr(units, *end) : units + 1;
	if (end == v || !(x >= 0) || !u || (*end && end[1]))
		return -1;
	double mib = x * pow(1024, (double)(u - units - 1));
	return mib <= (double)TRACE_MAX_RES ? llround(mib) : -1;
}

/* GPUs and their type (NULL = untyped) from one TRES string: 0, or -1 with a message. With
 * res (issue 36), also cpu= (*cpu) and mem= (*mem, MiB); -1 when absent. */
static int parse_tres(char *s, long long *gpus, char **type, bool res, long long *cpu, long long *mem, char *msg, size_t msglen)
{
	long long untyped = -1, typed = 0;
	*type = NULL;
	*gpus = 0;
	*cpu = *mem = -1;
	for (char *item = s, *next; item && *item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		char *eq = strchr(item, '=');
		if (!eq) {
			snprintf(msg, msglen, "TRES item without '='");
			return -1;
		}
		*eq = 0;
		if (res && (!strcmp(item, "cpu") || !strcmp(item, "mem"))) {
			bool is_cpu = item[0] == 'c';
			long long v = -1;
			if (is_cpu && (imp_py_int(eq + 1, &v) || v < 0 || v > TRACE_MAX_RES / 1000))
				v = -1;
			else if (!is_cpu)
				v = tres_mem_mib(eq + 1);
			if (v < 0) {
				char q[128];
				text_quote(q, sizeof q, eq + 1, strlen(eq + 1));
				snprintf(msg, msglen, is_cpu ? "cpu='%s' is not a CPU count in 0..4294967" : "mem='%s' is not a size (a number and K, M, G, T or P) up to 2^32 MiB", q);
				return -1;
			}
			*(is_cpu ? cpu : mem) = v;
			continue;
		}
		if (strncmp(item, "gres/gpu", 8) || (item[8] && item[8] != ':'))
			continue;
		long long v;
		if (imp_py_int(eq + 1, &v) || v < 0 || v > TRACE_MAX_CAPACITY) {
			char q[128];
			text_quote(q, sizeof q, item, strlen(item));
			snprintf(msg, msglen, "'%s' is not a GPU count", q);
			return -1;
		}
		if (!item[8]) {
			untyped = v;
			continue;
		}
		if (*type && strcmp(*type, item + 9)) {
			char q1[128], q2[128];
			text_quote(q1, sizeof q1, *type, strlen(*type));
			text_quote(q2, sizeof q2, item + 9, strlen(item + 9));
			snprintf(msg, msglen, "GPUs of several types ('%s', '%s'): the trace gives a job one model", q1, q2);
			return -1;
		}
		if (!item[9] || text_id_problem(item + 9, strlen(item + 9))) {
			char q[128];
			text_quote(q, sizeof q, item + 9, strlen(item + 9));
			snprintf(msg, msglen, "GPU type '%s' is not an identifier", q);
			return -1;
		}
		*type = item + 9;
		typed = v;
	}
	*gpus = untyped >= 0 ? untyped : typed;
	if (*type && untyped >= 0 && typed != untyped) {
		char q[128];
		text_quote(q, sizeof q, *type, strlen(*type));
		snprintf(msg, msglen, "gres/gpu=%lld but gres/gpu:%s=%lld", untyped, q, typed);
		return -1;
	}
	if (*gpus == 0)
		*type = NULL;
	return 0;
}

/* ---- time limits (issue 37) ---- */

/* Timelimit as sacct prints it: "[D-]HH:MM:SS", "MM:SS", "UNLIMITED" or "Partition_Limit" (the
 * job asked for none and got the partition's MaxTime, which sacct does not show). The declared
 * rule: a number is the job's time_limit; UNLIMITED and Partition_Limit leave the job without
 * one (a replay plans it with the policy's declared default); each kind is counted. */
enum { LIMIT_GIVEN, LIMIT_UNLIMITED, LIMIT_PARTITION, LIMIT_NONE, NLIMITS };
static const char *const limit_words[NLIMITS] = { "given", "unlimited", "partition_limit", "empty" };

static int parse_limit(const char *s, long long *secs)
{
	*secs = 0;
	if (!*s)
		return LIMIT_NONE;
	if (!strcasecmp(s, "UNLIMITED"))
		return LIMIT_UNLIMITED;
	if (!strcasecmp(s, "Partition_Limit"))
		return LIMIT_PARTITION;
	long long v = parse_elapsed(s);
	if (v < 0 && strspn(s, "0123456789") == strlen(s) && strlen(s) <= 9)
		v = atoll(s) * 60;       /* plain minutes, as --time=M */
	if (v <= 0)
		return -1;
	*secs = v;
	return LIMIT_GIVEN;
}

/* ---- the sacct file ---- */

enum col { C_JOBID, C_SUBMIT, C_START, C_END, C_ELAPSED, C_STATE, C_NNODES, C_ALLOCTRES, C_REQTRES, C_ACCOUNT, C_USER, C_QOS, C_PARTITION, C_CLUSTER,
	   C_TIMELIMIT, NCOLS };
static const char *const col_names[NCOLS] = { "JobID", "Submit", "Start", "End", "Elapsed", "State", "NNodes", "AllocTRES", "ReqTRES",
					      "Account", "User", "QOS", "Partition", "Cluster", "Timelimit" };
#define MAX_FIELDS 256

struct sacct {
	const struct import_slurm_opts *o;
	struct trace *t;
	struct lines l;
	int col[NCOLS];                 /* field index or -1 */
	size_t nfields;
	char *f[MAX_FIELDS + 1];
	struct slurm_jobs jobs;
	unsigned long rows;             /* job rows read (steps and blank lines not counted) */
	const char *tenant_col;         /* NULL: no tenant */
	struct json *kept_states;       /* source.kept_by_final_state */
	struct json *kept_kinds;        /* source.kept_job_kinds */
};

static int header_row(struct sacct *p, char *err, size_t errlen)
{
	char *s = p->l.buf.buf;
	if (!strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	size_t n = split_bar(s, p->f, MAX_FIELDS);
	if (n > MAX_FIELDS) {
		imp_errf(err, errlen, p->l.name, p->l.line, "more than %d fields in the header row", MAX_FIELDS);
		return -1;
	}
	p->nfields = n;
	for (int c = 0; c < NCOLS; c++)
		p->col[c] = -1;
	for (size_t i = 0; i < n; i++) {
		char *name = trim(p->f[i]);
		for (int c = 0; c < NCOLS; c++)
			if (!strcasecmp(name, col_names[c])) {
				if (p->col[c] >= 0) {
					imp_errf(err, errlen, p->l.name, p->l.line, "field '%s' appears twice in the header row", col_names[c]);
					return -1;
				}
				p->col[c] = (int)i;
			}
	}
	static const enum col required[] = { C_JOBID, C_SUBMIT, C_START, C_END, C_STATE };
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (p->col[required[i]] < 0) {
			imp_errf(err, errlen, p->l.name, p->l.line, "missing field '%s' in the header row (sacct -P --format=...: docs/slurm-import.md)",
				 col_names[required[i]]);
			return -1;
		}
	if (p->col[C_ALLOCTRES] < 0 && p->col[C_REQTRES] < 0) {
		imp_errf(err, errlen, p->l.name, p->l.line, "missing field 'AllocTRES' (or 'ReqTRES') in the header row");
		return -1;
	}
	const struct import_slurm_opts *o = p->o;
	int need = o->tenant_from == IMPORT_SLURM_TENANT_ACCOUNT ? C_ACCOUNT : o->tenant_from == IMPORT_SLURM_TENANT_USER ? C_USER : -1;
	if (need >= 0 && p->col[need] < 0) {
		imp_errf(err, errlen, p->l.name, p->l.line, "missing field '%s' in the header row (the tenant comes from it: --tenant-from)", col_names[need]);
		return -1;
	}
	for (size_t i = 0; i < o->n_rules; i++) {
		int c = o->rules[i].field == IMPORT_SLURM_BY_QOS ? C_QOS : o->rules[i].field == IMPORT_SLURM_BY_PARTITION ? C_PARTITION : -1;
		if (c >= 0 && p->col[c] < 0) {
			imp_errf(err, errlen, p->l.name, p->l.line, "missing field '%s' in the header row (a --class rule reads it)", col_names[c]);
			return -1;
		}
	}
	return 0;
}

static const char *field(const struct sacct *p, enum col c)
{
	return p->col[c] >= 0 ? trim(p->f[p->col[c]]) : NULL;
}

/* The tenant as the trace shows it: the name, or its keyed hash ("t-" + 16 hex digits). */
static const char *tenant_of(struct sacct *p, const char *name, char *buf, size_t cap)
{
	if (!p->o->hash_key)
		return name;
	struct fp_sha256 h;
	char hex[FP_HEX_SHA256];
	fp_sha256_init(&h);
	fp_sha256_update(&h, p->o->hash_key, strlen(p->o->hash_key));
	fp_sha256_update(&h, "\n", 1);
	fp_sha256_update(&h, name, strlen(name));
	fp_sha256_hex(&h, hex);
	snprintf(buf, cap, "t-%.16s", hex);
	return buf;
}

/* s for a message: printable, cut to about 80 bytes, so the reason after it is never cut */
#define QUOTE(buf, s) text_quote(buf, sizeof buf, s, strlen(s))

static int job_row(struct sacct *p, char *err, size_t errlen)
{
	struct lines *l = &p->l;
	size_t n = split_bar(l->buf.buf, p->f, p->nfields);
	if (n != p->nfields) {
		imp_errf(err, errlen, l->name, l->line, "expected %zu fields, found %s%zu (a '|' inside a field? leave free-text fields such as JobName out of --format)",
			 p->nfields, n > p->nfields ? "more than " : "", n > p->nfields ? p->nfields : n);
		return -1;
	}
	char q[128], qv[128];
	const char *id = field(p, C_JOBID);
	const char *problem = text_id_problem(id, strlen(id));
	QUOTE(q, id);
	if (problem) {
		imp_errf(err, errlen, l->name, l->line, "JobID '%s' %s", q, problem);
		return -1;
	}
	const char *sep = strpbrk(id, ":@");
	if (sep) {      /* the separators of CLUSTER:JOBID and JOBID@SUBMIT (job_id_of): ids stay unambiguous */
		imp_errf(err, errlen, l->name, l->line,
			 "JobID '%s' holds '%c' (':' and '@' separate the ids written for several clusters, CLUSTER:JOBID, and for a reused JobID, JOBID@SUBMIT; Slurm's own JobIDs have neither)",
			 q, *sep);
		return -1;
	}
	if (strchr(id, '.')) {          /* 123.batch, 123.0, 123_4.extern, 123+1.0 */
		imp_count(&p->t->arena, p->t->skipped_rows, "job_step");
		return 0;
	}
	p->rows++;
	const char *state = field(p, C_STATE);
	int st = imp_slurm_state_index(state);
	if (st < 0) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': unknown State '%s'", q, (QUOTE(qv, state), qv));
		return -1;
	}
	int64_t submit, start = -1, end = -1;
	static const enum col tcols[] = { C_SUBMIT, C_START, C_END };
	int64_t *tv[] = { &submit, &start, &end };
	for (int i = 0; i < 3; i++) {
		int rc = parse_time(field(p, tcols[i]), tv[i]);
		if (rc < 0 || (rc == 0 && i == 0)) {
			imp_errf(err, errlen, l->name, l->line, "job '%s': %s time '%s' is not YYYY-MM-DDTHH:MM:SS or seconds since 1970", q,
				 col_names[tcols[i]], (QUOTE(qv, field(p, tcols[i])), qv));
			return -1;
		}
	}
	if ((start >= 0 && start < submit) || (end >= 0 && start >= 0 && end < start)) {
		/* a clock set back by up to an hour: local time across the end of daylight saving */
		int64_t back = start >= 0 && start < submit ? submit - start : start - end;
		bool iso = strchr(field(p, C_SUBMIT), 'T') != NULL;
		imp_errf(err, errlen, l->name, l->line, "job '%s': times out of order (Submit <= Start <= End)%s", q,
			 iso && back <= 3600 ? " (times in local time across a daylight-saving change? export with TZ=UTC: docs/slurm-import.md)" : "");
		return -1;
	}
	long long elapsed = -1;
	if (p->col[C_ELAPSED] >= 0) {
		const char *e = field(p, C_ELAPSED);
		if ((elapsed = parse_elapsed(e)) < 0) {
			imp_errf(err, errlen, l->name, l->line, "job '%s': Elapsed '%s' is not [D-]HH:MM:SS", q, (QUOTE(qv, e), qv));
			return -1;
		}
	}
	long long nn = -1;
	if (p->col[C_NNODES] >= 0) {
		if (imp_py_int(field(p, C_NNODES), &nn) || nn < 0 || nn > TRACE_MAX_NODE_GPUS) {
			imp_errf(err, errlen, l->name, l->line, "job '%s': NNodes '%s' is not a node count", q, (QUOTE(qv, field(p, C_NNODES)), qv));
			return -1;
		}
	}
	/* GPUs: AllocTRES once the job holds resources, else ReqTRES */
	long long gpus = 0;
	char *type = NULL, msg[400];
	char *alloc = p->col[C_ALLOCTRES] >= 0 ? (char *)field(p, C_ALLOCTRES) : NULL;
	char *tres = alloc && *alloc ? alloc : p->col[C_REQTRES] >= 0 ? (char *)field(p, C_REQTRES) : NULL;
	long long cpu, mem;
	if (tres && parse_tres(tres, &gpus, &type, p->o->resources && tres == alloc, &cpu, &mem, msg, sizeof msg)) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': %s: %s", q, tres == alloc ? "AllocTRES" : "ReqTRES", msg);
		return -1;
	}
	/* Slurm gives a job cancelled while pending Start = End and no AllocTRES: a job that
	 * never held resources never started, whatever Start says */
	if (alloc && !*alloc)
		start = -1;
	long long limit = 0;
	int limit_kind = LIMIT_NONE;
	if (p->col[C_TIMELIMIT] >= 0 && (limit_kind = parse_limit(field(p, C_TIMELIMIT), &limit)) < 0) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': Timelimit '%s' is not [D-]HH:MM:SS, minutes, UNLIMITED or Partition_Limit", q,
			 (QUOTE(qv, field(p, C_TIMELIMIT)), qv));
		return -1;
	}
	const char *tname = p->tenant_col ? field(p, p->o->tenant_from == IMPORT_SLURM_TENANT_ACCOUNT ? C_ACCOUNT : C_USER) : NULL;
	if (tname && *tname && (problem = text_id_problem(tname, strlen(tname)))) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': %s '%s' %s", q, p->tenant_col, (QUOTE(qv, tname), qv), problem);
		return -1;
	}
	const char *cluster = p->col[C_CLUSTER] >= 0 ? field(p, C_CLUSTER) : "";
	if (p->col[C_CLUSTER] >= 0 && !*cluster) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': Cluster is empty (the export has a Cluster column, so each job row names its cluster; sacct -M all fills it)", q);
		return -1;
	}
	if (*cluster && (problem = text_id_problem(cluster, strlen(cluster)))) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': Cluster '%s' %s", q, (QUOTE(qv, cluster), qv), problem);
		return -1;
	}
	if (strchr(cluster, ':')) {
		imp_errf(err, errlen, l->name, l->line, "job '%s': Cluster '%s' holds ':' (it separates CLUSTER:JOBID in the ids written for several clusters; Slurm's cluster names have none)", q,
			 (QUOTE(qv, cluster), qv));
		return -1;
	}
	struct slurm_jobs *jobs = &p->jobs;
	struct slurm_rec *r = imp_slurm_add_rec(jobs, cluster, id);
	r->submit = submit;
	r->start = start;
	r->end = end;
	r->elapsed = elapsed;
	r->state = st;
	r->line = l->line;
	r->gpus = gpus;
	r->model = type ? imp_slurm_intern(jobs, type) : "*";
	char hbuf[24];
	r->tenant = tname && *tname ? imp_slurm_intern(jobs, tenant_of(p, tname, hbuf, sizeof hbuf)) : NULL;
	r->qos = p->col[C_QOS] >= 0 ? imp_slurm_intern(jobs, field(p, C_QOS)) : "";
	r->partition = p->col[C_PARTITION] >= 0 ? imp_slurm_intern(jobs, field(p, C_PARTITION)) : "";
	r->limit = limit;
	r->limit_word = limit_words[limit_kind];
	r->cpu = tres ? cpu : -1;
	r->mem = tres ? mem : -1;
	r->nnodes = nn;
	r->user = p->col[C_USER] >= 0 ? imp_slurm_intern(jobs, field(p, C_USER)) : "";
	r->account = p->col[C_ACCOUNT] >= 0 ? imp_slurm_intern(jobs, field(p, C_ACCOUNT)) : "";
	return 0;
}

static int read_sacct(struct sacct *p, const char *path, const struct trace_caps *caps, struct json *hdr, struct arena *a, char sha[65], char *err, size_t errlen)
{
	int rc;
	p->l.z = zr_open(path, true, err, errlen);
	if (!p->l.z)
		return -1;
	p->l.name = zr_name(p->l.z);
	if ((rc = imp_slurm_next_line(&p->l, err, errlen)) <= 0) {
		if (rc == 0)
			snprintf(err, errlen, "%s: empty file: expected the header row of sacct -P", p->l.name);
		return -1;
	}
	if (header_row(p, err, errlen))
		return -1;
	if (p->col[C_TIMELIMIT] >= 0) {
		p->jobs.limit_kinds = json_object(&p->t->arena);
		for (int k = 0; k < NLIMITS; k++)
			imp_reason(&p->t->arena, p->jobs.limit_kinds, limit_words[k]);
	}
	while ((rc = imp_slurm_next_line(&p->l, err, errlen)) > 0) {
		if (!p->l.buf.buf[strspn(p->l.buf.buf, " \t")])
			continue;       /* a blank line */
		if (job_row(p, err, errlen))
			return -1;
	}
	if (rc < 0 || imp_slurm_finish_jobs(&p->jobs, p->o, p->t, caps, p->l.name, p->tenant_col, p->rows, p->kept_states, p->kept_kinds, err, errlen))
		return -1;
	imp_record_file(p->l.z, a, hdr, path, sha);
	return 0;
}

/* ---- the importer ---- */

static const char *const field_words[] = { "qos", "partition", "*" };

int trace_import_slurm(const struct import_slurm_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen)
{
	static const char *const tenant_words[] = { "none", "account", "user" };
	imp_param(a, hdr, "format", json_str(a, "slurm"));
	imp_param(a, hdr, "jobs", json_str(a, o->jobs));
	imp_param(a, hdr, "nodes", json_str(a, o->nodes));
	struct json *rules = json_array(a);
	for (size_t i = 0; i < o->n_rules; i++) {
		const struct import_slurm_rule *u = &o->rules[i];
		imp_push_rule(a, rules, u->field != IMPORT_SLURM_BY_ANY ? field_words[u->field] : NULL, u->value, u->hp);
	}
	imp_param(a, hdr, "class", rules);
	imp_param(a, hdr, "tenant_from", json_str(a, tenant_words[o->tenant_from]));
	imp_param(a, hdr, "hash_tenants", json_bool(a, o->hash_key != NULL));   /* never the key */
	if (o->het_split)
		imp_param(a, hdr, "hetjob", json_str(a, "split"));
	if (o->resources)
		imp_param(a, hdr, "resources", json_bool(a, true));

	t->version = o->tenant_from == IMPORT_SLURM_TENANT_NONE ? 1 : 2;
	t->trace_id = trace_strdup(t, "slurm");
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		imp_reason(&t->arena, t->skipped_rows, reasons[i]);
	char nodes_sha[65], jobs_sha[65];
	struct sacct p;
	struct trace_caps caps = { 0 };
	memset(&p, 0, sizeof p);
	p.o = o;
	p.t = t;
	p.tenant_col = o->tenant_from == IMPORT_SLURM_TENANT_ACCOUNT ? "Account" : o->tenant_from == IMPORT_SLURM_TENANT_USER ? "User" : NULL;
	p.kept_states = json_object(&t->arena);
	p.kept_kinds = json_object(&t->arena);
	imp_reason(&t->arena, p.kept_kinds, "array_tasks");
	imp_reason(&t->arena, p.kept_kinds, "heterogeneous_components");
	if (!o->het_split)
		imp_reason(&t->arena, p.kept_kinds, "heterogeneous_jobs");
	imp_reason(&t->arena, p.kept_kinds, "requeued_jobs");
	sb_init(&p.l.buf);
	p.jobs.strings = &t->arena;
	int rc = IMPORT_DATA_ERROR;
	if (imp_slurm_read_nodes(t, o->nodes, o->resources, hdr, a, nodes_sha, err, errlen))
		goto out;
	trace_caps_build(&caps, t);
	if (read_sacct(&p, o->jobs, &caps, hdr, a, jobs_sha, err, errlen))
		goto out;

	struct arena *ta = &t->arena;
	struct json *s = t->source, *m = json_object(ta), *tm = json_object(ta);
	imp_provenance(ta, s, "dataset", "Slurm accounting: sacct -P and scontrol show node -o", "sacct_sha256", jobs_sha, "nodes_sha256",
		       nodes_sha, (char *)NULL);
	imp_provenance(ta, m, "mode", "declared_rules", (char *)NULL);
	json_set(ta, m, "rules", json_clone(ta, rules));
	json_set(ta, m, "semantics", json_str(ta, "each job takes the class of the first rule that matches its QOS or partition; a job no rule matches stops the import"));
	json_set(ta, s, "service_class_mapping", m);
	json_set(ta, tm, "from", json_str(ta, tenant_words[o->tenant_from]));
	json_set(ta, tm, "hashed", json_bool(ta, o->hash_key != NULL));
	if (o->hash_key)
		json_set(ta, tm, "method", json_str(ta, "t- and the first 16 hex digits of SHA-256(key, a newline, the name); the key is not recorded"));
	json_set(ta, s, "tenant_mapping", tm);
	json_set(ta, s, "duration_semantics", json_str(ta, "the final attempt's Elapsed (End - Start without suspended time); earlier attempts of a requeued job are not part of it"));
	json_set(ta, s, "submit_semantics", json_str(ta, "the earliest Submit over every record of the job id, less the earliest over the jobs kept (time_origin, sacct's clock as written)"));
	json_set(ta, s, "kept_by_final_state", p.kept_states);
	json_set(ta, s, "kept_job_kinds", p.kept_kinds);
	if (p.jobs.limit_kinds) {
		json_set(ta, s, "time_limit_semantics", json_str(ta, "Timelimit of the final record in whole seconds; UNLIMITED, Partition_Limit and an empty cell give no time_limit"));
		json_set(ta, s, "time_limits", p.jobs.limit_kinds);
	}
	if (o->resources) {
		struct json *rs = json_object(ta);
		json_set(ta, rs, "semantics", json_str(ta, "AllocTRES cpu and mem (MiB, sacct's units in powers of 1024, rounded) over NNodes workers (1 without the "
							   "column), each worker gpus / NNodes GPUs; a job whose GPUs, CPUs or memory NNodes does not divide evenly, "
							   "and a joined heterogeneous job, get no resource fields; nodes: CPUTot x 1000 and RealMemory when scontrol shows them"));
		json_set(ta, rs, "jobs_with_resources", json_int(ta, p.jobs.res_kept));
		json_set(ta, rs, "jobs_uneven", json_int(ta, p.jobs.res_uneven));
		json_set(ta, s, "resources", rs);
	}
	rc = 0;
out:
	trace_caps_release(&caps);
	imp_slurm_lines_close(&p.l);
	imp_slurm_jobs_release(&p.jobs);
	return rc;
}
