#include "core/cli.h"
#include "core/die.h"
#include "core/ndjson.h"
#include "core/text.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_init(struct cli *c, char **argv, int flags, const char *usage, const char *help, const char *schemas)
{
	set_progname(argv[0] ? argv[0] : "schednav");
	opterr = 0;
	/* Option values and file names can be written into the output, and every byte a tool
	 * writes is UTF-8 (docs/hardening.md): refuse any argument that is not. */
	for (int i = 1; argv[0] && argv[i]; i++) {
		size_t len = strlen(argv[i]);
		if (text_utf8_ok(argv[i], len))
			continue;
		char q[100];
		text_quote(q, sizeof q, argv[i], len);
		usage_error(usage, "argument %d is not valid UTF-8: '%s' (arguments can reach the output, which is UTF-8)", i, q);
	}
	memset(c, 0, sizeof *c);
	c->usage = usage;
	c->help = help;
	c->schemas = schemas;
	c->flags = flags;
	c->output = "-";
}

static void push_input(struct cli *c, const char *path)
{
	c->inputs = xgrow(c->inputs, &c->capinputs, c->ninputs + 1, sizeof *c->inputs);
	c->inputs[c->ninputs++] = path;
}

/* The command-line element getopt_long just read. */
static const char *last_arg(char **argv)
{
	return optind > 0 ? argv[optind - 1] : "";
}

/* A long option as typed, without "=value". */
static void long_name(const char *arg, char *out, size_t len)
{
	const char *eq = strchr(arg, '=');
	snprintf(out, len, "%.*s", (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
}

void cli_option(struct cli *c, int opt, char **argv)
{
	char name[128];
	switch (opt) {
	case 'i':
		if (c->flags & CLI_INPUT) {
			push_input(c, optarg);
			return;
		}
		break;
	case 'o':
		if (c->flags & CLI_OUTPUT) {
			c->output = optarg;
			return;
		}
		break;
	case 'h':
		usage_print(stdout, c->usage);
		fputs(c->help, stdout);
		fputs("\nCommon options:\n", stdout);
		if (c->flags & CLI_INPUT)
			fputs("  -i, --input FILE   an input stream, the same as a FILE operand ('-' = stdin)\n", stdout);
		if (c->flags & CLI_OUTPUT)
			fputs("  -o, --output FILE  write FILE instead of stdout (a unique temporary file,\n"
			      "                     FILE.XXXXXX.tmp, renamed into place on success; a name\n"
			      "                     ending in .zst is compressed)\n", stdout);
		print_help("  -h, --help         show this help\n"
			   "  -V, --version      print the version and the stream schemas read and written\n");
	case 'V':
		print_version(c->schemas);
	case ':':
		if (!strncmp(last_arg(argv), "--", 2))
			long_name(last_arg(argv), name, sizeof name);
		else
			snprintf(name, sizeof name, "-%c", optopt);
		usage_error(c->usage, "option '%s' needs an argument", name);
	}
	/* optopt is 0 for an unknown long option; a known one given "=value" it does not take
	 * comes back as '?' with optopt set. An option the tool's table has but does not
	 * handle (a tool bug) is reported as unknown too. */
	if (opt != '?' && opt > 0 && opt < 256 && strncmp(last_arg(argv), "--", 2)) {
		snprintf(name, sizeof name, "-%c", opt);
		usage_error(c->usage, "unknown option '%s'", name);
	}
	if (opt != '?' || optopt == 0 || (!strncmp(last_arg(argv), "--", 2) && strchr(last_arg(argv), '='))) {
		long_name(last_arg(argv), name, sizeof name);
		usage_error(c->usage, opt == '?' && optopt ? "option '%s' takes no argument" : "unknown option '%s'", name);
	}
	snprintf(name, sizeof name, "-%c", optopt > 0 && optopt < 256 ? optopt : '?');
	usage_error(c->usage, "unknown option '%s'", name);
}

void cli_operands(struct cli *c, int argc, char **argv, size_t max_inputs)
{
	for (int i = optind; i < argc; i++) {
		if (!(c->flags & CLI_INPUT))
			usage_error(c->usage, "unexpected operand '%s'", argv[i]);
		push_input(c, argv[i]);
	}
	if (c->ninputs == 0 && (c->flags & CLI_INPUT))
		push_input(c, "-");
	size_t stdin_uses = 0;
	for (size_t i = 0; i < c->ninputs; i++)
		stdin_uses += !strcmp(c->inputs[i], "-");
	if (stdin_uses > 1)
		usage_error(c->usage, "standard input ('-') given more than once");
	if (max_inputs && c->ninputs > max_inputs)
		usage_error(c->usage, "more than one input ('%s', then '%s')", c->inputs[0], c->inputs[1]);
}

void cli_release(struct cli *c)
{
	free(c->inputs);
	c->inputs = NULL;
	c->ninputs = c->capinputs = 0;
}

struct nd_reader *cli_open_reader(const char *path)
{
	char err[1024];
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	if (!r)
		die("%s", err);
	return r;
}
