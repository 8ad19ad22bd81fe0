/* Unit tests for lib/agents: the compiled-in operation schemas (schemas/mcp/) and the reply
 * framing of rpc. */
#include "agents/bridge.h"
#include "agents/opschema.h"
#include "agents/rpc.h"
#include "agents/tasks.h"
#include "agents/workspace.h"
#include "core/ndjson.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* The patterns an operation schema may use: the id, ref and key rules the bridge enforces in C
 * too, fingerprints, and one line of text. A pattern typed into a schema file by hand that
 * differs from the C rule (a looser ref pattern, say) fails here. */
static const char *const known_patterns[] = {
	WS_ID_PATTERN, WS_REF_PATTERN, TASK_KEY_PATTERN, "^[0-9a-f]{32}$", "^[0-9a-f]{64}$", "^[^\n\r]*$", NULL,
};

static void check_patterns(const char *op, const struct json *v)
{
	if (!v)
		return;
	if (v->kind == JSON_ARRAY)
		for (size_t i = 0; i < v->u.arr.n; i++)
			check_patterns(op, v->u.arr.items[i]);
	if (v->kind != JSON_OBJECT)
		return;
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const struct json *x = v->u.obj.vals[i];
		if (!strcmp(v->u.obj.keys[i], "pattern") && x->kind == JSON_STRING) {
			const char *const *p = known_patterns;
			while (*p && strcmp(*p, x->u.str.s))
				p++;
			CHECK(*p, "%s: pattern '%s' is none of the bridge's rules", op, x->u.str.s);
		} else
			check_patterns(op, x);
	}
}

static void schemas(void)
{
	struct arena a;
	arena_init(&a);
	char err[512];
	CHECK(opschemas_count == 12, "%zu operation schemas, want 12", opschemas_count);
	for (size_t i = 0; i < opschemas_count; i++) {
		struct opschema_def def;
		int rc = ag_opschema_load(&a, opschemas[i].name, &def, err, sizeof err);
		CHECK(rc == 0, "%s: %s", opschemas[i].name, err);
		if (rc)
			continue;
		CHECK(i == 0 || strcmp(opschemas[i - 1].name, opschemas[i].name) < 0, "table not sorted at %s", opschemas[i].name);
		CHECK(strlen(opschemas[i].json) == opschemas[i].len, "%s: a NUL byte inside the file", opschemas[i].name);
		check_patterns(opschemas[i].name, def.input);
		check_patterns(opschemas[i].name, def.result);
	}
	CHECK(ag_opschema_load(&a, "no_such_operation", &(struct opschema_def){ 0 }, err, sizeof err) == -1 &&
		      !strcmp(err, "no schemas/mcp/no_such_operation.json"),
	      "an unknown operation: '%s'", err);
	arena_release(&a);
}

/* What rpc_send_* write, byte for byte. */
static void framing(void)
{
	struct arena a;
	arena_init(&a);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json *id = json_int(&a, 7), *r = json_object(&a);
	json_set(&a, r, "ok", json_bool(&a, true));
	CHECK(ag_rpc_send_result(f, id, r) == 0, "rpc_send_result failed");
	CHECK(ag_rpc_send_error(f, NULL, RPC_PARAMS, "bad \"x\"\n") == 0, "rpc_send_error failed");
	CHECK(ag_rpc_send_error(f, json_str(&a, "a"), RPC_METHOD, "m") == 0, "rpc_send_error failed");
	fclose(f);
	const char *want = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}\n"
			   "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32602,\"message\":\"bad \\\"x\\\"\\n\"}}\n"
			   "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32601,\"message\":\"m\"}}\n";
	CHECK(buf && !strcmp(buf, want), "framing wrote:\n%s", buf ? buf : "(nothing)");
	free(buf);
	arena_release(&a);
}

/* A sealed stream of schema into path: n body records {"type":"x","i":I}, times copies. */
static void toy_stream(const char *path, const char *schema, int n, int times)
{
	FILE *out = fopen(path, "w");
	for (int k = 0; k < times; k++) {
		char err[300], tmp[] = "/tmp/test_agents_streamXXXXXX";
		close(mkstemp(tmp));
		struct arena a;
		arena_init(&a);
		struct nd_writer *w = ndw_open(tmp, err, sizeof err);
		ndw_header(w, nd_header_new(&a, schema, "test_agents"), err, sizeof err);
		for (int i = 0; i < n; i++) {
			struct json *rec = json_object(&a);
			json_set(&a, rec, "type", json_str(&a, "x"));
			json_set(&a, rec, "i", json_int(&a, i));
			ndw_record(w, rec, err, sizeof err);
		}
		ndw_end(w, NULL, err, sizeof err);
		ndw_close(w, err, sizeof err);
		arena_release(&a);
		FILE *in = fopen(tmp, "r");
		int c;
		while ((c = fgetc(in)) != EOF)
			fputc(c, out);
		fclose(in);
		unlink(tmp);
	}
	fclose(out);
}

/* ag_br_read_stream_of: one verified stream, its records when wanted, the schema it expects. */
static void read_stream(void)
{
	char path[] = "/tmp/test_agents_readXXXXXX", err[600], want_err[700];
	close(mkstemp(path));
	struct arena a;
	arena_init(&a);
	struct br_stream si;
	toy_stream(path, "schednav.toy/1", 3, 1);
	CHECK(!ag_br_read_stream_of(&a, path, "schednav.toy/1", true, &si, err, sizeof err), "toy stream: %s", err);
	CHECK(si.records->u.arr.n == 3 && json_get(si.records->u.arr.items[2], "i")->u.i == 2, "three records kept in order");
	CHECK(!strcmp(si.schema, "schednav.toy/1") && strlen(si.fp) == 32, "schema '%s', fingerprint '%s'", si.schema, si.fp);
	CHECK(!ag_br_read_stream(&a, path, false, &si, err, sizeof err) && si.records->u.arr.n == 0, "not wanted: no records");
	CHECK(ag_br_read_stream_of(&a, path, "schednav.metrics/1", false, &si, err, sizeof err) == -1, "another schema accepted");
	snprintf(want_err, sizeof want_err, "%s: not a schednav.metrics/1 stream", path);
	CHECK(!strcmp(err, want_err), "wrong schema: '%s'", err);
	toy_stream(path, "schednav.toy/1", 1, 2);
	CHECK(ag_br_read_stream(&a, path, false, &si, err, sizeof err) == -1, "two streams accepted");
	snprintf(want_err, sizeof want_err, "%s:4: expected exactly one SchedNav stream", path);
	CHECK(!strcmp(err, want_err), "two streams: '%s'", err);
	toy_stream(path, "schednav.toy/1", 0, 0);
	CHECK(ag_br_read_stream_of(&a, path, "schednav.toy/1", false, &si, err, sizeof err) == -1, "empty input accepted");
	snprintf(want_err, sizeof want_err, "%s: empty input: expected a schednav.toy/1 stream", path);
	CHECK(!strcmp(err, want_err), "empty: '%s'", err);
	arena_release(&a);
	unlink(path);
}

int main(void)
{
	schemas();
	framing();
	read_stream();
	printf("test_agents: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
