/*
 * synth — seeded synthetic traces calibrated to a profile of aggregate tables
 * (schednav.synth-profile/1, /2 and /3, docs/profiles.md).
 *
 * A profile is loaded and validated into struct synth_profile (all strings and arrays
 * owned by its arena; synth_profile_release frees them). synth_generate fills an empty
 * struct trace with the profile's nodes and a job population drawn with struct synth_rng
 * (xoshiro256** seeded through splitmix64): the same profile, seed and options give the
 * same trace bit for bit, on every platform with IEEE doubles. synth_fit writes a
 * Markdown report comparing the generated jobs with the profile.
 * Nothing here prints or exits: functions return 0 or -1 with a message in err.
 */
#ifndef SCHEDNAV_SYNTH_H
#define SCHEDNAV_SYNTH_H
#include "core/arena.h"
#include "core/fp.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "trace/trace.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYNTH_PROFILE_SCHEMA "schednav.synth-profile/1"
#define SYNTH_PROFILE_SCHEMA2 "schednav.synth-profile/2"
#define SYNTH_PROFILE_SCHEMA3 "schednav.synth-profile/3"
#define SYNTH_PROFILE_SCHEMA4 "schednav.synth-profile/4"   /* issue 34: profile4.c, generate4.c */
#define SYNTH_MAX_BUCKETS 32
#define SYNTH_MAX_COUNT 1000000000LL   /* any count in a profile (jobs per hour, per model, ...) */
#define SYNTH_HOUR 3600
/* The most jobs trace-synth makes (load factor times the profile's jobs). */
#define SYNTH_MAX_JOBS 50000000LL
#define SYNTH_DAY 86400

struct synth_rng { uint64_t s[4]; };
/* Seed one independent stream: splitmix64 over seed mixed with the stream number. */
void synth_rng_seed(struct synth_rng *r, uint64_t seed, uint64_t stream);
uint64_t synth_rng_next(struct synth_rng *r);
double synth_rng_unit(struct synth_rng *r);                 /* [0, 1), 53 bits */
uint64_t synth_rng_below(struct synth_rng *r, uint64_t n);  /* [0, n), unbiased; n > 0 */

struct synth_model {
	char *name;
	long long jobs;
	size_t n_gpw;
	double *gpw_value, *gpw_cum;     /* GPUs per worker, cumulative probability (/1) */
	size_t n_cells;                  /* the joint workers x GPUs-per-worker table (/2) */
	long long *cell_workers, *cell_jobs;
	double *cell_gpw;
	double gpu_seconds;              /* target sum of gpus x duration (/2), NAN when absent */
	long long capacity;              /* sum of the profile's nodes of this model */
	double ref_demand;               /* reference.gpu_demand, NAN when absent */
	double ref_gpu_seconds;          /* reference.gpu_seconds, NAN when absent */
	double *concurrency;             /* /3: requested GPUs active per hour, n_conc items */
	double spot_share, spot_size_ratio;  /* /3: inferred Spot share of jobs, Spot/HP GPUs-per-job */
	double max_job_days;             /* /3: cap of a generated job's duration in days, 0 = none */
};

/* /3: a real job row placed as it was (its model inferred by the profile's builder). */
struct synth_real {
	char *name, *org;
	bool hp;
	int model;
	long long submit, duration, workers;
	double gpw;
};

/* /3: a bucket table: lower edges ascending (the last bucket is open), jobs and GPU-seconds. */
struct synth_buckets {
	size_t n;
	double edge[SYNTH_MAX_BUCKETS];
	long long jobs[SYNTH_MAX_BUCKETS];
	double gpu_seconds[SYNTH_MAX_BUCKETS];
};

struct synth_node { char *id, *model; long long gpus; };

struct synth_profile {
	struct arena arena;
	char *path, *name, *time_origin;
	unsigned long long bytes;
	char xxh3[FP_HEX_XXH3];
	struct json *attribution;        /* NULL when absent */
	int version;                     /* 1, 2, 3 or 4 */
	size_t n_hours, n_days;
	long long *hourly;               /* jobs submitted in hour h */
	long long (*daily)[2];           /* HP, Spot jobs submitted in day d */
	size_t n_models;
	struct synth_model *models;
	size_t n_workers;
	long long *worker_value, *worker_jobs;
	size_t n_quant;
	double *quant_p, *quant_v;       /* duration inverse CDF knots, p from 0 to 1 */
	size_t n_orgs;
	char **org_name;
	long long *org_jobs;
	double *org_gpu_seconds, *org_median;   /* NAN when absent */
	double class_gpu_seconds[2], class_median[2], class_p90[2];  /* HP, Spot; NAN when absent */
	size_t n_nodes;
	struct synth_node *nodes;
	long long total_jobs;            /* sum of hourly */
	/* /3 only */
	size_t n_conc;                   /* hours of the concurrency series (>= n_hours) */
	size_t n_real;
	struct synth_real *real;
	struct synth_buckets dur_buckets, gpu_buckets;  /* by duration (s), by GPUs per job */
	double long_threshold;           /* seconds; long_jobs/long_gs by [class HP=0 Spot=1][short=0 long=1] */
	long long long_jobs[2][2];
	double long_gs[2][2];
	double *org_mix;                 /* n_orgs x n_models shares of each organization's jobs */
	/* /4 only (issue 34, profile4.c): the submission tables */
	double *sub_gpus, *sub_gs;       /* GPUs and GPU-seconds submitted in hour h (n_hours items) */
	double (*day_sub)[2];            /* GPUs and GPU-seconds submitted on day d (n_days items) */
	double *model_day_gs;            /* n_days x n_models: GPU-seconds of the model submitted on day d */
	char v4_sha256[FP_HEX_SHA256];   /* the tables' fingerprint as checked */
};

/* Read and validate a profile (".zst" accepted). Errors as "PATH: message". */
int synth_profile_load(struct synth_profile *p, const char *path, char *err, size_t errlen);
void synth_profile_release(struct synth_profile *p);
/* /4: the v4 object of root (profile4.c), after the /3 part is loaded. */
int synth_profile_load4(struct synth_profile *p, const struct json *root, char *err, size_t errlen);
/* Index of a model by name, or -1. */
int synth_profile_model(const struct synth_profile *p, const char *name);
/* The profile loaders' refusal: "PATH: message" (message from fmt, at most 511 bytes) into
 * err; returns -1. */
int synth_profile_vfail(const struct synth_profile *p, char *err, size_t errlen, const char *fmt, va_list ap);

struct synth_options {
	uint64_t seed;
	double load_factor;              /* > 0; scales the hourly counts */
	bool has_days;
	long long day_first, day_last;   /* inclusive, 0-based, when has_days */
	const char **gpu_models;         /* NULL-free list, n_gpu_models == 0 = all */
	size_t n_gpu_models;
};

struct synth_stats {
	long long generated_jobs;        /* before the day and model filters */
	long long capped_jobs;           /* kept jobs whose GPUs were cut to the model capacity */
	long long *worker_hist;          /* kept jobs per profile worker_counts entry (malloc'd) */
	long long *model_capped;         /* kept capped jobs per profile model (malloc'd) */
	bool coupled;                    /* durations were coupled to the GPU-seconds targets */
	int coupling_rounds;
	long long real_jobs;             /* /3: kept real job rows */
};
void synth_stats_release(struct synth_stats *st);
/* Jobs per hour after the load factor: differences of round(F * cumulative count), so the
 * total is round(F * total) and F = 1 gives the profile's counts. out has p->n_hours items. */
void synth_scaled_hours(const struct synth_profile *p, double load_factor, long long *out);
/* HP jobs of a day with n_scaled jobs: round(n_scaled * HP / (HP + Spot)), exact integers. */
long long synth_scaled_hp(const struct synth_profile *p, size_t day, long long n_scaled);
/* A sort record (base.c): three unsigned keys, then the index, compared in that order;
 * synth_key_ll and synth_key_double map a value to a key in the same order (not NaN). */
struct synth_key { uint64_t k[3]; size_t idx; };
uint64_t synth_key_ll(long long v);
uint64_t synth_key_double(double x);
void synth_sort_keys(struct synth_key *a, size_t n);
/* idx by (v[idx], idx); d largest first, ties in order. Each returns false, untouched, on a
 * NaN (the caller's qsort then). */
bool synth_sort_by_value(size_t *idx, size_t m, const double *v);
bool synth_sort_doubles_desc(double *d, size_t n);

/* Fill the empty trace t (version 2, nodes, jobs, trace_id, time_origin, source) and sort it.
 * p must outlive nothing: every string is copied into t. */
int synth_generate(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen);
/* The /3 generator (generate3.c), called by synth_generate for /3 profiles. */
int synth_generate3(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen);
/* /3: one job of the whole population, kept between the draw and the emit (generate3.c). */
struct synth_job3 {
	long long submit, number;        /* number: the id's (j + 7 digits); unused for real rows */
	double duration, gpus;
	int model;
	long long real;                  /* index into the profile's real rows, or -1 (generated) */
	long long workers;
	size_t org;
	bool hp, capped;
};
/* The jobs by (submit, model, GPUs, duration), ties kept in order (base.c); false when a
 * value does not fit the keys. */
bool synth_sort_jobs_by_submit(struct synth_job3 *a, size_t n);
/* The /4 generator (generate4.c), called by synth_generate for /4 profiles. */
int synth_generate4(const struct synth_profile *p, const struct synth_options *o, struct trace *t,
	struct synth_stats *st, char *err, size_t errlen);
/* /4 pass 3 (durations4.c): dur holds n durations longest first; the jobs' model, size and
 * submit are set; sneed (per hour), md_need (model x day) and conc_left (model x n_conc hour)
 * are the GPU-seconds and concurrency still to place, updated as durations are given. */
#define SYNTH_LONG_DUR4 3600.0
void synth_assign_durations4(const struct synth_profile *p, struct synth_job3 *jobs, size_t n, const double *dur,
	double *sneed, const double *md_need, const double *conc_left, struct synth_rng *r_short);
/* The /3 repair pass (repair3.c): moves the end of generated jobs, each inside its own
 * duration bucket, so each model's hourly concurrency, daily peaks and GPU-seconds come
 * closer to the profile's; real rows are never edited. Deterministic. */
void synth_repair3(const struct synth_profile *p, double load_factor, struct synth_job3 *jobs, size_t n);
/* The same, but a generated job drawn shorter than `below` seconds ends at most stretch x its
 * duration d (and inside its bucket); stretch <= 1: the bucket only, as synth_repair3. The /4
 * generator's (docs/profiles.md). */
void synth_repair3_stretch(const struct synth_profile *p, double load_factor, struct synth_job3 *jobs, size_t n, double stretch,
	double below);
/* /4 pass 6 (swap4.c): generated jobs of one model, class, size and submit day (hour 0 and the
 * real rows excepted) exchange submit times where that brings each model's touched-hour series
 * closer to its published one. Deterministic for a given r. */
void synth_swap4(const struct synth_profile *p, double load_factor, struct synth_job3 *pop, size_t n, struct synth_rng *r);
/* A duration's bucket range [*lo, *hi] of whole seconds as the repair keeps it (the open last
 * bucket up to the model's max_job_days, else the longest duration quantile). */
void synth_repair3_range(const struct synth_profile *p, int model, double dur, double *lo, double *hi);
/* Shared by the generators: option checks (model_on gets the kept models), the trace id,
 * and the provenance object with the generator's method text. */
int synth_check_options(const struct synth_profile *p, const struct synth_options *o, bool *model_on, char *err, size_t errlen);
int synth_trace_id(const struct synth_profile *p, const struct synth_options *o, const bool *model_on, struct trace *t, char *err, size_t errlen);
void synth_set_source(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct trace *t, long long capped, const char *how);
/* Draw helpers shared by the generators (draw.c). A deck is a shuffled multiset of indices
 * drawn without replacement and reshuffled when used up, so a full pass reproduces the
 * counts exactly; its stream is its own (synth_deck_init) or one that several decks share
 * (synth_deck_fill, set rng, then synth_deck_shuffle). */
struct synth_deck {
	unsigned *items;                 /* malloc'd; free it */
	size_t n, next;
	struct synth_rng own, *rng;
};
/* Index i repeated counts[i * stride] times, in index order, not shuffled; rng left unset. */
void synth_deck_fill(struct synth_deck *d, const long long *counts, size_t ncounts, size_t stride);
void synth_deck_shuffle(struct synth_deck *d);
/* Fill, seed its own stream (seed, stream) and shuffle. */
void synth_deck_init(struct synth_deck *d, const long long *counts, size_t ncounts, size_t stride, uint64_t seed, uint64_t stream);
unsigned synth_deck_draw(struct synth_deck *d);
/* The first i < n - 1 with v < cum[i], else n - 1 (cum ascending, n > 0). */
size_t synth_pick_cum(const double *cum, size_t n, double v);
/* The last hour a job submitted at submit for dur seconds touches: the profile's concurrency
 * rule counts it in hours floor(submit / 3600) .. floor((submit + dur - 1) / 3600). */
static inline long long synth_end_hour(long long submit, double dur)
{
	return (submit + (long long)dur - 1) / SYNTH_HOUR;
}
/* Add g to S[h0..h1], clipped to [0, nc): a job's GPUs to a per-hour series. */
static inline void synth_add_hours(double *S, size_t nc, long long h0, long long h1, double g)
{
	for (long long x = h0 < 0 ? 0 : h0; x <= h1 && x < (long long)nc; x++)
		S[x] += g;
}
/* The profile's nodes of the kept models (all nodes when no model filter is set). */
void synth_add_nodes(const struct synth_profile *p, const struct synth_options *o, const bool *model_on, struct trace *t);
/* A generated job with id "j" + number in 7 digits; model and tenant point into t's arena. */
void synth_add_job(struct trace *t, long long number, double submit, double duration, double gpus, bool hp,
	char *model, char *tenant);
/* The closing steps: version 2, trace id, time origin and provenance (how: the method text),
 * then sorted; -1 with a message when the filters kept no job. */
int synth_finish(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct trace *t, long long capped, const char *how, char *err, size_t errlen);
/* The Pearson correlation of a[0..n) and b[0..n) (fidelity4.c); NAN for n = 0 or a constant side. */
double synth_pearson(const double *a, const double *b, size_t n);
/* trace-fidelity's /4 figures (fidelity4.c): a "v4" object in each model record and in the
 * summary record, and the Markdown sections appended to md. */
void synth_fidelity4(const struct synth_profile *p, const struct trace *t, struct arena *a, struct json **model_recs,
	struct json *summary, struct strbuf *md);
/* Append the Markdown fit report of trace t (made by synth_generate with p and o) to out. */
void synth_fit(const struct synth_profile *p, const struct synth_options *o, const struct trace *t,
	const struct synth_stats *st, struct strbuf *out);
#endif
