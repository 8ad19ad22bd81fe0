/* Unit tests for lib/core: number formatting, rounding, JSON round trips, stream checks. */
#include "core/json.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/fp.h"
#include "core/strrank.h"
#include "core/spawn.h"
#include "core/text.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void fmt_case(double v, const char *want)
{
	char b[NUM_FMT_MAX];
	num_fmt_double(b, v);
	CHECK(!strcmp(b, want), "repr(%.17g) = '%s', want '%s'", v, b, want);
}

/* The short-decimal path's digits against printf's "%0*lld" (what it used before): values
 * m / 10^k over k = 0..9, with the leading zeros of the fraction and of large m. */
static void fmt_digits_vs_printf(void)
{
	static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	static const long long ms[] = { 1, 5, 9, 10, 12, 99, 100, 101, 1234, 99999, 100000, 123456789, 1000000007, 99999999999999LL };
	int bad = 0;
	for (int k = 0; k <= 9; k++)
		for (size_t x = 0; x < sizeof ms / sizeof *ms; x++)
			for (int sign = 0; sign < 2; sign++) {
				double v = (double)ms[x] / p10[k] * (sign ? -1 : 1);
				if (fabs(v) < 1e-4 || fabs(v) >= 1e15)
					continue;
				char b[NUM_FMT_MAX], want[64], digits[40];
				num_fmt_double(b, v);
				/* the old path: the first k' round-tripping, its digits by printf */
				for (int kk = 0; kk <= 9; kk++) {
					long long m = llround(fabs(v) * p10[kk]);
					if ((double)m / p10[kk] != fabs(v))
						continue;
					int n = snprintf(digits, sizeof digits, "%0*lld", kk + 1, m);
					snprintf(want, sizeof want, "%s%.*s.%s", v < 0 ? "-" : "", n - kk, digits, kk ? digits + n - kk : "0");
					break;
				}
				if (strcmp(b, want) && bad++ < 5)
					CHECK(0, "repr(%.17g) = '%s', printf digits give '%s'", v, b, want);
			}
	CHECK(bad == 0, "%d digit mismatches", bad);
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

static void utf8_case(const char *s, size_t len, size_t want_bad)
{
	size_t got = text_utf8_bad(s, len);
	CHECK(got == want_bad, "text_utf8_bad of %zu bytes = %zu, want %zu", len, got, want_bad);
}

static void id_case(const char *s, bool ok)
{
	const char *why = text_id_problem(s, strlen(s));
	CHECK((why == NULL) == ok, "id '%s': %s", s, why ? why : "accepted");
}

static void text_cases(void)
{
	utf8_case("plain ascii text, longer than eight bytes", 41, 41);
	utf8_case("caf\xc3\xa9", 5, 5);
	utf8_case("Jos\xe9", 4, 3);                          /* Latin-1 e-acute */
	utf8_case("abcdefgh\xc0\xafxyz", 13, 8);          /* overlong '/' */
	utf8_case("\xed\xa0\x80", 3, 0);                   /* a surrogate */
	utf8_case("\xf4\x90\x80\x80", 4, 0);               /* above U+10FFFF */
	utf8_case("\xe2\x82", 2, 0);                        /* truncated sequence */
	utf8_case("abcdefghij\0kl", 13, 10);               /* NUL inside an ASCII run */
	utf8_case("\xf0\x9f\x98\x80 ok", 7, 7);
	id_case("native-fifo", true);
	id_case("org 13", true);
	id_case("Jos\xc3\xa9", true);
	id_case("*", true);
	id_case("", false);
	id_case(" sp ", false);
	id_case("sp\t", false);
	id_case("evil\nsystem(\"touch /tmp/pwned\")\n#", false);
	id_case("a\x1b[31mred", false);
	id_case("c1\xc2\x85next", false);                    /* U+0085 NEL */
	id_case("line\xe2\x80\xa8sep", false);              /* U+2028 */
	id_case("\xc2\xa0nbsp", false);                       /* no-break space at the start */
	CHECK(text_plain_problem("two\nlines\tand a tab", 19) == NULL, "free text with newline and tab refused");
	CHECK(text_plain_problem("bell\a", 5) != NULL, "free text with BEL accepted");
	char big[TEXT_ID_MAX + 2];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	id_case(big, false);
	big[TEXT_ID_MAX] = 0;
	id_case(big, true);
	struct strbuf sb;
	sb_init(&sb);
	text_latin1_to_utf8(&sb, "Jos\xe9 \xff!", 7);
	CHECK(sb.len == 9 && !memcmp(sb.buf, "Jos\xc3\xa9 \xc3\xbf!", 9), "latin-1 transcoding: '%s'", sb.buf);
	sb_release(&sb);
	char q[64];
	text_quote(q, sizeof q, "a\nb\xe9", 4);
	CHECK(!strcmp(q, "a\\x0ab\\xe9"), "text_quote: '%s'", q);
	/* the trace model's capacity bound: the sum is checked before it is added */
	char err[300];
	long long total = TRACE_MAX_CAPACITY - TRACE_MAX_NODE_GPUS;
	struct trace_node n = { .id = "n", .model = "A", .gpu_count = TRACE_MAX_NODE_GPUS };
	CHECK(trace_check_node(&n, &total, err, sizeof err) == 0 && total == TRACE_MAX_CAPACITY, "capacity at the bound refused: %s", err);
	n.gpu_count = 1;
	CHECK(trace_check_node(&n, &total, err, sizeof err) != 0 && total == TRACE_MAX_CAPACITY, "capacity beyond the bound accepted");
	CHECK(strstr(err, "add up to more than 1099511627776") != NULL, "capacity message: %s", err);
	n.gpu_count = TRACE_MAX_NODE_GPUS + 1;
	CHECK(trace_check_node(&n, NULL, err, sizeof err) != 0, "node beyond 2^20 GPUs accepted");
	/* the JSON parser refuses NUL in strings: no C string is ever cut short */
	json_case("{\"job_id\":\"j\\u0000a\"}", NULL);
	json_case("\"j\\u0000\"", NULL);
	/* nor an unpaired surrogate escape (yajl would make a lone high one '?'); a pair is one
	 * character, and an escaped backslash before "ud800" escapes no surrogate */
	json_case("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");
	json_case("{\"\\uD83D\\uDE00\":[\"\\\\ud800\",\"\\\"\\\\udc00\"]}", "{\"\xf0\x9f\x98\x80\":[\"\\\\ud800\",\"\\\"\\\\udc00\"]}");
	json_case("\"j\\ud800\"", NULL);
	json_case("\"\\ud800a\"", NULL);
	json_case("\"\\udc00\"", NULL);
	json_case("\"\\ud800\\u0041\"", NULL);
	json_case("\"\\udbff\\udbff\\udc00\"", NULL);
	json_case("{\"\\ude00\":1}", NULL);
	json_case("[\"ok\",\"\\ud800\\\\udc00\"]", NULL);
	char serr[160];
	CHECK(json_surrogates_check("\"x\\ud800\\u0041\"", 15, serr, sizeof serr) != 0
	      && !strcmp(serr, "unpaired surrogate escape \\ud800 in a string (followed by \\u0041, not by a low surrogate)"), "surrogate message: %s", serr);
}

/* The schema ids renamed by issue 20 item 8 are read in both spellings, nothing else. */
static void schema_id_cases(void)
{
	CHECK(nd_schema_is("schednav.run-config/1", "schednav.run-config/1"), "new spelling refused");
	CHECK(nd_schema_is("schednav.run-config/v1", "schednav.run-config/1"), "old spelling refused");
	CHECK(nd_schema_is("schednav.bridge-task/v2", "schednav.bridge-task/2"), "old spelling /v2 refused");
	CHECK(nd_schema_is("schednav.bridge-task/v12", "schednav.bridge-task/12"), "old spelling /v12 refused");
	static const char *const no[][2] = {
		{ "schednav.run-config/v2", "schednav.run-config/1" },
		{ "schednav.run-config/V1", "schednav.run-config/1" },
		{ "schednav.run-config/vv1", "schednav.run-config/1" },
		{ "schednav.run-config/v", "schednav.run-config/1" },
		{ "schednav.run-config/v1 ", "schednav.run-config/1" },
		{ "schednav.run-set/v1", "schednav.run-config/1" },
		{ "schednav.run-config/1", "schednav.run-config/v1" },   /* an original /vN id has one spelling */
		{ "schednav.trace/1", "schednav.trace/v1" },
		{ "run-config/v1", "schednav.run-config/1" },
		{ "", "schednav.run-config/1" },
	};
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		CHECK(!nd_schema_is(no[i][0], no[i][1]), "'%s' taken for '%s'", no[i][0], no[i][1]);
	CHECK(nd_schema_is("schednav.trace/v1", "schednav.trace/v1"), "an original id refused");
	CHECK(!nd_schema_is(NULL, "schednav.run-config/1"), "NULL taken for an id");
}

/* str_ranks: equal strings equal ranks, ranks in strcmp order, both with few distinct
 * strings (linear lookup) and with more than 64 (the sort fallback) */
struct named { int pad; const char *name; };

static void strrank_cases(void)
{
	char buf[200][8];
	struct named v[200];
	uint32_t r[200];
	for (int many = 0; many < 2; many++) {
		size_t n = 200, m = many ? 150 : 5;
		for (size_t i = 0; i < n; i++) {
			snprintf(buf[i], sizeof buf[i], "m%zu", (i * 37) % m);   /* separate copies: equal strings, distinct pointers */
			v[i] = (struct named){ (int)i, buf[i] };
		}
		size_t d = str_ranks(&v[0].name, n, sizeof *v, r);
		CHECK(d == m, "distinct strings %zu, want %zu", d, m);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < n; k++) {
				int c = strcmp(v[i].name, v[k].name);
				CHECK((c < 0) == (r[i] < r[k]) && (c == 0) == (r[i] == r[k]), "ranks of '%s' %u and '%s' %u", v[i].name, r[i],
				      v[k].name, r[k]);
			}
	}
	CHECK(str_ranks(NULL, 0, sizeof *v, r) == 0, "no strings");
}

/* Write t (after edit) as a trace stream to path. */
static void write_trace(struct trace *t, const char *path)
{
	char err[512];
	struct arena a;
	arena_init(&a);
	struct nd_writer *w = ndw_open(path, err, sizeof err);
	if (!w || trace_write(t, trace_header(t, &a, "test_core"), w, NULL, err, sizeof err) || ndw_close(w, err, sizeof err)) {
		fprintf(stderr, "test_core: %s\n", err);
		exit(1);
	}
	arena_release(&a);
}

/* trace_load_sharing reads the very trace trace_load reads; it shares like's job array only
 * when every job is equal, and like's strings for the jobs it has. */
static void sharing_cases(void)
{
	static const char src[] = "tests/data/sim/micro-quota.trace.ndjson";
	char err[512], p1[] = "/tmp/test_core_shareXXXXXX";
	int fd1 = mkstemp(p1);
	CHECK(fd1 >= 0, "mkstemp");
	close(fd1);
	struct trace like, plain, same, edited;
	trace_init(&like);
	trace_init(&plain);
	trace_init(&same);
	trace_init(&edited);
	if (trace_load(&like, src, err, sizeof err) || trace_load_sharing(&same, src, &like, err, sizeof err)) {
		CHECK(0, "load: %s", err);
		return;
	}
	CHECK(same.jobs_shared && same.jobs == like.jobs && same.n_jobs == like.n_jobs, "an equal trace shares the job array");
	CHECK(!strcmp(same.fingerprint, like.fingerprint) && same.n_nodes == like.n_nodes, "and reads the same stream");
	/* one job fewer at the front, one duration changed, one tenant-less model changed */
	CHECK(like.n_jobs >= 4, "the case needs 4 jobs");
	trace_load(&plain, src, err, sizeof err);
	memmove(plain.jobs, plain.jobs + 1, (plain.n_jobs - 1) * sizeof *plain.jobs);
	plain.n_jobs--;
	plain.jobs[1].duration += 1;
	char renamed[256];
	snprintf(renamed, sizeof renamed, "%s~", plain.jobs[2].id);   /* sorts where the job was */
	plain.jobs[2].id = renamed;
	write_trace(&plain, p1);
	trace_release(&plain);
	trace_init(&plain);
	if (trace_load(&plain, p1, err, sizeof err) || trace_load_sharing(&edited, p1, &like, err, sizeof err)) {
		CHECK(0, "load edited: %s", err);
		return;
	}
	CHECK(!edited.jobs_shared && edited.jobs != like.jobs, "an edited trace keeps its own array");
	CHECK(edited.n_jobs == plain.n_jobs && !strcmp(edited.fingerprint, plain.fingerprint), "same stream as trace_load");
	for (size_t i = 0; i < edited.n_jobs && i < plain.n_jobs; i++) {
		const struct trace_job *e = &edited.jobs[i], *q = &plain.jobs[i];
		CHECK(!strcmp(e->id, q->id) && !strcmp(e->model, q->model) && e->submit == q->submit && e->duration == q->duration &&
		      e->gpus == q->gpus && e->hp == q->hp && e->phase == q->phase && e->submit_int == q->submit_int &&
		      e->duration_int == q->duration_int && e->gpus_int == q->gpus_int && (!e->tenant) == (!q->tenant) &&
		      (!e->tenant || !strcmp(e->tenant, q->tenant)), "job %zu as trace_load reads it", i);
		bool in_like = false;
		for (size_t k = 0; k < like.n_jobs; k++)
			in_like |= like.jobs[k].id == e->id;
		CHECK(in_like == (i != 2), "job %zu '%s': like's id string exactly when like has it", i, e->id);
	}
	/* the array shared, not copied: released in either order without a double free (ASan) */
	trace_release(&same);
	trace_release(&edited);
	trace_release(&plain);
	trace_release(&like);
	unlink(p1);
}

/* A child that leaves a grandchild behind (sleep 1000 &): spawn_run ends the child's
 * process group, so the grandchild is gone (or a zombie for init) when spawn_run returns. */
static bool pid_alive(pid_t pid)
{
	char path[64], st = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	int n = fscanf(f, "%*d %*s %c", &st);
	fclose(f);
	return n == 1 && st != 'Z';
}

static void test_spawn_group(void)
{
	char dir[] = "/tmp/test_core_spawn.XXXXXX", pidfile[96], err[256];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
	char *argv[] = { "/bin/sh", "-c", "sleep 1000 & echo $! > pid", NULL };
	int rc = spawn_run(argv, dir, NULL, NULL, err, sizeof err);
	CHECK(rc == 0, "spawn_run: %d %s", rc, err);
	FILE *f = fopen(pidfile, "r");
	int pid = 0;
	CHECK(f && fscanf(f, "%d", &pid) == 1, "no pid file");
	if (f)
		fclose(f);
	bool alive = pid > 0;
	for (int i = 0; i < 600 && alive; i++) {     /* init reaps the killed orphan a moment later */
		alive = pid_alive(pid);
		if (alive)
			nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	CHECK(!alive, "the child's child %d outlived spawn_run", pid);
	if (alive)
		kill(pid, SIGKILL);
	unlink(pidfile);
	rmdir(dir);
}

int main(void)
{
	sharing_cases();
	strrank_cases();
	text_cases();
	fmt_digits_vs_printf();
	schema_id_cases();
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
	char fp[FP_HEX_XXH3], hfp[FP_HEX_XXH3];
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
	test_spawn_group();
	printf("test_core: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
