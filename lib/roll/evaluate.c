/* evaluate — one scenario evaluation from the live state at a cutoff (docs/rolling.md "One
 * decision"): the frozen-quota gate, the in-memory snapshot and the fork()ed evaluators,
 * both giving the same bytes, and the roll_engine callbacks bound to a session. */
#include "roll/session.h"
#include "core/clock.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/metrics.h"
#include "roll/session_internal.h"
#include "sim/result.h"
#include "sim/result_read.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* ---- the frozen-quota gate of a scenario ---- */

struct frozen_gate {
	double start, end;
	long long quota;               /* the aggregate quota of the candidate's horizon */
};

static bool frozen_active(const struct frozen_gate *g, double now)
{
	return now + SIM_EPS >= g->start && now < g->end;
}

static double frozen_limit(void *ctx, const struct sim *s, int model)
{
	struct frozen_gate *g = ctx;
	(void)model;
	return frozen_active(g, sim_now(s)) ? (double)g->quota - sim_running_spot_gpus(s) + SIM_EPS : INFINITY;
}

static bool frozen_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct frozen_gate *g = ctx;
	return !frozen_active(g, sim_now(s)) || sim_running_spot_gpus(s) + j->gpu <= (double)g->quota + SIM_EPS;
}

static double frozen_wakeup(void *ctx, const struct sim *s, double after)
{
	struct frozen_gate *g = ctx;
	(void)s;
	return g->end > after ? g->end : INFINITY;
}

/* The frozen quota for guarantee g: the smallest horizon >= max(1, ceil(g / 3600)). */
static int frozen_quota(const struct roll_projection *p, long long g, long long *out)
{
	long long need = g <= 3600 ? 1 : (g + 3599) / 3600;
	for (size_t i = 0; i < p->n_quota; i++)
		if (p->quota[i].hour >= need) {
			*out = p->quota[i].gpus;
			return 0;
		}
	return -1;
}

/* ---- a scenario evaluation in a fork()ed child ---- */

struct scenario_out {
	struct trace t;                /* population jobs (+ referenced triggers), shared strings */
	struct sim_output o;
};

static int index_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

enum { RO_POP = 1, RO_KEEP = 2 };

/* kept[0..k) ascending (distinct indices): the population's npop come in slot order, often
 * ascending already, and the triggers after them are few; sort the triggers alone and merge
 * then, else sort all (the same order either way). */
static void sort_kept(size_t *kept, size_t npop, size_t k)
{
	bool sorted = true;
	for (size_t x = 1; x < npop && sorted; x++)
		sorted = kept[x - 1] < kept[x];
	if (!sorted) {
		qsort(kept, k, sizeof *kept, index_cmp);
		return;
	}
	size_t nt = k - npop;
	if (!nt)
		return;
	qsort(kept + npop, nt, sizeof *kept, index_cmp);
	size_t *t = xmalloc(nt * sizeof *t);
	memcpy(t, kept + npop, nt * sizeof *t);
	/* merge from the back: kept[0..npop) and t[0..nt) into kept[0..k) */
	size_t i = npop, j = nt, o = k;
	while (j > 0) {
		if (i > 0 && kept[i - 1] > t[j - 1])
			kept[--o] = kept[--i];
		else
			kept[--o] = t[--j];
	}
	free(t);
}

/* What the horizon left open in the scenario population (the result's source names it). */
struct roll_censoring {
	double end;
	size_t hp_jobs, hp_not_started, spot_jobs, spot_runs;
};

/* Keep the scenario population (and the HP jobs their evictions name) as a small result,
 * read from the session stopped at the scenario's horizon: only the kept jobs' results are computed. The kept jobs
 * are listed and sorted, so the cost follows the scenario, not the trace's job count; the
 * flags and the index map are the session's, and only the kept jobs' entries are touched
 * (and the flags cleared again). */
static void restrict_output(struct roll_live *l, struct sim *s, const struct trace *exec, const struct roll_scenario *sc,
			    struct scenario_out *r, struct roll_censoring *cen)
{
	const struct sim_output *o = sim_output_so_far(s);
	size_t n = sim_job_count(s);
	if (l->ro_cap < n + 1) {
		free(l->ro_flag);
		free(l->ro_map);
		free(l->ro_kept);
		l->ro_flag = xcalloc(n + 1, sizeof *l->ro_flag);
		l->ro_map = xmalloc((n + 1) * sizeof *l->ro_map);
		l->ro_kept = xmalloc((n + 1) * sizeof *l->ro_kept);
		l->ro_cap = n + 1;
	}
	unsigned char *flag = l->ro_flag;
	size_t *map = l->ro_map, *kept = l->ro_kept;
	struct sim_job_result res;
	size_t k = sim_population_indices(s, kept);
	for (size_t x = 0; x < k; x++)
		flag[kept[x]] = RO_POP | RO_KEEP;
	size_t npop = k;
	for (size_t i = 0; i < o->n_events; i++)
		if ((flag[o->events[i].victim] & RO_POP) && !(flag[o->events[i].trigger] & RO_KEEP)) {
			flag[o->events[i].trigger] |= RO_KEEP;
			kept[k++] = o->events[i].trigger;
		}
	sort_kept(kept, npop, k);
	memset(r, 0, sizeof *r);
	trace_init(&r->t);
	r->t.version = exec->version;
	r->t.time_origin = exec->time_origin;
	r->t.nodes = exec->nodes;
	r->t.n_nodes = exec->n_nodes;
	r->t.has_window = true;
	r->t.eval_start = sc->cut;
	r->t.eval_end = sc->cut + (double)sc->horizon;
	r->t.jobs = xcalloc(k + 1, sizeof *r->t.jobs);
	r->o = *o;
	r->o.jobs = xcalloc(k + 1, sizeof *r->o.jobs);
	/* The horizon closes what is still open at cut + H (docs/rolling.md "Scenarios end at
	 * their horizon"): a job not done completes there (its JCT is cut + H - submit), a job
	 * not started starts there, a queued job's wait runs to cut + H; a Spot run still
	 * running closes there as not evicted, its guarantee not failed. */
	double end = sc->cut + (double)sc->horizon;
	struct sim_job_state js;
	size_t n_open = 0;
	memset(cen, 0, sizeof *cen);
	cen->end = end;
	for (size_t x = 0; x < k; x++) {
		size_t i = kept[x];
		map[i] = x;
		r->t.jobs[x] = *sim_job_trace(s, i);
		sim_job_result_of(s, i, &res);
		sim_job_state(s, i, &js);
		if (!js.done) {
			const struct trace_job *tj = sim_job_trace(s, i);
			double since = js.queued ? js.queued_since : tj->submit;
			if (!js.running)
				res.queue_seconds = js.queue_seconds + (end > since ? end - since : 0.0);
			if (!(js.runs > 0))
				res.start = end;
			res.completion = end;
			/* its duration: the time it was in service by cut + H, so that nothing of the
			 * result depends on work past the horizon */
			r->t.jobs[x].duration = (end - tj->submit) - res.queue_seconds;
			if (flag[i] & RO_POP) {
				if (tj->hp)
					cen->hp_jobs++, cen->hp_not_started += !(js.runs > 0);
				else
					cen->spot_jobs++;
				n_open += js.running && !tj->hp;
			}
		}
		r->o.jobs[x] = res;
	}
	r->t.n_jobs = r->o.n_jobs = k;
	r->o.runs = xcalloc(o->n_runs + n_open + 1, sizeof *r->o.runs);
	r->o.n_runs = 0;
	for (size_t i = 0; i < o->n_runs; i++)
		if (flag[o->runs[i].job] & RO_POP) {
			r->o.runs[r->o.n_runs] = o->runs[i];
			r->o.runs[r->o.n_runs++].job = map[o->runs[i].job];
		}
	for (size_t x = 0; x < k && n_open; x++) {   /* the open runs, in job order after the closed ones */
		size_t i = kept[x];
		sim_job_state(s, i, &js);
		if (!(flag[i] & RO_POP) || !js.running || sim_job_trace(s, i)->hp)
			continue;
		r->o.runs[r->o.n_runs++] = (struct sim_spot_run){ x, js.runs, js.run_start, end, end - js.run_start, true,
			sim_policy(s)->guarantee_seconds, true };
		cen->spot_runs++;
	}
	/* the window's integrals: the clock stopped at cut + H */
	r->o.simulation_end = end;
	r->o.drain_allocated = r->o.allocated - r->o.warmup_allocated - r->o.evaluation_allocated;
	r->o.allocation_rate_mean = r->o.evaluation_end > r->o.evaluation_start ?
		r->o.evaluation_allocated / ((double)r->o.capacity_gpus * (r->o.evaluation_end - r->o.evaluation_start)) : 0.0;
	r->o.events = xcalloc(o->n_events + 1, sizeof *r->o.events);
	r->o.n_events = 0;
	for (size_t i = 0; i < o->n_events; i++)
		if (flag[o->events[i].victim] & RO_POP) {
			r->o.events[r->o.n_events] = o->events[i];
			r->o.events[r->o.n_events].victim = map[o->events[i].victim];
			r->o.events[r->o.n_events++].trigger = map[o->events[i].trigger];
		}
	for (size_t x = 0; x < k; x++)
		flag[kept[x]] = 0;
}

/* Release what restrict_output kept. */
static void scenario_out_release(struct scenario_out *r)
{
	free(r->t.jobs);
	free(r->o.jobs);
	free(r->o.runs);
	free(r->o.events);
	arena_release(&r->t.arena);
}

/* Replace s's future by the scenario, install the candidate, run, and keep the scenario
 * population's result in r with its header in *hdr (r released by the caller on success). */
static int scenario_simulate(struct roll_live *l, struct sim *s, const struct sim_policy *p, const struct roll_scenario *sc,
			     const struct roll_projection *frozen, const struct trace_job *jobs, size_t m, struct arena *a,
			     struct scenario_out *r, struct json **hdr, char *err, size_t errlen)
{
	struct frozen_gate g = { sc->cut, sc->cut + (double)sc->horizon, 0 };
	/* the wake-up at cut + H (frozen_wakeup) puts an instant there, so the stop falls on it */
	struct sim_hooks h = { .ctx = &g, .next_wakeup = frozen_wakeup };
	if (frozen) {
		if (frozen_quota(frozen, p->guarantee_seconds, &g.quota)) {
			snprintf(err, errlen, "candidate '%s' guarantees %lld s, beyond the frozen quota's horizons", p->action_id, p->guarantee_seconds);
			return -1;
		}
		h.gate_limit = frozen_limit;
		h.gate_admit = frozen_admit;
	}
	if (sim_replace_future(s, jobs, m, sc->cut, sc->cut + (double)sc->horizon, err, errlen) || sim_set_hooks(s, &h, err, errlen) ||
	    sim_set_policy(s, p, err, errlen))
		return -1;
	/* receding horizon: the scenario ends with its window, never drains the backlog */
	if (sim_advance(s, g.end, err, errlen))
		return -1;
	struct roll_censoring cen;
	restrict_output(l, s, l->exec, sc, r, &cen);
	size_t need = strlen(l->exec->trace_id) + 64;
	char *id = arena_alloc(a, need);
	snprintf(id, need, "%s-scenario-%lld", l->exec->trace_id, (long long)sc->cut);
	r->t.trace_id = id;
	struct json *src = json_object(a);
	json_set(a, src, "dataset", json_str(a, "rolling-decision-scenario"));
	json_set(a, src, "generator", json_str(a, ROLL_SCENARIO_GENERATOR));
	json_set(a, src, "scenario_profile_id", json_str(a, sc->profile_id));
	json_set(a, src, "scenario_fingerprint", json_str(a, sc->fp));
	json_set(a, src, "start_state", json_str(a, "live-simulator-state-at-cutoff"));
	struct json *c = json_object(a);
	json_set(a, c, "simulation_end", json_real(a, cen.end));
	json_set(a, c, "hp_jobs_censored", json_int(a, (long long)cen.hp_jobs));
	json_set(a, c, "hp_jobs_not_started", json_int(a, (long long)cen.hp_not_started));
	json_set(a, c, "spot_jobs_censored", json_int(a, (long long)cen.spot_jobs));
	json_set(a, c, "spot_runs_open", json_int(a, (long long)cen.spot_runs));
	json_set(a, src, "horizon_censoring", c);
	r->t.source = src;
	snprintf(r->t.fingerprint, sizeof r->t.fingerprint, "%s", sc->fp);
	snprintf(r->t.input_name, sizeof r->t.input_name, "scenario");
	*hdr = result_header(a, &r->t, p, &r->o);
	return 0;
}

/* A scenario's evaluation from its metrics: the metrics record, its fingerprint, the
 * result's fingerprint and the population's HP queue times (a job the horizon closed
 * unstarted: its wait so far, a lower bound). */
static void eval_of(struct arena *a, const struct result_data *mr, struct roll_eval *out)
{
	out->metrics = ev_metrics_record(a, mr);
	struct strbuf sb;
	sb_init(&sb);
	json_write(&sb, out->metrics);
	sb_addc(&sb, '\n');
	fp_xxh3_of(sb.buf, sb.len, out->metrics_fp);
	sb_release(&sb);
	snprintf(out->result_fp, sizeof out->result_fp, "%s", mr->fingerprint);
	double *q = arena_alloc(a, (mr->n_jobs + 1) * sizeof *q);
	size_t nq = 0;
	for (size_t i = 0; i < mr->n_jobs; i++)
		if (mr->jobs[i].hp && mr->jobs[i].eval_pop)
			q[nq++] = mr->jobs[i].queue;
	out->hp_queue = q;
	out->n_hp_queue = nq;
}

/* Simulate the scenario on s (a clone, or the fork()ed child's live session) and evaluate it. */
static int scenario_eval(struct roll_live *l, struct sim *s, const struct sim_policy *p, const struct roll_scenario *sc,
			 const struct roll_projection *frozen, const struct trace_job *jobs, size_t m, struct arena *a, struct roll_eval *out,
			 char *err, size_t errlen)
{
	struct scenario_out r;
	struct json *hdr;
	if (scenario_simulate(l, s, p, sc, frozen, jobs, m, a, &r, &hdr, err, errlen))
		return -1;
	/* unchecked: a job the horizon closed completes at cut + H, so its JCT and wait are the lower
	 * bounds of docs/rolling.md "Scenarios end at their horizon" */
	struct result_data mr;
	result_from_output_unchecked(&mr, hdr, p, &r.t, &r.o);
	eval_of(a, &mr, out);
	result_data_release(&mr);
	scenario_out_release(&r);
	return 0;
}

/* The fork evaluator's child: the evaluation to fd as three lines: the metrics record as
 * eval_of hashed it, the result fingerprint, the HP queue times as C99 hex floats (exact). */
static int eval_send(int fd, const struct roll_eval *ev)
{
	struct strbuf sb;
	sb_init(&sb);
	json_write(&sb, ev->metrics);
	sb_addc(&sb, '\n');
	sb_adds(&sb, ev->result_fp);
	sb_addc(&sb, '\n');
	for (size_t i = 0; i < ev->n_hp_queue; i++)
		sb_addf(&sb, i ? " %a" : "%a", ev->hp_queue[i]);
	sb_addc(&sb, '\n');
	int rc = 0;
	for (size_t off = 0; off < sb.len && !rc;) {
		ssize_t k = write(fd, sb.buf + off, sb.len - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = -1;
		else
			off += (size_t)k;
	}
	sb_release(&sb);
	return rc;
}

/* The parent: read eval_send's lines from fd into out. */
static int eval_receive(int fd, struct arena *a, struct roll_eval *out, char *err, size_t errlen)
{
	struct strbuf sb;
	sb_init(&sb);
	char buf[65536];
	for (;;) {
		ssize_t k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(err, errlen, "cannot read a scenario's evaluation: %s", strerror(errno));
			sb_release(&sb);
			return -1;
		}
		if (k == 0)
			break;
		sb_add(&sb, buf, (size_t)k);
	}
	int rc = -1;
	char *l1 = sb.buf, *e1 = l1 ? memchr(l1, '\n', sb.len) : NULL, *l2 = e1 ? e1 + 1 : NULL;
	char *e2 = l2 ? memchr(l2, '\n', sb.len - (size_t)(l2 - sb.buf)) : NULL, *l3 = e2 ? e2 + 1 : NULL;
	char *e3 = l3 ? memchr(l3, '\n', sb.len - (size_t)(l3 - sb.buf)) : NULL;
	if (!e3 || (size_t)(e2 - l2) >= sizeof out->result_fp) {
		snprintf(err, errlen, "a scenario's evaluation is truncated");
		goto out;
	}
	fp_xxh3_of(l1, (size_t)(e1 - l1) + 1, out->metrics_fp);
	if (json_parse(a, l1, (size_t)(e1 - l1), &out->metrics, err, errlen))
		goto out;
	memcpy(out->result_fp, l2, (size_t)(e2 - l2));
	out->result_fp[e2 - l2] = '\0';
	*e3 = '\0';
	size_t nq = 0;
	for (char *p = l3; *p; p++)
		nq += *p == ' ';
	double *q = arena_alloc(a, (nq + 2) * sizeof *q);
	nq = 0;
	for (char *p = l3, *end; *p; p = *end ? end + 1 : end) {
		q[nq++] = strtod(p, &end);
		if (end == p) {
			snprintf(err, errlen, "a scenario's evaluation has a bad queue time");
			goto out;
		}
	}
	out->hp_queue = q;
	out->n_hp_queue = nq;
	rc = 0;
out:
	sb_release(&sb);
	return rc;
}

static double admit_all_limit(void *ctx, const struct sim *s, int model)
{
	(void)ctx, (void)s, (void)model;
	return INFINITY;
}

static bool admit_all(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	(void)ctx, (void)s, (void)j;
	return true;
}

/* The snapshot evaluator: an in-memory copy of the live session's live state (sim_clone_live), run in this
 * process; the metrics come from the horizon-closed output (result_from_output_unchecked), as in the fork
 * evaluator's child. */
static int snapshot_evaluate(struct roll_live *l, struct arena *a, const struct sim_policy *p, const struct roll_scenario *sc,
			     const struct roll_projection *frozen, const struct trace_job *jobs, size_t m, struct roll_eval *out, char *err,
			     size_t errlen)
{
	double t0 = clock_wall();
	/* the clone starts with hooks shaped like the live ones; scenario_simulate swaps them */
	struct sim_hooks h = { 0 };
	if (l->pc_hooks.gate_limit && l->pc_hooks.gate_admit) {
		h.gate_limit = admit_all_limit;
		h.gate_admit = admit_all;
	}
	/* the live state only, into the last scenario's buffers: its cost follows the backlog, not the history */
	struct sim *c = sim_clone_live_reuse(l->sim, &h, l->spare, err, errlen);
	l->spare = NULL;
	if (!c)
		return -1;
	l->t.fork_seconds += clock_wall() - t0;
	int rc = scenario_eval(l, c, p, sc, frozen, jobs, m, a, out, err, errlen);
	if (rc)
		sim_close(c);
	else
		l->spare = c;   /* the next clone reuses its buffers */
	return rc;
}

static int live_evaluate(void *ctx, struct arena *a, const struct sim_policy *p, const struct roll_scenario *sc, const struct roll_projection *frozen,
			 struct roll_eval *out, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	double t0 = clock_wall();
	size_t m = 0;
	for (size_t i = 0; i < sc->n_jobs; i++)
		m += sc->jobs[i].kind != SCN_CARRYOVER;
	struct trace_job *jobs = arena_alloc(a, (m + 1) * sizeof *jobs);
	m = 0;
	for (size_t i = 0; i < sc->n_jobs; i++) {
		const struct roll_scn_job *x = &sc->jobs[i];
		if (x->kind == SCN_CARRYOVER)
			continue;
		struct trace_job *j = &jobs[m++];
		memset(j, 0, sizeof *j);
		j->id = (char *)x->id;
		j->submit = x->submit;
		j->duration = x->duration;
		j->gpus = x->gpus;
		j->hp = x->hp;
		j->model = (char *)x->model;
		j->tenant = (char *)(x->tenant ? x->tenant : (l->exec->version == 2 ? sc->forecast_tenant : NULL));
	}
	int rc;
	if (l->o.snapshot) {
		rc = snapshot_evaluate(l, a, p, sc, frozen, jobs, m, out, err, errlen);
		if (!rc) {
			l->t.evaluations++;
			l->t.eval_seconds += clock_wall() - t0;
		}
		return rc;
	}
	int rfd[2], efd[2];
	if (pipe(rfd) || pipe(efd)) {
		snprintf(err, errlen, "cannot create a pipe for a scenario: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork a scenario: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(rfd[0]);
		close(efd[0]);
		if (dup2(rfd[1], 1) < 0)
			_exit(1);
		close(rfd[1]);
		char e[1024];
		struct roll_eval ev;
		memset(&ev, 0, sizeof ev);
		if (scenario_eval(l, l->sim, p, sc, frozen, jobs, m, a, &ev, e, sizeof e)) {
			size_t len = strlen(e);
			if (write(efd[1], e, len) < 0)
				_exit(1);
			_exit(1);
		}
		_exit(eval_send(1, &ev) ? 1 : 0);
	}
	close(rfd[1]);
	close(efd[1]);
	l->t.fork_seconds += clock_wall() - t0;
	char rerr[1024] = "";
	rc = eval_receive(rfd[0], a, out, rerr, sizeof rerr);
	close(rfd[0]);
	char cerr[1024];
	ssize_t k = read(efd[0], cerr, sizeof cerr - 1);
	cerr[k > 0 ? k : 0] = '\0';
	close(efd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || rc) {
		snprintf(err, errlen, "scenario '%s' of '%s' at %.17g failed: %s", sc->profile_id, p->action_id, sc->cut,
			 cerr[0] ? cerr : rerr[0] ? rerr : "the scenario process died");
		return -1;
	}
	l->t.evaluations++;
	l->t.eval_seconds += clock_wall() - t0;
	return 0;
}

static int live_emit(void *ctx, const struct json *rec, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	return l->o.emit(l->o.emit_ctx, rec, err, errlen);
}

void roll_live_engine(struct roll_live *l, struct roll_engine *e)
{
	*e = (struct roll_engine){ l, roll_live_state, roll_live_projection, live_evaluate, live_emit };
}
