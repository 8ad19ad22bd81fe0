/* study-lock — freeze a study's calibration selection before any holdout output exists,
 * and verify the frozen lock against the recomputed calibration summary and selection. */
#define _XOPEN_SOURCE 700   /* nftw */
#include "core/arena.h"
#include "core/cli.h"
#include "core/die.h"
#include "core/fp.h"
#include "core/ndjson.h"
#include "core/strbuf.h"
#include "core/zio.h"
#include "eval/evidence.h"
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LOCK_SCHEMA "schednav.selection-lock/1"

static const char usage[] =
	"study-lock --design FILE... --summary FILE --selection FILE --holdout-dir DIR -o LOCK\n"
	"study-lock --verify LOCK --design FILE... --summary FILE --selection FILE\n";

static const char help[] =
	"\n"
	"Freeze (first form) or check (--verify) a study's selection lock: one\n"
	"`selection-lock` record fingerprinting the study design (the bytes of every --design\n"
	"file, in order), the calibration summary stream, the selection stream, and copying\n"
	"the selection status and selected arms. Freezing refuses to create or change LOCK\n"
	"once any file exists under the holdout directory; rewriting an identical lock is\n"
	"allowed. --verify exits 1 naming the first field of LOCK that does not match what\n"
	"the inputs give now.\n"
	"\n"
	"  -d, --design FILE       a design file (study config, SLO, policies); repeat, order matters\n"
	"  -s, --summary FILE      the calibration summary stream (aggregate output)\n"
	"  -S, --selection FILE    the selection stream (study-select output)\n"
	"  -H, --holdout-dir DIR   where holdout outputs are written\n"
	"  -o, --output LOCK       the lock to write (a temporary file, renamed on success)\n"
	"      --verify LOCK       check LOCK instead of writing one\n";

static const char schemas[] = "reads: schednav.aggregate/1 (--summary), schednav.selection/1 (--selection), " LOCK_SCHEMA " (--verify)\n"
			      "writes: " LOCK_SCHEMA "\n";

/* Read a one-stream file: its schema (when schema is not NULL), its end fingerprint and its
 * single body record of type. */
static struct json *read_one(struct arena *a, const char *path, const char *type, char fp[FP_HEX_XXH3], const char **schema)
{
	char err[1024];
	struct json *rec, *found = NULL;
	enum nd_event ev;
	char bad[1200] = "";     /* the first record that does not verify, reported once its stream does */
	struct nd_reader *r = ndr_open(path, err, sizeof err);
	if (!r)
		die("%s", err);
	while ((ev = ndr_next(r, a, &rec, err, sizeof err)) > 0) {
		const struct json *t = json_get(rec, "type");
		/* every record must verify (a resealed, edited selection or summary is refused);
		 * the lock's own fingerprint is checked by the caller, which names the lock */
		if (ev == ND_RECORD && !bad[0] && !(t && t->kind == JSON_STRING && !strcmp(t->u.str.s, "selection-lock")) &&
		    ev_verify(rec, err, sizeof err))
			snprintf(bad, sizeof bad, "%s:%lu: %s", ndr_name(r), ndr_lineno(r), err);
		if (ev == ND_HEADER && schema) {
			const struct json *s = json_get(rec, "schema");
			*schema = s && s->kind == JSON_STRING ? s->u.str.s : "";
		} else if (ev == ND_END)
			snprintf(fp, FP_HEX_XXH3, "%s", ndr_fingerprint(r));
		else if (ev == ND_RECORD && type && t && t->kind == JSON_STRING && !strcmp(t->u.str.s, type)) {
			if (found)
				die("%s:%lu: more than one '%s' record", ndr_name(r), ndr_lineno(r), type);
			found = rec;
		}
	}
	if (ev == ND_ERROR)
		die("%s", err);
	if (bad[0])
		die("%s", bad);
	if (ndr_streams(r) != 1)
		die("%s: expected one stream, found %u", ndr_name(r), ndr_streams(r));
	if (type && !found)
		die("%s: no '%s' record", ndr_name(r), type);
	ndr_close(r);
	return found;
}

static const struct json *need(const struct json *rec, const char *key, enum json_kind kind, const char *path)
{
	const struct json *v = json_get(rec, key);
	bool ok = v && (v->kind == kind || (kind == JSON_TRUE && v->kind == JSON_FALSE));
	if (!ok)
		die("%s: record has no valid '%s'", path, key);
	return v;
}

static unsigned long long holdout_files;

static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	size_t n = strlen(path + ftw->base);
	/* A temporary file left by a killed writer is not an output. */
	if (flag == FTW_F && !(n >= 4 && !strcmp(path + ftw->base + n - 4, ".tmp")))
		holdout_files++;
	return 0;
}

static unsigned long long count_holdout(const char *dir)
{
	struct stat st;
	holdout_files = 0;
	if (stat(dir, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		die("cannot read '%s': %s", dir, strerror(errno));
	}
	if (nftw(dir, count_file, 16, FTW_PHYS) != 0)
		die("cannot walk '%s': %s", dir, strerror(errno));
	return holdout_files;
}

/* The design fingerprint: XXH3-128 over "<bytes>\n<content>" of every design file, in order. */
static void design_fingerprint(const char **files, size_t n, char fp[FP_HEX_XXH3])
{
	struct fp_xxh3 h;
	char err[1024], len[32];
	fp_xxh3_init(&h);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(files[i], "rb");
		struct strbuf sb;
		char buf[65536];
		size_t k;
		if (!f)
			die("cannot open '%s': %s", files[i], strerror(errno));
		sb_init(&sb);
		while ((k = fread(buf, 1, sizeof buf, f)) > 0)
			sb_add(&sb, buf, k);
		if (ferror(f))
			die("cannot read '%s'", files[i]);
		fclose(f);
		snprintf(len, sizeof len, "%zu\n", sb.len);
		fp_xxh3_update(&h, len, strlen(len));
		fp_xxh3_update(&h, sb.buf, sb.len);
		sb_release(&sb);
	}
	(void)err;
	fp_xxh3_hex(&h, fp);
	fp_xxh3_release(&h);
}

static struct json *make_lock(struct arena *a, const char *design_fp, const char *summary_fp,
			      const char *selection_fp, const struct json *sel, const char *sel_path)
{
	struct json *rec = json_object(a);
	json_set(a, rec, "type", json_str(a, "selection-lock"));
	json_set(a, rec, "design_fingerprint", json_str(a, design_fp));
	json_set(a, rec, "calibration_summary_fingerprint", json_str(a, summary_fp));
	json_set(a, rec, "selection_fingerprint", json_str(a, selection_fp));
	json_set(a, rec, "selection_status", json_clone(a, need(sel, "selection_status", JSON_STRING, sel_path)));
	json_set(a, rec, "selected_action_ids", json_clone(a, need(sel, "selected_action_ids", JSON_ARRAY, sel_path)));
	json_set(a, rec, "holdout_output_count_at_freeze", json_int(a, 0));
	json_set(a, rec, "holdout_outputs_absent", json_bool(a, true));
	json_set(a, rec, "human_approval_required", json_clone(a, need(sel, "human_approval_required", JSON_TRUE, sel_path)));
	ev_self_fp_stamp(a, rec, "fingerprint");
	return rec;
}

/* Name the first key whose value differs, or NULL when the records are identical. */
static const char *first_difference(const struct json *have, const struct json *want)
{
	for (size_t i = 0; i < want->u.obj.n; i++) {
		const struct json *h = json_get(have, want->u.obj.keys[i]);
		if (!h || !json_identical(h, want->u.obj.vals[i]))
			return want->u.obj.keys[i];
	}
	return have->u.obj.n == want->u.obj.n ? NULL : "(extra keys)";
}

int main(int argc, char **argv)
{
	enum { OPT_VERIFY = 256 };
	static const struct option opts[] = {
		{ "design", required_argument, NULL, 'd' },
		{ "summary", required_argument, NULL, 's' },
		{ "selection", required_argument, NULL, 'S' },
		{ "holdout-dir", required_argument, NULL, 'H' },
		{ "verify", required_argument, NULL, OPT_VERIFY },
		{ "output", required_argument, NULL, 'o' },
		CLI_OPTIONS_HELP,
		{ NULL, 0, NULL, 0 },
	};
	/* static: the die() and usage paths exit with it still allocated, and it must stay
	 * reachable there (LeakSanitizer lost a stack copy of it once the loop below changed) */
	static const char **design;
	const char *summary = NULL, *selection = NULL, *holdout = NULL, *output = NULL, *verify = NULL;
	size_t ndesign = 0, capdesign = 0;
	struct cli cli;
	int c;

	cli_init(&cli, argv, 0, usage, help, schemas);   /* -o LOCK is study-lock's own */
	while ((c = getopt_long(argc, argv, ":d:s:S:H:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			design = xgrow(design, &capdesign, ndesign + 1, sizeof *design);
			design[ndesign++] = optarg;
			break;
		case 's': summary = optarg; break;
		case 'S': selection = optarg; break;
		case 'H': holdout = optarg; break;
		case 'o': output = optarg; break;
		case OPT_VERIFY: verify = optarg; break;
		default: cli_option(&cli, c, argv);
		}
	}
	if (optind < argc)
		usage_error(usage, "unexpected operand '%s'", argv[optind]);
	if (!ndesign || !summary || !selection)
		usage_fail(usage, "need --design, --summary and --selection");
	if (verify ? (output || holdout) != 0 : !(output && holdout))
		usage_fail(usage, verify ? "--verify takes no --output or --holdout-dir" : "need --holdout-dir and --output");

	struct arena a;
	char err[1024], design_fp[FP_HEX_XXH3], summary_fp[FP_HEX_XXH3], selection_fp[FP_HEX_XXH3], old_fp[FP_HEX_XXH3];
	arena_init(&a);
	design_fingerprint(design, ndesign, design_fp);
	const char *summary_schema = "", *selection_schema = "";
	read_one(&a, summary, NULL, summary_fp, &summary_schema);
	const struct json *sel = read_one(&a, selection, "selection", selection_fp, &selection_schema);
	struct json *want = make_lock(&a, design_fp, summary_fp, selection_fp, sel, selection);

	const char *lock = verify ? verify : output;
	struct stat st;
	struct json *have = NULL;
	if (verify || stat(lock, &st) == 0) {
		have = read_one(&a, lock, "selection-lock", old_fp, NULL);
		/* The lock's own fingerprint must verify before its fields mean anything. */
		if (!ev_self_fp_ok(have, "fingerprint"))
			die("%s: the lock's own fingerprint does not verify", lock);
	}
	if (verify) {
		const char *k = first_difference(have, want);
		if (k)
			die("lock '%s' does not match the recomputed calibration: '%s' differs", lock, k);
	} else {
		unsigned long long n = count_holdout(holdout);
		if (have && first_difference(have, want) && n > 0)
			die("refusing to rewrite lock '%s': its '%s' would change and %llu holdout outputs exist under '%s'",
			    lock, first_difference(have, want), n, holdout);
		if (!have && n > 0)
			die("refusing to create lock '%s': %llu holdout outputs already exist under '%s'", lock, n, holdout);
		struct json *hdr = nd_header_new(&a, LOCK_SCHEMA, "study-lock");
		for (size_t i = 0; i < ndesign; i++)
			if (nd_header_add_config(&a, hdr, design[i], err, sizeof err))
				die("%s", err);
		nd_header_add_stream(&a, hdr, summary, summary_schema, summary_fp);
		nd_header_add_stream(&a, hdr, selection, selection_schema, selection_fp);
		if (ndw_write_one(output, hdr, want, err, sizeof err))
			die("%s", err);
	}
	free(design);
	arena_release(&a);
	return 0;
}
