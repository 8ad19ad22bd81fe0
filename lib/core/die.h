/*
 * die — the only module that may end the process. Tools call die(), usage_*() and the
 * option helpers; messages go to stderr as "PROG: message" (git grammar: lowercase, no
 * final period).
 *
 * It is also the one xalloc module, and the out-of-memory rule for all code, lib/
 * included (docs/design.md): memory is allocated only through the x* wrappers below (or
 * an arena, which uses them), which never return NULL: on failure they print
 * "PROG: out of memory" and exit 1. No function returns an out-of-memory error, and lib/
 * calls nothing else here.
 */
#ifndef SCHEDNAV_DIE_H
#define SCHEDNAV_DIE_H
#include <stddef.h>
#include <stdio.h>

extern const char *progname;

void set_progname(const char *argv0);                       /* basename of argv0 */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));   /* exit 1 */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));          /* no exit */
/* Print "usage: " + the first line of usage, further lines indented to match. */
void usage_print(FILE *f, const char *usage);
/* "PROG: msg" (when msg is not NULL) and the usage block on stderr; exit 2. */
void usage_fail(const char *usage, const char *msg) __attribute__((noreturn));
void usage_error(const char *usage, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3))); /* exit 2 */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Zeroed array for large per-job tables; asks the kernel for huge pages (fewer page faults). free() it. */
void *xcalloc_large(size_t n, size_t size);
char *xstrndup(const char *s, size_t n);
void *xgrow(void *p, size_t *cap, size_t need, size_t elem); /* grow array to hold need elems */
/* xgrow for tables that reach many MiB: from 8 MiB on, a new huge-page block (fewer page
 * faults) the old elements are copied into; the tail is not zeroed, as with xgrow. free() it. */
void *xgrow_large(void *p, size_t *cap, size_t need, size_t elem);
/* p, or "out of memory" and exit 1: for objects a library allocates (yajl, XXH3, zstd). */
void *xnonnull(void *p);
/* "out of memory" and exit 1: for a size no allocator can give (an overflowing count). */
void xalloc_die(void) __attribute__((noreturn));
/* Parse an option's number; on failure "PROG: --NAME: invalid number 'S'" and exit 2. */
double opt_double(const char *name, const char *s);
long long opt_int(const char *name, const char *s);
/* Print help text to stdout and exit 0 (checked). */
void print_help(const char *text) __attribute__((noreturn));
/* -V/--version: "PROG (SchedNav) VERSION", the stream framing version, then the tool's
 * schemas text (e.g. "reads: schednav.trace/1, schednav.trace/2\nwrites: schednav.result/1\n");
 * stdout, checked, exit 0. */
void print_version(const char *schemas) __attribute__((noreturn));
#define SCHEDNAV_STREAM_FRAMING "2"
#endif
