/*
 * die — the tools' way of ending the process: die(), usage_*() and the option helpers;
 * messages go to stderr as "PROG: message" (git grammar: lowercase, no final period).
 * Only tools (and the tools' side of lib/core: cli.c) include this header; lib/ reaches
 * nothing here (docs/design.md "Two layers", checked by tests/lint-boundary.sh). It
 * includes xalloc.h, the one part of ending the process that lib/ shares: allocation that
 * never fails.
 */
#ifndef SCHEDNAV_DIE_H
#define SCHEDNAV_DIE_H
#include "core/xalloc.h"
#include <stddef.h>
#include <stdio.h>

void set_progname(const char *argv0);                       /* basename of argv0 (xalloc.h's progname) */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));   /* exit 1 */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));          /* no exit */
/* Print "usage: " + the first line of usage, further lines indented to match. */
void usage_print(FILE *f, const char *usage);
/* "PROG: msg" (when msg is not NULL) and the usage block on stderr; exit 2. */
void usage_fail(const char *usage, const char *msg) __attribute__((noreturn));
void usage_error(const char *usage, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3))); /* exit 2 */
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
