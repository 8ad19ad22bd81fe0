/*
 * config — the rolling controller's declared inputs (docs/rolling-rules.md): the rolling controller
 * config (`schednav.rolling-controller/1`, configs/rolling/) and the bounded action space
 * (`schednav.native-action-space/1`, configs/action_spaces/) whose profiles are ordinary
 * policy files. Both are validated completely (exact key sets, one safety action that is
 * FIFO, FIFO + bypass unless it is native-fifo, identical fixed execution controls, no
 * duplicate or control-character action ids; an optional "inner_predictor", the path of the
 * inner predictor's config, which roll uses unless --controller says otherwise) and fingerprinted: XXH3-128 of the file's
 * canonical sorted JSON. A relative path inside a file is looked up in the current
 * directory, then against each ancestor directory of the file that names it, so
 * "configs/policies/x.json" works from any working directory inside a checkout; when
 * nothing is found that way, a reference that starts with "configs/" is looked up again
 * without that first component, so a copy of the configs tree under another name
 * (schednav-mcp --configs DIR) finds its own files.
 * The catalog fingerprint also covers every profile's policy fingerprint, so editing a policy
 * file changes it. Strings and policies live in the arena passed in (the structs hold no
 * other memory). Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_CONFIG_H
#define SCHEDNAV_ROLL_CONFIG_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "sim/policy.h"
#include <stdbool.h>
#include <stddef.h>

#define ROLL_CONFIG_SCHEMA "schednav.rolling-controller/1"
#define ROLL_ACTION_SPACE_SCHEMA "schednav.native-action-space/1"
#define ROLL_SET_SINGLE_ID "single-calibrated-p90"
#define ROLL_SET_DUAL_ID "dual-forecast-replay-v1"
#define ROLL_EPS 1e-9
#define ROLL_MAX_CATALOG 16

/* The control fields an action space may declare (distance for minimum control change). */
enum roll_field {
	RF_SCHEDULER, RF_GUARANTEE, RF_CHECKPOINT, RF_DELAY, RF_BUDGET, RF_VICTIM, RF_MODE, RF_COUNT
};
extern const char *const roll_field_names[RF_COUNT];

struct roll_catalog {
	const char *name;
	const char *safety_id;
	struct sim_policy actions[ROLL_MAX_CATALOG];  /* profile order */
	const char *paths[ROLL_MAX_CATALOG];          /* resolved profile paths */
	size_t n;
	bool controlled[RF_COUNT];                     /* declared controlled_fields */
	char fingerprint[FP_HEX_XXH3];
};

struct roll_config {
	const char *path;
	const char *controller_id;
	long long interval;          /* decision_interval_seconds */
	long long hold;              /* minimum_action_hold_seconds (0 = none) */
	long long horizon;           /* scenario_horizon_seconds */
	long long history;           /* history_window_seconds (>= horizon) */
	int budget;                  /* candidate_budget, 3..5 */
	bool dual;                   /* scenario_set_id is dual-forecast-replay-v1 */
	const char *scenario_set_id;
	const char *action_space_path; /* resolved */
	const char *slo_path;          /* resolved */
	const char *inner_predictor_path; /* resolved "inner_predictor" (NULL: none named) */
	const char *safety_id;
	const char *queue_guard_id;    /* SLO constraint id of the prospective queue guard */
	struct json *doc;
	char fingerprint[FP_HEX_XXH3];
};

/* Load and validate a rolling controller config; "PATH: message" errors. */
int roll_config_load(struct roll_config *c, const char *path, struct arena *a, char *err, size_t errlen);
/* Load and validate an action space and each of its profiles; "PATH: message" errors. */
int roll_catalog_load(struct roll_catalog *cat, const char *path, struct arena *a, char *err, size_t errlen);
/* The action with this id, or NULL. */
const struct sim_policy *roll_catalog_find(const struct roll_catalog *cat, const char *id);
/* Index of the action with this id, or -1. */
int roll_catalog_index(const struct roll_catalog *cat, const char *id);
/* Number of controlled fields (those the catalog declares) in which a and b differ. */
int roll_control_distance(const struct roll_catalog *cat, const struct sim_policy *a, const struct sim_policy *b);
/* The control profile of p: every control field with its effective value (defaults filled). */
struct json *roll_control_profile(struct arena *a, const struct sim_policy *p);
/* Resolve ref as documented above (ref itself when nothing exists, so the open error names it). */
const char *roll_resolve_path(struct arena *a, const char *ref, const char *from_file);
/* Read a whole JSON file (zstd allowed) into a; "PATH: message" errors. */
int roll_json_load(const char *path, struct arena *a, struct json **out, char *err, size_t errlen);
/* true when p runs with predictive_admission_mode bypass (the gate off), false for enforce. */
bool roll_bypass(const struct sim_policy *p);
/* true when s is a usable identifier: non-empty, valid UTF-8, no control characters. */
bool roll_id_ok(const char *s);
#endif
