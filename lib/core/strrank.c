#include "core/strrank.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define FEW 64   /* distinct strings looked up linearly */

static const char *at(const void *first, size_t i, size_t stride)
{
	return *(const char *const *)((const char *)first + i * stride);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct ref { const char *s; size_t i; };

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* many distinct strings: sort (string, index) pairs once and number the runs */
static size_t ranks_by_sort(const void *first, size_t n, size_t stride, uint32_t *out)
{
	struct ref *r = xmalloc((n + 1) * sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ref){ at(first, i, stride), i };
	qsort(r, n, sizeof *r, ref_cmp);
	size_t rank = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(r[i - 1].s, r[i].s))
			rank++;
		out[r[i].i] = (uint32_t)rank;
	}
	free(r);
	return n ? rank + 1 : 0;
}

size_t str_ranks(const void *first, size_t n, size_t stride, uint32_t *out)
{
	const char *names[FEW], *last = NULL;
	size_t nn = 0, last_k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = at(first, i, stride);
		size_t k;
		if (last && (s == last || !strcmp(s, last)))
			k = last_k;
		else {
			for (k = 0; k < nn && strcmp(names[k], s); k++)
				;
			if (k == nn) {
				if (nn == FEW)
					return ranks_by_sort(first, n, stride, out);
				names[nn++] = s;
			}
		}
		out[i] = (uint32_t)k;   /* first-seen number for now */
		last = s;
		last_k = k;
	}
	const char *sorted[FEW];
	uint32_t rank_of[FEW];
	memcpy(sorted, names, nn * sizeof *names);
	qsort(sorted, nn, sizeof *sorted, str_cmp);
	for (size_t k = 0; k < nn; k++)
		for (size_t r = 0; r < nn; r++)
			if (sorted[r] == names[k])
				rank_of[k] = (uint32_t)r;
	for (size_t i = 0; i < n; i++)
		out[i] = rank_of[out[i]];
	return nn;
}

/* A string's first 8 bytes, big-endian, zero after its end: keys in strcmp's order (it
 * compares unsigned bytes); equal keys whose last byte is not zero leave the rest to strcmp. */
struct prefix_key { uint64_t prefix; const char *s; uint32_t index; };

static uint64_t prefix_of(const char *s)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; i < 8 && s[i]; i++)
		v = v << 8 | (unsigned char)s[i];
	for (; i < 8; i++)
		v <<= 8;
	return v;
}

static int prefix_cmp(const void *a, const void *b)
{
	const struct prefix_key *x = a, *y = b;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	int c = x->prefix & 0xff ? strcmp(x->s + 8, y->s + 8) : 0;   /* low byte 0: both ended within 8 bytes */
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

void str_order32(const void *first, size_t n, size_t stride, uint32_t *order)
{
	struct prefix_key *k = xmalloc((n + 1) * sizeof *k);
	for (size_t i = 0; i < n; i++) {
		const char *s = at(first, i, stride);
		k[i] = (struct prefix_key){ prefix_of(s), s, (uint32_t)i };
	}
	qsort(k, n, sizeof *k, prefix_cmp);
	for (size_t r = 0; r < n; r++)
		order[r] = k[r].index;
	free(k);
}
