/* chainlog — hash-chained append-only NDJSON logs (see chainlog.h). */
#include "eval/chainlog.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/evidence.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, const char *log, struct strbuf *sb, char *err, size_t errlen)
{
	char buf[65536];
	off_t off = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof buf, off);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", log, strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		sb_add(sb, buf, (size_t)n);
		off += n;
	}
}

static bool optional(const struct chainlog_spec *spec, const char *key)
{
	for (const char *const *k = spec->optional; k && *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static int check_line(struct arena *a, const char *line, size_t len, const char *where, const struct chainlog_spec *spec,
		      const char *last_fp, unsigned long count, char fp_out[FP_HEX_XXH3], struct json **out, char *err, size_t errlen)
{
	struct json *rec;
	char e[256];
	size_t nkeys = 0;
	while (spec->keys[nkeys])
		nkeys++;
	if (json_parse(a, line, len, &rec, e, sizeof e)) {
		snprintf(err, errlen, "%s: %s", where, e);
		return -1;
	}
	const char *type = json_get_str(rec, "type");
	if (rec->kind != JSON_OBJECT || !type || strcmp(type, spec->type)) {
		snprintf(err, errlen, "%s: not an '%s' record", where, spec->type);
		return -1;
	}
	if (nd_check_keys(rec, spec->keys, nkeys, e, sizeof e)) {
		snprintf(err, errlen, "%s: %s", where, e);
		return -1;
	}
	for (const char *const *k = spec->keys; *k; k++)
		if (!json_get(rec, *k) && !optional(spec, *k)) {
			snprintf(err, errlen, "%s: missing key '%s'", where, *k);
			return -1;
		}
	if (spec->check && spec->check(rec, e, sizeof e)) {
		snprintf(err, errlen, "%s: %s", where, e);
		return -1;
	}
	if (!ev_self_fp_ok(rec, spec->fp_key)) {
		snprintf(err, errlen, "%s: '%s' does not verify (the line was edited)", where, spec->fp_key);
		return -1;
	}
	struct json *prev = json_get(rec, spec->prev_key);
	bool linked = count == 0 ? prev->kind == JSON_NULL : prev->kind == JSON_STRING && !strcmp(prev->u.str.s, last_fp);
	if (!linked) {
		snprintf(err, errlen, "%s: '%s' does not match the line before (a line was removed, reordered or inserted)", where,
			 spec->prev_key);
		return -1;
	}
	snprintf(fp_out, 33, "%s", json_get_str(rec, spec->fp_key));
	*out = rec;
	return 0;
}

/* Whether tail (a last line without its newline) is what an interrupted append leaves: the
 * start of a line of this log, which json_write begins with its "type" (a prefix of it when
 * shorter), and no NUL. Anything else was not written by an append: it is not cut off. */
static bool torn_append(const char *tail, size_t n, const struct chainlog_spec *spec)
{
	char start[128];
	int w = snprintf(start, sizeof start, "{\"type\":\"%s\",", spec->type);
	size_t k = w < 0 ? 0 : n < (size_t)w ? n : (size_t)w;
	return w > 0 && (size_t)w < sizeof start && !memcmp(tail, start, k) && !memchr(tail, '\0', n);
}

/* Cut the torn tail off (fd open for writing, exclusively locked) and make that durable
 * before anything is appended after it. */
static int cut_tail(int fd, const char *log, const struct chainlog_cut *cut, char *err, size_t errlen)
{
	if (ftruncate(fd, (off_t)cut->offset) || fsync(fd)) {
		snprintf(err, errlen, "%s:%lu: cannot cut off the torn last line: %s", log, cut->line, strerror(errno));
		return -1;
	}
	return 0;
}

/* Verify the lines of buf[0..len) as lines *count + 1... of the log, chained to last_fp; *done
 * the bytes of whole lines verified, *last_start the offset of the last one. */
static int read_lines(const char *buf, size_t len, const char *log, const struct chainlog_spec *spec, struct arena *keep,
		      struct json ***recs, char last_fp[FP_HEX_XXH3], unsigned long *count, size_t base, size_t *done, size_t *last_start,
		      struct chainlog_cut *torn, char *err, size_t errlen)
{
	struct arena scratch;
	size_t cap = 0;
	arena_init(&scratch);
	int rc = 0;
	size_t pos = 0;
	while (rc == 0 && pos < len) {
		char where[600];
		struct json *rec;
		snprintf(where, sizeof where, "%s:%lu", log, *count + 1);
		const char *nl = memchr(buf + pos, '\n', len - pos);
		if (!nl && torn && torn_append(buf + pos, len - pos, spec)) {
			torn->offset = base + pos;
			torn->bytes = len - pos;
			torn->line = *count + 1;
			break;
		}
		if (!nl) {
			snprintf(err, errlen,
				 "%s: torn last line (no newline: an earlier write was interrupted); refusing to append after it. "
				 "Inspect it, then cut it off with 'truncate -s %zu %s' and run %s again",
				 where, base + pos, log, spec->retry);
			rc = -1;
			break;
		}
		size_t n = (size_t)(nl - (buf + pos));
		rc = check_line(recs ? keep : &scratch, buf + pos, n, where, spec, last_fp, *count, last_fp, &rec, err, errlen);
		if (rc == 0 && recs) {
			*recs = xgrow(*recs, &cap, *count + 1, sizeof **recs);
			(*recs)[*count] = rec;
		}
		if (rc == 0) {
			(*count)++;
			if (last_start)
				*last_start = base + pos;
		}
		pos += n + 1;
		if (rc == 0 && done)
			*done = pos;
		arena_reset(&scratch);
	}
	arena_release(&scratch);
	return rc;
}

int ev_chainlog_read(const char *buf, size_t len, const char *log, const struct chainlog_spec *spec, struct arena *keep,
		  struct json ***recs, char last_fp[FP_HEX_XXH3], unsigned long *count, char *err, size_t errlen)
{
	last_fp[0] = 0;
	*count = 0;
	if (recs)
		*recs = NULL;
	return read_lines(buf, len, log, spec, keep, recs, last_fp, count, 0, NULL, NULL, NULL, err, errlen);
}

static int follow(int fd, const char *log, const struct chainlog_spec *spec, struct chainlog_pos *pos, struct chainlog_cut *cut,
		  char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	if ((unsigned long long)st.st_size < pos->offset) {
		snprintf(err, errlen, "%s: shorter than the %llu bytes verified before (lines were removed)", log, pos->offset);
		return -1;
	}
	/* the last line verified must still be there, byte for byte: it is what the rest chains to */
	size_t from = pos->count ? (size_t)pos->last_start : 0, len = (size_t)st.st_size - from;
	char *buf = xmalloc(len + 1);
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(from + got));
		if (n <= 0) {
			snprintf(err, errlen, "%s: %s", log, n < 0 ? strerror(errno) : "changed while read");
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	size_t skip = 0;
	if (pos->count) {
		char h[FP_HEX_XXH3];
		skip = (size_t)(pos->offset - pos->last_start);
		fp_xxh3_of(buf, skip, h);
		if (strcmp(h, pos->last_line_hash)) {
			snprintf(err, errlen, "%s:%lu: the line changed after it was verified", log, pos->count);
			free(buf);
			return -1;
		}
	}
	size_t done = 0, last = (size_t)pos->last_start;
	int rc = read_lines(buf + skip, len - skip, log, spec, NULL, NULL, pos->last_fp, &pos->count, pos->offset, &done, &last,
			    cut, err, errlen);
	if (done) {
		pos->offset += done;
		pos->last_start = last;
		fp_xxh3_of(buf + (last - from), (size_t)(pos->offset - last), pos->last_line_hash);
	}
	free(buf);
	if (rc == 0 && cut && cut->bytes)
		rc = cut_tail(fd, log, cut, err, errlen);
	return rc;
}

int ev_chainlog_follow(int fd, const char *log, const struct chainlog_spec *spec, struct chainlog_pos *pos, char *err, size_t errlen)
{
	return follow(fd, log, spec, pos, NULL, err, errlen);
}

int ev_chainlog_follow_append(int fd, const char *log, const struct chainlog_spec *spec, struct chainlog_pos *pos,
			   struct chainlog_cut *cut, char *err, size_t errlen)
{
	memset(cut, 0, sizeof *cut);
	return follow(fd, log, spec, pos, cut, err, errlen);
}

int ev_chainlog_verify(int fd, const char *log, const struct chainlog_spec *spec, char last_fp[FP_HEX_XXH3], unsigned long *count,
		    char *err, size_t errlen)
{
	struct strbuf sb;
	sb_init(&sb);
	last_fp[0] = 0;
	*count = 0;
	int rc = read_all(fd, log, &sb, err, errlen);
	if (rc == 0)
		rc = ev_chainlog_read(sb.buf ? sb.buf : "", sb.len, log, spec, NULL, NULL, last_fp, count, err, errlen);
	sb_release(&sb);
	return rc;
}

int ev_chainlog_open(const char *log, const struct chainlog_spec *spec, bool create, bool exclusive, char last_fp[FP_HEX_XXH3],
		  unsigned long *count, char *err, size_t errlen)
{
	int fd = open(log, (create ? O_RDWR | O_APPEND | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	if (flock(fd, exclusive ? LOCK_EX : LOCK_SH)) {
		snprintf(err, errlen, "%s: cannot lock: %s", log, strerror(errno));
		close(fd);
		return -1;
	}
	if (ev_chainlog_verify(fd, log, spec, last_fp, count, err, errlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

int ev_chainlog_open_append(const char *log, const struct chainlog_spec *spec, char last_fp[FP_HEX_XXH3], unsigned long *count,
			 struct chainlog_cut *cut, char *err, size_t errlen)
{
	memset(cut, 0, sizeof *cut);
	int fd = open(log, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX)) {
		snprintf(err, errlen, "%s: cannot lock: %s", log, strerror(errno));
		close(fd);
		return -1;
	}
	struct strbuf sb;
	sb_init(&sb);
	last_fp[0] = 0;
	*count = 0;
	int rc = read_all(fd, log, &sb, err, errlen);
	if (rc == 0)
		rc = read_lines(sb.buf ? sb.buf : "", sb.len, log, spec, NULL, NULL, last_fp, count, 0, NULL, NULL, cut, err, errlen);
	sb_release(&sb);
	if (rc == 0 && cut->bytes)
		rc = cut_tail(fd, log, cut, err, errlen);
	if (rc) {
		close(fd);
		return -1;
	}
	return fd;
}

void ev_chainlog_cut_describe(const struct chainlog_cut *cut, const char *log, char *out, size_t outlen)
{
	snprintf(out, outlen,
		 "%s:%lu: cut off a torn last line (%llu bytes without a newline, left by an append that was interrupted "
		 "before it was acknowledged); the log is back to its %lu whole line%s (%llu bytes)",
		 log, cut->line, cut->bytes, cut->line - 1, cut->line == 2 ? "" : "s", cut->offset);
}

static void sync_parent_dir(const char *path)
{
	char *copy = xstrdup(path);
	int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(copy);
}

int ev_chainlog_append(int fd, const char *log, const struct chainlog_spec *spec, struct arena *a, struct json *rec,
		    char last_fp[FP_HEX_XXH3], unsigned long *count, char *err, size_t errlen)
{
	json_set(a, rec, spec->prev_key, *count ? json_str(a, last_fp) : json_null(a));
	ev_self_fp_stamp(a, rec, spec->fp_key);
	struct strbuf line;
	sb_init(&line);
	json_write(&line, rec);
	sb_addc(&line, '\n');
	/* One write(2) of the whole line. A kill can still stop it between pages: the torn line
	 * has no newline, every reader refuses it, and the next appender cuts it off under the
	 * lock (ev_chainlog_open_append). The line counts only once it is whole and fsync'd. */
	struct stat st;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		sb_release(&line);
		return -1;
	}
	ssize_t w = write(fd, line.buf, line.len);
	int rc = 0;
	if (w < 0 || (size_t)w != line.len) {
		snprintf(err, errlen, "%s: short write (%s)", log, w < 0 ? strerror(errno) : "partial line");
		rc = -1;
	} else if (fsync(fd)) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		rc = -1;
	} else {
		if (*count == 0)
			sync_parent_dir(log);
		snprintf(last_fp, 33, "%s", json_get_str(rec, spec->fp_key));
		(*count)++;
	}
	/* not acknowledged: take the line back (we hold the lock), so that no reader sees it */
	if (rc && w > 0 && ftruncate(fd, st.st_size) == 0)
		fsync(fd);
	sb_release(&line);
	return rc;
}
