#include "eval/evidence.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ev_catalogue[] = {
	"allocation_rate_mean", "allocated_gpu_seconds", "warmup_allocated_gpu_seconds",
	"evaluation_allocated_gpu_seconds", "drain_allocated_gpu_seconds",
	"hp_job_count", "hp_completed_count", "hp_completion_rate",
	"hp_jct_mean_seconds", "hp_jct_p50_seconds", "hp_jct_p95_seconds",
	"hp_queue_mean_seconds", "hp_queue_p50_seconds", "hp_queue_p95_seconds",
	"hp_preemption_count", "hp_preempted_job_count",
	"spot_job_count", "spot_completed_count", "spot_completion_rate",
	"spot_jct_mean_seconds", "spot_jct_p50_seconds", "spot_jct_p95_seconds",
	"spot_queue_mean_seconds", "spot_queue_p50_seconds", "spot_queue_p95_seconds",
	"spot_preemption_count", "spot_preempted_job_count", "spot_preempted_job_rate",
	"spot_run_count", "spot_eviction_rate_per_run", "preemption_event_count",
	"preemption_added_gpu_seconds", "preemption_rollback_seconds", "preemption_overhead_seconds",
	"spot_guarantee_success_rate", "spot_guarantee_succeeded_count", "spot_guarantee_failed_count",
	NULL
};

const char *const ev_action_keys[] = {
	"action_id", "scheduler", "spot_guarantee_seconds", "checkpoint_interval_seconds",
	"hp_preemption_delay_seconds", "spot_eviction_budget_rate", "preemption_victim_strategy", NULL
};

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

bool ev_is_catalogue(const char *name) { return in_list(ev_catalogue, name); }
bool ev_is_action_key(const char *name) { return in_list(ev_action_keys, name); }

bool ev_is_control_key(const char *name)
{
	size_t n = strlen(name), m = strlen("_control");
	return n > m && !strcmp(name + n - m, "_control");
}

/* Value kinds of the non-catalogue keys of the metrics record (docs/evaluation.md §4 "The flat record"). */
enum vk { VK_STR, VK_INT, VK_NUM, VK_NUM_NULL, VK_OBJ, VK_ANY, VK_BOOL, VK_FP };
static const struct { const char *key; enum vk kind; } metrics_keys[] = {
	{ "type", VK_STR },
	{ "action_id", VK_STR }, { "scheduler", VK_STR }, { "spot_guarantee_seconds", VK_INT },
	{ "checkpoint_interval_seconds", VK_INT }, { "policy_preemption_overhead_seconds", VK_INT },
	{ "hp_preemption_delay_seconds", VK_INT }, { "spot_eviction_budget_rate", VK_NUM_NULL },
	{ "preemption_victim_strategy", VK_STR }, { "placement_strategy", VK_STR },
	{ "policy", VK_OBJ }, { "policy_fingerprint", VK_FP },
	{ "trace_id", VK_STR }, { "trace_fingerprint", VK_STR }, { "dataset", VK_STR },
	{ "source", VK_ANY }, { "engine", VK_OBJ }, { "evaluation_start", VK_NUM },
	{ "evaluation_end", VK_NUM }, { "result_fingerprint", VK_STR }, { "node_count", VK_INT },
	{ "capacity_gpus", VK_NUM }, { "simulation_start", VK_NUM_NULL }, { "simulation_end", VK_NUM_NULL },
	{ "hp_preempted_job_rate", VK_NUM_NULL }, { "preempted_job_count", VK_NUM_NULL },
	{ "preemption_events_during_evaluation_window", VK_NUM_NULL },
	{ "preemption_events_during_drain", VK_NUM_NULL },
	{ "spot_runs_during_evaluation_window", VK_NUM_NULL }, { "spot_runs_during_drain", VK_NUM_NULL },
	{ "preemption_ledger_consistent", VK_BOOL }, { "spot_run_ledger_consistent", VK_BOOL },
	{ "spot_guarantee_ledger_consistent", VK_BOOL },
};
#define NMETRICS_KEYS (sizeof metrics_keys / sizeof *metrics_keys)

static bool kind_ok(const struct json *v, enum vk k)
{
	switch (k) {
	case VK_STR: return v->kind == JSON_STRING;
	case VK_INT: return v->kind == JSON_INT;
	case VK_NUM: return json_is_num(v);
	case VK_NUM_NULL: return json_is_num(v) || v->kind == JSON_NULL;
	case VK_OBJ: return v->kind == JSON_OBJECT;
	case VK_BOOL: return v->kind == JSON_TRUE || v->kind == JSON_FALSE;
	case VK_FP: return v->kind == JSON_STRING && v->u.str.len == 32 && fp_is_hex(v->u.str.s, 32);
	case VK_ANY: return true;
	}
	return false;
}

static const char *kind_word(enum vk k)
{
	static const char *w[] = { "a string", "an integer", "a number", "a number or null", "an object", "any", "a boolean", "a 32-hex fingerprint" };
	return w[k];
}

int ev_metrics_check(const struct json *rec, char *err, size_t errlen)
{
	for (size_t i = 0; i < rec->u.obj.n; i++) {
		const char *k = rec->u.obj.keys[i];
		/* the optional keys: a controller family's summary, NAME_control, an object whose
		 * inside the family that wrote it checks (docs/evaluation.md §4), and issue 36's
		 * placement block (a physical placement_strategy), checked by lib/sim/result_placement.c */
		if (ev_is_control_key(k) || !strcmp(k, "placement")) {
			if (rec->u.obj.vals[i]->kind != JSON_OBJECT) {
				snprintf(err, errlen, "metrics record: '%s' must be an object", k);
				return -1;
			}
			continue;
		}
		bool known = ev_is_catalogue(k);
		for (size_t j = 0; !known && j < NMETRICS_KEYS; j++)
			known = !strcmp(metrics_keys[j].key, k);
		if (!known) {
			snprintf(err, errlen, "metrics record: unknown key '%s'", k);
			return -1;
		}
	}
	for (size_t j = 0; j < NMETRICS_KEYS; j++) {
		struct json *v = json_get(rec, metrics_keys[j].key);
		if (!v) {
			snprintf(err, errlen, "metrics record: missing key '%s'", metrics_keys[j].key);
			return -1;
		}
		if (!kind_ok(v, metrics_keys[j].kind)) {
			snprintf(err, errlen, "metrics record: '%s' must be %s, not %s", metrics_keys[j].key,
			         kind_word(metrics_keys[j].kind), json_kind_name(v->kind));
			return -1;
		}
	}
	for (const char *const *c = ev_catalogue; *c; c++) {
		struct json *v = json_get(rec, *c);
		if (!v) {
			snprintf(err, errlen, "metrics record: missing key '%s'", *c);
			return -1;
		}
		if (!json_is_num(v) && v->kind != JSON_NULL) {
			snprintf(err, errlen, "metrics record: '%s' must be a number or null, not %s", *c, json_kind_name(v->kind));
			return -1;
		}
	}
	if (ev_check_id(rec, "action_id", err, errlen) || ev_check_id(rec, "trace_id", err, errlen))
		return -1;
	char fp[FP_HEX_XXH3];
	ev_sorted_fp(json_get(rec, "policy"), fp);
	if (strcmp(fp, json_get_str(rec, "policy_fingerprint"))) {
		snprintf(err, errlen, "metrics record: 'policy_fingerprint' '%s' does not match its 'policy' (%s)", json_get_str(rec, "policy_fingerprint"), fp);
		return -1;
	}
	return 0;
}

int ev_check_id(const struct json *rec, const char *key, char *err, size_t errlen)
{
	const struct json *v = json_get(rec, key);
	if (!v || v->kind != JSON_STRING) {
		snprintf(err, errlen, "%s record: '%s' must be a string", json_get_str(rec, "type") ? json_get_str(rec, "type") : "a", key);
		return -1;
	}
	const char *why = text_id_problem(v->u.str.s, v->u.str.len);
	if (!why)
		return 0;
	char q[100];
	text_quote(q, sizeof q, v->u.str.s, v->u.str.len);
	snprintf(err, errlen, "%s record: '%s' '%s' %s", json_get_str(rec, "type") ? json_get_str(rec, "type") : "a", key, q, why);
	return -1;
}

void ev_input_init(struct ev_input *in)
{
	memset(in, 0, sizeof *in);
}

void ev_input_release(struct ev_input *in)
{
	free(in->items);
	free(in->streams);
	memset(in, 0, sizeof *in);
}

static const char *expected_type(const char *schema, int *exactly_one)
{
	*exactly_one = 1;
	if (!strcmp(schema, EV_METRICS_SCHEMA))
		return "metrics";
	if (!strcmp(schema, EV_RANKING_SCHEMA))
		return "ranking";
	*exactly_one = 0;
	if (!strcmp(schema, EV_AUDIT_SCHEMA))
		return "audit";
	return NULL;
}

int ev_read(struct ev_input *in, const char *path, const char *const *schemas, struct arena *a, char *err, size_t errlen)
{
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -1;
	const char *schema = NULL, *want = NULL;
	int exactly_one = 0;
	size_t first = in->n;
	const char *name = arena_strndup(a, ndr_name(r), strlen(ndr_name(r)));
	int rc = 0;
	for (;;) {
		struct json *rec;
		enum nd_event ev = ndr_next(r, a, &rec, err, errlen);
		if (ev == ND_ERROR) {
			rc = -1;
			break;
		}
		if (ev == ND_EOF)
			break;
		if (ev == ND_HEADER) {
			const char *s = json_get_str(rec, "schema");
			if (!in_list(schemas, s)) {
				ndr_errorf(r, err, errlen, "unexpected stream schema '%s'", s);
				rc = -1;
				break;
			}
			schema = arena_strndup(a, s, strlen(s));
			want = expected_type(schema, &exactly_one);
			first = in->n;
			continue;
		}
		if (ev == ND_END) {
			size_t count = in->n - first;
			if (exactly_one && count != 1) {
				ndr_errorf(r, err, errlen, "a '%s' stream must hold exactly one '%s' record, this one holds %zu", schema, want, count);
				rc = -1;
				break;
			}
			for (size_t i = first; i < in->n; i++) {
				memcpy(in->items[i].stream_fp, ndr_fingerprint(r), 33);
				in->items[i].stream_records = (unsigned)count;
			}
			in->streams = xgrow(in->streams, &in->scap, in->nstreams + 1, sizeof *in->streams);
			struct ev_stream *st = &in->streams[in->nstreams++];
			st->path = name;
			st->schema = schema;
			memcpy(st->fp, ndr_fingerprint(r), 33);
			continue;
		}
		const char *type = json_get_str(rec, "type");
		if (want && strcmp(type, want)) {
			ndr_errorf(r, err, errlen, "unexpected '%s' record in a '%s' stream", type, schema);
			rc = -1;
			break;
		}
		in->items = xgrow(in->items, &in->cap, in->n + 1, sizeof *in->items);
		struct ev_item *it = &in->items[in->n++];
		memset(it, 0, sizeof *it);
		it->rec = rec;
		it->type = type;
		it->schema = schema;
		it->path = name;
		it->line = ndr_lineno(r);
	}
	ndr_close(r);
	return rc;
}

const char *ev_where(const struct ev_item *it)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%s:%lu", it->path, it->line);
	return buf;
}

static void write_without(struct strbuf *sb, const struct json *rec, const char *key)
{
	/* Same bytes json_write would give for rec minus key. */
	struct json tmp = *rec;
	size_t n = 0;
	char **keys = xcalloc(rec->u.obj.n, sizeof *keys);
	struct json **vals = xcalloc(rec->u.obj.n, sizeof *vals);
	for (size_t i = 0; i < rec->u.obj.n; i++)
		if (strcmp(rec->u.obj.keys[i], key)) {
			keys[n] = rec->u.obj.keys[i];
			vals[n++] = rec->u.obj.vals[i];
		}
	tmp.u.obj.keys = keys;
	tmp.u.obj.vals = vals;
	tmp.u.obj.n = n;
	tmp.u.obj.cap = n;
	json_write(sb, &tmp);
	free(keys);
	free(vals);
}

void ev_self_fp(const struct json *rec, const char *key, char out[FP_HEX_XXH3])
{
	struct strbuf sb;
	sb_init(&sb);
	write_without(&sb, rec, key);
	fp_xxh3_of(sb.buf, sb.len, out);
	sb_release(&sb);
}

bool ev_self_fp_ok(const struct json *rec, const char *key)
{
	const char *have = json_get_str(rec, key);
	if (!have)
		return false;
	char fp[FP_HEX_XXH3];
	ev_self_fp(rec, key, fp);
	return !strcmp(fp, have);
}

void ev_self_fp_stamp(struct arena *a, struct json *rec, const char *key)
{
	char fp[FP_HEX_XXH3];
	ev_self_fp(rec, key, fp);
	json_set(a, rec, key, json_str(a, fp));
}

void ev_sorted_fp(const struct json *v, char out[FP_HEX_XXH3])
{
	struct strbuf sb;
	sb_init(&sb);
	json_write_sorted(&sb, v);
	fp_xxh3_of(sb.buf, sb.len, out);
	sb_release(&sb);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

struct json *ev_stats9(struct arena *a, const double *v, size_t n)
{
	if (!n)
		return json_null(a);
	double sum = 0.0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double *s = xmalloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
	struct json *o = json_object(a);
	json_set(a, o, "mean", json_real(a, num_round(sum / (double)n, 9)));
	json_set(a, o, "median", json_real(a, num_round(median, 9)));
	json_set(a, o, "min", json_real(a, num_round(s[0], 9)));
	json_set(a, o, "max", json_real(a, num_round(s[n - 1], 9)));
	free(s);
	return o;
}
