/*
 * protocol — the rolling decision protocol `schednav.rolling-decision-protocol/1`: one
 * NDJSON line each way per cutoff.
 *   controller → decider: {"type":"decision_request","protocol":…,"request_id":FP,
 *       "decision_index":K,"cutoff_time_seconds":T,"non_deployable":B,
 *       "required_safety_action_id":…,"active_action_id":…,"observation":{…},
 *       "candidates":[{action_id, control_profile, evidence…, scenario_evidence[…]}…],
 *       "ranking":{…},"recommended_action_id":…,"reply_contract":{…},"request_fingerprint":FP}
 *   decider → controller: {"type":"decision","request_id":FP,"action_id":ID,"reason_code":TEXT
 *       [,"llm_call_count":N,"prompt_tokens":N,"completion_tokens":N]}
 * request_id is the request's own fingerprint: XXH3-128 of its canonical bytes without
 * request_id and request_fingerprint, the observation and each candidate standing in by
 * their own (verified) fingerprints; the same state always asks the same question.
 * A reply is accepted only if it is one JSON object with exactly those keys, its request_id
 * is the pending one, action_id names one of the request's candidates, reason_code is one
 * line of at most 256 characters of valid UTF-8 without control characters, and the usage
 * counts are integers in 0..ROLL_USAGE_MAX (10^12). Anything else is rejected with a reason code and the
 * safety action applies; the raw reply is kept as its length, XXH3-128 and a UTF-8-safe
 * excerpt. Records live in the caller's arena. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_PROTOCOL_H
#define SCHEDNAV_ROLL_PROTOCOL_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_PROTOCOL "schednav.rolling-decision-protocol/1"
#define ROLL_REASON_MAX 256
#define ROLL_REPLY_MAX (64 * 1024)
#define ROLL_EXCERPT_MAX 200
/* Bounds of the usage counts: each reply's, and a run's sums (exact in a double, far from
 * the range of a 64-bit integer). */
#define ROLL_USAGE_MAX 1000000000000LL
#define ROLL_USAGE_SUM_MAX 9007199254740992LL

/* Rejection reasons (stable codes written into rolling_decision records). */
#define ROLL_REJECT_TIMEOUT "timeout"
#define ROLL_REJECT_EXITED "decider_exited"
#define ROLL_REJECT_TOO_LONG "reply_too_long"
#define ROLL_REJECT_UTF8 "invalid_utf8"
#define ROLL_REJECT_JSON "malformed_json"
#define ROLL_REJECT_TYPE "not_a_decision"
#define ROLL_REJECT_KEY "unknown_or_missing_key"
#define ROLL_REJECT_REQUEST "request_id_mismatch"
#define ROLL_REJECT_ACTION "action_not_in_candidates"
#define ROLL_REJECT_REASON "invalid_reason_code"
#define ROLL_REJECT_USAGE "invalid_usage_count"
#define ROLL_REJECT_WRITE "request_write_failed"
#define ROLL_REJECT_PLAN "plan_entry_invalid"

struct roll_reply {
	bool accepted;
	const char *reject_reason;         /* one of ROLL_REJECT_*, NULL when accepted */
	const char *detail;                /* human-readable detail, NULL when accepted */
	const char *action_id;             /* the accepted action (NULL when rejected) */
	const char *reason_code;           /* the accepted reason code */
	long long llm_calls, prompt_tokens, completion_tokens;
	bool has_raw;                      /* a reply line was received */
	size_t raw_bytes;
	char raw_fp[FP_HEX_XXH3];
	const char *raw_excerpt;           /* first bytes, invalid UTF-8 replaced by U+FFFD */
	double seconds;                    /* wall time waited (exec deciders; not in fingerprints) */
};

/* Stamp request_id and request_fingerprint (the same value) on a request being built. */
void roll_request_stamp(struct arena *a, struct json *req);
/* Validate one reply line against the pending request. Always fills out (never fails). */
void roll_reply_parse(struct arena *a, const char *line, size_t len, const char *request_id, const char *const *candidates,
		      size_t n, struct roll_reply *out);
/* A rejection without a reply line (timeout, exit, write failure…). */
void roll_reply_reject(struct roll_reply *out, const char *reason, const char *detail);
/* The request_id of a reply line if it is a JSON object with a string request_id, else NULL. */
const char *roll_reply_request_id(struct arena *a, const char *line, size_t len);
/* The decider_reply object of a rolling_decision record (status, reason, raw reply facts). */
struct json *roll_reply_json(struct arena *a, const struct roll_reply *r);
/* true when s[0..n) is valid UTF-8 (no overlongs, surrogates or code points > U+10FFFF). */
bool roll_utf8_valid(const char *s, size_t n);
/* Up to max bytes of s as valid UTF-8 (invalid sequences become U+FFFD), NUL-terminated. */
const char *roll_utf8_excerpt(struct arena *a, const char *s, size_t n, size_t max);
#endif
