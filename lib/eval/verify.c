/* The dispatcher of evidence records (eval/evidence.h): ev_verify checks a record by its type
 * with its own module's check (metrics: evidence.c, audit: slo.c, ranking: ranking.c,
 * approval: approvals.c) or its self-fingerprint, and the readers that verify what they read.
 * Kept apart from evidence.c, the helpers those checks use, so no file of lib/eval uses one
 * that uses it back. */
#include "eval/evidence.h"
#include "eval/ranking.h"
#include "eval/slo.h"
#include <stdio.h>
#include <string.h>

int ev_verify_from(const struct ev_input *in, size_t first, const char *skip, char *err, size_t errlen)
{
	return ev_verify_range(in, first, in->n, skip, err, errlen);
}

int ev_verify_range(const struct ev_input *in, size_t first, size_t end, const char *skip, char *err, size_t errlen)
{
	char e[1024];
	for (size_t i = first; i < end && i < in->n; i++)
		if (!(skip && !strcmp(in->items[i].type, skip)) && ev_verify(in->items[i].rec, e, sizeof e)) {
			snprintf(err, errlen, "%s: %s", ev_where(&in->items[i]), e);
			return -1;
		}
	return 0;
}

int ev_read_verified(struct ev_input *in, const char *path, const char *const *schemas, const char *skip, struct arena *a, char *err,
		     size_t errlen)
{
	size_t first = in->n;
	if (ev_read(in, path, schemas, a, err, errlen))
		return -1;
	return ev_verify_from(in, first, skip, err, errlen);
}

/* The key of the record's own fingerprint, by type (NULL: the type carries none). */
static const char *self_fp_key(const char *type)
{
	static const struct { const char *type, *key; } t[] = {
		{ "audit", "audit_fingerprint" }, { "ranking", "ranking_fingerprint" }, { "approval", "approval_fingerprint" },
		{ "selection", "fingerprint" }, { "selection-lock", "fingerprint" }, { "comparison", "comparison_fingerprint" },
		{ "portfolio", "portfolio_fingerprint" }, { "aggregate_action", "aggregate_fingerprint" },
		{ "aggregate_summary", "summary_fingerprint" }, { "adaptive_design", "design_fingerprint" },
		{ "controller_selections", "selections_fingerprint" }, { "rule_selections", "fingerprint" },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(t[i].type, type))
			return t[i].key;
	return NULL;
}

int ev_verify(const struct json *rec, char *err, size_t errlen)
{
	const char *type = json_get_str(rec, "type");
	char e[300];
	if (!type)
		return 0;
	int rc = 0;
	if (!strcmp(type, "metrics"))
		return ev_metrics_check(rec, err, errlen);
	if (!strcmp(type, "audit"))
		rc = ev_slo_audit_check(rec, e, sizeof e);
	else if (!strcmp(type, "ranking"))
		return ev_rank_check(rec, err, errlen);
	else if (!strcmp(type, "approval")) {
		if (ev_approval_check(rec, e, sizeof e)) {
			snprintf(err, errlen, "approval record: %s", e);
			return -1;
		}
		return 0;
	}
	if (rc) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	const char *key = self_fp_key(type);
	if (key && !ev_self_fp_ok(rec, key)) {
		snprintf(err, errlen, "%s record: '%s' does not verify (the record was edited)", type, key);
		return -1;
	}
	return 0;
}
