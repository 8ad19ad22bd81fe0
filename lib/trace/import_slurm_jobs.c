/* slurm jobs — sacct's records become jobs, whatever the order of the rows. Records are
 * keyed by (Cluster, JobID). Within a key, the rows of one attempt (one Submit: Slurm gives
 * a requeued job a new Submit) reduce to the most advanced one (a finished state over a
 * running one over a pending one; an exact copy is one row). Attempts in Submit order are
 * one requeued job while the earlier attempt ended requeued (REQUEUED, PREEMPTED,
 * NODE_FAIL, REQUEUE_HOLD, REQUEUE_FED) by the same user and account; anything else is
 * another job that reuses the id (Slurm wraps JobIDs at MaxJobId). docs/slurm-import.md. */
#include "trace/import.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "trace/import_slurm_internal.h"
#include "trace/import_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; enum slurm_rule rule; bool requeue; } states[] = {
	{ "BOOT_FAIL", SLURM_RAN, false }, { "CANCELLED", SLURM_RAN, false }, { "COMPLETED", SLURM_RAN, false },
	{ "DEADLINE", SLURM_RAN, false }, { "FAILED", SLURM_RAN, false }, { "NODE_FAIL", SLURM_RAN, true },
	{ "OUT_OF_MEMORY", SLURM_RAN, false }, { "PREEMPTED", SLURM_RAN, true }, { "REVOKED", SLURM_RAN, false },
	{ "TIMEOUT", SLURM_RAN, false }, { "PENDING", SLURM_PENDING, false }, { "REQUEUED", SLURM_PENDING, true },
	{ "REQUEUE_FED", SLURM_PENDING, true }, { "REQUEUE_HOLD", SLURM_PENDING, true }, { "SPECIAL_EXIT", SLURM_PENDING, false },
	{ "COMPLETING", SLURM_RUNNING, false }, { "CONFIGURING", SLURM_RUNNING, false }, { "RESIZING", SLURM_RUNNING, false },
	{ "RUNNING", SLURM_RUNNING, false }, { "SIGNALING", SLURM_RUNNING, false }, { "STAGE_OUT", SLURM_RUNNING, false },
	{ "STOPPED", SLURM_RUNNING, false }, { "SUSPENDED", SLURM_RUNNING, false },
};
#define NSTATES (sizeof states / sizeof *states)

int imp_slurm_state_index(const char *s)
{
	size_t n = strcspn(s, " ");
	for (size_t i = 0; i < NSTATES; i++)
		if (strlen(states[i].name) == n && !strncmp(states[i].name, s, n))
			return (int)i;
	return -1;
}

const char *imp_slurm_state_name(int state)
{
	return states[state].name;
}

void imp_slurm_format_time(int64_t t, char sep, char *buf, size_t cap)
{
	int64_t days = t / 86400, rem = t % 86400;
	int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
	snprintf(buf, cap, "%04lld-%02d-%02d%c%02d:%02d:%02d", (long long)(yoe + era * 400 + (m <= 2)), m, d, sep, (int)(rem / 3600),
		 (int)(rem / 60 % 60), (int)(rem % 60));
}

/* ---- the record store ---- */

static uint64_t hash(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}
#define HASH0 1469598103934665603ULL

static char *keep(struct slurm_jobs *j, const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(arena_alloc(j->strings, n), s, n);
}

/* One copy of each model, tenant, QOS, partition, user, account and cluster name. */
const char *imp_slurm_intern(struct slurm_jobs *j, const char *s)
{
	if (2 * (j->nnames + 1) > j->cap_names) {
		size_t cap = j->cap_names ? j->cap_names * 2 : 256;
		const char **names = xcalloc(cap, sizeof *names);
		for (size_t i = 0; i < j->cap_names; i++)
			if (j->names[i]) {
				size_t k = hash(j->names[i], HASH0) & (cap - 1);
				while (names[k])
					k = (k + 1) & (cap - 1);
				names[k] = j->names[i];
			}
		free(j->names);
		j->names = names;
		j->cap_names = cap;
	}
	size_t k = hash(s, HASH0) & (j->cap_names - 1);
	while (j->names[k]) {
		if (!strcmp(j->names[k], s))
			return j->names[k];
		k = (k + 1) & (j->cap_names - 1);
	}
	j->nnames++;
	return j->names[k] = keep(j, s);
}

/* A slot keeps the key's hash, so a probe reads a record only when the hashes agree. */
struct slurm_rec *imp_slurm_add_rec(struct slurm_jobs *j, const char *cluster, const char *id)
{
	if (2 * (j->n + 1) > j->nslot) {
		size_t ns = j->nslot ? j->nslot * 2 : 1024;
		struct slurm_slot *slot = xcalloc_large(ns, sizeof *slot);
		for (size_t i = 0; i < j->nslot; i++)
			if (j->slot[i].index) {
				size_t k = j->slot[i].hash & (ns - 1);
				while (slot[k].index)
					k = (k + 1) & (ns - 1);
				slot[k] = j->slot[i];
			}
		free(j->slot);
		j->slot = slot;
		j->nslot = ns;
	}
	cluster = imp_slurm_intern(j, cluster);
	if (*cluster && cluster != j->a_cluster && j->clusters < 2) {
		j->clusters++;
		j->a_cluster = cluster;
	}
	uint64_t h = hash(id, hash(cluster, HASH0) ^ 0x9e3779b97f4a7c15ULL);
	size_t k = h & (j->nslot - 1), first = 0;
	while (j->slot[k].index) {
		struct slurm_rec *f = &j->r[j->slot[k].index - 1];
		if (j->slot[k].hash == h && f->cluster == cluster && !strcmp(f->id, id)) {
			first = j->slot[k].index;
			break;
		}
		k = (k + 1) & (j->nslot - 1);
	}
	j->r = xgrow_large(j->r, &j->cap, j->n + 1, sizeof *j->r);
	struct slurm_rec *r = &j->r[j->n++];
	memset(r, 0, sizeof *r);
	r->cluster = cluster;
	if (first) {
		struct slurm_rec *f = &j->r[first - 1];
		r->id = f->id;
		r->prev = f->tail;
		f->tail = j->n;
	} else {
		r->id = keep(j, id);
		r->first = true;
		r->tail = j->n;
		j->slot[k].hash = h;
		j->slot[k].index = j->n;
	}
	return r;
}

void imp_slurm_jobs_release(struct slurm_jobs *j)
{
	free(j->r);
	free(j->slot);
	free(j->names);
}

/* ---- one key's records ---- */

static int progress(const struct slurm_rec *r)
{
	return states[r->state].rule == SLURM_RAN ? 2 : states[r->state].rule == SLURM_RUNNING ? 1 : 0;
}

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)
static int strcmp0(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* A total order on the content of a key's records: Submit, then how far the attempt got,
 * then every other field, so the order of the rows in the file never matters. */
static int rec_cmp(const void *pa, const void *pb)
{
	const struct slurm_rec *a = *(const struct slurm_rec *const *)pa, *b = *(const struct slurm_rec *const *)pb;
	CMP(a->submit, b->submit);
	CMP(progress(a), progress(b));
	CMP(a->end, b->end);
	CMP(a->start, b->start);
	CMP(a->elapsed, b->elapsed);
	CMP(a->gpus, b->gpus);
	CMP(a->state, b->state);
	int c;
	if ((c = strcmp0(a->model, b->model)) || (c = strcmp0(a->tenant, b->tenant)) || (c = strcmp0(a->qos, b->qos)) ||
	    (c = strcmp0(a->partition, b->partition)) || (c = strcmp0(a->user, b->user)) || (c = strcmp0(a->account, b->account)))
		return c;
	CMP(b->line, a->line);          /* an exact copy: the first row in the file is the one reported */
	return 0;
}

struct builder {
	struct trace *t;
	const struct import_slurm_opts *o;
	const struct trace_caps *caps;
	const char *path, *tenant_col;
	struct json *kept_states, *kept_kinds;
	size_t kept_first;
	unsigned long no_gpus;
	const struct slurm_rec **fin;   /* the final record of each job kept */
	long long res_uneven;           /* issue 36: jobs whose NNodes does not divide their resources */
};

/* issue 36 (--resources): the job's AllocTRES cpu and mem split over its NNodes workers (one
 * without the column), when GPUs, CPUs and memory all divide evenly; else no fields. */
static void job_resources(struct builder *b, struct trace_job *j, const struct slurm_rec *r)
{
	if (r->cpu < 0 && r->mem < 0)
		return;
	long long w = r->nnodes > 0 ? r->nnodes : 1;
	if (r->gpus % w || (r->cpu >= 0 && (r->cpu * 1000) % w) || (r->mem >= 0 && r->mem % w)) {
		b->res_uneven++;
		return;
	}
	j->workers = w;
	j->res = TRACE_RES_WORKERS;
	if (r->cpu >= 0) {
		j->cpu_milli = r->cpu * 1000 / w;
		j->res |= TRACE_RES_CPU;
	}
	if (r->mem >= 0) {
		j->memory_mib = r->mem / w;
		j->res |= TRACE_RES_MEM;
	}
}

/* The class of a record by the first declared rule that matches: 1 HP, 0 Spot, -1 none. */
static int class_of(const struct import_slurm_opts *o, const struct slurm_rec *r)
{
	for (size_t i = 0; i < o->n_rules; i++) {
		const struct import_slurm_rule *u = &o->rules[i];
		if (u->field == IMPORT_SLURM_BY_ANY || (u->field == IMPORT_SLURM_BY_QOS && !strcmp(u->value, r->qos)) ||
		    (u->field == IMPORT_SLURM_BY_PARTITION && !strcmp(u->value, r->partition)))
			return u->hp;
	}
	return -1;
}

/* One job: its final attempt r through the state rules; first_submit from its first
 * attempt, attempts how many there were, id the job id to write. */
static int one_job(struct builder *b, const struct slurm_rec *r, int64_t first_submit, size_t attempts, const char *id, char *err, size_t errlen)
{
	struct trace *t = b->t;
	const char *name = states[r->state].name;
	char q[128];
	text_quote(q, sizeof q, id, strlen(id));
	if (states[r->state].rule != SLURM_RAN) {
		imp_count(&t->arena, t->skipped_rows, states[r->state].rule == SLURM_PENDING ? "pending_at_end" : "running_at_end");
		return 0;
	}
	if (r->start < 0) {
		imp_count(&t->arena, t->skipped_rows, !strcmp(name, "CANCELLED") ? "cancelled_before_start" : "never_started");
		return 0;
	}
	if (r->end < 0) {
		imp_errf(err, errlen, b->path, r->line, "job '%s': State %s with a Start time but no End time", q, name);
		return -1;
	}
	long long run = r->end - r->start;
	if (r->elapsed >= 0) {
		/* Elapsed leaves out suspended time; it can never exceed End - Start */
		if (r->elapsed > run) {
			imp_errf(err, errlen, b->path, r->line, "job '%s': Elapsed %llds is longer than End - Start (%llds)%s", q, r->elapsed, run,
				 (r->elapsed - run == 3600 || r->elapsed - run == 1800) ? " (times in local time across a daylight-saving change? export with TZ=UTC: docs/slurm-import.md)" : "");
			return -1;
		}
		run = r->elapsed;
	}
	if (run == 0) {
		imp_count(&t->arena, t->skipped_rows, "zero_run_time");
		return 0;
	}
	if (r->gpus == 0) {
		imp_count(&t->arena, t->skipped_rows, "no_gpus");
		b->no_gpus++;
		return 0;
	}
	int cls = class_of(b->o, r);
	if (cls < 0) {
		imp_errf(err, errlen, b->path, r->line, "job '%s': no --class rule for QOS '%s', partition '%s' (declare one; there is no default)", q, r->qos,
			 r->partition);
		return -1;
	}
	if (b->tenant_col && !r->tenant) {
		imp_errf(err, errlen, b->path, r->line, "job '%s': empty %s (the tenant; --tenant-from none writes no tenants)", q, b->tenant_col);
		return -1;
	}
	struct trace_job *j = trace_add_job(t);
	j->id = (char *)id;             /* in t->arena already */
	j->submit = (double)first_submit;       /* made relative by the caller */
	j->submit_int = j->duration_int = j->gpus_int = true;
	j->duration = (double)run;
	j->gpus = (double)r->gpus;
	j->hp = cls == 1;
	j->model = (char *)r->model;
	j->tenant = (char *)r->tenant;
	j->time_limit = r->limit;
	if (b->o->resources)
		job_resources(b, j, r);
	if (imp_job_check(t, b->caps, j, b->path, r->line, err, errlen))
		return -1;
	b->fin[t->n_jobs - 1 - b->kept_first] = r;
	imp_count(&t->arena, b->kept_states, name);
	if (strchr(r->id, '_'))
		imp_count(&t->arena, b->kept_kinds, "array_tasks");
	if (strchr(r->id, '+'))
		imp_count(&t->arena, b->kept_kinds, "heterogeneous_components");
	if (attempts > 1)
		imp_count(&t->arena, b->kept_kinds, "requeued_jobs");
	return 0;
}

/* The job id to write: CLUSTER:JOBID when the export names several clusters, and
 * @SUBMIT (the job's first Submit) when the key holds several jobs. */
static const char *job_id_of(struct slurm_jobs *jobs, const struct slurm_rec *r, int64_t first_submit, bool reused)
{
	if (jobs->clusters < 2 && !reused)
		return r->id;
	char ts[32] = "";
	if (reused)
		imp_slurm_format_time(first_submit, 'T', ts, sizeof ts);
	size_t n = strlen(r->cluster) + strlen(r->id) + strlen(ts) + 3;
	char *s = arena_alloc(jobs->strings, n);
	snprintf(s, n, "%s%s%s%s%s", jobs->clusters >= 2 ? r->cluster : "", jobs->clusters >= 2 ? ":" : "", r->id, reused ? "@" : "", ts);
	return s;
}

static bool continues(const struct slurm_rec *prev, const struct slurm_rec *next)
{
	return states[prev->state].requeue && prev->user == next->user && prev->account == next->account;
}

/* One key's records (v[0..n), sorted) into attempts and jobs. */
static int one_key(struct builder *b, struct slurm_jobs *jobs, struct slurm_rec **v, size_t n, char *err, size_t errlen)
{
	struct trace *t = b->t;
	/* the attempts: the last (most advanced) record of each Submit */
	size_t na = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1]->submit == v[i]->submit) {
			imp_count(&t->arena, t->skipped_rows, "duplicate_record");
			continue;
		}
		v[na++] = v[i];
	}
	size_t njobs = 1;
	for (size_t i = 1; i < na; i++)
		njobs += !continues(v[i - 1], v[i]);
	for (size_t i = 0; i < na;) {
		size_t k = i + 1;
		while (k < na && continues(v[k - 1], v[k]))
			k++;
		for (size_t e = i + 1; e < k; e++)
			imp_count(&t->arena, t->skipped_rows, "requeued_earlier_record");
		const char *id = job_id_of(jobs, v[k - 1], v[i]->submit, njobs > 1);
		if (one_job(b, v[k - 1], v[i]->submit, k - i, id, err, errlen))
			return -1;
		if (njobs > 1 && t->n_jobs > b->kept_first && t->jobs[t->n_jobs - 1].id == id)
			imp_count(&t->arena, b->kept_kinds, "reused_job_ids");
		i = k;
	}
	return 0;
}

/* Every kept job within SLURM_MAX_SPAN_SECONDS of the earliest Submit (item: a row dated
 * 9999 would make the replay's span, and a controller's work, absurd). */
static int check_span(struct builder *b, int64_t *origin, char *err, size_t errlen)
{
	struct trace *t = b->t;
	const struct slurm_rec **fin = b->fin;
	size_t lo = b->kept_first, hi = b->kept_first;
	for (size_t i = b->kept_first; i < t->n_jobs; i++) {
		int64_t s = (int64_t)t->jobs[i].submit, e = fin[i - b->kept_first]->end;
		if (s < (int64_t)t->jobs[lo].submit || (s == (int64_t)t->jobs[lo].submit && strcmp(t->jobs[i].id, t->jobs[lo].id) < 0))
			lo = i;
		int64_t he = fin[hi - b->kept_first]->end;
		if (e > he || (e == he && strcmp(t->jobs[i].id, t->jobs[hi].id) < 0))
			hi = i;
	}
	*origin = (int64_t)t->jobs[lo].submit;
	const struct slurm_rec *h = fin[hi - b->kept_first], *l = fin[lo - b->kept_first];
	if (h->end - *origin > SLURM_MAX_SPAN_SECONDS) {
		char a[32], z[32], qh[128], ql[128];
		imp_slurm_format_time(h->end, 'T', z, sizeof z);
		imp_slurm_format_time(*origin, 'T', a, sizeof a);
		text_quote(qh, sizeof qh, t->jobs[hi].id, strlen(t->jobs[hi].id));
		text_quote(ql, sizeof ql, t->jobs[lo].id, strlen(t->jobs[lo].id));
		imp_errf(err, errlen, b->path, h->line,
			 "job '%s' ends at %s, %.1f years after the earliest Submit (%s, job '%s' at line %lu): an export spans at most %lld days "
			 "(a wrong date? docs/slurm-import.md)",
			 qh, z, (double)(h->end - *origin) / (365.25 * 86400), a, ql, l->line, SLURM_MAX_SPAN_SECONDS / 86400);
		return -1;
	}
	return 0;
}

int imp_slurm_finish_jobs(struct slurm_jobs *jobs, const struct import_slurm_opts *o, struct trace *t, const struct trace_caps *caps,
		      const char *path, const char *tenant_col, unsigned long rows, struct json *kept_states, struct json *kept_kinds,
		      char *err, size_t errlen)
{
	const struct slurm_rec **fin = xcalloc_large(jobs->n + 1, sizeof *fin);
	struct builder b = { t, o, caps, path, tenant_col, kept_states, kept_kinds, t->n_jobs, 0, fin, 0 };
	struct slurm_rec **v = NULL;
	size_t cap = 0;
	int rc = -1;
	trace_reserve_jobs(t, jobs->n);         /* at most one job per record: one block, no copies */
	for (size_t i = 0; i < jobs->n; i++) {
		struct slurm_rec *f = &jobs->r[i];
		if (!f->first)
			continue;
		size_t n = 0;
		for (size_t k = f->tail; k; k = jobs->r[k - 1].prev) {
			v = xgrow_large(v, &cap, n + 1, sizeof *v);
			v[n++] = &jobs->r[k - 1];
		}
		if (n > 1)
			qsort(v, n, sizeof *v, rec_cmp);
		if (one_key(&b, jobs, v, n, err, errlen))
			goto out;
	}
	if (t->n_jobs == b.kept_first) {
		if (rows == 0)
			snprintf(err, errlen, "%s: no job rows: the file holds only sacct's header row (no job in the range? widen --starttime/--endtime)", path);
		else if (b.no_gpus && b.no_gpus * 2 >= rows)
			snprintf(err, errlen,
				 "%s: no job kept: %lu of the jobs have no gres/gpu in AllocTRES or ReqTRES (is GPU accounting off? Slurm records GPUs only with "
				 "AccountingStorageTRES=gres/gpu in slurm.conf)",
				 path, b.no_gpus);
		else
			snprintf(err, errlen, "%s: no job kept (every row was skipped: see the state rules in docs/slurm-import.md)", path);
		goto out;
	}
	int64_t origin;
	if (check_span(&b, &origin, err, errlen))
		goto out;
	for (size_t i = b.kept_first; i < t->n_jobs; i++)
		t->jobs[i].submit -= (double)origin;
	if (jobs->limit_kinds)
		for (size_t i = b.kept_first; i < t->n_jobs; i++)
			imp_count(&t->arena, jobs->limit_kinds, fin[i - b.kept_first]->limit_word);
	if (!o->het_split)
		imp_slurm_join_hetjobs(t, b.kept_first, kept_kinds);
	jobs->res_uneven = b.res_uneven;
	for (size_t i = b.kept_first; i < t->n_jobs; i++)
		jobs->res_kept += t->jobs[i].res != 0;
	char buf[32];
	imp_slurm_format_time(origin, ' ', buf, sizeof buf);
	t->time_origin = trace_strdup(t, buf);
	rc = 0;
out:
	free(v);
	free(fin);
	return rc;
}
