/*
 * strbuf — growable byte buffer, always NUL-terminated. The buffer owns its bytes;
 * sb_release frees them. Allocation failure ends the process through xalloc.
 */
#ifndef SCHEDNAV_STRBUF_H
#define SCHEDNAV_STRBUF_H
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
/* Room for extra more bytes and the NUL, for a caller that writes them into buf itself. */
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *p, size_t n);
void sb_addc(struct strbuf *sb, char c);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_add_double(struct strbuf *sb, double v);   /* Python repr */
void sb_add_int(struct strbuf *sb, long long v);
void sb_add_jstr(struct strbuf *sb, const char *s, size_t n); /* quoted JSON string, minimal escapes */
#endif
