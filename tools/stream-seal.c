/* stream-seal — stamp the end record on hand-written or hand-edited streams: read header
 * and body lines, drop any stale end record and write a fresh one (count + fingerprint). */
#include "core/cli.h"
#include "core/die.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/zio.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "stream-seal [-o OUT] [FILE...]\n";

static const char help[] =
	"\n"
	"Read one or more streams whose end records are missing or stale (a header line, then\n"
	"body lines) and write them with a correct end record after each stream's body. Body\n"
	"lines are copied byte for byte; each header is rewritten canonically. An end record\n"
	"in the input is dropped and replaced. Every line must be a JSON object with a string\n"
	"'type'; a header needs a string 'schema'. Several FILEs are sealed in order into one\n"
	"output; each must hold whole streams (a header first).\n";

static const char schemas[] = "reads: any stream (header + body lines)\nwrites: the same streams, sealed\n";

static const struct option longopts[] = { CLI_OPTION_INPUT, CLI_OPTION_OUTPUT, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 } };

/* Seal every stream of r into w; returns the number of streams written. */
static unsigned seal(struct zio_reader *r, struct nd_writer *w)
{
	struct arena a;
	char err[512];
	const char *line;
	size_t len;
	bool nl, in_stream = false;
	unsigned long lineno = 0;
	unsigned streams = 0;
	int rc;
	arena_init(&a);
	while ((rc = zr_getline(r, &line, &len, &nl, err, sizeof err)) == 1) {
		lineno++;
		arena_reset(&a);
		struct json *v;
		char jerr[256];
		if (!nl)
			die("%s:%lu: truncated input: last line has no newline", zr_name(r), lineno);
		if (json_parse(&a, line, len, &v, jerr, sizeof jerr))
			die("%s:%lu: %s", zr_name(r), lineno, jerr);
		struct json *type = json_get(v, "type");
		if (v->kind != JSON_OBJECT || !type || type->kind != JSON_STRING)
			die("%s:%lu: record is not an object with a string 'type'", zr_name(r), lineno);
		const char *ty = type->u.str.s;
		if (!strcmp(ty, "header")) {
			struct json *schema = json_get(v, "schema");
			if (!schema || schema->kind != JSON_STRING)
				die("%s:%lu: header has no string 'schema'", zr_name(r), lineno);
			if (in_stream && ndw_end(w, NULL, err, sizeof err))
				die("%s", err);
			if (ndw_header(w, v, err, sizeof err))
				die("%s", err);
			in_stream = true;
			streams++;
		} else if (!in_stream) {
			die("%s:%lu: '%s' record before any header", zr_name(r), lineno, ty);
		} else if (!strcmp(ty, "end")) {
			if (ndw_end(w, NULL, err, sizeof err))
				die("%s", err);
			in_stream = false;
		} else if (ndw_raw(w, line, len, err, sizeof err)) {
			die("%s", err);
		}
	}
	if (rc < 0)
		die("%s", err);
	if (in_stream && ndw_end(w, NULL, err, sizeof err))
		die("%s", err);
	arena_release(&a);
	return streams;
}

int main(int argc, char **argv)
{
	struct cli cli;
	int c;
	cli_init(&cli, argv, CLI_INPUT | CLI_OUTPUT, usage, help, schemas);
	while ((c = getopt_long(argc, argv, ":i:o:hV", longopts, NULL)) != -1)
		cli_option(&cli, c, argv);
	cli_operands(&cli, argc, argv, 0);
	char err[512];
	struct nd_writer *w = ndw_open(cli.output, err, sizeof err);
	if (!w)
		die("%s", err);
	for (size_t i = 0; i < cli.ninputs; i++) {
		struct zio_reader *r = zr_open(cli.inputs[i], false, err, sizeof err);
		if (!r)
			die("%s", err);
		if (seal(r, w) == 0)
			die("%s: empty input: expected a header line", zr_name(r));
		zr_close(r);
	}
	if (ndw_close(w, err, sizeof err))
		die("%s", err);
	cli_release(&cli);
	return 0;
}
