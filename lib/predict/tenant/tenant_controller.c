/* The tenant controller's state machine (docs/predictive-rules.md §2): sampling, the decision
 * grid, retraining, the per-pool feedback and quotas and scoring; its two records are written
 * by tenant_records.c. */
#include "predict/tenant/tenant_controller.h"
#include "predict/tenant/tenant_controller_internal.h"
#include "core/clock.h"
#include "core/num.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EPS PT_EPS

static double cpu_now(const struct pt_controller *tc)
{
	if (!tc->timing)
		return 0.0;
	return clock_cpu();
}

const char *pt_reason_name(const struct pt_pool_decision *pd)
{
	if (pd->skipped)
		return "no_new_events";
	switch (pd->reason) {
	case PC_HIGH_EVICTION_DECREASE: return "high_eviction";
	case PC_LOW_EVICTION_BACKLOG_INCREASE: return "low_eviction_high_queue";
	default: return "unchanged";
	}
}

const char *pt_event_kind_name(enum pt_event_kind k)
{
	static const char *const names[] = { "job_completed", "preempted", "guarantee_duration_completed" };
	return names[k];
}

static void decision_alloc(struct pt_decision *d, size_t n_pools, size_t n_horizons, size_t steps)
{
	memset(d, 0, sizeof *d);
	d->points = xcalloc(n_pools * steps + 1, sizeof *d->points);
	d->pools = xcalloc(n_pools, sizeof *d->pools);
	d->quota = xcalloc(n_horizons, sizeof *d->quota);
	for (size_t p = 0; p < n_pools; p++) {
		d->pools[p].quota = xcalloc(n_horizons, sizeof *d->pools[p].quota);
		d->pools[p].free = xcalloc(n_horizons, sizeof *d->pools[p].free);
	}
}

static void decision_release(struct pt_decision *d, size_t n_pools)
{
	if (d->pools)
		for (size_t p = 0; p < n_pools; p++) {
			free(d->pools[p].quota);
			free(d->pools[p].free);
		}
	free(d->pools);
	free(d->points);
	free(d->quota);
	memset(d, 0, sizeof *d);
}

static void decision_copy(struct pt_decision *dst, const struct pt_decision *src, size_t n_pools, size_t n_horizons,
                          size_t steps)
{
	struct pt_est_point *pts = dst->points;
	struct pt_pool_decision *pools = dst->pools;
	long long *quota = dst->quota;
	*dst = *src;
	dst->points = pts;
	dst->pools = pools;
	dst->quota = quota;
	memcpy(dst->points, src->points, (n_pools * steps + 1) * sizeof *src->points);
	memcpy(dst->quota, src->quota, n_horizons * sizeof *src->quota);
	for (size_t p = 0; p < n_pools; p++) {
		long long *q = dst->pools[p].quota;
		double *f = dst->pools[p].free;
		dst->pools[p] = src->pools[p];
		dst->pools[p].quota = q;
		dst->pools[p].free = f;
		memcpy(q, src->pools[p].quota, n_horizons * sizeof *q);
		memcpy(f, src->pools[p].free, n_horizons * sizeof *f);
	}
}

struct pt_controller *pt_open(const struct pc_config *pc, const char *const *pools, const double *capacities,
                               size_t n_pools, const char *time_origin, double start, double evidence_start,
                               double evidence_end, size_t n_jobs, char *err, size_t errlen)
{
	struct pc_cal_origin origin;
	const struct pt_config *cfg = pc->tenant;
	if (!cfg) {
		snprintf(err, errlen, "controller '%s' is not a tenant controller", pc->controller_id);
		return NULL;
	}
	if (!n_pools) {
		snprintf(err, errlen, "the tenant controller needs at least one resource pool");
		return NULL;
	}
	for (size_t p = 0; p < n_pools; p++)
		if (!(capacities[p] > 0) || !isfinite(capacities[p])) {
			snprintf(err, errlen, "resource pool '%s' needs positive capacity", pools[p]);
			return NULL;
		}
	if (!isfinite(start) || !isfinite(evidence_start) || !isfinite(evidence_end) || evidence_end + EPS < evidence_start) {
		snprintf(err, errlen, "the evidence window end cannot precede its start");
		return NULL;
	}
	if (pc_cal_origin_parse(time_origin, &origin)) {
		snprintf(err, errlen, "time_origin '%s' is not an ISO 8601 date-time", time_origin ? time_origin : "");
		return NULL;
	}
	struct pt_controller *tc = xcalloc(1, sizeof *tc);
	tc->pc = pc;
	tc->cfg = cfg;
	if (pc_cal_load(&tc->cal, cfg->business_calendar, err, errlen))
		goto fail;
	/* every date a window's target start can take must be covered */
	if (pc_cal_check_span(&tc->cal, &origin, start, evidence_end + (double)cfg->horizon_hours * 3600.0, err, errlen))
		goto fail;
	/* idle spans (issue 35): every sample is a record of the history and every fifth one a
	 * decision written, so a longer span is refused, not walked (docs/hardening.md) */
	if (evidence_end - start > PT_MAX_SPAN_SECONDS) {
		snprintf(err, errlen,
		         "the tenant controller samples every %lld s from the first submit (%.17g s) to its evidence end (%.17g s): "
		         "%.9g days, more than its bound of 3,650 days; replay a window of the trace (trace-window) or use an "
		         "aggregate controller (predictive-spot-v1)",
		         (long long)cfg->sample_interval_seconds, start, evidence_end, (evidence_end - start) / 86400.0);
		goto fail;
	}
	tc->points_per_hour = (size_t)(3600 / cfg->sample_interval_seconds);
	tc->samples_per_decision = (size_t)(cfg->quota_interval_seconds / cfg->sample_interval_seconds);
	if (pt_hist_init(&tc->hist, start, (double)cfg->sample_interval_seconds, (int)tc->points_per_hour,
	            (int)(cfg->stride_seconds / cfg->sample_interval_seconds), pools, n_pools, err, errlen))
		goto fail;
	/* the history runs from the start to the evidence end: size it once */
	double span = evidence_end - start;
	if (span > 0 && span < 1e9)
		pt_hist_reserve(&tc->hist, (size_t)(span / 3600.0) + 2, (size_t)(span / (double)cfg->sample_interval_seconds) + 2);
	struct pt_est_config ec = { .kind = cfg->estimator, .lookback_hours = (int)cfg->lookback_hours,
		                 .horizon_hours = (int)cfg->horizon_hours, .validation_hours = (int)cfg->validation_hours,
		                 .moving_average_window = (int)cfg->moving_average_window,
		                 .probability = cfg->guarantee_probability, .calibrate = cfg->calibration_method != NULL,
		                 .calendar = &tc->cal, .origin = origin };
	memcpy(ec.controller_fingerprint, cfg->fingerprint, sizeof ec.controller_fingerprint);
	if (pt_est_init(&tc->est, &ec, err, errlen))
		goto fail;
	tc->n_pools = tc->hist.n_pools;
	tc->n_horizons = cfg->n_horizons;
	tc->steps = (size_t)cfg->horizon_hours;
	tc->capacity = xcalloc(tc->n_pools, sizeof *tc->capacity);
	for (size_t i = 0; i < n_pools; i++) {
		size_t p;
		pt_hist_pool_index(&tc->hist, pools[i], &p);
		tc->capacity[p] = capacities[i];
	}
	tc->eta = xcalloc(tc->n_pools, sizeof *tc->eta);
	tc->running_spot = xcalloc(tc->n_pools, sizeof *tc->running_spot);
	tc->running_spot_runs = xcalloc(tc->n_pools, sizeof *tc->running_spot_runs);
	for (size_t p = 0; p < tc->n_pools; p++)
		tc->eta[p] = cfg->initial_eta;
	tc->fb = xcalloc(tc->n_pools, sizeof *tc->fb);
	tc->by_kind = xcalloc(tc->n_pools * PT_EVENT_KINDS, sizeof *tc->by_kind);
	tc->start = start;
	tc->evidence_start = evidence_start;
	tc->evidence_end = evidence_end;
	tc->next_sample = tc->next_quota = start;
	tc->next_retrain = evidence_start;
	tc->n_jobs = n_jobs;
	tc->runs = xcalloc(n_jobs + 1, sizeof *tc->runs);
	tc->admitted = xcalloc(tc->n_pools, sizeof *tc->admitted);
	decision_alloc(&tc->last, tc->n_pools, tc->n_horizons, tc->steps);
	tc->pend = xcalloc(tc->steps, sizeof *tc->pend);
	tc->pend_head = xcalloc(tc->steps, sizeof *tc->pend_head);
	tc->pend_n = xcalloc(tc->steps, sizeof *tc->pend_n);
	tc->pend_cap = xcalloc(tc->steps, sizeof *tc->pend_cap);
	return tc;
fail:
	pt_close(tc);
	return NULL;
}

void pt_close(struct pt_controller *tc)
{
	if (!tc)
		return;
	pc_cal_release(&tc->cal);
	if (tc->hist.pools)
		pt_hist_release(&tc->hist);
	pt_est_release(&tc->est);
	if (tc->fb)
		for (size_t p = 0; p < tc->n_pools; p++)
			pt_fb_release(&tc->fb[p]);
	free(tc->fb);
	free(tc->capacity);
	free(tc->eta);
	free(tc->running_spot);
	free(tc->running_spot_runs);
	free(tc->by_kind);
	free(tc->series_runs);
	free(tc->series_value);
	free(tc->runs);
	free(tc->heap);
	free(tc->admitted);
	decision_release(&tc->last, tc->n_pools);
	if (tc->pend)
		for (size_t k = 0; k < tc->steps; k++)
			free(tc->pend[k]);
	free(tc->pend);
	free(tc->pend_head);
	free(tc->pend_n);
	free(tc->pend_cap);
	free(tc);
}

static void *dup_mem(const void *p, size_t n)
{
	void *q = xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

struct pt_controller *pt_clone(const struct pt_controller *s)
{
	char err[256];
	struct pt_controller *d = xmalloc(sizeof *d);
	*d = *s;
	/* the calendar's tables are read-only after load: share nothing, copy them */
	d->cal.years = dup_mem(s->cal.years, s->cal.n_years * sizeof *s->cal.years);
	d->cal.holidays = dup_mem(s->cal.holidays, s->cal.n_holidays * sizeof *s->cal.holidays);
	d->cal.makeup = dup_mem(s->cal.makeup, s->cal.n_makeup * sizeof *s->cal.makeup);
	pt_hist_clone(&d->hist, &s->hist, err, sizeof err);
	pt_est_clone(&d->est, &s->est);
	d->est.cfg.calendar = &d->cal;
	d->capacity = dup_mem(s->capacity, s->n_pools * sizeof *s->capacity);
	d->eta = dup_mem(s->eta, s->n_pools * sizeof *s->eta);
	d->running_spot = dup_mem(s->running_spot, s->n_pools * sizeof *s->running_spot);
	d->running_spot_runs = dup_mem(s->running_spot_runs, s->n_pools * sizeof *s->running_spot_runs);
	d->fb = xcalloc(s->n_pools, sizeof *d->fb);
	for (size_t p = 0; p < s->n_pools; p++)
		pt_fb_clone(&d->fb[p], &s->fb[p]);
	d->by_kind = dup_mem(s->by_kind, s->n_pools * PT_EVENT_KINDS * sizeof *s->by_kind);
	d->series_runs = dup_mem(s->series_runs, s->cap_series * sizeof *s->series_runs);
	d->series_value = dup_mem(s->series_value, s->cap_series * sizeof *s->series_value);
	d->runs = dup_mem(s->runs, (s->n_jobs + 1) * sizeof *s->runs);
	d->heap = dup_mem(s->heap, s->cap_heap * sizeof *s->heap);
	d->admitted = dup_mem(s->admitted, s->n_pools * sizeof *s->admitted);
	decision_alloc(&d->last, s->n_pools, s->n_horizons, s->steps);
	decision_copy(&d->last, &s->last, s->n_pools, s->n_horizons, s->steps);
	d->pend = xcalloc(s->steps, sizeof *d->pend);
	for (size_t k = 0; k < s->steps; k++)
		d->pend[k] = dup_mem(s->pend[k], s->pend_cap[k] * sizeof *s->pend[k]);
	d->pend_head = dup_mem(s->pend_head, s->steps * sizeof *s->pend_head);
	d->pend_n = dup_mem(s->pend_n, s->steps * sizeof *s->pend_n);
	d->pend_cap = dup_mem(s->pend_cap, s->steps * sizeof *s->pend_cap);
	return d;
}

void pt_set_sink(struct pt_controller *tc, pt_sink sink, void *ctx)
{
	tc->sink = sink;
	tc->sink_ctx = ctx;
}

int pt_pool_index(const struct pt_controller *tc, const char *pool)
{
	size_t p;
	return pt_hist_pool_index(&tc->hist, pool, &p) ? -1 : (int)p;
}

size_t pt_pool_count(const struct pt_controller *tc)
{
	return tc->n_pools;
}

const char *pt_pool_name(const struct pt_controller *tc, size_t pool)
{
	return tc->hist.pools[pool];
}

/* ---- observations from the driver ---- */

int pt_hp_run(struct pt_controller *tc, const char *pool, const char *tenant, double gpus, bool started, char *err,
              size_t errlen)
{
	size_t i;
	if (started) {
		if (pt_hist_series_index(&tc->hist, pool, tenant, &i, err, errlen))
			return -1;
	} else if (pt_hist_find_series(&tc->hist, pool, tenant, &i)) {
		snprintf(err, errlen, "HP run of tenant '%s' on pool '%s' stopped without starting", tenant, pool);
		return -1;
	}
	if (tc->hist.n_series > tc->cap_series) {
		size_t cap = tc->cap_series ? tc->cap_series * 2 : 64;
		while (cap < tc->hist.n_series)
			cap *= 2;
		tc->series_runs = xrealloc(tc->series_runs, cap * sizeof *tc->series_runs);
		tc->series_value = xrealloc(tc->series_value, cap * sizeof *tc->series_value);
		for (size_t k = tc->cap_series; k < cap; k++) {
			tc->series_runs[k] = 0;
			tc->series_value[k] = 0;
		}
		tc->cap_series = cap;
	}
	if (started) {
		tc->series_runs[i]++;
		tc->series_value[i] += gpus;
	} else {
		if (!tc->series_runs[i]) {
			snprintf(err, errlen, "HP run of tenant '%s' on pool '%s' stopped without starting", tenant, pool);
			return -1;
		}
		tc->series_runs[i]--;
		tc->series_value[i] -= gpus;
		/* no drift: a series with nothing running reads exactly 0 */
		if (!tc->series_runs[i] || tc->series_value[i] < 0)
			tc->series_value[i] = 0;
	}
	pt_hist_set(&tc->hist, i, tc->series_value[i]);
	return 0;
}

static bool wake_less(const struct pt_wake *a, const struct pt_wake *b)
{
	return a->t < b->t || (a->t == b->t && a->job < b->job);
}

static void heap_push(struct pt_controller *tc, double t, size_t job)
{
	tc->heap = xgrow(tc->heap, &tc->cap_heap, tc->n_heap + 1, sizeof *tc->heap);
	size_t i = tc->n_heap++;
	tc->heap[i] = (struct pt_wake){ t, job };
	while (i && wake_less(&tc->heap[i], &tc->heap[(i - 1) / 2])) {
		struct pt_wake x = tc->heap[i];
		tc->heap[i] = tc->heap[(i - 1) / 2];
		tc->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct pt_controller *tc)
{
	tc->heap[0] = tc->heap[--tc->n_heap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < tc->n_heap && wake_less(&tc->heap[l], &tc->heap[m]))
			m = l;
		if (r < tc->n_heap && wake_less(&tc->heap[r], &tc->heap[m]))
			m = r;
		if (m == i)
			break;
		struct pt_wake x = tc->heap[i];
		tc->heap[i] = tc->heap[m];
		tc->heap[m] = x;
		i = m;
	}
}

/* Drop wake-ups whose run closed or moved on. */
static void heap_clean(struct pt_controller *tc)
{
	while (tc->n_heap) {
		const struct pt_wake *w = &tc->heap[0];
		const struct pt_spot_run *r = &tc->runs[w->job];
		if (r->active && r->guarantee > 0 && r->checkpoint + r->guarantee == w->t)
			return;
		heap_pop(tc);
	}
}

static void feedback_event(struct pt_controller *tc, size_t pool, double time, bool failure, double weight,
                           enum pt_event_kind kind)
{
	/* no decision reads an event older than its own time minus the window, and every
	 * later decision is at least this event's time (less EPS): before the window grows,
	 * forget what no later decision can read (a 1-s margin keeps the rounding of now -
	 * window out of it). After the evidence end no decision prunes the window at all, and a
	 * long Spot run adds a guarantee event every period. */
	struct pt_fb_window *f = &tc->fb[pool];
	if (f->n == f->cap)
		pt_fb_forget_before(f, time - (double)tc->cfg->feedback_window_seconds - 1.0);
	pt_fb_add(f, time, failure, weight);
	tc->by_kind[pool * PT_EVENT_KINDS + kind] += weight;
}

void pt_spot_run_started(struct pt_controller *tc, size_t job, size_t pool, double nodes, double gpus, double now,
                         double guarantee_seconds)
{
	if (job >= tc->n_jobs || pool >= tc->n_pools || tc->runs[job].active)
		return;
	tc->runs[job] = (struct pt_spot_run){ .active = true, .pool = pool, .nodes = nodes, .gpus = gpus,
		                           .guarantee = guarantee_seconds, .checkpoint = now };
	tc->running_spot[pool] += gpus;
	tc->running_spot_runs[pool]++;
	tc->admitted[pool]++;
	if (guarantee_seconds > 0)
		heap_push(tc, now + guarantee_seconds, job);
	heap_clean(tc);
}

void pt_spot_run_closed(struct pt_controller *tc, size_t job, double now, bool evicted)
{
	if (job >= tc->n_jobs || !tc->runs[job].active)
		return;
	struct pt_spot_run *r = &tc->runs[job];
	if (r->nodes > 0)
		feedback_event(tc, r->pool, now, evicted, r->nodes, evicted ? PT_EVENT_PREEMPTED : PT_EVENT_COMPLETED);
	r->active = false;
	/* no drift: a pool with no Spot run reads exactly 0 */
	if (!--tc->running_spot_runs[r->pool] || tc->running_spot[r->pool] - r->gpus < 0)
		tc->running_spot[r->pool] = 0;
	else
		tc->running_spot[r->pool] -= r->gpus;
	heap_clean(tc);
}

/* After the evidence end no decision reads a feedback event, and the report only counts
 * them: the guarantee periods of a long idle span (more than PT_IDLE_MIN_PERIODS) are added
 * at once, all but the last, when every sum stays exact (integers below 2^53: the same
 * doubles as one addition per period). */
static void batch_periods(struct pt_controller *tc, struct pt_spot_run *r, double now)
{
	double g = r->guarantee;
	if (now <= tc->evidence_end + EPS || !(g > 0) || g != floor(g) || r->checkpoint != floor(r->checkpoint) || r->nodes != floor(r->nodes))
		return;
	double n = floor((now + EPS - r->checkpoint) / g), m = n - 1, end = r->checkpoint + m * g;
	struct pt_fb_window *f = &tc->fb[r->pool];
	double *k = &tc->by_kind[r->pool * PT_EVENT_KINDS + PT_EVENT_GUARANTEE], w = m * r->nodes;
	if (!(n > PT_IDLE_MIN_PERIODS) || end >= 0x1p53 || f->success_weight + w >= 0x1p53 || *k + w >= 0x1p53 || *k != floor(*k) ||
	    f->success_weight != floor(f->success_weight))
		return;
	if (r->nodes > 0) {
		f->event_count += (long long)m;
		f->version += (unsigned long long)m;
		f->success_weight += w;
		*k += w;
	}
	r->checkpoint = end;
}

void pt_after_advance(struct pt_controller *tc, double now)
{
	for (heap_clean(tc); tc->n_heap && tc->heap[0].t <= now + EPS; heap_clean(tc)) {
		size_t job = tc->heap[0].job;
		struct pt_spot_run *r = &tc->runs[job];
		heap_pop(tc);
		batch_periods(tc, r, now);
		while (r->checkpoint + r->guarantee <= now + EPS) {
			r->checkpoint += r->guarantee;
			if (r->nodes > 0)
				feedback_event(tc, r->pool, r->checkpoint, false, r->nodes, PT_EVENT_GUARANTEE);
		}
		heap_push(tc, r->checkpoint + r->guarantee, job);
	}
}

double pt_next_wakeup(const struct pt_controller *tc, double after)
{
	double t = INFINITY;
	if (tc->next_sample > after + EPS)
		t = tc->next_sample;
	if (after < tc->evidence_end - EPS && tc->evidence_end < t)
		t = tc->evidence_end;
	/* every mutation cleans the heap, so its top is a live run's next period end */
	if (tc->n_heap && tc->heap[0].t > after + EPS && tc->heap[0].t < t)
		t = tc->heap[0].t;
	return t;
}

double pt_next_wakeup_idle(const struct pt_controller *tc, double after, double engine_next)
{
	double t = pt_next_wakeup(tc, after);
	if (tc->n_heap && t == tc->heap[0].t && tc->next_sample == INFINITY && after > tc->evidence_end + EPS && engine_next < INFINITY &&
	    engine_next - t > PT_IDLE_MIN_PERIODS * tc->runs[tc->heap[0].job].guarantee)
		return INFINITY;        /* the periods until engine_next: pt_after_advance adds them then */
	return t;
}

bool pt_update_due(const struct pt_controller *tc, double now)
{
	return now + EPS >= tc->next_sample;
}

bool pt_update_decides(const struct pt_controller *tc, double now)
{
	return pt_update_due(tc, now) && now <= tc->evidence_end + EPS && now + EPS >= tc->next_quota &&
	       now + EPS >= tc->evidence_start;
}

double pt_running_spot(const struct pt_controller *tc, size_t pool)
{
	return pool < tc->n_pools ? tc->running_spot[pool] : 0;
}

double pt_evidence_start(const struct pt_controller *tc)
{
	return tc->evidence_start;
}

double pt_evidence_end(const struct pt_controller *tc)
{
	return tc->evidence_end;
}

bool pt_gate_active(const struct pt_controller *tc, double now)
{
	return !(now < tc->evidence_start - EPS || now >= tc->evidence_end - EPS);
}

long long pt_decision_quota(const struct pt_decision *d, size_t pool, int horizon_index)
{
	return d && horizon_index >= 0 ? d->pools[pool].quota[horizon_index] : 0;
}

bool pt_allows_spot_frozen(const struct pt_decision *d, size_t pool, int horizon_index, double requested,
                           double running_pool)
{
	return running_pool + requested <= (double)pt_decision_quota(d, pool, horizon_index) + EPS;
}

bool pt_allows_spot(const struct pt_controller *tc, size_t pool, int horizon_index, double requested, double running_pool)
{
	/* before the first decision every quota is 0 */
	return pt_allows_spot_frozen(tc->have_last ? &tc->last : NULL, pool, horizon_index, requested, running_pool);
}

/* ---- the update ---- */

static void pend_push(struct pt_controller *tc, size_t k, struct pt_pending x)
{
	if (tc->pend_head[k] && tc->pend_n[k] == tc->pend_cap[k]) {
		memmove(tc->pend[k], tc->pend[k] + tc->pend_head[k], (tc->pend_n[k] - tc->pend_head[k]) * sizeof **tc->pend);
		tc->pend_n[k] -= tc->pend_head[k];
		tc->pend_head[k] = 0;
	}
	tc->pend[k] = xgrow(tc->pend[k], &tc->pend_cap[k], tc->pend_n[k] + 1, sizeof **tc->pend);
	tc->pend[k][tc->pend_n[k]++] = x;
}

static void score(struct pt_controller *tc, size_t sample)
{
	double p = tc->cfg->guarantee_probability;
	for (size_t k = 0; k < tc->steps; k++)
		while (tc->pend_head[k] < tc->pend_n[k] && tc->pend[k][tc->pend_head[k]].sample <= sample) {
			struct pt_pending x = tc->pend[k][tc->pend_head[k]++];
			if (x.sample != sample)
				continue;  /* cannot happen: every sample is recorded */
			double actual = pt_hist_pool_total(&tc->hist, x.pool, sample);
			double error = tc->cfg->quirks_fixed ? actual - x.mu : x.mu - actual;
			double residual = actual - x.q;
			tc->scores.n++;
			tc->scores.abs_error += fabs(error);
			tc->scores.error += error;
			tc->scores.actual += actual;
			tc->scores.covered += actual <= x.q + EPS;
			tc->scores.pinball += residual >= 0 ? p * residual : (p - 1) * residual;
		}
}

static bool inside_evidence(const struct pt_controller *tc, double now)
{
	return tc->evidence_start - EPS <= now && now <= tc->evidence_end + EPS;
}

static int decide(struct pt_controller *tc, double now, const struct pt_observation *obs, char *err, size_t errlen)
{
	const struct pt_config *c = tc->cfg;
	struct pt_decision *d = &tc->last;
	struct pt_history *h = &tc->hist;
	size_t n = h->n_samples - 1;
	d->now = now;
	d->sample_index = n;
	d->history_ready = h->n_series > 0 &&
	                   now - h->first_time >= (double)pt_minimum_history_hours(c) * 3600.0 - EPS;
	d->training_performed = false;
	if (d->history_ready &&
	    (!tc->est.trained || now + EPS >= tc->next_retrain || tc->est.fit_series != h->n_series)) {
		double t0 = cpu_now(tc);
		int fit = pt_est_fit(&tc->est, h, now, err, errlen);
		tc->cpu.training += cpu_now(tc) - t0;
		if (fit)
			return -1;
		tc->next_retrain = now + (double)c->retrain_interval_seconds;
		d->training_performed = true;
	}
	for (size_t p = 0; p < tc->n_pools; p++) {
		struct pt_pool_decision *pd = &d->pools[p];
		pd->obs = obs->pools[p];
		pd->eta_before = tc->eta[p];
		struct pt_fb_window *fb = &tc->fb[p];
		double total, failed;
		pd->has_rate = pt_fb_rate(fb, now, (double)c->feedback_window_seconds, &total, &failed);
		pd->event_weight = total;
		pd->eviction_rate = pd->has_rate ? failed / total : 0;
		pd->skipped = c->quirks_fixed && fb->version == fb->evaluated;   /* Q1 fixed: new evidence only */
		if (pd->skipped)
			pd->reason = PC_NO_NEW_COMPLETED_RUNS;
		else {
			fb->evaluated = fb->version;
			tc->eta[p] = pc_eta_per_decision(tc->eta[p], failed, total, obs->pools[p].maximum_spot_wait_seconds, tc->pc,
							 (double)c->queue_wait_threshold_seconds, &pd->reason);
		}
		pd->eta_after = tc->eta[p];
		pd->hp_running_gpus = pt_hist_pool_total(h, p, n);
	}
	d->n_points = 0;
	if (tc->est.trained && pt_est_forecast(&tc->est, h, now, d->points, &d->n_points, err, errlen))
		return -1;
	for (size_t i = 0; i < d->n_points; i++) {
		const struct pt_est_point *pt = &d->points[i];
		if (pt->target <= tc->evidence_end + EPS)
			pend_push(tc, (size_t)pt->step - 1,
			          (struct pt_pending){ .sample = n + (size_t)pt->step * tc->points_per_hour, .pool = pt->pool,
			                            .mu = pt->mu, .q = pt->quantile });
	}
	struct pc_point q[PT_EST_MAX_STEPS];
	for (size_t hi = 0; hi < tc->n_horizons; hi++)
		d->quota[hi] = 0;
	d->eta = INFINITY;
	for (size_t p = 0, i = 0; p < tc->n_pools; p++) {
		struct pt_pool_decision *pd = &d->pools[p];
		size_t nq = 0;
		while (i < d->n_points && d->points[i].pool == p)
			q[nq++].q = d->points[i++].quantile;
		struct pc_quota_input in = { .points = q, .n = nq, .capacity = tc->capacity[p], .eta = tc->eta[p],
					     .floor_before_subtract = tc->pc->sw.floor_before_subtract,
					     .inventory_cap = tc->pc->sw.inventory_cap, .idle_gpus = pd->obs.idle_gpus,
					     .running_spot_gpus = pd->obs.running_spot_gpus };
		for (size_t hi = 0; hi < tc->n_horizons; hi++) {
			pd->quota[hi] = pc_quota(&in, c->horizons[hi]);
			pd->free[hi] = num_round(pc_quota_free(&in, c->horizons[hi]), 6);
			d->quota[hi] += pd->quota[hi];
		}
		pd->starvation = pd->quota[0] == 0 && pd->obs.idle_gpus > EPS && pd->obs.spot_backlog_gpus > EPS;
		pd->admitted_runs = tc->admitted[p];
		tc->admitted[p] = 0;
		pd->held_jobs = 0;
		if (obs->gating && obs->count_queued_spot) {
			double headroom = (double)pd->quota[obs->gate_horizon] - pd->obs.running_spot_gpus + EPS;
			pd->held_jobs = obs->count_queued_spot(obs->count_ctx, p, headroom, pd->obs.idle_gpus + EPS);
		}
		if (tc->eta[p] < d->eta)
			d->eta = tc->eta[p];
	}
	d->hp_outstanding_gpus = obs->hp_outstanding_gpus;
	d->spot_backlog_gpus = obs->spot_backlog_gpus;
	d->running_spot_gpus = obs->running_spot_gpus;
	double hp = 0;
	for (size_t p = 0; p < tc->n_pools; p++)
		hp += d->pools[p].hp_running_gpus;
	d->hp_running_gpus = hp;
	d->retained = inside_evidence(tc, now);
	tc->decision_count++;
	tc->have_last = true;
	if (d->retained) {
		if (!tc->retained_count)
			tc->first_cutoff = now;
		tc->last_cutoff = now;
		for (size_t p = 0; p < tc->n_pools; p++) {
			const struct pt_pool_decision *pd = &d->pools[p];
			double e = num_round(pd->eta_after, 9);
			if (!tc->retained_count && !p)
				tc->eta_min = tc->eta_max = e;
			tc->eta_min = e < tc->eta_min ? e : tc->eta_min;
			tc->eta_max = e > tc->eta_max ? e : tc->eta_max;
			for (size_t hi = 0; hi < tc->n_horizons; hi++) {
				long long v = pd->quota[hi];
				if (!tc->quota_n)
					tc->quota_min = tc->quota_max = v;
				tc->quota_min = v < tc->quota_min ? v : tc->quota_min;
				tc->quota_max = v > tc->quota_max ? v : tc->quota_max;
				tc->quota_sum += (double)v;
				tc->quota_n++;
			}
			tc->pool_updates++;
			if (pd->starvation) {
				tc->flagged++;
				tc->flagged_idle_seconds += pd->obs.idle_gpus * (double)c->quota_interval_seconds;
				if (pd->obs.maximum_spot_wait_seconds > tc->flagged_max_wait)
					tc->flagged_max_wait = pd->obs.maximum_spot_wait_seconds;
			}
		}
		tc->retained_count++;
	}
	if (tc->sink) {
		double t0 = cpu_now(tc);
		tc->sink(tc->sink_ctx, tc, d);
		tc->cpu.records += cpu_now(tc) - t0;
	}
	return 1;
}

int pt_update(struct pt_controller *tc, double now, const struct pt_observation *obs, char *err, size_t errlen)
{
	if (!pt_update_due(tc, now)) {
		snprintf(err, errlen, "controller update at %.17g before the next sample time %.17g", now, tc->next_sample);
		return -1;
	}
	tc->last_update_decided = false;
	if (now > tc->evidence_end + EPS) {
		tc->next_sample = INFINITY;
		return 0;
	}
	double t0 = cpu_now(tc);
	if (pt_hist_sample(&tc->hist, now, err, errlen))
		return -1;
	score(tc, tc->hist.n_samples - 1);
	tc->cpu.sampling += cpu_now(tc) - t0;
	tc->next_sample = now + (double)tc->cfg->sample_interval_seconds;
	if (now + EPS < tc->next_quota)
		return 0;
	tc->next_quota = now + (double)tc->cfg->quota_interval_seconds;
	if (now + EPS < tc->evidence_start)
		return 0;
	t0 = cpu_now(tc);
	double before = tc->cpu.training + tc->cpu.records;
	int rc = decide(tc, now, obs, err, errlen);
	tc->cpu.deciding += cpu_now(tc) - t0 - (tc->cpu.training + tc->cpu.records - before);
	if (rc == 1)
		tc->last_update_decided = true;
	return rc;
}

const struct pt_decision *pt_last_decision(const struct pt_controller *tc)
{
	return tc->have_last ? &tc->last : NULL;
}

const struct pt_decision *pt_latest_update(const struct pt_controller *tc)
{
	return tc->last_update_decided ? &tc->last : NULL;
}

const struct pt_config *pt_config(const struct pt_controller *tc)
{
	return tc->cfg;
}

const struct pt_history *pt_history(const struct pt_controller *tc)
{
	return &tc->hist;
}

const struct pt_estimator *pt_estimator(const struct pt_controller *tc)
{
	return &tc->est;
}

double pt_eta(const struct pt_controller *tc, size_t pool)
{
	return tc->eta[pool];
}

const struct pt_fb_window *pt_feedback(const struct pt_controller *tc, size_t pool)
{
	return &tc->fb[pool];
}

size_t pt_decision_count(const struct pt_controller *tc)
{
	return tc->decision_count;
}

const struct pt_scores *pt_scores(const struct pt_controller *tc)
{
	return &tc->scores;
}

void pt_time_parts(struct pt_controller *tc, bool on)
{
	tc->timing = on;
}

const struct pt_cpu *pt_cpu_seconds(const struct pt_controller *tc)
{
	return &tc->cpu;
}
