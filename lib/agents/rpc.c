/* rpc — JSON-RPC 2.0 framing of the bridge (see rpc.h). */
#include "agents/rpc.h"
#include "agents/jschema.h"
#include "core/strbuf.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

int ag_rpc_read_line(FILE *f, char *buf, size_t *len)
{
	size_t n = 0;
	bool over = false;
	int ch;
	while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
		if (n < RPC_MAX_BODY)
			buf[n++] = (char)ch;
		else
			over = true;
	}
	if (ch == EOF && n == 0 && !over)
		return 0;
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	*len = n;
	return over ? 2 : 1;
}

int ag_rpc_parse(struct arena *a, const char *line, size_t len, struct rpc_msg *m, char *err, size_t errlen)
{
	struct json *msg;
	char e[400];
	m->id = NULL;
	m->method = NULL;
	m->params = NULL;
	m->answer = true;
	if (json_parse(a, line, len, &msg, e, sizeof e)) {
		/* say what is wrong (a duplicate key, \u0000, a number out of range, deep nesting,
		 * bad UTF-8): json_parse's message, without its "invalid JSON: " prefix */
		const char *why = strncmp(e, "invalid JSON: ", 14) ? e : e + 14;
		snprintf(err, errlen, "parse error: %s", why);
		return RPC_PARSE;
	}
	if (msg->kind != JSON_OBJECT) {
		snprintf(err, errlen, "%s", msg->kind == JSON_ARRAY ? "batches are not supported" : "a message must be a JSON object");
		return RPC_INVALID;
	}
	struct json *id = json_get(msg, "id"), *params = json_get(msg, "params"), *jsonrpc = json_get(msg, "jsonrpc"),
		    *method = json_get(msg, "method");
	if (id && id->kind != JSON_STRING && id->kind != JSON_INT) {
		snprintf(err, errlen, "id must be a string or an integer");
		return RPC_INVALID;
	}
	m->id = id;
	if (!jsonrpc || jsonrpc->kind != JSON_STRING || strcmp(jsonrpc->u.str.s, "2.0")) {
		snprintf(err, errlen, "jsonrpc must be \"2.0\"");
		return RPC_INVALID;
	}
	if (!method || method->kind != JSON_STRING) {
		if (method || !id || (!json_get(msg, "result") && !json_get(msg, "error"))) {
			snprintf(err, errlen, "a request needs a string method");
			return RPC_INVALID;
		}
		return 0;   /* a response to us: we send no requests, the caller ignores it */
	}
	if (params && params->kind != JSON_OBJECT) {
		m->answer = id != NULL;
		snprintf(err, errlen, "params must be an object");
		return RPC_INVALID;
	}
	m->method = method->u.str.s;
	m->params = params ? params : json_object(a);
	return 0;
}

int ag_rpc_initialize_params(const struct json *params, const char *const *supported, const char **version, char *err,
			  size_t errlen)
{
	const struct json *v = json_get(params, "protocolVersion"), *caps = json_get(params, "capabilities"),
			  *info = json_get(params, "clientInfo");
	const struct json *name = json_get(info, "name"), *ver = json_get(info, "version");
	if (!v || v->kind != JSON_STRING || !v->u.str.len || v->u.str.len > 64) {
		snprintf(err, errlen, "initialize: params.protocolVersion must be a protocol revision string such as \"%s\"", supported[0]);
		return -1;
	}
	if (!caps || caps->kind != JSON_OBJECT) {
		snprintf(err, errlen, "initialize: params.capabilities must be an object");
		return -1;
	}
	if (!info || info->kind != JSON_OBJECT || !name || name->kind != JSON_STRING || !ver || ver->kind != JSON_STRING) {
		snprintf(err, errlen, "initialize: params.clientInfo must be an object with string name and version");
		return -1;
	}
	/* the lifecycle: a version we speak is answered with itself, any other with our latest */
	*version = supported[0];
	for (const char *const *p = supported; *p; p++)
		if (!strcmp(*p, v->u.str.s))
			*version = *p;
	return 0;
}

static int send_line(FILE *f, struct strbuf *sb)
{
	sb_addc(sb, '\n');
	int rc = fwrite(sb->buf, 1, sb->len, f) != sb->len || fflush(f) ? -1 : 0, saved = errno;
	sb_release(sb);
	errno = saved;
	return rc;
}

int ag_rpc_send_result(FILE *f, const struct json *id, const struct json *result)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "{\"jsonrpc\":\"2.0\",\"id\":");
	json_write(&sb, id);
	sb_adds(&sb, ",\"result\":");
	json_write(&sb, result);
	sb_addc(&sb, '}');
	return send_line(f, &sb);
}

int ag_rpc_send_error(FILE *f, const struct json *id, int code, const char *msg)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "{\"jsonrpc\":\"2.0\",\"id\":");
	if (id)
		json_write(&sb, id);
	else
		sb_adds(&sb, "null");
	sb_addf(&sb, ",\"error\":{\"code\":%d,\"message\":", code);
	sb_add_jstr(&sb, msg, strlen(msg));
	sb_adds(&sb, "}}");
	return send_line(f, &sb);
}
