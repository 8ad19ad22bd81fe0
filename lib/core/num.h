/*
 * num — checked number parsing and Python-compatible number formatting.
 * Parsers return 0 on success, -1 on any junk, NaN, infinity or overflow.
 * Formatters write into a caller buffer of at least NUM_FMT_MAX bytes.
 */
#ifndef SCHEDNAV_NUM_H
#define SCHEDNAV_NUM_H
#include <stddef.h>

#define NUM_FMT_MAX 40

int num_parse_double(const char *s, double *out);           /* whole string, finite */
int num_parse_doublen(const char *s, size_t n, double *out); /* first n bytes */
int num_parse_int(const char *s, long long *out);           /* whole string, decimal */
int num_parse_intn(const char *s, size_t n, long long *out);
/* Python repr(float): shortest round-trip, ".0" for integral values, e-notation outside 1e-4..1e16. */
size_t num_fmt_double(char *buf, double v);
size_t num_fmt_int(char *buf, long long v);
/* Python round(v, ndigits) for ndigits in 0..17: correct decimal rounding, half-even on exact ties. */
double num_round(double v, int ndigits);
#endif
