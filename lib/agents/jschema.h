/*
 * jschema — the subset of JSON Schema (2020-12) the bridge's tool input schemas use, so the
 * schema a client is shown is the one its arguments are checked against: type (one or a
 * list), const, enum, properties, required, additionalProperties false, pattern (POSIX
 * extended), minLength/maxLength, minimum/maximum, items, minItems/maxItems, uniqueItems
 * and oneOf. Anything else in a schema is refused by ag_jschema_check, so a keyword is never
 * silently ignored. Nothing here prints or exits; messages name the JSON path.
 */
#ifndef SCHEDNAV_AGENTS_JSCHEMA_H
#define SCHEDNAV_AGENTS_JSCHEMA_H
#include "core/json.h"
#include <stddef.h>

/* 0 when schema uses only the supported keywords (and its patterns compile); else -1. */
int ag_jschema_check(const struct json *schema, char *err, size_t errlen);
/* 0 when v satisfies schema; else -1 and "PATH: message" (PATH like arguments.action_ids[2]). */
int ag_jschema_validate(const struct json *schema, const struct json *v, const char *path, char *err, size_t errlen);
/* The longest prefix of s (at most max bytes) that ends on a UTF-8 character boundary: what a
 * message may quote of a (valid UTF-8) input string without writing a broken sequence. */
int ag_utf8_clip(const char *s, int max);
#endif
