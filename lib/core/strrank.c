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

