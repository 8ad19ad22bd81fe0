/* Unit tests for lib/eval/adaptive: the design check, the median, workload-rule-v1's quadrants,
 * and every rule an agent's controller_selections must keep (docs/studies-rules.md). Records are
 * written as JSON text, self-fingerprinted here like the tools do, then checked. plan-check
 * already refuses most of these; adaptive-design checks them again against the design. */
#include "core/json.h"
#include "eval/adaptive.h"
#include "eval/evidence.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct arena A;

static struct json *parse(const char *text)
{
	struct json *v;
	char err[200];
	if (json_parse(&A, text, strlen(text), &v, err, sizeof err)) {
		fprintf(stderr, "test_adaptive: bad test JSON: %s\n%s\n", err, text);
		exit(2);
	}
	return v;
}

static const char design_text[] =
	"{\"type\":\"adaptive_design\",\"schema_version\":\"schednav.adaptive-study-design/v1\",\"trace_id\":\"t\","
	"\"trace_fingerprint\":\"00112233445566778899aabbccddeeff\",\"capacity_gpus\":8,"
	"\"windows_fingerprint\":\"00112233445566778899aabbccddeeff\",\"window_rule\":{},\"carry_in\":{},"
	"\"baseline_action_id\":\"native-fifo\",\"actions\":["
	"{\"action_id\":\"native-fifo\",\"policy_fingerprint\":\"a0\"},"
	"{\"action_id\":\"native-preemptive-3600\",\"policy_fingerprint\":\"a1\"},"
	"{\"action_id\":\"native-preemptive-g3600-b09-d0000\",\"policy_fingerprint\":\"a2\"},"
	"{\"action_id\":\"native-preemptive-g3600-b09-d0900\",\"policy_fingerprint\":\"a3\"},"
	"{\"action_id\":\"native-preemptive-g3600-b09-loss-aware\",\"policy_fingerprint\":\"a4\"}],"
	"\"candidate_count\":{},\"split\":{},\"workload_rule\":{\"rule_id\":\"workload-rule-v1\",\"source\":\"s\","
	"\"peak_pressure_threshold\":0.5,\"spot_share_threshold\":0.2},\"windows\":["
	"{\"window_id\":\"c0\",\"partition\":\"calibration\",\"start\":0,\"end\":9,\"warmup_start\":0,\"peak_pressure\":0.4,\"mean_pressure\":0.4,\"spot_share\":0.1},"
	"{\"window_id\":\"c1\",\"partition\":\"calibration\",\"start\":10,\"end\":19,\"warmup_start\":0,\"peak_pressure\":0.6,\"mean_pressure\":0.6,\"spot_share\":0.3},"
	"{\"window_id\":\"e0\",\"partition\":\"evaluation\",\"start\":20,\"end\":29,\"warmup_start\":0,\"peak_pressure\":0.5,\"mean_pressure\":0.5,\"spot_share\":0.2},"
	"{\"window_id\":\"e1\",\"partition\":\"evaluation\",\"start\":30,\"end\":39,\"warmup_start\":0,\"peak_pressure\":0.49,\"mean_pressure\":0.1,\"spot_share\":0.9}]}";

static struct ad_design D;

/* The agent record of plan-check with the design fingerprint for @ and SELS as its selections. */
static struct json *agent(const char *sels, const char *extra)
{
	char text[8192], with_fp[8192];
	snprintf(text, sizeof text,
		 "{\"type\":\"controller_selections\",\"schema_version\":\"schednav.controller-selections/v1\","
		 "\"controller_id\":\"agent-1\",\"mode\":\"single_agent\",\"model_id\":\"m\",\"source\":{\"framework\":\"f\",\"project_id\":\"p\"},"
		 "\"safety_action_id\":\"native-fifo\",\"selections\":[%s],\"verified_stage_receipt_count\":2,\"source_anomalies\":[]%s}",
		 sels, extra ? extra : "");
	size_t k = 0;
	for (const char *p = text; *p && k + 40 < sizeof with_fp; p++)
		if (*p == '@')
			k += (size_t)snprintf(with_fp + k, sizeof with_fp - k, "%s", D.fingerprint);
		else
			with_fp[k++] = *p;
	with_fp[k] = 0;
	struct json *rec = parse(with_fp);
	ev_self_fp_stamp(&A, rec, "selections_fingerprint");
	return rec;
}

#define SEL(w, ids, reason) "{\"observation_fingerprint\":\"@\",\"window_id\":\"" w "\",\"candidate_action_ids\":[" ids "]," \
	"\"reason_code\":\"" reason "\",\"llm_call_count\":1,\"agent_stage_receipts\":[]}"
#define F "\"native-fifo\""
#define P "\"native-preemptive-3600\""
#define D0 "\"native-preemptive-g3600-b09-d0000\""
#define D9 "\"native-preemptive-g3600-b09-d0900\""
#define L "\"native-preemptive-g3600-b09-loss-aware\""

static void refused(struct json *rec, const char *want, int line)
{
	struct ad_selections s;
	char err[1024] = "";
	int rc = ev_ad_agent_parse(&s, rec, &D, &A, err, sizeof err);
	checks++;
	if (rc == 0 || !strstr(err, want)) {
		failures++;
		fprintf(stderr, "%s:%d: expected a refusal with '%s', got rc %d '%s'\n", __FILE__, line, want, rc, err);
	}
}
#define REFUSED(rec, want) refused(rec, want, __LINE__)

static void agent_rules(void)
{
	const char *good_e0 = SEL("e0", F "," D0 "," L, "r0"), *good_e1 = SEL("e1", F "," D9 "," L "," P, "r1");
	char sels[4096];
	struct ad_selections s;
	char err[1024];
	snprintf(sels, sizeof sels, "%s,%s", good_e1, good_e0);
	int rc = ev_ad_agent_parse(&s, agent(sels, NULL), &D, &A, err, sizeof err);
	CHECK(rc == 0, "a valid agent record is refused: %s", err);
	if (rc == 0) {
		/* design order, whatever the record's order */
		CHECK(s.ncandidates[0] == 3 && s.ncandidates[1] == 4, "candidate counts %zu %zu", s.ncandidates[0], s.ncandidates[1]);
		CHECK(!strcmp(s.candidates[1][3], "native-preemptive-3600") && !strcmp(s.reasons[0], "r0"), "candidates or reasons out of place");
		CHECK(!strcmp(s.controller_id, "agent-1") && !strcmp(s.model_id, "m") && strlen(s.fingerprint) == 32, "identity fields");
	}
	REFUSED(agent(good_e0, NULL), "evaluation window 'e1' has no selection (every evaluation window exactly once)");
	snprintf(sels, sizeof sels, "%s,%s,%s", good_e0, good_e1, good_e0);
	REFUSED(agent(sels, NULL), "window 'e0' appears twice");
	snprintf(sels, sizeof sels, "%s,%s,%s", good_e0, good_e1, SEL("c1", F "," D0 "," L, "r"));
	REFUSED(agent(sels, NULL), "window 'c1' is a calibration window");
	snprintf(sels, sizeof sels, "%s,%s,%s", good_e0, good_e1, SEL("x9", F "," D0 "," L, "r"));
	REFUSED(agent(sels, NULL), "window 'x9' is not a window of the design");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," P, "r"));
	REFUSED(agent(sels, NULL), "window 'e1': 2 candidates; a window takes 3 to 5");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," P "," D0 "," D9 "," L ",\"native-preemptive-7200\"", "r"));
	REFUSED(agent(sels, NULL), "window 'e1': 6 candidates");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," P "," P, "r"));
	REFUSED(agent(sels, NULL), "'native-preemptive-3600' is named twice");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," P ",\"native-preemptive-7200\"", "r"));
	REFUSED(agent(sels, NULL), "'native-preemptive-7200' is not an action of the catalogue");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", P "," D0 "," D9, "r"));
	REFUSED(agent(sels, NULL), "window 'e1': the candidates must include the baseline 'native-fifo'");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," D0 "," D9, "two\\nlines"));
	REFUSED(agent(sels, NULL), "'reason_code' must be one line of 1 to 256 bytes");
	snprintf(sels, sizeof sels, "%s,%s", good_e0, SEL("e1", F "," D0 "," D9, ""));
	REFUSED(agent(sels, NULL), "'reason_code' must be one line of 1 to 256 bytes");
	char long_reason[300];
	memset(long_reason, 'x', 257);
	long_reason[257] = 0;
	char sel_long[1200];
	snprintf(sel_long, sizeof sel_long, "{\"observation_fingerprint\":\"@\",\"window_id\":\"e1\",\"candidate_action_ids\":[" F "," D0 "," D9 "],"
		 "\"reason_code\":\"%s\",\"llm_call_count\":1,\"agent_stage_receipts\":[]}", long_reason);
	snprintf(sels, sizeof sels, "%s,%s", good_e0, sel_long);
	REFUSED(agent(sels, NULL), "'reason_code' must be one line of 1 to 256 bytes");
	long_reason[256] = 0;   /* 256 bytes is the limit, allowed */
	snprintf(sel_long, sizeof sel_long, "{\"observation_fingerprint\":\"@\",\"window_id\":\"e1\",\"candidate_action_ids\":[" F "," D0 "," D9 "],"
		 "\"reason_code\":\"%s\",\"llm_call_count\":1,\"agent_stage_receipts\":[]}", long_reason);
	snprintf(sels, sizeof sels, "%s,%s", good_e0, sel_long);
	CHECK(ev_ad_agent_parse(&s, agent(sels, NULL), &D, &A, err, sizeof err) == 0, "a 256-byte reason is refused: %s", err);
	/* the observation is the design */
	snprintf(sels, sizeof sels, "%s,%s", good_e0,
		 "{\"observation_fingerprint\":\"ffffffffffffffffffffffffffffffff\",\"window_id\":\"e1\",\"candidate_action_ids\":[" F "," D0 "," D9 "],"
		 "\"reason_code\":\"r\",\"llm_call_count\":1,\"agent_stage_receipts\":[]}");
	REFUSED(agent(sels, NULL), "window 'e1': observed 'ffffffffffffffffffffffffffffffff', not this design");
	/* the record as a whole */
	snprintf(sels, sizeof sels, "%s,%s", good_e0, good_e1);
	struct json *rec = agent(sels, NULL);
	json_set(&A, rec, "model_id", json_str(&A, "edited"));
	REFUSED(rec, "'selections_fingerprint' does not verify (the selections were edited)");
	REFUSED(agent(sels, ",\"temperature\":0.2"), "unknown key 'temperature'");
	rec = parse("{\"type\":\"controller_selections\"}");
	REFUSED(rec, "missing key 'schema_version'");
	rec = agent(sels, NULL);
	json_set(&A, rec, "safety_action_id", json_str(&A, "native-preemptive-3600"));
	json_set(&A, rec, "selections_fingerprint", json_str(&A, ""));
	{
		struct json *copy = json_object(&A);
		for (size_t i = 0; i + 1 < rec->u.obj.n; i++)
			json_set(&A, copy, rec->u.obj.keys[i], rec->u.obj.vals[i]);
		ev_self_fp_stamp(&A, copy, "selections_fingerprint");
		REFUSED(copy, "the safety action is 'native-preemptive-3600', not the design's baseline 'native-fifo'");
	}
	struct json *base = agent(sels, NULL);
	const char *edits[][3] = {
		{ "schema_version", "schednav.controller-selections/v2", "schema_version must be 'schednav.controller-selections/v1'" },
		{ "controller_id", "workload-rule-v1", "the agent may not use the rule's controller id" },
		{ "controller_id", "bad\tid", "'controller_id' must be a non-empty string without control characters" },
		{ "model_id", "", "'model_id' must be a non-empty string without control characters" },
	};
	for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
		struct json *copy = json_object(&A);
		for (size_t i = 0; i + 1 < base->u.obj.n; i++)
			json_set(&A, copy, base->u.obj.keys[i], base->u.obj.vals[i]);
		json_set(&A, copy, edits[e][0], json_str(&A, edits[e][1]));
		ev_self_fp_stamp(&A, copy, "selections_fingerprint");
		refused(copy, edits[e][2], __LINE__);
	}
}

static void rule_and_median(void)
{
	double odd[] = { 0.9, 0.1, 0.5 }, even[] = { 0.909837, 0.1, 1.2, 0.909836 };
	CHECK(ev_ad_median(odd, 3) == 0.5, "median of 3");
	CHECK(ev_ad_median(even, 4) == (0.909836 + 0.909837) / 2, "median of 4 is the mean of the middle two");
	const char *ids[3];
	/* e0 sits exactly on both thresholds: high and high */
	CHECK(!strcmp(ev_ad_rule_candidates(&D.windows[2], &D, ids), "high-pressure-high-spot-share") &&
	      !strcmp(ids[1], "native-preemptive-g3600-b09-d0000") && !strcmp(ids[2], "native-preemptive-g3600-b09-loss-aware"),
	      "at the thresholds counts as high");
	CHECK(!strcmp(ev_ad_rule_candidates(&D.windows[3], &D, ids), "lower-pressure-high-spot-share") && !strcmp(ids[0], "native-fifo") &&
	      !strcmp(ids[1], "native-preemptive-g3600-b09-d0900"), "just below the pressure threshold");
	struct ad_window w = D.windows[3];
	w.peak_pressure = 2, w.spot_share = 0.1;
	CHECK(!strcmp(ev_ad_rule_candidates(&w, &D, ids), "high-pressure-lower-spot-share") && !strcmp(ids[1], "native-preemptive-3600"), "pressure only");
	w.peak_pressure = 0.1;
	CHECK(!strcmp(ev_ad_rule_candidates(&w, &D, ids), "lower-pressure-lower-spot-share") && !strcmp(ids[2], "native-preemptive-g3600-b09-d0900"), "neither");
	CHECK(ev_ad_id_ok("day-0001") && !ev_ad_id_ok("") && !ev_ad_id_ok("a\x7f") && !ev_ad_id_ok("a\nb"), "identifiers");
	/* the rule's own record parses back to its sets */
	struct ad_selections s;
	char err[1024];
	struct json *rule = ev_ad_rule_record(&A, &D);
	CHECK(ev_ad_rule_parse(&s, rule, &D, &A, err, sizeof err) == 0 && s.ncandidates[1] == 3, "the rule's record: %s", err);
	json_set(&A, rule, "selection_basis", json_str(&A, "outcomes"));
	CHECK(ev_ad_rule_parse(&s, rule, &D, &A, err, sizeof err) != 0 && strstr(err, "'fingerprint' does not verify"), "an edited rule record");
}

int main(void)
{
	char err[1024];
	arena_init(&A);
	struct json *design = parse(design_text);
	ev_self_fp_stamp(&A, design, "design_fingerprint");
	if (ev_ad_design_parse(&D, design, &A, err, sizeof err)) {
		fprintf(stderr, "test_adaptive: the test design does not check: %s\n", err);
		return 2;
	}
	CHECK(D.ncalibration == 2 && D.nwindows == 4 && D.peak_threshold == 0.5, "design fields");
	/* an edited design does not verify */
	struct json *bad = parse(design_text);
	ev_self_fp_stamp(&A, bad, "design_fingerprint");
	json_set(&A, json_get(bad, "workload_rule"), "spot_share_threshold", json_real(&A, 0.3));
	struct ad_design d2;
	CHECK(ev_ad_design_parse(&d2, bad, &A, err, sizeof err) != 0 && strstr(err, "'design_fingerprint' does not verify"), "edited design: %s", err);
	agent_rules();
	rule_and_median();
	arena_release(&A);
	printf("test_adaptive: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
