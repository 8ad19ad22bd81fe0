/* The tenant controller's two records (docs/tenant-controller.md): the control_decision line
 * of each decision (pt_write_decision) and the control_report at the end (pt_write_report). */
#include "predict/tenant/tenant_controller.h"
#include "predict/tenant/tenant_controller_internal.h"
#include "core/num.h"
#include "sim/result.h"
#include <string.h>

static void num6(struct strbuf *sb, double v)
{
	result_add_double(sb, num_round(v, 6));
}

static void quotas_by_hour(struct strbuf *sb, const struct pt_config *c, const long long *q)
{
	sb_addc(sb, '{');
	for (size_t hi = 0; hi < c->n_horizons; hi++) {
		sb_addf(sb, "%s\"%lld\":%lld", hi ? "," : "", c->horizons[hi], q[hi]);
	}
	sb_addc(sb, '}');
}

static const char *point_method(const struct pt_config *c)
{
	return c->calibration_method ? c->calibration_method : "gaussian-validation-rms";
}

void pt_write_decision(struct strbuf *sb, const struct pt_controller *tc, const struct pt_decision *d)
{
	const struct pt_config *c = tc->cfg;
	const struct pt_estimator *e = &tc->est;
	sb_adds(sb, "{\"type\":\"control_decision\",\"controller_id\":");
	sb_add_jstr(sb, c->controller_id, strlen(c->controller_id));
	sb_adds(sb, ",\"cutoff_time_seconds\":");
	result_add_double(sb, d->now);
	sb_addf(sb, ",\"retained\":%s,\"history_ready\":%s,\"training_performed\":%s", d->retained ? "true" : "false",
	        d->history_ready ? "true" : "false", d->training_performed ? "true" : "false");
	sb_adds(sb, ",\"trained_at_seconds\":");
	if (e->trained)
		result_add_double(sb, e->trained_at);
	else
		sb_adds(sb, "null");
	sb_adds(sb, ",\"model_fingerprint\":");
	if (e->trained)
		sb_addf(sb, "\"%s\"", e->fingerprint);
	else
		sb_adds(sb, "null");
	sb_addf(sb, ",\"demand_sample_count\":%zu,\"series_count\":%zu", d->sample_index + 1, tc->hist.n_series);
	sb_adds(sb, ",\"hp_outstanding_requested_gpus\":");
	num6(sb, d->hp_outstanding_gpus);
	sb_adds(sb, ",\"hp_running_requested_gpus\":");
	num6(sb, d->hp_running_gpus);
	sb_adds(sb, ",\"spot_backlog_gpus\":");
	num6(sb, d->spot_backlog_gpus);
	sb_adds(sb, ",\"running_spot_gpus\":");
	num6(sb, d->running_spot_gpus);
	sb_adds(sb, ",\"eta\":");
	result_add_double(sb, num_round(d->eta, 9));
	sb_adds(sb, ",\"spot_quota_gpus_by_guarantee_hour\":");
	quotas_by_hour(sb, c, d->quota);
	sb_adds(sb, ",\"points\":[");
	for (size_t i = 0; i < d->n_points; i++) {
		const struct pt_est_point *pt = &d->points[i];
		const char *pool = tc->hist.pools[pt->pool];
		sb_adds(sb, i ? ",{\"resource_pool\":" : "{\"resource_pool\":");
		sb_add_jstr(sb, pool, strlen(pool));
		sb_addf(sb, ",\"horizon_step\":%d,\"target_time_seconds\":", pt->step);
		result_add_double(sb, pt->target);
		sb_adds(sb, ",\"mu_gpus\":");
		result_add_double(sb, pt->mu);
		sb_adds(sb, ",\"sigma_gpus\":");
		result_add_double(sb, pt->sigma);
		sb_adds(sb, ",\"guarantee_quantile_gpus\":");
		result_add_double(sb, pt->quantile);
		sb_adds(sb, ",\"raw_quantile_gpus\":");
		result_add_double(sb, pt->raw);
		sb_adds(sb, ",\"calibration_offset_gpus\":");
		result_add_double(sb, pt->offset);
		sb_addf(sb, ",\"method\":\"%s\"}", point_method(c));
	}
	sb_adds(sb, "],\"resource_pools\":{");
	for (size_t p = 0; p < tc->n_pools; p++) {
		const struct pt_pool_decision *pd = &d->pools[p];
		if (p)
			sb_addc(sb, ',');
		sb_add_jstr(sb, tc->hist.pools[p], strlen(tc->hist.pools[p]));
		sb_adds(sb, ":{\"capacity_gpus\":");
		result_add_double(sb, tc->capacity[p]);
		sb_adds(sb, ",\"hp_running_gpus\":");
		num6(sb, pd->hp_running_gpus);
		sb_adds(sb, ",\"idle_gpus\":");
		num6(sb, pd->obs.idle_gpus);
		sb_adds(sb, ",\"running_spot_gpus\":");
		num6(sb, pd->obs.running_spot_gpus);
		sb_adds(sb, ",\"spot_backlog_gpus\":");
		num6(sb, pd->obs.spot_backlog_gpus);
		sb_adds(sb, ",\"maximum_spot_queue_wait_seconds\":");
		num6(sb, pd->obs.maximum_spot_wait_seconds);
		sb_adds(sb, ",\"feedback\":{\"event_weight\":");
		num6(sb, pd->event_weight);
		sb_adds(sb, ",\"eviction_rate\":");
		if (pd->has_rate)
			result_add_double(sb, num_round(pd->eviction_rate, 9));
		else
			sb_adds(sb, "null");
		sb_adds(sb, ",\"eta_before\":");
		result_add_double(sb, num_round(pd->eta_before, 9));
		sb_adds(sb, ",\"eta_after\":");
		result_add_double(sb, num_round(pd->eta_after, 9));
		sb_addf(sb, ",\"reason\":\"%s\"}", pt_reason_name(pd));
		sb_adds(sb, ",\"predicted_free_gpus_by_guarantee_hour\":{");
		for (size_t hi = 0; hi < tc->n_horizons; hi++) {
			sb_addf(sb, "%s\"%lld\":", hi ? "," : "", c->horizons[hi]);
			result_add_double(sb, pd->free[hi]);
		}
		sb_adds(sb, "},\"spot_quota_gpus_by_guarantee_hour\":");
		quotas_by_hour(sb, c, pd->quota);
		sb_addf(sb, ",\"starvation\":%s,\"gate\":{\"admitted_spot_runs\":%lld,\"held_spot_jobs\":%lld}}",
		        pd->starvation ? "true" : "false", pd->admitted_runs, pd->held_jobs);
	}
	sb_adds(sb, "}}");
}

static void ratio(struct strbuf *sb, double num, double den, int digits, bool ok)
{
	if (ok)
		result_add_double(sb, num_round(num / den, digits));
	else
		sb_adds(sb, "null");
}

/* The report's feedback_events: per pool the events and their success and failure weights. */
static void feedback_events(struct strbuf *sb, const struct pt_controller *tc)
{
	for (size_t p = 0; p < tc->n_pools; p++) {
		const struct pt_fb_window *f = &tc->fb[p];
		if (p)
			sb_addc(sb, ',');
		sb_add_jstr(sb, tc->hist.pools[p], strlen(tc->hist.pools[p]));
		sb_addf(sb, ":{\"event_count\":%lld,\"success_weight\":", f->event_count);
		num6(sb, f->success_weight);
		sb_adds(sb, ",\"failure_weight\":");
		num6(sb, f->failure_weight);
		sb_adds(sb, ",\"total_weight\":");
		num6(sb, f->success_weight + f->failure_weight);
		sb_adds(sb, ",\"weight_by_event_kind\":{");
		bool first = true;
		static const enum pt_event_kind sorted[] = { PT_EVENT_GUARANTEE, PT_EVENT_COMPLETED, PT_EVENT_PREEMPTED };
		for (size_t k = 0; k < PT_EVENT_KINDS; k++) {
			double w = tc->by_kind[p * PT_EVENT_KINDS + sorted[k]];
			if (w == 0)
				continue;
			sb_addf(sb, "%s\"%s\":", first ? "" : ",", pt_event_kind_name(sorted[k]));
			num6(sb, w);
			first = false;
		}
		sb_adds(sb, "}}");
	}
}

void pt_write_report(struct strbuf *sb, const struct pt_controller *tc)
{
	const struct pt_config *c = tc->cfg;
	const struct pt_estimator *e = &tc->est;
	const struct pt_scores *s = &tc->scores;
	sb_adds(sb, "{\"type\":\"control_report\",\"schema_version\":\"" PC_REPORT_SCHEMA "\",\"controller_id\":");
	sb_add_jstr(sb, c->controller_id, strlen(c->controller_id));
	sb_addf(sb, ",\"controller_fingerprint\":\"%s\",\"estimator\":\"%s\"", c->fingerprint, pt_est_id(c->estimator));
	sb_adds(sb, ",\"information_boundary\":{\"scheduler_state_and_past_history_only\":true,"
	            "\"actual_future_demand_used_for_prediction\":false,"
	            "\"forecast_scoring_occurs_after_target_observation\":true,"
	            "\"tenant_categories_registered_only_after_observation\":true}");
	sb_addf(sb, ",\"quirks_fixed\":{\"q1_eta_on_new_events_only\":%s,\"q2_last_decision_kept\":%s,"
	            "\"q3_mean_error_actual_minus_mu\":%s}",
	        c->quirks_fixed ? "true" : "false", c->quirks_fixed ? "true" : "false", c->quirks_fixed ? "true" : "false");
	sb_adds(sb, ",\"evidence_window_seconds\":{\"start\":");
	result_add_double(sb, tc->evidence_start);
	sb_adds(sb, ",\"end\":");
	result_add_double(sb, tc->evidence_end);
	sb_addf(sb, "},\"update_count\":%zu,\"total_runtime_update_count\":%zu,\"demand_sample_count\":%zu",
	        tc->retained_count, tc->decision_count, tc->hist.n_samples);
	sb_adds(sb, ",\"first_cutoff_time_seconds\":");
	if (tc->retained_count)
		result_add_double(sb, tc->first_cutoff);
	else
		sb_adds(sb, "null");
	sb_adds(sb, ",\"last_cutoff_time_seconds\":");
	if (tc->retained_count)
		result_add_double(sb, tc->last_cutoff);
	else
		sb_adds(sb, "null");
	sb_addf(sb, ",\"forecast_evaluation\":{\"scored_point_count\":%zu,\"mae_gpus\":", s->n);
	ratio(sb, s->abs_error, (double)s->n, 6, s->n > 0);
	sb_adds(sb, ",\"wape\":");
	ratio(sb, s->abs_error, s->actual, 9, s->n > 0 && s->actual > 0);
	sb_adds(sb, ",\"mean_error_gpus\":");
	ratio(sb, s->error, (double)s->n, 6, s->n > 0);
	sb_adds(sb, ",\"guarantee_quantile_coverage\":");
	ratio(sb, (double)s->covered, (double)s->n, 9, s->n > 0);
	sb_adds(sb, ",\"pinball_loss\":");
	ratio(sb, s->pinball, (double)s->n, 6, s->n > 0);
	sb_addf(sb, "},\"forecast_evaluation_sums\":{\"scored_point_count\":%zu,\"absolute_error_gpus\":", s->n);
	result_add_double(sb, s->abs_error);
	sb_adds(sb, ",\"error_gpus\":");
	result_add_double(sb, s->error);
	sb_adds(sb, ",\"actual_gpus\":");
	result_add_double(sb, s->actual);
	sb_addf(sb, ",\"covered_point_count\":%zu,\"pinball_loss\":", s->covered);
	result_add_double(sb, s->pinball);
	sb_adds(sb, "},\"eta\":{\"initial\":");
	result_add_double(sb, c->initial_eta);
	sb_adds(sb, ",\"final_by_resource_pool\":{");
	for (size_t p = 0; p < tc->n_pools; p++) {
		if (p)
			sb_addc(sb, ',');
		sb_add_jstr(sb, tc->hist.pools[p], strlen(tc->hist.pools[p]));
		sb_addc(sb, ':');
		result_add_double(sb, num_round(tc->eta[p], 9));
	}
	sb_adds(sb, "},\"minimum_observed\":");
	if (tc->retained_count)
		result_add_double(sb, tc->eta_min);
	else
		sb_adds(sb, "null");
	sb_adds(sb, ",\"maximum_observed\":");
	if (tc->retained_count)
		result_add_double(sb, tc->eta_max);
	else
		sb_adds(sb, "null");
	sb_adds(sb, "},\"spot_quota_gpus\":{\"mean\":");
	ratio(sb, tc->quota_sum, (double)tc->quota_n, 6, tc->quota_n > 0);
	if (tc->quota_n)
		sb_addf(sb, ",\"minimum\":%lld,\"maximum\":%lld", tc->quota_min, tc->quota_max);
	else
		sb_adds(sb, ",\"minimum\":null,\"maximum\":null");
	sb_adds(sb, ",\"latest_by_resource_pool\":{");
	for (size_t p = 0; p < tc->n_pools; p++) {
		static const long long zeros[64];
		if (p)
			sb_addc(sb, ',');
		sb_add_jstr(sb, tc->hist.pools[p], strlen(tc->hist.pools[p]));
		sb_addc(sb, ':');
		quotas_by_hour(sb, c, tc->have_last ? tc->last.pools[p].quota : zeros);
	}
	sb_addf(sb, "}},\"admission_diagnostics\":{\"pool_update_count\":%zu,\"starvation_flagged_count\":%zu,"
	            "\"starvation_flagged_fraction\":", tc->pool_updates, tc->flagged);
	ratio(sb, (double)tc->flagged, (double)tc->pool_updates, 9, tc->pool_updates > 0);
	sb_adds(sb, ",\"idle_gpu_seconds_while_flagged\":");
	num6(sb, tc->flagged_idle_seconds);
	sb_adds(sb, ",\"maximum_spot_wait_seconds_while_flagged\":");
	num6(sb, tc->flagged_max_wait);
	sb_adds(sb, "},\"feedback_events\":{");
	feedback_events(sb, tc);
	sb_addf(sb, "},\"model\":{\"model\":\"%s\",\"model_fingerprint\":", pt_est_id(c->estimator));
	if (e->trained) {
		sb_addf(sb, "\"%s\",\"trained_at_seconds\":", e->fingerprint);
		result_add_double(sb, e->trained_at);
		sb_addf(sb, ",\"training\":{\"training_generation\":%lld,\"series_count\":%zu,\"history_sample_count\":%zu,"
		            "\"train_window_count\":%zu,\"validation_window_count\":%zu,\"train_row_count\":%zu,"
		            "\"epochs_completed\":null,\"best_validation_gaussian_nll\":null,\"calibration\":{",
		        e->generation, e->fit_series, e->history_samples, e->train_windows, e->validation_windows, e->train_rows);
		bool first = true;
		for (size_t p = 0; p < tc->n_pools; p++) {
			if (!e->pool_fitted[p])
				continue;
			if (!first)
				sb_addc(sb, ',');
			first = false;
			sb_add_jstr(sb, tc->hist.pools[p], strlen(tc->hist.pools[p]));
			sb_adds(sb, ":[");
			for (size_t k = 0; k < tc->steps; k++) {
				const struct pt_est_calibration *cal = &e->cal[p * tc->steps + k];
				sb_addf(sb, "%s{\"horizon_step\":%zu,\"n\":%zu,\"rank\":", k ? "," : "", k + 1, cal->n);
				if (c->calibration_method)
					sb_addf(sb, "%zu", cal->rank);
				else
					sb_adds(sb, "null");
				sb_adds(sb, ",\"sigma\":");
				num6(sb, cal->sigma);
				sb_adds(sb, ",\"offset\":");
				result_add_double(sb, cal->offset);
				sb_adds(sb, ",\"raw_coverage\":");
				result_add_double(sb, num_round(cal->raw_coverage, 9));
				sb_adds(sb, ",\"calibrated_coverage\":");
				result_add_double(sb, num_round(cal->calibrated_coverage, 9));
				sb_addc(sb, '}');
			}
			sb_addc(sb, ']');
		}
		sb_adds(sb, "}}}}");
	} else
		sb_adds(sb, "null,\"trained_at_seconds\":null,\"training\":null}}");
}
