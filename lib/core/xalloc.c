/* xalloc — allocation that never fails (see xalloc.h): the out-of-memory exit is the one
 * way lib/ may end the process. */
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const char *progname = "schednav";

void xalloc_die(void)
{
	fprintf(stderr, "%s: out of memory\n", progname);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

/* a block of at least bytes, aligned to and rounded up to 2 MiB pages, which the kernel is
 * asked to back with huge pages (fewer page faults for tables of many MiB); free() it */
static void *huge_block(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	void *p;
	size_t rounded = (bytes + huge - 1) & ~(huge - 1);
	if (posix_memalign(&p, huge, rounded) != 0)
		xalloc_die();
#ifdef MADV_HUGEPAGE
	madvise(p, rounded, MADV_HUGEPAGE);
#endif
	return p;
}

/* tables below this many bytes stay on the ordinary allocator */
#define HUGE_FROM ((size_t)8 << 20)

void *xcalloc_large(size_t n, size_t size)
{
	if (size && n > ((size_t)-1) / size)
		xalloc_die();
	size_t bytes = n * size;
	if (bytes < HUGE_FROM)
		return xcalloc(n, size);
	void *p = huge_block(bytes);
	memset(p, 0, bytes);
	return p;
}

void *xnonnull(void *p)
{
	if (!p)
		xalloc_die();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* the capacity xgrow and xgrow_large move to: *cap (8 when 0) doubled until it holds need */
static size_t grown_cap(size_t cap, size_t need, size_t elem)
{
	size_t c = cap ? cap : 8;
	while (c < need) {
		if (c > ((size_t)-1) / 2 / (elem ? elem : 1))
			xalloc_die();
		c *= 2;
	}
	return c;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = grown_cap(*cap, need, elem);
	p = xrealloc(p, c * elem);
	*cap = c;
	return p;
}

void *xgrow_large(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = grown_cap(*cap, need, elem);
	size_t bytes = c * elem;
	if (bytes < HUGE_FROM) {
		p = xrealloc(p, bytes);
		*cap = c;
		return p;
	}
	void *q = huge_block(bytes);
	if (p)
		memcpy(q, p, *cap * elem);
	free(p);
	*cap = c;
	return q;
}
