/* Unit tests for the controller-family table (lib/predict/family.c): a toy family,
 * registered only here, is one file of operations plus one row of a family table, and then
 * every generic entry point serves it: pc_config_from_json_in picks it by schema_version,
 * pc_controller_open/_clone/_release, pc_sim_bind (its hooks gate the simulator),
 * pc_records_open and pc_controller_write_records (its records after the plain ones), and
 * pc_bundle, and the result reader's check of its control_report (its check_report). The
 * built-in table does not know it (the aggregate fallback refuses it). */
#include "core/die.h"
#include "core/json.h"
#include "core/xalloc.h"
#include "predict/predict.h"
#include "predict/record_check.h"
#include "sim/policy.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* ---- the toy family: a fixed Spot quota, one decision record per interval ---- */

#define TOY_SCHEMA "schednav.toy-controller/v1"

struct toy {
	long long quota, interval;
	double next;
	long long decisions;
	double max_spot;              /* the most running Spot GPUs any decision saw */
	struct pc_records *rec;
};

static int toy_from_json(struct pc_config *c, const struct json *doc, struct arena *a, char *err, size_t errlen)
{
	const struct json *id = json_get(doc, "controller_id"), *q = json_get(doc, "quota_gpus"), *iv = json_get(doc, "interval_seconds");
	if (!id || id->kind != JSON_STRING || !q || q->kind != JSON_INT || !iv || iv->kind != JSON_INT || iv->u.i <= 0) {
		snprintf(err, errlen, "a toy controller needs controller_id, quota_gpus and interval_seconds > 0");
		return -1;
	}
	c->schema_version = TOY_SCHEMA;
	c->controller_id = id->u.str.s;
	c->observation_interval_seconds = iv->u.i;
	c->canonical = json_clone(a, doc);
	pc_canonical_sha256(c->canonical, c->fingerprint);
	struct toy *t = arena_alloc(a, sizeof *t);   /* the parsed settings, copied at open */
	*t = (struct toy){ q->u.i, iv->u.i, 0, 0, 0, NULL };
	c->family_config = t;
	return 0;
}

static int toy_open(struct pc_controller *c, const struct pc_config *cfg, const struct trace *t, char *err, size_t errlen)
{
	struct toy *s = xmalloc(sizeof *s);
	*s = *(const struct toy *)cfg->family_config;
	s->next = t->jobs[0].submit;
	c->impl = s;
	return 0;
}

static void toy_clone(struct pc_controller *d, const struct pc_controller *s)
{
	struct toy *x = xmalloc(sizeof *x);
	*x = *(const struct toy *)s->impl;
	d->impl = x;
}

static void toy_close(struct pc_controller *c)
{
	free(c->impl);
}

static double toy_wakeup(void *ctx, const struct sim *s, double after)
{
	const struct toy *t = ((struct pc_sim *)ctx)->c->impl;
	return t->next > after ? t->next : INFINITY;
}

static int toy_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct toy *t = ((struct pc_sim *)ctx)->c->impl;
	double now = sim_now(s);
	if (now + PC_EPS < t->next)
		return 0;
	t->decisions++;
	if (sim_running_spot_gpus(s) > t->max_spot)
		t->max_spot = sim_running_spot_gpus(s);
	if (t->rec) {
		sb_reset(&t->rec->line);
		sb_addf(&t->rec->line, "{\"type\":\"control_decision\",\"t\":%.17g,\"running_spot_gpus\":%.17g}", now, sim_running_spot_gpus(s));
		pc_records_add(t->rec);
	}
	t->next = now + (double)t->interval;
	return 0;
}

static double toy_limit(void *ctx, const struct sim *s, int model)
{
	const struct toy *t = ((struct pc_sim *)ctx)->c->impl;
	return (double)t->quota - sim_running_spot_gpus(s);
}

static bool toy_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	const struct toy *t = ((struct pc_sim *)ctx)->c->impl;
	return sim_running_spot_gpus(s) + j->gpu <= (double)t->quota;
}

static void toy_bind(struct pc_sim *b, struct sim_hooks *h)
{
	h->next_wakeup = toy_wakeup;
	h->at_instant = toy_instant;
	h->gate_limit = toy_limit;
	h->gate_admit = toy_admit;
}

static void toy_spool(struct pc_controller *c, struct pc_records *r)
{
	((struct toy *)c->impl)->rec = r;
}

static void toy_report(struct strbuf *sb, const struct pc_controller *c)
{
	const struct toy *t = c->impl;
	sb_addf(sb, "{\"type\":\"control_report\",\"decisions\":%lld}", t->decisions);
}

static struct json *toy_bundle(struct arena *a, const struct trace *t, const struct pc_config *cfg, double cutoff, char *err, size_t errlen)
{
	snprintf(err, errlen, "the toy family has no cutoff bundle");
	return NULL;
}

static void toy_state(const struct pc_controller *c, struct arena *a, struct json *model, struct json *pools)
{
	json_set(a, model, "trained", json_bool(a, false));
}

/* Its control_report beyond the common blocks: a toy block and a decision count. */
static const char *toy_check_report(const struct json *report)
{
	if (!json_has_object(report, "toy"))
		return PC_REPORT_MISSING_BLOCK;
	return json_has_count(json_get(report, "toy"), "decisions") ? NULL : PC_REPORT_WRONG_TYPE;
}

static const struct pc_family toy_family = {
	.name = "toy", .schema = TOY_SCHEMA, .from_json = toy_from_json, .open = toy_open, .clone = toy_clone,
	.close = toy_close, .bind_sim = toy_bind, .spool = toy_spool, .write_report = toy_report, .bundle = toy_bundle,
	.learned_state = toy_state, .quota_refusal = "is a toy controller", .check_report = toy_check_report,
};

/* The test build's table: the built-in rows plus the toy's one row, before the fallback. */
static const struct pc_family *families[3];

static void register_toy(void)
{
	families[0] = &toy_family;
	for (size_t i = 0; i < pc_n_families; i++)
		families[1 + i] = pc_families[i];
}

/* ---- the tests ---- */

static const char toy_json[] = "{\"schema_version\":\"" TOY_SCHEMA "\",\"controller_id\":\"toy-4\",\"quota_gpus\":4,\"interval_seconds\":3600}";
static const char policy_json[] = "{\"schema_version\":\"schednav.simulation-policy/v1\",\"action_id\":\"p\",\"scheduler\":\"priority_preemptive\","
	"\"spot_guarantee_seconds\":3600,\"checkpoint_interval_seconds\":3600,\"preemption_overhead_seconds\":80,\"placement_strategy\":\"deterministic_best_fit\"}";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void toy_family_runs(void)
{
	struct arena a;
	struct json *doc, *pdoc;
	struct pc_config cfg;
	struct sim_policy pol;
	struct trace t;
	char err[500];
	arena_init(&a);
	trace_init(&t);
	if (json_parse(&a, toy_json, strlen(toy_json), &doc, err, sizeof err) || json_parse(&a, policy_json, strlen(policy_json), &pdoc, err, sizeof err) ||
	    policy_from_json(&pol, pdoc, &a, err, sizeof err) || trace_load(&t, "tests/data/sim/micro-quota.trace.ndjson", err, sizeof err)) {
		fprintf(stderr, "toy_family_runs: %s\n", err);
		exit(1);
	}
	/* the built-in table does not know the toy: the aggregate fallback reads it as its own and refuses it */
	CHECK(pc_config_from_json(&cfg, doc, &a, err, sizeof err) == -1 && !strcmp(err, "unknown key 'quota_gpus'"), "built-in table: %s", err);
	/* with its row it is the toy's, and the other rows still choose as before */
	CHECK(pc_config_from_json_in((const struct pc_family *const *)families, 3, &cfg, doc, &a, err, sizeof err) == 0 && cfg.family == &toy_family &&
	      !strcmp(cfg.controller_id, "toy-4"), "toy table: %s", err);
	CHECK(pc_bundle(&a, &t, &cfg, 3600, err, sizeof err) == NULL && !strcmp(err, "the toy family has no cutoff bundle"), "bundle: %s", err);

	/* the run: opened, bound and spooled through the generic entry points */
	struct pc_controller c, fork;
	struct pc_sim b;
	struct sim_hooks h;
	struct pc_records rec;
	struct sim_output out;
	CHECK(pc_controller_open(&c, &cfg, &t, err, sizeof err) == 0 && c.impl, "open: %s", err);
	CHECK(pc_records_open(&rec, &c, "the toy's decisions", err, sizeof err) == 0, "records: %s", err);
	pc_sim_bind(&b, &c, &h);
	CHECK(h.gate_admit == toy_admit && h.ctx == &b, "bind");
	struct sim *s = sim_open(&t, &pol, &h, err, sizeof err);
	CHECK(s && sim_finish(s, &out, err, sizeof err) == 0, "simulate: %s", err);
	const struct toy *toy = c.impl;
	CHECK(toy->decisions > 0 && rec.count == toy->decisions, "decisions %lld, records %lld", toy->decisions, rec.count);
	/* the gate held Spot to the toy's quota */
	CHECK(toy->max_spot == 4, "max running Spot %g", toy->max_spot);
	/* a clone owns its own state */
	pc_controller_clone(&fork, &c);
	CHECK(fork.impl && fork.impl != c.impl && ((struct toy *)fork.impl)->decisions == toy->decisions, "clone");
	pc_controller_release(&fork);

	char path[] = "/tmp/test_family.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	if (fd >= 0)
		close(fd);
	struct nd_writer *w = ndw_open(path, err, sizeof err);
	CHECK(w && pc_controller_write_records(&c, &rec, w, err, sizeof err) == 0 && ndw_close(w, err, sizeof err) == 0, "write: %s", err);
	const char *text = slurp(path);
	char report[80];
	snprintf(report, sizeof report, "{\"type\":\"control_report\",\"decisions\":%lld}\n", toy->decisions);
	CHECK(text && count(text, "\"type\":\"control_decision\"") == (size_t)toy->decisions && strlen(text) >= strlen(report) &&
	      !strcmp(text + strlen(text) - strlen(report), report), "records file:\n%s", text ? text : "(none)");
	unlink(path);

	sim_close(s);
	sim_output_release(&out);
	pc_records_release(&rec);
	pc_controller_release(&c);
	CHECK(c.impl == NULL && c.cfg == NULL, "release zeroes");
	trace_release(&t);
	arena_release(&a);
}

/* The result reader's check of a control_report asks the row of the header's family. */
static void toy_report_checked(void)
{
	static const char hdr_json[] = "{\"controller\":{\"schema_version\":\"" TOY_SCHEMA "\"},\"controller_fingerprint\":\"f\"}";
	/* the blocks every family's report holds; %s: the mean quota, then the family's own keys */
	static const char common[] = "{\"type\":\"control_report\",\"controller_id\":\"toy-4\",\"controller_fingerprint\":\"f\","
		"\"update_count\":3,\"total_runtime_update_count\":3,"
		"\"information_boundary\":{\"forecast_scoring_occurs_after_target_observation\":true},"
		"\"evidence_window_seconds\":{\"start\":0,\"end\":null},\"eta\":{\"initial\":null,\"minimum_observed\":null,\"maximum_observed\":null},"
		"\"spot_quota_gpus\":{\"mean\":%s,\"minimum\":4,\"maximum\":4},"
		"\"forecast_evaluation\":{\"mae_gpus\":null,\"wape\":null,\"mean_error_gpus\":null,\"guarantee_quantile_coverage\":null,\"pinball_loss\":null}%s}";
	static const struct { const char *mean, *own, *toy_why, *builtin_why; } cases[] = {
		{ "4", ",\"toy\":{\"decisions\":3}", NULL, PC_REPORT_WRONG_TYPE },
		{ "4", ",\"toy\":{\"decisions\":-1}", PC_REPORT_WRONG_TYPE, PC_REPORT_WRONG_TYPE },
		{ "4", "", PC_REPORT_MISSING_BLOCK, PC_REPORT_WRONG_TYPE },
		/* a common value of the wrong kind: after the family's missing block, before its wrong kind */
		{ "\"4\"", ",\"toy\":{\"decisions\":3}", PC_REPORT_WRONG_TYPE, PC_REPORT_WRONG_TYPE },
		{ "\"4\"", ",\"toy\":{\"decisions\":-1}", PC_REPORT_WRONG_TYPE, PC_REPORT_WRONG_TYPE },
		{ "\"4\"", "", PC_REPORT_MISSING_BLOCK, PC_REPORT_WRONG_TYPE },
	};
	struct arena a;
	char text[2048], why[200];
	struct json *hdr, *rep;
	arena_init(&a);
	if (json_parse(&a, hdr_json, strlen(hdr_json), &hdr, why, sizeof why)) {
		fprintf(stderr, "toy_report_checked: %s\n", why);
		exit(1);
	}
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, common, cases[i].mean, cases[i].own);
		if (json_parse(&a, text, strlen(text), &rep, why, sizeof why)) {
			fprintf(stderr, "toy_report_checked: %s\n", why);
			exit(1);
		}
		why[0] = 0;
		int rc = pc_report_check_in((const struct pc_family *const *)families, 3, hdr, rep, why, sizeof why);
		CHECK(cases[i].toy_why ? rc == -1 && !strcmp(why, cases[i].toy_why) : rc == 0, "case %zu, toy table: %d '%s'", i, rc, why);
		/* the built-in table reads the toy's header as the aggregate fallback's, whose own values it lacks */
		why[0] = 0;
		rc = pc_report_check_in(pc_families, pc_n_families, hdr, rep, why, sizeof why);
		CHECK(rc == -1 && !strcmp(why, cases[i].builtin_why), "case %zu, built-in table: %d '%s'", i, rc, why);
	}
	arena_release(&a);
}

/* The tools' --controller help and reads: line come from the table: every row's schema
 * and name, the fallback's first. */
static void help_from_table(void)
{
	struct strbuf sb;
	sb_init(&sb);
	pc_families_help(&sb, "-c, --controller FILE", " (required)");
	CHECK(!strcmp(sb.buf, "  -c, --controller FILE  schednav.predictive-controller/v1 (aggregate) or\n"
			      "                         schednav.tenant-predictive-controller/1 (tenant) JSON file (required)\n"),
	      "help: '%s'", sb.buf);
	sb_reset(&sb);
	pc_families_reads(&sb);
	CHECK(!strcmp(sb.buf, "schednav.predictive-controller/v1, schednav.tenant-predictive-controller/1"), "reads: '%s'", sb.buf);
	sb_release(&sb);
}

int main(void)
{
	set_progname("test_family");
	if (pc_n_families != 2) {
		fprintf(stderr, "test_family: the table has %zu built-in families, the test expects 2\n", pc_n_families);
		return 1;
	}
	register_toy();
	toy_family_runs();
	toy_report_checked();
	help_from_table();
	printf("test_family: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
