/* plan-check — collect agent decisions, their stage outputs and receipts into a checked
 * rolling-agent-plan/v1 or an adaptive controller-selections/v1 (docs/agents.md "Agent plans"):
 * the task meta must match, exactly one stage must hash to its receipt, the Strategist's ids
 * and reason must equal the decision, a masked Analyst must equal the mask, and no stage may
 * be reused. Every violation stops with its own message. */
#include "core/cli.h"
#include "agents/manifest.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/adaptive.h"
#include "eval/evidence.h"
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"plan-check --rolling|--adaptive --mode MODE --controller-id ID --project ID --tasks DIR --action-space FILE\n"
	"[--windows FILE] [--model ID] [--required-action ID] [--framework NAME] [--require-isolation] [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read agent_decision records (schednav.agent-decisions/1 streams from FILEs or stdin),\n"
	"verify each decision's stage receipts against the task directories under DIR, and\n"
	"write one schednav.agent-plan/1 stream: a rolling_agent_plan (--rolling) or a\n"
	"controller_selections record (--adaptive).\n"
	"\n"
	"  --rolling               rolling decisions: exactly 3 candidates including the required action\n"
	"  --adaptive              adaptive selections: 3-5 candidates including the safety action,\n"
	"                          every window of --windows exactly once\n"
	"  --mode MODE             single_agent, multi_agent or multi_agent_masked\n"
	"  --controller-id ID      the plan's controller id\n"
	"  --project ID            the agent project every task meta must name\n"
	"  --tasks DIR             task directories DIR/TASK_ID/{meta.json,stage-*.json}\n"
	"  --action-space FILE     the declared action space (configs/action_spaces/)\n"
	"  --windows FILE          (adaptive) a windows stream: its window ids are the evaluation windows\n"
	"  --model ID              the model every stage must name (default deepseek-v4-flash)\n"
	"  --required-action ID    the safety action (default: the action space's safety action)\n"
	"  --framework NAME        the plan source's framework (default AgentTeams)\n"
	"  --require-isolation     every task needs a verified context-isolation.json\n";

#define DECISIONS_SCHEMA "schednav.agent-decisions/1"
#define ISOLATION_V1_SCHEMA "schednav.agentteams-context-isolation/1"
#define ISOLATION_V2_SCHEMA "schednav.agentteams-context-isolation/2"
#define ROLLING_PLAN_SCHEMA "schednav.rolling-agent-plan/v1"
#define STAGE_SCHEMA "schednav.agent-stage-output/v1"
#define ANALYST "Workload Analyst"
#define STRATEGIST "Scheduling Strategist"
#define MAX_DOC (1024 * 1024)

struct opts {
	bool rolling, adaptive, require_isolation;
	const char *mode, *controller, *project, *tasks, *action_space, *windows, *model, *required, *framework, *output;
};

struct used { char task[160]; char sha[65]; };

static struct arena A;               /* everything lives until exit */
static struct used *used;            /* (task, stage sha) already consumed */
static size_t n_used, cap_used;
static struct json *anomalies;       /* task ids whose meta.json ends in a literal \n */

/* PATH_MAX buffer "a/b[/c]"; a path that does not fit is an error, never a truncation. */
static void join(char out[PATH_MAX], const char *a, const char *b, const char *c)
{
	int n = c ? snprintf(out, PATH_MAX, "%s/%s/%s", a, b, c) : snprintf(out, PATH_MAX, "%s/%s", a, b);
	if (n < 0 || n >= PATH_MAX)
		die("path under '%s' is too long", a);
}

/* Read a whole JSON file (at most 1 MiB). raw/len get the bytes when not NULL. */
static struct json *read_doc(const char *path, char **raw, size_t *len)
{
	char err[1024], *buf;
	size_t n;
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		die("'%s' is missing or not a regular file", path);
	if (st.st_size > MAX_DOC)
		die("'%s' is larger than 1 MiB", path);
	if (zio_slurp(path, &buf, &n, err, sizeof err))
		die("%s", err);
	struct json *v;
	if (json_parse(&A, buf, n, &v, err, sizeof err) || v->kind != JSON_OBJECT)
		die("%s: not a JSON object (%s)", path, err);
	if (raw) {
		*raw = buf;
		*len = n;
	} else
		free(buf);
	return v;
}

static bool str_is(const struct json *o, const char *key, const char *want)
{
	const char *s = json_get_str(o, key);
	return s && !strcmp(s, want);
}

static bool in_array(const struct json *arr, const char *s)
{
	for (size_t i = 0; arr && i < arr->u.arr.n; i++)
		if (arr->u.arr.items[i]->kind == JSON_STRING && !strcmp(arr->u.arr.items[i]->u.str.s, s))
			return true;
	return false;
}

/* The original tolerates one known export defect: a meta.json ending in the two characters
 * '\' 'n'. It is read without them and listed in source_anomalies, never rewritten. */
static struct json *read_meta(const char *dir, const char *task)
{
	char path[PATH_MAX], err[512], *buf;
	size_t n;
	join(path, dir, task, "meta.json");
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		die("task '%s': no meta.json in %s/%s", task, dir, task);
	if (zio_slurp(path, &buf, &n, err, sizeof err))
		die("%s", err);
	struct json *v;
	if (json_parse(&A, buf, n, &v, err, sizeof err)) {
		if (n < 2 || buf[n - 2] != '\\' || buf[n - 1] != 'n' || json_parse(&A, buf, n - 2, &v, err, sizeof err))
			die("%s: %s", path, err);
		if (!in_array(anomalies, task))
			json_push(&A, anomalies, json_str(&A, task));
	}
	free(buf);
	if (v->kind != JSON_OBJECT)
		die("%s: not a JSON object", path);
	return v;
}

static bool iso_utc(const char *s)
{
	if (!s || strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
		return false;
	for (int i = 0; i < 19; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
			return false;
	return true;
}

/* context-isolation.json (v1: a reused room cleared with /clear; v2: a fresh verified-empty room). */
static void check_isolation(const struct opts *o, const char *task, const struct json *meta, const struct json *receipt,
			    const char *observation)
{
	char path[PATH_MAX];
	join(path, o->tasks, task, "context-isolation.json");
	struct stat st;
	if (stat(path, &st)) {
		if (o->require_isolation)
			die("task '%s': no context-isolation.json", task);
		return;
	}
	struct json *iso = read_doc(path, NULL, NULL);
	const char *schema = json_get_str(iso, "schema_version");
	bool v1 = nd_schema_is(schema, ISOLATION_V1_SCHEMA);
	bool v2 = nd_schema_is(schema, ISOLATION_V2_SCHEMA);
	char sha[65];
	struct strbuf sb;
	sb_init(&sb);
	struct json *copy = json_object(&A);
	for (size_t i = 0; i < iso->u.obj.n; i++)
		if (strcmp(iso->u.obj.keys[i], "receipt_fingerprint"))
			json_set(&A, copy, iso->u.obj.keys[i], iso->u.obj.vals[i]);
	json_write_sorted(&sb, copy);
	fp_sha256_of(sb.buf, sb.len, sha);
	sb_release(&sb);
	if ((!v1 && !v2) || !str_is(iso, "receipt_fingerprint", sha))
		die("task '%s': context-isolation.json is not a verified v1/v2 receipt", task);
	const char *private_room = json_get_str(iso, "worker_private_room_id"), *project_room = json_get_str(iso, "project_room_id");
	struct json *verified = json_get(iso, "assignment_context_verified"), *cross = json_get(iso, "cross_window_context_visible");
	if (!str_is(iso, "project_id", o->project) || !str_is(iso, "task_id", task) ||
	    !str_is(iso, "worker_id", json_get_str(receipt, "worker_id")) || !str_is(iso, "scope", "one-controller-one-observation") ||
	    !str_is(iso, "observation_fingerprint", observation) || !verified || verified->kind != JSON_TRUE || !cross ||
	    cross->kind != JSON_FALSE || !private_room || !str_is(meta, "room_id", private_room) || !project_room ||
	    !strcmp(private_room, project_room))
		die("task '%s': context isolation is not verified (project, task, worker, scope, observation, rooms)", task);
	const char *ready;
	if (v1) {
		struct json *ack = json_get(iso, "clear_acknowledged");
		if (!str_is(iso, "clear_command", "/clear") || !ack || ack->kind != JSON_TRUE ||
		    !str_is(iso, "assignment_context_evidence", "worker-log-handle-agent-query"))
			die("task '%s': the reused room was not verifiably cleared", task);
		ready = json_get_str(iso, "clear_acknowledged_at");
	} else {
		struct json *fresh = json_get(iso, "fresh_room_created_for_task");
		if (!str_is(iso, "isolation_method", "fresh-private-room-single-assignment") || !fresh || fresh->kind != JSON_TRUE ||
		    !str_is(iso, "assignment_context_evidence", "fresh-private-room-single-assignment"))
			die("task '%s': the room is not a verified fresh private room", task);
		ready = json_get_str(iso, "fresh_room_verified_at");
	}
	const char *dispatched = json_get_str(iso, "assignment_dispatched_at");
	if (!iso_utc(ready) || !iso_utc(dispatched))
		die("task '%s': isolation timestamps must be YYYY-MM-DDTHH:MM:SSZ", task);
	if (strcmp(dispatched, ready) < 0)
		die("task '%s': the assignment was dispatched before the room was %s", task, v1 ? "cleared" : "verified");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The one stage output of TASK matching the receipt; its path and bytes' SHA-256. */
static struct json *matching_stage(const struct opts *o, const char *task, const struct json *receipt, const char *observation,
				   char path_out[PATH_MAX], char sha_out[65])
{
	char dir[PATH_MAX];
	join(dir, o->tasks, task, NULL);
	DIR *d = opendir(dir);
	if (!d)
		die("task '%s': no task directory %s", task, dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (!strncmp(e->d_name, "stage-", 6) && len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			names = xgrow(names, &cap, n + 1, sizeof *names);
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);   /* readdir order is not deterministic */
	size_t found = 0;
	struct json *match = NULL;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], *raw;
		size_t len;
		join(path, dir, names[i], NULL);
		struct json *s = read_doc(path, &raw, &len);
		if (str_is(s, "schema_version", STAGE_SCHEMA) && str_is(s, "observation_fingerprint", observation) &&
		    str_is(s, "role", json_get_str(receipt, "role")) && str_is(s, "worker_id", json_get_str(receipt, "worker_id")) &&
		    str_is(s, "task_id", task) && str_is(s, "model_id", o->model)) {
			found++;
			match = s;
			snprintf(path_out, PATH_MAX, "%s", path);
			fp_sha256_of(raw, len, sha_out);
		}
		free(raw);
		free(names[i]);
	}
	free(names);
	if (found != 1)
		die("task '%s': expected one stage output matching the receipt (schema, observation, role, worker, task, model '%s'), found %zu",
		    task, o->model, found);
	return match;
}

static void check_stage_shape(const char *path, const struct json *s, bool analyst)
{
	static const char *const analyst_keys[] = { "schema_version", "observation_fingerprint", "role", "worker_id", "task_id",
						    "model_id", "analysis", NULL };
	static const char *const strategist_keys[] = { "schema_version", "observation_fingerprint", "role", "worker_id", "task_id",
						       "model_id", "candidate_action_ids", "reason_code", NULL };
	char err[256];
	if ((analyst ? nd_check_keys(s, ND_KEYS(analyst_keys), err, sizeof err) : nd_check_keys(s, ND_KEYS(strategist_keys), err, sizeof err)))
		die("%s: %s", path, err);
	struct json *v = json_get(s, analyst ? "analysis" : "candidate_action_ids");
	if (!v || v->kind != (analyst ? JSON_OBJECT : JSON_ARRAY) || (!analyst && !json_get_str(s, "reason_code")))
		die("%s: a %s stage needs %s", path, analyst ? ANALYST : STRATEGIST, analyst ? "an analysis object" : "candidate_action_ids and reason_code");
}

/* PATH:LINE of the agent_decision record being checked, for its messages. */
static char where[PATH_MAX + 32];

static void check_receipt(const struct opts *o, const struct json *receipt, const struct json *decision, unsigned long k,
			  const char *observation)
{
	static const char *const keys[] = { "role", "worker_id", "task_id", "output_fingerprint", NULL };
	char err[256];
	if (receipt->kind != JSON_OBJECT || nd_check_keys(receipt, ND_KEYS(keys), err, sizeof err))
		die("%s: decision %lu: a receipt is {role, worker_id, task_id, output_fingerprint}", where, k);
	const char *role = json_get_str(receipt, "role"), *worker = json_get_str(receipt, "worker_id"), *task = json_get_str(receipt, "task_id");
	const char *fp = json_get_str(receipt, "output_fingerprint");
	bool analyst = role && !strcmp(role, ANALYST);
	if (!role || (!analyst && strcmp(role, STRATEGIST)))
		die("%s: decision %lu: receipt role '%s' is neither '" ANALYST "' nor '" STRATEGIST "'", where, k, role ? role : "");
	if (!worker || strcmp(worker, analyst ? "workload-analyst" : "scheduling-strategist"))
		die("%s: decision %lu: the %s receipt names worker '%s'", where, k, role, worker ? worker : "");
	if (!task || !*task || strchr(task, '/') || !strcmp(task, ".") || !strcmp(task, "..") || strlen(task) >= sizeof used->task)
		die("%s: decision %lu: receipt task id '%s' is not a task directory name", where, k, task ? task : "");
	if (!fp || strlen(fp) != 64 || !fp_is_hex(fp, 64))
		die("%s: decision %lu: receipt output_fingerprint must be a SHA-256 (64 hex)", where, k);
	struct json *meta = read_meta(o->tasks, task);
	static const char *const statuses[] = { "submitted", "completed", NULL };
	const char *field = !str_is(meta, "task_id", task) ? "task_id" : !str_is(meta, "project_id", o->project) ? "project_id" :
			    !str_is(meta, "assigned_to", worker) ? "assigned_to" : NULL;
	if (!field && !str_is(meta, "status", statuses[0]) && !str_is(meta, "status", statuses[1]))
		field = "status";
	if (field)
		die("task '%s': meta.json does not match (%s)", task, field);
	check_isolation(o, task, meta, receipt, observation);
	char path[PATH_MAX], sha[65];
	struct json *stage = matching_stage(o, task, receipt, observation, path, sha);
	if (strcmp(sha, fp))
		die("%s: the stage's SHA-256 %s is not its receipt's %s", path, sha, fp);
	check_stage_shape(path, stage, analyst);
	if (!analyst && (!json_identical(json_get(stage, "candidate_action_ids"), json_get(decision, "candidate_action_ids")) ||
			 !json_identical(json_get(stage, "reason_code"), json_get(decision, "reason_code"))))
		die("%s: the Strategist's candidate_action_ids or reason_code differ from decision %lu", path, k);
	if (analyst && !strcmp(o->mode, "multi_agent_masked")) {
		struct json *mask = json_object(&A), *analysis = json_get(stage, "analysis");
		json_set(&A, mask, "masked", json_bool(&A, true));
		json_set(&A, mask, "content", json_str(&A, "withheld-for-causal-ablation"));
		if (!json_identical(analysis, mask))
			die("%s: the masked Analyst stage carries workload information (analysis must be the mask)", path);
	}
	for (size_t i = 0; i < n_used; i++)
		if (!strcmp(used[i].task, task) && !strcmp(used[i].sha, sha))
			die("%s: the stage of task '%s' is reused (decision %lu)", path, task, k);
	used = xgrow(used, &cap_used, n_used + 1, sizeof *used);
	snprintf(used[n_used].task, sizeof used->task, "%s", task);
	snprintf(used[n_used].sha, sizeof used->sha, "%s", sha);
	n_used++;
}

static void check_decision(const struct opts *o, const struct json *d, unsigned long k, const struct json *declared, struct json *seen)
{
	static const char *const keys[] = { "type", "window_id", "observation_fingerprint", "candidate_action_ids", "reason_code",
					    "llm_call_count", "agent_stage_receipts", NULL };
	char err[256];
	if (nd_check_keys(d, ND_KEYS(keys), err, sizeof err))
		die("%s: decision %lu: %s", where, k, err);
	const char *obs = json_get_str(d, "observation_fingerprint"), *reason = json_get_str(d, "reason_code");
	if (!obs || strlen(obs) < 32 || strlen(obs) > 64 || !fp_is_hex(obs, strlen(obs)))
		die("%s: decision %lu: observation_fingerprint must be 32-64 hex digits", where, k);
	const char *key = obs;
	if (o->adaptive) {
		key = json_get_str(d, "window_id");
		if (!key)
			die("%s: decision %lu: an adaptive selection names its window_id", where, k);
		if (ev_check_id(d, "window_id", err, sizeof err))
			die("%s: decision %lu: %s", where, k, err);
	}
	if (in_array(seen, key))
		die("%s: decision %lu: %s '%s' appears twice", where, k, o->adaptive ? "window" : "observation", key);
	json_push(&A, seen, json_str(&A, key));
	struct json *ids = json_get(d, "candidate_action_ids");
	size_t lo = 3, hi = o->rolling ? 3 : 5;
	if (!ids || ids->kind != JSON_ARRAY || ids->u.arr.n < lo || ids->u.arr.n > hi)
		die("%s: decision %lu: %s candidate action ids", where, k, o->rolling ? "a rolling decision takes exactly 3" : "a selection takes 3 to 5");
	for (size_t i = 0; i < ids->u.arr.n; i++) {
		struct json *v = ids->u.arr.items[i];
		if (v->kind != JSON_STRING || !in_array(declared, v->u.str.s))
			die("%s: decision %lu: '%s' is not a declared action", where, k, v->kind == JSON_STRING ? v->u.str.s : "?");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ids->u.arr.items[j]->u.str.s, v->u.str.s))
				die("%s: decision %lu: candidate '%s' appears twice", where, k, v->u.str.s);
	}
	if (!in_array(ids, o->required))
		die("%s: decision %lu: the candidates must include the safety action '%s'", where, k, o->required);
	if (!reason || !*reason || strlen(reason) > 256 || strpbrk(reason, "\r\n"))
		die("%s: decision %lu: reason_code must be one non-empty line of at most 256 bytes", where, k);
	struct json *receipts = json_get(d, "agent_stage_receipts"), *calls = json_get(d, "llm_call_count");
	if (!receipts || receipts->kind != JSON_ARRAY)
		die("%s: decision %lu: agent_stage_receipts must be an array", where, k);
	bool single = !strcmp(o->mode, "single_agent");
	long long roles = single ? 1 : 2;
	bool has_a = false, has_s = false;
	for (size_t i = 0; i < receipts->u.arr.n; i++) {
		has_a = has_a || str_is(receipts->u.arr.items[i], "role", ANALYST);
		has_s = has_s || str_is(receipts->u.arr.items[i], "role", STRATEGIST);
	}
	if (!has_s || (!single && !has_a))
		die("%s: decision %lu: the %s plan needs a %s receipt", where, k, o->mode, !has_s ? STRATEGIST : ANALYST);
	if (!calls || calls->kind != JSON_INT || calls->u.i < roles)
		die("%s: decision %lu: llm_call_count must be an integer >= %lld (one per role)", where, k, roles);
	for (size_t i = 0; i < receipts->u.arr.n; i++)
		check_receipt(o, receipts->u.arr.items[i], d, k, obs);
}

static struct json *read_windows(const char *path)
{
	char err[1024];
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	if (!r)
		die("%s", err);
	struct json *ids = json_array(&A), *rec;
	enum nd_event ev;
	while ((ev = ndr_next(r, &A, &rec, err, sizeof err)) > 0)
		if (ev == ND_RECORD && str_is(rec, "type", "window") && json_get_str(rec, "window_id"))
			json_push(&A, ids, json_str(&A, json_get_str(rec, "window_id")));
	if (ev == ND_ERROR)
		die("%s", err);
	ndr_close(r);
	if (!ids->u.arr.n)
		die("%s: no window records", path);
	return ids;
}

/* Every agent_decision record of the inputs, checked (check_decision) and kept without its
 * record type; each input stream is named in hdr_inputs. */
static void read_decisions(const struct opts *o, const char *const *inputs, size_t n_inputs, const struct json *declared, struct json *decisions,
	struct json *seen, struct json *hdr_inputs)
{
	unsigned long k = 0;
	char err[1024];
	for (size_t i = 0; i < n_inputs; i++) {
		struct nd_reader *r = ndr_open(inputs[i], err, sizeof err);
		if (!r)
			die("%s", err);
		struct json *rec;
		enum nd_event ev;
		while ((ev = ndr_next(r, &A, &rec, err, sizeof err)) > 0) {
			if (ev == ND_HEADER && !str_is(rec, "schema", DECISIONS_SCHEMA))
				die("%s:%lu: expected a %s stream", ndr_name(r), ndr_lineno(r), DECISIONS_SCHEMA);
			if (ev == ND_END) {
				struct json *in = json_object(&A);
				json_set(&A, in, "path", json_str(&A, ndr_name(r)));
				json_set(&A, in, "schema", json_str(&A, DECISIONS_SCHEMA));
				json_set(&A, in, "fingerprint", json_str(&A, ndr_fingerprint(r)));
				json_push(&A, hdr_inputs, in);
			}
			if (ev != ND_RECORD || !str_is(rec, "type", "agent_decision"))
				continue;
			k++;
			snprintf(where, sizeof where, "%s:%lu", ndr_name(r), ndr_lineno(r));
			check_decision(o, rec, k, declared, seen);
			struct json *copy = json_object(&A);   /* the decision as given, without its record type */
			for (size_t j = 0; j < rec->u.obj.n; j++)
				if (strcmp(rec->u.obj.keys[j], "type"))
					json_set(&A, copy, rec->u.obj.keys[j], rec->u.obj.vals[j]);
			json_push(&A, decisions, copy);
		}
		if (ev == ND_ERROR)
			die("%s", err);
		ndr_close(r);
	}
}

/* Each window of the selections is an evaluation window of path, and each one has a selection. */
static void check_windows(const struct json *windows, const struct json *seen, const char *path)
{
	for (size_t i = 0; i < seen->u.arr.n; i++)
		if (!in_array(windows, seen->u.arr.items[i]->u.str.s))
			die("window '%s' is not an evaluation window of %s", seen->u.arr.items[i]->u.str.s, path);
	for (size_t i = 0; i < windows->u.arr.n; i++)
		if (!in_array(seen, windows->u.arr.items[i]->u.str.s))
			die("evaluation window '%s' has no selection", windows->u.arr.items[i]->u.str.s);
}

/* The plan (rolling) or the selections (adaptive), stamped with its fingerprint. */
static struct json *make_plan(const struct opts *o, struct json *decisions)
{
	struct json *plan = json_object(&A), *source = json_object(&A);
	json_set(&A, plan, "type", json_str(&A, o->adaptive ? "controller_selections" : "rolling_agent_plan"));
	json_set(&A, plan, "schema_version", json_str(&A, o->adaptive ? AD_SELECTIONS_SCHEMA : ROLLING_PLAN_SCHEMA));
	json_set(&A, plan, "controller_id", json_str(&A, o->controller));
	json_set(&A, plan, "mode", json_str(&A, o->mode));
	json_set(&A, plan, "model_id", json_str(&A, o->model));
	json_set(&A, source, "framework", json_str(&A, o->framework));
	json_set(&A, source, "project_id", json_str(&A, o->project));
	json_set(&A, plan, "source", source);
	if (o->adaptive || strcmp(o->required, "native-fifo"))
		json_set(&A, plan, o->adaptive ? "safety_action_id" : "required_candidate_action_id", json_str(&A, o->required));
	json_set(&A, plan, o->adaptive ? "selections" : "decisions", decisions);
	json_set(&A, plan, "verified_stage_receipt_count", json_int(&A, (long long)n_used));
	json_set(&A, plan, "source_anomalies", anomalies);
	ev_self_fp_stamp(&A, plan, o->adaptive ? "selections_fingerprint" : "plan_fingerprint");
	return plan;
}

int main(int argc, char **argv)
{
	enum { O_ROLLING = 256, O_ADAPTIVE, O_MODE, O_CONTROLLER, O_PROJECT, O_TASKS, O_SPACE, O_WINDOWS, O_MODEL, O_REQUIRED,
	       O_FRAMEWORK, O_ISOLATION };
	static const struct option longopts[] = {
		{ "rolling", no_argument, NULL, O_ROLLING }, { "adaptive", no_argument, NULL, O_ADAPTIVE },
		{ "mode", required_argument, NULL, O_MODE }, { "controller-id", required_argument, NULL, O_CONTROLLER },
		{ "project", required_argument, NULL, O_PROJECT }, { "tasks", required_argument, NULL, O_TASKS },
		{ "action-space", required_argument, NULL, O_SPACE }, { "windows", required_argument, NULL, O_WINDOWS },
		{ "model", required_argument, NULL, O_MODEL }, { "required-action", required_argument, NULL, O_REQUIRED },
		{ "framework", required_argument, NULL, O_FRAMEWORK }, { "require-isolation", no_argument, NULL, O_ISOLATION },
		CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 },
	};
	static const char schemas[] = "reads: " DECISIONS_SCHEMA ", " STAGE_SCHEMA ", schednav.windows/1\nwrites: " MF_AGENT_PLAN_STREAM_SCHEMA "\n";
	struct opts o = { .model = "deepseek-v4-flash", .framework = "AgentTeams", .output = "-" };
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case O_ROLLING: o.rolling = true; break;
		case O_ADAPTIVE: o.adaptive = true; break;
		case O_MODE: o.mode = optarg; break;
		case O_CONTROLLER: o.controller = optarg; break;
		case O_PROJECT: o.project = optarg; break;
		case O_TASKS: o.tasks = optarg; break;
		case O_SPACE: o.action_space = optarg; break;
		case O_WINDOWS: o.windows = optarg; break;
		case O_MODEL: o.model = optarg; break;
		case O_REQUIRED: o.required = optarg; break;
		case O_FRAMEWORK: o.framework = optarg; break;
		case O_ISOLATION: o.require_isolation = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	o.output = cli.output;
	const char *const *inputs = cli.inputs;
	size_t n_inputs = cli.ninputs;
	if (o.rolling == o.adaptive)
		usage_fail(usage, "give exactly one of --rolling and --adaptive");
	if (!o.mode || !o.controller || !o.project || !o.tasks || !o.action_space)
		usage_fail(usage, "--mode, --controller-id, --project, --tasks and --action-space are required");
	if (strcmp(o.mode, "single_agent") && strcmp(o.mode, "multi_agent") && strcmp(o.mode, "multi_agent_masked"))
		usage_fail(usage, "--mode is single_agent, multi_agent or multi_agent_masked");
	if (o.adaptive != (o.windows != NULL))
		usage_fail(usage, "--windows goes with --adaptive (and only there)");

	arena_init(&A);
	anomalies = json_array(&A);
	struct json *space = read_doc(o.action_space, NULL, NULL), *declared = json_get(space, "action_ids");
	if (!declared || declared->kind != JSON_ARRAY || !json_get_str(space, "safety_action_id"))
		die("%s: an action space needs action_ids and safety_action_id", o.action_space);
	if (!o.required)
		o.required = json_get_str(space, "safety_action_id");
	if (!in_array(declared, o.required))
		die("the required action '%s' is not declared in %s", o.required, o.action_space);
	struct json *windows = o.adaptive ? read_windows(o.windows) : NULL;

	struct json *decisions = json_array(&A), *seen = json_array(&A), *hdr_inputs = json_array(&A);
	char err[1024];
	read_decisions(&o, inputs, n_inputs, declared, decisions, seen, hdr_inputs);
	if (!decisions->u.arr.n)
		die("no agent_decision records: a plan needs at least one decision");
	if (windows)
		check_windows(windows, seen, o.windows);

	struct json *plan = make_plan(&o, decisions);

	struct json *hdr = nd_header_new(&A, MF_AGENT_PLAN_STREAM_SCHEMA, "plan-check");
	json_set(&A, hdr, "inputs", hdr_inputs);
	if (ndw_write_one(o.output, hdr, plan, err, sizeof err))
		die("%s", err);
	free(used);
	arena_release(&A);
	cli_release(&cli);
	return 0;
}
