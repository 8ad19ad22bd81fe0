/*
 * arena — bump allocator for per-record scratch. Memory belongs to the arena and is
 * released all at once by arena_reset (kept for reuse) or arena_release (returned).
 */
#ifndef SCHEDNAV_ARENA_H
#define SCHEDNAV_ARENA_H
#include <stddef.h>

struct arena_chunk;
struct arena {
	struct arena_chunk *head;
	size_t used_total;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
void arena_reset(struct arena *a);                       /* keep the largest chunk */
void *arena_alloc(struct arena *a, size_t n);           /* 16-aligned; never NULL (xalloc) */
char *arena_strndup(struct arena *a, const char *s, size_t n); /* NUL-terminated copy */
#endif
