/* The fill experiment (fill.h). */
#include "place/fill.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void place_fill_tune(const struct place_pod *pods, size_t n, int64_t capacity, double tune, uint64_t seed,
		     struct place_pod **out, size_t *nout)
{
	struct place_rng r;
	place_rng_seed(&r, seed ^ 0x74756e65ULL);
	size_t cap = n ? n : 1, m = n;
	struct place_pod *a = xmalloc(cap * sizeof *a);
	memcpy(a, pods, n * sizeof *a);
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)place_rng_below(&r, i);
		struct place_pod t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
	int64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += place_pod_gpu_milli(&a[i]);
	double target = tune * (double)capacity;
	if (total > 0 && (double)total < target) {
		/* Copies of uniformly drawn originals go after all of them; the first draw that
		 * would overshoot ends the loop (CPU-only draws add nothing and never do). */
		for (;;) {
			const struct place_pod *d = &pods[place_rng_below(&r, n)];
			if ((double)(total + place_pod_gpu_milli(d)) > target)
				break;
			a = xgrow(a, &cap, m + 1, sizeof *a);
			a[m++] = *d;
			total += place_pod_gpu_milli(d);
		}
	} else if (total > 0) {
		/* Delete uniformly random pods (CPU-only ones too) until at or below the target;
		 * the survivors keep their order. */
		size_t *alive = xmalloc(n * sizeof *alive), nalive = n;
		bool *gone = xcalloc(n, sizeof *gone);
		for (size_t i = 0; i < n; i++)
			alive[i] = i;
		while ((double)total > target && nalive) {
			size_t j = (size_t)place_rng_below(&r, nalive), k = alive[j];
			gone[k] = true;
			total -= place_pod_gpu_milli(&a[k]);
			alive[j] = alive[--nalive];
		}
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (!gone[i])
				a[m++] = a[i];
		free(alive);
		free(gone);
	}
	*out = a;
	*nout = m;
}

void place_fill(struct place_cluster *c, struct place_fill_run *run)
{
	double cap = (double)c->gpu_capacity;
	int64_t arrived = 0;
	run->records = xmalloc((run->npods ? run->npods : 1) * sizeof *run->records);
	run->nplaced = run->nrejected = 0;
	for (size_t i = 0; i < run->npods; i++) {
		const struct place_pod *p = &run->pods[i];
		struct place_choice ch;
		arrived += place_pod_gpu_milli(p);
		if (c->ops->choose(c, p, &ch) == 0) {
			c->ops->place(c, p, &ch);
			run->nplaced++;
		} else {
			run->nrejected++;      /* dropped: fits nowhere, never retried */
		}
		double free_milli = cap - (double)c->gpu_used;
		run->records[i] = (struct place_fill_record){
			100.0 * (double)arrived / cap,
			100.0 * (double)c->gpu_used / cap,
			100.0 * c->frag_total / cap,
			free_milli > 0 ? 100.0 * c->frag_total / free_milli : 0.0,
		};
	}
}

void place_fill_free(struct place_fill_run *run)
{
	free(run->pods);
	free(run->records);
	memset(run, 0, sizeof *run);
}

static double field_of(const struct place_fill_record *r, size_t field)
{
	double v;
	memcpy(&v, (const char *)r + field, sizeof v);
	return v;
}

void place_fill_discrete(const struct place_fill_run *run, size_t field, double out[PLACE_FILL_XMAX + 1])
{
	double sum[PLACE_FILL_XMAX + 1] = { 0 };
	size_t count[PLACE_FILL_XMAX + 1] = { 0 };
	for (size_t i = 0; i < run->npods; i++) {
		double x = nearbyint(run->records[i].arrived);     /* half to even, as Python's round */
		if (x >= 0 && x <= PLACE_FILL_XMAX) {
			sum[(int)x] += field_of(&run->records[i], field);
			count[(int)x]++;
		}
	}
	for (int x = 0; x <= PLACE_FILL_XMAX; x++) {
		if (count[x]) {
			out[x] = sum[x] / (double)count[x];
			continue;
		}
		double s = 0;
		size_t k = 0;
		for (size_t i = 0; i < run->npods; i++)
			if (fabs(run->records[i].arrived - x) <= 1.0) {
				s += field_of(&run->records[i], field);
				k++;
			}
		out[x] = k ? s / (double)k : NAN;
	}
}
