/* trace-import slurm: scontrol show node -o output FZ_SEP sacct -P output (the line reader,
 * the header, every field parser, the state rules, requeue folding), with account tenants
 * and with hashed user tenants. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	const char *nodes = fz_file(0, part[0], len[0]), *jobs = fz_file(1, part[1], len[1]);
	static const struct import_slurm_rule rules[] = {
		{ IMPORT_SLURM_BY_QOS, "scavenger", false }, { IMPORT_SLURM_BY_PARTITION, "gpu", true },
	};
	static const struct import_slurm_rule any[] = { { IMPORT_SLURM_BY_ANY, NULL, true } };
	struct import_slurm_opts account = { .jobs = jobs, .nodes = nodes, .rules = rules, .n_rules = 2,
					     .tenant_from = IMPORT_SLURM_TENANT_ACCOUNT };
	IMPORT(trace_import_slurm, account);
	struct import_slurm_opts user = { .jobs = jobs, .nodes = nodes, .rules = any, .n_rules = 1,
					  .tenant_from = IMPORT_SLURM_TENANT_USER, .hash_key = "k" };
	IMPORT(trace_import_slurm, user);
	return 0;
}
