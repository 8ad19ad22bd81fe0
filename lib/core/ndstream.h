/*
 * ndstream — the loop every reader of one whole SchedNav stream repeats (issue 38): the
 * header, then each body record (through an optional fast path for lines the caller can
 * take without parsing), then the end record, the caller's checks on the whole, and
 * "nothing after it". The reader owns the scratch arena; a record it hands to a callback
 * lives until the next record is read, so a callback keeps what it needs by copying.
 * Errors come back as "PATH:LINE: message" in err; nothing here prints or exits.
 */
#ifndef SCHEDNAV_NDSTREAM_H
#define SCHEDNAV_NDSTREAM_H
#include "core/ndjson.h"
#include <stddef.h>

struct ndr_stream_ops {
	const char *what;   /* "trace": "empty input: expected a trace stream", "expected exactly one trace stream" */
	/* The header record; 0 or -1 + message. Required. */
	int (*header)(void *ctx, struct nd_reader *r, const struct json *h, char *err, size_t errlen);
	/* Optional: ndr_next_fast's line test, called with ctx. 1 = the line is taken as it is. */
	int (*fast)(void *ctx, const char *line, size_t len);
	/* A body line fast took (required with fast). */
	int (*fast_record)(void *ctx, struct nd_reader *r, char *err, size_t errlen);
	/* A parsed body record. Required. */
	int (*record)(void *ctx, struct nd_reader *r, const struct json *v, char *err, size_t errlen);
	/* Optional: after the end record and before the check that no second stream follows
	 * (ndr_fingerprint(r) is the stream's). */
	int (*finish)(void *ctx, struct nd_reader *r, char *err, size_t errlen);
};

/* Read exactly one stream from r through ops. 0, or -1 + message as soon as anything fails. */
int ndr_read_stream(struct nd_reader *r, const struct ndr_stream_ops *ops, void *ctx, char *err, size_t errlen);
#endif
