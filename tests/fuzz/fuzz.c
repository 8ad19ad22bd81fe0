/* Helpers of the fuzz harnesses: memfd files, input parts, sealing, a private directory. */
#define _GNU_SOURCE   /* memfd_create, memmem */
#include "fuzz.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fds[FZ_FILES] = { -1, -1, -1, -1 };
static char paths[FZ_FILES][64];

const char *fz_file(int k, const void *p, size_t n)
{
	if (fds[k] < 0) {
		fds[k] = memfd_create("schednav-fuzz", 0);
		if (fds[k] < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(paths[k], sizeof paths[k], "/proc/self/fd/%d", fds[k]);
	}
	if (ftruncate(fds[k], 0) != 0 || pwrite(fds[k], p, n, 0) != (ssize_t)n) {
		perror("memfd write");
		abort();
	}
	return paths[k];
}

size_t fz_split(const uint8_t *data, size_t size, const char **part, size_t *len, size_t max)
{
	const char *p = (const char *)data, *end = p + size;
	size_t k = 0, sep = strlen(FZ_SEP);
	for (size_t i = 0; i < max; i++) {
		part[i] = "";
		len[i] = 0;
	}
	while (k < max) {
		const char *q = k + 1 < max ? memmem(p, (size_t)(end - p), FZ_SEP, sep) : NULL;
		part[k] = p;
		len[k] = (size_t)((q ? q : end) - p);
		k++;
		if (!q)
			break;
		p = q + sep;
	}
	return k;
}

void fz_seal(const uint8_t *data, size_t size, struct strbuf *out)
{
	const char *p = (const char *)data, *end = p + size;
	struct fp_xxh3 body;
	char fp[FP_HEX_XXH3], hfp[FP_HEX_XXH3];
	unsigned long long records = 0;
	sb_init(out);
	fp_xxh3_init(&body);
	const char *nl = memchr(p, '\n', size);
	size_t hl = nl ? (size_t)(nl - p) : size;
	sb_add(out, p, hl);
	sb_addc(out, '\n');
	fp_xxh3_of(out->buf, out->len, hfp);
	p += hl + (nl != NULL);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!memmem(p, l, "\"type\":\"end\"", 12)) {
			sb_add(out, p, l);
			sb_addc(out, '\n');
			fp_xxh3_update(&body, p, l);
			fp_xxh3_update(&body, "\n", 1);
			records++;
		}
		p += l + (nl != NULL);
	}
	fp_xxh3_hex(&body, fp);
	fp_xxh3_release(&body);
	sb_addf(out, "{\"type\":\"end\",\"records\":%llu,\"fingerprint\":\"%s\",\"header_fingerprint\":\"%s\"}\n", records, fp, hfp);
}

static char dir[256];

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char path[600];
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

const char *fz_dir(void)
{
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/schednav-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(remove_dir);
	}
	return dir;
}

void fz_write(const char *name, const void *p, size_t n)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", fz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

void fz_read_streams(const char *path)
{
	char err[512];
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	if (!r)
		return;
	struct arena a;
	struct json *rec;
	arena_init(&a);
	while (ndr_next(r, &a, &rec, err, sizeof err) > 0)
		arena_reset(&a);
	arena_release(&a);
	ndr_close(r);
}
