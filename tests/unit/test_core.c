/* Unit tests for lib/core: number formatting, rounding, JSON round trips, stream checks. */
#include "core/json.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/fp.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void fmt_case(double v, const char *want)
{
	char b[NUM_FMT_MAX];
	num_fmt_double(b, v);
	CHECK(!strcmp(b, want), "repr(%.17g) = '%s', want '%s'", v, b, want);
}

static void round_case(double v, int nd, double want)
{
	double got = num_round(v, nd);
	CHECK(got == want, "round(%.17g, %d) = %.17g, want %.17g", v, nd, got, want);
}

/* num_round's exact integer path against the printf + strtod definition, half a million values */
static void round_exact_vs_printf(void)
{
	unsigned long long x = 2463534242ULL;
	int bad = 0;
	for (int i = 0; i < 500000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v, d;
		int nd = (int)(x % 10);
		switch (i % 5) {
		case 0: v = (double)(x >> 11) * 0x1p-53 * 100.0; break;
		case 1: v = (double)(x % 100000000) / 1000.0 + 0.0000005; break;
		case 2: { unsigned long long b = (x & 0x800fffffffffffffULL) | ((unsigned long long)(990 + (x >> 53) % 80) << 52); memcpy(&d, &b, sizeof d); v = d; } break;
		case 3: v = ldexp((double)(x % 100000), -(int)((x >> 40) % 30)); break;   /* dyadic: exact ties */
		default: v = -(double)(x % 1000000007) / 7.0; break;
		}
		char tmp[400];
		snprintf(tmp, sizeof tmp, "%.*f", nd, v);
		double want = strtod(tmp, NULL), got = num_round(v, nd);
		if (memcmp(&want, &got, sizeof got) && bad++ < 5)
			CHECK(0, "round(%.17g, %d) = %.17g, printf says %.17g", v, nd, got, want);
	}
	CHECK(bad == 0, "%d num_round mismatches", bad);
}

static void json_case(const char *in, const char *want)
{
	struct arena a;
	struct json *v;
	char err[200];
	struct strbuf sb;
	arena_init(&a);
	sb_init(&sb);
	int rc = json_parse(&a, in, strlen(in), &v, err, sizeof err);
	if (want) {
		CHECK(rc == 0, "parse '%s': %s", in, err);
		if (rc == 0) {
			json_write(&sb, v);
			CHECK(!strcmp(sb.buf, want), "'%s' -> '%s', want '%s'", in, sb.buf, want);
		}
	} else
		CHECK(rc != 0, "parse '%s' should fail", in);
	sb_release(&sb);
	arena_release(&a);
}

static int stream_case(const char *content)
{
	char path[] = "/tmp/schednav-unit-XXXXXX";
	int fd = mkstemp(path);
	if (write(fd, content, strlen(content)) < 0)
		return -2;
	close(fd);
	char err[300];
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	struct arena a;
	struct json *v;
	enum nd_event ev;
	arena_init(&a);
	while ((ev = ndr_next(r, &a, &v, err, sizeof err)) > 0)
		arena_reset(&a);
	ndr_close(r);
	arena_release(&a);
	unlink(path);
	return ev;
}

int main(void)
{
	fmt_case(3628800.0, "3628800.0");
	fmt_case(0.0001, "0.0001");
	fmt_case(9999999999999998.0, "9999999999999998.0");
	fmt_case(1e16, "1e+16");
	fmt_case(1e-05, "1e-05");
	fmt_case(1.5e16, "1.5e+16");
	fmt_case(1.2345678901234568e+17, "1.2345678901234568e+17");
	fmt_case(-0.0, "-0.0");
	fmt_case(0.1, "0.1");
	/* the short-decimal fast path and its edges */
	fmt_case(3110400.0, "3110400.0");
	fmt_case(-0.5, "-0.5");
	fmt_case(123.456, "123.456");
	fmt_case(0.000123456789, "0.000123456789");
	fmt_case(0.00012345678901, "0.00012345678901");
	fmt_case(99999.99999999999, "99999.99999999999");
	fmt_case(999999999999999.0, "999999999999999.0");
	fmt_case(1e15, "1000000000000000.0");
	fmt_case(0.30000000000000004, "0.30000000000000004");
	fmt_case(9.9999e-05, "9.9999e-05");
	fmt_case(1e-07, "1e-07");
	fmt_case(0.010000000000000009, "0.010000000000000009");
	fmt_case(102.01, "102.01");
	fmt_case(123.456, "123.456");
	fmt_case(-2.5, "-2.5");
	fmt_case(1e22, "1e+22");
	fmt_case(5e-324, "5e-324");
	round_case(0.0078125, 6, 0.007812);
	round_case(5e-7, 6, 0.0);
	round_case(2.5, 0, 2.0);
	round_case(23.05, 6, 23.05);
	round_case(-0.0078125, 6, -0.007812);
	round_case(-1e-12, 6, -0.0);
	round_case(0.4871792745, 9, 0.487179274);   /* the binary value lies below the tie */
	round_case(9007199254740993.0, 6, 9007199254740992.0);
	round_case(1e-300, 9, 0.0);
	round_exact_vs_printf();
	round_case(16070400.0, 9, 16070400.0);
	round_case(-3.0, 9, -3.0);
	{
		char b[NUM_FMT_MAX];
		static const long long iv[] = { 0, 7, -7, 10, 1234567890123LL, -9223372036854775807LL - 1, 9223372036854775807LL };
		static const char *const is[] = { "0", "7", "-7", "10", "1234567890123", "-9223372036854775808", "9223372036854775807" };
		for (int i = 0; i < 7; i++) {
			size_t n = num_fmt_int(b, iv[i]);
			CHECK(!strcmp(b, is[i]) && n == strlen(is[i]), "num_fmt_int(%lld) = '%s'", iv[i], b);
		}
	}
	CHECK(101.0 * 1.01 == 102.01, "101*1.01 != 102.01");
	json_case("{\"a\":1,\"b\":1.0,\"c\":[true,false,null],\"d\":\"x\\u0001\\n\\u00e9/\"}",
		  "{\"a\":1,\"b\":1.0,\"c\":[true,false,null],\"d\":\"x\\u0001\\n\xc3\xa9/\"}");
	json_case("{\"a\":1,\"a\":2}", NULL);
	json_case("[1e999]", NULL);
	json_case("99999999999999999999", NULL);
	json_case("{\"a\":", NULL);
	json_case("NaN", NULL);
	json_case("1.5e3", "1500.0");
	char fp[33], hfp[33];
	fp_xxh3_of("{\"type\":\"x\"}\n", 13, fp);
	fp_xxh3_of("{\"type\":\"header\",\"schema\":\"t\"}\n", 31, hfp);
	char good[400];
	snprintf(good, sizeof good,
		 "{\"type\":\"header\",\"schema\":\"t\"}\n{\"type\":\"x\"}\n{\"type\":\"end\",\"records\":1,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\n",
		 fp, hfp);
	CHECK(stream_case(good) == ND_EOF, "good stream rejected");
	char twice[1200];
	snprintf(twice, sizeof twice, "%s%s", good, good);
	CHECK(stream_case(twice) == ND_EOF, "concatenated streams rejected");
	char bad[1200];
	snprintf(bad, sizeof bad,
		 "{\"type\":\"header\",\"schema\":\"t\"}\n{\"type\":\"y\"}\n{\"type\":\"end\",\"records\":1,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\n",
		 fp, hfp);
	CHECK(stream_case(bad) == ND_ERROR, "edited body accepted");
	snprintf(bad, sizeof bad,
		 "{\"type\":\"header\",\"schema\":\"u\"}\n{\"type\":\"x\"}\n{\"type\":\"end\",\"records\":1,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\n",
		 fp, hfp);
	CHECK(stream_case(bad) == ND_ERROR, "edited header accepted");
	snprintf(bad, sizeof bad, "{\"type\":\"header\",\"schema\":\"t\"}\n{\"type\":\"x\"}\n{\"type\":\"end\",\"records\":1,\"fingerprint\":\"%s\"}\n", fp);
	CHECK(stream_case(bad) == ND_ERROR, "end without header_fingerprint accepted");
	snprintf(bad, sizeof bad,
		 "{\"type\":\"header\",\"schema\":\"t\"}\r\n{\"type\":\"x\"}\r\n{\"type\":\"end\",\"records\":1,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\r\n",
		 fp, hfp);
	CHECK(stream_case(bad) == ND_ERROR, "CRLF stream accepted");
	CHECK(stream_case("{\"type\":\"header\",\"schema\":\"t\"}\n{\"type\":\"x\"}\n") == ND_ERROR, "missing end accepted");
	snprintf(bad, sizeof bad, "%s{\"type\":\"x\"}\n", good);
	CHECK(stream_case(bad) == ND_ERROR, "record after end accepted");
	printf("test_core: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
