#include "core/die.h"
#include "core/num.h"
#include "core/text.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
