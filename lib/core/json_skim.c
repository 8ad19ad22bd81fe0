/*
 * json_skim (see json.h): whether a line is one JSON value that json_parse would accept as
 * is, for a strict subset of JSON — no whitespace, strings of bytes 0x20..0x7e without '"'
 * or '\\', numbers of at most 17 digits with an exponent of at most 2 digits (finite;
 * integers within long long), no key twice in an object (at most SKIM_KEYS keys each),
 * nesting at most SKIM_DEPTH. Anything else is declined (false), and the caller parses it,
 * with the parser's own errors. The result reader skims the records it only counts.
 */
#include "core/json.h"
#include <stdbool.h>
#include <string.h>

#define SKIM_DEPTH 16
#define SKIM_KEYS 64

static bool skim_string(const char **p, const char *end)
{
	const char *q = *p;
	if (q >= end || *q != '"')
		return false;
	for (q++; q < end && *q != '"'; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e || *q == '\\')
			return false;
	if (q >= end)
		return false;
	*p = q + 1;
	return true;
}

static bool skim_digits(const char **p, const char *end, int *n)
{
	const char *q = *p;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	*n = (int)(q - *p);
	*p = q;
	return *n > 0;
}

static bool skim_number(const char **p, const char *end)
{
	const char *q = *p;
	int ni, nf = 0, ne = 0;
	bool real = false;
	if (q < end && *q == '-')
		q++;
	if (q < end && *q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9')
		return false;   /* a leading zero is not JSON */
	if (!skim_digits(&q, end, &ni))
		return false;
	if (q < end && *q == '.') {
		q++;
		real = true;
		if (!skim_digits(&q, end, &nf))
			return false;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		real = true;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (!skim_digits(&q, end, &ne) || ne > 2)
			return false;
	}
	/* integers within long long; reals below 10^17 * 10^99, finite (the parser refuses a
	 * non-finite real) */
	if (real ? ni + nf > 17 : ni > 18)
		return false;
	*p = q;
	return true;
}

static bool skim_value(const char **p, const char *end, int depth)
{
	const char *q = *p;
	if (q >= end)
		return false;
	if (*q == '"')
		return skim_string(p, end);
	if (*q == '{' || *q == '[') {
		bool obj = *q == '{';
		const char *keys[SKIM_KEYS];
		size_t klen[SKIM_KEYS], nk = 0;
		if (depth >= SKIM_DEPTH)
			return false;
		q++;
		if (q < end && *q == (obj ? '}' : ']')) {
			*p = q + 1;
			return true;
		}
		for (;;) {
			if (obj) {
				const char *k = q;
				if (nk == SKIM_KEYS || !skim_string(&q, end) || q >= end || *q != ':')
					return false;
				size_t kl = (size_t)(q - k);
				for (size_t i = 0; i < nk; i++)
					if (klen[i] == kl && !memcmp(keys[i], k, kl))
						return false;   /* a duplicate key: the parser names it */
				keys[nk] = k;
				klen[nk++] = kl;
				q++;
			}
			if (!skim_value(&q, end, depth + 1) || q >= end)
				return false;
			if (*q == ',') {
				q++;
				continue;
			}
			if (*q != (obj ? '}' : ']'))
				return false;
			*p = q + 1;
			return true;
		}
	}
	if (*q == '-' || (*q >= '0' && *q <= '9'))
		return skim_number(p, end);
	static const char *const lits[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		if ((size_t)(end - q) >= n && !memcmp(q, lits[i], n)) {
			*p = q + n;
			return true;
		}
	}
	return false;
}

bool json_skim(const char *line, size_t len)
{
	const char *p = line;
	return skim_value(&p, line + len, 0) && p == line + len;
}
