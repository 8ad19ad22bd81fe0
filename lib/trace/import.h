/*
 * import — one function per source format, called by tools/trace-import.c, which parses
 * and checks the command line into the format's options struct (lib sees no argv).
 * Each function fills the empty trace t (nodes, jobs, version, trace_id, time_origin,
 * source, skipped_rows, window), records its parameters in hdr.params and each source
 * file in hdr.inputs (via nd_header_add_file), all in arena a. The caller sorts and
 * validates the trace afterwards, and may then replace trace_id.
 * Option structs hold pointers the caller owns (argv strings); they must outlive the call.
 * Returns 0, IMPORT_DATA_ERROR (message in err: "PATH:LINE: message" for a bad row) or
 * IMPORT_USAGE_ERROR (an option the data makes unusable; the caller prints the usage and
 * exits 2). Nothing here prints or exits.
 */
#ifndef SCHEDNAV_IMPORT_H
#define SCHEDNAV_IMPORT_H
#include "core/arena.h"
#include "core/json.h"
#include "trace/trace.h"
#include <stdbool.h>
#include <stddef.h>

#define IMPORT_DATA_ERROR (-1)
#define IMPORT_USAGE_ERROR (-2)

/* alibaba-spot: cluster-trace-v2026-spot-gpu. The caller has checked: nodes and jobs set
 * (not both "-"); a window has 0 <= eval_start < eval_end and, when max_submit is also
 * given, max_submit == eval_end; a warm-up needs a window and 0 <= warmup_start <=
 * eval_start; !include_warmup_spot needs a window. With a window, max_submit is eval_end. */
struct import_alibaba_spot_opts {
	const char *nodes, *jobs;              /* node_info_df.csv, job_info_df.csv */
	const char *const *gpu_models;         /* keep only these raw models; NULL: all */
	size_t n_gpu_models;
	bool has_max_submit, has_window, has_warmup;
	double max_submit, eval_start, eval_end, warmup_start;
	bool include_warmup_spot;              /* default true */
	bool resources;                        /* issue 36: nodes' cpu_milli from cpu_num */
};

/* alibaba-v2023: the openb node and pod lists; phases[i] keeps pods in phase
 * IMP_V2023_PHASES[i] (at least one true). */
#define IMPORT_V2023_NPHASES 3
extern const char *const IMP_V2023_PHASES[IMPORT_V2023_NPHASES];   /* Failed, Running, Succeeded */
struct import_alibaba_v2023_opts {
	const char *nodes, *pods;
	bool phases[IMPORT_V2023_NPHASES];
	bool resources;                        /* issue 36: the nodes' and pods' CPU, memory, GPU share and spec */
};

/* philly: cluster_machine_list + cluster_job_log; every job gets the caller's class. */
struct import_philly_opts {
	const char *machines, *job_log;
	bool hp;                               /* class HP (true) or Spot */
};

/* canonical: the original three-file directory. */
struct import_canonical_opts {
	const char *dir;
};

/* csv: any CSV through a JSON column/label mapping. nodes_file (when set) replaces the
 * mapping's; has_node_subset picks a seeded subset of at least node_subset_gpus GPUs. */
struct import_csv_opts {
	const char *map;
	const char *nodes_file;
	bool has_node_subset;
	long long node_subset_gpus;            /* > 0 */
	unsigned long long seed;
	const char *const *files;              /* job files, at least one */
	size_t n_files;
};

/* slurm: sacct -P output (jobs) + scontrol show node -o output (nodes). Classes come from
 * the declared rules, tried in order (the first that matches a job's QOS or partition wins;
 * BY_ANY matches every job); a kept job no rule matches is an error. hash_key (NULL: none)
 * replaces every tenant name by its keyed hash; the key itself is never recorded. */
enum { IMPORT_SLURM_BY_QOS, IMPORT_SLURM_BY_PARTITION, IMPORT_SLURM_BY_ANY };
enum { IMPORT_SLURM_TENANT_NONE, IMPORT_SLURM_TENANT_ACCOUNT, IMPORT_SLURM_TENANT_USER };
struct import_slurm_rule {
	int field;                             /* IMPORT_SLURM_BY_* */
	const char *value;                     /* QOS or partition name; unused for BY_ANY */
	bool hp;
};
struct import_slurm_opts {
	const char *jobs, *nodes;
	const struct import_slurm_rule *rules;
	size_t n_rules;                        /* at least one */
	int tenant_from;                       /* IMPORT_SLURM_TENANT_* */
	const char *hash_key;
	bool het_split;                        /* issue 37: --hetjob split (each component 123+N its own job; default: join into 123) */
	bool resources;                        /* issue 36: AllocTRES cpu/mem, and the nodes' CPUTot/RealMemory */
};

/* swf (issue 37): Standard Workload Format v2.2. GPUs = processors x gpus_per_proc, or
 * ceil(processors / procs_per_gpu) when that is > 0; nodes of gpus_per_node GPUs of model
 * gpu_model, as many as `nodes`, else the header's MaxNodes, else what MaxProcs needs.
 * Classes from declared rules on the queue, partition or user number (first match wins). */
enum { IMPORT_SWF_BY_QUEUE, IMPORT_SWF_BY_PARTITION, IMPORT_SWF_BY_USER, IMPORT_SWF_BY_ANY };
enum { IMPORT_SWF_TENANT_NONE, IMPORT_SWF_TENANT_USER, IMPORT_SWF_TENANT_GROUP };
struct import_swf_rule {
	int field;                             /* IMPORT_SWF_BY_* */
	long long value;                       /* the number; unused for BY_ANY */
	bool hp;
};
struct import_swf_opts {
	const char *jobs;
	long long gpus_per_proc, procs_per_gpu, gpus_per_node, nodes;   /* procs_per_gpu 0 = use gpus_per_proc; nodes 0 = from the header */
	const char *gpu_model;
	const struct import_swf_rule *rules;
	size_t n_rules;                        /* at least one */
	int tenant_from;                       /* IMPORT_SWF_TENANT_* */
};

int trace_import_alibaba_spot(const struct import_alibaba_spot_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_alibaba_v2023(const struct import_alibaba_v2023_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_philly(const struct import_philly_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_canonical(const struct import_canonical_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_csv(const struct import_csv_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_slurm(const struct import_slurm_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
int trace_import_swf(const struct import_swf_opts *o, struct trace *t, struct json *hdr, struct arena *a, char *err, size_t errlen);
#endif
