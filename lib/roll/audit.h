/*
 * audit — the scenario audit of one candidate (docs/rolling-rules.md "Evaluation", Q5 fixed under our
 * rolling version): the full SLO audit of lib/eval/slo (every hard constraint the final
 * audit checks, the relative ones — allocation and HP p95 JCT — against the safety
 * candidate's metrics in the same scenario), except that a constraint on a class with no
 * job in the scenario (observed null and hp_/spot_ job count 0) passes with status
 * `not_applicable_zero_population`. Plus the prospective queue guard: the p95 (linear
 * interpolation) of the HP queue times already completed in the evaluation window together
 * with the scenario's HP queue times must be <= the guard constraint's threshold + EPS
 * (no values: passes).
 * Records live in the caller's arena. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_ROLL_AUDIT_H
#define SCHEDNAV_ROLL_AUDIT_H
#include "core/arena.h"
#include "core/json.h"
#include "eval/slo.h"
#include <stdbool.h>
#include <stddef.h>

/* The audit record of cand (flat metrics, stream fingerprint cand_fp) against the safety
 * candidate's metrics of the same scenario; *passed = its audit_passed. */
struct json *roll_scenario_audit(const struct slo_spec *s, struct arena *a, const struct json *cand, const char *cand_fp,
				 const struct json *safety, const char *safety_fp, bool *passed);

struct roll_guard {
	bool has_p95;
	double p95;                /* unrounded */
	double threshold;
	bool passed;
};

/* Threshold of the guard constraint id: it must exist, be hard, absolute and "<=". */
int roll_guard_threshold(const struct slo_spec *s, const char *id, double *threshold, char *err, size_t errlen);
/* The guard over completed[0..nc) (sorted) ∪ scenario[0..ns) (copied and sorted here). */
void roll_queue_guard(double threshold, const double *completed, size_t nc, const double *scenario, size_t ns, struct roll_guard *out);
#endif
