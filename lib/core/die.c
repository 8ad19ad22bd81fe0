#include "core/die.h"
#include "core/num.h"
#include "core/text.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const char *progname = "schednav";

void set_progname(const char *argv0)
{
	const char *p = strrchr(argv0, '/');
	progname = p ? p + 1 : argv0;
}

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(1);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void usage_print(FILE *f, const char *usage)
{
	const char *p = usage;
	for (int first = 1; *p; first = 0) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", len, p);
		p += len + (nl != NULL);
	}
}

void usage_fail(const char *usage, const char *msg)
{
	if (msg)
		fprintf(stderr, "%s: %s\n", progname, msg);
	usage_print(stderr, usage);
	exit(2);
}

void usage_error(const char *usage, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vmsg(fmt, ap);
		va_end(ap);
	}
	usage_print(stderr, usage);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc_large(size_t n, size_t size)
{
	const size_t huge = (size_t)2 << 20;
	if (size && n > ((size_t)-1) / size)
		die("out of memory");
	size_t bytes = n * size;
	if (bytes < 4 * huge)
		return xcalloc(n, size);
	void *p;
	size_t rounded = (bytes + huge - 1) & ~(huge - 1);
	if (posix_memalign(&p, huge, rounded) != 0)
		die("out of memory");
#ifdef MADV_HUGEPAGE
	madvise(p, rounded, MADV_HUGEPAGE);
#endif
	memset(p, 0, bytes);
	return p;
}

void *xgrow_large(void *p, size_t *cap, size_t need, size_t elem)
{
	const size_t huge = (size_t)2 << 20;
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 8;
	while (c < need) {
		if (c > ((size_t)-1) / 2 / (elem ? elem : 1))
			die("out of memory");
		c *= 2;
	}
	size_t bytes = c * elem;
	if (bytes < 4 * huge) {
		p = xrealloc(p, bytes);
		*cap = c;
		return p;
	}
	void *q;
	size_t rounded = (bytes + huge - 1) & ~(huge - 1);
	if (posix_memalign(&q, huge, rounded) != 0)
		die("out of memory");
#ifdef MADV_HUGEPAGE
	madvise(q, rounded, MADV_HUGEPAGE);
#endif
	if (p)
		memcpy(q, p, *cap * elem);
	free(p);
	*cap = c;
	return q;
}

void xalloc_die(void)
{
	die("out of memory");
}

void *xnonnull(void *p)
{
	if (!p)
		xalloc_die();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 8;
	while (c < need) {
		if (c > ((size_t)-1) / 2 / (elem ? elem : 1))
			die("out of memory");
		c *= 2;
	}
	p = xrealloc(p, c * elem);
	*cap = c;
	return p;
}

double opt_double(const char *name, const char *s)
{
	double v;
	if (num_parse_double(s, &v) != 0) {
		fprintf(stderr, "%s: --%s: invalid number '%s'\n", progname, name, s);
		exit(2);
	}
	return v;
}

long long opt_int(const char *name, const char *s)
{
	long long v;
	if (num_parse_int(s, &v) != 0) {
		fprintf(stderr, "%s: --%s: invalid integer '%s'\n", progname, name, s);
		exit(2);
	}
	return v;
}

#ifndef SCHEDNAV_VERSION
#define SCHEDNAV_VERSION "0.0.0"
#endif

void print_version(const char *schemas)
{
	printf("%s (SchedNav) %s\n", progname, SCHEDNAV_VERSION);
	printf("stream framing: %s (end: records, fingerprint, header_fingerprint)\n", SCHEDNAV_STREAM_FRAMING);
	if (schemas)
		fputs(schemas, stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		exit(1);
	exit(0);
}

void print_help(const char *text)
{
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		exit(1);
	exit(0);
}
