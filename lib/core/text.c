#include "core/text.h"
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[i] (1..4), its code point in *cp, or 0. */
static size_t seq(const unsigned char *s, size_t i, size_t len, unsigned *cp)
{
	unsigned c = s[i];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t k;
	unsigned v;
	if (c >= 0xC2 && c <= 0xDF)
		k = 1, v = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 2, v = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 3, v = c & 0x07;
	else
		return 0;
	if (len - i <= k)
		return 0;
	for (size_t j = 1; j <= k; j++) {
		if ((s[i + j] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i + j] & 0x3F);
	}
	if ((k == 2 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (k == 3 && (v < 0x10000 || v > 0x10FFFF)))
		return 0;
	*cp = v;
	return k + 1;
}

size_t text_utf8_bad(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		/* ASCII runs are the common case: eight bytes at a time */
		while (i + 8 <= len) {
			unsigned long long w;
			memcpy(&w, s + i, 8);
			/* no high bit and no zero byte in any of the eight */
			if ((w & 0x8080808080808080ULL) || ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL))
				break;
			i += 8;
		}
		if (i >= len)
			break;
		unsigned cp;
		size_t n = seq(s, i, len, &cp);
		if (n == 0 || cp == 0)
			return i;
		i += n;
	}
	return len;
}

bool text_utf8_ok(const char *s, size_t len)
{
	return text_utf8_bad(s, len) == len;
}

static bool is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

static bool is_space(unsigned cp)
{
	return cp == ' ' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000 || cp == 0xFEFF;
}

/* Walk s: NULL when every code point passes, else a reason. */
static const char *scan(const char *str, size_t len, bool id)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned cp, first = 0, last = 0;
	for (size_t i = 0; i < len;) {
		size_t n = seq(s, i, len, &cp);
		if (n == 0)
			return "is not valid UTF-8";
		if (cp == 0)
			return "contains a NUL byte";
		if (is_control(cp) && (id || (cp != '\t' && cp != '\n')))
			return "contains a control character";
		if (i == 0)
			first = cp;
		last = cp;
		i += n;
	}
	if (id && len && (is_space(first) || is_space(last)))
		return "has white space at its start or end";
	return NULL;
}

const char *text_id_problem(const char *s, size_t len)
{
	if (len == 0)
		return "is empty";
	if (len > TEXT_ID_MAX)
		return "is longer than 1024 bytes";
	return scan(s, len, true);
}

const char *text_plain_problem(const char *s, size_t len)
{
	return scan(s, len, false);
}

void text_latin1_to_utf8(struct strbuf *sb, const char *s, size_t len)
{
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			run++;
			continue;
		}
		sb_add(sb, s + i - run, run);
		run = 0;
		sb_addc(sb, (char)(0xC0 | (c >> 6)));
		sb_addc(sb, (char)(0x80 | (c & 0x3F)));
	}
	sb_add(sb, s + len - run, run);
}

void text_quote(char *out, size_t outlen, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	if (outlen == 0)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (k >= 80 || k + 8 >= outlen) {
			if (k + 4 <= outlen)
				memcpy(out + k, "...", 3), k += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7F)
			out[k++] = (char)c;
		else {
			out[k++] = '\\';
			out[k++] = 'x';
			out[k++] = hex[c >> 4];
			out[k++] = hex[c & 15];
		}
	}
	out[k] = 0;
}
