/* manifest — run configs, run sets and simulations manifests of the bridge (see manifest.h). */
#include "agents/manifest.h"
#include "agents/jschema.h"
#include "agents/workspace.h"
#include "core/json.h"
#include "core/ndjson.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int ag_mf_doc(struct arena *a, const char *buf, size_t len, struct json **out, char *err, size_t errlen)
{
	char e[300];
	if (len > MF_DOC_MAX) {
		snprintf(err, errlen, "larger than 64 KiB");
		return -1;
	}
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		snprintf(err, errlen, "begins with a byte order mark (write plain UTF-8 JSON)");
		return -1;
	}
	const char *nul = memchr(buf, 0, len);
	if (nul) {
		snprintf(err, errlen, "contains a NUL byte at offset %zu", (size_t)(nul - buf));
		return -1;
	}
	struct json *v;
	if (json_parse(a, buf, len, &v, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	if (v->kind != JSON_OBJECT) {
		snprintf(err, errlen, "is a JSON %s, not an object", json_kind_name(v->kind));
		return -1;
	}
	*out = v;
	return 0;
}

/* A ref held by a document: a string that follows the workspace ref rule. */
static int doc_ref(const struct json *doc, const char *key, bool required, const char **out, char *err, size_t errlen)
{
	const struct json *v = json_get(doc, key);
	*out = NULL;
	if (!v) {
		if (required)
			snprintf(err, errlen, "has no '%s'", key);
		return required ? -1 : 0;
	}
	if (v->kind != JSON_STRING) {
		snprintf(err, errlen, "'%s' is not a string", key);
		return -1;
	}
	if (!ag_ws_ref_ok(v->u.str.s)) {
		snprintf(err, errlen, "'%s' '%.*s' is not a relative reference inside the workspace", key, ag_utf8_clip(v->u.str.s, 200),
			 v->u.str.s);
		return -1;
	}
	*out = v->u.str.s;
	return 0;
}

static int doc_schema(const struct json *doc, const char *schema, char *err, size_t errlen)
{
	const char *s = json_get_str(doc, "schema_version");
	if (!nd_schema_is(s, schema)) {
		snprintf(err, errlen, "'schema_version' is not \"%s\"", schema);
		return -1;
	}
	const struct json *d = json_get(doc, "description");
	if (d && d->kind != JSON_STRING) {
		snprintf(err, errlen, "'description' is not a string");
		return -1;
	}
	return 0;
}

/* The prologue of every document reader: ag_mf_doc, only the keys listed, then doc_schema. */
static int doc_read(struct arena *a, const char *buf, size_t len, const char *const *keys, size_t nkeys, const char *schema,
		    struct json **doc, char *err, size_t errlen)
{
	char e[300];
	if (ag_mf_doc(a, buf, len, doc, err, errlen))
		return -1;
	if (nd_check_keys(*doc, keys, nkeys, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	return doc_schema(*doc, schema, err, errlen);
}

int ag_mf_run_config(struct arena *a, const char *buf, size_t len, struct run_config *rc, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "trace_ref", "history_trace_ref", "description" };
	struct json *doc;
	if (doc_read(a, buf, len, ND_KEYS(keys), MF_RUN_CONFIG_SCHEMA, &doc, err, errlen) ||
	    doc_ref(doc, "trace_ref", true, &rc->trace_ref, err, errlen) ||
	    doc_ref(doc, "history_trace_ref", false, &rc->history_trace_ref, err, errlen))
		return -1;
	return 0;
}

int ag_mf_run_set(struct arena *a, const char *buf, size_t len, struct json **ids_out, char *err, size_t errlen)
{
	static const char *const keys[] = { "schema_version", "run_config_ids", "description" };
	struct json *doc;
	if (doc_read(a, buf, len, ND_KEYS(keys), MF_RUN_SET_SCHEMA, &doc, err, errlen))
		return -1;
	struct json *ids = json_get(doc, "run_config_ids");
	if (!ids || ids->kind != JSON_ARRAY || ids->u.arr.n < 1 || ids->u.arr.n > MF_RUN_SET_MAX) {
		snprintf(err, errlen, "'run_config_ids' is not an array of 1-12 unique run config ids");
		return -1;
	}
	for (size_t i = 0; i < ids->u.arr.n; i++) {
		const struct json *v = ids->u.arr.items[i];
		if (v->kind != JSON_STRING || !ag_ws_id_ok(v->u.str.s)) {
			snprintf(err, errlen, "'run_config_ids[%zu]' is not a run config id", i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v->u.str.s, ids->u.arr.items[j]->u.str.s)) {
				snprintf(err, errlen, "'run_config_ids[%zu]' repeats '%s': 1-12 unique run config ids", i, v->u.str.s);
				return -1;
			}
	}
	*ids_out = ids;
	return 0;
}

static int sim_record(const struct json *rec, struct run_set_simulation *s, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"type", "run_config_id", "action_id", "repetitions", "deterministic", "result_fingerprint", "metrics_ref", "metrics_fingerprint",
	};
	char e[300];
	const char *type = json_get_str(rec, "type");
	if (!type || strcmp(type, "run_set_simulation")) {
		snprintf(err, errlen, "not a run_set_simulation record");
		return -1;
	}
	if (nd_check_keys(rec, ND_KEYS(keys), e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	s->run_config_id = json_get_str(rec, "run_config_id");
	s->action_id = json_get_str(rec, "action_id");
	if (!s->run_config_id || !ag_ws_id_ok(s->run_config_id)) {
		snprintf(err, errlen, "'run_config_id' is not a run config id");
		return -1;
	}
	if (!s->action_id || !ag_ws_id_ok(s->action_id)) {
		snprintf(err, errlen, "'action_id' is not an action id");
		return -1;
	}
	return doc_ref(rec, "metrics_ref", true, &s->metrics_ref, err, errlen);
}

int ag_mf_simulations(struct arena *a, const char *path, struct run_set_simulation **sims_out, size_t *n_out, char *err, size_t errlen)
{
	enum { MAX = MF_RUN_SET_MAX * MF_ACTIONS_MAX };
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -1;
	struct run_set_simulation *sims = arena_alloc(a, MAX * sizeof *sims);
	size_t n = 0, configs = 0;
	bool header = false, ended = false;
	struct json *rec;
	enum nd_event ev = ND_EOF;
	int rc = 0;
	char e[400];
	while (!rc && (ev = ndr_next(r, a, &rec, err, errlen)) > 0) {
		if (ev == ND_HEADER) {
			const char *schema = json_get_str(rec, "schema");
			if (header || !schema || strcmp(schema, MF_SIMULATIONS_SCHEMA)) {
				ndr_errorf(r, err, errlen, header ? "expected one stream" : "not a %s stream", MF_SIMULATIONS_SCHEMA);
				rc = -1;
			}
			header = true;
		} else if (ev == ND_RECORD) {
			struct run_set_simulation s;
			if (n == MAX) {
				ndr_errorf(r, err, errlen, "more than %d simulations", MAX);
				rc = -1;
			} else if (sim_record(rec, &s, e, sizeof e)) {
				ndr_errorf(r, err, errlen, "%s", e);
				rc = -1;
			} else {
				size_t same_config = 0;
				for (size_t i = 0; i < n && !rc; i++) {
					if (strcmp(sims[i].run_config_id, s.run_config_id))
						continue;
					same_config++;
					if (!strcmp(sims[i].action_id, s.action_id)) {
						ndr_errorf(r, err, errlen, "a second simulation of '%s' on '%s'", s.action_id, s.run_config_id);
						rc = -1;
					}
				}
				if (!rc && same_config == MF_ACTIONS_MAX) {
					ndr_errorf(r, err, errlen, "more than %d actions on run config '%s'", MF_ACTIONS_MAX, s.run_config_id);
					rc = -1;
				}
				if (!rc && !same_config && ++configs > MF_RUN_SET_MAX) {
					ndr_errorf(r, err, errlen, "more than %d run configs", MF_RUN_SET_MAX);
					rc = -1;
				}
				if (!rc)
					sims[n++] = s;
			}
		} else if (ev == ND_END)
			ended = true;
	}
	if (!rc && ev == ND_ERROR)
		rc = -1;
	if (!rc && !ended) {
		snprintf(err, errlen, "%s: empty input", path);
		rc = -1;
	}
	if (!rc && n == 0) {
		snprintf(err, errlen, "%s: no simulations", path);
		rc = -1;
	}
	ndr_close(r);
	*sims_out = sims;
	*n_out = n;
	return rc;
}
