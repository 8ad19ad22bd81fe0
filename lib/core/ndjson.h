/*
 * ndjson — SchedNav streams: a `header` record, body records, an `end` record carrying
 * the body's count, the XXH3-128 `fingerprint` over the exact bytes of every body line
 * (each with its '\n') and the XXH3-128 `header_fingerprint` over the header line (with
 * its '\n'). Readers verify both on every stream, refuse an end record without
 * header_fingerprint (streams before 0.2; stream-seal reseals them) and CRLF lines, and
 * accept concatenated streams; writers serialise canonically and stamp the end record.
 * Records returned by the reader live in the caller's arena. Errors come back as
 * "PATH:LINE: message" in err; nothing here prints or exits.
 */
#ifndef SCHEDNAV_NDJSON_H
#define SCHEDNAV_NDJSON_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

enum nd_event { ND_ERROR = -1, ND_EOF = 0, ND_HEADER, ND_RECORD, ND_END };

struct nd_reader;
struct nd_reader *ndr_open(const char *path, char *err, size_t errlen);   /* "-" = stdin */
/* Next record. ND_HEADER / ND_RECORD / ND_END set *rec; ND_EOF after the last complete stream. */
enum nd_event ndr_next(struct nd_reader *r, struct arena *a, struct json **rec, char *err, size_t errlen);
/* ndr_next, but each body line inside a stream is first offered to fast(ctx, line, len) (line
 * without '\n'). When fast returns 1 the line counts as a body record (hashed and counted)
 * without being parsed: ND_RECORD with *rec = NULL. fast must return 1 only for lines that
 * are JSON objects whose type is neither "header" nor "end"; 0 parses the line as usual. */
enum nd_event ndr_next_fast(struct nd_reader *r, struct arena *a, struct json **rec, int (*fast)(void *ctx, const char *line, size_t len),
			    void *ctx, char *err, size_t errlen);
const char *ndr_name(const struct nd_reader *r);
unsigned long ndr_lineno(const struct nd_reader *r);         /* line of the last record returned */
const char *ndr_raw(const struct nd_reader *r, size_t *len);   /* its bytes, without '\n' */
const char *ndr_fingerprint(const struct nd_reader *r);       /* of the stream whose end was just read */
const char *ndr_header_fingerprint(const struct nd_reader *r); /* of the current (or just ended) stream's header */
unsigned ndr_streams(const struct nd_reader *r);                /* complete streams so far */
void ndr_close(struct nd_reader *r);
/* After one whole stream: 0 at the end of the input, else -1 + "PATH:LINE: expected exactly
 * one WHAT stream" (or ndr_next's own error). Records read go into a. */
int ndr_expect_end(struct nd_reader *r, struct arena *a, const char *what, char *err, size_t errlen);
/* Format "PATH:LINE: msg" for the current record into err. */
void ndr_errorf(const struct nd_reader *r, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "PATH:LINE: message" into err (ndr_errorf's, and the importers' imp_errf). */
void nd_verrf_at(char *err, size_t errlen, const char *path, unsigned long line, const char *fmt, va_list ap);

struct nd_writer;
struct nd_writer *ndw_open(const char *path, char *err, size_t errlen);   /* "-"/NULL = stdout */
int ndw_header(struct nd_writer *w, const struct json *hdr, char *err, size_t errlen);
int ndw_record(struct nd_writer *w, const struct json *rec, char *err, size_t errlen);
int ndw_raw(struct nd_writer *w, const char *line, size_t len, char *err, size_t errlen); /* body line, no '\n' */
/* Write the end record; its fingerprint is also copied to fp_out when not NULL. */
int ndw_end(struct nd_writer *w, char fp_out[FP_HEX_XXH3], char *err, size_t errlen);
int ndw_close(struct nd_writer *w, char *err, size_t errlen);   /* commit; frees w */
void ndw_abort(struct nd_writer *w);
/* A stream of one record to path ("-"/NULL = stdout): header, rec, end, commit. On failure
 * -1 + message and nothing is committed. */
int ndw_write_one(const char *path, const struct json *hdr, const struct json *rec, char *err, size_t errlen);

/* Header helper: {"type":"header","schema":S,"tool":progname,"version":V,"inputs":[],"params":{}} */
struct json *nd_header_new(struct arena *a, const char *schema, const char *tool);
/* Append {"path":..,"schema":..,"fingerprint":..} to header.inputs. */
void nd_header_add_stream(struct arena *a, struct json *hdr, const char *path, const char *schema, const char *fingerprint);
/* Append {"path":..,"bytes":..,"xxh3":..[,"sha256":..]} to header.inputs. */
void nd_header_add_file(struct arena *a, struct json *hdr, const char *path, unsigned long long bytes, const char *xxh3, const char *sha256);
/* A config file the tool read, as a header input: nd_header_add_file with the size and
 * XXH3-128 of the whole file as zio_slurp reads it (zio_xxh3). -1 + its message if unreadable. */
int nd_header_add_config(struct arena *a, struct json *hdr, const char *path, char *err, size_t errlen);
/* Check a record's keys: every key must be one of allowed[0..n) (NULL entries are skipped, so
 * NULL-terminated lists work too). -1 + message naming the first unknown. Pass a list as
 * ND_KEYS(array): the count comes from the array itself, so it cannot run off its end. */
int nd_check_keys(const struct json *rec, const char *const *allowed, size_t n, char *err, size_t errlen);
/* Whether a document's schema id got names id. The ids SchedNav invented are spelled
 * "schednav.NAME/N"; fourteen of them were spelled "schednav.NAME/vN" before issue 20 item 8
 * (docs/design.md "Schema ids"), so for an id whose version has no 'v' the old spelling
 * (a 'v' after its last '/') is accepted too and files written before the rename still
 * load. Writers emit id itself. False when got is NULL. */
bool nd_schema_is(const char *got, const char *id);
/* "array, its element count"; refuses to compile for a pointer. */
#define ND_KEYS(arr) (arr), (sizeof(arr) / sizeof((arr)[0]) + ND_MUST_BE_ARRAY(arr))
#define ND_MUST_BE_ARRAY(a) \
	(0 * sizeof(struct { int not_an_array : __builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])) ? -1 : 1; }))
#endif
