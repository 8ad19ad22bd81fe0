/*
 * slo — SLO specs (schednav.slo-spec/v1, docs/evaluation.md §5) and the audit of one metrics
 * record against one. ev_slo_load validates the whole file (kinds, metrics, operators,
 * severities, duplicate ids, the ranking block) and fingerprints it: XXH3-128 of the
 * file's canonical sorted JSON. The spec keeps pointers into its arena; ev_slo_release
 * frees only the constraint array. Nothing prints or exits.
 */
#ifndef SCHEDNAV_EVAL_SLO_H
#define SCHEDNAV_EVAL_SLO_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

#define SLO_SPEC_SCHEMA "schednav.slo-spec/v1"

struct slo_constraint {
	const char *id, *metric, *op;
	bool hard;
	bool relative;
	double threshold;             /* absolute: float(threshold) */
	const char *baseline_metric;  /* relative only */
	double multiplier, addend;    /* relative only: defaults 1.0, 0.0 */
};

struct slo_spec {
	const char *name;
	char fingerprint[FP_HEX_XXH3];
	struct slo_constraint *c;
	size_t n;
	bool baseline_required;       /* any relative threshold */
	bool has_ranking;
	const char *allocation_metric, *second_metric, *third_metric, *unresolved_tie;
	double tie_band;              /* > 0 when has_ranking */
};

/* Load and validate. Errors read "PATH: message". */
int ev_slo_load(struct slo_spec *s, const char *path, struct arena *a, char *err, size_t errlen);
void ev_slo_release(struct slo_spec *s);

/* Build the audit record of candidate metrics record cand (stream fingerprint cand_fp)
 * against baseline (NULL when none was given; its stream fingerprint base_fp). */
struct json *ev_slo_audit(const struct slo_spec *s, struct arena *a, const struct json *cand, const char *cand_fp,
                       const struct json *baseline, const char *base_fp);

/* Check an audit record's shape (key set and kinds), for the tools that read audits. */
int ev_slo_audit_check(const struct json *rec, char *err, size_t errlen);
#endif
