/* The bridge's JSON-RPC framing (lib/agents/rpc.c): the input is what a client writes on the
 * server's stdin, read line by line (ag_rpc_read_line: the 64 KiB bound, '\r'), each line parsed
 * and classified (ag_rpc_parse) and an initialize's params checked. Every message the bridge
 * would send back must be valid UTF-8. */
#define _GNU_SOURCE   /* fmemopen */
#include "fuzz.h"
#include "agents/rpc.h"
#include "core/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const protocols[] = { "2025-11-25", "2025-06-18", NULL };

static void must_be_text(const char *s)
{
	if (!text_utf8_ok(s, strlen(s)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)(size ? data : (const uint8_t *)""), size ? size : 1, "r");
	if (!f)
		return 0;
	char *buf = malloc(RPC_MAX_BODY + 1);
	struct arena a;
	arena_init(&a);
	size_t len;
	int got;
	while (buf && (got = ag_rpc_read_line(f, buf, &len)) != 0) {
		struct rpc_msg m;
		char err[512];
		arena_reset(&a);
		if (got == 2 || len == 0)
			continue;
		int code = ag_rpc_parse(&a, buf, len, &m, err, sizeof err);
		if (code) {
			if (code != RPC_PARSE && code != RPC_INVALID)
				abort();
			must_be_text(err);
			continue;
		}
		if (m.method && (!m.params || m.params->kind != JSON_OBJECT))
			abort();
		if (m.method && !strcmp(m.method, "initialize")) {
			const char *version;
			if (ag_rpc_initialize_params(m.params, protocols, &version, err, sizeof err))
				must_be_text(err);
			else if (strcmp(version, protocols[0]) && strcmp(version, protocols[1]))
				abort();
		}
	}
	arena_release(&a);
	free(buf);
	fclose(f);
	return 0;
}
