#include "core/num.h"
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int num_parse_doublen(const char *s, size_t n, double *out)
{
	char buf[128];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return num_parse_double(buf, out);
}

int num_parse_double(const char *s, double *out)
{
	char *end;
	if (!*s || strchr(" \t\n\r\f\v", *s))
		return -1;
	/* Refuse hexadecimal and the textual specials strtod would accept. */
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789+-.eE", *p))
			return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || end == s || !isfinite(v))
		return -1;
	if (errno == ERANGE && fabs(v) > 1.0)
		return -1;
	*out = v;
	return 0;
}

int num_parse_intn(const char *s, size_t n, long long *out)
{
	char buf[64];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return num_parse_int(buf, out);
}

int num_parse_int(const char *s, long long *out)
{
	char *end;
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!*p)
		return -1;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

size_t num_fmt_int(char *buf, long long v)
{
	char tmp[24];
	size_t n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	size_t len = 0;
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

size_t num_fmt_double(char *buf, double v)
{
	char tmp[64];
	int prec;
	if (v == 0)
		return (size_t)snprintf(buf, NUM_FMT_MAX, signbit(v) ? "-0.0" : "0.0");
	if (isnan(v))
		return (size_t)snprintf(buf, NUM_FMT_MAX, "NaN");
	if (isinf(v))
		return (size_t)snprintf(buf, NUM_FMT_MAX, v < 0 ? "-Infinity" : "Infinity");
	/* Fast path: |v| in [1e-4, 1e15) with at most 9 decimals. The first k whose integer
	 * m = round(|v| 10^k) gives m / 10^k == |v| (a correctly rounded division of exact
	 * doubles) is the fewest decimals that round-trip; below 10^15 no two such decimals map
	 * to one double (DBL_DIG), so that m is the shortest repr Python would print. */
	double av = fabs(v);
	if (av >= 1e-4 && av < 1e15) {
		static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
		for (int k = 0; k <= 9; k++) {
			double scaled = av * p10[k];
			if (scaled >= 1e15)
				break;
			long long m = llround(scaled);
			if ((double)m / p10[k] != av)
				continue;
			/* the digits of m, zero-padded to k + 1 (what "%0*lld" gives, without printf) */
			char digits[32];
			int n = 0;
			char rev[32];
			unsigned long long um = (unsigned long long)m;
			do {
				rev[n++] = (char)('0' + um % 10);
				um /= 10;
			} while (um);
			while (n < k + 1)
				rev[n++] = '0';
			for (int d = 0; d < n; d++)
				digits[d] = rev[n - 1 - d];
			char *o = buf;
			if (v < 0)
				*o++ = '-';
			memcpy(o, digits, (size_t)(n - k));
			o += n - k;
			*o++ = '.';
			if (k == 0)
				*o++ = '0';
			else {
				memcpy(o, digits + n - k, (size_t)k);
				o += k;
			}
			*o = '\0';
			return (size_t)(o - buf);
		}
	}
	/* Shortest precision that round-trips, like Python's repr. Round-tripping is monotone
	 * in the precision (more correctly rounded digits stay closest to v), so the smallest
	 * one is found by bisection over 0..16: about four probes instead of up to seventeen. */
	int lo = 0, hi = 16;
	while (lo < hi) {
		prec = lo + (hi - lo) / 2;
		snprintf(tmp, sizeof tmp, "%.*e", prec, v);
		if (strtod(tmp, NULL) == v)
			hi = prec;
		else
			lo = prec + 1;
	}
	prec = lo;
	snprintf(tmp, sizeof tmp, "%.*e", prec, v);
	/* tmp = [-]d[.ddd]e[+-]XX */
	char digits[32];
	size_t nd = 0;
	int neg = tmp[0] == '-';
	char *p = tmp + neg;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	int exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = 0;
	char *o = buf;
	if (neg)
		*o++ = '-';
	if (exp10 >= -4 && exp10 < 16) {
		if (exp10 < 0) {
			*o++ = '0';
			*o++ = '.';
			for (int i = 0; i < -exp10 - 1; i++)
				*o++ = '0';
			memcpy(o, digits, nd);
			o += nd;
		} else {
			for (int i = 0; i <= exp10; i++)
				*o++ = i < (int)nd ? digits[i] : '0';
			*o++ = '.';
			if ((int)nd > exp10 + 1) {
				memcpy(o, digits + exp10 + 1, nd - (size_t)exp10 - 1);
				o += nd - (size_t)exp10 - 1;
			} else
				*o++ = '0';
		}
		*o = 0;
	} else {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, nd - 1);
			o += nd - 1;
		}
		o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
	}
	return (size_t)(o - buf);
}

/*
 * round(v, nd) for nd <= 9 in exact integer arithmetic: |v| = M * 2^-s with M < 2^53, so
 * |v| * 10^nd = M * 10^nd / 2^s exactly (M * 10^nd < 2^83); its integer part q and the
 * remainder decide the rounding (half to even on an exact tie), and the result is the double
 * nearest q / 10^nd, one correctly rounded division of two exact doubles: the same double as
 * printf's correctly rounded "%.*f" read back by strtod. false: let the general path do it.
 */
static bool round_exact(double v, int nd, double *out)
{
	static const double p10d[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	int be = (int)((bits >> 52) & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return false;                   /* zero, subnormal, inf, nan */
	uint64_t M = (bits & 0xfffffffffffffULL) | (1ULL << 52);
	int s = 1075 - be;                      /* |v| = M * 2^-s */
	if (s <= 0 || v == floor(v)) {
		*out = v;                       /* an integer already */
		return true;
	}
	if (s > 120)
		return false;
	unsigned __int128 p = 1;
	for (int i = 0; i < nd; i++)
		p *= 10;
	unsigned __int128 X = (unsigned __int128)M * p, q = X >> s, rem = X - (q << s), half = (unsigned __int128)1 << (s - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (q >= ((unsigned __int128)1 << 53))
		return false;
	double r = (double)(uint64_t)q / p10d[nd];
	*out = bits >> 63 ? -r : r;
	return true;
}

double num_round(double v, int ndigits)
{
	/* glibc printf rounds the exact binary value with the current (nearest-even) mode,
	 * which is what Python's round() does for finite values. */
	char tmp[400];
	double r;
	if (!isfinite(v))
		return v;
	if (ndigits >= 0 && ndigits <= 9 && round_exact(v, ndigits, &r))
		return r;
	snprintf(tmp, sizeof tmp, "%.*f", ndigits, v);
	return strtod(tmp, NULL);
}
