/*
 * csv — RFC 4180 records from a zio_reader: comma separated, '"' quoting with '""'
 * escapes, quoted fields may span lines, "\r\n" accepted. Fields point into the
 * reader's buffer and stay valid until the next csv_next call.
 * Text is UTF-8: a line with invalid UTF-8 or a NUL byte is an error ("PATH:LINE: ...")
 * unless the reader was told the file is ISO-8859-1 (csv_set_latin1), in which case every
 * line is transcoded to UTF-8 first (NUL is still an error). A record is at most
 * ZIO_MAX_LINE bytes.
 */
#ifndef SCHEDNAV_CSV_H
#define SCHEDNAV_CSV_H
#include "core/strbuf.h"
#include "core/zio.h"
#include <stdbool.h>
#include <stddef.h>

struct csv_reader {
	struct zio_reader *z;
	unsigned long lineno;        /* first line of the current record */
	unsigned long next_line;
	struct strbuf buf;           /* unescaped field bytes, NUL-separated */
	size_t *offs, *lens;
	size_t nfields, cap;
	char **fields;               /* NUL-terminated views into buf */
	bool latin1;                 /* transcode every line from ISO-8859-1 */
	struct strbuf conv;          /* the transcoded line */
};

void csv_init(struct csv_reader *c, struct zio_reader *z);
void csv_release(struct csv_reader *c);
void csv_set_latin1(struct csv_reader *c, bool latin1);
/* 1 = a record (c->fields[0..nfields)), 0 = end of input, -1 = error in err. */
int csv_next(struct csv_reader *c, char *err, size_t errlen);
/* Index of a header column, or -1. */
int csv_column(const struct csv_reader *c, const char *name);
/* Trim ASCII whitespace in place (Python str.strip()); returns s. */
char *csv_trim(char *s);
#endif
