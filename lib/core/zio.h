/*
 * zio — byte streams with transparent zstd. Readers sniff the zstd magic on every input
 * (paths or stdin; a frame or a skippable frame) and hand out lines of at most
 * ZIO_MAX_LINE bytes, so memory stays bounded whatever the input (a zstd bomb, a file
 * without newlines). Writers compress when the path ends in ".zst" and write a temporary
 * file of their own beside the target (PATH.XXXXXX.tmp, made by mkstemps: two writers of
 * the same path never share one), renamed into place only by zw_commit. Any writer not
 * committed when the process exits has its temporary file removed, so a failed tool
 * leaves no partial output. Functions return 0 / -1 with a message in err; they never
 * print or exit.
 */
#ifndef SCHEDNAV_ZIO_H
#define SCHEDNAV_ZIO_H
#include "core/fp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ZIO_MAX_LINE (1 << 26)      /* 64 MiB: longest line (record) any reader accepts */
#define ZIO_MAX_SLURP (1 << 26)     /* 64 MiB: largest file read whole (configs, policies) */
#define ZIO_TMP_SUFFIX ".XXXXXX.tmp" /* the temporary file beside PATH: PATH.XXXXXX.tmp */

struct zio_reader;
/* path "-" or NULL = stdin. want_sha256 also hashes the raw bytes with SHA-256. */
struct zio_reader *zr_open(const char *path, bool want_sha256, char *err, size_t errlen);
/* Next line without its '\n'. 1 = line, 0 = end of input, -1 = error (a line longer than
 * ZIO_MAX_LINE is one: "PATH:LINE: line longer than ..."). *has_nl tells whether the line
 * was terminated (only the last line of an input can lack it). The line stays valid until
 * the next call. */
int zr_getline(struct zio_reader *r, const char **line, size_t *len, bool *has_nl, char *err, size_t errlen);
/* Up to cap decoded bytes (not lines) into buf: the count, 0 at end of input, -1 on error. */
ssize_t zr_read(struct zio_reader *r, void *buf, size_t cap, char *err, size_t errlen);
/* The rest of the input, decoded, into a malloc'd buffer (NUL-terminated); at most ZIO_MAX_SLURP bytes. */
int zr_slurp(struct zio_reader *r, char **buf, size_t *len, char *err, size_t errlen);
const char *zr_name(const struct zio_reader *r);         /* path, or "<stdin>" */
unsigned long zr_lineno(const struct zio_reader *r);     /* lines handed out by zr_getline so far */
bool zio_is_zstd_magic(const unsigned char m[4]);         /* a zstd frame or skippable frame starts */
uint64_t zr_raw_bytes(const struct zio_reader *r);       /* raw bytes read so far */
void zr_raw_xxh3(struct zio_reader *r, char out[FP_HEX_XXH3]);    /* of raw bytes read so far */
void zr_raw_sha256(struct zio_reader *r, char out[65]);  /* only if want_sha256; finalises */
void zr_close(struct zio_reader *r);
/* Read a whole file (decompressed, at most ZIO_MAX_SLURP bytes) into a malloc'd buffer. */
int zio_slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen);
/* The XXH3-128 and size of a whole file as zio_slurp reads it (decompressed): a config's fingerprint. */
int zio_xxh3(const char *path, char out[FP_HEX_XXH3], size_t *len, char *err, size_t errlen);

struct zio_writer;
/* path "-" or NULL = stdout (compressed only if force_zstd). */
struct zio_writer *zw_open(const char *path, bool force_zstd, char *err, size_t errlen);
int zw_write(struct zio_writer *w, const void *p, size_t n, char *err, size_t errlen);
int zw_commit(struct zio_writer *w, char *err, size_t errlen);  /* flush, close, rename; frees w */
void zw_abort(struct zio_writer *w);                               /* remove tmp; frees w */
/* DIR/NAME, one '/' between them (none added when dir ends in one); xmalloc'd. */
char *zio_join_path(const char *dir, const char *name);

#endif
