/*
 * adaptive — the frozen design of an adaptive holdout study (docs/studies-rules.md "Adaptive
 * holdout") and the controllers' candidate sets checked against it.
 *
 * The design record (`adaptive_design`, schema_version schednav.adaptive-study-design/v1)
 * fixes, before any simulation: the eligible windows in chronological order, the cut
 * int(f·n) into calibration and evaluation, each window's workload signals (peak and mean
 * hourly requested pressure, Spot share of requested GPUs: trace-scan's values), the rule
 * thresholds (calibration medians of peak pressure and Spot share), the catalogue (action
 * ids + policy fingerprints, the baseline first among equals) and the carry-in. It is
 * self-fingerprinted by design_fingerprint (ev_self_fp).
 *
 * A controller's selections name, for every evaluation window exactly once, 3 to 5 distinct
 * catalogue ids including the baseline and one reason code (one line, at most 256 bytes):
 * the agent's in plan-check's `controller_selections` record (schema_version
 * schednav.controller-selections/v1; every selection observed the design, so its
 * observation_fingerprint is the design fingerprint; self-fingerprinted by
 * selections_fingerprint), workload-rule-v1's in a `rule_selections` record (schema_version
 * schednav.rule-selections/1, naming the design fingerprint; self-fingerprinted by
 * fingerprint).
 *
 * Every string and array below points into the arena passed to the parser or builder
 * (or into the parsed record, which must outlive the struct). Nothing prints or exits:
 * functions return 0 / -1 with a message in err.
 */
#ifndef SCHEDNAV_EVAL_ADAPTIVE_H
#define SCHEDNAV_EVAL_ADAPTIVE_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

#define AD_DESIGN_SCHEMA "schednav.adaptive-study-design/v1"
#define AD_DESIGN_STREAM_SCHEMA "schednav.adaptive-design/1"     /* adaptive-design's stream */
#define AD_SELECTION_STREAM_SCHEMA "schednav.selection/1"        /* study-select's stream */
#define AD_WINDOW_RESULT_SCHEMA "schednav.window-result/1"      /* a study window's receipt stream */
#define AD_SELECTIONS_SCHEMA "schednav.controller-selections/v1"
#define AD_RULE_SCHEMA "schednav.rule-selections/1"
#define AD_RULE_ID "workload-rule-v1"
#define AD_MIN_CANDIDATES 3
#define AD_MAX_CANDIDATES 5
#define AD_MIN_WINDOWS 4
#define AD_REASON_MAX 256

struct ad_window {
	const char *id;
	bool evaluation;                 /* false: calibration */
	double start, end, warmup_start;
	double peak_pressure, mean_pressure, spot_share;
};

struct ad_design {
	const char *fingerprint;         /* design_fingerprint */
	const char *baseline;            /* baseline_action_id */
	const char **actions, **policy_fps;
	size_t nactions;
	struct ad_window *windows;       /* chronological; calibration first */
	size_t nwindows, ncalibration;
	double peak_threshold, share_threshold;
};

struct ad_selections {
	const char *controller_id, *model_id, *fingerprint;   /* model_id NULL for the rule */
	/* per evaluation window, in design order: */
	const char ***candidates;
	size_t *ncandidates;
	const char **reasons;
};

/* An identifier we write and compare: the one identifier rule, text_id_problem (no control
 * character of C0 or C1, no NUL, valid UTF-8, no white space at either end, 1..1024 bytes). */
bool ev_ad_id_ok(const char *s);

/* Python's statistics.median of v[0..n) (n > 0): sorts v in place. */
double ev_ad_median(double *v, size_t n);

/* Parse and check a design record: key set, kinds, the self-fingerprint, the split (the
 * calibration windows first, at least one of each, chronological), unique ids, the
 * baseline in the catalogue. */
int ev_ad_design_parse(struct ad_design *d, const struct json *rec, struct arena *a, char *err, size_t errlen);

/* workload-rule-v1 for window w of d: its three candidates (catalogue ids) in ids and the
 * reason code as the return value. High means >= the design's threshold. */
const char *ev_ad_rule_candidates(const struct ad_window *w, const struct ad_design *d, const char *ids[3]);
/* workload-rule-v1's rule_selections record for the evaluation windows of d (self-fingerprinted
 * by fingerprint); d's catalogue must pass ev_ad_rule_applies. */
struct json *ev_ad_rule_record(struct arena *a, const struct ad_design *d);
/* Read a rule_selections record of d into s (its shape, fingerprint and windows, as below). */
int ev_ad_rule_parse(struct ad_selections *s, const struct json *rec, const struct ad_design *d, struct arena *a, char *err, size_t errlen);
/* -1 + message unless d's catalogue is exactly the five ids workload-rule-v1 names. */
int ev_ad_rule_applies(const struct ad_design *d, char *err, size_t errlen);

/* Check the agent's controller_selections record (plan-check --adaptive) against d: its key set
 * and schema_version, selections_fingerprint, the safety action = d's baseline, and per
 * selection the design fingerprint as observation, every evaluation window exactly once, 3-5
 * distinct catalogue ids including the baseline, a one-line reason code of at most 256 bytes;
 * fill s. Messages start with "controller 'ID': ". */
int ev_ad_agent_parse(struct ad_selections *s, const struct json *rec, const struct ad_design *d, struct arena *a, char *err, size_t errlen);
#endif
