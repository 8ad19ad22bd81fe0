/*
 * strrank — the rank of each of n strings in byte order (strcmp's), so that a sort of many
 * records over few distinct strings (a GPU model, a pool) compares integers instead of
 * comparing the same strings again at every step; the order is the one strcmp gives.
 */
#ifndef SCHEDNAV_STRRANK_H
#define SCHEDNAV_STRRANK_H
#include <stddef.h>
#include <stdint.h>

/* The i-th string is *(const char *const *)((const char *)first + i * stride): first points
 * at the string member of the first record, stride is the record's size. out[i] = how many
 * distinct strings sort before the i-th (equal strings, equal ranks). Returns the number of
 * distinct strings. Few distinct strings are looked up linearly; many fall back to one sort. */
size_t str_ranks(const void *first, size_t n, size_t stride, uint32_t *out);
#endif
