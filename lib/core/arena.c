#include "core/arena.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used_total = 0;
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->head, *n;
	for (; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
	a->used_total = 0;
}

void arena_reset(struct arena *a)
{
	struct arena_chunk *c = a->head, *keep = NULL, *n;
	for (; c; c = n) {
		n = c->next;
		if (!keep || c->size > keep->size) {
			if (keep)
				free(keep);
			keep = c;
		} else
			free(c);
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	a->head = keep;
	a->used_total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	if (n > ((size_t)-1) / 4)
		xalloc_die();
	n = (n + 15) & ~(size_t)15;
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = 64 * 1024;
		while (size < n)
			size *= 2;
		c = xmalloc(sizeof *c + size);
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	a->used_total += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}
