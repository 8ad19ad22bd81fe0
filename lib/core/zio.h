/*
 * zio — byte streams with transparent zstd. Readers sniff the zstd magic on every input
 * (paths or stdin) and hand out lines; writers compress when the path ends in ".zst" and
 * write PATH.tmp, renamed into place only by zw_commit. Any writer not committed when
 * the process exits has its temporary file removed, so a failed tool leaves no partial
 * output. Functions return 0 / -1 with a message in err; they never print or exit.
 */
#ifndef SCHEDNAV_ZIO_H
#define SCHEDNAV_ZIO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zio_reader;
/* path "-" or NULL = stdin. want_sha256 also hashes the raw bytes with SHA-256. */
struct zio_reader *zr_open(const char *path, bool want_sha256, char *err, size_t errlen);
/* Next line without its '\n'. 1 = line, 0 = end of input, -1 = error. *has_nl tells
 * whether the line was terminated (only the last line of an input can lack it).
 * The line stays valid until the next call. */
int zr_getline(struct zio_reader *r, const char **line, size_t *len, bool *has_nl, char *err, size_t errlen);
const char *zr_name(const struct zio_reader *r);         /* path, or "<stdin>" */
uint64_t zr_raw_bytes(const struct zio_reader *r);       /* raw bytes read so far */
void zr_raw_xxh3(struct zio_reader *r, char out[33]);    /* of raw bytes read so far */
void zr_raw_sha256(struct zio_reader *r, char out[65]);  /* only if want_sha256; finalises */
void zr_close(struct zio_reader *r);
/* Read a whole file (decompressed) into a malloc'd buffer. */
int zio_slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen);

struct zio_writer;
/* path "-" or NULL = stdout (compressed only if force_zstd). */
struct zio_writer *zw_open(const char *path, bool force_zstd, char *err, size_t errlen);
int zw_write(struct zio_writer *w, const void *p, size_t n, char *err, size_t errlen);
int zw_commit(struct zio_writer *w, char *err, size_t errlen);  /* flush, close, rename; frees w */
void zw_abort(struct zio_writer *w);                               /* remove tmp; frees w */
#endif
