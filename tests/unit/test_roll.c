/* Unit tests for lib/roll, written from docs/rolling-rules.md: every rule of the workload rule and of
 * selection (hierarchy, stress count, ties, minimum control change, v3 hold), the scenario
 * audit (Q5 fixed) and queue guard, the scenario construction, the observation signals,
 * the decision protocol and its deciders, and one full decision against a scripted engine. */
#include "core/die.h"
#include "core/fp.h"
#include "core/num.h"
#include "eval/evidence.h"
#include "eval/metrics.h"
#include "predict/predict.h"
#include "roll/ablation.h"
#include "roll/audit.h"
#include "roll/config.h"
#include "roll/decision.h"
#include "roll/decider.h"
#include "roll/observe.h"
#include "roll/protocol.h"
#include "roll/rule.h"
#include "roll/scenario.h"
#include "roll/select.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct arena A;

/* ---- catalog builders ---- */

static struct sim_policy mkpol(const char *id, const char *sched, long long delay, const char *victim, const char *mode)
{
	char buf[1024], err[300], vbuf[100] = "", mbuf[100] = "";
	if (victim)
		snprintf(vbuf, sizeof vbuf, ",\"preemption_victim_strategy\":\"%s\"", victim);
	if (mode)
		snprintf(mbuf, sizeof mbuf, ",\"predictive_admission_mode\":\"%s\"", mode);
	snprintf(buf, sizeof buf,
		 "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"%s\",\"scheduler\":\"%s\","
		 "\"spot_guarantee_seconds\":3600,\"checkpoint_interval_seconds\":3600,\"preemption_overhead_seconds\":80,"
		 "\"placement_strategy\":\"deterministic_best_fit\",\"hp_preemption_delay_seconds\":%lld%s%s%s}",
		 id, sched, delay, strcmp(sched, "fifo") ? ",\"spot_eviction_budget_rate\":0.09" : "", vbuf, mbuf);
	struct json *doc;
	struct sim_policy p;
	if (json_parse(&A, buf, strlen(buf), &doc, err, sizeof err) || policy_from_json(&p, doc, &A, err, sizeof err)) {
		fprintf(stderr, "bad test policy %s: %s\n", buf, err);
		exit(1);
	}
	return p;
}

/* The v3 catalogue, in the shipped action space's order. */
static void catalog_v3(struct roll_catalog *c)
{
	memset(c, 0, sizeof *c);
	c->actions[0] = mkpol("native-fifo", "fifo", 0, NULL, NULL);
	c->actions[1] = mkpol("rolling-fifo-open", "fifo", 0, NULL, "bypass");
	c->actions[2] = mkpol("native-preemptive-g3600-b09-d0000", "priority_preemptive", 0, NULL, NULL);
	c->actions[3] = mkpol("rolling-preemptive-open-d0000", "priority_preemptive", 0, NULL, "bypass");
	c->actions[4] = mkpol("rolling-preemptive-open-loss-aware", "priority_preemptive", 0, "lowest_checkpoint_loss", "bypass");
	c->n = 5;
	c->safety_id = "rolling-fifo-open";
	for (int f = 0; f < RF_COUNT; f++)
		c->controlled[f] = true;
}

/* The v1/v2 catalogue (d0900 instead of the guarded preemptive action). */
static void catalog_v2(struct roll_catalog *c)
{
	catalog_v3(c);
	c->actions[2] = mkpol("rolling-preemptive-open-d0900", "priority_preemptive", 900, NULL, "bypass");
}

static struct roll_rule_inputs calm(void)
{
	return (struct roll_rule_inputs){ ROLL_RISK_LOW, 0, 0.5, 0.3, 1.0 };
}

static void expect_ids(const struct roll_rule_result *r, const char *a0, const char *a1, const char *a2, const char *reason, int line)
{
	const char *want[3] = { a0, a1, a2 };
	CHECK(r->n == 3, "line %d: %zu candidates", line, r->n);
	for (int i = 0; i < 3 && i < (int)r->n; i++)
		CHECK(!strcmp(r->ids[i], want[i]), "line %d: candidate %d is %s, want %s", line, i, r->ids[i], want[i]);
	CHECK(!strcmp(r->reason_code, reason), "line %d: reason %s, want %s", line, r->reason_code, reason);
}

#define RULE(cat, in, a0, a1, a2, reason) do { \
	struct roll_rule_result rr_; char e_[200]; struct roll_rule_inputs in_ = (in); \
	CHECK(roll_rule_candidates((cat), "rolling-fifo-open", 3, &in_, &rr_, e_, sizeof e_) == 0, "rule: %s", e_); \
	expect_ids(&rr_, a0, a1, a2, reason, __LINE__); } while (0)

/* ---- workload rule ---- */

static void rule_roles(void)
{
	struct roll_catalog c;
	const char *roles[ROLE_COUNT];
	catalog_v3(&c);
	roll_rule_roles(&c, roles);
	CHECK(!strcmp(roles[ROLE_FIFO_G], "native-fifo"), "fifo_g = fifo + enforce: %s", roles[ROLE_FIFO_G]);
	CHECK(!strcmp(roles[ROLE_PRE_G], "native-preemptive-g3600-b09-d0000"), "pre_g: %s", roles[ROLE_PRE_G]);
	CHECK(!strcmp(roles[ROLE_PRE_O], "rolling-preemptive-open-d0000"), "pre_o = bypass + delay 0 + longest: %s", roles[ROLE_PRE_O]);
	CHECK(roles[ROLE_DELAY_O] == NULL, "v3 has no delayed open action");
	CHECK(!strcmp(roles[ROLE_LOSS_O], "rolling-preemptive-open-loss-aware"), "loss_o: %s", roles[ROLE_LOSS_O]);
	/* The safety action (fifo + bypass) fills no role: fifo_g needs enforce. */
	catalog_v2(&c);
	roll_rule_roles(&c, roles);
	CHECK(!strcmp(roles[ROLE_DELAY_O], "rolling-preemptive-open-d0900"), "delay_o = bypass + delay > 0: %s", roles[ROLE_DELAY_O]);
	CHECK(roles[ROLE_PRE_G] == NULL, "v2 has no guarded preemptive action");
	/* First match in catalog order wins. */
	c.actions[5] = mkpol("aaa-second-fifo", "fifo", 0, NULL, NULL);
	c.n = 6;
	roll_rule_roles(&c, roles);
	CHECK(!strcmp(roles[ROLE_FIFO_G], "native-fifo"), "first fifo_g in catalog order, not the lexically smallest");
	/* A delayed guarded action is not pre_g (delay must be 0). */
	catalog_v3(&c);
	c.actions[2] = mkpol("guarded-d900", "priority_preemptive", 900, NULL, NULL);
	roll_rule_roles(&c, roles);
	CHECK(roles[ROLE_PRE_G] == NULL, "pre_g needs delay 0");
	CHECK(roles[ROLE_DELAY_O] == NULL, "delay_o needs bypass");
}

static void rule_branches(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_rule_inputs in = calm();
	/* else branch: [base, fifo_g, pre_o] */
	RULE(&c, in, "rolling-fifo-open", "native-fifo", "rolling-preemptive-open-d0000", "balanced-or-low-pressure-history");
	/* each trigger of the first branch alone: [base, pre_o, loss_o] */
	in = calm(); in.risk = ROLL_RISK_HIGH;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-loss-aware", "high-hp-or-forecast-risk");
	in = calm(); in.queued_hp = 1;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-loss-aware", "high-hp-or-forecast-risk");
	in = calm(); in.hp_peak_pressure = 0.85;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-loss-aware", "high-hp-or-forecast-risk");
	in = calm(); in.recent_to_prior = 1.25;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-loss-aware", "high-hp-or-forecast-risk");
	/* just below every threshold, and moderate risk, stay balanced */
	in = calm(); in.risk = ROLL_RISK_MODERATE; in.hp_peak_pressure = 0.849999999; in.recent_to_prior = 1.249999999; in.spot_share = 0.549999999;
	RULE(&c, in, "rolling-fifo-open", "native-fifo", "rolling-preemptive-open-d0000", "balanced-or-low-pressure-history");
	/* spot-heavy: [base, pre_o, delay_o or fifo_g]; v3 has no delay_o → fifo_g */
	in = calm(); in.spot_share = 0.55;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "native-fifo", "spot-heavy-history");
	/* the first branch outranks spot-heavy */
	in = calm(); in.spot_share = 0.9; in.queued_hp = 3;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-loss-aware", "high-hp-or-forecast-risk");
	/* v2: spot-heavy takes delay_o */
	catalog_v2(&c);
	in = calm(); in.spot_share = 0.6;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "rolling-preemptive-open-d0900", "spot-heavy-history");
	/* no loss_o → pre_g */
	catalog_v3(&c);
	c.actions[4] = mkpol("zz-other", "priority_preemptive", 1800, NULL, NULL);
	in = calm(); in.risk = ROLL_RISK_HIGH;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0000", "native-preemptive-g3600-b09-d0000", "high-hp-or-forecast-risk");
}

static void rule_dedupe_padding(void)
{
	struct roll_catalog c;
	char e[200];
	struct roll_rule_result r;
	struct roll_rule_inputs in = calm();
	/* No pre_o: balanced [base, fifo_g, (none)] pads with the role order: fifo_g (dup), pre_g. */
	catalog_v3(&c);
	c.actions[3] = mkpol("rolling-preemptive-open-d0600", "priority_preemptive", 600, NULL, "bypass");
	RULE(&c, in, "rolling-fifo-open", "native-fifo", "native-preemptive-g3600-b09-d0000", "balanced-or-low-pressure-history");
	/* Spot-heavy without pre_o: [base, none, delay_o] → delay_o then padding fifo_g. */
	in.spot_share = 0.7;
	RULE(&c, in, "rolling-fifo-open", "rolling-preemptive-open-d0600", "native-fifo", "spot-heavy-history");
	/* Only the base and unroled actions: padding from the sorted catalog. */
	memset(&c, 0, sizeof c);
	c.actions[0] = mkpol("rolling-fifo-open", "fifo", 0, NULL, "bypass");
	c.actions[1] = mkpol("zeta", "priority_preemptive", 600, NULL, NULL);
	c.actions[2] = mkpol("alpha", "priority_preemptive", 900, NULL, NULL);
	c.actions[3] = mkpol("mid", "priority_preemptive", 300, NULL, NULL);
	c.n = 4;
	for (int f = 0; f < RF_COUNT; f++)
		c.controlled[f] = true;
	in = calm();
	RULE(&c, in, "rolling-fifo-open", "alpha", "mid", "balanced-or-low-pressure-history");
	/* A base that is an ordinary role is not taken twice. */
	catalog_v3(&c);
	CHECK(roll_rule_candidates(&c, "native-fifo", 3, &in, &r, e, sizeof e) == 0, "%s", e);
	CHECK(r.n == 3 && !strcmp(r.ids[0], "native-fifo") && !strcmp(r.ids[1], "rolling-preemptive-open-d0000") &&
	      !strcmp(r.ids[2], "native-preemptive-g3600-b09-d0000"), "dedupe then pad: %s %s %s", r.ids[0], r.ids[1], r.ids[2]);
	/* Budget must be 3; a catalog too small to fill it is an error. */
	CHECK(roll_rule_candidates(&c, "rolling-fifo-open", 4, &in, &r, e, sizeof e) == -1, "budget 4 accepted");
	c.n = 2;
	CHECK(roll_rule_candidates(&c, "rolling-fifo-open", 3, &in, &r, e, sizeof e) == -1, "two actions cannot give three candidates");
	catalog_v3(&c);
	CHECK(roll_rule_candidates(&c, "not-in-catalog", 3, &in, &r, e, sizeof e) == -1, "a base outside the catalog");
}

/* ---- selection ---- */

static struct roll_candidate mkcand(const struct roll_catalog *c, const char *id, bool pass, double alloc, double spot_jct, double evict, int stress)
{
	struct roll_candidate x;
	memset(&x, 0, sizeof x);
	x.policy = roll_catalog_find(c, id);
	if (!x.policy) {
		fprintf(stderr, "no action %s\n", id);
		exit(1);
	}
	x.hard_pass = pass;
	x.alloc = (struct roll_num){ true, alloc };
	x.spot_jct_p95 = (struct roll_num){ true, spot_jct };
	x.eviction = (struct roll_num){ true, evict };
	x.stress_pass = stress;
	x.stress_count = 1;
	return x;
}

static struct roll_selection SEL;
static struct roll_select_in SIN;

static const char *pick(const struct roll_catalog *c, struct roll_candidate *cd, size_t n, const char *active, bool has_since, double since, double now)
{
	char e[200];
	SIN = (struct roll_select_in){ c, cd, n, 0.01, "rolling-fifo-open", active, now, has_since, since, 14400 };
	if (roll_select(&SIN, &SEL, e, sizeof e)) {
		fprintf(stderr, "select: %s\n", e);
		return "(error)";
	}
	return SEL.selected_id;
}

static bool stage_is(size_t i, enum roll_stage_kind k, size_t n_remaining)
{
	return i < SEL.n_stages && SEL.stages[i].kind == k && SEL.stages[i].n == n_remaining;
}

#define SAFE "rolling-fifo-open"
#define FG "native-fifo"
#define PG "native-preemptive-g3600-b09-d0000"
#define PO "rolling-preemptive-open-d0000"
#define LO "rolling-preemptive-open-loss-aware"

static void select_hierarchy(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_candidate cd[3];
	/* hard filter drops failures and candidates without allocation */
	cd[0] = mkcand(&c, SAFE, false, 0.9, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.8, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.95, 100, 0, 0);
	cd[2].alloc.ok = false;
	CHECK(!strcmp(pick(&c, cd, 3, SAFE, false, 0, 0), PO), "single survivor selected: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "selected"), "status %s", SEL.status);
	CHECK(stage_is(0, STAGE_HARD, 1) && stage_is(1, STAGE_ALLOCATION, 1) && SEL.n_stages == 2, "stages hard, allocation only");
	/* none left → safety action with no_eligible_policy_safe_fifo */
	cd[1].hard_pass = false;
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 0, 100000), SAFE), "no eligible → safety: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "no_eligible_policy_safe_fifo") && SEL.n_stages == 1, "status %s, %zu stages", SEL.status, SEL.n_stages);
	/* allocation band: strict and on doubles (0.81 − 0.80 is out, 0.805 in) */
	cd[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.81, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.805, 200, 0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, SAFE, false, 0, 0), PO), "band: %s", SEL.selected_id);
	CHECK(stage_is(1, STAGE_ALLOCATION, 2) && SEL.stages[1].best == 0.81, "0.80 is outside the band of 0.81");
	CHECK(stage_is(2, STAGE_SPOT_JCT, 1), "Spot JCT stage decides");
	/* Spot p95 JCT exact minimum, then eviction exact minimum */
	cd[0] = mkcand(&c, SAFE, true, 0.80, 100, 0.05, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0.04, 0);
	cd[2] = mkcand(&c, LO, true, 0.80, 100.0000001, 0.0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, SAFE, false, 0, 0), PO), "eviction decides: %s", SEL.selected_id);
	CHECK(stage_is(2, STAGE_SPOT_JCT, 2) && stage_is(3, STAGE_EVICTION, 1), "JCT keeps 2 exactly, eviction keeps 1");
	/* a null Spot JCT on a survivor drops it when others have a value */
	cd[2].spot_jct_p95.ok = false;
	cd[2].eviction.v = 0;
	pick(&c, cd, 3, SAFE, false, 0, 0);
	CHECK(stage_is(2, STAGE_SPOT_JCT, 2), "null JCT dropped at the JCT stage");
	/* stress count: maximum wins, after the SLO hierarchy */
	cd[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 1);
	cd[2] = mkcand(&c, LO, true, 0.80, 100, 0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, SAFE, false, 0, 0), PO), "stress count decides: %s", SEL.selected_id);
	CHECK(stage_is(4, STAGE_STRESS, 1) && SEL.stages[4].best == 1, "stress stage keeps the maximum");
	/* the stress stage is recorded even when every count is 0 */
	cd[1].stress_pass = 0;
	pick(&c, cd, 3, SAFE, false, 0, 0);
	CHECK(stage_is(4, STAGE_STRESS, 3) && SEL.stages[4].best == 0, "stress stage recorded with all counts 0");
	/* stress does not override the allocation band */
	cd[0] = mkcand(&c, SAFE, true, 0.90, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 1);
	cd[2] = mkcand(&c, LO, true, 0.70, 100, 0, 1);
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 0, 1e6), SAFE), "allocation before stress: %s", SEL.selected_id);
	CHECK(SEL.n_stages == 2, "no stress stage after a single survivor");
}

static void select_ties(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_candidate cd[3];
	/* a tie keeps the active action when it is on the frontier */
	cd[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.80, 100, 0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, LO, true, 0, 1e6), LO), "keep active on the frontier: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "tie_with_declared_safety_fallback"), "status %s", SEL.status);
	/* active off the frontier: the unique nearest by changed control fields */
	cd[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	cd[2] = mkcand(&c, LO, false, 0.80, 100, 0, 0);
	/* LO (active) differs from PO in the victim strategy only (1), from SAFE in scheduler, budget, victim (3) */
	CHECK(!strcmp(pick(&c, cd, 3, LO, true, 0, 1e6), PO), "minimum control change: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "tie_resolved_by_minimum_control_change"), "status %s", SEL.status);
	CHECK(SEL.stages[SEL.n_stages - 1].kind == STAGE_CONTROL && SEL.stages[SEL.n_stages - 1].distance == 1,
	      "minimize_control_changes stage with distance 1");
	CHECK(roll_control_distance(&c, roll_catalog_find(&c, LO), roll_catalog_find(&c, SAFE)) == 3, "LO vs SAFE: 3 fields");
	/* only declared controlled fields count */
	c.controlled[RF_VICTIM] = false;
	CHECK(roll_control_distance(&c, roll_catalog_find(&c, LO), roll_catalog_find(&c, PO)) == 0, "undeclared field ignored");
	catalog_v3(&c);
	/* two equally near → the safety action if it is on the frontier */
	struct roll_candidate t[3];
	t[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	t[1] = mkcand(&c, FG, true, 0.80, 100, 0, 0);
	t[2] = mkcand(&c, PG, false, 0.80, 100, 0, 0);
	/* active PG: FG differs in scheduler+budget? FG: fifo, budget null, mode enforce; PG: priority, budget 0.09 → 2;
	 * SAFE: fifo, budget null, bypass → 3. Unique nearest = FG. */
	CHECK(!strcmp(pick(&c, t, 3, PG, true, 0, 1e6), FG), "nearest FG: %s", SEL.selected_id);
	/* make them equally near: compare against an active not among candidates → no nearest; safety on frontier */
	CHECK(!strcmp(pick(&c, t, 3, LO, true, 0, 1e6), SAFE), "active not a candidate → safety on the frontier: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "tie_with_declared_safety_fallback"), "status %s", SEL.status);
	/* equal distance, safety on the frontier */
	struct roll_candidate u[3];
	u[0] = mkcand(&c, SAFE, true, 0.80, 100, 0, 0);
	u[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	u[2] = mkcand(&c, LO, false, 0.80, 100, 0, 0);
	c.controlled[RF_VICTIM] = false;   /* LO vs PO 0, vs SAFE 4: still unique */
	CHECK(!strcmp(pick(&c, u, 3, LO, true, 0, 1e6), PO), "nearest without the victim field: %s", SEL.selected_id);
	catalog_v3(&c);
	/* equal distance and the safety action off the frontier → lexically smallest */
	struct roll_candidate w[3];
	w[0] = mkcand(&c, SAFE, false, 0.80, 100, 0, 0);
	w[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	w[2] = mkcand(&c, PG, true, 0.80, 100, 0, 0);
	/* active FG: PO differs (scheduler, budget, mode) = 3, PG (scheduler, budget) = 2 → PG unique */
	CHECK(!strcmp(pick(&c, w, 3, FG, true, 0, 1e6), PG), "unique nearest PG: %s", SEL.selected_id);
	/* active SAFE (fifo+bypass): PO (scheduler, budget) = 2, PG (scheduler, budget, mode) = 3 → PO */
	CHECK(!strcmp(pick(&c, w, 3, SAFE, true, 0, 1e6), PO), "unique nearest PO: %s", SEL.selected_id);
	/* no active among the candidates and no safety on the frontier → lexical */
	CHECK(!strcmp(pick(&c, w, 3, LO, true, 0, 1e6), PG), "lexical fallback: %s", SEL.selected_id);
	CHECK(strcmp(PG, PO) < 0, "PG sorts first");
	/* ties between two equally near non-safety actions → lexical when safety is off the frontier */
	struct roll_candidate z[3];
	z[0] = mkcand(&c, SAFE, false, 0.80, 100, 0, 0);
	z[1] = mkcand(&c, LO, true, 0.80, 100, 0, 0);
	z[2] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	/* active PG: LO differs (mode, victim) = 2, PO (mode) = 1 → PO */
	CHECK(!strcmp(pick(&c, z, 3, PG, true, 0, 1e6), PO), "nearest PO: %s", SEL.selected_id);
	c.controlled[RF_MODE] = false;   /* LO 1, PO 0 */
	CHECK(!strcmp(pick(&c, z, 3, PG, true, 0, 1e6), PO), "nearest PO without mode: %s", SEL.selected_id);
	c.controlled[RF_VICTIM] = false;  /* both 0: not unique, safety off frontier → lexical */
	CHECK(!strcmp(pick(&c, z, 3, PG, true, 0, 1e6), PO), "lexical among equally near: %s", SEL.selected_id);
	CHECK(!strcmp(SEL.status, "tie_with_declared_safety_fallback"), "status after lexical %s", SEL.status);
}

static void select_hold(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_candidate cd[3];
	cd[0] = mkcand(&c, SAFE, true, 0.90, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.70, 100, 0, 0);
	/* winner safety, active PO since 7200 s ago (< 14400), PO passed → keep PO */
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 7200, 14400), PO), "hold keeps PO: %s", SEL.selected_id);
	CHECK(SEL.hold_applied && !strcmp(SEL.ranked_id, SAFE) && SEL.active_for == 7200, "hold recorded");
	/* exactly the hold elapsed → no hold (now − since < hold − EPS is false) */
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 0, 14400), SAFE), "hold ends at 14400: %s", SEL.selected_id);
	CHECK(!SEL.hold_applied, "no hold at the boundary");
	/* the active candidate failed → no hold */
	cd[1].hard_pass = false;
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 7200, 14400), SAFE), "failed active is not held: %s", SEL.selected_id);
	cd[1].hard_pass = true;
	/* active not among the candidates → no hold */
	struct roll_candidate d2[3] = { cd[0], cd[2], mkcand(&c, FG, true, 0.5, 1, 0, 0) };
	CHECK(!strcmp(pick(&c, d2, 3, PO, true, 7200, 14400), SAFE), "absent active is not held");
	/* the hold never blocks a move between non-safety actions */
	cd[0] = mkcand(&c, SAFE, true, 0.70, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.90, 100, 0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, PO, true, 7200, 14400), LO), "moves PO → LO despite the hold: %s", SEL.selected_id);
	CHECK(!SEL.hold_applied, "no hold between non-safety actions");
	/* the active action is the safety action: nothing to hold */
	cd[0] = mkcand(&c, SAFE, true, 0.90, 100, 0, 0);
	cd[2] = mkcand(&c, LO, true, 0.70, 100, 0, 0);
	CHECK(!strcmp(pick(&c, cd, 3, SAFE, true, 7200, 14400), SAFE), "safety stays");
	CHECK(!SEL.hold_applied, "no hold when already safe");
	/* no since yet (before the first decision) → no hold */
	CHECK(!strcmp(pick(&c, cd, 3, PO, false, 0, 100), SAFE), "no hold without a since");
	/* hold 0 (v1/v2) never holds */
	char e[200];
	struct roll_select_in si = { &c, cd, 3, 0.01, SAFE, PO, 100, true, 0, 0 };
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	CHECK(roll_select(&si, &SEL, e, sizeof e) == 0 && !SEL.hold_applied && !strcmp(SEL.selected_id, SAFE), "hold 0 never holds");
	/* the safety action must be a candidate */
	struct roll_candidate d3[2] = { cd[1], cd[2] };
	si.cand = d3;
	si.n = 2;
	CHECK(roll_select(&si, &SEL, e, sizeof e) == -1, "safety missing accepted");
	/* JSON of the ranking and the hold */
	si = (struct roll_select_in){ &c, cd, 3, 0.01, SAFE, PO, 7200, true, 0, 14400 };
	cd[0] = mkcand(&c, SAFE, true, 0.90, 100, 0, 0);
	cd[1] = mkcand(&c, PO, true, 0.80, 100, 0, 0);
	roll_select(&si, &SEL, e, sizeof e);
	struct json *h = roll_hold_json(&A, &si, &SEL), *r = roll_selection_json(&A, &si, &SEL);
	CHECK(h->kind == JSON_OBJECT && !strcmp(json_get_str(h, "retained_action_id"), PO) && !strcmp(json_get_str(h, "original_selected_action_id"), SAFE),
	      "hold json");
	CHECK(!strcmp(json_get_str(r, "selected_action_id"), SAFE) && ev_self_fp_ok(r, "ranking_fingerprint"), "ranking json names the hierarchy's pick");
}

static void aggregate_rules(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_candidate x;
	memset(&x, 0, sizeof x);
	x.policy = &c.actions[0];
	x.sc[0] = (struct roll_scenario_result){ false, true, true, { true, 0.8 }, { true, 10 }, { true, 5 }, { true, 7 }, { true, 0.01 }, { true, 1 } };
	x.sc[1] = (struct roll_scenario_result){ true, false, true, { true, 0.1 }, { true, 99 }, { true, 99 }, { true, 99 }, { true, 0.9 }, { true, 1 } };
	x.n_sc = 2;
	roll_candidate_aggregate(&x);
	CHECK(x.hard_pass, "a failing stress scenario does not fail the candidate");
	CHECK(x.stress_pass == 0 && x.stress_count == 1, "stress counted: %d/%d", x.stress_pass, x.stress_count);
	CHECK(x.alloc.v == 0.8 && x.spot_jct_p95.v == 7 && x.eviction.v == 0.01, "robust values from decision scenarios only");
	/* two decision scenarios: allocation min, JCT/eviction max; the guard counts */
	x.sc[1] = (struct roll_scenario_result){ false, true, true, { true, 0.7 }, { true, 20 }, { true, 4 }, { true, 3 }, { true, 0.05 }, { true, 1 } };
	x.sc[2] = (struct roll_scenario_result){ true, true, true, { true, 0 }, { false, 0 }, { false, 0 }, { false, 0 }, { false, 0 }, { false, 0 } };
	x.n_sc = 3;
	roll_candidate_aggregate(&x);
	CHECK(x.alloc.v == 0.7 && x.hp_jct_p95.v == 20 && x.hp_queue_p95.v == 5 && x.spot_jct_p95.v == 7 && x.eviction.v == 0.05,
	      "min allocation, max latency and eviction");
	CHECK(x.stress_pass == 1 && x.hard_pass, "stress pass counted");
	x.sc[1].guard_passed = false;
	roll_candidate_aggregate(&x);
	CHECK(!x.hard_pass, "a failed queue guard in a decision scenario fails the candidate");
	x.sc[1].guard_passed = true;
	x.sc[0].alloc.ok = false;
	x.sc[1].alloc.ok = false;
	roll_candidate_aggregate(&x);
	CHECK(!x.alloc.ok, "no allocation anywhere → null");
}

/* ---- scenario audit ---- */

static struct slo_spec SLO;

static struct json *mkmetrics(const char *action, const char *sched, long long hp, long long spot, double alloc, double hp_jct,
			      double hp_queue, double evict)
{
	struct json *m = json_object(&A);
	json_set(&A, m, "type", json_str(&A, "metrics"));
	json_set(&A, m, "action_id", json_str(&A, action));
	json_set(&A, m, "scheduler", json_str(&A, sched));
	json_set(&A, m, "policy_fingerprint", json_str(&A, "00000000000000000000000000000000"));
	json_set(&A, m, "trace_id", json_str(&A, "t-scenario-0"));
	json_set(&A, m, "source", json_object(&A));
	json_set(&A, m, "evaluation_start", json_real(&A, 0));
	json_set(&A, m, "evaluation_end", json_real(&A, 14400));
	json_set(&A, m, "hp_job_count", json_int(&A, hp));
	json_set(&A, m, "spot_job_count", json_int(&A, spot));
	json_set(&A, m, "allocation_rate_mean", json_real(&A, alloc));
	json_set(&A, m, "hp_completion_rate", hp ? json_real(&A, 1.0) : json_null(&A));
	json_set(&A, m, "hp_preempted_job_count", json_int(&A, 0));
	json_set(&A, m, "hp_jct_p95_seconds", hp ? json_real(&A, hp_jct) : json_null(&A));
	json_set(&A, m, "hp_queue_p95_seconds", hp ? json_real(&A, hp_queue) : json_null(&A));
	json_set(&A, m, "spot_completion_rate", spot ? json_real(&A, 1.0) : json_null(&A));
	json_set(&A, m, "spot_eviction_rate_per_run", spot ? json_real(&A, evict) : json_null(&A));
	json_set(&A, m, "spot_guarantee_success_rate", spot ? json_real(&A, 1.0) : json_null(&A));
	json_set(&A, m, "spot_jct_p95_seconds", spot ? json_real(&A, 500) : json_null(&A));
	json_set(&A, m, "preemption_ledger_consistent", json_bool(&A, true));
	json_set(&A, m, "spot_run_ledger_consistent", json_bool(&A, true));
	json_set(&A, m, "spot_guarantee_ledger_consistent", json_bool(&A, true));
	return m;
}

static const char *status_of(const struct json *audit, const char *id)
{
	struct json *cons = json_get(audit, "constraints");
	for (size_t i = 0; i < cons->u.arr.n; i++)
		if (!strcmp(json_get_str(cons->u.arr.items[i], "id"), id))
			return json_get_str(cons->u.arr.items[i], "status");
	return "(missing)";
}

static void scenario_audit(void)
{
	bool ok;
	struct json *safe = mkmetrics(SAFE, "fifo", 5, 5, 0.80, 1000, 100, 0), *aud;
	/* Q5: allocation against the safety candidate in the same scenario */
	aud = roll_scenario_audit(&SLO, &A, mkmetrics(PO, "priority_preemptive", 5, 5, 0.79, 1000, 100, 0), "c", safe, "s", &ok);
	CHECK(!ok && !strcmp(status_of(aud, "allocation-fifo-nondegradation"), "failed"), "allocation below the safety candidate fails");
	/* Q5: HP p95 JCT against 1.01 × the safety candidate */
	aud = roll_scenario_audit(&SLO, &A, mkmetrics(PO, "priority_preemptive", 5, 5, 0.85, 1010.0000001, 100, 0), "c", safe, "s", &ok);
	CHECK(!ok && !strcmp(status_of(aud, "hp-p95-jct-fifo-regression"), "failed"), "HP p95 JCT above 1.01 × safety fails");
	aud = roll_scenario_audit(&SLO, &A, mkmetrics(PO, "priority_preemptive", 5, 5, 0.85, 1010, 100, 0), "c", safe, "s", &ok);
	CHECK(ok, "1010 ≤ 1.01 × 1000 passes");
	CHECK(ev_self_fp_ok(aud, "audit_fingerprint"), "re-stamped audit fingerprint verifies");
	CHECK(json_get(aud, "scenario_scope") != NULL, "scenario scope recorded");
	/* the safety candidate audited against itself passes */
	aud = roll_scenario_audit(&SLO, &A, safe, "s", safe, "s", &ok);
	CHECK(ok, "safety vs itself passes");
	/* zero HP population: HP constraints pass as not applicable */
	struct json *safe0 = mkmetrics(SAFE, "fifo", 0, 3, 0.5, 0, 0, 0);
	aud = roll_scenario_audit(&SLO, &A, mkmetrics(PO, "priority_preemptive", 0, 3, 0.5, 0, 0, 0), "c", safe0, "s", &ok);
	CHECK(ok && !strcmp(status_of(aud, "hp-p95-jct-fifo-regression"), "not_applicable_zero_population") &&
	      !strcmp(status_of(aud, "hp-completion-rate"), "not_applicable_zero_population"), "zero HP population is vacuous");
	CHECK(json_get(aud, "unavailable_constraint_ids")->u.arr.n == 0, "nothing left unavailable");
	/* a null with a non-zero population stays unavailable and fails */
	struct json *m = mkmetrics(PO, "priority_preemptive", 5, 5, 0.85, 1000, 100, 0);
	json_set(&A, m, "spot_eviction_rate_per_run", json_null(&A));
	aud = roll_scenario_audit(&SLO, &A, m, "c", safe, "s", &ok);
	CHECK(!ok && !strcmp(status_of(aud, "spot-eviction-rate-per-run"), "unavailable"), "unavailable with population fails");
	/* every other hard constraint is checked ahead of time too */
	aud = roll_scenario_audit(&SLO, &A, mkmetrics(PO, "priority_preemptive", 5, 5, 0.85, 1000, 3601, 0.2), "c", safe, "s", &ok);
	CHECK(!ok && !strcmp(status_of(aud, "hp-p95-queue-seconds"), "failed") && !strcmp(status_of(aud, "spot-eviction-rate-per-run"), "failed"),
	      "queue and eviction checked");
	/* queue guard */
	double thr;
	char e[200];
	CHECK(roll_guard_threshold(&SLO, "hp-p95-queue-seconds", &thr, e, sizeof e) == 0 && thr == 3600, "guard threshold");
	CHECK(roll_guard_threshold(&SLO, "allocation-fifo-nondegradation", &thr, e, sizeof e) == -1, "relative guard refused");
	CHECK(roll_guard_threshold(&SLO, "no-such", &thr, e, sizeof e) == -1, "missing guard refused");
	struct roll_guard g;
	double done[19], scn[1] = { 100 };
	for (int i = 0; i < 19; i++)
		done[i] = i + 1;
	roll_queue_guard(3600, done, 19, scn, 1, &g);
	CHECK(g.has_p95 && fabs(g.p95 - 23.05) < 1e-9 && g.passed, "p95{1..19,100} = 23.05: %.17g", g.p95);
	double big[2] = { 3600, 3600.0000000005 };
	roll_queue_guard(3600, big, 2, NULL, 0, &g);
	CHECK(g.passed, "≤ threshold + EPS passes");
	double over[3] = { 0, 0, 4000 };
	roll_queue_guard(3600, NULL, 0, over, 3, &g);
	CHECK(g.passed && g.p95 == 3599.9999999999995, "p95 of {0,0,4000} = 0 + 4000·0.9 = %.17g passes", g.p95);
	double over3[3] = { 0, 4000, 4000 };
	roll_queue_guard(3600, NULL, 0, over3, 3, &g);
	CHECK(!g.passed && g.p95 == 4000, "p95 of {0,4000,4000} = %.17g fails", g.p95);
	roll_queue_guard(3600, NULL, 0, NULL, 0, &g);
	CHECK(g.passed && !g.has_p95, "no values passes");
	double over2[2] = { 0, 4000 };
	roll_queue_guard(3600, over2, 2, NULL, 0, &g);
	CHECK(!g.passed && g.p95 == 3800, "completed values alone can fail the guard: %.17g", g.p95);
	/* the guard picks its two ranks from the sorted history and the sorted scenario: the
	 * same bits as ev_metrics_quantile over the sorted union, at every split and with ties */
	unsigned long long x = 12345;
	for (int round = 0; round < 400; round++) {
		size_t nc = (size_t)(round % 23), ns = (size_t)((round / 23) % 17);
		double c[32], sv[32], u[64];
		for (size_t i = 0; i < nc + ns; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			double v = (double)((x >> 33) % (round % 3 ? 50 : 5000)) / 4;
			if (i < nc)
				c[i] = v;
			else
				sv[i - nc] = v;
			u[i] = v;
		}
		for (size_t i = 1; i < nc; i++)   /* the history comes sorted */
			for (size_t k = i; k > 0 && c[k] < c[k - 1]; k--) {
				double t = c[k];
				c[k] = c[k - 1];
				c[k - 1] = t;
			}
		roll_queue_guard(3600, c, nc, sv, ns, &g);
		if (nc + ns == 0)
			continue;
		double want = ev_metrics_quantile(u, nc + ns, 0.95);
		CHECK(g.has_p95 && memcmp(&g.p95, &want, sizeof want) == 0, "round %d (%zu + %zu): %.17g, metrics_quantile %.17g", round, nc, ns,
		      g.p95, want);
	}
	/* scenarios large enough for the radix sort of the scenario's values: zeros, ties, wide
	 * and fractional values, and a negative zero or a negative value (those take qsort) */
	for (int round = 0; round < 60; round++) {
		size_t nc = (size_t)(round % 7) * 10, ns = 60 + (size_t)round * 37;
		double *c = malloc((nc + 1) * sizeof *c), *sv = malloc(ns * sizeof *sv), *u = malloc((nc + ns) * sizeof *u);
		for (size_t i = 0; i < nc + ns; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned r = (unsigned)(x >> 33);
			double v = round % 3 == 0 ? (double)(r % 4) : round % 3 == 1 ? (double)(r % 1000000) / 3.0 : (double)(r % 100) * 1e6;
			if (round % 10 == 4 && i == nc + 3)
				v = -0.0;
			if (round % 10 == 7 && i == nc + 5)
				v = -2.5;
			if (i < nc)
				c[i] = v;
			else
				sv[i - nc] = v;
			u[i] = v;
		}
		if (nc)
			ev_metrics_quantile(c, nc, 0.5);   /* sorts it: the history comes sorted */
		roll_queue_guard(3600, c, nc, sv, ns, &g);
		double want = ev_metrics_quantile(u, nc + ns, 0.95);
		CHECK(g.has_p95 && memcmp(&g.p95, &want, sizeof want) == 0, "large round %d (%zu + %zu): %.17g, metrics_quantile %.17g", round, nc,
		      ns, g.p95, want);
		free(c);
		free(sv);
		free(u);
	}
}

/* ---- observation signals and risk ---- */

static struct trace H;

static void hjob(struct trace *t, const char *id, double submit, double dur, double gpus, bool hp, const char *model)
{
	struct trace_job *j = trace_add_job(t);
	j->id = trace_strdup(t, id);
	j->submit = submit;
	j->duration = dur;
	j->gpus = gpus;
	j->hp = hp;
	j->model = trace_strdup(t, model);
	j->tenant = trace_strdup(t, "org");
}

static void signals(void)
{
	trace_init(&H);
	struct trace_node *n = trace_add_node(&H);
	n->id = trace_strdup(&H, "n1");
	n->model = trace_strdup(&H, "A");
	n->gpu_count = 100;
	hjob(&H, "old", 0, 100000, 50, true, "A");           /* before the window: never counted */
	hjob(&H, "edge", 3600, 10000, 7, true, "A");         /* submit == cut − W: excluded (strict) */
	hjob(&H, "h1", 4000, 5000, 10, true, "A");           /* prior half */
	hjob(&H, "h2", 10000, 100, 30, true, "A");           /* recent half, ends before 14400 */
	hjob(&H, "s1", 9000, 100, 40, false, "A");
	hjob(&H, "late", 18000 + 1e-10, 10, 99, true, "A");  /* within cut + EPS: counted */
	hjob(&H, "future", 18000.001, 10, 99, true, "A");    /* after the cutoff: never */
	trace_sort(&H);
	struct roll_signals s;
	roll_signals_compute(&H, 100, 18000, 14400, &s);
	CHECK(s.observed == 4 && s.hp_jobs == 3 && s.spot_jobs == 1, "window (cut − W, cut + EPS]: %lld %lld %lld", s.observed, s.hp_jobs, s.spot_jobs);
	CHECK(s.hp_requested == 139 && s.spot_requested == 40, "requested %g %g", s.hp_requested, s.spot_requested);
	CHECK(s.spot_share == num_round(40.0 / 179.0, 9), "share %.17g", s.spot_share);
	/* prior half ends at 3600 + 7200 = 10800: h1, h2 prior (10000 ≤ 10800); late recent → 99/40 */
	CHECK(s.recent_to_prior == num_round(99.0 / 40.0, 9), "ratio %.17g", s.recent_to_prior);
	/* hourly points 3600..18000: h1 active at 7200 (4000 ≤ 7200 < 9000): 10; at 18000 late not yet (18000+1e-10 > 18000) */
	CHECK(s.hp_peak_active == 10 && s.hp_peak_pressure == 0.1, "peak %g %g", s.hp_peak_active, s.hp_peak_pressure);
	CHECK(s.has_max_submit && s.max_submit == 18000 + 1e-10, "max submit");
	double pts[5] = { 0, 10, 0, 0, 0 };
	(void)pts;
	CHECK(s.hp_volatility == num_round(4.0, 6), "pstdev {0,10,0,0,0} = 4: %.17g", s.hp_volatility);
	/* ratio rules: prior 0 < recent → 2.0; both 0 → 1.0 */
	roll_signals_compute(&H, 100, 18000, 3600, &s);
	CHECK(s.recent_to_prior == 2.0, "prior 0 < recent gives 2.0: %g", s.recent_to_prior);
	roll_signals_compute(&H, 100, 60000, 3600, &s);
	CHECK(s.observed == 0 && s.recent_to_prior == 1.0 && s.spot_share == 0.0 && !s.has_max_submit, "empty window");
	CHECK(roll_safe_ratio(3, 2) == 1.5 && roll_safe_ratio(1, 0) == 2.0 && roll_safe_ratio(0, 0) == 1.0 && roll_safe_ratio(1e-10, 0) == 1.0,
	      "safe ratio");
	/* risk thresholds */
	struct roll_risk_inputs r = { 0, 0.59, 0.74, 0.89, 1.19, 0.5 };
	CHECK(roll_risk_level(&r) == ROLL_RISK_LOW && roll_regime_of(&r) == ROLL_REGIME_BALANCED, "low/balanced");
	r.running_hp_pressure = 0.6;
	CHECK(roll_risk_level(&r) == ROLL_RISK_MODERATE, "0.6 running is moderate");
	r = (struct roll_risk_inputs){ 0, 0, 0.75, 0, 1, 0 };
	CHECK(roll_risk_level(&r) == ROLL_RISK_MODERATE, "0.75 q is moderate");
	r = (struct roll_risk_inputs){ 0, 0, 0, 0.9, 1, 0 };
	CHECK(roll_risk_level(&r) == ROLL_RISK_MODERATE, "0.9 raw is moderate");
	r = (struct roll_risk_inputs){ 0, 0, 0, 0, 1.2, 0 };
	CHECK(roll_risk_level(&r) == ROLL_RISK_MODERATE, "growth 1.2 is moderate");
	struct roll_risk_inputs hi[5] = { { 1, 0, 0, 0, 1, 0 }, { 0, 0.8, 0, 0, 1, 0 }, { 0, 0, 0.9, 0, 1, 0 }, { 0, 0, 0, 1.0, 1, 0 }, { 0, 0, 0, 0, 1.5, 0 } };
	for (int i = 0; i < 5; i++)
		CHECK(roll_risk_level(&hi[i]) == ROLL_RISK_HIGH, "high trigger %d", i);
	CHECK(roll_regime_of(&hi[0]) == ROLL_REGIME_HP && roll_regime_of(&hi[1]) == ROLL_REGIME_HP, "hp-constrained first");
	CHECK(roll_regime_of(&hi[2]) == ROLL_REGIME_FORECAST && roll_regime_of(&hi[3]) == ROLL_REGIME_FORECAST, "forecast-constrained next");
	r = (struct roll_risk_inputs){ 0, 0, 0, 0, 1, 0.55 };
	CHECK(roll_regime_of(&r) == ROLL_REGIME_SPOT_HEAVY, "spot-heavy at 0.55");
	r.peak_q_pressure = 0.95;
	CHECK(roll_regime_of(&r) == ROLL_REGIME_FORECAST, "forecast before spot-heavy");
}

/* ---- scenario construction ---- */

static void estimates(void)
{
	const char *m;
	long long n;
	double d[] = { 100, 200, 300, 400 };
	/* survivors of elapsed 150: 200, 300, 400 → median of 50, 150, 250 = 150 */
	CHECK(roll_estimate_remaining(d, 4, 150, 14400, &m, &n) == 150 && !strcmp(m, "conditional-survival-median") && n == 3, "odd survivors");
	/* survivors of elapsed 0: all four → (150 − 0 + 250)/2… (200+300)/2 = 250 */
	CHECK(roll_estimate_remaining(d, 4, 0, 14400, &m, &n) == 250 && n == 4, "even survivors");
	/* elapsed 400: no survivor (d > elapsed strict) → max(3600, median 250) */
	CHECK(roll_estimate_remaining(d, 4, 400, 14400, &m, &n) == 3600 && !strcmp(m, "right-censored-class-median-fallback") && n == 4,
	      "censored fallback");
	double big[] = { 20000, 30000 };
	CHECK(roll_estimate_remaining(big, 2, 50000, 14400, &m, &n) == 14400, "clamped to H");
	CHECK(roll_estimate_remaining(NULL, 0, 0, 14400, &m, &n) == 3600 && !strcmp(m, "sparse-history-one-hour-fallback") && n == 0, "sparse");
	double tiny[] = { 10 };
	CHECK(roll_estimate_remaining(tiny, 1, 0, 14400, &m, &n) == 60, "clamped to 60");
	CHECK(roll_estimate_remaining(NULL, 0, 0, 1800, &m, &n) == 1800, "sparse clamped to H too");
}

static void decompose(void)
{
	struct roll_piece out[ROLL_MAX_PIECES];
	struct roll_piece t[3] = { { 4, "a", "j1" }, { 2, "b", "j2" }, { 200, "c", "j3" } };
	/* rotated by point index 1: 2, (200 unusable above C=100), 4, 2 … */
	size_t n = roll_decompose(9, t, 3, 100, 1, "fam-tenant", out);
	CHECK(n == 4 && out[0].gpus == 2 && out[1].gpus == 4 && out[2].gpus == 2 && out[3].gpus == 1 && !strcmp(out[0].tenant, "b"),
	      "rotation and cycling: n=%zu %g %g %g %g", n, out[0].gpus, out[1].gpus, out[2].gpus, out[3].gpus);
	/* requested clipped to capacity */
	n = roll_decompose(500, t, 2, 10, 0, "fam-tenant", out);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += out[i].gpus;
	CHECK(sum == 10, "clipped to C: %g", sum);
	/* no usable template → one piece of min(req, max(1, C/64)), of the tenant the family gives */
	n = roll_decompose(50, NULL, 0, 6400, 0, "fam-tenant", out);
	CHECK(n == 1 && out[0].gpus == 50 && !strcmp(out[0].tenant, "fam-tenant"), "fallback: %zu %g", n, out[0].gpus);
	n = roll_decompose(300, NULL, 0, 6400, 0, "fam-tenant", out);
	CHECK(n == 3 && out[0].gpus == 100 && out[2].gpus == 100, "fallback piece C/64 = 100: %zu", n);
	n = roll_decompose(5, NULL, 0, 32, 0, "fam-tenant", out);
	CHECK(n == 5 && out[0].gpus == 1, "fallback piece at least 1: %zu", n);
	/* minimum piece req/256 bounds the count at 256 and the sum stays exact */
	struct roll_piece small[1] = { { 0.001, "s", NULL } };
	n = roll_decompose(1000, small, 1, 1000, 0, "fam-tenant", out);
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += out[i].gpus;
	CHECK(n == 256 && out[0].gpus == 1000.0 / 256, "at most 256 pieces of req/256: %zu %g", n, out[0].gpus);
	CHECK(fabs(sum - 1000) < 1e-9, "sum exact: %.17g", sum);
	CHECK(roll_decompose(1e-10, t, 3, 100, 0, "fam-tenant", out) == 0 && roll_decompose(-5, t, 3, 100, 0, "fam-tenant", out) == 0, "nothing to decompose");
	/* a template without a tenant gives the family's */
	struct roll_piece nt[1] = { { 3, NULL, "x" } };
	n = roll_decompose(3, nt, 1, 10, 0, "fam-tenant", out);
	CHECK(n == 1 && !strcmp(out[0].tenant, "fam-tenant"), "null tenant");
}

static struct trace X;

static void scenario_build(void)
{
	/* Execution trace: nodes A (8 GPUs), B (4). History trace: the window's jobs. */
	trace_init(&X);
	struct trace_node *n = trace_add_node(&X);
	n->id = trace_strdup(&X, "n1"), n->model = trace_strdup(&X, "A"), n->gpu_count = 8;
	n = trace_add_node(&X);
	n->id = trace_strdup(&X, "n2"), n->model = trace_strdup(&X, "B"), n->gpu_count = 4;
	hjob(&X, "old-hp", 0, 1000, 1, true, "A");          /* completed long ago: a duration sample */
	hjob(&X, "run-hp", 90000, 20000, 2, true, "A");     /* running at the cutoff */
	hjob(&X, "fut", 100001, 10, 1, true, "A");          /* future */
	trace_sort(&X);
	struct trace Y;
	trace_init(&Y);
	n = trace_add_node(&Y);
	n->id = trace_strdup(&Y, "n1"), n->model = trace_strdup(&Y, "A"), n->gpu_count = 8;
	n = trace_add_node(&Y);
	n->id = trace_strdup(&Y, "n2"), n->model = trace_strdup(&Y, "B"), n->gpu_count = 4;
	hjob(&Y, "hist-hp", 90000, 3000, 3, true, "A");     /* completed in (cut − H, cut]: replay + template */
	hjob(&Y, "hist-spot", 95000, 1000, 1, false, "B");
	hjob(&Y, "hist-long", 99000, 5000, 1, false, "B");  /* not completed by the cutoff: no replay */
	hjob(&Y, "hist-old", 85000, 100, 1, false, "A");    /* before cut − H: duration sample only */
	trace_sort(&Y);
	double cut = 100000;
	struct roll_carry carry[2] = {
		{ "q-spot", false, false, 1, "B", "t1", 500, 0, false, 0, 0 },
		{ "run-hp", true, true, 2, "A", "t2", 0, 10000, false, 0, 2 },
	};
	struct roll_state st;
	memset(&st, 0, sizeof st);
	st.cutoff = cut;
	st.carry = carry;
	st.n_carry = 2;
	struct roll_point pts[3] = {
		{ cut + 3600, 1, "A", 4, 1, 6.5, false, false, 0, 0, NULL },   /* 6.5 − surviving 2 = 4.5 */
		{ cut + 18000, 5, "A", 4, 1, 6, false, false, 0, 0, NULL },    /* beyond H: skipped */
		{ cut + 7200, 2, "C", 4, 1, 6, false, false, 0, 0, NULL },     /* unknown pool: skipped */
	};
	struct roll_scenario s;
	struct roll_scenario_in in = { &X, &Y, cut, 14400, &st, pts, 3, "pfp", "calibrated-p90", false, false, NULL, NULL,
		pc_families[pc_n_families - 1]->scenario_pool, pc_families[pc_n_families - 1]->scenario_tenant };
	roll_scenario_build(&A, &in, &s);
	CHECK(s.n_est == 2, "two carryover estimates");
	/* q-spot (Spot, B): samples (Spot,B) = hist-spot 1000 → survivor median 1000, clamp ≥ 60 */
	CHECK(s.est[0].estimate == 1000 && !strcmp(s.est[0].method, "conditional-survival-median"), "q-spot estimate %g %s", s.est[0].estimate, s.est[0].method);
	/* run-hp (HP, A, elapsed 10000): samples old-hp 1000, hist-hp 3000 → none > 10000 → max(3600, 2000) */
	CHECK(s.est[1].estimate == 3600 && !strcmp(s.est[1].method, "right-censored-class-median-fallback"), "run-hp estimate %g", s.est[1].estimate);
	size_t hist = 0, fc = 0, carryn = 0;
	double fc_sum = 0;
	for (size_t i = 0; i < s.n_jobs; i++) {
		const struct roll_scn_job *j = &s.jobs[i];
		hist += j->kind == SCN_HISTORY;
		carryn += j->kind == SCN_CARRYOVER;
		if (j->kind == SCN_FORECAST) {
			fc++;
			fc_sum += j->gpus;
			CHECK(j->submit == cut && j->duration == 3600 && j->hp && !strcmp(j->model, "A"), "piece at max(cut, target − 3600)");
		}
		if (j->kind == SCN_HISTORY)
			CHECK(j->submit == 95000 + 14400 && !j->hp, "only the Spot job replays (+H), HP skipped with points: %s", j->id);
		CHECK(j->submit >= cut, "no scenario job before the cutoff: %s", j->id);
		if (i)
			CHECK(s.jobs[i - 1].submit < j->submit || (s.jobs[i - 1].submit == j->submit && strcmp(s.jobs[i - 1].id, j->id) < 0),
			      "sorted by (submit, id)");
	}
	CHECK(hist == 1 && carryn == 0, "history %zu, carryover %zu (the carryover stays in the live state: s.est)", hist, carryn);
	/* surviving carryover: run-hp estimate 3600 > 3600 − EPS? target − cut = 3600; 3600 > 3600 + EPS false → not subtracted */
	CHECK(fabs(fc_sum - 6.5) < 1e-12, "increment = q − surviving (none survive past the target): %.17g", fc_sum);
	CHECK(s.decomposition->kind == JSON_ARRAY && s.decomposition->u.arr.n == 1, "one decomposed point");
	/* templates: hist-hp (3) then run-hp (2), rotated by point index 0 → 3, 2, 1.5 */
	CHECK(fc == 3, "pieces %zu", fc);
	/* a later target: the running carryover survives (3600 > 7200 − … no) — use a point at cut + 1800 */
	pts[0].target = cut + 1800;
	roll_scenario_build(&A, &in, &s);
	fc_sum = 0;
	for (size_t i = 0; i < s.n_jobs; i++)
		if (s.jobs[i].kind == SCN_FORECAST)
			fc_sum += s.jobs[i].gpus;
	CHECK(fabs(fc_sum - 4.5) < 1e-12, "surviving HP carryover subtracted: %.17g", fc_sum);
	/* stress scenario: no points → HP history replays too, no pieces */
	in.points = NULL;
	in.n_points = 0;
	in.stress = true;
	in.profile_id = "recent-history-replay";
	roll_scenario_build(&A, &in, &s);
	hist = fc = 0;
	for (size_t i = 0; i < s.n_jobs; i++) {
		hist += s.jobs[i].kind == SCN_HISTORY;
		fc += s.jobs[i].kind == SCN_FORECAST;
	}
	CHECK(hist == 2 && fc == 0 && s.decomposition->kind == JSON_NULL, "stress: HP replayed, no pieces (%zu, %zu)", hist, fc);
	struct json *rec = roll_scenario_json(&A, &s, "tr", "snap", NULL, 3);
	CHECK(!strcmp(json_get_str(rec, "selection_role"), "stress") && ev_self_fp_ok(rec, "scenario_fingerprint") && s.fp[0], "scenario record");
	CHECK(json_get(rec, "injected_job_count")->u.i == 2, "carryover is not injected (live state holds it)");
	/* a decision's two scenarios share one carryover part: the same fields as each built alone */
	{
		struct roll_carry_est shared = { 0 };
		struct roll_scenario s1, s2;
		struct roll_scenario_in i2 = in;
		i2.carry_est = &shared;
		roll_scenario_build(&A, &i2, &s1);
		i2.stress = false;
		i2.profile_id = "calibrated-p90";
		i2.points = pts;
		i2.n_points = 3;
		roll_scenario_build(&A, &i2, &s2);
		struct json *r1 = roll_scenario_json(&A, &s1, "tr", "snap", NULL, 3), *r2 = roll_scenario_json(&A, &s2, "tr", "snap", NULL, 3);
		static const char *const same[] = { "carryover_runtime_estimate_count", "carryover_runtime_estimates_fingerprint",
			"carryover_runtime_estimate_summary", "initial_queue_wait_job_count", "initial_queue_wait_fingerprint" };
		for (size_t k = 0; k < sizeof same / sizeof *same; k++)
			CHECK(json_equal(json_get(r1, same[k]), json_get(rec, same[k])) && json_equal(json_get(r2, same[k]), json_get(rec, same[k])),
			      "shared carryover part: %s as built alone", same[k]);
		CHECK(s1.est == s2.est && s1.est == shared.est && shared.built && shared.summarized, "one estimate array per cutoff");
		CHECK(json_equal(rec, r1), "the shared stress scenario's record is the one built alone");
	}
	/* the queued job's wait: counted and fingerprinted, not listed per job (issue 23) */
	{
		char want[FP_HEX_XXH3], line[128];
		struct roll_estimate *qe = NULL;
		for (size_t i = 0; i < s.n_est; i++)
			if (!strcmp(s.est[i].scenario_id, "carryover::000000::q-spot"))
				qe = &s.est[i];
		struct strbuf wl;
		sb_init(&wl);
		if (qe) {
			snprintf(line, sizeof line, "%s\t", qe->scenario_id);
			sb_adds(&wl, line);
			sb_add_double(&wl, qe->carry->queue_wait);
			sb_addc(&wl, '\n');
		}
		fp_xxh3_of(wl.buf, wl.len, want);
		sb_release(&wl);
		CHECK(qe && qe->carry->queue_wait > 0 && json_get(rec, "initial_queue_wait_job_count")->u.i == 1 &&
			      !strcmp(json_get_str(rec, "initial_queue_wait_fingerprint"), want) && !json_get(rec, "initial_queue_wait_seconds_by_job_id"),
		      "queued wait kept as a count and a fingerprint");
	}
	/* oracle: the execution trace's real jobs of (cut, cut + H] */
	in.actual_future = true;
	in.profile_id = "actual-future";
	roll_scenario_build(&A, &in, &s);
	size_t fut = 0;
	for (size_t i = 0; i < s.n_jobs; i++)
		fut += s.jobs[i].kind == SCN_FUTURE;
	CHECK(fut == 1, "oracle sees the future job");
	/* an aggregate "*" point uses the whole cluster and every running HP carryover */
	struct roll_point star[1] = { { cut + 1800, 1, NULL, 0, 0, 20, false, false, 0, 0, NULL } };
	in = (struct roll_scenario_in){ &X, &Y, cut, 14400, &st, star, 1, NULL, "calibrated-p90", false, false, NULL, NULL,
		pc_families[pc_n_families - 1]->scenario_pool, pc_families[pc_n_families - 1]->scenario_tenant };
	roll_scenario_build(&A, &in, &s);
	fc_sum = 0;
	for (size_t i = 0; i < s.n_jobs; i++)
		if (s.jobs[i].kind == SCN_FORECAST) {
			fc_sum += s.jobs[i].gpus;
			CHECK(!strcmp(s.jobs[i].model, "*"), "aggregate pieces ask for any model");
		}
	CHECK(fabs(fc_sum - 10) < 1e-12, "min(C=12, 20) − 2 surviving = 10: %.17g", fc_sum);
	trace_release(&Y);
}

/* ---- protocol ---- */

static void protocol(void)
{
	const char *cands[3] = { SAFE, PO, LO };
	struct roll_reply r;
#define REPLY(s) roll_reply_parse(&A, s, strlen(s), "rid", cands, 3, &r)
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-preemptive-open-d0000\",\"reason_code\":\"ok\"}");
	CHECK(r.accepted && !strcmp(r.action_id, PO) && !strcmp(r.reason_code, "ok"), "a valid reply is accepted");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"native-fifo\",\"reason_code\":\"x\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_ACTION), "an action outside the candidates");
	REPLY("this is not json");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_JSON), "garbage");
	REPLY("[1,2]");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_TYPE), "not an object");
	REPLY("{\"type\":\"decisions\",\"request_id\":\"rid\",\"action_id\":\"x\",\"reason_code\":\"x\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_TYPE), "wrong type");
	REPLY("{\"type\":\"decision\",\"request_id\":\"other\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"x\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_REQUEST), "another request's id");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"x\",\"job_id\":\"j1\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_KEY), "an unknown key (no job ids from agents)");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_KEY), "missing reason_code");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"a\\nb\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_REASON), "a two-line reason code");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"\"}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_REASON), "an empty reason code");
	char big[400], line[600];
	memset(big, 'x', 257);
	big[257] = '\0';
	snprintf(line, sizeof line, "{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"%s\"}", big);
	REPLY(line);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_REASON), "257 characters");
	/* 256 multi-byte characters are fine */
	char u[256 * 2 + 1];
	for (int i = 0; i < 256; i++)
		u[2 * i] = (char)0xC3, u[2 * i + 1] = (char)0xA9;
	u[512] = '\0';
	snprintf(big, 1, "%s", "");
	char line2[800];
	snprintf(line2, sizeof line2, "{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"%s\"}", u);
	REPLY(line2);
	CHECK(r.accepted, "256 characters of 2 bytes each");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"x\",\"llm_call_count\":-1}");
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_USAGE), "negative usage");
	REPLY("{\"type\":\"decision\",\"request_id\":\"rid\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"x\",\"llm_call_count\":2,\"prompt_tokens\":100}");
	CHECK(r.accepted && r.llm_calls == 2 && r.prompt_tokens == 100, "usage counted");
	const char bad[] = "{\"type\":\"decision\",\"reason_code\":\"\xff\"}";
	roll_reply_parse(&A, bad, strlen(bad), "rid", cands, 3, &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_UTF8) && roll_utf8_valid(r.raw_excerpt, strlen(r.raw_excerpt)),
	      "invalid UTF-8 rejected, excerpt made valid");
	CHECK(r.has_raw && r.raw_bytes == strlen(bad), "raw facts kept");
	CHECK(!roll_utf8_valid("\xc0\xaf", 2) && !roll_utf8_valid("\xed\xa0\x80", 3) && !roll_utf8_valid("\xf4\x90\x80\x80", 4) &&
	      roll_utf8_valid("\xe2\x82\xac", 3), "overlong, surrogate, > U+10FFFF refused; € accepted");
	/* request stamping: request_id = fingerprint, excluded from it */
	struct json *req = json_object(&A);
	json_set(&A, req, "type", json_str(&A, "decision_request"));
	json_set(&A, req, "protocol", json_str(&A, ROLL_PROTOCOL));
	json_set(&A, req, "x", json_int(&A, 1));
	roll_request_stamp(&A, req);
	CHECK(!strcmp(req->u.obj.keys[2], "request_id") && !strcmp(json_get_str(req, "request_id"), json_get_str(req, "request_fingerprint")),
	      "request_id after protocol, equal to the fingerprint");
	const char *sniff = roll_reply_request_id(&A, "{\"request_id\":\"abc\"}", 20);
	CHECK(sniff && !strcmp(sniff, "abc") && !roll_reply_request_id(&A, "nope", 4), "request id sniff");
}

/* ---- deciders ---- */

static char TMPDIR_[64];

static const char *script(const char *name, const char *body)
{
	static char path[4][128];
	static int k;
	char *p = path[k++ % 4];
	snprintf(p, 128, "%s/%s", TMPDIR_, name);
	FILE *f = fopen(p, "w");
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(p, 0755);
	return p;
}

static void ask(struct roll_decider *d, const char *rid, struct roll_reply *r)
{
	const char *cands[3] = { SAFE, PO, LO };
	char line[200];
	snprintf(line, sizeof line, "{\"type\":\"decision_request\",\"request_id\":\"%s\"}", rid);
	roll_decide(d, &A, line, strlen(line), rid, cands, 3, SAFE, "declared-hierarchy:selected", r);
}

/* A toy decider registered only in this test: "toy:N" answers the N-th candidate (1-based).
 * It is the whole of what a new decider needs: its functions and one ops row (plus its
 * line in roll's usage and roll(1) when it ships). */
static int toy_parse(struct roll_decider *d, const char *arg, char *err, size_t errlen)
{
	if (!(arg[0] >= '1' && arg[0] <= '9' && !arg[1])) {
		snprintf(err, errlen, "toy: N must be one digit 1-9, not '%s'", arg);
		return -1;
	}
	d->fixed_id = arg;
	return 0;
}

static int toy_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		      const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		      struct roll_reply *out)
{
	(void)line, (void)len, (void)recommended_id, (void)recommended_reason;
	size_t k = (size_t)(d->fixed_id[0] - '1');
	roll_decider_answer(a, request_id, cands, n, k < n ? cands[k] : "no-such-candidate", "toy-pick", out);
	return ROLL_DECIDE_DONE;
}

static const struct roll_decider_ops toy_ops = { "toy", "toy:", "N", false, true, false, false, toy_parse, NULL, toy_decide, NULL };

static void toy_decider(void)
{
	struct roll_decider d;
	struct roll_reply r;
	char e[300];
	CHECK(roll_decider_parse(&d, "toy:2", 1, e, sizeof e) == -1 && strstr(e, "expected fixed:ACTION, rule, oracle, exec:CMD or plan:FILE)"),
	      "before registration toy: is unknown: %s", e);
	roll_decider_close(&d);
	CHECK(roll_decider_register(&toy_ops) == 0, "the toy registers");
	CHECK(roll_decider_register(&toy_ops) == -1, "a prefix registers once");
	CHECK(roll_decider_parse(&d, "toy:x", 1, e, sizeof e) == -1 && !strcmp(e, "toy: N must be one digit 1-9, not 'x'"), "toy parse error: %s", e);
	roll_decider_close(&d);
	CHECK(roll_decider_parse(&d, "bogus", 1, e, sizeof e) == -1 && strstr(e, "exec:CMD, plan:FILE or toy:N)"), "the unknown-decider message lists the toy: %s", e);
	roll_decider_close(&d);
	CHECK(roll_decider_parse(&d, "toy:2", 1, e, sizeof e) == 0 && roll_decider_start(&d, e, sizeof e) == 0, "toy parses: %s", e);
	CHECK(!strcmp(roll_decider_kind_name(&d), "toy") && roll_decider_deployable(&d) && !roll_decider_reads_request(&d) && !roll_decider_full_request(&d), "toy's flags");
	CHECK(roll_decider_plan_unasked(&d, NULL, 0) == NULL, "no plan, nothing unasked");
	ask(&d, "r1", &r);
	CHECK(r.accepted && !strcmp(r.action_id, PO) && !strcmp(r.reason_code, "toy-pick"), "toy answers its candidate");
	roll_decider_close(&d);
	CHECK(roll_decider_parse(&d, "toy:9", 1, e, sizeof e) == 0, "toy:9 parses");
	ask(&d, "r1", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_ACTION), "a toy answer outside the candidates is rejected like any reply");
	roll_decider_close(&d);
}

static void deciders(void)
{
	struct roll_decider d;
	struct roll_reply r;
	char e[300], spec[300];
	snprintf(TMPDIR_, sizeof TMPDIR_, "/tmp/schednav-roll-unit-XXXXXX");
	if (!mkdtemp(TMPDIR_)) {
		perror("mkdtemp");
		exit(1);
	}
	CHECK(roll_decider_parse(&d, "bogus", 1, e, sizeof e) == -1, "unknown decider refused");
	CHECK(roll_decider_parse(&d, "exec:", 1, e, sizeof e) == -1, "exec without a program refused");
	roll_decider_close(&d);
	CHECK(roll_decider_parse(&d, "exec:/bin/true", 0, e, sizeof e) == -1, "timeout 0 refused");
	roll_decider_close(&d);
	/* built-ins go through the same validation */
	roll_decider_parse(&d, "rule", 1, e, sizeof e);
	ask(&d, "r1", &r);
	CHECK(r.accepted && !strcmp(r.action_id, SAFE) && !strcmp(r.reason_code, "declared-hierarchy:selected"), "rule answers the recommendation");
	roll_decider_close(&d);
	roll_decider_parse(&d, "fixed:" LO, 1, e, sizeof e);
	ask(&d, "r1", &r);
	CHECK(r.accepted && !strcmp(r.action_id, LO), "fixed answers its action");
	roll_decider_close(&d);
	roll_decider_parse(&d, "fixed:native-fifo", 1, e, sizeof e);
	ask(&d, "r1", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_ACTION), "fixed outside the candidates is rejected");
	roll_decider_close(&d);
	roll_decider_parse(&d, "oracle", 1, e, sizeof e);
	CHECK(!roll_decider_deployable(&d), "the oracle is not deployable");
	roll_decider_close(&d);
	/* exec: a good decider answering twice */
	snprintf(spec, sizeof spec, "exec:%s", script("good.sh",
		"while read -r line; do id=$(printf '%s' \"$line\" | sed 's/.*\"request_id\":\"\\([^\"]*\\)\".*/\\1/');"
		" printf '{\"type\":\"decision\",\"request_id\":\"%s\",\"action_id\":\"rolling-preemptive-open-d0000\",\"reason_code\":\"scripted\"}\\n' \"$id\"; done"));
	CHECK(roll_decider_parse(&d, spec, 5, e, sizeof e) == 0 && roll_decider_start(&d, e, sizeof e) == 0, "start: %s", e);
	ask(&d, "req-a", &r);
	CHECK(r.accepted && !strcmp(r.action_id, PO), "exec reply accepted: %s", r.reject_reason ? r.reject_reason : "");
	ask(&d, "req-b", &r);
	CHECK(r.accepted, "second exchange on the same coprocess");
	roll_decider_close(&d);
	/* garbage */
	snprintf(spec, sizeof spec, "exec:%s", script("garbage.sh", "while read -r line; do echo 'I think FIFO is best'; done"));
	roll_decider_parse(&d, spec, 5, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	ask(&d, "g1", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_JSON) && r.has_raw, "garbage rejected with the raw reply kept");
	roll_decider_close(&d);
	/* timeout, then its late reply to the old request is discarded, the next one counts */
	snprintf(spec, sizeof spec, "exec:%s", script("slow.sh",
		"n=0; while read -r line; do n=$((n+1)); id=$(printf '%s' \"$line\" | sed 's/.*\"request_id\":\"\\([^\"]*\\)\".*/\\1/');"
		" if [ $n = 1 ]; then sleep 0.6; fi;"
		" printf '{\"type\":\"decision\",\"request_id\":\"%s\",\"action_id\":\"rolling-fifo-open\",\"reason_code\":\"late\"}\\n' \"$id\"; done"));
	roll_decider_parse(&d, spec, 0.2, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	ask(&d, "t1", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_TIMEOUT), "timeout rejected");
	/* the next exchange gets a timeout no loaded machine reaches (the decider's sh and sed
	 * may take longer than 0.2 s to start answering): its late reply to t1 comes first */
	d.timeout = 60;
	ask(&d, "t2", &r);
	CHECK(r.accepted && !strcmp(r.action_id, SAFE), "the late reply was discarded, the fresh one accepted: %s", r.reject_reason ? r.reject_reason : "");
	roll_decider_close(&d);
	/* a decider that never answers and ignores stdin being closed: close still returns */
	snprintf(spec, sizeof spec, "exec:%s", script("hang.sh", "trap '' TERM; exec sleep 30"));
	roll_decider_parse(&d, spec, 0.1, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	ask(&d, "h1", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_TIMEOUT), "hung decider times out");
	roll_decider_close(&d);
	CHECK(1, "close returned for a hung decider");
	/* early exit: the first request is answered, then it exits; later requests are rejected */
	snprintf(spec, sizeof spec, "exec:%s", script("once.sh",
		"read -r line; id=$(printf '%s' \"$line\" | sed 's/.*\"request_id\":\"\\([^\"]*\\)\".*/\\1/');"
		" printf '{\"type\":\"decision\",\"request_id\":\"%s\",\"action_id\":\"rolling-preemptive-open-loss-aware\",\"reason_code\":\"once\"}\\n' \"$id\"; exit 3"));
	roll_decider_parse(&d, spec, 2, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	ask(&d, "e1", &r);
	CHECK(r.accepted && !strcmp(r.action_id, LO), "first answer accepted");
	ask(&d, "e2", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_EXITED) && strstr(r.detail, "status 3"), "exit recorded: %s", r.detail ? r.detail : "");
	ask(&d, "e3", &r);
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_EXITED), "never restarted");
	roll_decider_close(&d);
	/* a decider that exits without reading, with a large request (no SIGPIPE death, no hang) */
	snprintf(spec, sizeof spec, "exec:%s", script("quit.sh", "exit 0"));
	roll_decider_parse(&d, spec, 2, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	{
		const char *cands[1] = { SAFE };
		size_t n = 1 << 20;
		char *line = xmalloc(n + 1);
		memset(line, ' ', n);
		line[n] = '\0';
		roll_decide(&d, &A, line, n, "big", cands, 1, SAFE, "x", &r);
		free(line);
	}
	CHECK(!r.accepted && !strcmp(r.reject_reason, ROLL_REJECT_EXITED), "exit before reading a 1 MiB request: %s", r.reject_reason);
	roll_decider_close(&d);
	/* a program that does not exist fails at start */
	roll_decider_parse(&d, "exec:/nonexistent/decider", 1, e, sizeof e);
	CHECK(roll_decider_start(&d, e, sizeof e) == -1 && strstr(e, "cannot run"), "missing program: %s", e);
	roll_decider_close(&d);
	/* plan: recorded replies by request id, pending at the first unknown one */
	char plan[160];
	snprintf(plan, sizeof plan, "%s/plan.ndjson", TMPDIR_);
	FILE *f = fopen(plan, "w");
	fprintf(f, "{\"type\":\"decision\",\"request_id\":\"p1\",\"action_id\":\"rolling-preemptive-open-d0000\",\"reason_code\":\"agent\"}\n");
	fclose(f);
	snprintf(spec, sizeof spec, "plan:%s", plan);
	roll_decider_parse(&d, spec, 1, e, sizeof e);
	CHECK(roll_decider_start(&d, e, sizeof e) == 0, "plan loads: %s", e);
	const char *cands[3] = { SAFE, PO, LO };
	CHECK(roll_decide(&d, &A, "{}", 2, "p1", cands, 3, SAFE, "x", &r) == ROLL_DECIDE_DONE && r.accepted && !strcmp(r.action_id, PO), "plan reply");
	CHECK(roll_decide(&d, &A, "{}", 2, "p2", cands, 3, SAFE, "x", &r) == ROLL_DECIDE_PENDING, "unknown request is pending");
	roll_decider_close(&d);
	f = fopen(plan, "a");
	fprintf(f, "{\"type\":\"decision\",\"request_id\":\"p1\",\"action_id\":\"x\",\"reason_code\":\"dup\"}\n");
	fclose(f);
	roll_decider_parse(&d, spec, 1, e, sizeof e);
	CHECK(roll_decider_start(&d, e, sizeof e) == -1 && strstr(e, "second reply"), "duplicate plan entry refused: %s", e);
	roll_decider_close(&d);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", TMPDIR_);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", TMPDIR_);
}

/* ---- one full decision against a scripted engine ---- */

struct fake {
	int evaluated, emitted;
	char types[64][32];           /* copied: a record lives only during its emit */
	double alloc_for_po;          /* scenario allocation of PO in decision scenarios */
	struct roll_projection proj;
	struct roll_point pts[2];
	bool with_proj;
};

static int f_state(void *ctx, struct arena *a, struct roll_state *st, char *err, size_t errlen)
{
	(void)ctx, (void)err, (void)errlen;
	memset(st, 0, sizeof *st);
	st->cutoff = 0;
	st->capacity = 12;
	st->free_total = 6;
	st->trace_id = "unit";
	st->visible_prefix_fp = "v";
	st->handoff_fp = "h";
	st->active_id = "x";
	st->active_fp = "y";
	static double done[1] = { 10 };
	st->hp_completed_queue = done;
	st->n_hp_completed = 1;
	(void)a;
	return 0;
}

static const struct roll_projection *f_proj(void *ctx, struct arena *a)
{
	struct fake *f = ctx;
	(void)a;
	return f->with_proj ? &f->proj : NULL;
}

static int f_eval(void *ctx, struct arena *a, const struct sim_policy *p, const struct roll_scenario *s, const struct roll_projection *frozen,
		  struct roll_eval *out, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)err, (void)errlen;
	f->evaluated++;
	bool po = !strcmp(p->action_id, PO);
	double alloc = po && !s->stress ? f->alloc_for_po : 0.80;
	out->metrics = mkmetrics(p->action_id, p->scheduler == SCHED_FIFO ? "fifo" : "priority_preemptive", 2, 2, alloc, 100, 10, 0);
	snprintf(out->metrics_fp, 33, "m%d", f->evaluated);
	snprintf(out->result_fp, 33, "r%d", f->evaluated);
	static double q[2] = { 5, 20 };
	out->hp_queue = q;
	out->n_hp_queue = 2;
	/* an enforcing candidate gets the frozen quota only when the projection has one */
	CHECK((frozen != NULL) == (f->with_proj && !roll_bypass(p)), "frozen quota for %s", p->action_id);
	(void)a;
	return 0;
}

static int f_emit(void *ctx, const struct json *rec, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)err, (void)errlen;
	if (f->emitted < 64)
		snprintf(f->types[f->emitted], sizeof f->types[f->emitted], "%s", json_get_str(rec, "type"));
	f->emitted++;
	return 0;
}

static void controller(void)
{
	struct roll_catalog c;
	catalog_v3(&c);
	struct roll_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.controller_id = "unit-rolling";
	cfg.interval = 7200;
	cfg.hold = 14400;
	cfg.horizon = 14400;
	cfg.history = 14400;
	cfg.budget = 3;
	cfg.dual = true;
	cfg.scenario_set_id = ROLL_SET_DUAL_ID;
	cfg.safety_id = SAFE;
	cfg.queue_guard_id = "hp-p95-queue-seconds";
	snprintf(cfg.fingerprint, 33, "cfgfp");
	struct trace t;
	trace_init(&t);
	struct trace_node *n = trace_add_node(&t);
	n->id = trace_strdup(&t, "n1"), n->model = trace_strdup(&t, "A"), n->gpu_count = 12;
	t.trace_id = trace_strdup(&t, "unit");
	t.has_window = true;
	t.eval_start = 0;
	t.eval_end = 86400;
	struct roll_decider d;
	char e[300];
	roll_decider_parse(&d, "rule", 1, e, sizeof e);
	struct roll_controller ctl;
	CHECK(roll_controller_init(&ctl, &cfg, &c, &SLO, &t, &t, &d, NULL, 0, "unit-arm", e, sizeof e) == 0, "init: %s", e);
	CHECK(roll_expected_decisions(&ctl) == 12, "12 decisions a day");
	struct fake f;
	memset(&f, 0, sizeof f);
	f.alloc_for_po = 0.95;
	struct roll_engine eng = { &f, f_state, f_proj, f_eval, f_emit };
	struct arena a;
	arena_init(&a);
	CHECK(roll_due(&ctl) && roll_next_cutoff(&ctl) == 0, "first cutoff at eval_start");
	CHECK(!strcmp(roll_active(&ctl)->action_id, SAFE), "the first active action is the safety action");
	CHECK(roll_step(&ctl, &eng, &a, e, sizeof e) == ROLL_STEP_DONE, "step: %s", e);
	CHECK(f.evaluated == 6, "3 candidates × 2 scenarios = 6 simulations, got %d", f.evaluated);
	CHECK(f.emitted == 1 + 2 + 3 + 1, "observation, 2 scenarios, 3 evidence, 1 decision: %d", f.emitted);
	CHECK(!strcmp(f.types[0], "rolling_observation") && !strcmp(f.types[1], "scenario") && !strcmp(f.types[3], "candidate_evidence") &&
	      !strcmp(f.types[6], "rolling_decision"), "record order");
	/* balanced calm state → [safe, native-fifo, PO]; PO has the best allocation → selected */
	CHECK(!strcmp(roll_active(&ctl)->action_id, PO), "PO applied: %s", roll_active(&ctl)->action_id);
	CHECK(ctl.p.index == 1 && ctl.p.has_since && ctl.p.since == 0 && ctl.p.simulations == 6, "progress");
	/* next: PO falls behind (0.5) → hierarchy picks safety, but the hold keeps PO (7200 < 14400) */
	f.alloc_for_po = 0.5;
	f.evaluated = f.emitted = 0;
	CHECK(roll_next_cutoff(&ctl) == 7200, "second cutoff");
	CHECK(roll_step(&ctl, &eng, &a, e, sizeof e) == ROLL_STEP_DONE, "step 2: %s", e);
	/* PO fails the allocation audit (0.5 < 0.8 of safety) → no hold (its candidate did not pass) */
	CHECK(!strcmp(roll_active(&ctl)->action_id, SAFE), "failed PO is not held: %s", roll_active(&ctl)->action_id);
	CHECK(ctl.p.since == 7200, "since moves with the switch");
	/* reply rejection applies the safety action and is counted */
	roll_decider_close(&d);
	roll_decider_parse(&d, "fixed:native-preemptive-g3600-b09-d0000", 1, e, sizeof e);
	f.alloc_for_po = 0.95;
	CHECK(roll_step(&ctl, &eng, &a, e, sizeof e) == ROLL_STEP_DONE, "step 3: %s", e);
	CHECK(!strcmp(roll_active(&ctl)->action_id, SAFE) && ctl.p.rejections == 1, "a non-candidate fixed action is rejected → safety");
	/* the report and the progress round trip */
	struct json *rep = roll_report(&ctl, &a);
	CHECK(json_get(rep, "decision_count")->u.i == 3 && json_get(rep, "expected_decision_count")->u.i == 12 &&
	      json_get(rep, "rejected_reply_count")->u.i == 1 && ev_self_fp_ok(rep, "report_fingerprint"), "report");
	struct json *pj = roll_progress_json(&ctl, &a);
	struct roll_controller c2 = ctl;
	memset(&c2.p, 0, sizeof c2.p);
	CHECK(roll_progress_load(&c2, pj, e, sizeof e) == 0, "progress load: %s", e);
	CHECK(!memcmp(&c2.p, &ctl.p, sizeof c2.p), "progress round-trips exactly");
	json_set(&a, pj, "decision_index", json_int(&a, 2));
	CHECK(roll_progress_load(&c2, pj, e, sizeof e) == -1, "inconsistent progress refused");
	/* a projection makes enforcing candidates run under the frozen quota (checked in f_eval) */
	f.with_proj = true;
	f.proj.cutoff = 0;
	f.proj.history_ready = 1;
	f.pts[0] = (struct roll_point){ 3600, 1, "A", 1, 1, 2, false, false, 0, 0, NULL };
	f.proj.points = f.pts;
	f.proj.n_points = 1;
	f.proj.quota[0] = (struct roll_quota){ 1, 4 };
	f.proj.n_quota = 1;
	roll_decider_close(&d);
	roll_decider_parse(&d, "rule", 1, e, sizeof e);
	CHECK(roll_step(&ctl, &eng, &a, e, sizeof e) == ROLL_STEP_DONE, "step 4: %s", e);
	/* the oracle evaluates the whole catalog in one actual-future scenario */
	roll_decider_close(&d);
	roll_decider_parse(&d, "oracle", 1, e, sizeof e);
	struct roll_controller oc;
	memset(&oc, 0, sizeof oc);
	CHECK(roll_controller_init(&oc, &cfg, &c, &SLO, &t, &t, &d, NULL, 0, "oracle-arm", e, sizeof e) == 0, "oracle init: %s", e);
	f.evaluated = 0;
	CHECK(roll_step(&oc, &eng, &a, e, sizeof e) == ROLL_STEP_DONE, "oracle step: %s", e);
	CHECK(f.evaluated == 5, "oracle: 5 candidates × 1 scenario: %d", f.evaluated);
	/* --candidates must include the safety action and match the budget */
	const char *bad[3] = { PO, LO, FG }, *good[3] = { SAFE, PG, PO };
	roll_decider_close(&d);
	roll_decider_parse(&d, "fixed:" PG, 1, e, sizeof e);
	roll_controller_release(&oc);
	CHECK(roll_controller_init(&oc, &cfg, &c, &SLO, &t, &t, &d, bad, 3, "x", e, sizeof e) == -1, "no safety in --candidates");
	CHECK(roll_controller_init(&oc, &cfg, &c, &SLO, &t, &t, &d, good, 2, "x", e, sizeof e) == -1, "wrong count");
	CHECK(roll_controller_init(&oc, &cfg, &c, &SLO, &t, &t, &d, good, 3, "x", e, sizeof e) == 0, "good list: %s", e);
	f.evaluated = 0;
	f.with_proj = false;
	CHECK(roll_step(&oc, &eng, &a, e, sizeof e) == ROLL_STEP_DONE && !strcmp(roll_active(&oc)->action_id, PG), "fixed arm applies PG");
	/* a plan without the reply stops at the pending request */
	roll_decider_close(&d);
	char plan[] = "/tmp/schednav-roll-plan-XXXXXX";
	int fd = mkstemp(plan);
	close(fd);
	char spec[80];
	snprintf(spec, sizeof spec, "plan:%s", plan);
	roll_decider_parse(&d, spec, 1, e, sizeof e);
	roll_decider_start(&d, e, sizeof e);
	roll_controller_release(&oc);
	CHECK(roll_controller_init(&oc, &cfg, &c, &SLO, &t, &t, &d, NULL, 0, "agent", e, sizeof e) == 0, "plan init");
	CHECK(roll_step(&oc, &eng, &a, e, sizeof e) == ROLL_STEP_PENDING && oc.p.index == 0, "pending step freezes nothing");
	struct json *cp = roll_planning_checkpoint(&oc, &a);
	CHECK(ev_self_fp_ok(cp, "checkpoint_fingerprint") && json_get(cp, "pending_request")->kind == JSON_OBJECT, "planning checkpoint");
	unlink(plan);
	roll_controller_release(&oc);
	roll_controller_release(&ctl);
	roll_decider_close(&d);
	arena_release(&a);
	trace_release(&t);
}


/* ---- ablation: pairwise comparison, gates, closeout ---- */

static struct roll_arm_summary arm(long long windows, long long passes, double alloc, double jct, double evict, long long sims)
{
	return (struct roll_arm_summary){ windows, passes, sims, 0, true, true, true, alloc, jct, evict };
}

static void ablation(void)
{
	struct roll_arm_summary a = arm(5, 4, 0.80, 100, 0.01, 72), b = arm(5, 3, 0.99, 1, 0, 72);
	CHECK(!strcmp(roll_compare_arms(&a, &b), "better") && !strcmp(roll_compare_arms(&b, &a), "worse"), "more passing windows first");
	b = arm(5, 4, 0.81, 1, 0, 72);
	CHECK(!strcmp(roll_compare_arms(&b, &a), "better"), "allocation difference 0.01 (>=) decides");
	b = arm(5, 4, 0.8099, 1, 0, 72);
	CHECK(!strcmp(roll_compare_arms(&b, &a), "better"), "below 0.01 defers to Spot JCT (1 < 100)");
	b = arm(5, 4, 0.805, 100, 0.02, 72);
	CHECK(!strcmp(roll_compare_arms(&b, &a), "worse"), "then eviction (0.02 > 0.01)");
	b = arm(5, 4, 0.805, 100, 0.01, 72);
	CHECK(!strcmp(roll_compare_arms(&b, &a), "tie"), "tie");
	/* summaries: means over present windows with values */
	struct roll_cell cells[3] = { { true, true, true, true, true, 0.5, 10, 0, 72, 3 }, { true, false, true, false, true, 0.7, 0, 0.2, 72, 2 },
		{ false, false, false, false, false, 0, 0, 0, 0, 0 } };
	struct roll_arm_summary s;
	roll_arm_summarise(cells, 3, &s);
	CHECK(s.windows == 2 && s.passes == 1 && s.simulations == 144 && s.llm_calls == 5 && s.alloc == 0.6 && s.jct == 10 && s.evict == 0.1,
	      "summary %lld %lld %g %g %g", s.windows, s.passes, s.alloc, s.jct, s.evict);
	/* gates: baseline, fixed, rule, agent, oracle (the shipped study's arms) */
	struct roll_arm_def defs[5] = { { "ordinary-fifo", ARM_BASELINE, false, true, 0 }, { "fixed", ARM_COMPARATOR, false, true, 0 },
		{ "rule", ARM_COMPARATOR, true, true, 3 }, { "agent", ARM_AGENT, true, true, 3 }, { "oracle", ARM_ORACLE, true, false, 5 } };
	struct roll_arm_summary sum[5] = { arm(5, 5, 0.80, 100, 0, 0), arm(5, 2, 0.85, 90, 0.01, 0), arm(5, 4, 0.81, 95, 0, 72 * 5),
		arm(5, 3, 0.82, 95, 0, 72 * 5), arm(5, 5, 0.9, 50, 0, 60 * 5) };
	struct roll_gates g;
	roll_gates_evaluate(defs, sum, 5, 5, &g);
	CHECK(!strcmp(g.superiority, "not_established") && !strcmp(g.vs_ordinary, "not_established") && !strcmp(g.analyst, "incomplete"),
	      "the original's outcome: %s %s %s", g.superiority, g.vs_ordinary, g.analyst);
	CHECK(g.n_eligible == 1 && !strcmp(g.eligible[0], "ordinary-fifo") && !strcmp(g.recommended, "ordinary-fifo"),
	      "eligible = deployable arms passing every window (the oracle excluded)");
	CHECK(!g.claim_supported && g.pairwise[4] == NULL && !strcmp(g.pairwise[0], "worse"), "oracle never compared");
	/* an agent better than everyone: supported */
	sum[3] = arm(5, 5, 0.95, 10, 0, 72 * 5);
	roll_gates_evaluate(defs, sum, 5, 5, &g);
	CHECK(!strcmp(g.superiority, "supported") && !strcmp(g.vs_ordinary, "supported") && g.claim_supported, "supported");
	CHECK(!strcmp(g.recommended, "agent"), "recommended agent");
	/* a different simulation count than the same-budget rule arm: not established */
	sum[3].simulations = 71 * 5;
	roll_gates_evaluate(defs, sum, 5, 5, &g);
	CHECK(!strcmp(g.superiority, "not_established") && !strcmp(g.vs_ordinary, "supported") && !g.claim_supported, "budget mismatch");
	sum[3].simulations = 72 * 5;
	/* fewer passes than a comparator */
	sum[1] = arm(5, 5, 0.5, 1, 0, 0);
	sum[3] = arm(5, 4, 0.99, 1, 0, 72 * 5);
	sum[2] = arm(5, 3, 0.5, 1, 0, 72 * 5);
	roll_gates_evaluate(defs, sum, 5, 5, &g);
	CHECK(!strcmp(g.superiority, "not_established"), "fewer passes than fixed");
	/* a missing window: incomplete */
	sum[2].windows = 4;
	roll_gates_evaluate(defs, sum, 5, 5, &g);
	CHECK(!strcmp(g.superiority, "incomplete") && !strcmp(g.vs_ordinary, "incomplete"), "incomplete");
	/* the top two eligible tie: no recommendation */
	struct roll_arm_summary t[5] = { arm(5, 5, 0.80, 100, 0, 0), arm(5, 5, 0.805, 100, 0, 0), arm(5, 1, 0, 0, 0, 360),
		arm(5, 1, 0, 0, 0, 360), arm(5, 5, 1, 1, 0, 300) };
	roll_gates_evaluate(defs, t, 5, 5, &g);
	CHECK(g.n_eligible == 2 && g.recommended == NULL, "top two tie → null");
	/* analyst gate with a masked arm */
	struct roll_arm_def d6[6] = { defs[0], defs[1], defs[2], defs[3], defs[4], { "masked", ARM_MASKED, true, true, 3 } };
	struct roll_arm_summary s6[6] = { arm(5, 5, 0.80, 100, 0, 0), arm(5, 2, 0.85, 90, 0.01, 0), arm(5, 4, 0.81, 95, 0, 360),
		arm(5, 5, 0.9, 50, 0, 360), arm(5, 5, 0.9, 50, 0, 300), arm(5, 4, 0.9, 50, 0, 360) };
	roll_gates_evaluate(d6, s6, 6, 5, &g);
	CHECK(!strcmp(g.analyst, "supported"), "full better than masked with matched resources: %s", g.analyst);
	s6[5].llm_calls = 3;
	roll_gates_evaluate(d6, s6, 6, 5, &g);
	CHECK(!strcmp(g.analyst, "not_established"), "unmatched LLM calls");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	arena_init(&A);
	char e[400];
	if (ev_slo_load(&SLO, "configs/slos/schednav-demo-slo-v1.json", &A, e, sizeof e)) {
		fprintf(stderr, "test_roll: run from the repository root: %s\n", e);
		return 1;
	}
	rule_roles();
	rule_branches();
	rule_dedupe_padding();
	select_hierarchy();
	select_ties();
	select_hold();
	aggregate_rules();
	scenario_audit();
	signals();
	estimates();
	decompose();
	scenario_build();
	protocol();
	deciders();
	toy_decider();
	controller();
	ablation();
	ev_slo_release(&SLO);
	trace_release(&H);
	trace_release(&X);
	arena_release(&A);
	printf("test_roll: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
