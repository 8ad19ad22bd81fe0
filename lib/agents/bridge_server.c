/* The bridge's server (agents/bridge.h): start-up (the profile, the action space, the
 * operations' schemas and tools, the state), the MCP methods and the JSON-RPC loop. */
#include "agents/bridge.h"
#include "agents/jschema.h"
#include "agents/manifest.h"
#include "agents/opschema.h"
#include "agents/rpc.h"
#include "core/xalloc.h"
#include "core/ndjson.h"
#include "core/spawn.h"
#include "core/text.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include "eval/chainlog.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const protocols[] = { BR_PROTOCOL_LATEST, "2025-06-18", "2025-03-26", "2024-11-05", NULL };

static struct json *tool_list(struct br_server *s, struct arena *a)
{
	struct json *tools = json_array(a);
	for (size_t k = 0; k < s->nops; k++) {
		if (!s->allowed[k] || !s->available[k])
			continue;
		struct json *t = json_object(a);
		json_set(a, t, "name", json_str(a, s->ops[k].name));
		json_set(a, t, "title", json_str(a, s->title[k]));
		json_set(a, t, "description", json_str(a, s->description[k]));
		json_set(a, t, "inputSchema", s->input[k]);
		json_set(a, t, "outputSchema", s->output[k]);
		json_push(a, tools, t);
	}
	struct json *r = json_object(a);
	json_set(a, r, "tools", tools);
	return r;
}

/* The MCP lifecycle: initialize is the first request and comes once, with protocolVersion,
 * capabilities and clientInfo. */
static void initialize(struct br_server *s, struct arena *a, const struct json *id, const struct json *params)
{
	const char *version;
	char err[300];
	if (s->initialized) {
		ag_br_send_error(s, id, RPC_INVALID, "the server is already initialized: initialize comes once");
		return;
	}
	if (ag_rpc_initialize_params(params, protocols, &version, err, sizeof err)) {
		ag_br_send_error(s, id, RPC_PARAMS, err);
		return;
	}
	struct json *r = json_object(a), *caps = json_object(a), *tools = json_object(a), *info = json_object(a);
	json_set(a, r, "protocolVersion", json_str(a, version));
	json_set(a, tools, "listChanged", json_bool(a, false));
	json_set(a, caps, "tools", tools);
	json_set(a, r, "capabilities", caps);
	json_set(a, info, "name", json_str(a, "schednav-mcp"));
	json_set(a, info, "title", json_str(a, "SchedNav bounded agent bridge"));
	json_set(a, info, "version", json_str(a, SCHEDNAV_VERSION));
	json_set(a, r, "serverInfo", info);
	json_set(a, r, "instructions", json_str(a, s->prompt));
	s->initialized = true;
	ag_br_send_result(s, id, r);
}

static void handle(struct br_server *s, struct arena *a, const char *line, size_t len)
{
	struct rpc_msg m;
	char err[512];
	int code = ag_rpc_parse(a, line, len, &m, err, sizeof err);
	if (code) {
		if (m.answer)
			ag_br_send_error(s, m.id, code, err);
		return;
	}
	if (!m.method || !m.id)
		return;   /* a response to us, or a notification (initialized, cancelled, ...): no answer */
	const char *method = m.method;
	if (!strcmp(method, "initialize"))
		initialize(s, a, m.id, m.params);
	else if (!strcmp(method, "ping"))
		ag_br_send_result(s, m.id, json_object(a));
	else if (!strcmp(method, "tools/list") || !strcmp(method, "tools/call")) {
		if (!s->initialized)
			ag_br_send_error(s, m.id, RPC_INVALID, "the server is not initialized: send initialize first");
		else if (method[6] == 'l')
			ag_br_send_result(s, m.id, tool_list(s, a));
		else
			ag_br_tools_call(s, a, m.id, m.params);
	} else {
		snprintf(err, sizeof err, "method '%.*s' not found", ag_utf8_clip(method, 100), method);
		ag_br_send_error(s, m.id, RPC_METHOD, err);
	}
}

static bool tool_has(const struct br_server *s, struct arena *a, const char *tool, const char *option)
{
	const char *path = ag_br_joinpath(a, s->exec_dir, tool);
	if (access(path, X_OK))
		return false;
	if (!option)
		return true;
	char tmpl[] = "/tmp/schednav-mcp-help-XXXXXX", err[256];
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return false;
	close(fd);
	char *argv[] = { (char *)path, "--help", NULL };
	bool found = false;
	if (spawn_run(argv, NULL, tmpl, NULL, err, sizeof err) == 0) {
		char *buf;
		size_t len;
		if (zio_slurp(tmpl, &buf, &len, err, sizeof err) == 0) {
			size_t m = strlen(option);
			for (size_t i = 0; i + m <= len && !found; i++)
				found = !memcmp(buf + i, option, m);
			free(buf);
		}
	}
	unlink(tmpl);
	return found;
}

static const char *absolute(struct arena *a, const char *dir, const char *what, char *err, size_t errlen)
{
	char *abs = realpath(dir, NULL);
	if (!abs) {
		snprintf(err, errlen, "%s '%s': %s", what, dir, strerror(errno));
		return NULL;
	}
	const char *copy = arena_strndup(a, abs, strlen(abs));
	free(abs);
	return copy;
}

static const char *exec_dir_default(struct arena *a, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0) {
		snprintf(err, errlen, "cannot find the exec path: give --exec-path");
		return NULL;
	}
	buf[n] = 0;
	char *slash = strrchr(buf, '/');
	*slash = 0;
	return arena_strndup(a, buf, strlen(buf));
}

static int load_profile(struct br_server *s, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "profile", "role", "worker_id", "allowed_operations", "output_schema", "prompt", NULL };
	char e[1024];
	if (!ag_ws_id_ok(s->profile)) {
		snprintf(err, errlen, "--profile wants a role id such as analyst");
		return BR_USAGE;
	}
	char name[200];
	snprintf(name, sizeof name, "agents/%s.json", s->profile);
	const char *path = ag_br_joinpath(&s->arena, s->config_dir, name);
	if (access(path, R_OK))
		return snprintf(err, errlen, "unknown profile '%s' (no %s)", s->profile, path), -1;
	s->role = ag_br_load_json_file(&s->arena, path, err, errlen);
	if (!s->role)
		return -1;
	struct json *allowed = json_get(s->role, "allowed_operations");
	const char *schema = json_get_str(s->role, "schema_version"), *profile = json_get_str(s->role, "profile");
	s->prompt = json_get_str(s->role, "prompt");
	if (nd_check_keys(s->role, ND_KEYS(keys), e, sizeof e))
		return snprintf(err, errlen, "%s: %s", path, e), -1;
	if (!nd_schema_is(schema, MF_AGENT_ROLE_SCHEMA) || !profile || strcmp(profile, s->profile) || !s->prompt ||
	    !allowed || allowed->kind != JSON_ARRAY)
		return snprintf(err, errlen, "%s: not a " MF_AGENT_ROLE_SCHEMA " document for profile '%s'", path, s->profile), -1;
	for (size_t k = 0; k < s->nops; k++)
		s->allowed[k] = !s->ops[k].tasked;   /* get_task and read_artifact: always */
	for (size_t i = 0; i < allowed->u.arr.n; i++) {
		const struct json *v = allowed->u.arr.items[i];
		size_t k = 0;
		while (k < s->nops && (v->kind != JSON_STRING || strcmp(s->ops[k].name, v->u.str.s)))
			k++;
		if (k == s->nops)
			return snprintf(err, errlen, "%s: allowed_operations names '%s', which the bridge does not have", path,
					v->kind == JSON_STRING ? v->u.str.s : "?"), -1;
		s->allowed[k] = true;
	}
	return 0;
}

static int load_action_space(struct br_server *s, char *err, size_t errlen)
{
	char name[200];
	if (!ag_ws_id_ok(s->action_space_id)) {
		snprintf(err, errlen, "--action-space wants an id");
		return BR_USAGE;
	}
	snprintf(name, sizeof name, "action_spaces/%s.json", s->action_space_id);
	const char *path = ag_br_joinpath(&s->arena, s->config_dir, name);
	struct json *as = ag_br_load_json_file(&s->arena, path, err, errlen);
	if (!as)
		return -1;
	s->action_ids = json_get(as, "action_ids");
	s->safety_action = json_get_str(as, "safety_action_id");
	if (!s->action_ids || s->action_ids->kind != JSON_ARRAY || !s->safety_action)
		return snprintf(err, errlen, "%s: needs action_ids and safety_action_id", path), -1;
	return 0;
}

/* The envelope every task operation returns around its result (its "result" set per operation). */
static const char task_envelope[] =
	"{\"type\":\"object\",\"required\":[\"task_id\",\"operation\",\"state\",\"replayed\",\"artifacts\",\"result\"],"
	"\"properties\":{\"task_id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{32}$\"},\"operation\":{\"const\":null},"
	"\"state\":{\"const\":\"succeeded\"},\"replayed\":{\"type\":\"boolean\"},\"artifacts\":{\"type\":\"array\",\"items\":"
	"{\"type\":\"object\",\"required\":[\"ref\",\"schema\",\"fingerprint\"],\"properties\":{\"ref\":{\"type\":\"string\"},"
	"\"schema\":{\"type\":\"string\"},\"fingerprint\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{32}$\"}}}},\"result\":null}}";

static int build_schemas(struct br_server *s, char *err, size_t errlen)
{
	char e[512];
	for (size_t k = 0; k < s->nops; k++) {
		struct opschema_def def;
		if (ag_opschema_load(&s->arena, s->ops[k].name, &def, e, sizeof e))
			return snprintf(err, errlen, "internal schema of '%s': %s", s->ops[k].name, e), -1;
		s->title[k] = def.title;
		s->description[k] = def.description;
		s->input[k] = def.input;
		if (!s->ops[k].tasked) {
			s->output[k] = def.result;
			continue;
		}
		struct json *env;
		if (json_parse(&s->arena, task_envelope, strlen(task_envelope), &env, e, sizeof e))
			return snprintf(err, errlen, "internal schema of '%s' does not parse: %s", s->ops[k].name, e), -1;
		struct json *props = json_get(env, "properties");
		json_set(&s->arena, json_get(props, "operation"), "const", json_str(&s->arena, s->ops[k].name));
		json_set(&s->arena, props, "result", def.result);
		s->output[k] = env;
	}
	return 0;
}

static int open_state(struct br_server *s, bool create, char *err, size_t errlen)
{
	int rc = ag_task_store_open(&s->store, s->ws.root, create, err, errlen);
	ag_br_report_cut(s);
	return rc ? -1 : 0;
}

int ag_br_open(struct br_server *s, const char *workspace, bool verify_only, char *err, size_t errlen)
{
	arena_init(&s->arena);
	s->fatal[0] = 0;
	if (ag_ws_open(&s->ws, workspace, err, errlen))
		return -1;
	if (verify_only)
		return open_state(s, false, err, errlen);
	if (!s->exec_dir && !(s->exec_dir = exec_dir_default(&s->arena, err, errlen)))
		return -1;
	if (!s->config_dir)
		s->config_dir = getenv("SCHEDNAV_CONFIGS");
	if (!s->config_dir || !*s->config_dir) {
		/* the source tree (bin/../configs), else the installed layout
		 * (PREFIX/libexec/schednav/../../share/schednav/configs, as make install puts it) */
		struct stat st;
		s->config_dir = ag_br_joinpath(&s->arena, s->exec_dir, "../configs");
		if (stat(s->config_dir, &st) != 0 || !S_ISDIR(st.st_mode))
			s->config_dir = ag_br_joinpath(&s->arena, s->exec_dir, "../../share/schednav/configs");
	}
	/* tools run in the workspace: the exec and config dirs must not stay relative */
	if (!(s->exec_dir = absolute(&s->arena, s->exec_dir, "--exec-path", err, errlen)) ||
	    !(s->config_dir = absolute(&s->arena, s->config_dir, "--configs", err, errlen)))
		return -1;
	size_t n = s->nops;
	s->allowed = arena_alloc(&s->arena, n * sizeof *s->allowed);
	s->available = arena_alloc(&s->arena, n * sizeof *s->available);
	s->input = arena_alloc(&s->arena, n * sizeof *s->input);
	s->output = arena_alloc(&s->arena, n * sizeof *s->output);
	s->title = arena_alloc(&s->arena, n * sizeof *s->title);
	s->description = arena_alloc(&s->arena, n * sizeof *s->description);
	int rc;
	if ((rc = load_profile(s, err, errlen)) || (rc = load_action_space(s, err, errlen)) || (rc = build_schemas(s, err, errlen)))
		return rc;
	for (size_t k = 0; k < n; k++)
		s->available[k] = !s->ops[k].need_tool || tool_has(s, &s->arena, s->ops[k].need_tool, s->ops[k].need_option);
	return open_state(s, true, err, errlen);
}

int ag_br_verify_log(struct br_server *s, char *err, size_t errlen)
{
	ag_task_store_close(&s->store);
	const struct chainlog_pos *pos = &s->store.audit_pos;
	fprintf(stderr, "%s: '%s/audit.ndjson': %lu call%s, the chain verifies (last fingerprint %s)\n", progname, s->store.dir,
		pos->count, pos->count == 1 ? "" : "s", pos->count ? pos->last_fp : "none");
	ag_ws_close(&s->ws);
	arena_release(&s->arena);
	return 0;
}

int ag_br_serve(struct br_server *s)
{
	char *buf = xmalloc(RPC_MAX_BODY + 1);
	struct arena a;
	arena_init(&a);
	size_t len;
	int got;
	while (!s->fatal[0] && (got = ag_rpc_read_line(s->in, buf, &len)) != 0) {
		arena_reset(&a);
		if (got == 2) {
			ag_br_send_error(s, NULL, RPC_INVALID, "message larger than 65536 bytes");
			continue;
		}
		if (len == 0)
			continue;
		handle(s, &a, buf, len);
	}
	free(buf);
	arena_release(&a);
	return s->fatal[0] ? -1 : 0;
}

void ag_br_close(struct br_server *s)
{
	ag_task_store_close(&s->store);
	ag_ws_close(&s->ws);
	arena_release(&s->arena);
}
