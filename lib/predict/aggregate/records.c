/*
 * The controller's records in the result stream (docs/predictive.md "The records"), key names the
 * original's:
 *   control_decision: type, cutoff_time_seconds, retained, history_ready,
 *       history_point_count, trained_at_seconds, hp_outstanding_requested_gpus,
 *       spot_backlog_gpus, running_spot_gpus, points[] {horizon_step, target_time_seconds,
 *       mu_gpus, sigma_gpus, guarantee_quantile_gpus}, feedback {window_seconds,
 *       completed_spot_run_count, evicted_spot_run_count, eviction_rate_per_run,
 *       target_eviction_rate, previous_eta, eta, adjustment_reason}, eta,
 *       spot_quota_gpus_by_guarantee_hour {"H": quota...}
 *   control_report: type, schema_version, controller_id, controller_fingerprint,
 *       information_boundary, update_count, total_runtime_update_count,
 *       evidence_window_seconds, first_cutoff_time_seconds, last_cutoff_time_seconds, eta,
 *       spot_quota_gpus, forecast_evaluation, and the new diagnostic keys
 *       feedback_adjustment_reason_counts, latest_spot_quota_gpus_by_guarantee_hour,
 *       feedback_events {event_count, evicted_count, completed_count}
 * Decisions are written straight into a buffer (there is one every 300 s of simulated
 * time); the report is one small JSON tree.
 */
#include "predict/predict.h"
#include "sim/result.h"
#include <stdio.h>
#include <string.h>

static void quotas_object(struct strbuf *sb, const struct pc_config *cfg, const long long *q)
{
	sb_addc(sb, '{');
	for (size_t i = 0; i < cfg->n_horizons; i++) {
		sb_adds(sb, i ? ",\"" : "\"");
		sb_add_int(sb, cfg->horizons[i]);
		sb_adds(sb, "\":");
		sb_add_int(sb, q[i]);
	}
	sb_addc(sb, '}');
}

/* A literal fragment: keys with their punctuation, lengths known at compile time. */
#define LIT(sb, text) sb_add((sb), text, sizeof text - 1)

void pc_write_decision(struct strbuf *sb, const struct pc_controller *c, const struct pc_decision *d)
{
	const struct pc_config *cfg = c->cfg;
	LIT(sb, "{\"type\":\"control_decision\",\"cutoff_time_seconds\":");
	result_add_double(sb, d->now);
	if (d->retained)
		LIT(sb, ",\"retained\":true");
	else
		LIT(sb, ",\"retained\":false");
	if (d->history_ready)
		LIT(sb, ",\"history_ready\":true,\"history_point_count\":");
	else
		LIT(sb, ",\"history_ready\":false,\"history_point_count\":");
	sb_add_int(sb, (long long)d->history_count);
	LIT(sb, ",\"trained_at_seconds\":");
	result_add_double(sb, d->trained_at);
	LIT(sb, ",\"hp_outstanding_requested_gpus\":");
	result_add_double(sb, d->hp_outstanding);
	LIT(sb, ",\"spot_backlog_gpus\":");
	result_add_double(sb, d->spot_backlog);
	LIT(sb, ",\"running_spot_gpus\":");
	result_add_double(sb, d->running_spot);
	LIT(sb, ",\"points\":[");
	for (long long k = 0; k < cfg->forecast_horizon_hours; k++) {
		const struct pc_point *p = &c->points[d->points_at + (size_t)k];
		if (k)
			LIT(sb, ",{\"horizon_step\":");
		else
			LIT(sb, "{\"horizon_step\":");
		sb_add_int(sb, p->step);
		LIT(sb, ",\"target_time_seconds\":");
		result_add_double(sb, p->target);
		LIT(sb, ",\"mu_gpus\":");
		result_add_double(sb, p->mu);
		LIT(sb, ",\"sigma_gpus\":");
		result_add_double(sb, p->sigma);
		LIT(sb, ",\"guarantee_quantile_gpus\":");
		result_add_double(sb, p->q);
		sb_addc(sb, '}');
	}
	const struct pc_feedback *f = &d->feedback;
	LIT(sb, "],\"feedback\":{\"window_seconds\":");
	sb_add_int(sb, f->window_seconds);
	LIT(sb, ",\"completed_spot_run_count\":");
	sb_add_int(sb, f->completed);
	LIT(sb, ",\"evicted_spot_run_count\":");
	sb_add_int(sb, f->evicted);
	LIT(sb, ",\"eviction_rate_per_run\":");
	if (f->has_rate)
		result_add_double(sb, f->rate);
	else
		LIT(sb, "null");
	LIT(sb, ",\"target_eviction_rate\":");
	result_add_double(sb, f->target);
	LIT(sb, ",\"previous_eta\":");
	result_add_double(sb, f->previous_eta);
	LIT(sb, ",\"eta\":");
	result_add_double(sb, f->eta);
	LIT(sb, ",\"adjustment_reason\":\"");
	sb_adds(sb, pc_reason_name(f->reason));
	LIT(sb, "\"},\"eta\":");
	result_add_double(sb, d->eta);
	LIT(sb, ",\"spot_quota_gpus_by_guarantee_hour\":");
	quotas_object(sb, cfg, &c->quotas[d->quotas_at]);
	sb_addc(sb, '}');
}

static struct json *int_or_null(struct arena *a, bool ok, long long v)
{
	return ok ? json_int(a, v) : json_null(a);
}

void pc_write_report(struct strbuf *sb, const struct pc_controller *c, const struct pc_report *r)
{
	const struct pc_config *cfg = c->cfg;
	struct arena a;
	arena_init(&a);
	struct json *o = json_object(&a), *x;
	json_set(&a, o, "type", json_str(&a, "control_report"));
	json_set(&a, o, "schema_version", json_str(&a, PC_REPORT_SCHEMA));
	json_set(&a, o, "controller_id", json_str(&a, cfg->controller_id));
	json_set(&a, o, "controller_fingerprint", json_str(&a, cfg->fingerprint));
	x = json_object(&a);
	json_set(&a, x, "future_workload_fields_accepted", json_bool(&a, false));
	json_set(&a, x, "forecast_scoring_occurs_after_target_observation", json_bool(&a, true));
	json_set(&a, o, "information_boundary", x);
	json_set(&a, o, "update_count", json_int(&a, (long long)r->update_count));
	json_set(&a, o, "total_runtime_update_count", json_int(&a, (long long)r->total_update_count));
	x = json_object(&a);
	json_set(&a, x, "start", json_real_or_null(&a, c->has_evidence, c->evidence_start));
	json_set(&a, x, "end", json_real_or_null(&a, c->has_evidence, c->evidence_end));
	json_set(&a, o, "evidence_window_seconds", x);
	json_set(&a, o, "first_cutoff_time_seconds", json_real_or_null(&a, r->has_cutoffs, r->first_cutoff));
	json_set(&a, o, "last_cutoff_time_seconds", json_real_or_null(&a, r->has_cutoffs, r->last_cutoff));
	x = json_object(&a);
	json_set(&a, x, "initial", json_real(&a, r->eta_initial));
	json_set(&a, x, "final", json_real(&a, r->eta_final));
	json_set(&a, x, "minimum_observed", json_real_or_null(&a, r->has_etas, r->eta_min));
	json_set(&a, x, "maximum_observed", json_real_or_null(&a, r->has_etas, r->eta_max));
	json_set(&a, o, "eta", x);
	x = json_object(&a);
	json_set(&a, x, "mean", json_real_or_null(&a, r->has_quotas, r->quota_mean));
	json_set(&a, x, "minimum", int_or_null(&a, r->has_quotas, r->quota_min));
	json_set(&a, x, "maximum", int_or_null(&a, r->has_quotas, r->quota_max));
	json_set(&a, o, "spot_quota_gpus", x);
	x = json_object(&a);
	json_set(&a, x, "evaluated_point_count", json_int(&a, (long long)r->evaluated));
	json_set(&a, x, "mae_gpus", json_real_or_null(&a, r->has_scores, r->mae));
	json_set(&a, x, "wape", json_real_or_null(&a, r->has_wape, r->wape));
	json_set(&a, x, "mean_error_gpus", json_real_or_null(&a, r->has_scores, r->mean_error));
	json_set(&a, x, "guarantee_quantile_coverage", json_real_or_null(&a, r->has_scores, r->coverage));
	json_set(&a, x, "pinball_loss", json_real_or_null(&a, r->has_scores, r->pinball));
	json_set(&a, o, "forecast_evaluation", x);
	x = json_object(&a);
	for (int k = 0; k < PC_REASONS; k++)
		json_set(&a, x, pc_reason_name(k), json_int(&a, (long long)r->reason_counts[k]));
	json_set(&a, o, "feedback_adjustment_reason_counts", x);
	x = json_object(&a);
	/* the last retained decision's quotas (kept by the controller: the log may hold only the last decision) */
	char hk[24];
	for (size_t i = 0; i < cfg->n_horizons; i++) {
		snprintf(hk, sizeof hk, "%lld", cfg->horizons[i]);
		json_set(&a, x, hk, int_or_null(&a, c->rs.has_cutoffs, c->rs.has_cutoffs ? c->rs.last_quotas[i] : 0));
	}
	json_set(&a, o, "latest_spot_quota_gpus_by_guarantee_hour", x);
	x = json_object(&a);
	json_set(&a, x, "event_count", json_int(&a, r->events_total));
	json_set(&a, x, "evicted_count", json_int(&a, r->events_evicted));
	json_set(&a, x, "completed_count", json_int(&a, r->events_total - r->events_evicted));
	json_set(&a, o, "feedback_events", x);
	json_write(sb, o);
	arena_release(&a);
}
