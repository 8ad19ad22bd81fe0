#include "eval/metrics.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct metrics_rank ev_metrics_quantile_rank(size_t n, double p)
{
	double pos = (double)(n - 1) * p;
	double lo_f = floor(pos);
	size_t lo = (size_t)lo_f;
	return (struct metrics_rank){ lo, lo + 1 < n ? lo + 1 : n - 1, pos - lo_f };
}

double ev_metrics_quantile_mix(double vlo, double vhi, double frac)
{
	return vlo + (vhi - vlo) * frac;
}

double ev_metrics_quantile_sorted(const double *v, size_t n, double p)
{
	struct metrics_rank r = ev_metrics_quantile_rank(n, p);
	return ev_metrics_quantile_mix(v[r.lo], v[r.hi], r.frac);
}

double ev_metrics_quantile(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, dbl_cmp);
	return ev_metrics_quantile_sorted(v, n, p);
}

/* Exchange-partition v[lo..hi] (inclusive) until v[k] holds the value a sort would put at
 * k, with v[lo..k) <= v[k] <= v(k..hi]; past a depth budget the rest is sorted (so never
 * quadratic). Only for values where "compares equal" means "the same bits" (see
 * quantiles_exact): then any order that is sorted at k has the sort's value there. */
static void select_kth(double *v, size_t lo, size_t hi, size_t k)
{
	int budget = 64;
	while (hi > lo) {
		if (hi - lo < 16 || --budget == 0) {
			qsort(v + lo, hi - lo + 1, sizeof *v, dbl_cmp);
			return;
		}
		/* median of three as the pivot value */
		size_t mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi];
		double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t i = lo, j = hi;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			double t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		/* v[lo..j] <= pivot <= v(j..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

/* True when no value is a NaN or a negative zero: then values that compare equal have the
 * same bits, and a selection gives the very doubles a full sort would (dbl_cmp orders
 * -0.0 and 0.0 as equal and a NaN inconsistently: those inputs take the sort). */
static bool quantiles_exact(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != v[i] || (v[i] == 0 && signbit(v[i])))
			return false;
	return true;
}

/* Two order statistics each by selection instead of a sort of all n values (the rolling
 * scenarios' populations hold the whole backlog). */
void ev_metrics_quantile_pair(double *v, size_t n, double p1, double p2, double *q1, double *q2)
{
	if (!quantiles_exact(v, n)) {   /* twice, as two ev_metrics_quantile calls (a NaN can move again) */
		*q1 = ev_metrics_quantile(v, n, p1);
		*q2 = ev_metrics_quantile(v, n, p2);
		return;
	}
	size_t from = 0;   /* v[0..from) <= every value from on: later ranks select in v[from..n) */
	const double ps[2] = { p1, p2 };
	double *qs[2] = { q1, q2 };
	for (int x = 0; x < 2; x++) {
		struct metrics_rank r = ev_metrics_quantile_rank(n, ps[x]);
		select_kth(v, from, n - 1, r.lo);
		double vlo = v[r.lo], vhi = vlo;
		if (r.hi != r.lo) {   /* the least of v(lo..n): the sort's value at lo + 1 */
			vhi = v[r.hi];
			for (size_t i = r.hi + 1; i < n; i++)
				if (v[i] < vhi)
					vhi = v[i];
		}
		*qs[x] = ev_metrics_quantile_mix(vlo, vhi, r.frac);
		from = r.lo;
	}
}

/* Per-class job figures (docs/evaluation.md §4 jobs.<class>). */
struct class_stats {
	long long n, completed, preemptions, preempted_jobs, runs, timed_out;
	double jct_mean, jct_p50, jct_p95, queue_mean, queue_p50, queue_p95;
};

static void class_stats(const struct result_data *m, bool hp, struct class_stats *c)
{
	memset(c, 0, sizeof *c);
	double *jct = xmalloc((m->n_jobs + 1) * sizeof *jct), *q = xmalloc((m->n_jobs + 1) * sizeof *q);
	double sj = 0, sq = 0;
	for (size_t i = 0; i < m->n_jobs; i++) {
		const struct result_job *j = &m->jobs[i];
		if (!j->eval_pop || j->hp != hp)
			continue;
		jct[c->n] = j->jct;
		q[c->n] = j->queue;
		sj += j->jct;       /* naive left-to-right, job_id order */
		sq += j->queue;
		c->n++;
		c->completed++;
		c->preemptions += j->preemptions;
		c->preempted_jobs += j->preemptions > 0;
		c->runs += j->runs;
		c->timed_out += j->timed_out;
	}
	if (c->n > 0) {
		c->jct_mean = num_round(sj / (double)c->n, 6);
		c->queue_mean = num_round(sq / (double)c->n, 6);
		double j50, j95, q50, q95;
		ev_metrics_quantile_pair(jct, (size_t)c->n, 0.5, 0.95, &j50, &j95);
		ev_metrics_quantile_pair(q, (size_t)c->n, 0.5, 0.95, &q50, &q95);
		c->jct_p50 = num_round(j50, 6);
		c->jct_p95 = num_round(j95, 6);
		c->queue_p50 = num_round(q50, 6);
		c->queue_p95 = num_round(q95, 6);
	}
	free(jct);
	free(q);
}

static void set_class(struct arena *a, struct json *o, const char *pre, const struct class_stats *c, bool with_rate)
{
	char k[64];
	bool any = c->n > 0;
#define K(name) (snprintf(k, sizeof k, "%s_%s", pre, name), k)
	json_set(a, o, K("job_count"), json_int(a, c->n));
	json_set(a, o, K("completed_count"), json_int(a, c->completed));
	json_set(a, o, K("completion_rate"), json_real_or_null(a, any, 1.0));
	json_set(a, o, K("jct_mean_seconds"), json_real_or_null(a, any, c->jct_mean));
	json_set(a, o, K("jct_p50_seconds"), json_real_or_null(a, any, c->jct_p50));
	json_set(a, o, K("jct_p95_seconds"), json_real_or_null(a, any, c->jct_p95));
	json_set(a, o, K("queue_mean_seconds"), json_real_or_null(a, any, c->queue_mean));
	json_set(a, o, K("queue_p50_seconds"), json_real_or_null(a, any, c->queue_p50));
	json_set(a, o, K("queue_p95_seconds"), json_real_or_null(a, any, c->queue_p95));
	json_set(a, o, K("preemption_count"), json_int(a, c->preemptions));
	json_set(a, o, K("preempted_job_count"), json_int(a, c->preempted_jobs));
	if (with_rate)
		json_set(a, o, K("preempted_job_rate"), json_real_or_null(a, any, any ? (double)c->preempted_jobs / (double)c->n : 0));
#undef K
}

struct json *ev_metrics_record(struct arena *a, const struct result_data *m)
{
	const struct sim_policy *p = &m->policy;
	const struct json *h = m->header, *cl = m->cluster;
	struct json *o = json_object(a);
	json_set(a, o, "type", json_str(a, "metrics"));
	/* 1. policy, flat, defaults filled */
	json_set(a, o, "action_id", json_str(a, p->action_id));
	json_set(a, o, "scheduler", json_str(a, policy_scheduler_name(p->scheduler)));
	json_set(a, o, "spot_guarantee_seconds", json_int(a, p->guarantee_seconds));
	json_set(a, o, "checkpoint_interval_seconds", json_int(a, p->checkpoint_seconds));
	json_set(a, o, "policy_preemption_overhead_seconds", json_int(a, p->overhead_seconds));
	json_set(a, o, "hp_preemption_delay_seconds", json_int(a, p->hp_delay_seconds));
	json_set(a, o, "spot_eviction_budget_rate", p->has_budget ? json_real(a, p->budget) : json_null(a));
	json_set(a, o, "preemption_victim_strategy", json_str(a, policy_victim_name(p->victim_order)));
	json_set(a, o, "placement_strategy", json_str(a, policy_placement_name(p->placement)));
	json_set(a, o, "policy", json_clone(a, json_get(h, "policy")));
	json_set(a, o, "policy_fingerprint", json_clone(a, json_get(h, "policy_fingerprint")));
	/* 2. provenance */
	json_set(a, o, "trace_id", json_clone(a, json_get(h, "trace_id")));
	json_set(a, o, "trace_fingerprint", json_clone(a, json_get(h, "trace_fingerprint")));
	struct json *src = json_get(h, "source"), *ds = json_get(src, "dataset");
	json_set(a, o, "dataset", json_clone(a, ds && ds->kind == JSON_STRING ? ds : json_get(h, "trace_id")));
	json_set(a, o, "source", json_clone(a, src));
	struct json *eng = json_object(a);
	json_set(a, eng, "name", json_str(a, "schednav-sim"));
	json_set(a, eng, "version", json_str(a, "1"));
	json_set(a, o, "engine", eng);
	json_set(a, o, "evaluation_start", json_real(a, json_num(json_get(h, "evaluation_start"))));
	json_set(a, o, "evaluation_end", json_real(a, json_num(json_get(h, "evaluation_end"))));
	json_set(a, o, "result_fingerprint", json_str(a, m->fingerprint));
	json_set(a, o, "node_count", json_clone(a, json_get(cl, "node_count")));
	json_set(a, o, "capacity_gpus", json_clone(a, json_get(cl, "capacity_gpus")));
	json_set(a, o, "simulation_start", json_real(a, json_num(json_get(cl, "simulation_start"))));
	json_set(a, o, "simulation_end", json_real(a, json_num(json_get(cl, "simulation_end"))));
	/* 3. the catalogue */
	static const char *const alloc_keys[] = { "allocation_rate_mean", "allocated_gpu_seconds", "warmup_allocated_gpu_seconds",
		"evaluation_allocated_gpu_seconds", "drain_allocated_gpu_seconds", NULL };
	for (const char *const *k = alloc_keys; *k; k++)
		json_set(a, o, *k, json_real(a, json_num(json_get(cl, *k))));
	struct class_stats hp, spot;
	class_stats(m, true, &hp);
	class_stats(m, false, &spot);
	set_class(a, o, "hp", &hp, false);
	set_class(a, o, "spot", &spot, true);
	double ee = json_num(json_get(h, "evaluation_end"));
	/* Ev: events whose victim is an evaluation Spot job; Ru: runs of evaluation Spot jobs. */
	long long ev = 0, ev_in = 0, ev_drain = 0, victims = 0;
	double rb = 0, ov = 0, add = 0;
	unsigned char *seen = xcalloc(m->n_jobs + 1, 1);
	for (size_t i = 0; i < m->n_events; i++) {
		const struct result_event *e = &m->events[i];
		const struct result_job *j = &m->jobs[e->victim];
		if (!j->eval_pop || j->hp)
			continue;
		ev++;
		rb += e->rollback;
		ov += e->overhead;
		add += e->added;
		if (e->time <= ee)
			ev_in++;
		else
			ev_drain++;
		if (!seen[e->victim]) {
			seen[e->victim] = 1;
			victims++;
		}
	}
	free(seen);
	long long ru = 0, ru_in = 0, ru_drain = 0, succ = 0;
	bool all_ok = true;
	for (size_t i = 0; i < m->n_runs; i++) {
		const struct result_run *x = &m->runs[i];
		const struct result_job *j = &m->jobs[x->job];
		if (!j->eval_pop || j->hp)
			continue;
		ru++;
		if (x->start <= ee)
			ru_in++;
		else
			ru_drain++;
		succ += x->succeeded;
		if (!x->succeeded && !x->preempted)
			all_ok = false;
	}
	json_set(a, o, "spot_run_count", json_int(a, ru));
	json_set(a, o, "spot_eviction_rate_per_run", json_real_or_null(a, ru > 0, ru > 0 ? (double)ev / (double)ru : 0));
	json_set(a, o, "preemption_event_count", json_int(a, ev));
	json_set(a, o, "preemption_added_gpu_seconds", ev ? json_real(a, add) : json_int(a, 0));
	json_set(a, o, "preemption_rollback_seconds", ev ? json_real(a, rb) : json_int(a, 0));
	json_set(a, o, "preemption_overhead_seconds", ev ? json_real(a, ov) : json_int(a, 0));
	json_set(a, o, "spot_guarantee_success_rate", json_real_or_null(a, ru > 0, ru > 0 ? (double)succ / (double)ru : 0));
	json_set(a, o, "spot_guarantee_succeeded_count", json_int(a, succ));
	json_set(a, o, "spot_guarantee_failed_count", json_int(a, ru - succ));
	/* 4. extras */
	json_set(a, o, "hp_preempted_job_rate", json_real_or_null(a, hp.n > 0, hp.n > 0 ? (double)hp.preempted_jobs / (double)hp.n : 0));
	json_set(a, o, "preempted_job_count", json_int(a, victims));
	json_set(a, o, "preemption_events_during_evaluation_window", json_int(a, ev_in));
	json_set(a, o, "preemption_events_during_drain", json_int(a, ev_drain));
	json_set(a, o, "spot_runs_during_evaluation_window", json_int(a, ru_in));
	json_set(a, o, "spot_runs_during_drain", json_int(a, ru_drain));
	if (m->any_time_out) {   /* issue 37: only when some job ended at its time limit (TIMEOUT) */
		json_set(a, o, "hp_timed_out_job_count", json_int(a, hp.timed_out));
		json_set(a, o, "spot_timed_out_job_count", json_int(a, spot.timed_out));
	}
	/* 5. ledger flags */
	json_set(a, o, "preemption_ledger_consistent", json_bool(a, ev == spot.preemptions));
	json_set(a, o, "spot_run_ledger_consistent", json_bool(a, ru == spot.runs));
	json_set(a, o, "spot_guarantee_ledger_consistent", json_bool(a, ru - succ <= ev && all_ok));
	/* 6. the summaries of the families of records above sim (the controller's
	 * predictive_control, docs/predictive.md "The records"; roll's rolling_control) */
	for (size_t x = 0; m->exts && m->exts[x]; x++)
		if (m->summary[x])
			json_set(a, o, m->exts[x]->metrics_key, m->exts[x]->metrics_block(a, h, m->summary[x]));
	return o;
}
