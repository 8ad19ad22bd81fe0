/*
 * predictor — the inner predictor as the rolling session sees it: its simulator hooks, its
 * latest decision as a roll_projection (Q2: the last decision at any time), its records
 * for the result stream, and the header facts. The config's schema picks the controller
 * family (pc_config_load: a row of the family table, predict.h). Every family runs in the
 * one controller engine (pc_controller_open, pc_sim_bind), their decisions wait in a
 * temporary file until the plain records are written (pc_records), and only the
 * projection reads each family's decision shape.
 * The adapter owns its controller and buffers (roll_predictor_release frees them); the
 * config lives in the arena given to roll_predictor_load. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_PREDICTOR_H
#define SCHEDNAV_ROLL_PREDICTOR_H
#include "core/arena.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "roll/observe.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

struct roll_predictor {
	const char *controller_id;
	const struct json *canonical;      /* the config, as the result header's "controller" */
	const char *fingerprint;           /* its SHA-256, the header's "controller_fingerprint" */
	const char *family;                /* its controller family's name (its row's name) */
	struct sim_hooks hooks;            /* the binding into a simulator session */
	/* internal */
	void *impl;
	struct roll_projection proj;
	struct roll_point *pts;
	size_t cap_pts;
};

/* Load the config at path (any supported controller family). 0 or -1 + message. */
int roll_predictor_load(struct roll_predictor *p, const char *path, struct arena *a, char *err, size_t errlen);
/* Refuse a policy the predictor cannot serve (a guarantee beyond its horizons). */
int roll_predictor_check(const struct roll_predictor *p, const struct sim_policy *pol, char *err, size_t errlen);
/* Start it on trace t (evidence window = the trace's) and fill p->hooks. 0 or -1 + message. */
int roll_predictor_start(struct roll_predictor *p, const struct trace *t, char *err, size_t errlen);
/* The latest decision, NULL before the first (valid until the next call). */
const struct roll_projection *roll_predictor_projection(struct roll_predictor *p);
/* Append its records (every decision, then the report) to w. */
int roll_predictor_write(const struct roll_predictor *p, struct nd_writer *w, char *err, size_t errlen);
/* The learned state after the latest update (decision records so far, the fit, eta and the
 * feedback window per pool) as a predictor_state record with its own fingerprint
 * (checkpoints; a resumed run must reproduce it). Started predictors only. */
struct json *roll_predictor_state_json(const struct roll_predictor *p, struct arena *a);
void roll_predictor_release(struct roll_predictor *p);
#endif
