/* stream-verify — check that files hold complete, unedited streams and, optionally,
 * that they were made from given input streams (their headers list those fingerprints). */
#include "core/arena.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include <getopt.h>
#include <yajl/yajl_parse.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"stream-verify [--made-from INPUT]... [--print-fingerprint] [--repetitions] [FILE...]";

static const char help[] =
	"\n"
	"Read every stream in each FILE (none or '-': stdin) and verify it (header, end record,\n"
	"record count, XXH3-128 fingerprint and header fingerprint; body lines must be JSON\n"
	"objects with a type). With --made-from, also require that a header in FILE lists the\n"
	"fingerprint of every stream in INPUT among its inputs: a consumer uses this to refuse\n"
	"a producer's file that was not made from what it claims (INPUT's framing and\n"
	"fingerprints are checked, its body lines are not parsed). Exit 1 on the first failure.\n"
	"\n"
	"  -m, --made-from INPUT    FILE must list INPUT's stream fingerprint(s) in its header inputs\n"
	"  -p, --print-fingerprint  print the fingerprint of FILE's last stream, one line per FILE\n"
	"  -r, --repetitions        the FILEs after the first are repetitions of it: one whose\n"
	"                           fingerprints equal the first's is not parsed line by line\n"
	"                           again (equal fingerprints: the first's lines); one that\n"
	"                           differs is verified in full\n";

static const char schemas[] = "reads: any stream\nwrites: nothing (with -p, one fingerprint per FILE)\n";

/* The fingerprints of a file's streams and the fingerprints its headers list as inputs. */
struct facts {
	char **fps, **inputs;
	size_t nfps, ninputs, capfps, capinputs;
};

static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
	*v = xgrow(*v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

static void facts_free(struct facts *f)
{
	for (size_t i = 0; i < f->nfps; i++)
		free(f->fps[i]);
	for (size_t i = 0; i < f->ninputs; i++)
		free(f->inputs[i]);
	free(f->fps);
	free(f->inputs);
	memset(f, 0, sizeof *f);
}

/* Body lines are hashed and counted by the reader; this one only has to show that a line is
 * a JSON object (yajl's syntax and UTF-8 checks, without building the tree, which is most of
 * the cost of verifying a 15 MB result stream) whose first key is a plain "type" naming
 * neither header nor end. Any other line (another first key, an escaped type, "type" twice,
 * bad JSON) takes the reader's full parse and its messages. */
static bool plain_body_type(const char *line, size_t len)
{
	static const char prefix[] = "{\"type\":\"";
	const size_t p = sizeof prefix - 1;
	if (len < p + 2 || memcmp(line, prefix, p))
		return false;
	const char *name = line + p, *q = memchr(name, '"', len - p);
	if (!q || memchr(name, '\\', (size_t)(q - name)))
		return false;
	size_t n = (size_t)(q - name);
	if ((n == 6 && !memcmp(name, "header", 6)) || (n == 3 && !memcmp(name, "end", 3)))
		return false;
	for (const char *k = q + 1, *end = line + len; (k = memchr(k, '"', (size_t)(end - k))) && end - k >= 6; k++)
		if (!memcmp(k, "\"type\"", 6))
			return false;
	return true;
}

/* A line of a repetition: framed, counted and hashed, not parsed. Only a file whose
 * fingerprints all equal the first file's is accepted this way, and then its body lines are
 * the first's (which were parsed); any other file is read again in full (read_facts). A line
 * that might be a header or an end record is parsed, so the framing is the reader's. */
static int repeat_line(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	return plain_body_type(line, len);
}

static int body_line(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	if (!plain_body_type(line, len))
		return 0;
	/* yajl lets \u0000 through; the full parse refuses it with its message */
	for (const char *k = line, *end = line + len; (k = memchr(k, '\\', (size_t)(end - k))) && end - k >= 6; k++)
		if (!memcmp(k, "\\u0000", 6))
			return 0;
	/* nor does it check surrogate escapes (a lone high one becomes '?'): the full parse does */
	char serr[160];
	if (json_surrogates_check(line, len, serr, sizeof serr))
		return 0;
	yajl_handle h = xnonnull(yajl_alloc(NULL, NULL, NULL));
	int ok = yajl_parse(h, (const unsigned char *)line, len) == yajl_status_ok && yajl_complete_parse(h) == yajl_status_ok;
	yajl_free(h);
	return ok;
}

/* Read PATH's streams into F with FAST offered every body line; false on any error. */
static bool scan_facts(const char *path, struct facts *f, int (*fast)(void *, const char *, size_t), char *err, size_t errlen)
{
	struct arena a;
	struct json *rec;
	enum nd_event ev;
	struct nd_reader *r = ndr_open(path, err, errlen);
	if (!r)
		return false;
	arena_init(&a);
	while ((ev = ndr_next_fast(r, &a, &rec, fast, NULL, err, errlen)) > 0) {
		if (ev == ND_HEADER) {
			struct json *in = json_get(rec, "inputs");
			for (size_t i = 0; in && in->kind == JSON_ARRAY && i < in->u.arr.n; i++) {
				struct json *fp = json_get(in->u.arr.items[i], "fingerprint");
				if (fp && fp->kind == JSON_STRING)
					push(&f->inputs, &f->ninputs, &f->capinputs, fp->u.str.s);
			}
		} else if (ev == ND_END)
			push(&f->fps, &f->nfps, &f->capfps, ndr_fingerprint(r));
		arena_reset(&a);
	}
	if (ev != ND_ERROR && f->nfps == 0) {
		snprintf(err, errlen, "%s: no stream", ndr_name(r));
		ev = ND_ERROR;
	}
	arena_release(&a);
	ndr_close(r);
	return ev != ND_ERROR;
}

static void read_facts(const char *path, struct facts *f)
{
	char err[1024];
	if (!scan_facts(path, f, body_line, err, sizeof err))
		die("%s", err);
}

/* A --made-from INPUT: what the link needs are its true stream fingerprints, so it is framed,
 * counted and hashed (a truncated or edited INPUT still fails) but its body lines are not
 * parsed; verifying INPUT's lines is a call of its own. */
static void read_input_facts(const char *path, struct facts *f)
{
	char err[1024];
	if (!scan_facts(path, f, repeat_line, err, sizeof err))
		die("%s", err);
}

static bool same_fps(const struct facts *a, const struct facts *b)
{
	if (a->nfps != b->nfps)
		return false;
	for (size_t i = 0; i < a->nfps; i++)
		if (strcmp(a->fps[i], b->fps[i]))
			return false;
	return true;
}

/* A repetition of FIRST: accepted unparsed when its fingerprints are FIRST's, else in full. */
static void read_repetition(const char *path, const struct facts *first, struct facts *f)
{
	char err[1024];
	/* standard input cannot be read twice: it is verified in full at once */
	if (strcmp(path, "-") && scan_facts(path, f, repeat_line, err, sizeof err) && same_fps(f, first))
		return;
	facts_free(f);
	read_facts(path, f);
}

static bool listed(const struct facts *f, const char *fp)
{
	for (size_t i = 0; i < f->ninputs; i++)
		if (!strcmp(f->inputs[i], fp))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "made-from", required_argument, NULL, 'm' },
		{ "print-fingerprint", no_argument, NULL, 'p' },
		{ "repetitions", no_argument, NULL, 'r' },
		CLI_OPTION_INPUT, CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char **made_from = NULL;
	size_t nmade = 0, capmade = 0;
	bool print = false, repetitions = false;
	struct cli cli;
	int c;

	cli_init(&cli, argv, CLI_INPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":m:pri:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			made_from = xgrow(made_from, &capmade, nmade + 1, sizeof *made_from);
			made_from[nmade++] = optarg;
			break;
		case 'p': print = true; break;
		case 'r': repetitions = true; break;
		default: cli_option(&cli, c, argv);
		}
	}
	cli_operands(&cli, argc, argv, 0);
	/* Inputs first, so a bad input is reported as such. */
	struct facts *in = xcalloc(nmade ? nmade : 1, sizeof *in);
	for (size_t i = 0; i < nmade; i++)
		read_input_facts(made_from[i], &in[i]);
	struct facts first = { 0 };
	for (size_t k = 0; k < cli.ninputs; k++) {
		struct facts f = { 0 };
		if (repetitions && k > 0)
			read_repetition(cli.inputs[k], &first, &f);
		else
			read_facts(cli.inputs[k], &f);
		for (size_t i = 0; i < nmade; i++)
			for (size_t j = 0; j < in[i].nfps; j++)
				if (!listed(&f, in[i].fps[j]))
					die("'%s' was not made from '%s': its header inputs do not list '%s'",
					    cli.inputs[k], made_from[i], in[i].fps[j]);
		if (print)
			printf("%s\n", f.fps[f.nfps - 1]);
		if (repetitions && k == 0)
			first = f;
		else
			facts_free(&f);
	}
	facts_free(&first);
	for (size_t i = 0; i < nmade; i++)
		facts_free(&in[i]);
	free(in);
	free(made_from);
	cli_release(&cli);
	if (fflush(stdout) || ferror(stdout) || fclose(stdout))
		die("cannot write standard output");
	return 0;
}
