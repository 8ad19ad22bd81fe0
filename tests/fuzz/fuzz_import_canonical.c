/* trace-import canonical: trace.json FZ_SEP nodes.csv FZ_SEP jobs.csv, written into the
 * private fuzz directory. When trace.json is a JSON object its 'files' hashes and
 * trace_fingerprint are recomputed first (as tests/canon-fixture.py reseals), so the
 * fuzzer reaches the row rules behind the hash checks. */
#include "fuzz_import.h"
#include "core/fp.h"
#include "trace/export.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	size_t len[3];
	fz_split(data, size, part, len, 3);
	fz_write("nodes.csv", part[1], len[1]);
	fz_write("jobs.csv", part[2], len[2]);
	struct arena a;
	struct json *m;
	char err[512];
	arena_init(&a);
	if (json_parse(&a, part[0], len[0], &m, err, sizeof err) == 0 && m->kind == JSON_OBJECT) {
		char sha[65], fp[65];
		struct json *files = json_object(&a);
		fp_sha256_of(part[1], len[1], sha);
		json_set(&a, files, "nodes.csv", json_str(&a, sha));
		fp_sha256_of(part[2], len[2], sha);
		json_set(&a, files, "jobs.csv", json_str(&a, sha));
		if (json_get(m, "files"))
			json_set(&a, m, "files", files);
		if (json_get(m, "trace_fingerprint")) {
			trace_manifest_fingerprint(m, fp);
			json_set(&a, m, "trace_fingerprint", json_str(&a, fp));
		}
		struct strbuf sb;
		sb_init(&sb);
		json_write(&sb, m);
		fz_write("trace.json", sb.buf, sb.len);
		sb_release(&sb);
	} else
		fz_write("trace.json", part[0], len[0]);
	arena_release(&a);
	struct import_canonical_opts o = { .dir = fz_dir() };
	IMPORT(trace_import_canonical, o);
	return 0;
}
