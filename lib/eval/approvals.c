/* The approval records of approve(1) and their log (eval/evidence.h): the key set, the values,
 * the chainlog spec, one record's check and a whole log read as approve --verify does. */
#include "eval/evidence.h"
#include "core/ndjson.h"
#include "eval/chainlog.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const approval_keys[] = {
	"type", "ranking_fingerprint", "action_id", "policy_fingerprint", "approved_by", "approved_at",
	"reason", "selection_status", "previous_fingerprint", "approval_fingerprint", NULL
};

/* An approval's values: strings (previous_fingerprint null or a string), the identifier rule
 * for action_id and approved_by. The key set and the fingerprints are checked by the caller. */
static int approval_values(const struct json *rec, char *err, size_t errlen)
{
	for (const char *const *k = approval_keys; *k; k++) {
		const struct json *v = json_get(rec, *k);
		bool prev = !strcmp(*k, "previous_fingerprint");
		if (!v || (v->kind != JSON_STRING && !(prev && v->kind == JSON_NULL))) {
			snprintf(err, errlen, "'%s' must be a string%s", *k, prev ? " or null" : "");
			return -1;
		}
	}
	return ev_check_id(rec, "action_id", err, errlen) || ev_check_id(rec, "approved_by", err, errlen) ? -1 : 0;
}

const struct chainlog_spec ev_approval_log = {
	.type = "approval", .keys = approval_keys, .fp_key = "approval_fingerprint",
	.prev_key = "previous_fingerprint", .retry = "approve", .check = approval_values,
};

int ev_approval_check(const struct json *rec, char *err, size_t errlen)
{
	char e[200];
	if (nd_check_keys(rec, ND_KEYS(approval_keys), e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	if (approval_values(rec, err, errlen))
		return -1;
	if (!ev_self_fp_ok(rec, "approval_fingerprint")) {
		snprintf(err, errlen, "'approval_fingerprint' does not verify (the line was edited)");
		return -1;
	}
	return 0;
}

int ev_approvals_read(struct ev_approvals *log, const char *buf, size_t len, const char *name, struct arena *a, char *err, size_t errlen)
{
	unsigned long n;
	memset(log, 0, sizeof *log);
	int rc = ev_chainlog_read(buf, len, name, &ev_approval_log, a, &log->rec, log->last, &n, err, errlen);
	log->n = n;
	return rc;
}

void ev_approvals_release(struct ev_approvals *log)
{
	free(log->rec);
	memset(log, 0, sizeof *log);
}
