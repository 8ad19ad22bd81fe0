#include "eval/ranking.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "core/ndjson.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cand {
	const struct ev_item *audit, *metrics;
	const char *action_id, *policy_fp;
	bool eligible;
	double v[3];
};

static bool is_true(const struct json *obj, const char *key)
{
	struct json *v = json_get(obj, key);
	return v && v->kind == JSON_TRUE;
}

static struct json *soft_target(struct arena *a, const struct json *audit)
{
	struct json *cons = json_get(audit, "constraints");
	for (size_t i = 0; i < cons->u.arr.n; i++) {
		const char *id = json_get_str(cons->u.arr.items[i], "id");
		if (!strcmp(id, "allocation-soft-target"))
			return json_bool(a, is_true(cons->u.arr.items[i], "passed"));
	}
	return json_null(a);
}

static struct json *action_of(struct arena *a, const struct json *metrics)
{
	struct json *pol = json_get(metrics, "policy"), *o = json_object(a);
	for (const char *const *k = ev_action_keys; *k; k++) {
		struct json *v = json_get(pol, *k);
		if (v)
			json_set(a, o, *k, json_clone(a, v));
	}
	return o;
}

static void log_stage(struct arena *a, struct json *stages, const char *name, struct cand *c, const bool *alive, size_t n)
{
	struct json *st = json_object(a), *ids = json_array(a), *fps = json_array(a);
	for (size_t i = 0; i < n; i++)
		if (alive[i]) {
			json_push(a, ids, json_str(a, c[i].action_id));
			json_push(a, fps, json_str(a, c[i].policy_fp));
		}
	json_set(a, st, "stage", json_str(a, name));
	json_set(a, st, "remaining_action_ids", ids);
	json_set(a, st, "remaining_policy_fingerprints", fps);
	json_push(a, stages, st);
}

struct stage_log {
	struct arena *a;
	struct json *stages;
	struct cand *c;
	size_t n;
};

static void log_next_stage(void *ctx, int stage, const bool *alive)
{
	static const char *const names[] = { "maximize_allocation_rate", "minimize_spot_p95_jct", "minimize_spot_eviction_rate_per_run" };
	struct stage_log *lg = ctx;
	log_stage(lg->a, lg->stages, names[stage - 1], lg->c, alive, lg->n);
}

static size_t count_alive(const bool *alive, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += alive[i];
	return k;
}

/* Keep the exact minimum of metric m among the alive. */
static void keep_min(const double (*v)[3], bool *alive, size_t n, int m)
{
	double best = 0;
	bool have = false;
	for (size_t i = 0; i < n; i++)
		if (alive[i] && (!have || v[i][m] < best)) {
			best = v[i][m];
			have = true;
		}
	for (size_t i = 0; i < n; i++)
		if (alive[i] && v[i][m] != best)
			alive[i] = false;
}

size_t ev_rank_narrow(const double (*v)[3], bool *alive, size_t n, double band, rank_stage_fn *stage, void *ctx)
{
	if (count_alive(alive, n) >= 1) {
		double best = 0;
		bool have = false;
		for (size_t i = 0; i < n; i++)
			if (alive[i] && (!have || v[i][0] > best)) {
				best = v[i][0];
				have = true;
			}
		for (size_t i = 0; i < n; i++)
			if (alive[i] && !(band > 0 ? best - v[i][0] < band : v[i][0] == best))
				alive[i] = false;
		if (stage)
			stage(ctx, 1, alive);
	}
	for (int m = 1; m <= 2; m++)
		if (count_alive(alive, n) > 1) {
			keep_min(v, alive, n, m);
			if (stage)
				stage(ctx, m + 1, alive);
		}
	return count_alive(alive, n);
}

static int find_metrics(const struct ev_input *in, const char *fp)
{
	for (size_t i = 0; i < in->n; i++)
		if (!strcmp(in->items[i].type, "metrics") && !strcmp(in->items[i].stream_fp, fp))
			return (int)i;
	return -1;
}

static int build_candidates(const struct slo_spec *s, const struct ev_input *in, size_t max, struct cand *c, size_t *nc,
                            char *err, size_t errlen)
{
	char e[512];
	size_t n = 0;
	bool *used = xcalloc(in->n, sizeof *used);
	int rc = -1;
	for (size_t i = 0; i < in->n; i++) {
		const struct ev_item *it = &in->items[i];
		if (!strcmp(it->type, "metrics"))
			continue;
		if (ev_slo_audit_check(it->rec, e, sizeof e)) {
			snprintf(err, errlen, "%s: %s", ev_where(it), e);
			goto out;
		}
		if (n == max) {
			snprintf(err, errlen, "%s: more than %zu audit records (rank takes 3 to %zu candidates)", ev_where(it), max, max);
			goto out;
		}
		const char *slo_fp = json_get_str(it->rec, "slo_fingerprint");
		if (strcmp(slo_fp, s->fingerprint)) {
			snprintf(err, errlen, "%s: audit was made with SLO '%s', not this spec ('%s')", ev_where(it), slo_fp, s->fingerprint);
			goto out;
		}
		const char *mfp = json_get_str(it->rec, "metrics_fingerprint");
		int m = find_metrics(in, mfp);
		if (m < 0) {
			snprintf(err, errlen, "%s: audit refers to metrics '%s', which is not among the inputs", ev_where(it), mfp);
			goto out;
		}
		if (used[m]) {
			snprintf(err, errlen, "%s: a second audit of metrics '%s'", ev_where(it), mfp);
			goto out;
		}
		used[m] = true;
		struct cand *k = &c[n++];
		k->audit = it;
		k->metrics = &in->items[m];
		k->action_id = json_get_str(k->metrics->rec, "action_id");
		k->policy_fp = json_get_str(k->metrics->rec, "policy_fingerprint");
		for (size_t j = 0; j + 1 < n; j++)
			if (!strcmp(c[j].action_id, k->action_id)) {
				snprintf(err, errlen, "%s: action '%s' appears twice among the candidates", ev_where(it), k->action_id);
				goto out;
			}
	}
	for (size_t i = 0; i < in->n; i++)
		if (!strcmp(in->items[i].type, "metrics") && !used[i]) {
			snprintf(err, errlen, "%s: metrics record '%s' has no audit", ev_where(&in->items[i]), in->items[i].stream_fp);
			goto out;
		}
	if (n < RANK_MIN_CANDIDATES) {
		snprintf(err, errlen, "%zu candidates (audit + metrics pairs); rank takes 3 to %zu", n, max);
		goto out;
	}
	*nc = n;
	rc = 0;
out:
	free(used);
	return rc;
}

struct json *ev_rank_build(const struct slo_spec *s, const struct ev_input *in, size_t max, struct arena *a, char *err,
                        size_t errlen)
{
	if (max < RANK_MIN_CANDIDATES || max > RANK_LIMIT_CANDIDATES) {
		snprintf(err, errlen, "the candidate bound must be %d to %d", RANK_MIN_CANDIDATES, RANK_LIMIT_CANDIDATES);
		return NULL;
	}
	if (!s->has_ranking) {
		snprintf(err, errlen, "the SLO spec has no 'ranking' block");
		return NULL;
	}
	struct cand c[RANK_LIMIT_CANDIDATES];
	memset(c, 0, sizeof c);
	size_t n = 0;
	if (build_candidates(s, in, max, c, &n, err, errlen))
		return NULL;
	const char *names[3] = { s->allocation_metric, s->second_metric, s->third_metric };
	struct json *cands = json_array(a);
	bool alive[RANK_LIMIT_CANDIDATES];
	for (size_t i = 0; i < n; i++) {
		const struct json *au = c[i].audit->rec, *me = c[i].metrics->rec;
		bool evidence = ev_self_fp_ok(au, "audit_fingerprint") && is_true(au, "metrics_schema_supported") &&
		                is_true(au, "metrics_fingerprint_valid") &&
		                !strcmp(json_get_str(au, "policy_fingerprint"), c[i].policy_fp) &&
		                !strcmp(json_get_str(au, "action_id"), c[i].action_id);
		bool hard = is_true(au, "audit_passed");
		alive[i] = evidence && hard;
		struct json *o = json_object(a), *vals = json_object(a);
		json_set(a, o, "policy_fingerprint", json_str(a, c[i].policy_fp));
		json_set(a, o, "metrics_fingerprint", json_str(a, c[i].metrics->stream_fp));
		json_set(a, o, "audit_fingerprint", json_str(a, json_get_str(au, "audit_fingerprint")));
		json_set(a, o, "action", action_of(a, me));
		json_set(a, o, "evidence_valid", json_bool(a, evidence));
		json_set(a, o, "hard_slo_passed", json_bool(a, hard));
		json_set(a, o, "allocation_soft_target_met", soft_target(a, au));
		for (int m = 0; m < 3; m++) {
			struct json *v = json_get(me, names[m]);
			json_set(a, vals, names[m], json_clone(a, v));
			if (v && json_is_num(v))
				c[i].v[m] = json_num(v);
			else if (alive[i]) {
				snprintf(err, errlen, "%s: candidate '%s' passes the hard SLOs but its ranking metric '%s' is null; it cannot be ranked",
				         ev_where(c[i].metrics), c[i].action_id, names[m]);
				return NULL;
			}
		}
		json_set(a, o, "ranking_metrics", vals);
		json_push(a, cands, o);
	}
	struct json *stages = json_array(a);
	log_stage(a, stages, "hard_slo_filter", c, alive, n);
	struct stage_log lg = { a, stages, c, n };
	double v[RANK_LIMIT_CANDIDATES][3];
	for (size_t i = 0; i < n; i++)
		memcpy(v[i], c[i].v, sizeof v[i]);
	ev_rank_narrow((const double (*)[3])v, alive, n, s->tie_band, log_next_stage, &lg);
	size_t left = count_alive(alive, n);
	struct json *ids = json_array(a), *fps = json_array(a);
	for (size_t i = 0; i < n; i++)
		if (alive[i]) {
			json_push(a, ids, json_str(a, c[i].action_id));
			json_push(a, fps, json_str(a, c[i].policy_fp));
		}
	struct json *rule = json_object(a);
	json_set(a, rule, "allocation_metric", json_str(a, s->allocation_metric));
	json_set(a, rule, "allocation_tie_band", json_real(a, s->tie_band));
	json_set(a, rule, "second_metric", json_str(a, s->second_metric));
	json_set(a, rule, "third_metric", json_str(a, s->third_metric));
	json_set(a, rule, "unresolved_tie", json_str(a, s->unresolved_tie));
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "ranking"));
	json_set(a, rec, "slo_name", json_str(a, s->name));
	json_set(a, rec, "slo_fingerprint", json_str(a, s->fingerprint));
	json_set(a, rec, "ranking_rule", rule);
	json_set(a, rec, "candidates", cands);
	json_set(a, rec, "stages", stages);
	json_set(a, rec, "selection_status", json_str(a, left == 0 ? "no_eligible_policy" : left == 1 ? "selected" : "tie_requires_human_approval"));
	json_set(a, rec, "selected_action_ids", ids);
	json_set(a, rec, "selected_policy_fingerprints", fps);
	ev_self_fp_stamp(a, rec, "ranking_fingerprint");
	return rec;
}

int ev_rank_check(const struct json *rec, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"type", "slo_name", "slo_fingerprint", "ranking_rule", "candidates", "stages", "selection_status",
		"selected_action_ids", "selected_policy_fingerprints", "ranking_fingerprint", NULL
	};
	char e[200];
	if (nd_check_keys(rec, ND_KEYS(keys), e, sizeof e)) {
		snprintf(err, errlen, "ranking record: %s", e);
		return -1;
	}
	for (const char *const *k = keys; *k; k++)
		if (!json_get(rec, *k)) {
			snprintf(err, errlen, "ranking record: missing key '%s'", *k);
			return -1;
		}
	const char *st = json_get_str(rec, "selection_status");
	if (!st || (strcmp(st, "selected") && strcmp(st, "tie_requires_human_approval") && strcmp(st, "no_eligible_policy"))) {
		snprintf(err, errlen, "ranking record: bad 'selection_status'");
		return -1;
	}
	struct json *ids = json_get(rec, "selected_action_ids"), *fps = json_get(rec, "selected_policy_fingerprints");
	struct json *cands = json_get(rec, "candidates");
	if (ids->kind != JSON_ARRAY || fps->kind != JSON_ARRAY || ids->u.arr.n != fps->u.arr.n || cands->kind != JSON_ARRAY) {
		snprintf(err, errlen, "ranking record: malformed selection or candidates");
		return -1;
	}
	for (size_t i = 0; i < ids->u.arr.n; i++) {
		const struct json *id = ids->u.arr.items[i];
		if (id->kind != JSON_STRING || fps->u.arr.items[i]->kind != JSON_STRING) {
			snprintf(err, errlen, "ranking record: selected ids and fingerprints must be strings");
			return -1;
		}
		if (text_id_problem(id->u.str.s, id->u.str.len)) {
			snprintf(err, errlen, "ranking record: a selected action id %s", text_id_problem(id->u.str.s, id->u.str.len));
			return -1;
		}
	}
	if (!ev_self_fp_ok(rec, "ranking_fingerprint")) {
		snprintf(err, errlen, "ranking record: 'ranking_fingerprint' does not verify (the record was edited)");
		return -1;
	}
	return 0;
}
