/*
 * pt_history — the minute demand history of the tenant controller
 * (docs/predictive-rules.md §2 "Sampling" and "Training data", docs/tenant-controller.md "What is kept").
 *
 * A series is one (pool, tenant) pair, identified by the compact JSON array
 * ["pool","tenant"] (the original's series id and sort key, compared bytewise). Its
 * value is the running HP GPUs the caller sets between samples (pt_hist_set); a series that
 * is not registered reads 0, and a registered one keeps its slot for good. pt_hist_sample
 * records every series' current value as sample n = 0, 1, 2, ... at time
 * first_time + n * interval.
 *
 * Hourly maxima are kept incrementally for the 12 offsets o = 0, 5, ..., 55 samples
 * (points_per_hour / stride_points of them): block j of offset o is the maximum of
 * samples [o + 60j, o + 60j + 60), appended the moment its last sample is recorded.
 * Work per sample is O(series whose value changed) plus O(series) every stride_points
 * samples (one offset opens and one closes a block), never a rescan of the history.
 * Training window s (s = 0, 5, 10, ... samples) reads offset s mod 60 from block
 * s div 60: pt_hist_window_blocks gives that array.
 *
 * Beside each array it keeps the running prefix sums (prefix[0] = 0, prefix[j + 1] =
 * prefix[j] + block j, one addition per append), so the mean of any run of blocks is
 * one subtraction: still a fixed summation order, whatever the caller's schedule.
 *
 * Both arrays are held as int32 counts of 2^-scale_exp GPUs (scale_exp 0 for whole GPUs,
 * 1 once a half GPU is seen, ...) while every block maximum is such a count and every
 * prefix sum fits in an int32: a multiple of 2^-e below 2^(31-e) is a double, and so is
 * every sum of them, so the doubles read back (count x 2^-e, exact) are the very bytes a
 * double array added in order would hold. Held so, only the prefix sums are stored: block
 * j is prefix[j + 1] - prefix[j], an exact integer difference (half the memory: a series
 * of the full 184-day trace holds 12 offsets x 4,416 blocks). A block that needs a finer
 * scale rescales the whole index (x 2^d, exact) when it still fits; one that cannot be held
 * so (a scale finer than 2^-30, a sum past INT32_MAX) converts the whole index to double,
 * exactly, for good (int_index false: both arrays then). Readers go through struct
 * pt_hist_vals.
 *
 * The history also keeps each pool's running-HP total at every sample (the series of
 * the pool summed in id order), the actual against which forecasts are scored, and the
 * hourly maxima of that total at the same 12 offsets (what a reservation must cover).
 *
 * Memory: the history owns every string and array; pt_hist_release frees them, pt_hist_clone
 * makes an independent deep copy (a fork for counterfactual control). Nothing here
 * prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_TENANT_HISTORY_H
#define SCHEDNAV_PREDICT_TENANT_HISTORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PT_HIST_MAX_OFFSETS 60

struct pt_hist_series {
	char *id;                  /* ["pool","tenant"], compact JSON, raw UTF-8 */
	char *pool, *tenant;
	size_t pool_index;         /* into pt_history.pools */
	size_t tenant_index;       /* into pt_history.tenants (registration order) */
	size_t registered_sample;  /* the first sample that saw it (n_samples at registration) */
	double current;            /* the value the next sample records */
	bool dirty;                /* current changed since the last sample */
	double *partial;           /* per offset: maximum of the open block */
	/* per offset, as double while not pt_history.int_index: */
	double **hourly;           /* completed block maxima */
	double **prefix;           /* prefix[j] = hourly[0] + ... + hourly[j-1], added in order */
	/* while int_index only the prefix sums are held, as int32: block j is
	 * prefix_i[j + 1] - prefix_i[j], exactly (integers), so it needs no array of its own */
	int32_t **prefix_i;
	long long *last_nonzero;   /* per offset: index of the last block > 0, or -1 */
};

struct pt_hist_window { size_t offset_index, first_block; double target_start; };

struct pt_history {
	double first_time, interval;
	int points_per_hour, stride_points, n_offsets;
	size_t n_samples;
	double last_time;
	char **pools;              /* the controller's pools, sorted, fixed at init */
	size_t n_pools;
	struct pt_hist_series *series;  /* registration order */
	size_t n_series, cap_series;
	size_t *sorted;            /* series indices in id order */
	size_t **pool_series;      /* per pool: its series indices in id order */
	size_t *n_pool_series;
	char **tenants;            /* registration order */
	size_t n_tenants, cap_tenants;
	size_t *n_blocks, cap_blocks;  /* per offset: completed blocks; shared capacity */
	bool int_index;            /* the series' blocks are held as int32 (see above) */
	int scale_exp;             /* ... in units of 2^-scale_exp */
	double **pool_total;       /* per pool: total at each sample */
	double *pool_partial;      /* per pool x offset: maximum of the open block of the total */
	double **pool_hourly;      /* per pool x offset: completed block maxima of the total */
	size_t cap_samples;
	bool *pool_dirty;
	size_t *dirty, n_dirty, cap_dirty;  /* series whose value changed since the last sample */
};

/* interval (seconds) and points_per_hour * interval = 3600 are the caller's to check;
 * stride_points divides points_per_hour. pools are copied (sorted, unique). */
int pt_hist_init(struct pt_history *h, double first_time, double interval, int points_per_hour, int stride_points,
            const char *const *pools, size_t n_pools, char *err, size_t errlen);
void pt_hist_release(struct pt_history *h);
/* Size every array for `blocks` hourly blocks and `samples` samples up front (a hint:
 * the arrays still grow past it), so a long history is not over-allocated by doubling. */
void pt_hist_reserve(struct pt_history *h, size_t blocks, size_t samples);
int pt_hist_clone(struct pt_history *dst, const struct pt_history *src, char *err, size_t errlen);

/* Index of series (pool, tenant), registering it (value 0) when new. -1 for an unknown
 * pool or a string with a control character; registering never changes other indices. */
int pt_hist_series_index(struct pt_history *h, const char *pool, const char *tenant, size_t *index, char *err,
                    size_t errlen);
/* Index of a registered series, or -1. */
int pt_hist_find_series(const struct pt_history *h, const char *pool, const char *tenant, size_t *index);
/* Set the value the next sample records (negative values are stored as 0). */
void pt_hist_set(struct pt_history *h, size_t series, double value);
/* Record sample n_samples at time now (within 1e-6 s of first_time + n * interval). */
int pt_hist_sample(struct pt_history *h, double now, char *err, size_t errlen);

/* Time of sample n, first_time + n * interval. */
double pt_hist_sample_time(const struct pt_history *h, size_t n);
/* Pool p's total running HP GPUs at sample n (n < n_samples). */
double pt_hist_pool_total(const struct pt_history *h, size_t pool, size_t n);
/* The completed hourly maxima of pool p's total at an offset index (length n_blocks[o]). */
const double *pt_hist_pool_hourly(const struct pt_history *h, size_t pool, size_t offset_index);
/* Index of pool name, or -1. */
int pt_hist_pool_index(const struct pt_history *h, const char *pool, size_t *index);

/* Training window geometry (§2): window w starts at sample s = w * stride_points, reads
 * lookback blocks then horizon target blocks of offset s mod points_per_hour, and its
 * target starts at T0 = first_time + (s + lookback * points_per_hour) * interval. */
size_t pt_hist_window_count(const struct pt_history *h, int lookback_hours, int horizon_hours);
struct pt_hist_window pt_hist_window_at(const struct pt_history *h, size_t w, int lookback_hours);
/* A read-only run of index values: exactly one of i (counts of `unit`, a power of two),
 * di (value j is the count di[j] - di[j - 1]: the blocks read off their prefix sums) and
 * d is set. pt_hv_at(v, j) is value j as the double it stands for; pt_hv_from(v, j) the
 * run starting at value j. Valid until the next pt_hist_sample. */
struct pt_hist_vals { const int32_t *i, *di; const double *d; double unit; };
static inline double pt_hv_at(struct pt_hist_vals v, size_t j)
{
	if (v.i)
		return (double)v.i[j] * v.unit;
	if (v.di)
		return (double)(v.di[j] - v.di[(ptrdiff_t)j - 1]) * v.unit;
	return v.d[j];
}
static inline struct pt_hist_vals pt_hv_from(struct pt_hist_vals v, size_t j)
{
	if (v.i)
		v.i += j;
	else if (v.di)
		v.di += j;
	else
		v.d += j;
	return v;
}
/* The completed hourly maxima of series i at an offset index (length n_blocks[o]), and
 * their prefix sums (length n_blocks[o] + 1). */
struct pt_hist_vals pt_hist_hourly(const struct pt_history *h, size_t series, size_t offset_index);
struct pt_hist_vals pt_hist_prefix(const struct pt_history *h, size_t series, size_t offset_index);

/* The train/validation split at trained_at (§2): B = trained_at - validation_hours h;
 * train = windows with T0 + horizon h <= B, validation = T0 >= B and T0 + horizon h <=
 * trained_at (EPS 1e-9 on each side); windows straddling B are dropped. Train is the
 * prefix [0, n_train) and validation the range [validation_first, validation_end). */
struct pt_hist_split { size_t n_windows, n_train, validation_first, validation_end; double boundary; };
void pt_hist_split_at(const struct pt_history *h, double trained_at, int lookback_hours, int horizon_hours,
                 int validation_hours, struct pt_hist_split *out);
#endif
