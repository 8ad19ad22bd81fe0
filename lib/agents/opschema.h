/*
 * opschema — the schemas of the bridge's operations, one file each (schemas/mcp/NAME.json),
 * compiled into the library by the Makefile as the workday calendar is. A file is the MCP tool
 * definition of operation NAME: {"name", "title", "description", "inputSchema" (the
 * arguments, checked by jschema), "resultSchema" (the operation's result; a task operation's
 * outputSchema wraps it in the task envelope)}. The id, ref and idempotency key patterns in
 * them are WS_ID_PATTERN, WS_REF_PATTERN (agents/workspace.h) and TASK_KEY_PATTERN
 * (agents/tasks.h). The bytes are static and NUL-terminated. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_AGENTS_OPSCHEMA_H
#define SCHEDNAV_AGENTS_OPSCHEMA_H
#include "core/arena.h"
#include "core/json.h"
#include <stddef.h>

struct opschema {
	const char *name;   /* the operation: the file's name without .json */
	const char *json;   /* the file's bytes */
	size_t len;
};

/* The files, sorted by name (generated: build/gen/mcp_schemas.c). */
extern const struct opschema opschemas[];
extern const size_t opschemas_count;

struct opschema_def {
	const char *title, *description;
	struct json *input, *result;   /* the two schemas, parsed into the caller's arena */
};

/* The definition of operation name: 0, or -1 and a message (no such file, a file that does
 * not parse, a wrong name or a missing or mistyped key, an input schema jschema refuses). */
int ag_opschema_load(struct arena *a, const char *name, struct opschema_def *def, char *err, size_t errlen);
#endif
