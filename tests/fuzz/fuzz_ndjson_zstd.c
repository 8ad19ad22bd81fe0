/* The NDJSON stream reader through the zstd decoder: every input is read as a zstd file
 * (the frame magic is put in front when it is missing), so mutations hit the decoder,
 * the skippable-frame path, truncation and the line limit. */
#include "fuzz.h"
#include "core/ndjson.h"
#include "core/zio.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb;
	sb_init(&sb);
	if (size < 4 || !zio_is_zstd_magic(data))
		sb_add(&sb, "\x28\xb5\x2f\xfd", 4);
	sb_add(&sb, data, size);
	char err[512];
	struct nd_reader *r = ndr_open(fz_file(0, sb.buf, sb.len), err, sizeof err);
	if (r) {
		struct arena a;
		struct json *rec;
		arena_init(&a);
		while (ndr_next(r, &a, &rec, err, sizeof err) > 0)
			arena_reset(&a);
		arena_release(&a);
		ndr_close(r);
	}
	sb_release(&sb);
	return 0;
}
