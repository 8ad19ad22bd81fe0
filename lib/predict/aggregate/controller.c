/*
 * The controller's update (docs/predictive-rules.md §1): sample -> refit if due -> forecast -> feedback
 * -> quota, and the report that scores the retained forecasts. Every comparison and clamp
 * is written as the original's Python min/max/if so that ties and signed zeros behave the
 * same; sums run left to right in time order.
 */
#include "predict/predict.h"
#include "predict/internal.h"
#include "predict/aggregate/aggregate.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reason_names[PC_REASONS] = { "no-new-completed-runs", "inside-feedback-band", "high-eviction-decrease",
	"low-eviction-backlog-increase", "starvation-backlog-increase" };

const char *pc_reason_name(enum pc_reason r)
{
	return reason_names[r];
}

/* Python min(hi, max(lo, x)) */
static double clamp(double x, double lo, double hi)
{
	double m = x > lo ? x : lo;
	return m < hi ? m : hi;
}

int pc_controller_init(struct pc_controller *c, const struct pc_config *cfg, double capacity, double start,
		       bool has_evidence, double evidence_start, double evidence_end, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (!(capacity > 0) || !isfinite(capacity)) {
		snprintf(err, errlen, "capacity_gpus must be positive");
		return -1;
	}
	if (has_evidence && evidence_end < evidence_start) {
		snprintf(err, errlen, "evidence end cannot precede evidence start");
		return -1;
	}
	c->cfg = cfg;
	c->capacity = capacity;
	c->z = pc_normal_quantile(cfg->guarantee_probability);
	c->has_evidence = has_evidence;
	c->evidence_start = evidence_start;
	c->evidence_end = evidence_end;
	c->next_update = start;
	c->next_retrain = start;
	c->n_pools = 1;   /* the cluster family: one pool "*" */
	c->pools = xcalloc(c->n_pools, sizeof *c->pools);
	c->pools[0].name = "*";
	c->pools[0].model = -1;
	c->pools[0].capacity = capacity;
	c->pools[0].eta = cfg->initial_eta;
	c->pools[0].latest_quotas = xcalloc(cfg->n_horizons, sizeof *c->pools[0].latest_quotas);
	c->rs.last_quotas = xcalloc(cfg->n_horizons, sizeof *c->rs.last_quotas);
	c->est = cfg->estimator->create(cfg, capacity);
	return 0;
}

void pc_aggregate_close(struct pc_controller *c)
{
	if (c->est)
		c->cfg->estimator->destroy(c->est);
	for (size_t i = 0; i < c->n_pools; i++) {
		free(c->pools[i].latest_quotas);
		free(c->pools[i].closed);
	}
	free(c->pools);
	free(c->buckets);
	free(c->samples);
	free(c->decisions);
	free(c->points);
	free(c->quotas);
	free(c->targets);
	free(c->rs.last_quotas);
}

static void *dup_array(const void *p, size_t n, size_t elem)
{
	if (!p)
		return NULL;
	void *q = xmalloc(n * elem + 1);
	memcpy(q, p, n * elem);
	return q;
}

void pc_aggregate_clone(struct pc_controller *d, const struct pc_controller *s)
{
	d->pools = dup_array(s->pools, s->n_pools, sizeof *s->pools);
	for (size_t i = 0; i < s->n_pools; i++) {
		d->pools[i].latest_quotas = dup_array(s->pools[i].latest_quotas, s->cfg->n_horizons, sizeof *s->pools[i].latest_quotas);
		d->pools[i].closed = dup_array(s->pools[i].closed, s->pools[i].closed_cap, sizeof *s->pools[i].closed);
	}
	d->buckets = dup_array(s->buckets, s->bucket_cap, sizeof *s->buckets);
	d->samples = dup_array(s->samples, s->cap_samples, sizeof *s->samples);
	d->decisions = dup_array(s->decisions, s->cap_decisions, sizeof *s->decisions);
	d->points = dup_array(s->points, s->cap_points, sizeof *s->points);
	d->quotas = dup_array(s->quotas, s->cap_quotas, sizeof *s->quotas);
	d->targets = dup_array(s->targets, s->cap_targets, sizeof *s->targets);
	d->rs.last_quotas = dup_array(s->rs.last_quotas, s->cfg->n_horizons, sizeof *s->rs.last_quotas);
	d->est = s->cfg->estimator->clone(s->est);
}

void pc_controller_set_sink(struct pc_controller *c, void (*sink)(void *ctx, const struct pc_controller *c, const struct pc_decision *d),
			    void *ctx)
{
	c->sink = sink;
	c->sink_ctx = ctx;
}

bool pc_update_due(const struct pc_controller *c, double now)
{
	return now + PC_EPS >= c->next_update;
}

/* ---- history ---- */

/* A new last hour bucket (t, v); the dropped head (bucket_first) is reclaimed when full. */
static void bucket_append(struct pc_controller *c, double t, double v)
{
	if (c->bucket_n == c->bucket_cap && c->bucket_first > 0) {
		memmove(c->buckets, c->buckets + c->bucket_first, (c->bucket_n - c->bucket_first) * sizeof *c->buckets);
		c->bucket_n -= c->bucket_first;
		c->bucket_first = 0;
	}
	c->buckets = xgrow(c->buckets, &c->bucket_cap, c->bucket_n + 1, sizeof *c->buckets);
	c->buckets[c->bucket_n].t = t;
	c->buckets[c->bucket_n++].v = v;
}

static void observe_sample(struct pc_controller *c, double now, double observed)
{
	/* only a retained forecast's target (<= evidence end + EPS) is ever looked up: a sample
	 * past the evidence window is never read, and the drain can be 3.3e9 updates long */
	if (!c->has_evidence || now <= c->evidence_end + 1.0) {
		c->samples = xgrow(c->samples, &c->cap_samples, c->n_samples + 1, sizeof *c->samples);
		c->samples[c->n_samples].key = num_round(now, 9);
		c->samples[c->n_samples++].v = observed;
	}
	double interval = (double)c->cfg->aggregation_interval_seconds;
	double t = floor(now / interval + PC_EPS) * interval;
	if (c->bucket_n > c->bucket_first && c->buckets[c->bucket_n - 1].t == t) {
		struct pc_bucket *b = &c->buckets[c->bucket_n - 1];
		b->v = b->v > observed ? b->v : observed;   /* max(observed, previous) */
		return;
	}
	bucket_append(c, t, observed > 0.0 ? observed : 0.0);
}

/* Drop buckets older than the lookback for good; the history is the last <= lookback of the rest. */
static const struct pc_bucket *history(struct pc_controller *c, double now, size_t *n)
{
	double lower = now - (double)(c->cfg->lookback_hours * 3600);
	while (c->bucket_first < c->bucket_n && c->buckets[c->bucket_first].t + PC_EPS < lower)
		c->bucket_first++;
	size_t k = c->bucket_n - c->bucket_first, lb = (size_t)c->cfg->lookback_hours;
	/* every retained bucket starts at or before now: buckets are keyed by floor(now / 3600) */
	*n = k < lb ? k : lb;
	return c->buckets + c->bucket_n - *n;
}

/* ---- feedback ---- */

static void closed_push(struct pc_pool *p, double t, bool evicted, double weight)
{
	if (p->closed_n == p->closed_cap) {
		size_t cap = p->closed_cap ? 2 * p->closed_cap : 64;
		struct pc_closed_run *v = xmalloc(cap * sizeof *v);
		for (size_t i = 0; i < p->closed_n; i++)
			v[i] = p->closed[(p->closed_first + i) % p->closed_cap];
		free(p->closed);
		p->closed = v;
		p->closed_cap = cap;
		p->closed_first = 0;
	}
	struct pc_closed_run *r = &p->closed[(p->closed_first + p->closed_n++) % p->closed_cap];
	r->t = t;
	r->evicted = evicted;
	r->weight = weight;
}

void pc_observe_run_end(struct pc_controller *c, size_t pool, double now, bool evicted, double weight)
{
	struct pc_pool *p = &c->pools[pool];
	closed_push(p, now, evicted, weight);
	p->feedback_version++;
	c->events_total++;
	c->events_evicted += evicted;
}

/* The event-triggered eta law of the aggregate controller (§1 Feedback). */
static void feedback(struct pc_controller *c, struct pc_pool *p, double now, double backlog, struct pc_feedback *f)
{
	const struct pc_config *cfg = c->cfg;
	if (backlog > 0) {
		if (!p->backlog_waiting) {
			p->backlog_waiting = true;
			p->backlog_since = now;
		}
	} else
		p->backlog_waiting = false;
	double lower = now - (double)cfg->feedback_window_seconds;
	while (p->closed_n > 0 && !(p->closed[p->closed_first].t + PC_EPS >= lower)) {
		p->closed_first = (p->closed_first + 1) % p->closed_cap;
		p->closed_n--;
	}
	long long count = (long long)p->closed_n, evictions = 0;
	for (size_t i = 0; i < p->closed_n; i++)
		evictions += p->closed[(p->closed_first + i) % p->closed_cap].evicted;
	bool has_rate = count > 0;
	double rate = has_rate ? (double)evictions / (double)count : 0.0;
	double previous = p->eta, target = 1.0 - cfg->guarantee_probability;
	enum pc_reason reason = PC_NO_NEW_COMPLETED_RUNS;
	if (p->feedback_version != p->evaluated_version && has_rate) {
		if (rate >= cfg->high_eviction_ratio * target && rate > 0) {
			p->eta *= target / rate;
			reason = PC_HIGH_EVICTION_DECREASE;
		} else if (rate <= cfg->low_eviction_ratio * target && backlog > 0) {
			p->eta *= 1.0 + cfg->eta_increase_step;
			reason = PC_LOW_EVICTION_BACKLOG_INCREASE;
		} else
			reason = PC_INSIDE_FEEDBACK_BAND;
		p->eta = clamp(p->eta, cfg->minimum_eta, cfg->maximum_eta);
		p->evaluated_version = p->feedback_version;
	} else if (p->backlog_waiting && now - p->backlog_since >= (double)cfg->starvation_increase_after_seconds &&
		   p->eta < cfg->maximum_eta) {
		p->eta *= 1.0 + cfg->eta_increase_step;
		p->eta = clamp(p->eta, cfg->minimum_eta, cfg->maximum_eta);
		reason = PC_STARVATION_BACKLOG_INCREASE;
	}
	f->window_seconds = cfg->feedback_window_seconds;
	f->completed = count;
	f->evicted = evictions;
	f->has_rate = has_rate;
	f->rate = has_rate ? num_round(rate, 9) : 0.0;
	f->target = num_round(target, 9);
	f->previous_eta = num_round(previous, 9);
	f->eta = num_round(p->eta, 9);
	f->reason = reason;
}

double pc_eta_per_decision(double eta, double failure_weight, double total_weight, double longest_wait,
			   const struct pc_config *c, double wait_threshold, enum pc_reason *reason)
{
	*reason = PC_NO_NEW_COMPLETED_RUNS;
	if (!(total_weight > 0))
		return eta;
	double r = failure_weight / total_weight, target = 1.0 - c->guarantee_probability;
	*reason = PC_INSIDE_FEEDBACK_BAND;
	if (r >= c->high_eviction_ratio * target) {
		eta *= target / r;
		*reason = PC_HIGH_EVICTION_DECREASE;
	} else if (r <= c->low_eviction_ratio * target && longest_wait > wait_threshold) {
		eta *= 1.5 - r / target;
		*reason = PC_LOW_EVICTION_BACKLOG_INCREASE;
	}
	return clamp(eta, c->minimum_eta, c->maximum_eta);
}

/* ---- the update ---- */

/* The report's figures, one retained decision at a time (pc_report's order). */
static void retained_sums_add(struct pc_controller *c, const struct pc_decision *d)
{
	struct pc_retained_sums *r = &c->rs;
	if (!r->has_cutoffs) {
		r->first_cutoff = d->now;
		r->eta_min = r->eta_max = d->eta;
	}
	r->last_cutoff = d->now;
	if (d->eta < r->eta_min)
		r->eta_min = d->eta;
	if (d->eta > r->eta_max)
		r->eta_max = d->eta;
	r->has_cutoffs = true;
	for (size_t k = 0; k < c->cfg->n_horizons; k++) {
		long long q = c->quotas[d->quotas_at + k];
		r->qsum += (double)q;
		if (!r->qn || q < r->quota_min)
			r->quota_min = q;
		if (!r->qn || q > r->quota_max)
			r->quota_max = q;
		r->qn++;
		r->last_quotas[k] = q;
	}
	r->reason_counts[d->feedback.reason]++;
}

/* With a sink the log keeps only the last decision, its points and its quotas, at offset 0. */
static void compact_log(struct pc_controller *c)
{
	struct pc_decision *d = &c->decisions[c->n_decisions - 1];
	size_t H = (size_t)c->cfg->forecast_horizon_hours, nh = c->cfg->n_horizons;
	memmove(c->points, c->points + d->points_at, H * sizeof *c->points);
	memmove(c->quotas, c->quotas + d->quotas_at, nh * sizeof *c->quotas);
	d->points_at = d->quotas_at = 0;
	c->decisions[0] = *d;
	c->n_decisions = 1;
	c->n_points = H;
	c->n_quotas = nh;
}

static void *log_slot(void **v, size_t *cap, size_t *n, size_t add, size_t elem)
{
	*v = xgrow(*v, cap, *n + add, elem);
	void *at = (char *)*v + *n * elem;
	*n += add;
	return at;
}

/* A full lookback history that holds only v. */
static bool history_constant(const struct pc_controller *c, const struct pc_bucket *h, size_t hn, double v)
{
	if (hn < (size_t)c->cfg->lookback_hours)
		return false;
	for (size_t i = 0; i < hn; i++)
		if (h[i].v != v)
			return false;
	return true;
}

int pc_update(struct pc_controller *c, double now, const struct pc_observation *obs, char *err, size_t errlen)
{
	const struct pc_config *cfg = c->cfg;
	if (!pc_update_due(c, now)) {
		snprintf(err, errlen, "controller update at %.17g before its next update time %.17g", now, c->next_update);
		return -1;
	}
	if (c->n_decisions > 0 && now <= c->decisions[c->n_decisions - 1].now + PC_EPS) {
		snprintf(err, errlen, "controller observations must advance monotonically (%.17g after %.17g)", now,
			 c->decisions[c->n_decisions - 1].now);
		return -1;
	}
	double observed = obs->hp_outstanding_gpus > 0.0 ? obs->hp_outstanding_gpus : 0.0;
	observe_sample(c, now, observed);
	size_t hn;
	const struct pc_bucket *h = history(c, now, &hn);
	struct pc_decision *d = log_slot((void **)&c->decisions, &c->cap_decisions, &c->n_decisions, 1, sizeof *d);
	memset(d, 0, sizeof *d);
	d->now = now;
	d->history_count = hn;
	d->history_ready = hn >= (size_t)cfg->minimum_history_hours;
	d->hp_outstanding = num_round(observed, 6);
	d->spot_backlog = num_round(obs->spot_backlog_gpus > 0.0 ? obs->spot_backlog_gpus : 0.0, 6);
	d->running_spot = num_round(obs->running_spot_gpus > 0.0 ? obs->running_spot_gpus : 0.0, 6);
	/* refit */
	if (now + PC_EPS >= c->next_retrain) {
		cfg->estimator->fit(c->est, h, hn, now);
		c->fitted = true;
		c->fit_const = history_constant(c, h, hn, observed);
		c->fit_value = observed;
		c->next_retrain = now + (double)cfg->retrain_interval_seconds;
	}
	/* forecast */
	size_t H = (size_t)cfg->forecast_horizon_hours;
	d->points_at = c->n_points;
	struct pc_point *pts = log_slot((void **)&c->points, &c->cap_points, &c->n_points, H, sizeof *pts);
	cfg->estimator->forecast(c->est, h, hn, now, pts);
	d->trained_at = cfg->estimator->trained_at(c->est);
	d->retained = !c->has_evidence || (now + PC_EPS >= c->evidence_start && now <= c->evidence_end + PC_EPS);
	if (d->retained) {
		c->retained++;
		for (size_t k = 0; k < H; k++)
			if (!c->has_evidence || pts[k].target <= c->evidence_end + PC_EPS) {
				struct pc_target *t = log_slot((void **)&c->targets, &c->cap_targets, &c->n_targets, 1, sizeof *t);
				t->target = pts[k].target;
				t->mu = pts[k].mu;
				t->q = pts[k].q;
			}
	}
	/* feedback, then the quota from the new eta */
	struct pc_pool *p = &c->pools[0];
	feedback(c, p, now, obs->spot_backlog_gpus, &d->feedback);
	d->quotas_at = c->n_quotas;
	long long *q = log_slot((void **)&c->quotas, &c->cap_quotas, &c->n_quotas, cfg->n_horizons, sizeof *q);
	struct pc_quota_input in = { pts, H, p->capacity, p->eta, cfg->sw.floor_before_subtract, cfg->sw.inventory_cap, 0, 0 };
	for (size_t i = 0; i < cfg->n_horizons; i++)
		p->latest_quotas[i] = q[i] = pc_quota(&in, cfg->horizons[i]);
	d->eta = num_round(p->eta, 9);
	c->next_update = now + (double)cfg->observation_interval_seconds;
	c->last_obs = *obs;
	c->total_decisions++;
	if (d->retained)
		retained_sums_add(c, d);
	if (c->sink) {
		c->sink(c->sink_ctx, c, d);
		compact_log(c);
	}
	return 0;
}

/* What the skipped updates at last + j x iv (j = 1..k-1) would have left behind, as each
 * would have repeated the last: their hour buckets of v (the last lookback_hours of them
 * matter) and the estimator's last retrain among them, on the same history of v. */
static void skip_span(struct pc_controller *c, double last, double iv, double k, double v)
{
	const struct pc_config *cfg = c->cfg;
	double agg = (double)cfg->aggregation_interval_seconds, lb = (double)cfg->lookback_hours;
	if (k < 2)
		return;
	c->skipped_updates += (size_t)(k - 1);
	double g_last = last + (k - 1) * iv;
	double h_first = floor((last + iv) / agg + PC_EPS) * agg, h_last = floor(g_last / agg + PC_EPS) * agg;
	if (h_first < h_last - (lb + 1) * agg)
		h_first = h_last - (lb + 1) * agg;
	for (double t = h_first; t <= h_last + PC_EPS; t += agg) {
		if (c->bucket_n > c->bucket_first && c->buckets[c->bucket_n - 1].t >= t)
			continue;       /* that hour's bucket exists (v, like every recent one) */
		bucket_append(c, t, v);
	}
	/* retrains: at the first grid point at or after next_retrain, then every ceil(RI / iv) points */
	double j0 = ceil((c->next_retrain - last) / iv - PC_EPS), m = ceil((double)cfg->retrain_interval_seconds / iv - PC_EPS);
	if (j0 < 1)
		j0 = 1;
	if (j0 > k - 1 || m < 1)
		return;
	double jf = j0 + floor((k - 1 - j0) / m) * m, tf = last + jf * iv;
	size_t hn;
	const struct pc_bucket *h = history(c, tf, &hn);
	cfg->estimator->fit(c->est, h, hn, tf);
	c->next_retrain = tf + (double)cfg->retrain_interval_seconds;
}

bool pc_idle_candidate(const struct pc_controller *c, double engine_next)
{
	const struct pc_config *cfg = c->cfg;
	double iv = (double)cfg->observation_interval_seconds;
	if (!(engine_next < INFINITY) || c->n_decisions == 0 || !(engine_next > c->next_update + PC_IDLE_SKIP_MIN_UPDATES * iv) || c->n_pools != 1 || !c->fitted ||
	    !c->fit_const)
		return false;
	const struct pc_pool *p = &c->pools[0];
	return p->closed_n == 0 && !(p->backlog_waiting && p->eta < cfg->maximum_eta);
}

double pc_idle_next_update(struct pc_controller *c, double engine_next, const struct pc_observation *obs)
{
	const struct pc_config *cfg = c->cfg;
	double iv = (double)cfg->observation_interval_seconds, last = c->next_update - iv;
	if (!pc_idle_candidate(c, engine_next))
		return c->next_update;
	const struct pc_observation *o = &c->last_obs;
	if (o->hp_outstanding_gpus != obs->hp_outstanding_gpus || o->spot_backlog_gpus != obs->spot_backlog_gpus ||
	    o->running_spot_gpus != obs->running_spot_gpus)
		return c->next_update;
	double v = obs->hp_outstanding_gpus > 0.0 ? obs->hp_outstanding_gpus : 0.0;
	size_t hn;
	const struct pc_bucket *h = pc_history(c, &hn);
	if (c->fit_value != v || !history_constant(c, h, hn, v))
		return c->next_update;
	/* the first grid point at or after engine_next: grid points last + j x iv, j = 1..k */
	double k = ceil((engine_next - last) / iv - PC_EPS);
	if (last + k * iv + PC_EPS < engine_next)
		k++;
	skip_span(c, last, iv, k, v);
	return c->next_update = last + k * iv;
}

const struct pc_decision *pc_last_decision(const struct pc_controller *c)
{
	return c->n_decisions ? &c->decisions[c->n_decisions - 1] : NULL;
}

const struct pc_bucket *pc_history(const struct pc_controller *c, size_t *n)
{
	size_t k = c->bucket_n - c->bucket_first, lb = (size_t)c->cfg->lookback_hours;
	*n = k < lb ? k : lb;
	return c->buckets + c->bucket_n - *n;
}

bool pc_allows_spot(const struct pc_controller *c, size_t pool, int hi, double requested, double running)
{
	return running + requested <= (double)c->pools[pool].latest_quotas[hi] + PC_EPS;
}

double pc_gate_limit(const struct pc_controller *c, size_t pool, int hi, double running)
{
	double b = (double)c->pools[pool].latest_quotas[hi] + PC_EPS;
	/* generous by a few ulps of the operands: the exact test is pc_allows_spot */
	return b - running + (fabs(b) + fabs(running)) * 0x1p-50 + 0x1p-1000;
}

/* ---- the report ---- */

static const struct pc_sample *sample_at(const struct pc_controller *c, double key)
{
	size_t lo = 0, hi = c->n_samples;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->samples[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_samples && c->samples[lo].key == key ? &c->samples[lo] : NULL;
}

void pc_report(const struct pc_controller *c, struct pc_report *r)
{
	const struct pc_config *cfg = c->cfg;
	const struct pc_retained_sums *rs = &c->rs;
	memset(r, 0, sizeof *r);
	r->update_count = c->retained;
	r->total_update_count = c->total_decisions;
	r->eta_initial = cfg->initial_eta;
	r->eta_final = num_round(c->pools[0].eta, 9);
	r->has_cutoffs = r->has_etas = rs->has_cutoffs;
	if (rs->has_cutoffs) {
		r->first_cutoff = rs->first_cutoff;
		r->last_cutoff = rs->last_cutoff;
		r->eta_min = rs->eta_min;
		r->eta_max = rs->eta_max;
	}
	r->has_quotas = rs->qn > 0;
	if (rs->qn) {
		r->quota_min = rs->quota_min;
		r->quota_max = rs->quota_max;
		r->quota_mean = num_round(rs->qsum / (double)rs->qn, 6);
	}
	memcpy(r->reason_counts, rs->reason_counts, sizeof r->reason_counts);
	double p = cfg->guarantee_probability, sum_err = 0, sum_abs = 0, sum_act = 0, sum_pin = 0;
	size_t n = 0, covered = 0;
	for (size_t i = 0; i < c->n_targets; i++) {
		const struct pc_target *t = &c->targets[i];
		const struct pc_sample *s = sample_at(c, num_round(t->target, 9));
		if (!s)
			continue;
		double actual = s->v, e = actual - t->mu, qe = actual - t->q;
		sum_err += e;
		sum_abs += fabs(e);
		sum_act += actual;
		covered += actual <= t->q + PC_EPS;
		double a = p * qe, b = (p - 1.0) * qe;
		sum_pin += b > a ? b : a;
		n++;
	}
	r->evaluated = n;
	if (n) {
		r->has_scores = true;
		r->mae = num_round(sum_abs / (double)n, 6);
		r->has_wape = sum_act > 0;
		r->wape = r->has_wape ? num_round(sum_abs / sum_act, 9) : 0.0;
		r->mean_error = num_round(sum_err / (double)n, 6);
		r->coverage = num_round((double)covered / (double)n, 9);
		r->pinball = num_round(sum_pin / (double)n, 6);
	}
	r->events_total = c->events_total;
	r->events_evicted = c->events_evicted;
}
