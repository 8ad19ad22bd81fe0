/*
 * rpc — the bridge's JSON-RPC 2.0 framing (MCP over stdio): one message a line of at most
 * RPC_MAX_BODY bytes, parsed strictly (lib/core/json: valid UTF-8 without overlong forms or
 * surrogates, no NUL, no duplicate key, numbers in range, nesting at most 256), classified
 * into a request, a notification or a response, with the JSON-RPC error code and a message
 * that says what is wrong; and the replies, one line each, written to the stream the caller
 * gives. Also the MCP initialize parameters (lifecycle: protocolVersion, capabilities,
 * clientInfo). Every value lives in the caller's arena. Nothing here exits.
 */
#ifndef SCHEDNAV_AGENTS_RPC_H
#define SCHEDNAV_AGENTS_RPC_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define RPC_MAX_BODY 65536

enum { RPC_PARSE = -32700, RPC_INVALID = -32600, RPC_METHOD = -32601, RPC_PARAMS = -32602, RPC_INTERNAL = -32603 };

struct rpc_msg {
	struct json *id;       /* the request's id (string or integer); NULL for a notification */
	const char *method;    /* NULL for a response (a message to ignore) */
	struct json *params;   /* an object (an empty one when absent) */
	bool answer;           /* on an error: whether it gets a reply (never for a notification) */
};

/* Read one line of f into buf (RPC_MAX_BODY + 1 bytes; a final '\r' dropped): 1 a line,
 * 0 the end of input, 2 a line longer than RPC_MAX_BODY (read past and dropped). */
int ag_rpc_read_line(FILE *f, char *buf, size_t *len);
/* Parse and classify line[0..len): 0 and m filled, else a JSON-RPC error code with the
 * message in err; m->id is then the id to answer with (NULL: null) and m->answer says
 * whether to answer at all. */
int ag_rpc_parse(struct arena *a, const char *line, size_t len, struct rpc_msg *m, char *err, size_t errlen);
/* Check initialize params: protocolVersion (a string), capabilities (an object) and
 * clientInfo (an object with string name and version). 0 and *version (the version asked
 * for when it is in supported, else supported[0]), or -1 and a message (invalid params). */
int ag_rpc_initialize_params(const struct json *params, const char *const *supported, const char **version, char *err,
			  size_t errlen);
/* Write {"jsonrpc":"2.0","id":ID,"result":RESULT} and a newline to f and flush it: 0, or -1
 * with errno set. */
int ag_rpc_send_result(FILE *f, const struct json *id, const struct json *result);
/* Write {"jsonrpc":"2.0","id":ID (NULL: null),"error":{"code":CODE,"message":MSG}} likewise. */
int ag_rpc_send_error(FILE *f, const struct json *id, int code, const char *msg);
#endif
