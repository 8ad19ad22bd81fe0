#include "roll/observe.h"
#include "core/fp.h"
#include "core/num.h"
#include "eval/evidence.h"
#include "eval/metrics.h"
#include "core/strbuf.h"
#include "core/strrank.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const roll_risk_names[3] = { "low", "moderate", "high" };
const char *const roll_regime_names[4] = { "hp-constrained", "forecast-constrained", "spot-heavy", "balanced" };

static double r6(double v) { return num_round(v, 6); }
static double r9(double v) { return num_round(v, 9); }

size_t roll_first_after(const struct trace *t, double x)
{
	size_t lo = 0, hi = t->n_jobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->jobs[mid].submit > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Population standard deviation, two passes in extended precision (the original used
 * exact rationals; the value is rounded to 6 digits, so this agrees). */
static double pstdev(const double *v, size_t n)
{
	if (n < 2)
		return 0.0;
	long double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (long double)n;
	long double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return (double)sqrtl(ss / (long double)n);
}

void roll_signals_compute(const struct trace *t, double capacity, double cut, long long window, struct roll_signals *s)
{
	memset(s, 0, sizeof *s);
	double start = cut - (double)window;
	s->start = start;
	s->end = cut;
	size_t lo = roll_first_after(t, start), hi = roll_first_after(t, cut + ROLL_EPS);
	double half = start + (double)window / 2, hp_prior = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct trace_job *j = &t->jobs[i];
		s->observed++;
		if (j->hp) {
			s->hp_jobs++;
			s->hp_requested += j->gpus;
			if (j->submit <= half)
				hp_prior += j->gpus;
		} else {
			s->spot_jobs++;
			s->spot_requested += j->gpus;
		}
		if (!s->has_max_submit || j->submit > s->max_submit)
			s->max_submit = j->submit;
		s->has_max_submit = true;
	}
	double total = s->hp_requested + s->spot_requested;
	s->spot_share = total != 0 ? r9(s->spot_requested / total) : 0.0;
	double hp_recent = s->hp_requested - hp_prior;
	s->recent_to_prior = hp_prior != 0 ? r9(hp_recent / hp_prior) : hp_recent != 0 ? 2.0 : 1.0;
	long long n_samples = window / 3600 + 1;
	double active[n_samples > 0 ? n_samples : 1];
	for (long long k = 0; k < n_samples; k++) {
		double sample = start + (double)(k * 3600), sum = 0;
		for (size_t i = lo; i < hi; i++) {
			const struct trace_job *j = &t->jobs[i];
			if (j->hp && j->submit <= sample && j->submit + j->duration > sample)
				sum += j->gpus;
		}
		active[k] = sum;
		if (k == 0 || sum > s->hp_peak_active)
			s->hp_peak_active = sum;
	}
	s->hp_peak_pressure = r9(s->hp_peak_active / capacity);
	s->hp_volatility = r6(pstdev(active, (size_t)n_samples));
}

struct json *roll_signals_json(struct arena *a, const struct roll_signals *s)
{
	struct json *o = json_object(a), *w = json_object(a);
	json_set(a, w, "start", json_real(a, s->start));
	json_set(a, w, "end", json_real(a, s->end));
	json_set(a, o, "history_window_seconds", w);
	json_set(a, o, "observed_job_count", json_int(a, s->observed));
	json_set(a, o, "hp_job_count", json_int(a, s->hp_jobs));
	json_set(a, o, "spot_job_count", json_int(a, s->spot_jobs));
	json_set(a, o, "hp_requested_gpus", json_real(a, r6(s->hp_requested)));
	json_set(a, o, "spot_requested_gpus", json_real(a, r6(s->spot_requested)));
	json_set(a, o, "spot_requested_gpu_share", json_real(a, s->spot_share));
	json_set(a, o, "hp_peak_active_gpus", json_real(a, r6(s->hp_peak_active)));
	json_set(a, o, "hp_peak_active_pressure", json_real(a, s->hp_peak_pressure));
	json_set(a, o, "hp_active_volatility_gpus", json_real(a, s->hp_volatility));
	json_set(a, o, "hp_recent_to_prior_requested_gpu_ratio", json_real(a, s->recent_to_prior));
	json_set(a, o, "maximum_observed_submit_time_seconds", s->has_max_submit ? json_real(a, s->max_submit) : json_null(a));
	return o;
}

double roll_safe_ratio(double n, double d)
{
	if (d > ROLL_EPS)
		return r9(n / d);
	return n > ROLL_EPS ? 2.0 : 1.0;
}

enum roll_risk roll_risk_level(const struct roll_risk_inputs *in)
{
	if (in->queued_hp > 0 || in->running_hp_pressure >= 0.8 || in->peak_q_pressure >= 0.9 || in->peak_raw_pressure >= 1.0 ||
	    in->growth >= 1.5)
		return ROLL_RISK_HIGH;
	if (in->running_hp_pressure >= 0.6 || in->peak_q_pressure >= 0.75 || in->peak_raw_pressure >= 0.9 || in->growth >= 1.2)
		return ROLL_RISK_MODERATE;
	return ROLL_RISK_LOW;
}

enum roll_regime roll_regime_of(const struct roll_risk_inputs *in)
{
	if (in->queued_hp > 0 || in->running_hp_pressure >= 0.8)
		return ROLL_REGIME_HP;
	if (in->peak_raw_pressure >= 1.0 || in->peak_q_pressure >= 0.9)
		return ROLL_REGIME_FORECAST;
	if (in->short_spot_share >= 0.55)
		return ROLL_REGIME_SPOT_HEAVY;
	return ROLL_REGIME_BALANCED;
}

static struct json *str_or_null(struct arena *a, const char *s)
{
	return s ? json_str(a, s) : json_null(a);
}

static struct json *stamp(struct arena *a, struct json *o, const char *key, char fp[FP_HEX_XXH3])
{
	ev_self_fp_stamp(a, o, key);
	if (fp)
		snprintf(fp, 33, "%s", json_get_str(o, key));
	return o;
}

static struct json *quota_json(struct arena *a, const struct roll_projection *p)
{
	struct json *q = json_object(a);
	char key[24];
	for (size_t i = 0; i < p->n_quota; i++) {
		snprintf(key, sizeof key, "%lld", p->quota[i].hour);
		json_set(a, q, key, json_int(a, p->quota[i].gpus));
	}
	return q;
}

static struct json *projection_body(struct arena *a, const struct roll_projection *p, bool with_points)
{
	struct json *o = json_object(a), *pts = json_array(a);
	json_set(a, o, "cutoff_time_seconds", json_real(a, p->cutoff));
	json_set(a, o, "snapshot_fingerprint", str_or_null(a, p->snapshot_fp));
	json_set(a, o, "forecast_fingerprint", str_or_null(a, p->forecast_fp));
	json_set(a, o, "quota_plan_fingerprint", str_or_null(a, p->quota_fp));
	json_set(a, o, "history_ready", p->history_ready < 0 ? json_null(a) : json_bool(a, p->history_ready));
	for (size_t i = 0; with_points && i < p->n_points; i++) {
		const struct roll_point *x = &p->points[i];
		struct json *pt = json_object(a);
		json_set(a, pt, "target_time_seconds", json_real(a, x->target));
		json_set(a, pt, "horizon_step", json_int(a, x->step));
		if (x->pool)
			json_set(a, pt, "resource_pool", json_str(a, x->pool));
		json_set(a, pt, "mu_gpus", json_real(a, x->mu));
		json_set(a, pt, "sigma_gpus", json_real(a, x->sigma));
		json_set(a, pt, "guarantee_quantile_gpus", json_real(a, x->q));
		if (x->has_raw)
			json_set(a, pt, "raw_guarantee_quantile_gpus", json_real(a, x->raw));
		if (x->has_offset)
			json_set(a, pt, "quantile_calibration_offset_gpus", json_real(a, x->offset));
		if (x->method)
			json_set(a, pt, "quantile_calibration_method", json_str(a, x->method));
		json_push(a, pts, pt);
	}
	json_set(a, o, "forecast_points", pts);
	json_set(a, o, "spot_quota_gpus_by_guarantee_hour", quota_json(a, p));
	json_set(a, o, "eta", p->has_eta ? json_real(a, p->eta) : json_null(a));
	struct json *ib = json_object(a);
	json_set(a, ib, "actual_future_demand_used_for_prediction", json_bool(a, false));
	json_set(a, o, "information_boundary", ib);
	return o;
}

struct json *roll_projection_json(struct arena *a, const struct roll_projection *p, char fp[FP_HEX_XXH3])
{
	return stamp(a, projection_body(a, p, true), "projection_fingerprint", fp);
}

struct json *roll_projection_stress_json(struct arena *a, const struct roll_projection *p, const char *base_fp, char fp[FP_HEX_XXH3])
{
	struct json *o = projection_body(a, p, false);
	json_set(a, o, "base_projection_fingerprint", json_str(a, base_fp));
	json_set(a, o, "scenario_profile_id", json_str(a, "recent-history-replay"));
	return stamp(a, o, "projection_fingerprint", fp);
}

static struct json *pools_json(struct arena *a, const struct roll_pool_gpus *p, size_t n)
{
	struct json *o = json_object(a);
	for (size_t i = 0; i < n; i++)
		json_set(a, o, p[i].pool, json_real(a, p[i].gpus));
	return o;
}

/* p-quantile of an ascending list (metrics' Q), rounded to 6 places; null when empty. */
static struct json *sorted_quantile(struct arena *a, const double *v, size_t n, double p)
{
	return n ? json_real(a, r6(ev_metrics_quantile_sorted(v, n, p))) : json_null(a);
}

/* One completed-HP list in fixed size (issue 23: listed, it grew with the evaluation window,
 * 37,000 values twice in each observation after 30 days): the XXH3-128 of its values as
 * IEEE-754 binary64, 8 little-endian bytes each, in ascending order, and its p50, p95 and
 * maximum. */
static void completed_summary(struct arena *a, struct json *o, const char *fp_key, const char *sum_key, const double *v, size_t n)
{
	struct fp_xxh3 h;
	char fp[FP_HEX_XXH3];
	fp_xxh3_init(&h);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n)
		fp_xxh3_update(&h, v, n * sizeof *v);
#else
	for (size_t i = 0; i < n; i++) {
		unsigned char b[8];
		uint64_t u;
		memcpy(&u, &v[i], sizeof u);
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(u >> (8 * k));
		fp_xxh3_update(&h, b, sizeof b);
	}
#endif
	fp_xxh3_hex(&h, fp);
	fp_xxh3_release(&h);
	json_set(a, o, fp_key, json_str(a, fp));
	struct json *x = json_object(a);
	json_set(a, x, "p50", sorted_quantile(a, v, n, 0.5));
	json_set(a, x, "p95", sorted_quantile(a, v, n, 0.95));
	json_set(a, x, "maximum", n ? json_real(a, v[n - 1]) : json_null(a));
	json_set(a, o, sum_key, x);
}

/* a string literal, without strlen */
#define ADD_LIT(sb, lit) sb_add((sb), (lit), sizeof(lit) - 1)

static void add_str(struct strbuf *sb, const char *s) { sb_add_jstr(sb, s, strlen(s)); }

/* One carryover entry, the object the observation listed per job until issue 23, written
 * into sb (keys in that order) exactly as json_write wrote it, but directly: no JSON nodes,
 * no per-entry allocation (27,000 entries a cutoff at a backlog). */
void roll_carry_entry_write(struct strbuf *sb, const struct roll_carry *c)
{
	ADD_LIT(sb, "{\"job_id\":");
	add_str(sb, c->id);
	if (c->hp)
		ADD_LIT(sb, ",\"service_class\":\"HP\",\"gpu_count\":");
	else
		ADD_LIT(sb, ",\"service_class\":\"Spot\",\"gpu_count\":");
	sb_add_double(sb, c->gpus);
	ADD_LIT(sb, ",\"gpu_model\":");
	add_str(sb, c->model);
	ADD_LIT(sb, ",\"tenant_id\":");
	if (c->tenant)
		add_str(sb, c->tenant);
	else
		ADD_LIT(sb, "null");
	if (c->running)
		ADD_LIT(sb, ",\"status\":\"running\",\"current_queue_wait_seconds\":");
	else
		ADD_LIT(sb, ",\"status\":\"queued\",\"current_queue_wait_seconds\":");
	sb_add_double(sb, c->queue_wait);
	ADD_LIT(sb, ",\"current_run_elapsed_seconds\":");
	sb_add_double(sb, c->run_elapsed);
	ADD_LIT(sb, ",\"run_guarantee_seconds\":");
	if (c->has_guarantee)
		sb_add_int(sb, c->guarantee);
	else
		ADD_LIT(sb, "null");
	ADD_LIT(sb, ",\"allocated_gpus\":");
	sb_add_double(sb, c->allocated);
	sb_addc(sb, '}');
}

/* Carryover groups: (class HP before Spot, pool, status queued before running), then the
 * queue wait ascending, then the state's own order (a total order: the same groups and
 * medians whatever qsort does with ties). The pool compares by its rank in strcmp order. */
struct carry_key { const struct roll_carry *c; uint32_t pool; };

static int carry_group_cmp(const void *x, const void *y)
{
	const struct carry_key *ka = x, *kb = y;
	const struct roll_carry *a = ka->c, *b = kb->c;
	if (a->hp != b->hp)
		return a->hp ? -1 : 1;
	if (ka->pool != kb->pool)
		return ka->pool < kb->pool ? -1 : 1;
	if (a->running != b->running)
		return a->running ? 1 : -1;
	if (a->queue_wait != b->queue_wait)
		return a->queue_wait < b->queue_wait ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The carryover in fixed size (issue 23: the observation listed every queued and running
 * job, 7.6 MB a record at a backlog of 27,000): its count, the XXH3-128 of the entries
 * (one line ENTRY<LF> each, in the state's order, ENTRY as roll_carry_entry_write writes
 * it), and one summary per (class, pool, status) present. */
static void carry_summary(struct arena *a, struct json *o, const struct roll_carry *cv, size_t n)
{
	struct strbuf sb;
	struct fp_xxh3 h;
	char fp[FP_HEX_XXH3];
	sb_init(&sb);
	fp_xxh3_init(&h);
	for (size_t i = 0; i < n; i++) {
		sb_reset(&sb);
		roll_carry_entry_write(&sb, &cv[i]);
		sb_addc(&sb, '\n');
		fp_xxh3_update(&h, sb.buf, sb.len);
	}
	fp_xxh3_hex(&h, fp);
	fp_xxh3_release(&h);
	sb_release(&sb);
	json_set(a, o, "carryover_job_count", json_int(a, (long long)n));
	json_set(a, o, "carryover_jobs_fingerprint", json_str(a, fp));
	const struct roll_carry **ix = arena_alloc(a, (n + 1) * sizeof *ix);
	struct carry_key *keys = xmalloc((n + 1) * sizeof *keys);
	uint32_t *rank = xmalloc((n + 1) * sizeof *rank);
	if (n)
		str_ranks(&cv[0].model, n, sizeof *cv, rank);
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct carry_key){ &cv[i], rank[i] };
	qsort(keys, n, sizeof *keys, carry_group_cmp);
	for (size_t i = 0; i < n; i++)
		ix[i] = keys[i].c;
	free(keys);
	free(rank);
	struct json *groups = json_array(a);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double gpus = 0, alloc = 0, elapsed = 0;
		while (j < n && ix[j]->hp == ix[i]->hp && ix[j]->running == ix[i]->running && !strcmp(ix[j]->model, ix[i]->model)) {
			gpus += ix[j]->gpus;
			alloc += ix[j]->allocated;
			if (ix[j]->run_elapsed > elapsed)
				elapsed = ix[j]->run_elapsed;
			j++;
		}
		struct json *g = json_object(a);
		json_set(a, g, "service_class", json_str(a, ix[i]->hp ? "HP" : "Spot"));
		json_set(a, g, "gpu_model", json_str(a, ix[i]->model));
		json_set(a, g, "status", json_str(a, ix[i]->running ? "running" : "queued"));
		json_set(a, g, "job_count", json_int(a, (long long)(j - i)));
		json_set(a, g, "gpu_count", json_real(a, r6(gpus)));
		json_set(a, g, "allocated_gpus", json_real(a, r6(alloc)));
		json_set(a, g, "median_current_queue_wait_seconds", json_real(a, ix[i + (j - i - 1) / 2]->queue_wait));
		json_set(a, g, "maximum_current_queue_wait_seconds", json_real(a, ix[j - 1]->queue_wait));
		json_set(a, g, "maximum_current_run_elapsed_seconds", json_real(a, elapsed));
		json_push(a, groups, g);
		i = j;
	}
	json_set(a, o, "carryover_summary", groups);
}

struct json *roll_state_json(struct arena *a, const struct roll_state *s, char fp[FP_HEX_XXH3])
{
	struct json *o = json_object(a), *x;
	json_set(a, o, "schema_version", json_str(a, ROLL_SNAPSHOT_SCHEMA));
	json_set(a, o, "cutoff_time_seconds", json_real(a, s->cutoff));
	json_set(a, o, "trace_id", str_or_null(a, s->trace_id));
	json_set(a, o, "visible_prefix_fingerprint", str_or_null(a, s->visible_prefix_fp));
	x = json_object(a);
	json_set(a, x, "maximum_visible_submit_time_seconds", s->has_max_visible ? json_real(a, s->max_visible_submit) : json_null(a));
	json_set(a, x, "future_arrivals_visible", json_bool(a, false));
	json_set(a, x, "visible_arrival_count", json_int(a, s->visible_count));
	json_set(a, o, "information_boundary", x);
	x = json_object(a);
	json_set(a, x, "capacity_gpus", json_int(a, s->capacity));
	json_set(a, x, "free_gpus", json_real(a, s->free_total));
	json_set(a, x, "free_gpus_by_pool", pools_json(a, s->free_by_pool, s->n_free_pools));
	json_set(a, o, "cluster", x);
	x = json_object(a);
	json_set(a, x, "job_count", json_int(a, s->queue_jobs));
	json_set(a, x, "hp_job_count", json_int(a, s->queue_hp));
	json_set(a, x, "spot_job_count", json_int(a, s->queue_spot));
	json_set(a, x, "requested_gpus", json_real(a, s->queue_gpus));
	json_set(a, x, "hp_requested_gpus", json_real(a, s->queue_hp_gpus));
	json_set(a, x, "spot_requested_gpus", json_real(a, s->queue_spot_gpus));
	json_set(a, x, "maximum_hp_wait_seconds", json_real(a, s->max_hp_wait));
	json_set(a, x, "maximum_spot_wait_seconds", json_real(a, s->max_spot_wait));
	json_set(a, o, "queue", x);
	x = json_object(a);
	json_set(a, x, "job_count", json_int(a, s->running_jobs));
	json_set(a, x, "spot_gpus", json_real(a, s->running_spot_gpus));
	json_set(a, x, "spot_gpus_by_pool", pools_json(a, s->running_spot_by_pool, s->n_running_pools));
	json_set(a, o, "running", x);
	json_set(a, o, "active_policy_action_id", str_or_null(a, s->active_id));
	json_set(a, o, "active_policy_fingerprint", str_or_null(a, s->active_fp));
	json_set(a, o, "state_handoff_fingerprint", str_or_null(a, s->handoff_fp));
	carry_summary(a, o, s->carry, s->n_carry);
	x = json_object(a);
	json_set(a, x, "completed_jobs", json_int(a, s->completed_jobs));
	json_set(a, x, "preemption_events", json_int(a, s->preemption_events));
	json_set(a, x, "spot_runs", json_int(a, s->spot_runs));
	json_set(a, o, "ledger_counts", x);
	x = json_object(a);
	json_set(a, x, "cutoff_safe", json_bool(a, true));
	json_set(a, x, "hp_completed_job_count", json_int(a, (long long)s->n_hp_completed));
	completed_summary(a, x, "hp_completed_queue_fingerprint", "hp_completed_queue_seconds_summary", s->hp_completed_queue, s->n_hp_completed);
	completed_summary(a, x, "hp_completed_jct_fingerprint", "hp_completed_jct_seconds_summary", s->hp_completed_jct, s->n_hp_jct);
	json_set(a, o, "slo_progress", x);
	return stamp(a, o, "snapshot_fingerprint", fp);
}

/* multi_timescale_state (docs/rolling-rules.md "multi_timescale", "risk", "regime"). */
static struct json *mts_json(struct arena *a, const struct roll_observation_in *in, struct roll_observation *ob)
{
	const struct roll_state *st = in->state;
	const struct roll_projection *p = in->projection;
	double cap = (double)st->capacity;
	double running_hp = cap - st->free_total - st->running_spot_gpus;
	if (running_hp < 0)
		running_hp = 0.0;
	double max_q = 0, max_raw = 0, sum_sigma = 0, off_min = 0, off_max = 0;
	size_t npts = p ? p->n_points : 0;
	for (size_t i = 0; i < npts; i++) {
		const struct roll_point *x = &p->points[i];
		double raw = x->has_raw ? x->raw : x->q, off = x->has_offset ? x->offset : 0.0;
		if (i == 0 || x->q > max_q)
			max_q = x->q;
		if (i == 0 || raw > max_raw)
			max_raw = raw;
		if (i == 0 || off < off_min)
			off_min = off;
		if (i == 0 || off > off_max)
			off_max = off;
		sum_sigma += x->sigma;
	}
	double peak_q = max_q / cap, peak_raw = max_raw / cap;
	double short_hp = r6(ob->short_w.hp_requested), prev_hp = r6(ob->previous_w.hp_requested);
	double growth = roll_safe_ratio(short_hp, prev_hp);
	double short_total = short_hp + r6(ob->short_w.spot_requested), prev_total = prev_hp + r6(ob->previous_w.spot_requested);
	ob->risk_in = (struct roll_risk_inputs){ st->queue_hp, running_hp / cap, peak_q, peak_raw, growth, ob->short_w.spot_share };
	ob->risk = roll_risk_level(&ob->risk_in);
	ob->regime = roll_regime_of(&ob->risk_in);

	struct json *o = json_object(a), *x;
	json_set(a, o, "short_window", roll_signals_json(a, &ob->short_w));
	json_set(a, o, "previous_short_window", roll_signals_json(a, &ob->previous_w));
	json_set(a, o, "long_window", roll_signals_json(a, &ob->signals));
	x = json_object(a);
	json_set(a, x, "hp_requested_gpu_ratio_short_vs_previous", json_real(a, growth));
	json_set(a, x, "total_requested_gpu_ratio_short_vs_previous", json_real(a, roll_safe_ratio(short_total, prev_total)));
	json_set(a, x, "spot_share_delta_short_vs_long", json_real(a, r9(ob->short_w.spot_share - ob->signals.spot_share)));
	json_set(a, o, "change", x);
	x = json_object(a);
	json_set(a, x, "capacity_gpus", json_real(a, cap));
	json_set(a, x, "free_gpus", json_real(a, st->free_total));
	json_set(a, x, "free_gpu_rate", json_real(a, r9(st->free_total / cap)));
	json_set(a, x, "running_hp_gpus", json_real(a, r6(running_hp)));
	json_set(a, x, "running_hp_pressure", json_real(a, r9(running_hp / cap)));
	json_set(a, x, "running_spot_gpus", json_real(a, r6(st->running_spot_gpus)));
	json_set(a, x, "running_spot_pressure", json_real(a, r9(st->running_spot_gpus / cap)));
	json_set(a, x, "queued_hp_job_count", json_int(a, st->queue_hp));
	json_set(a, x, "queued_requested_gpus", json_real(a, st->queue_gpus));
	json_set(a, o, "runtime_pressure", x);
	x = json_object(a);
	json_set(a, x, "history_ready", !p || p->history_ready < 0 ? json_null(a) : json_bool(a, p->history_ready));
	json_set(a, x, "forecast_point_count", json_int(a, (long long)npts));
	json_set(a, x, "peak_calibrated_p90_pressure", json_real(a, r9(peak_q)));
	json_set(a, x, "peak_raw_p90_pressure", json_real(a, r9(peak_raw)));
	json_set(a, x, "mean_sigma_pressure", json_real(a, npts ? r9(sum_sigma / (double)npts / cap) : 0.0));
	json_set(a, x, "calibration_offset_gpus_min", json_real(a, off_min));
	json_set(a, x, "calibration_offset_gpus_max", json_real(a, off_max));
	long long qmin = 0, zero = 0;
	for (size_t i = 0; p && i < p->n_quota; i++) {
		if (i == 0 || p->quota[i].gpus < qmin)
			qmin = p->quota[i].gpus;
		zero += p->quota[i].gpus <= 0;
	}
	json_set(a, x, "minimum_spot_quota_gpus", p && p->n_quota ? json_real(a, (double)qmin) : json_null(a));
	json_set(a, x, "zero_quota_horizon_count", json_int(a, zero));
	json_set(a, o, "forecast_risk", x);
	x = json_object(a);
	json_set(a, x, "workload_regime", json_str(a, roll_regime_names[ob->regime]));
	json_set(a, x, "risk_level", json_str(a, roll_risk_names[ob->risk]));
	json_set(a, x, "classifier", json_str(a, "deterministic-cutoff-state/v1"));
	json_set(a, o, "regime", x);
	x = json_object(a);
	json_set(a, x, "future_arrivals_visible", json_bool(a, false));
	json_set(a, x, "future_job_durations_visible", json_bool(a, false));
	json_set(a, x, "remaining_runtime_visible_to_agent", json_bool(a, false));
	json_set(a, o, "information_boundary", x);
	return stamp(a, o, "state_fingerprint", NULL);
}

void roll_observe(struct arena *a, const struct roll_observation_in *in, struct roll_observation *ob)
{
	memset(ob, 0, sizeof *ob);
	const struct roll_state *st = in->state;
	double cap = (double)st->capacity, cut = st->cutoff;
	long long w = in->cfg->history, sw = w < 3600 ? w : 3600;
	roll_signals_compute(in->history, cap, cut, w, &ob->signals);
	roll_signals_compute(in->history, cap, cut, sw, &ob->short_w);
	roll_signals_compute(in->history, cap, cut - (double)sw, sw, &ob->previous_w);

	struct json *o = json_object(a);
	json_set(a, o, "type", json_str(a, "rolling_observation"));
	json_set(a, o, "schema_version", json_str(a, ROLL_OBSERVATION_SCHEMA));
	json_set(a, o, "controller_id", json_str(a, in->cfg->controller_id));
	json_set(a, o, "cutoff_time_seconds", json_real(a, cut));
	json_set(a, o, "scheduler_state", roll_state_json(a, st, ob->snapshot_fp));
	json_set(a, o, "workload_signals", roll_signals_json(a, &ob->signals));
	ob->mts = mts_json(a, in, ob);
	json_set(a, o, "multi_timescale_state", ob->mts);
	json_set(a, o, "predictive_projection", in->projection ? roll_projection_json(a, in->projection, ob->projection_fp) : json_null(a));
	json_set(a, o, "candidate_scenario_set_id", json_str(a, in->oracle ? "actual-future-oracle" : in->cfg->scenario_set_id));
	json_set(a, o, "required_candidate_action_id", json_str(a, in->cfg->safety_id));
	struct json *cat = json_array(a);
	for (size_t i = 0; i < in->cat->n; i++)
		json_push(a, cat, roll_control_profile(a, &in->cat->actions[i]));
	json_set(a, o, "action_catalog", cat);
	struct json *ib = json_object(a);
	json_set(a, ib, "jobs_with_submit_time_after_cutoff_excluded", json_bool(a, true));
	json_set(a, ib, "actual_future_scenario_used", json_bool(a, in->oracle));
	json_set(a, ib, "agent_receives_actual_future", json_bool(a, false));
	json_set(a, ib, "job_remaining_runtime_exposed_to_agent", json_bool(a, false));
	json_set(a, ib, "full_trace_fingerprint_exposed", json_bool(a, false));
	json_set(a, o, "information_boundary", ib);
	/* The observation's fingerprint hashes its self-fingerprinted scheduler state by that
	 * fingerprint (the state is the bulk of it and was hashed already). */
	struct json *view = json_object(a);
	for (size_t i = 0; i < o->u.obj.n; i++)
		json_set(a, view, o->u.obj.keys[i], strcmp(o->u.obj.keys[i], "scheduler_state") ? o->u.obj.vals[i] : json_str(a, ob->snapshot_fp));
	ev_self_fp(view, "observation_fingerprint", ob->fp);
	json_set(a, o, "observation_fingerprint", json_str(a, ob->fp));
	ob->record = o;
}
