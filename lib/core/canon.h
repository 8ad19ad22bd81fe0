/*
 * canon — scanners for readers' fast paths over canonical lines (the exact bytes our writers
 * emit: keys in a fixed order, plain strings, plain decimals). Each matches at *p (never past
 * end), advances *p past what it matched and returns true, or returns false with *p unchanged.
 * A fast path that gets false declines the line and lets the general JSON parser read it, so
 * a fast path never changes what a reader accepts or the message it gives. Nothing allocates
 * but canon_line, which copies a line into the caller's growing buffer.
 */
#ifndef SCHEDNAV_CANON_H
#define SCHEDNAV_CANON_H
#include <stdbool.h>
#include <stddef.h>

/* The n bytes of s, literally. */
bool canon_lit(char **p, const char *end, const char *s, size_t n);
/* A string of bytes 0x20..0x7e without '"' or '\\'; NUL-terminates it in place (the buffer must
 * be writable) and points *out at it. */
bool canon_str(char **p, const char *end, const char **out);
/* -?(0|[1-9][0-9]*)(.[0-9]+)? without exponent: an integer of up to 18 digits (*is_int), or a
 * real of up to 15 significant digits converted as m / 10^k (exact operands, one correctly
 * rounded division: the same double as strtod). */
bool canon_num(char **p, const char *end, double *d, bool *is_int);
/* A fast path's start: when line[0..len) begins with the literal pre, a NUL-terminated
 * writable copy of it in *buf (grown to *cap as needed) and a pointer just past pre in that
 * copy (the copy ends at *buf + len); NULL when it does not begin so. */
char *canon_line(char **buf, size_t *cap, const char *line, size_t len, const char *pre);
#endif
