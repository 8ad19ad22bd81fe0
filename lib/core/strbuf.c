#include "core/strbuf.h"
#include "core/xalloc.h"
#include "core/num.h"
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->cap) {
		size_t c = sb->cap ? sb->cap * 2 : 256;
		while (c < sb->len + extra + 1)
			c *= 2;
		sb->buf = xrealloc(sb->buf, c);
		sb->cap = c;
	}
}

void sb_add(struct strbuf *sb, const void *p, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_add_double(struct strbuf *sb, double v)
{
	char b[NUM_FMT_MAX];
	sb_add(sb, b, num_fmt_double(b, v));
}

void sb_add_int(struct strbuf *sb, long long v)
{
	char b[NUM_FMT_MAX];
	sb_add(sb, b, num_fmt_int(b, v));
}

void sb_add_jstr(struct strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	sb_grow(sb, n + 2);
	sb_addc(sb, '"');
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c < 0x20) {
				u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
				u[4] = hex[c >> 4]; u[5] = hex[c & 15]; u[6] = 0;
				esc = u;
			}
		}
		if (esc) {
			sb_add(sb, s + i - run, run);
			run = 0;
			sb_adds(sb, esc);
		} else
			run++;
	}
	sb_add(sb, s + n - run, run);
	sb_addc(sb, '"');
}
