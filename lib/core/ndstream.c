/* The one-stream reading loop (see ndstream.h). */
#include "core/ndstream.h"
#include <stdio.h>

int ndr_read_stream(struct nd_reader *r, const struct ndr_stream_ops *ops, void *ctx, char *err, size_t errlen)
{
	struct arena scratch;
	struct json *v;
	int rc = -1;
	arena_init(&scratch);
	enum nd_event ev = ndr_next(r, &scratch, &v, err, errlen);
	if (ev == ND_EOF) {
		snprintf(err, errlen, "%s: empty input: expected a %s stream", ndr_name(r), ops->what);
		goto out;
	}
	if (ev != ND_HEADER || ops->header(ctx, r, v, err, errlen))
		goto out;
	for (;;) {
		arena_reset(&scratch);
		ev = ops->fast ? ndr_next_fast(r, &scratch, &v, ops->fast, ctx, err, errlen) : ndr_next(r, &scratch, &v, err, errlen);
		if (ev == ND_ERROR)
			goto out;
		if (ev == ND_END)
			break;
		/* inside a stream ndr_next gives only ND_RECORD, ND_END or ND_ERROR */
		if (!v ? ops->fast_record(ctx, r, err, errlen) : ops->record(ctx, r, v, err, errlen))
			goto out;
	}
	if (ops->finish && ops->finish(ctx, r, err, errlen))
		goto out;
	if (ndr_expect_end(r, &scratch, ops->what, err, errlen))
		goto out;
	rc = 0;
out:
	arena_release(&scratch);
	return rc;
}
