/* Unit tests for lib/core/ndstream: ndr_read_stream's order of callbacks, its fast path,
 * and where each kind of failure stops it. */
#include "core/ndjson.h"
#include "core/ndstream.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* What the callbacks saw, in order: H header, F fast line, R parsed record, E finish. */
struct seen {
	char log[64];
	size_t n;
	long sum;                /* of the "n" of parsed records */
	int fail_at;             /* the callback number (1-based) that fails, 0 = none */
	char fp[40];
};

static int note(struct seen *s, char c, struct nd_reader *r, char *err, size_t errlen)
{
	if (s->n + 1 < sizeof s->log)
		s->log[s->n++] = c;
	if (s->fail_at && (int)s->n == s->fail_at) {
		ndr_errorf(r, err, errlen, "toy: refused at %c", c);
		return -1;
	}
	return 0;
}

static int on_header(void *ctx, struct nd_reader *r, const struct json *h, char *err, size_t errlen)
{
	return note(ctx, 'H', r, err, errlen);
}

/* A body line that starts {"type":"quick" is taken without parsing. */
static int fast(void *ctx, const char *line, size_t len)
{
	static const char pre[] = "{\"type\":\"quick\"";
	return len >= sizeof pre - 1 && !memcmp(line, pre, sizeof pre - 1);
}

static int on_fast(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	return note(ctx, 'F', r, err, errlen);
}

static int on_record(void *ctx, struct nd_reader *r, const struct json *v, char *err, size_t errlen)
{
	struct seen *s = ctx;
	const struct json *n = json_get(v, "n");
	if (n && n->kind == JSON_INT)
		s->sum += n->u.i;
	return note(s, 'R', r, err, errlen);
}

static int on_finish(void *ctx, struct nd_reader *r, char *err, size_t errlen)
{
	struct seen *s = ctx;
	snprintf(s->fp, sizeof s->fp, "%s", ndr_fingerprint(r));
	return note(s, 'E', r, err, errlen);
}

static const struct ndr_stream_ops with_fast = { "toy", on_header, fast, on_fast, on_record, on_finish };
static const struct ndr_stream_ops plain = { "toy", on_header, NULL, NULL, on_record, NULL };

/* One toy stream: {"type":"quick"} and {"type":"slow","n":K} records in the order kinds
 * gives ('q' / 's'), sealed by the writer; times copies of it, one after another. */
static void write_toy(const char *path, const char *kinds, int times)
{
	FILE *out = fopen(path, "w");
	for (int k = 0; k < times; k++) {
		char err[300], tmp[] = "/tmp/test_ndstream_oneXXXXXX";
		int fd = mkstemp(tmp);
		close(fd);
		struct arena a;
		arena_init(&a);
		struct nd_writer *w = ndw_open(tmp, err, sizeof err);
		ndw_header(w, nd_header_new(&a, "schednav.toy/1", "test_ndstream"), err, sizeof err);
		for (int i = 0; kinds[i]; i++) {
			struct json *rec = json_object(&a);
			json_set(&a, rec, "type", json_str(&a, kinds[i] == 'q' ? "quick" : "slow"));
			if (kinds[i] == 's')
				json_set(&a, rec, "n", json_int(&a, i + 1));
			ndw_record(w, rec, err, sizeof err);
		}
		ndw_end(w, NULL, err, sizeof err);
		CHECK(!ndw_close(w, err, sizeof err), "write: %s", err);
		arena_release(&a);
		FILE *in = fopen(tmp, "r");
		int c;
		while ((c = fgetc(in)) != EOF)
			fputc(c, out);
		fclose(in);
		unlink(tmp);
	}
	fclose(out);
}

static int run(const char *path, const struct ndr_stream_ops *ops, struct seen *s, char *err, size_t errlen)
{
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return -2;
	int rc = ndr_read_stream(r, ops, s, err, errlen);
	ndr_close(r);
	return rc;
}

int main(void)
{
	char path[] = "/tmp/test_ndstreamXXXXXX";
	int fd = mkstemp(path);
	close(fd);
	char err[400];

	/* the order of callbacks; fast lines are not parsed, parsed ones are */
	write_toy(path, "qsqs", 1);
	struct seen s = { 0 };
	CHECK(run(path, &with_fast, &s, err, sizeof err) == 0, "good stream refused: %s", err);
	CHECK(!strcmp(s.log, "HFRFRE"), "callbacks '%s', want HFRFRE", s.log);
	CHECK(s.sum == 2 + 4, "parsed n sum %ld, want 6", s.sum);
	CHECK(strlen(s.fp) == 32, "finish saw no fingerprint: '%s'", s.fp);

	/* without a fast path every record is parsed, and finish is optional */
	struct seen p = { 0 };
	CHECK(run(path, &plain, &p, err, sizeof err) == 0, "plain read refused: %s", err);
	CHECK(!strcmp(p.log, "HRRRR"), "callbacks '%s', want HRRRR", p.log);

	/* a failing callback stops the read at once, with its own PATH:LINE message */
	for (int at = 1; at <= 6; at++) {
		struct seen f = { .fail_at = at };
		CHECK(run(path, &with_fast, &f, err, sizeof err) == -1, "failure at callback %d not passed on", at);
		CHECK(f.n == (size_t)at, "read went on after callback %d failed (%zu calls)", at, f.n);
		char want[64];
		snprintf(want, sizeof want, "toy: refused at %c", "HFRFRE"[at - 1]);
		CHECK(strstr(err, want) && !strncmp(err, path, strlen(path)), "failure %d message '%s'", at, err);
	}
	/* the line of a record failure is that record's */
	struct seen f3 = { .fail_at = 3 };
	run(path, &with_fast, &f3, err, sizeof err);
	char want[300];
	snprintf(want, sizeof want, "%s:3: toy: refused at R", path);
	CHECK(!strcmp(err, want), "record failure '%s', want '%s'", err, want);

	/* a second stream after the first */
	write_toy(path, "s", 2);
	struct seen two = { 0 };
	CHECK(run(path, &with_fast, &two, err, sizeof err) == -1, "two streams accepted");
	CHECK(strstr(err, "expected exactly one toy stream") != NULL, "two streams message '%s'", err);
	CHECK(!strcmp(two.log, "HRE"), "two streams: callbacks '%s', want HRE", two.log);

	/* empty input */
	FILE *e = fopen(path, "w");
	fclose(e);
	struct seen none = { 0 };
	CHECK(run(path, &with_fast, &none, err, sizeof err) == -1, "empty input accepted");
	snprintf(want, sizeof want, "%s: empty input: expected a toy stream", path);
	CHECK(!strcmp(err, want), "empty message '%s', want '%s'", err, want);
	CHECK(none.n == 0, "callbacks on empty input");

	/* a stream cut before its end record */
	e = fopen(path, "w");
	fputs("{\"type\":\"header\",\"schema\":\"schednav.toy/1\"}\n{\"type\":\"quick\"}\n", e);
	fclose(e);
	struct seen cut = { 0 };
	CHECK(run(path, &with_fast, &cut, err, sizeof err) == -1, "truncated stream accepted");
	CHECK(strstr(err, "truncated stream") != NULL, "truncated message '%s'", err);
	CHECK(!strcmp(cut.log, "HF"), "truncated: callbacks '%s', want HF", cut.log);

	unlink(path);
	printf("test_ndstream: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
