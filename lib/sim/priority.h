/*
 * priority — Slurm's priority/multifactor as a queue order for the backfill passes (issue 37,
 * docs/simulator.md §3.12). The policy key "priority_multifactor" holds an object whose keys
 * mirror slurm.conf's Priority* keys (weights, PriorityMaxAge, PriorityDecayHalfLife,
 * PriorityFavorSmall) plus what slurm.conf keeps elsewhere and a trace can name: the QOS
 * priority of each class, the PriorityJobFactor of each GPU model's partition and the
 * fair-share Shares of each tenant (account).
 */
#ifndef SCHEDNAV_SIM_PRIORITY_H
#define SCHEDNAV_SIM_PRIORITY_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

struct mf_named { const char *name; double value; };

struct mf_config {
	double w_age, w_fairshare, w_jobsize, w_partition, w_qos;   /* PriorityWeight* */
	double max_age, half_life;            /* PriorityMaxAge, PriorityDecayHalfLife (s, > 0) */
	bool favor_small;                     /* PriorityFavorSmall */
	double qos_hp, qos_spot;              /* QOSPriority: {"HP": n, "Spot": n} */
	struct mf_named *partition;           /* PartitionPriorityJobFactor: GPU model -> factor ("*" too) */
	size_t n_partition;
	struct mf_named *shares;              /* Shares: tenant -> shares (others: 1) */
	size_t n_shares;
};

/* Validate the object and fill c (arrays in a). 0, or -1 + message naming the key. */
int sim_mf_parse(const struct json *o, struct mf_config *c, struct arena *a, char *err, size_t errlen);
#endif
