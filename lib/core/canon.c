#include "core/canon.h"
#include "core/xalloc.h"
#include <string.h>

static const double pow10_exact[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

bool canon_lit(char **p, const char *end, const char *s, size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

bool canon_str(char **p, const char *end, const char **out)
{
	char *q = *p;
	if (q >= end || *q != '"')
		return false;
	char *s = ++q;
	while (q < end && *q != '"') {
		unsigned char c = (unsigned char)*q;
		if (c < 0x20 || c > 0x7e || c == '\\')
			return false;
		q++;
	}
	if (q >= end)
		return false;
	*q = 0;
	*out = s;
	*p = q + 1;
	return true;
}

bool canon_num(char **p, const char *end, double *d, bool *is_int)
{
	char *q = *p;
	bool neg = false;
	if (q < end && *q == '-') {
		neg = true;
		q++;
	}
	if (q >= end || *q < '0' || *q > '9')
		return false;
	long long m = 0;
	int nd = 0, nf = 0;
	if (*q == '0') {
		q++;
		nd = 1;
	} else
		for (; q < end && *q >= '0' && *q <= '9'; q++, nd++) {
			if (nd >= 18)
				return false;
			m = m * 10 + (*q - '0');
		}
	if (q < end && *q == '.') {
		q++;
		for (; q < end && *q >= '0' && *q <= '9'; q++, nf++) {
			if (nd + nf >= 15)
				return false;
			m = m * 10 + (*q - '0');
		}
		if (nf == 0)
			return false;
		double v = (double)m / pow10_exact[nf];
		*d = neg ? -v : v;
		*is_int = false;
	} else {
		long long i = neg ? -m : m;
		*d = (double)i;
		*is_int = true;
	}
	if (q < end && (*q == 'e' || *q == 'E'))
		return false;
	*p = q;
	return true;
}

char *canon_line(char **buf, size_t *cap, const char *line, size_t len, const char *pre)
{
	size_t n = strlen(pre);
	if (len < n || memcmp(line, pre, n))
		return NULL;
	*buf = xgrow(*buf, cap, len + 1, 1);
	memcpy(*buf, line, len);
	(*buf)[len] = 0;
	return *buf + n;
}
