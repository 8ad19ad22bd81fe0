/*
 * chainlog — append-only NDJSON logs of self-fingerprinted records, each chained to the one
 * before by its previous-fingerprint key (null on the first line): approve's approval log
 * and schednav-mcp's audit log. Verification reads the whole file and refuses an edited,
 * removed, reordered, inserted or torn line, naming LOG:LINE; an append sets the two keys
 * and writes the line with one write(2) and one fsync, and the line is acknowledged (0) only
 * after both. A kill can stop that write between pages and leave a torn last line (no
 * newline): readers refuse it; an appender, under its exclusive lock, cuts off such a tail
 * when it is the start of a line of this log (never a whole line: those end with their
 * newline) and says so in a struct chainlog_cut. Callers own the fd and lock it
 * (ev_chainlog_open does both). Nothing here prints or exits: 0 / -1 + message in err.
 */
#ifndef SCHEDNAV_EVAL_CHAINLOG_H
#define SCHEDNAV_EVAL_CHAINLOG_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

struct chainlog_spec {
	const char *type;            /* every line's "type" */
	const char *const *keys;     /* the exact key set, NULL-terminated, in record order */
	const char *fp_key;          /* the self-fingerprint key (last) */
	const char *prev_key;        /* the chain key */
	const char *retry;           /* command named in the torn-line advice, e.g. "approve" */
	const char *const *optional; /* keys of spec->keys older lines may lack (NULL: none) */
	/* optional: the record type's own rules (value kinds, identifiers), after the key set */
	int (*check)(const struct json *rec, char *err, size_t errlen);
};

/* A torn last line an appender cut off; bytes 0: there was none. */
struct chainlog_cut {
	unsigned long long offset;   /* where it began: the log's size now */
	unsigned long long bytes;    /* its length */
	unsigned long line;          /* its line number */
};

/* Verify the log read from fd: last fingerprint ("" when empty) and line count out. */
int ev_chainlog_verify(int fd, const char *log, const struct chainlog_spec *spec, char last_fp[FP_HEX_XXH3], unsigned long *count,
		    char *err, size_t errlen);
/* Verify a whole log held in buf[0..len) (named log in messages), as ev_chainlog_verify does.
 * When recs is not NULL every record is kept, parsed into a: *recs (malloc'd, free it) and
 * *count of them. */
int ev_chainlog_read(const char *buf, size_t len, const char *log, const struct chainlog_spec *spec, struct arena *a,
		  struct json ***recs, char last_fp[FP_HEX_XXH3], unsigned long *count, char *err, size_t errlen);
/* How far a log has been verified: ev_chainlog_follow reads only what was appended since. */
struct chainlog_pos {
	unsigned long long offset;       /* bytes of whole lines verified */
	unsigned long long last_start;   /* offset of the last verified line */
	char last_line_hash[FP_HEX_XXH3];         /* XXH3-128 of that line's bytes (with its newline) */
	char last_fp[FP_HEX_XXH3];                /* its fingerprint ("" when empty) */
	unsigned long count;             /* lines verified */
};
/* Verify what follows pos (zeroed: the whole log) and advance pos; the last line verified
 * before must be unchanged and the log no shorter. Cost: the bytes appended since. */
int ev_chainlog_follow(int fd, const char *log, const struct chainlog_spec *spec, struct chainlog_pos *pos, char *err,
		    size_t errlen);
/* ev_chainlog_follow for an appender: fd writable and exclusively locked; a torn tail after the
 * verified lines is cut off and described in *cut. */
int ev_chainlog_follow_append(int fd, const char *log, const struct chainlog_spec *spec, struct chainlog_pos *pos,
			   struct chainlog_cut *cut, char *err, size_t errlen);
/* Open log (created 0644 when create), take a shared or exclusive flock, verify it; the fd or -1. */
int ev_chainlog_open(const char *log, const struct chainlog_spec *spec, bool create, bool exclusive, char last_fp[FP_HEX_XXH3],
		  unsigned long *count, char *err, size_t errlen);
/* Open log to append (created 0644), take an exclusive flock, verify it and cut off a torn
 * tail (*cut); the fd or -1. */
int ev_chainlog_open_append(const char *log, const struct chainlog_spec *spec, char last_fp[FP_HEX_XXH3], unsigned long *count,
			 struct chainlog_cut *cut, char *err, size_t errlen);
/* The one line a tool prints on stderr when an appender cut a torn tail off. */
void ev_chainlog_cut_describe(const struct chainlog_cut *cut, const char *log, char *out, size_t outlen);
/* Set rec's prev_key (last_fp, null when count is 0) and fp_key, then append the line with one
 * write and fsync (the parent directory is synced after the first line). Updates last_fp, count.
 * On a short write or a failed fsync the line is taken back (truncated) before -1. */
int ev_chainlog_append(int fd, const char *log, const struct chainlog_spec *spec, struct arena *a, struct json *rec,
		    char last_fp[FP_HEX_XXH3], unsigned long *count, char *err, size_t errlen);
#endif
