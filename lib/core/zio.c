#include "core/zio.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define RAW_CHUNK (1 << 17)

struct zio_reader {
	int fd;
	char *name;
	unsigned char *raw;           /* raw input buffer */
	size_t raw_len, raw_pos, raw_cap;
	bool raw_eof, sniffed, zstd;
	ZSTD_DCtx *dctx;
	size_t zret;                  /* last ZSTD_decompressStream result: 0 = frame complete */
	unsigned char *dec;           /* decoded bytes */
	size_t dec_len, dec_pos, dec_cap;
	struct strbuf line;
	unsigned long lineno;         /* lines handed out so far */
	uint64_t raw_bytes;
	struct fp_xxh3 xxh;
	bool want_sha;
	struct fp_sha256 sha;
};

struct zio_reader *zr_open(const char *path, bool want_sha256, char *err, size_t errlen)
{
	int fd;
	if (!path || !strcmp(path, "-"))
		fd = 0;
	else if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct zio_reader *r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->name = xstrdup(fd == 0 ? "<stdin>" : path);
	/* a small regular file gets small buffers (configs, fixtures, fuzz inputs): the raw
	 * buffer holds it whole, the decoded one grows to zstd's block size only for zstd */
	struct stat st;
	r->raw_cap = RAW_CHUNK;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < RAW_CHUNK)
		r->raw_cap = (size_t)st.st_size < 4096 ? 4096 : (size_t)st.st_size + 1;
	r->raw = xmalloc(r->raw_cap);
	r->dec_cap = r->raw_cap;
	r->dec = xmalloc(r->dec_cap);
	sb_init(&r->line);
	fp_xxh3_init(&r->xxh);
	r->want_sha = want_sha256;
	if (want_sha256)
		fp_sha256_init(&r->sha);
	return r;
}

static int fill_raw(struct zio_reader *r, char *err, size_t errlen)
{
	if (r->raw_pos < r->raw_len || r->raw_eof)
		return 0;
	ssize_t n;
	do
		n = read(r->fd, r->raw, r->raw_cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(err, errlen, "%s: read error: %s", r->name, strerror(errno));
		return -1;
	}
	r->raw_pos = 0;
	r->raw_len = (size_t)n;
	if (n == 0)
		r->raw_eof = true;
	r->raw_bytes += (uint64_t)n;
	fp_xxh3_update(&r->xxh, r->raw, (size_t)n);
	if (r->want_sha)
		fp_sha256_update(&r->sha, r->raw, (size_t)n);
	return 0;
}

/* Make decoded bytes available; returns 0 with dec_pos<dec_len, or 0 with nothing at EOF. */
static int fill_dec(struct zio_reader *r, char *err, size_t errlen)
{
	while (r->dec_pos >= r->dec_len) {
		if (fill_raw(r, err, errlen))
			return -1;
		if (!r->sniffed) {
			/* Gather up to 4 bytes to sniff the zstd magic even from a trickling pipe. */
			unsigned char magic[4];
			size_t have = 0;
			while (have < 4) {
				if (r->raw_pos >= r->raw_len) {
					if (r->raw_eof)
						break;
					if (fill_raw(r, err, errlen))
						return -1;
					continue;
				}
				magic[have++] = r->raw[r->raw_pos++];
			}
			r->sniffed = true;
			r->zstd = have == 4 && zio_is_zstd_magic(magic);
			if (r->zstd) {
				r->dec_cap = ZSTD_DStreamOutSize();
				free(r->dec);
				r->dec = xmalloc(r->dec_cap);
				r->dctx = xnonnull(ZSTD_createDCtx());
				ZSTD_inBuffer in = { magic, 4, 0 };
				ZSTD_outBuffer out = { r->dec, r->dec_cap, 0 };
				r->zret = ZSTD_decompressStream(r->dctx, &out, &in);
				if (ZSTD_isError(r->zret)) {
					snprintf(err, errlen, "%s: zstd: %s", r->name, ZSTD_getErrorName(r->zret));
					return -1;
				}
				r->dec_len = out.pos;
				r->dec_pos = 0;
			} else {
				memcpy(r->dec, magic, have);
				r->dec_len = have;
				r->dec_pos = 0;
			}
			if (r->dec_len)
				return 0;
			continue;
		}
		if (r->raw_pos >= r->raw_len) {
			if (r->raw_eof) {
				if (r->zstd && r->zret != 0) {
					snprintf(err, errlen, "%s: truncated zstd stream", r->name);
					return -1;
				}
				return 0;
			}
			continue;
		}
		if (!r->zstd) {
			size_t n = r->raw_len - r->raw_pos;
			if (n > r->dec_cap)
				n = r->dec_cap;
			memcpy(r->dec, r->raw + r->raw_pos, n);
			r->raw_pos += n;
			r->dec_len = n;
			r->dec_pos = 0;
		} else {
			ZSTD_inBuffer in = { r->raw, r->raw_len, r->raw_pos };
			ZSTD_outBuffer out = { r->dec, r->dec_cap, 0 };
			r->zret = ZSTD_decompressStream(r->dctx, &out, &in);
			if (ZSTD_isError(r->zret)) {
				snprintf(err, errlen, "%s: zstd: %s", r->name, ZSTD_getErrorName(r->zret));
				return -1;
			}
			r->raw_pos = in.pos;
			r->dec_len = out.pos;
			r->dec_pos = 0;
		}
	}
	return 0;
}

bool zio_is_zstd_magic(const unsigned char m[4])
{
	/* a frame (28 b5 2f fd) or a skippable frame (5? 2a 4d 18), both little-endian */
	return (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
	       ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18);
}

static int too_long(struct zio_reader *r, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%lu: line longer than %d bytes (the limit of every SchedNav reader, docs/hardening.md)", r->name,
		 r->lineno + 1, ZIO_MAX_LINE);
	return -1;
}

int zr_getline(struct zio_reader *r, const char **line, size_t *len, bool *has_nl, char *err, size_t errlen)
{
	sb_reset(&r->line);
	for (;;) {
		if (fill_dec(r, err, errlen))
			return -1;
		if (r->dec_pos >= r->dec_len) {
			if (r->line.len == 0)
				return 0;
			*line = r->line.buf;
			*len = r->line.len;
			*has_nl = false;
			r->lineno++;
			return 1;
		}
		unsigned char *s = r->dec + r->dec_pos;
		size_t avail = r->dec_len - r->dec_pos;
		unsigned char *nl = memchr(s, '\n', avail);
		size_t take = nl ? (size_t)(nl - s) : avail;
		if (take > ZIO_MAX_LINE - r->line.len)
			return too_long(r, err, errlen);
		if (nl) {
			sb_add(&r->line, s, (size_t)(nl - s));
			r->dec_pos += (size_t)(nl - s) + 1;
			if (!r->line.buf)
				sb_add(&r->line, "", 0);
			*line = r->line.buf;
			*len = r->line.len;
			*has_nl = true;
			r->lineno++;
			return 1;
		}
		sb_add(&r->line, s, avail);
		r->dec_pos = r->dec_len;
	}
}

ssize_t zr_read(struct zio_reader *r, void *buf, size_t cap, char *err, size_t errlen)
{
	if (fill_dec(r, err, errlen))
		return -1;
	size_t n = r->dec_len - r->dec_pos;
	if (n > cap)
		n = cap;
	memcpy(buf, r->dec + r->dec_pos, n);
	r->dec_pos += n;
	return (ssize_t)n;
}

int zr_slurp(struct zio_reader *r, char **buf, size_t *len, char *err, size_t errlen)
{
	struct strbuf sb;
	sb_init(&sb);
	for (;;) {
		if (fill_dec(r, err, errlen)) {
			sb_release(&sb);
			return -1;
		}
		size_t n = r->dec_len - r->dec_pos;
		if (n == 0)
			break;
		if (n > ZIO_MAX_SLURP - sb.len) {
			snprintf(err, errlen, "%s: larger than %d bytes (the limit for a whole file read at once, docs/hardening.md)", r->name,
				 ZIO_MAX_SLURP);
			sb_release(&sb);
			return -1;
		}
		sb_add(&sb, r->dec + r->dec_pos, n);
		r->dec_pos = r->dec_len;
	}
	if (!sb.buf)
		sb_add(&sb, "", 0);
	*buf = sb.buf;
	*len = sb.len;
	return 0;
}

const char *zr_name(const struct zio_reader *r) { return r->name; }
unsigned long zr_lineno(const struct zio_reader *r) { return r->lineno; }
uint64_t zr_raw_bytes(const struct zio_reader *r) { return r->raw_bytes; }
void zr_raw_xxh3(struct zio_reader *r, char out[FP_HEX_XXH3]) { fp_xxh3_hex(&r->xxh, out); }
void zr_raw_sha256(struct zio_reader *r, char out[65]) { fp_sha256_hex(&r->sha, out); }

void zr_close(struct zio_reader *r)
{
	if (!r)
		return;
	if (r->fd > 0)
		close(r->fd);
	if (r->dctx)
		ZSTD_freeDCtx(r->dctx);
	fp_xxh3_release(&r->xxh);
	fp_sha256_release(&r->sha);     /* unless zr_raw_sha256 finalised it */
	sb_release(&r->line);
	free(r->raw);
	free(r->dec);
	free(r->name);
	free(r);
}

int zio_slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct zio_reader *r = zr_open(path, false, err, errlen);
	if (!r)
		return -1;
	int rc = zr_slurp(r, buf, len, err, errlen);
	zr_close(r);
	return rc;
}

int zio_xxh3(const char *path, char out[FP_HEX_XXH3], size_t *len, char *err, size_t errlen)
{
	char *buf;
	if (zio_slurp(path, &buf, len, err, errlen))
		return -1;
	fp_xxh3_of(buf, *len, out);
	free(buf);
	return 0;
}

/* ---- writer ---- */

struct zio_writer {
	int fd;
	char *path, *tmp;
	ZSTD_CCtx *cctx;
	unsigned char *out;
	size_t out_cap;
	unsigned char buf[1 << 16];
	size_t buf_len;
	int failed;
	int direct;                   /* fd is a device/pipe opened by path: no tmp */
	struct zio_writer *next_open;
};

static struct zio_writer *open_writers;
static bool atexit_registered;

static void cleanup_writers(void)
{
	for (struct zio_writer *w = open_writers; w; w = w->next_open)
		if (w->tmp)
			unlink(w->tmp);
}

static void unlink_open(struct zio_writer *w)
{
	for (struct zio_writer **p = &open_writers; *p; p = &(*p)->next_open)
		if (*p == w) {
			*p = w->next_open;
			return;
		}
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* The mode a plain creat(path, 0666) would give: mkstemp makes 0600 files. */
static mode_t create_mode(void)
{
	static mode_t mode;
	static bool known;
	if (!known) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
		known = true;
	}
	return mode;
}

struct zio_writer *zw_open(const char *path, bool force_zstd, char *err, size_t errlen)
{
	struct zio_writer *w = xcalloc(1, sizeof *w);
	bool zstd = force_zstd;
	struct stat st;
	if (!path || !strcmp(path, "-"))
		w->fd = 1;
	else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or pipe (/dev/stdout, a FIFO): write through, nothing to rename. */
		zstd = zstd || ends_with(path, ".zst");
		w->fd = open(path, O_WRONLY);
		if (w->fd < 0) {
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
			free(w);
			return NULL;
		}
		w->path = xstrdup(path);
		w->direct = 1;
	} else {
		/* A temporary file of our own beside the target (mkstemp: a name no other writer
		 * can have, created O_EXCL), renamed over it only by zw_commit. */
		zstd = zstd || ends_with(path, ".zst");
		w->path = xstrdup(path);
		size_t n = strlen(path) + sizeof ZIO_TMP_SUFFIX;
		w->tmp = xmalloc(n);
		snprintf(w->tmp, n, "%s" ZIO_TMP_SUFFIX, path);
		w->fd = mkstemps(w->tmp, 4);
		if (w->fd < 0 || fchmod(w->fd, create_mode()) != 0) {
			snprintf(err, errlen, "cannot create a temporary file for '%s': %s", path, strerror(errno));
			if (w->fd >= 0) {
				close(w->fd);
				unlink(w->tmp);
			}
			free(w->path);
			free(w->tmp);
			free(w);
			return NULL;
		}
		if (!atexit_registered) {
			atexit(cleanup_writers);
			atexit_registered = true;
		}
		w->next_open = open_writers;
		open_writers = w;
	}
	if (zstd) {
		w->cctx = xnonnull(ZSTD_createCCtx());
		/* Level 1: on a study's result streams (15 MB of NDJSON per simulation) it costs a third
		 * of level 6's CPU for files 3 % larger; compression was a third of each simulation. */
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, 1);
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
		w->out_cap = ZSTD_CStreamOutSize();
		w->out = xmalloc(w->out_cap);
	}
	return w;
}

static const char *path_or(const struct zio_writer *w)
{
	return w->path ? w->path : "<stdout>";
}

static int write_all(struct zio_writer *w, const void *p, size_t n, char *err, size_t errlen)
{
	const unsigned char *s = p;
	while (n) {
		ssize_t k = write(w->fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(err, errlen, "write error on '%s': %s", path_or(w), strerror(errno));
			w->failed = 1;
			return -1;
		}
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

static int flush_buf(struct zio_writer *w, ZSTD_EndDirective mode, char *err, size_t errlen)
{
	if (!w->cctx) {
		int rc = write_all(w, w->buf, w->buf_len, err, errlen);
		w->buf_len = 0;
		return rc;
	}
	ZSTD_inBuffer in = { w->buf, w->buf_len, 0 };
	for (;;) {
		ZSTD_outBuffer out = { w->out, w->out_cap, 0 };
		size_t rem = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(rem)) {
			snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(rem));
			return -1;
		}
		if (write_all(w, w->out, out.pos, err, errlen))
			return -1;
		if (mode == ZSTD_e_end ? rem == 0 : in.pos == in.size)
			break;
	}
	w->buf_len = 0;
	return 0;
}

int zw_write(struct zio_writer *w, const void *p, size_t n, char *err, size_t errlen)
{
	const unsigned char *s = p;
	if (w->failed) {
		snprintf(err, errlen, "write error on '%s'", path_or(w));
		return -1;
	}
	while (n) {
		size_t k = sizeof w->buf - w->buf_len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->buf_len, s, k);
		w->buf_len += k;
		s += k;
		n -= k;
		if (w->buf_len == sizeof w->buf && flush_buf(w, ZSTD_e_continue, err, errlen))
			return -1;
	}
	return 0;
}

static void free_writer(struct zio_writer *w)
{
	unlink_open(w);
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w->path);
	free(w->tmp);
	free(w);
}

int zw_commit(struct zio_writer *w, char *err, size_t errlen)
{
	int rc = w->failed ? -1 : flush_buf(w, ZSTD_e_end, err, errlen);
	if (w->failed && rc == 0)
		snprintf(err, errlen, "write error on '%s'", path_or(w));
	if (w->direct) {
		if (close(w->fd) != 0 && rc == 0) {
			snprintf(err, errlen, "cannot close '%s': %s", path_or(w), strerror(errno));
			rc = -1;
		}
	} else if (w->fd != 1) {
		if (rc == 0 && fsync(w->fd) != 0 && errno != EINVAL) {
			snprintf(err, errlen, "cannot sync '%s': %s", w->path, strerror(errno));
			rc = -1;
		}
		if (close(w->fd) != 0 && rc == 0) {
			snprintf(err, errlen, "cannot close '%s': %s", w->path, strerror(errno));
			rc = -1;
		}
		if (rc == 0 && rename(w->tmp, w->path) != 0) {
			snprintf(err, errlen, "cannot rename '%s' to '%s': %s", w->tmp, w->path, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(w->tmp);
	}
	free_writer(w);
	return rc;
}

void zw_abort(struct zio_writer *w)
{
	if (!w)
		return;
	if (w->direct)
		close(w->fd);
	else if (w->fd != 1) {
		close(w->fd);
		unlink(w->tmp);
	}
	free_writer(w);
}

char *zio_join_path(const char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);
	bool slash = !(n && dir[n - 1] == '/');
	char *p = xmalloc(n + slash + m + 1);
	memcpy(p, dir, n);
	if (slash)
		p[n] = '/';
	memcpy(p + n + slash, name, m + 1);
	return p;
}
