/*
 * evidence — what the evaluation tools (slo-audit, rank, compare, approve, aggregate)
 * share: the flat metrics record's key set, reading concatenated streams while keeping
 * each record's stream fingerprint and position, self-fingerprinted records, and the
 * small statistics of the multi-window summary.
 * Every json value lives in the arena the caller passes; ev_input owns only its arrays
 * (ev_input_release frees them). Nothing here prints or exits: 0 / -1 + message.
 */
#ifndef SCHEDNAV_EVAL_EVIDENCE_H
#define SCHEDNAV_EVAL_EVIDENCE_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

#define EV_METRICS_SCHEMA "schednav.metrics/1"
#define EV_AUDIT_SCHEMA "schednav.audit/1"
#define EV_RANKING_SCHEMA "schednav.ranking/1"
#define EV_COMPARISON_SCHEMA "schednav.comparison/1"
#define EV_AGGREGATE_SCHEMA "schednav.aggregate/1"

extern const char *const ev_catalogue[];   /* the 37 catalogue metric names, README order; NULL-terminated */
extern const char *const ev_action_keys[]; /* ACTION policy keys (docs/evaluation.md §6); NULL-terminated */
bool ev_is_catalogue(const char *name);
bool ev_is_action_key(const char *name);
/* A controller family's summary key of the metrics record: NAME_control (predictive_control,
 * rolling_control, ...), an object the family checks; the catalogue does not name them. */
bool ev_is_control_key(const char *name);

/* Check a flat metrics record: the exact key set of the metrics contract (no key missing,
 * none unknown), the value kinds, and policy_fingerprint == XXH3-128 of the sorted policy. */
int ev_metrics_check(const struct json *rec, char *err, size_t errlen);

/* One body record read from an input, with where it came from. */
struct ev_item {
	struct json *rec;
	const char *type;     /* rec's "type" */
	const char *schema;   /* its stream header's schema */
	const char *path;     /* input name, "<stdin>" for stdin */
	unsigned long line;   /* line of the record in that input */
	char stream_fp[FP_HEX_XXH3];   /* fingerprint of the stream that carried it (verified) */
	unsigned stream_records; /* body records in that stream */
};

struct ev_stream { const char *path, *schema; char fp[FP_HEX_XXH3]; };

struct ev_input {
	struct ev_item *items;
	size_t n, cap;
	struct ev_stream *streams;
	size_t nstreams, scap;
};

void ev_input_init(struct ev_input *in);
void ev_input_release(struct ev_input *in);
/* Read every stream of path ("-" = stdin) into in. Each stream's header schema must be one of
 * schemas (NULL-terminated); a metrics stream must hold exactly one "metrics" record, an
 * audit stream only "audit" records, a ranking stream exactly one "ranking" record. */
int ev_read(struct ev_input *in, const char *path, const char *const *schemas, struct arena *a, char *err, size_t errlen);
/* "PATH:LINE" of an item, in a static buffer valid until the next call. */
const char *ev_where(const struct ev_item *it);
/* ev_verify every item of in from index first on, but those of type skip (NULL: none);
 * -1 + "PATH:LINE: message" for the first that does not verify. */
int ev_verify_from(const struct ev_input *in, size_t first, const char *skip, char *err, size_t errlen);
/* The same for the items [first, end) only (a consumer whose own per-item check must come
 * in the same order: it verifies up to the item it refuses). */
int ev_verify_range(const struct ev_input *in, size_t first, size_t end, const char *skip, char *err, size_t errlen);
/* ev_read, then ev_verify_from on the items it added: how a consumer reads its inputs. */
int ev_read_verified(struct ev_input *in, const char *path, const char *const *schemas, const char *skip, struct arena *a, char *err,
		     size_t errlen);

/* Self-fingerprint: XXH3-128 of json_write(rec) with key omitted. */
void ev_self_fp(const struct json *rec, const char *key, char out[FP_HEX_XXH3]);
/* true when rec[key] is a string equal to the recomputed self-fingerprint. */
bool ev_self_fp_ok(const struct json *rec, const char *key);
/* Append key = self-fingerprint (must be the last key, absent before). */
void ev_self_fp_stamp(struct arena *a, struct json *rec, const char *key);

/* The one check for every record that carries its own fingerprint or whose contract the
 * evaluation defines, used by every consumer (slo-audit, rank, compare, aggregate, approve,
 * study-select, study-lock, decision-table, report): metrics (ev_metrics_check), audit
 * (ev_slo_audit_check and audit_fingerprint), ranking (ev_rank_check, ranking_fingerprint),
 * approval (ev_approval_check), selection and selection-lock ('fingerprint'), comparison,
 * portfolio, aggregate_action and aggregate_summary (their *_fingerprint), the adaptive
 * study's adaptive_design, controller_selections and rule_selections. Records of
 * other types pass. 0, or -1 + "TYPE record: ..." naming what does not verify. */
int ev_verify(const struct json *rec, char *err, size_t errlen);

/* An approval record (approve(1)): exactly its keys, strings where strings belong
 * (previous_fingerprint null or a string) and a verifying approval_fingerprint. */
int ev_approval_check(const struct json *rec, char *err, size_t errlen);

/* The approval log of approve(1) as a chainlog (eval/chainlog.h): its key set, its
 * fingerprint and chain keys, and approval_values as the record check. approve writes and
 * verifies the log with it; decision-table and report read it with ev_approvals_read. */
struct chainlog_spec;
extern const struct chainlog_spec ev_approval_log;

/* A whole approval log held in buf, verified as approve --verify does (ev_chainlog_read with
 * ev_approval_log): every line a checked approval record, chained to the one before, the
 * last line terminated. Records are parsed into a; log->last is the last
 * approval_fingerprint ("" when empty). Errors read "NAME:LINE: message". */
struct ev_approvals {
	struct json **rec;
	size_t n;
	char last[FP_HEX_XXH3];
};
int ev_approvals_read(struct ev_approvals *log, const char *buf, size_t len, const char *name, struct arena *a, char *err, size_t errlen);
void ev_approvals_release(struct ev_approvals *log);

/* XXH3-128 of json_write_sorted(v). */
void ev_sorted_fp(const struct json *v, char out[FP_HEX_XXH3]);

/* rec[key] is a string that follows the identifier rule (core/text.h): 0, or -1 + "TYPE record: 'KEY' ... ". */
int ev_check_id(const struct json *rec, const char *key, char *err, size_t errlen);

/* {mean, median, min, max} of v[0..n) rounded to 9 digits (mean = naive left-to-right sum / n,
 * median = mean of the two middle values when n is even); JSON null when n == 0. */
struct json *ev_stats9(struct arena *a, const double *v, size_t n);
#endif
