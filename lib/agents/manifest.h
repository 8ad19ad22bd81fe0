/*
 * manifest — the workspace documents the bridge reads by id and the manifests it reads back:
 * run configs (run-configs/ID.json, schednav.run-config/1), run sets (run-sets/ID.json,
 * schednav.run-set/1) and simulate_run_set manifests (schednav.bridge-simulations/1). Every
 * ref they hold is checked here, when the document is loaded, by the rule refs from an agent
 * follow (ag_ws_ref_ok); the caller then opens each through the workspace (ag_ws_open_file), which
 * refuses symlinks and special files. Each problem has its own message. Values live in the
 * caller's arena. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_AGENTS_MANIFEST_H
#define SCHEDNAV_AGENTS_MANIFEST_H
#include "core/arena.h"
#include "core/json.h"
#include <stddef.h>

#define MF_DOC_MAX 65536           /* a run config or run set file, in bytes */
#define MF_RUN_SET_MAX 12          /* run configs in a run set */
#define MF_ACTIONS_MAX 5           /* actions simulated per run config */
#define MF_SIMULATIONS_SCHEMA "schednav.bridge-simulations/1"
#define MF_RUN_CONFIG_SCHEMA "schednav.run-config/1"
#define MF_RUN_SET_SCHEMA "schednav.run-set/1"
#define MF_AGENT_PLAN_STREAM_SCHEMA "schednav.agent-plan/1"   /* plan-check's stream */
#define MF_AGENT_ROLE_SCHEMA "schednav.agent-role/1"        /* configs/agents/PROFILE.json */

struct run_config {
	const char *trace_ref;
	const char *history_trace_ref;   /* NULL when absent */
};

struct run_set_simulation {
	const char *run_config_id, *action_id, *metrics_ref;
};

/* Parse a small JSON document buf[0..len) that must be one object: a BOM, a NUL byte, invalid
 * JSON (a duplicate key, bad UTF-8, ...) and any other value each get their own message. */
int ag_mf_doc(struct arena *a, const char *buf, size_t len, struct json **out, char *err, size_t errlen);
/* A run config document: the exact keys, the schema, trace_ref and history_trace_ref refs. */
int ag_mf_run_config(struct arena *a, const char *buf, size_t len, struct run_config *rc, char *err, size_t errlen);
/* A run set document: 1..MF_RUN_SET_MAX unique run config ids; *ids the array. */
int ag_mf_run_set(struct arena *a, const char *buf, size_t len, struct json **ids, char *err, size_t errlen);
/* Read and verify a simulations manifest stream at path: every record a run_set_simulation with
 * an id run_config_id and action_id and a ref metrics_ref, each (run config, action) once, at
 * most MF_ACTIONS_MAX actions per run config and MF_RUN_SET_MAX run configs. *sims (arena) and *n. */
int ag_mf_simulations(struct arena *a, const char *path, struct run_set_simulation **sims, size_t *n, char *err, size_t errlen);
#endif
