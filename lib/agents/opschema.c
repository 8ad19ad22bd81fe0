/* opschema — the compiled-in operation schemas of the bridge (see opschema.h). */
#include "agents/opschema.h"
#include "agents/jschema.h"
#include <stdio.h>
#include <string.h>

static const char *str_of(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);
	return v && v->kind == JSON_STRING ? v->u.str.s : NULL;
}

int ag_opschema_load(struct arena *a, const char *name, struct opschema_def *def, char *err, size_t errlen)
{
	const struct opschema *f = NULL;
	for (size_t i = 0; i < opschemas_count && !f; i++)
		if (!strcmp(opschemas[i].name, name))
			f = &opschemas[i];
	if (!f) {
		snprintf(err, errlen, "no schemas/mcp/%s.json", name);
		return -1;
	}
	struct json *doc;
	char e[300];
	if (json_parse(a, f->json, f->len, &doc, e, sizeof e)) {
		snprintf(err, errlen, "schemas/mcp/%s.json: %s", name, e);
		return -1;
	}
	const char *own = str_of(doc, "name");
	def->title = str_of(doc, "title");
	def->description = str_of(doc, "description");
	def->input = json_get(doc, "inputSchema");
	def->result = json_get(doc, "resultSchema");
	if (!own || strcmp(own, name) || !def->title || !def->description || !def->input || def->input->kind != JSON_OBJECT ||
	    !def->result || def->result->kind != JSON_OBJECT) {
		snprintf(err, errlen, "schemas/mcp/%s.json: needs name \"%s\", string title and description, "
			 "object inputSchema and resultSchema", name, name);
		return -1;
	}
	if (ag_jschema_check(def->input, e, sizeof e)) {
		snprintf(err, errlen, "schemas/mcp/%s.json: inputSchema: %s", name, e);
		return -1;
	}
	return 0;
}
