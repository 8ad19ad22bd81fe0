/*
 * text — the one UTF-8 validator and the one identifier rule every input goes through
 * (docs/hardening.md). Every byte a tool writes is valid UTF-8 JSON, so text from any
 * source (command-line arguments, CSV cells, JSON strings, file names) is checked here
 * before it can reach an output; identifiers (ids, names, action ids, models, tenants)
 * must in addition be printable: no control character can reach a terminal, a gnuplot
 * script or a page. Nothing here allocates except text_latin1_to_utf8 (into the caller's
 * strbuf); nothing prints or exits.
 */
#ifndef SCHEDNAV_TEXT_H
#define SCHEDNAV_TEXT_H
#include "core/strbuf.h"
#include <stdbool.h>
#include <stddef.h>

/* Longest identifier accepted, in bytes. */
#define TEXT_ID_MAX 1024

/* Offset of the first byte that is not part of valid UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF) or is NUL; len when all of s[0..len) is clean. */
size_t text_utf8_bad(const char *s, size_t len);
bool text_utf8_ok(const char *s, size_t len);                 /* text_utf8_bad(s, len) == len */

/* The identifier rule: 1..TEXT_ID_MAX bytes of valid UTF-8 without NUL, C0 or C1 control
 * characters, DEL, U+2028/U+2029, and without white space at either end. NULL when s
 * follows it, else a short reason ("contains a control character", ...). */
const char *text_id_problem(const char *s, size_t len);
/* The rule for free text (a reason, a description): valid UTF-8, no NUL, no control
 * character other than tab and newline. NULL or a reason. */
const char *text_plain_problem(const char *s, size_t len);

/* Append s[0..len), read as ISO-8859-1, to sb as UTF-8 (every byte is a code point). */
void text_latin1_to_utf8(struct strbuf *sb, const char *s, size_t len);

/* s[0..len) for a diagnostic: printable ASCII kept, every other byte as \xNN, cut to about
 * 80 bytes ("..." marks the cut). out always NUL-terminated. */
void text_quote(char *out, size_t outlen, const char *s, size_t len);
#endif
