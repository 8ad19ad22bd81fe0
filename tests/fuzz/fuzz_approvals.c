/* The approval log (ev_approvals_read: every line, fingerprint and chain, as approve
 * --verify, decision-table and report read it) and the study records of aggregate,
 * compare, study-select and study-lock streams (ev_read + ev_verify, sealed). */
#include "fuzz_evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const schemas[] = { EV_METRICS_SCHEMA, EV_AUDIT_SCHEMA, EV_RANKING_SCHEMA, EV_COMPARISON_SCHEMA,
		EV_AGGREGATE_SCHEMA, "schednav.selection/1", "schednav.selection-lock/1", NULL };
	struct arena a;
	struct ev_approvals log;
	char err[512];
	arena_init(&a);
	(void)ev_approvals_read(&log, (const char *)data, size, "approvals", &a, err, sizeof err);
	ev_approvals_release(&log);
	arena_release(&a);
	return evidence_one(data, size, schemas);
}
