/* compare — neutral comparison of 2 metrics records (a `comparison` record) or of 3 to 5
 * (a `portfolio` record): comparability checks and per-metric values, never a winner
 * (docs/evaluation.md §6 "Compare"). */
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "eval/evidence.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "compare [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read 2 to 5 metrics records (metrics streams from FILEs or stdin) and write one\n"
	"schednav.comparison/1 stream: for 2 records a `comparison` record (comparability\n"
	"checks and neutral deltas right - left for every catalogue metric), for 3 to 5 a\n"
	"`portfolio` record (pairwise comparability and each metric's values per action).\n"
	"No ranking, no winner: that is rank(1)'s job under a declared SLO.\n";

static const char schemas[] = "reads: " EV_METRICS_SCHEMA "\nwrites: " EV_COMPARISON_SCHEMA "\n";

static const char comparison_definition[] =
	"comparable is the AND of every check; right_minus_left = round(right - left, 6) and "
	"relative_to_left = round(right_minus_left / left, 6) when left is not 0; null when either "
	"value is null; the deltas are neutral facts, not a ranking";
static const char portfolio_definition[] =
	"comparable is true when the actions are unique and every pair is comparable; pairs compare "
	"with exact canonical equality (an int differs from a float); values are listed per action "
	"in input order; no ranking";

typedef bool equal_fn(const struct json *, const struct json *);

static bool eq_key(equal_fn *eq, const struct json *x, const struct json *y, const char *key)
{
	struct json *a = json_get(x, key), *b = json_get(y, key);
	return a && b && eq(a, b);
}

static bool nonempty(const struct json *v)
{
	switch (v->kind) {
	case JSON_NULL: return false;
	case JSON_STRING: return v->u.str.len > 0;
	case JSON_OBJECT: return v->u.obj.n > 0;
	case JSON_ARRAY: return v->u.arr.n > 0;
	default: return true;
	}
}

static bool complete(const struct json *m)
{
	static const char *const k[][2] = { { "hp_completed_count", "hp_job_count" }, { "spot_completed_count", "spot_job_count" } };
	for (int i = 0; i < 2; i++) {
		struct json *done = json_get(m, k[i][0]), *all = json_get(m, k[i][1]);
		if (!json_is_num(done) || !json_is_num(all) || !json_equal(done, all))
			return false;
	}
	return true;
}

static bool ledgers(const struct json *m)
{
	static const char *const k[] = { "preemption_ledger_consistent", "spot_run_ledger_consistent", "spot_guarantee_ledger_consistent" };
	for (int i = 0; i < 3; i++)
		if (json_get(m, k[i])->kind != JSON_TRUE)
			return false;
	return true;
}

/* ACTION keys of the canonical policy, null when absent. */
static struct json *action_of(struct arena *a, const struct json *m)
{
	struct json *pol = json_get(m, "policy"), *o = json_object(a);
	for (const char *const *k = ev_action_keys; *k; k++) {
		struct json *v = json_get(pol, *k);
		json_set(a, o, *k, v ? json_clone(a, v) : json_null(a));
	}
	return o;
}

/* The policy's other keys: the execution controls that must be equal. */
static struct json *controls_of(struct arena *a, const struct json *m)
{
	struct json *pol = json_get(m, "policy"), *o = json_object(a);
	for (size_t i = 0; i < pol->u.obj.n; i++)
		if (!ev_is_action_key(pol->u.obj.keys[i]))
			json_set(a, o, pol->u.obj.keys[i], pol->u.obj.vals[i]);
	return o;
}

static struct json *pair_checks(struct arena *a, equal_fn *eq, const struct ev_item *l, const struct ev_item *r, bool *comparable)
{
	const struct json *x = l->rec, *y = r->rec;
	struct { const char *name; bool v; } c[] = {
		{ "metrics_schema_supported_and_equal", !strcmp(l->schema, r->schema) && !strcmp(l->schema, EV_METRICS_SCHEMA) },
		{ "metrics_fingerprints_valid", true }, /* ev_read verified both streams' end fingerprints */
		{ "source_equal_and_nonempty", eq_key(eq, x, y, "source") && nonempty(json_get(x, "source")) },
		{ "trace_id_equal", eq_key(eq, x, y, "trace_id") },
		{ "window_equal", eq_key(eq, x, y, "evaluation_start") && eq_key(eq, x, y, "evaluation_end") },
		{ "population_equal", eq_key(eq, x, y, "hp_job_count") && eq_key(eq, x, y, "spot_job_count") },
		{ "both_complete", complete(x) && complete(y) },
		{ "ledgers_available_and_consistent", ledgers(x) && ledgers(y) },
		{ "actions_distinct", !eq(action_of(a, x), action_of(a, y)) },
		{ "execution_controls_equal", eq(controls_of(a, x), controls_of(a, y)) },
	};
	struct json *o = json_object(a);
	*comparable = true;
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		json_set(a, o, c[i].name, json_bool(a, c[i].v));
		*comparable = *comparable && c[i].v;
	}
	return o;
}

static struct json *member(struct arena *a, const struct ev_item *it)
{
	struct json *o = json_object(a);
	json_set(a, o, "action_id", json_clone(a, json_get(it->rec, "action_id")));
	json_set(a, o, "policy_fingerprint", json_clone(a, json_get(it->rec, "policy_fingerprint")));
	json_set(a, o, "metrics_fingerprint", json_str(a, it->stream_fp));
	json_set(a, o, "action", action_of(a, it->rec));
	return o;
}

static void delta(struct arena *a, struct json *o, const struct json *l, const struct json *r)
{
	if (l->kind == JSON_NULL || r->kind == JSON_NULL) {
		json_set(a, o, "right_minus_left", json_null(a));
		json_set(a, o, "relative_to_left", json_null(a));
		return;
	}
	double diff, left = json_num(l);
	if (l->kind == JSON_INT && r->kind == JSON_INT) {
		long long d = r->u.i - l->u.i;   /* counts: Python round(int, 6) stays an int */
		json_set(a, o, "right_minus_left", json_int(a, d));
		diff = (double)d;
	} else {
		diff = num_round(json_num(r) - left, 6);
		json_set(a, o, "right_minus_left", json_real(a, diff));
	}
	json_set(a, o, "relative_to_left", left != 0.0 ? json_real(a, num_round(diff / left, 6)) : json_null(a));
}

static struct json *comparison(struct arena *a, const struct ev_item *l, const struct ev_item *r)
{
	bool comparable;
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "comparison"));
	json_set(a, rec, "left", member(a, l));
	json_set(a, rec, "right", member(a, r));
	json_set(a, rec, "checks", pair_checks(a, json_equal, l, r, &comparable));
	json_set(a, rec, "comparable", json_bool(a, comparable));
	struct json *deltas = json_array(a);
	for (const char *const *m = ev_catalogue; *m; m++) {
		struct json *o = json_object(a), *lv = json_get(l->rec, *m), *rv = json_get(r->rec, *m);
		json_set(a, o, "metric", json_str(a, *m));
		json_set(a, o, "left", json_clone(a, lv));
		json_set(a, o, "right", json_clone(a, rv));
		delta(a, o, lv, rv);
		json_push(a, deltas, o);
	}
	json_set(a, rec, "deltas", deltas);
	json_set(a, rec, "definition", json_str(a, comparison_definition));
	ev_self_fp_stamp(a, rec, "comparison_fingerprint");
	return rec;
}

static struct json *portfolio(struct arena *a, const struct ev_input *in)
{
	struct json *rec = json_object(a), *members = json_array(a), *pairs = json_array(a);
	bool unique = true, all = true;
	for (size_t i = 0; i < in->n; i++) {
		json_push(a, members, member(a, &in->items[i]));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(json_get_str(in->items[i].rec, "action_id"), json_get_str(in->items[j].rec, "action_id")))
				unique = false;
	}
	for (size_t i = 0; i < in->n; i++)
		for (size_t j = i + 1; j < in->n; j++) {
			bool ok;
			struct json *p = json_object(a);
			json_set(a, p, "left_action_id", json_clone(a, json_get(in->items[i].rec, "action_id")));
			json_set(a, p, "right_action_id", json_clone(a, json_get(in->items[j].rec, "action_id")));
			json_set(a, p, "checks", pair_checks(a, json_identical, &in->items[i], &in->items[j], &ok));
			json_set(a, p, "comparable", json_bool(a, ok));
			json_push(a, pairs, p);
			all = all && ok;
		}
	struct json *metrics = json_array(a);
	for (const char *const *m = ev_catalogue; *m; m++) {
		struct json *o = json_object(a), *vals = json_array(a);
		for (size_t i = 0; i < in->n; i++)
			json_push(a, vals, json_clone(a, json_get(in->items[i].rec, *m)));
		json_set(a, o, "metric", json_str(a, *m));
		json_set(a, o, "values", vals);
		json_push(a, metrics, o);
	}
	json_set(a, rec, "type", json_str(a, "portfolio"));
	json_set(a, rec, "members", members);
	json_set(a, rec, "actions_unique", json_bool(a, unique));
	json_set(a, rec, "pairs", pairs);
	json_set(a, rec, "comparable", json_bool(a, unique && all));
	json_set(a, rec, "metrics", metrics);
	json_set(a, rec, "definition", json_str(a, portfolio_definition));
	ev_self_fp_stamp(a, rec, "portfolio_fingerprint");
	return rec;
}

static const char *const metrics_only[] = { EV_METRICS_SCHEMA, NULL };

int main(int argc, char **argv)
{
	static const struct option opts[] = { CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 } };
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", opts, NULL)) != -1)
		cli_option(&cli, c, argv);
	cli_operands(&cli, argc, argv, 0);
	const char *output = cli.output;
	struct arena a;
	arena_init(&a);
	char err[1024];
	struct ev_input in;
	ev_input_init(&in);
	for (size_t i = 0; i < cli.ninputs; i++)
		if (ev_read_verified(&in, cli.inputs[i], metrics_only, NULL, &a, err, sizeof err))
			die("%s", err);
	if (in.n < 2 || in.n > 5)
		die("%zu metrics records in input; compare takes 2 to 5", in.n);
	struct json *rec = in.n == 2 ? comparison(&a, &in.items[0], &in.items[1]) : portfolio(&a, &in);
	struct json *hdr = nd_header_new(&a, EV_COMPARISON_SCHEMA, "compare");
	for (size_t i = 0; i < in.nstreams; i++)
		nd_header_add_stream(&a, hdr, in.streams[i].path, in.streams[i].schema, in.streams[i].fp);
	if (ndw_write_one(output, hdr, rec, err, sizeof err))
		die("%s", err);
	ev_input_release(&in);
	arena_release(&a);
	cli_release(&cli);
	return 0;
}
