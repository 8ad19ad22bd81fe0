/* The roll decider protocol, decider side in (lib/roll/protocol.c, decider.c): every line of
 * the input as a reply to a pending request (roll_reply_parse, roll_reply_request_id, the
 * decider_reply record), then the whole input as a plan:FILE (load_plan: one decision per
 * request id, duplicates) answering that request, and the check for replies to requests
 * the run never asked. */
#include "fuzz.h"
#include "roll/decision.h"
#include "roll/decider.h"
#include "roll/protocol.h"
#include <stdio.h>
#include <string.h>

#define FZ_REQUEST "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cands[] = { "rolling-fifo-open", "native-fifo", "rolling-preemptive-open-d0000" };
	struct arena a;
	struct roll_reply r;
	arena_init(&a);
	for (size_t i = 0; i < size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = arena_strndup(&a, (const char *)data + i, len);
		roll_reply_parse(&a, line, len, FZ_REQUEST, cands, 3, &r);
		(void)roll_reply_json(&a, &r);
		(void)roll_reply_request_id(&a, line, len);
		i += len + 1;
	}
	char spec[64], err[512];
	struct roll_decider d;
	snprintf(spec, sizeof spec, "plan:%s", fz_file(0, data, size));
	if (!roll_decider_parse(&d, spec, 1, err, sizeof err) && !roll_decider_start(&d, err, sizeof err)) {
		const char *asked[] = { FZ_REQUEST };
		if (roll_decide(&d, &a, "{}", 2, FZ_REQUEST, cands, 3, "rolling-fifo-open", "fz", &r) == ROLL_DECIDE_DONE)
			(void)roll_reply_json(&a, &r);
		(void)roll_decider_plan_unasked(&d, asked, 1);
	}
	roll_decider_close(&d);
	arena_release(&a);
	return 0;
}
