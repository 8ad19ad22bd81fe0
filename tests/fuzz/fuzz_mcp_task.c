/* The bridge's task store records (lib/agents/tasks.c): a stored task file as the server
 * reads it back before a replay (ag_task_check, then a succeeded task's result against the
 * operation's output envelope, then its fingerprint). */
#include "fuzz.h"
#include "agents/jschema.h"
#include "agents/tasks.h"
#include "core/text.h"
#include <stdlib.h>
#include <string.h>

/* analyze_workload's envelope, as schednav-mcp builds it */
static const char envelope[] =
	"{\"type\":\"object\",\"required\":[\"task_id\",\"operation\",\"state\",\"replayed\",\"artifacts\",\"result\"],"
	"\"properties\":{\"task_id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{32}$\"},\"operation\":{\"const\":\"analyze_workload\"},"
	"\"state\":{\"const\":\"succeeded\"},\"replayed\":{\"type\":\"boolean\"},\"artifacts\":{\"type\":\"array\",\"items\":"
	"{\"type\":\"object\",\"required\":[\"ref\",\"schema\",\"fingerprint\"]}},\"result\":{\"type\":\"object\",\"required\":"
	"[\"run_config_id\",\"workload_summary\"],\"properties\":{\"run_config_id\":{\"type\":\"string\"},\"workload_summary\":"
	"{\"type\":\"object\"}}}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct arena keep;   /* the schema, parsed once: it lives as long as the process */
	static struct json *schema;
	struct arena a;
	struct json *t;
	char err[700];
	if (!schema) {
		arena_init(&keep);
		if (json_parse(&keep, envelope, sizeof envelope - 1, &schema, err, sizeof err) || ag_jschema_check(schema, err, sizeof err))
			abort();
	}
	arena_init(&a);
	if (json_parse(&a, (const char *)data, size, &t, err, sizeof err) == 0) {
		struct json *o = json_get(t, "operation");
		const char *op = o && o->kind == JSON_STRING ? o->u.str.s : "analyze_workload";
		if (ag_task_check(t, "0123456789abcdef0123456789abcdef", op, err, sizeof err) == 0) {
			char fp[FP_HEX_XXH3];
			ag_task_fingerprint(&a, t, fp);
			struct json *result = json_get(t, "result");
			if (result->kind == JSON_OBJECT && ag_jschema_validate(schema, result, "result", err, sizeof err))
				if (!text_utf8_ok(err, strlen(err)))
					abort();
		} else if (!text_utf8_ok(err, strlen(err)))
			abort();
	}
	arena_release(&a);
	return 0;
}
