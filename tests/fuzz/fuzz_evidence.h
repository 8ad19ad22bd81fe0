/* One evaluation-record harness: the input sealed as one stream of the given schema, read
 * by ev_read and every record checked by ev_verify (the check every consumer runs). */
#include "fuzz.h"
#include "eval/evidence.h"

static int evidence_one(const uint8_t *data, size_t size, const char *const *schemas)
{
	struct strbuf sb;
	struct arena a;
	struct ev_input in;
	char err[512];
	fz_seal(data, size, &sb);
	arena_init(&a);
	ev_input_init(&in);
	if (ev_read(&in, fz_file(0, sb.buf, sb.len), schemas, &a, err, sizeof err) == 0)
		for (size_t i = 0; i < in.n; i++)
			(void)ev_verify(in.items[i].rec, err, sizeof err);
	ev_input_release(&in);
	arena_release(&a);
	sb_release(&sb);
	return 0;
}
