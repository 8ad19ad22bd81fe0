/* The NDJSON stream reader through the zstd decoder: every input is read as a zstd file
 * (the frame magic is put in front when it is missing), so mutations hit the decoder,
 * the skippable-frame path, truncation and the line limit. */
#include "fuzz.h"
#include "core/zio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb;
	sb_init(&sb);
	if (size < 4 || !zio_is_zstd_magic(data))
		sb_add(&sb, "\x28\xb5\x2f\xfd", 4);
	sb_add(&sb, data, size);
	fz_read_streams(fz_file(0, sb.buf, sb.len));
	sb_release(&sb);
	return 0;
}
