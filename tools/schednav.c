/* schednav — the front command: run a SchedNav tool from the exec path, print the exec
 * path for shell pipelines, list the tools, show a tool's manual. Installed, it is the
 * only SchedNav program on PATH (PREFIX/bin); the tools live in PREFIX/libexec/schednav,
 * as git installs its plumbing. In the build tree bin/schednav runs the tools beside it. */
#include "core/cli.h"
#include "core/die.h"
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"schednav TOOL [ARG...]\n"
	"schednav --exec-path\n"
	"schednav help [TOOL]\n";

static const char help[] =
	"\n"
	"Run the SchedNav tool TOOL (sim-run, metrics, slo-audit, ...) with ARGs: the tool\n"
	"from the exec path replaces this process, so its output, messages and exit status\n"
	"are the tool's. 'schednav help' lists the tools; 'schednav help TOOL' shows TOOL's\n"
	"manual page (or its --help when the page is not found).\n"
	"\n"
	"      --exec-path    print the directory holding the tools, for shell pipelines:\n"
	"                     PATH=\"$(schednav --exec-path):$PATH\"\n"
	"\n"
	"The exec path is $SCHEDNAV_EXEC_PATH when set, else PREFIX/libexec/schednav beside\n"
	"an installed PREFIX/bin/schednav, else the directory schednav itself is in (the build\n"
	"tree's bin/). See schednav(7) for the conventions every tool shares.\n";

static const char schemas[] = "reads: nothing itself (each TOOL prints its own with TOOL --version)\n"
			      "writes: nothing itself\n";

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory this program is in (resolved), into dir. */
static void self_dir(const char *argv0, char dir[PATH_MAX])
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0)
		self[n] = 0;
	else if (!strchr(argv0, '/') || !realpath(argv0, self))
		die("cannot find where schednav is installed; set SCHEDNAV_EXEC_PATH");
	char *slash = strrchr(self, '/');
	*slash = 0;
	snprintf(dir, PATH_MAX, "%s", *self ? self : "/");
}

static void exec_path(const char *argv0, char out[PATH_MAX])
{
	const char *env = getenv("SCHEDNAV_EXEC_PATH");
	if (env && *env) {
		snprintf(out, PATH_MAX, "%s", env);
		return;
	}
	char dir[PATH_MAX], installed[PATH_MAX + 32];
	self_dir(argv0, dir);
	snprintf(installed, sizeof installed, "%s/../libexec/schednav", dir);
	if (is_dir(installed) && realpath(installed, out))
		return;
	snprintf(out, PATH_MAX, "%s", dir);
}

/* A tool name is what tools/NAME.c can be: lowercase letters, digits and '-', not first. */
static bool tool_name(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* PATH_MAX buffer with DIR/TOOL when TOOL is an executable file there. */
static bool find_tool(const char *dir, const char *tool, char path[PATH_MAX])
{
	struct stat st;
	if (!tool_name(tool) || !strcmp(tool, "schednav"))
		return false;
	if (snprintf(path, PATH_MAX, "%s/%s", dir, tool) >= PATH_MAX)
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void not_a_tool(const char *tool)
{
	usage_error(usage, "'%s' is not a schednav tool; see 'schednav help'", tool);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The manual page of tool: installed (PREFIX/share/man/man1 beside PREFIX/libexec/schednav)
 * or in the source tree the exec path was built in (docs/ one or two levels up from bin/
 * or build-asan/bin/, next to tools/TOOL.c). */
static bool man_page(const char *dir, const char *tool, char page[PATH_MAX])
{
	static const char *const installed = "%s/../../share/man/man1/%s.1";
	static const char *const up[] = { "..", "../.." };
	char source[PATH_MAX];
	struct stat st;
	if (snprintf(page, PATH_MAX, installed, dir, tool) < PATH_MAX && stat(page, &st) == 0 && S_ISREG(st.st_mode))
		return true;
	for (size_t i = 0; i < sizeof up / sizeof *up; i++)
		if (snprintf(source, sizeof source, "%s/%s/tools/%s.c", dir, up[i], tool) < PATH_MAX && stat(source, &st) == 0 &&
		    snprintf(page, PATH_MAX, "%s/%s/docs/%s.1", dir, up[i], tool) < PATH_MAX && stat(page, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	return false;
}

/* The one-line description of tool: the NAME line of its manual page ("name \\- what it
 * does"), with the roff escapes it uses undone; empty without a page. */
static void tool_summary(const char *dir, const char *tool, char *out, size_t n)
{
	char page[PATH_MAX], line[512];
	out[0] = '\0';
	FILE *f = man_page(dir, tool, page) ? fopen(page, "r") : NULL;
	if (!f)
		return;
	bool name = false;
	while (fgets(line, sizeof line, f)) {
		if (!name) {
			name = !strncmp(line, ".SH NAME", 8);
			continue;
		}
		const char *dash = strstr(line, "\\- ");
		if (dash) {
			size_t k = 0;
			for (const char *c = dash + 3; *c && *c != '\n' && k + 1 < n; c++) {
				if (c[0] == '\\' && c[1] == '-')
					c++;   /* \- is a minus sign */
				out[k++] = *c;
			}
			out[k] = '\0';
		}
		break;
	}
	fclose(f);
}

static int list_tools(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		die("cannot read the exec path '%s': %s", dir, strerror(errno));
	char **names = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (find_tool(dir, e->d_name, path)) {
			names = xgrow(names, &cap, n + 1, sizeof *names);
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) > w)
			w = strlen(names[i]);
	printf("usage: schednav TOOL [ARG...]\n\nTools in %s:\n", dir);
	for (size_t i = 0; i < n; i++) {
		char what[256];
		tool_summary(dir, names[i], what, sizeof what);
		if (what[0])
			printf("  %-*s  %s\n", (int)w, names[i], what);
		else
			printf("  %s\n", names[i]);
		free(names[i]);
	}
	free(names);
	printf("\n'schednav help TOOL' shows a tool's manual; schednav(7) describes them all.\n");
	if (fflush(stdout) || ferror(stdout))
		die("cannot write standard output");
	return 0;
}

static int show_help(const char *dir, const char *tool)
{
	char path[PATH_MAX], page[PATH_MAX];
	if (!find_tool(dir, tool, path))
		not_a_tool(tool);
	if (man_page(dir, tool, page)) {
		char *const man[] = { "man", "-l", page, NULL };
		execvp("man", man);   /* returns only when man is missing: fall back to --help */
	}
	char *const tool_help[] = { (char *)tool, "--help", NULL };
	execv(path, tool_help);
	die("cannot run '%s': %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	enum { OPT_EXEC_PATH = 256 };
	static const struct option opts[] = { { "exec-path", no_argument, NULL, OPT_EXEC_PATH }, CLI_OPTIONS_HELP, { NULL, 0, NULL, 0 } };
	struct cli cli;
	char dir[PATH_MAX], path[PATH_MAX];
	bool print_exec_path = false;
	int c;
	cli_init(&cli, argv, 0, usage, help, schemas);
	/* '+': options end at TOOL; what follows is the tool's. */
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		if (c == OPT_EXEC_PATH)
			print_exec_path = true;
		else
			cli_option(&cli, c, argv);
	}
	exec_path(argv[0], dir);
	if (print_exec_path) {
		if (optind < argc)
			usage_error(usage, "--exec-path takes no TOOL");
		printf("%s\n", dir);
		if (fflush(stdout) || ferror(stdout))
			die("cannot write standard output");
		return 0;
	}
	if (optind == argc)
		usage_fail(usage, "missing TOOL (see 'schednav help')");
	const char *tool = argv[optind];
	if (!strcmp(tool, "help")) {
		if (argc - optind > 2)
			usage_error(usage, "help takes at most one TOOL");
		return argc - optind == 2 ? show_help(dir, argv[optind + 1]) : list_tools(dir);
	}
	if (!find_tool(dir, tool, path))
		not_a_tool(tool);
	execv(path, argv + optind);
	die("cannot run '%s': %s", path, strerror(errno));
}
