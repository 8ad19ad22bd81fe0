/* The run-set documents and manifests the bridge reads (lib/agents/manifest.c): a run config,
 * a run set and a simulate_run_set manifest (sealed, so the record checks are reached),
 * three parts joined by FZ_SEP. Every ref accepted must follow the workspace ref rule. */
#include "fuzz.h"
#include "agents/manifest.h"
#include "agents/workspace.h"
#include "core/text.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	size_t len[3];
	struct arena a;
	char err[700];
	fz_split(data, size, part, len, 3);
	arena_init(&a);
	struct run_config rc;
	if (ag_mf_run_config(&a, part[0], len[0], &rc, err, sizeof err) == 0) {
		if (!ag_ws_ref_ok(rc.trace_ref) || (rc.history_trace_ref && !ag_ws_ref_ok(rc.history_trace_ref)))
			abort();
	} else if (!text_utf8_ok(err, strlen(err)))
		abort();
	struct json *ids;
	if (ag_mf_run_set(&a, part[1], len[1], &ids, err, sizeof err) == 0) {
		if (ids->u.arr.n < 1 || ids->u.arr.n > MF_RUN_SET_MAX)
			abort();
	} else if (!text_utf8_ok(err, strlen(err)))
		abort();
	struct strbuf sealed;
	sb_init(&sealed);
	fz_seal((const uint8_t *)part[2], len[2], &sealed);
	struct run_set_simulation *sims;
	size_t n;
	if (ag_mf_simulations(&a, fz_file(0, sealed.buf ? sealed.buf : "", sealed.len), &sims, &n, err, sizeof err) == 0) {
		if (n < 1 || n > MF_RUN_SET_MAX * MF_ACTIONS_MAX)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!ag_ws_ref_ok(sims[i].metrics_ref) || !ag_ws_id_ok(sims[i].run_config_id) || !ag_ws_id_ok(sims[i].action_id))
				abort();
	}
	sb_release(&sealed);
	arena_release(&a);
	return 0;
}
