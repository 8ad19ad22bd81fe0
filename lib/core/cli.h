/*
 * cli — the command line every tool shares. Like die, this is tool-side code: it prints
 * and exits, and only tools call it.
 *
 * The one surface (docs/schednav.7): input streams are FILE operands, "-" or none meaning
 * stdin, and -i/--input FILE is the same as an operand; -o/--output FILE (default stdout);
 * -h/--help prints the usage and the options on stdout, exit 0; -V/--version prints the
 * version and the schemas the tool reads and writes, exit 0. Misuse prints one message and
 * the usage on stderr, exit 2: "unknown option '--x'", "option '--x' needs an argument",
 * "unexpected operand 'x'", "more than one input ('a', then 'b')", "standard input ('-')
 * given more than once"; a tool's own checks use
 * usage_error(c.usage, ...) from die.h.
 *
 * A tool's getopt_long table lists its own options, then CLI_OPTION_INPUT and/or
 * CLI_OPTION_OUTPUT when it has them, then CLI_OPTIONS_HELP; its optstring starts with ':'
 * (after a leading '-' or '+', if any) and ends with the letters it uses of "i:o:hV". Every
 * value getopt_long returns that the tool does not handle goes to cli_option. The inputs
 * array is owned by struct cli; its strings are argv's.
 */
#ifndef SCHEDNAV_CLI_H
#define SCHEDNAV_CLI_H
#include <getopt.h>
#include <stddef.h>

enum {
	CLI_INPUT = 1,      /* -i/--input and FILE operands */
	CLI_OUTPUT = 2,     /* -o/--output FILE */
};

#define CLI_OPTION_INPUT { "input", required_argument, NULL, 'i' }
#define CLI_OPTION_OUTPUT { "output", required_argument, NULL, 'o' }
#define CLI_OPTIONS_HELP { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }

struct cli {
	const char *usage;     /* the SYNOPSIS lines, '\n'-separated (usage_print) */
	const char *help;      /* what --help prints between the usage and the common options */
	const char *schemas;   /* what --version prints after the version (print_version) */
	int flags;             /* CLI_INPUT | CLI_OUTPUT: which common options the tool has */
	const char **inputs;   /* -i values and operands in command-line order */
	size_t ninputs, capinputs;
	const char *output;    /* -o value, "-" (stdout) when not given */
};

/* Set progname from argv[0], silence getopt's own messages, fill c; refuse (exit 2) an
 * argument that is not valid UTF-8 (it could reach the output). */
void cli_init(struct cli *c, char **argv, int flags, const char *usage, const char *help, const char *schemas);
/* Handle a getopt_long value the tool does not: 'i', 'o', 'h', 'V', ':' and '?'. Exits 0
 * for -h and -V, 2 with the usage for an unknown option or a missing argument. */
void cli_option(struct cli *c, int opt, char **argv);
/* Append argv[optind..argc) to the inputs (each a FILE operand), then "-" when there is
 * none (CLI_INPUT tools only). max_inputs 1: a second input is a usage error; 0: any number. A tool without
 * CLI_INPUT gets "unexpected operand" for the first operand. */
void cli_operands(struct cli *c, int argc, char **argv, size_t max_inputs);
void cli_release(struct cli *c);
struct nd_reader;
/* ndr_open(path), or exit 1 with its message. */
struct nd_reader *cli_open_reader(const char *path);
#endif
