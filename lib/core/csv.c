#include "core/csv.h"
#include "core/xalloc.h"
#include "core/text.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void csv_init(struct csv_reader *c, struct zio_reader *z)
{
	memset(c, 0, sizeof *c);
	c->z = z;
	c->next_line = 1;
	sb_init(&c->buf);
	sb_init(&c->conv);
}

void csv_set_latin1(struct csv_reader *c, bool latin1)
{
	c->latin1 = latin1;
}

void csv_release(struct csv_reader *c)
{
	sb_release(&c->buf);
	sb_release(&c->conv);
	free(c->offs);
	free(c->lens);
	free(c->fields);
}

static void end_field(struct csv_reader *c, size_t start)
{
	if (c->nfields == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->offs = xrealloc(c->offs, c->cap * sizeof *c->offs);
		c->lens = xrealloc(c->lens, c->cap * sizeof *c->lens);
		c->fields = xrealloc(c->fields, c->cap * sizeof *c->fields);
	}
	c->offs[c->nfields] = start;
	c->lens[c->nfields] = c->buf.len - start;
	c->nfields++;
	sb_addc(&c->buf, 0);
}

/* Check (or transcode) one physical line before it is parsed: 0, or -1 + "PATH:LINE: ...". */
static int text_line(struct csv_reader *c, unsigned long line_no, const char **line, size_t *len, char *err, size_t errlen)
{
	size_t bad = text_utf8_bad(*line, *len);
	if (bad == *len)
		return 0;
	const char *nul = memchr(*line, 0, *len);
	if (nul) {
		snprintf(err, errlen, "%s:%lu: NUL byte at column %zu", zr_name(c->z), line_no, (size_t)(nul - *line) + 1);
		return -1;
	}
	if (!c->latin1) {
		snprintf(err, errlen, "%s:%lu: not valid UTF-8 (byte 0x%02x at column %zu)", zr_name(c->z), line_no,
			 (unsigned char)(*line)[bad], bad + 1);
		return -1;
	}
	sb_reset(&c->conv);
	text_latin1_to_utf8(&c->conv, *line, *len);
	*line = c->conv.buf;
	*len = c->conv.len;
	return 0;
}

int csv_next(struct csv_reader *c, char *err, size_t errlen)
{
	const char *line;
	size_t len;
	bool nl;
	char zerr[256];
	int rc;
	sb_reset(&c->buf);
	c->nfields = 0;
	rc = zr_getline(c->z, &line, &len, &nl, zerr, sizeof zerr);
	if (rc < 0) {
		snprintf(err, errlen, "%s", zerr);
		return -1;
	}
	if (rc == 0)
		return 0;
	c->lineno = c->next_line++;
	if (text_line(c, c->lineno, &line, &len, err, errlen))
		return -1;
	size_t start = 0, i = 0;
	bool quoted = false, after_quote = false;
	sb_add(&c->buf, "", 0);
	for (;;) {
		if (i == len) {
			if (quoted) {
				/* newline inside a quoted field: continue with the next line */
				rc = zr_getline(c->z, &line, &len, &nl, zerr, sizeof zerr);
				if (rc < 0) {
					snprintf(err, errlen, "%s", zerr);
					return -1;
				}
				if (rc == 0) {
					snprintf(err, errlen, "%s:%lu: unterminated quoted field", zr_name(c->z), c->lineno);
					return -1;
				}
				if (text_line(c, c->next_line, &line, &len, err, errlen))
					return -1;
				c->next_line++;
				if (c->buf.len + len >= ZIO_MAX_LINE) {
					snprintf(err, errlen, "%s:%lu: record longer than %d bytes (the limit, docs/hardening.md)", zr_name(c->z),
						 c->lineno, ZIO_MAX_LINE);
					return -1;
				}
				sb_addc(&c->buf, '\n');
				i = 0;
				continue;
			}
			if (len && line[len - 1] == '\r' && !after_quote && c->buf.len > start && c->buf.buf[c->buf.len - 1] == '\r')
				c->buf.len--, c->buf.buf[c->buf.len] = 0;
			end_field(c, start);
			break;
		}
		char ch = line[i++];
		if (quoted) {
			if (ch == '"') {
				if (i < len && line[i] == '"') {
					sb_addc(&c->buf, '"');
					i++;
				} else {
					quoted = false;
					after_quote = true;
				}
			} else
				sb_addc(&c->buf, ch);
		} else if (ch == ',') {
			end_field(c, start);
			start = c->buf.len;
			after_quote = false;
		} else if (ch == '"' && c->buf.len == start && !after_quote) {
			quoted = true;
		} else if (after_quote && ch == '\r' && i == len) {
			/* CRLF after a closing quote */
		} else if (after_quote) {
			snprintf(err, errlen, "%s:%lu: unexpected character after closing quote", zr_name(c->z), c->lineno);
			return -1;
		} else
			sb_addc(&c->buf, ch);
	}
	for (size_t k = 0; k < c->nfields; k++)
		c->fields[k] = c->buf.buf + c->offs[k];
	return 1;
}

int csv_column(const struct csv_reader *c, const char *name)
{
	for (size_t i = 0; i < c->nfields; i++)
		if (!strcmp(c->fields[i], name))
			return (int)i;
	return -1;
}

char *csv_trim(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}
