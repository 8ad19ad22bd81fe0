#include "roll/session.h"
#include "core/clock.h"
#include "core/xalloc.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "eval/metrics.h"
#include "roll/record_check.h"
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

/* ---- the scheduler state at the cutoff ---- */

static void prefix_feed(struct roll_live *l)
{
	size_t n = sim_admitted(l->sim);
	struct strbuf sb;
	sb_init(&sb);
	for (; l->prefix_n < n; l->prefix_n++) {
		const struct trace_job *j = &l->exec->jobs[l->prefix_n];
		sb_reset(&sb);
		sb_adds(&sb, "{\"job_id\":");
		sb_add_jstr(&sb, j->id, strlen(j->id));
		sb_adds(&sb, ",\"submit_time_seconds\":");
		sb_add_double(&sb, j->submit);
		sb_adds(&sb, ",\"duration_seconds\":");
		sb_add_double(&sb, j->duration);
		sb_adds(&sb, ",\"gpu_count\":");
		sb_add_double(&sb, j->gpus);
		sb_adds(&sb, j->hp ? ",\"service_class\":\"HP\",\"gpu_model\":" : ",\"service_class\":\"Spot\",\"gpu_model\":");
		sb_add_jstr(&sb, j->model, strlen(j->model));
		sb_adds(&sb, ",\"tenant_id\":");
		if (j->tenant)
			sb_add_jstr(&sb, j->tenant, strlen(j->tenant));
		else
			sb_adds(&sb, "null");
		sb_adds(&sb, "}\n");
		fp_xxh3_update(&l->prefix, sb.buf, sb.len);
	}
	sb_release(&sb);
}

struct collect { struct roll_live *l; size_t *idx; size_t n, cap; };

static void collect_job(void *ctx, const struct sim_job_view *v)
{
	struct collect *c = ctx;
	c->idx = xgrow(c->idx, &c->cap, c->n + 1, sizeof *c->idx);
	c->idx[c->n++] = v->index;
}

static const struct roll_live *sort_live;
static int by_job_id(const void *a, const void *b);

/* The queued and running jobs, by job id (malloc'd); *n_queued of them are queued. */
static size_t *carry_indices(struct roll_live *l, size_t *n, size_t *n_queued)
{
	struct collect c = { l, NULL, 0, 0 };
	sim_each_queued(l->sim, collect_job, &c);
	*n_queued = c.n;
	sim_each_running(l->sim, collect_job, &c);
	sort_live = l;
	if (c.n)
		qsort(c.idx, c.n, sizeof *c.idx, by_job_id);
	*n = c.n;
	return c.idx;
}

static int by_job_id(const void *a, const void *b)
{
	const struct trace *t = sort_live->exec;
	return strcmp(t->jobs[*(const size_t *)a].id, t->jobs[*(const size_t *)b].id);
}

static int pool_cmp(const void *a, const void *b)
{
	return strcmp(((const struct roll_pool_gpus *)a)->pool, ((const struct roll_pool_gpus *)b)->pool);
}

struct running_sum { const struct sim *s; double *by_model; size_t n; };

static void sum_running(void *ctx, const struct sim_job_view *v)
{
	struct running_sum *r = ctx;
	if (v->hp)
		return;
	for (size_t i = 0; i < v->n_alloc; i++)
		r->by_model[sim_node_model(r->s, v->alloc[i].node)] += v->alloc[i].x;
}

/* Every running job's allocation pieces, in placement order (checkpoint files). */
struct alloc_log { size_t *job; size_t n, cap; struct sim_alloc *piece; size_t pcap; };

static void log_alloc(void *ctx, const struct sim_job_view *v)
{
	struct alloc_log *al = ctx;
	for (size_t i = 0; i < v->n_alloc; i++) {
		size_t c1 = al->cap, c2 = al->pcap;
		al->job = xgrow(al->job, &c1, al->n + 1, sizeof *al->job);
		al->piece = xgrow(al->piece, &c2, al->n + 1, sizeof *al->piece);
		al->cap = c1, al->pcap = c2;
		al->job[al->n] = v->index;
		al->piece[al->n++] = v->alloc[i];
	}
}

/* The pieces of job index job in a log sorted by job (binary search). */
static size_t alloc_find(const struct alloc_log *al, size_t job, size_t *n)
{
	size_t lo = 0, hi = al->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (al->job[mid] < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < al->n && al->job[e] == job)
		e++;
	*n = e - lo;
	return lo;
}

/* Sort the log by job, keeping each job's pieces in placement order. */
static void alloc_sort(struct alloc_log *al)
{
	for (size_t i = 1; i < al->n; i++) {   /* runs of one job are contiguous already: check */
		if (al->job[i] >= al->job[i - 1])
			continue;
		/* not sorted: a stable insertion sort (rare: sim_each_running is not in index order) */
		for (size_t k = i; k > 0 && al->job[k] < al->job[k - 1]; k--) {
			size_t tj = al->job[k];
			struct sim_alloc tp = al->piece[k];
			al->job[k] = al->job[k - 1];
			al->piece[k] = al->piece[k - 1];
			al->job[k - 1] = tj;
			al->piece[k - 1] = tp;
		}
	}
}

static void hash_bytes(struct fp_xxh3 *h, const void *p, size_t n) { fp_xxh3_update(h, p, n); }
static void hash_double(struct fp_xxh3 *h, double v) { hash_bytes(h, &v, sizeof v); }
static void hash_int(struct fp_xxh3 *h, long long v) { hash_bytes(h, &v, sizeof v); }

static int live_state(void *ctx, struct arena *a, struct roll_state *st, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	struct sim *s = l->sim;
	const struct trace *t = l->exec;
	memset(st, 0, sizeof *st);
	double now = sim_now(s);
	st->cutoff = now;
	st->trace_id = t->trace_id;
	prefix_feed(l);
	char *pfx = arena_alloc(a, 33);
	fp_xxh3_hex(&l->prefix, pfx);
	st->visible_prefix_fp = pfx;
	st->visible_count = (long long)l->prefix_n;
	if (l->prefix_n) {
		st->has_max_visible = true;
		st->max_visible_submit = t->jobs[l->prefix_n - 1].submit;
	}
	st->capacity = sim_capacity_gpus(s);
	st->free_total = sim_free_gpus(s, -1);
	int nm = sim_model_count(s);
	struct roll_pool_gpus *fr = arena_alloc(a, (size_t)(nm + 1) * sizeof *fr), *rs = arena_alloc(a, (size_t)(nm + 1) * sizeof *rs);
	double *by_model = arena_alloc(a, (size_t)(nm + 1) * sizeof *by_model);
	memset(by_model, 0, (size_t)(nm + 1) * sizeof *by_model);
	struct running_sum rsum = { s, by_model, 0 };
	sim_each_running(s, sum_running, &rsum);
	for (int m = 0; m < nm; m++) {
		fr[m] = (struct roll_pool_gpus){ sim_model_name(s, m), sim_free_gpus(s, m) };
		rs[m] = (struct roll_pool_gpus){ sim_model_name(s, m), by_model[m] };
	}
	qsort(fr, (size_t)nm, sizeof *fr, pool_cmp);
	qsort(rs, (size_t)nm, sizeof *rs, pool_cmp);
	st->free_by_pool = fr;
	st->running_spot_by_pool = rs;
	st->n_free_pools = st->n_running_pools = (size_t)nm;
	st->running_spot_gpus = sim_running_spot_gpus(s);

	/* carryover: queued and running jobs, by job id */
	struct collect c = { l, NULL, 0, 0 };
	size_t nq;
	c.idx = carry_indices(l, &c.n, &nq);
	st->running_jobs = (long long)(c.n - nq);
	struct roll_carry *cv = arena_alloc(a, (c.n + 1) * sizeof *cv);
	/* The private handoff state, hashed as binary (IEEE-754 doubles and 64-bit integers in
	 * the machine's byte order, ids NUL-terminated): never shown, only fingerprinted. */
	struct fp_xxh3 hh;
	fp_xxh3_init(&hh);
	struct alloc_log al = { NULL, 0, 0, NULL, 0 };
	sim_each_running(s, log_alloc, &al);
	alloc_sort(&al);
	for (size_t i = 0; i < c.n; i++) {
		const struct trace_job *tj = &t->jobs[c.idx[i]];
		struct sim_job_state js;
		sim_job_state(s, c.idx[i], &js);
		struct roll_carry *x = &cv[i];
		memset(x, 0, sizeof *x);
		x->id = tj->id;
		x->hp = tj->hp;
		x->running = js.running;
		x->gpus = tj->gpus;
		x->model = tj->model;
		x->tenant = tj->tenant;
		x->queue_wait = js.queued ? now - js.queued_since : 0.0;
		x->run_elapsed = js.running ? now - js.run_start : 0.0;
		x->has_guarantee = js.running && !tj->hp;
		x->guarantee = (long long)js.run_guarantee;
		x->allocated = js.running ? tj->gpus : 0.0;
		double wait = js.queue_seconds + now - js.queued_since;
		if (js.queued) {
			st->queue_jobs++;
			st->queue_gpus += tj->gpus;
			if (tj->hp) {
				st->queue_hp++;
				st->queue_hp_gpus += tj->gpus;
				if (wait > st->max_hp_wait)
					st->max_hp_wait = wait;
			} else {
				st->queue_spot++;
				st->queue_spot_gpus += tj->gpus;
				if (wait > st->max_spot_wait)
					st->max_spot_wait = wait;
			}
		}
		hash_bytes(&hh, tj->id, strlen(tj->id) + 1);
		hash_double(&hh, js.remaining);
		hash_double(&hh, js.queued_since);
		hash_double(&hh, js.queue_seconds);
		hash_double(&hh, js.running ? js.run_start : -1.0);
		hash_int(&hh, js.preemptions);
		hash_int(&hh, js.runs);
		size_t np, first = alloc_find(&al, c.idx[i], &np);
		hash_int(&hh, (long long)np);
		for (size_t k = first; k < first + np; k++) {
			hash_int(&hh, (long long)al.piece[k].node);
			hash_double(&hh, al.piece[k].x);
		}
	}
	char *hfp = arena_alloc(a, 33);
	fp_xxh3_hex(&hh, hfp);
	fp_xxh3_release(&hh);
	free(al.job);
	free(al.piece);
	free(c.idx);
	st->carry = cv;
	st->n_carry = c.n;
	st->handoff_fp = hfp;
	const struct sim_policy *active = sim_policy(s);
	st->active_id = active->action_id;
	st->active_fp = active->fingerprint;
	size_t done = 0, adm = sim_admitted(s);
	for (size_t i = 0; i < adm; i++) {
		struct sim_job_state js;
		sim_job_state(s, i, &js);
		done += js.done;
	}
	st->completed_jobs = (long long)done;
	st->preemption_events = l->evictions;
	st->spot_runs = l->closed_spot_runs;
	st->hp_completed_queue = l->hp_queue;
	st->hp_completed_jct = l->hp_jct;
	st->n_hp_completed = st->n_hp_jct = l->n_hp;
	(void)err, (void)errlen;
	return 0;
}

/* ---- the inner predictor's latest decision (Q2: the last one, never lost off the grid) ---- */

static const struct roll_projection *live_projection(void *ctx, struct arena *a)
{
	struct roll_live *l = ctx;
	(void)a;
	return l->pred ? roll_predictor_projection(l->pred) : NULL;
}

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

/* Keep the scenario population (and the HP jobs their evictions name) as a small result,
 * read from the drained session: only the kept jobs' results are computed. */
static void restrict_output(const struct sim *s, const struct trace *exec, const struct roll_scenario *sc, struct scenario_out *r)
{
	const struct sim_output *o = sim_output_so_far(s);
	size_t n = sim_job_count(s);
	size_t *map = xmalloc((n + 1) * sizeof *map);
	bool *keep = xcalloc(n + 1, sizeof *keep), *pop = xcalloc(n + 1, sizeof *pop);
	struct sim_job_result res;
	size_t k = 0;
	size_t *in = xmalloc((n + 1) * sizeof *in), n_in = sim_population_indices(s, in);
	for (size_t x = 0; x < n_in; x++)
		keep[in[x]] = pop[in[x]] = true;
	free(in);
	for (size_t i = 0; i < o->n_events; i++)
		if (pop[o->events[i].victim])
			keep[o->events[i].trigger] = true;
	memset(r, 0, sizeof *r);
	trace_init(&r->t);
	r->t.version = exec->version;
	r->t.time_origin = exec->time_origin;
	r->t.nodes = exec->nodes;
	r->t.n_nodes = exec->n_nodes;
	r->t.has_window = true;
	r->t.eval_start = sc->cut;
	r->t.eval_end = sc->cut + (double)sc->horizon;
	for (size_t i = 0; i < n; i++)
		k += keep[i];
	r->t.jobs = xcalloc(k + 1, sizeof *r->t.jobs);
	r->o = *o;
	r->o.jobs = xcalloc(k + 1, sizeof *r->o.jobs);
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			map[i] = k;
			r->t.jobs[k] = *sim_job_trace(s, i);
			sim_job_result_of(s, i, &res);
			r->o.jobs[k++] = res;
		} else
			map[i] = SIZE_MAX;
	r->t.n_jobs = r->o.n_jobs = k;
	r->o.runs = xcalloc(o->n_runs + 1, sizeof *r->o.runs);
	r->o.n_runs = 0;
	for (size_t i = 0; i < o->n_runs; i++)
		if (pop[o->runs[i].job]) {
			r->o.runs[r->o.n_runs] = o->runs[i];
			r->o.runs[r->o.n_runs++].job = map[o->runs[i].job];
		}
	r->o.events = xcalloc(o->n_events + 1, sizeof *r->o.events);
	r->o.n_events = 0;
	for (size_t i = 0; i < o->n_events; i++)
		if (pop[o->events[i].victim]) {
			r->o.events[r->o.n_events] = o->events[i];
			r->o.events[r->o.n_events].victim = map[o->events[i].victim];
			r->o.events[r->o.n_events++].trigger = map[o->events[i].trigger];
		}
	free(map);
	free(keep);
	free(pop);
}

/* The child: replace the future, install the candidate, run, stream the scenario result. */
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
	struct sim_hooks h = { 0 };
	if (frozen) {
		if (frozen_quota(frozen, p->guarantee_seconds, &g.quota)) {
			snprintf(err, errlen, "candidate '%s' guarantees %lld s, beyond the frozen quota's horizons", p->action_id, p->guarantee_seconds);
			return -1;
		}
		h.ctx = &g;
		h.gate_limit = frozen_limit;
		h.gate_admit = frozen_admit;
		h.next_wakeup = frozen_wakeup;
	}
	if (sim_replace_future(s, jobs, m, sc->cut, sc->cut + (double)sc->horizon, err, errlen) || sim_set_hooks(s, &h, err, errlen) ||
	    sim_set_policy(s, p, err, errlen))
		return -1;
	if (sim_drain(s, err, errlen))
		return -1;
	restrict_output(s, l->exec, sc, r);
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
	r->t.source = src;
	snprintf(r->t.fingerprint, sizeof r->t.fingerprint, "%s", sc->fp);
	snprintf(r->t.input_name, sizeof r->t.input_name, "scenario");
	*hdr = result_header(a, &r->t, p, &r->o);
	return 0;
}

/* The fork evaluator's child: simulate and write the scenario population's result stream to
 * path ("-": standard output), which the parent reads back (scenario_read). */
static int scenario_run(struct roll_live *l, struct sim *s, const struct sim_policy *p, const struct roll_scenario *sc,
			const struct roll_projection *frozen, const struct trace_job *jobs, size_t m, const char *path, struct arena *a,
			char *err, size_t errlen)
{
	struct scenario_out r;
	struct json *hdr;
	if (scenario_simulate(l, s, p, sc, frozen, jobs, m, a, &r, &hdr, err, errlen))
		return -1;
	struct nd_writer *w = ndw_open(path, err, errlen);
	int rc = !w || result_write(w, hdr, &r.t, &r.o, err, errlen) || ndw_close(w, err, errlen) ? -1 : 0;
	if (w && rc)
		ndw_abort(w);
	scenario_out_release(&r);
	return rc;
}

/* A scenario's evaluation from its metrics: the metrics record, its fingerprint, the
 * result's fingerprint and the population's HP queue times. */
static void eval_of(struct arena *a, const struct result_data *mr, struct roll_eval *out)
{
	out->metrics = metrics_record(a, mr);
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

/* The metrics of a scenario result stream at path, and its HP queue times. */
static int scenario_read(const char *path, struct arena *a, struct roll_eval *out, char *err, size_t errlen)
{
	struct result_data mr;
	struct nd_reader *r = ndr_open(path, err, errlen);
	int rc = r ? result_read(&mr, r, roll_result_exts, err, errlen) : -1;
	if (r)
		ndr_close(r);
	if (rc)
		return -1;
	eval_of(a, &mr, out);
	result_data_release(&mr);
	return 0;
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
 * process; the metrics come from the simulator's output as result_read would give them from
 * the result stream (result_from_output), which is never written. */
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
	l->fork_seconds += clock_wall() - t0;
	struct scenario_out r;
	struct json *hdr;
	int rc = scenario_simulate(l, c, p, sc, frozen, jobs, m, a, &r, &hdr, err, errlen);
	if (!rc) {
		struct result_data mr;
		rc = result_from_output(&mr, hdr, p, &r.t, &r.o, err, errlen);
		if (!rc) {
			eval_of(a, &mr, out);
			result_data_release(&mr);
		}
		scenario_out_release(&r);
	}
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
		j->tenant = (char *)(x->tenant ? x->tenant : (l->exec->version == 2 ? "forecast-aggregate" : NULL));
	}
	int rc;
	if (l->snapshot) {
		rc = snapshot_evaluate(l, a, p, sc, frozen, jobs, m, out, err, errlen);
		if (!rc) {
			l->evaluations++;
			l->eval_seconds += clock_wall() - t0;
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
		if (scenario_run(l, l->sim, p, sc, frozen, jobs, m, "-", a, e, sizeof e)) {
			size_t len = strlen(e);
			if (write(efd[1], e, len) < 0)
				_exit(1);
			_exit(1);
		}
		_exit(0);
	}
	close(rfd[1]);
	close(efd[1]);
	l->fork_seconds += clock_wall() - t0;
	char path[32], rerr[1024] = "";
	snprintf(path, sizeof path, "/dev/fd/%d", rfd[0]);
	rc = scenario_read(path, a, out, rerr, sizeof rerr);
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
	l->evaluations++;
	l->eval_seconds += clock_wall() - t0;
	return 0;
}

static int live_emit(void *ctx, const struct json *rec, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	return l->emit(l->emit_ctx, rec, err, errlen);
}

void roll_live_engine(struct roll_live *l, struct roll_engine *e)
{
	*e = (struct roll_engine){ l, live_state, live_projection, live_evaluate, live_emit };
}

/* ---- the hooks: the predictor's, wrapped, plus the decision at each cutoff ---- */

static int h_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.check_policy ? l->pc_hooks.check_policy(l->pc_hooks.ctx, p, err, errlen) : 0;
}

static double replay_cutoff(const struct roll_live *l)
{
	return l->ctl->eval_start + (double)(l->replayed * l->ctl->cfg->interval);
}

static double h_next_wakeup(void *ctx, const struct sim *s, double after)
{
	struct roll_live *l = ctx;
	double next = l->pc_hooks.next_wakeup ? l->pc_hooks.next_wakeup(l->pc_hooks.ctx, s, after) : INFINITY;
	double c = l->replayed < l->replay_n ? replay_cutoff(l) : roll_due(l->ctl) ? roll_next_cutoff(l->ctl) : INFINITY;
	if (c > after && c < next)
		next = c;
	return next;
}

/* Resume: re-apply decision l->replayed as recorded, after checking that the state is the
 * one it was taken in (a replay that diverged would silently give another result). */
static int replay_one(struct roll_live *l, struct sim *s, char *err, size_t errlen)
{
	struct arena a;
	struct roll_state st;
	arena_init(&a);
	int rc = live_state(l, &a, &st, err, errlen);
	long long i = l->replayed;
	if (!rc && strcmp(st.handoff_fp, l->ctl->p.handoff[i])) {
		snprintf(err, errlen, "resume: the replayed state at decision %lld (%.17g) differs from the checkpoint (handoff %s, recorded %s)",
			 i, sim_now(s), st.handoff_fp, l->ctl->p.handoff[i]);
		rc = -1;
	}
	/* at the checkpoint's own decision the predictor's learned state must be the recorded one */
	if (!rc && i + 1 == l->replay_n && l->pred && l->pred_state_expect) {
		struct strbuf sb;
		sb_init(&sb);
		json_write(&sb, roll_predictor_state_json(l->pred, &a));
		if (strcmp(sb.buf, l->pred_state_expect)) {
			snprintf(err, errlen, "resume: the replayed inner predictor's state at decision %lld (%.17g) differs from the checkpoint", i,
				 sim_now(s));
			rc = -1;
		}
		sb_release(&sb);
	}
	const struct sim_policy *p = &l->ctl->cat->actions[l->ctl->p.applied[i]];
	if (!rc && sim_policy(s) != p)
		rc = sim_set_policy(s, p, err, errlen);
	arena_release(&a);
	l->replayed++;
	return rc;
}

static int h_at_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.at_instant && l->pc_hooks.at_instant(l->pc_hooks.ctx, s, err, errlen))
		return -1;
	if (l->window_end_clock == 0 && sim_now(s) >= l->ctl->eval_end) {
		l->window_end_clock = clock_wall();
		l->window_end_cpu = clock_rusage_cpu(2);
	}
	while (l->replayed < l->replay_n && sim_now(s) + SIM_EPS >= replay_cutoff(l))
		if (replay_one(l, s, err, errlen))
			return -1;
	while (l->replayed >= l->replay_n && roll_due(l->ctl) && sim_now(s) + SIM_EPS >= roll_next_cutoff(l->ctl)) {
		struct roll_engine e;
		roll_live_engine(l, &e);
		struct arena a;
		arena_init(&a);
		double t0 = clock_wall();
		if (l->ctl->p.index == 0 || l->first_cutoff_clock == 0) {
			l->first_cutoff_clock = t0;
			l->first_cutoff_cpu = clock_rusage_cpu(2);
		}
		int rc = roll_step(l->ctl, &e, &a, err, errlen);
		/* the last scenario's copy goes with its decision: kept to the next one, its
		 * buffers would hold every page any scenario of the window ever wrote */
		sim_close(l->spare);
		l->spare = NULL;
		l->decide_seconds += clock_wall() - t0;
		if (rc == ROLL_STEP_PENDING) {
			l->stopped = true;
			l->pending_arena = a;   /* ctl->pending_request lives here */
			snprintf(err, errlen, "a decision is pending");
			return -1;
		}
		if (rc == 0 && sim_policy(s) != roll_active(l->ctl))
			rc = sim_set_policy(s, roll_active(l->ctl), err, errlen);
		if (rc == 0 && l->frozen)
			rc = l->frozen(l->frozen_ctx, &a, err, errlen);
		arena_release(&a);
		if (rc)
			return -1;
	}
	return 0;
}

static void h_after_advance(void *ctx, struct sim *s)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.after_advance)
		l->pc_hooks.after_advance(l->pc_hooks.ctx, s);
}

static double h_gate_limit(void *ctx, const struct sim *s, int model)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.gate_limit(l->pc_hooks.ctx, s, model);
}

static bool h_gate_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.gate_admit(l->pc_hooks.ctx, s, j);
}

static void h_run_started(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.run_started)
		l->pc_hooks.run_started(l->pc_hooks.ctx, s, j);
}

static void insert_sorted(double *v, size_t n, double x)
{
	size_t i = n;
	while (i > 0 && v[i - 1] > x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = x;
}

static void h_run_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.run_closed)
		l->pc_hooks.run_closed(l->pc_hooks.ctx, s, j, evicted);
	if (!j->hp) {
		l->closed_spot_runs++;
		l->evictions += evicted;
		return;
	}
	double sub = j->tj->submit;
	if (evicted || sub < sim_evaluation_start(s) || sub > sim_evaluation_end(s))
		return;
	/* An HP job runs once (HP is never evicted): its queue time is run start − submit. */
	if (l->n_hp == l->cap_hp) {
		l->cap_hp = l->cap_hp ? 2 * l->cap_hp : 256;
		l->hp_queue = xrealloc(l->hp_queue, l->cap_hp * sizeof *l->hp_queue);
		l->hp_jct = xrealloc(l->hp_jct, l->cap_hp * sizeof *l->hp_jct);
	}
	insert_sorted(l->hp_queue, l->n_hp, num_round(j->run_start - sub, 6));
	insert_sorted(l->hp_jct, l->n_hp, num_round(sim_now(s) - sub, 6));
	l->n_hp++;
}

int roll_live_open(struct roll_live *l, struct roll_controller *ctl, const struct trace *exec, struct roll_predictor *pred, size_t reserve,
		   char *err, size_t errlen)
{
	memset(l, 0, sizeof *l);
	arena_init(&l->pending_arena);
	l->ctl = ctl;
	l->exec = exec;
	l->pred = pred;
	fp_xxh3_init(&l->prefix);
	if (pred)
		l->pc_hooks = pred->hooks;
	struct sim_hooks h = { 0 };
	h.ctx = l;
	h.check_policy = h_check_policy;
	h.next_wakeup = h_next_wakeup;
	h.at_instant = h_at_instant;
	h.after_advance = h_after_advance;
	if (l->pc_hooks.gate_limit && l->pc_hooks.gate_admit) {
		h.gate_limit = h_gate_limit;
		h.gate_admit = h_gate_admit;
	}
	h.run_started = h_run_started;
	h.run_closed = h_run_closed;
	h.idle_limit_seconds = l->pc_hooks.idle_limit_seconds;
	l->sim = sim_open_reserve(exec, roll_active(ctl), &h, reserve, err, errlen);
	return l->sim ? 0 : -1;
}

int roll_live_run(struct roll_live *l, struct sim_output *out, char *err, size_t errlen)
{
	if (sim_finish(l->sim, out, err, errlen))
		return l->stopped ? ROLL_STEP_PENDING : -1;
	return 0;
}

void roll_live_close(struct roll_live *l)
{
	sim_close(l->spare);
	sim_close(l->sim);
	arena_release(&l->pending_arena);
	fp_xxh3_release(&l->prefix);
	free(l->hp_queue);
	free(l->hp_jct);
	memset(l, 0, sizeof *l);
}

int roll_live_state_records(struct roll_live *l, struct arena *a, int (*emit)(void *ctx, const struct json *rec, char *err, size_t errlen),
			    void *ctx, char *err, size_t errlen)
{
	struct sim *s = l->sim;
	struct roll_state st;
	if (live_state(l, a, &st, err, errlen))
		return -1;
	struct json *o = json_object(a), *fr = json_object(a);
	json_set(a, o, "type", json_str(a, "engine_state"));
	json_set(a, o, "now", json_real(a, sim_now(s)));
	json_set(a, o, "active_action_id", json_str(a, sim_policy(s)->action_id));
	json_set(a, o, "admitted_jobs", json_int(a, (long long)sim_admitted(s)));
	json_set(a, o, "completed_jobs", json_int(a, st.completed_jobs));
	json_set(a, o, "closed_spot_runs", json_int(a, l->closed_spot_runs));
	json_set(a, o, "evictions", json_int(a, l->evictions));
	for (int m = 0; m < sim_model_count(s); m++)
		json_set(a, fr, sim_model_name(s, m), json_real(a, sim_free_gpus(s, m)));
	json_set(a, o, "free_gpus_by_model", fr);
	json_set(a, o, "running_spot_gpus", json_real(a, sim_running_spot_gpus(s)));
	json_set(a, o, "hp_outstanding_gpus", json_real(a, sim_hp_outstanding_gpus(s)));
	json_set(a, o, "visible_prefix_fingerprint", json_str(a, st.visible_prefix_fp));
	json_set(a, o, "state_handoff_fingerprint", json_str(a, st.handoff_fp));
	if (emit(ctx, o, err, errlen))
		return -1;
	size_t n, nq, *idx = carry_indices(l, &n, &nq);
	struct alloc_log al = { NULL, 0, 0, NULL, 0 };
	sim_each_running(s, log_alloc, &al);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct sim_job_state js;
		sim_job_state(s, idx[i], &js);
		struct json *j = json_object(a), *alloc = json_array(a);
		json_set(a, j, "type", json_str(a, "engine_job"));
		json_set(a, j, "job_id", json_str(a, l->exec->jobs[idx[i]].id));
		json_set(a, j, "status", json_str(a, js.running ? "running" : "queued"));
		json_set(a, j, "remaining_seconds", json_real(a, js.remaining));
		json_set(a, j, "queued_since_seconds", json_real(a, js.queued_since));
		json_set(a, j, "queue_seconds", json_real(a, js.queue_seconds));
		json_set(a, j, "run_start_seconds", js.running ? json_real(a, js.run_start) : json_null(a));
		json_set(a, j, "run_guarantee_seconds", js.running ? json_real(a, js.run_guarantee) : json_null(a));
		json_set(a, j, "enqueue_order", json_int(a, js.eo));
		json_set(a, j, "run_count", json_int(a, js.runs));
		json_set(a, j, "preemption_count", json_int(a, js.preemptions));
		for (size_t k = 0; k < al.n; k++)
			if (al.job[k] == idx[i]) {
				struct json *p = json_array(a);
				json_push(a, p, json_str(a, l->exec->nodes[al.piece[k].node].id));
				json_push(a, p, json_real(a, al.piece[k].x));
				json_push(a, alloc, p);
			}
		json_set(a, j, "allocation", alloc);
		rc = emit(ctx, j, err, errlen);
	}
	free(idx);
	free(al.job);
	free(al.piece);
	if (!rc && l->pred)
		rc = emit(ctx, roll_predictor_state_json(l->pred, a), err, errlen);
	return rc;
}

static size_t max_in_window(const struct trace *t, double width)
{
	size_t best = 0, lo = 0;
	for (size_t hi = 0; hi < t->n_jobs; hi++) {
		while (t->jobs[hi].submit - t->jobs[lo].submit > width)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	return best;
}

size_t roll_live_reserve(const struct roll_controller *ctl, const struct trace *exec, const struct trace *history, size_t pools)
{
	double H = (double)ctl->cfg->horizon;
	size_t points = pools * (size_t)(ctl->cfg->horizon / 3600 + 2);
	size_t replay = max_in_window(history, H) + points * ROLL_MAX_PIECES, future = max_in_window(exec, H);
	return (replay > future ? replay : future) + 16;
}
