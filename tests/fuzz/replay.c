/* replay — run a fuzz harness over saved inputs without libFuzzer: `make check` links every
 * harness with this main and the normal build, and replays tests/fuzz/regressions/NAME/
 * (every input a fuzzer once crashed on) and the seed corpus. Arguments are files or
 * directories (every regular file in them, sorted); prints how many inputs ran. A crash,
 * a sanitizer report or a timeout of the caller is the failure; the exit status is 0. */
#include "fuzz.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long runs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	struct strbuf sb;
	sb_init(&sb);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)(sb.buf ? sb.buf : ""), sb.len);
	sb_release(&sb);
	runs++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return;   /* a harness with no saved regression yet (git keeps no empty directory) */
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		exit(2);
	}
	char **names = NULL;
	size_t count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (count + 1) * sizeof *names);
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		if (!names || !(names[count] = malloc(len))) {
			fputs("replay: out of memory\n", stderr);
			exit(2);
		}
		snprintf(names[count++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof *names, by_name);
	for (size_t i = 0; i < count; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%s: %lu inputs replayed\n", argc > 0 ? argv[0] : "replay", runs);
	return 0;
}
