/*
 * xalloc — allocation that never fails: the out-of-memory rule for all code, lib/ included
 * (docs/design.md). Memory is allocated only through these wrappers (or an arena, which uses
 * them); they never return NULL: on failure they print "PROG: out of memory" on stderr and
 * exit 1. No function returns an out-of-memory error and no caller checks for NULL.
 *
 * This is the one part of the process's ending that lib/ may reach; the rest (die(), the
 * usage and option helpers, --help and --version) is the tools' own, in die.h and cli.h.
 */
#ifndef SCHEDNAV_XALLOC_H
#define SCHEDNAV_XALLOC_H
#include <stddef.h>

/* The program's name (set by the tool, set_progname in die.h): the prefix of the
 * out-of-memory message, and the "tool" of a stream header (ndjson.h). */
extern const char *progname;

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
#endif
