#include "roll/audit.h"
#include "core/xalloc.h"
#include "eval/evidence.h"
#include "eval/metrics.h"
#include "roll/config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long population(const struct json *m, const char *metric)
{
	const char *key = !strncmp(metric, "hp_", 3) ? "hp_job_count" : !strncmp(metric, "spot_", 5) ? "spot_job_count" : NULL;
	struct json *v = key ? json_get(m, key) : NULL;
	return v && v->kind == JSON_INT ? v->u.i : -1;
}

struct json *roll_scenario_audit(const struct slo_spec *s, struct arena *a, const struct json *cand, const char *cand_fp,
				 const struct json *safety, const char *safety_fp, bool *passed)
{
	struct json *rec = ev_slo_audit(s, a, cand, cand_fp, safety, safety_fp);
	struct json *cons = json_get(rec, "constraints"), *failed = json_array(a), *unavail = json_array(a);
	bool hard_ok = true;
	long long soft_bad = 0;
	for (size_t i = 0; i < cons->u.arr.n; i++) {
		struct json *c = cons->u.arr.items[i];
		const char *status = json_get_str(c, "status"), *metric = json_get_str(c, "metric");
		struct json *obs = json_get(c, "observed");
		bool pass = json_get(c, "passed")->kind == JSON_TRUE;
		if (!strcmp(status, "unavailable") && obs->kind == JSON_NULL && population(cand, metric) == 0) {
			json_set(a, c, "status", json_str(a, "not_applicable_zero_population"));
			json_set(a, c, "passed", json_bool(a, true));
			pass = true;
			status = "not_applicable_zero_population";
		}
		if (!strcmp(status, "failed"))
			json_push(a, failed, json_str(a, json_get_str(c, "id")));
		if (!strcmp(status, "unavailable"))
			json_push(a, unavail, json_str(a, json_get_str(c, "id")));
		if (!strcmp(json_get_str(c, "severity"), "hard"))
			hard_ok = hard_ok && pass;
		else if (!pass)
			soft_bad++;
	}
	json_set(a, rec, "failed_constraint_ids", failed);
	json_set(a, rec, "unavailable_constraint_ids", unavail);
	bool ok = hard_ok;
	struct json *ev = json_get(rec, "evidence_checks");
	for (size_t i = 0; i < ev->u.obj.n; i++)
		if (strcmp(ev->u.obj.keys[i], "baseline_required"))
			ok = ok && ev->u.obj.vals[i]->kind == JSON_TRUE;
	json_set(a, rec, "audit_passed", json_bool(a, ok));
	json_set(a, rec, "soft_violation_count", json_int(a, soft_bad));
	struct json *scope = json_object(a);
	json_set(a, scope, "baseline", json_str(a, "the safety candidate in the same scenario"));
	json_set(a, scope, "every_hard_constraint_checked", json_bool(a, true));
	json_set(a, scope, "zero_population_constraints_are_vacuous", json_bool(a, true));
	json_set(a, rec, "definition", json_str(a, "scenario audit (Q5 fixed): every hard constraint of the SLO, relative thresholds "
		"against the safety candidate in the same scenario; a class constraint with no job of that class passes"));
	json_set(a, rec, "scenario_scope", scope);
	/* Re-stamp: drop the old fingerprint, then append it again as the last key. */
	struct json *body = json_object(a);
	for (size_t i = 0; i < rec->u.obj.n; i++)
		if (strcmp(rec->u.obj.keys[i], "audit_fingerprint"))
			json_set(a, body, rec->u.obj.keys[i], rec->u.obj.vals[i]);
	ev_self_fp_stamp(a, body, "audit_fingerprint");
	*passed = ok;
	return body;
}

int roll_guard_threshold(const struct slo_spec *s, const char *id, double *threshold, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct slo_constraint *c = &s->c[i];
		if (strcmp(c->id, id))
			continue;
		if (!c->hard || c->relative || strcmp(c->op, "<=")) {
			snprintf(err, errlen, "queue guard constraint '%s' must be hard, absolute and '<='", id);
			return -1;
		}
		*threshold = c->threshold;
		return 0;
	}
	snprintf(err, errlen, "the SLO has no queue guard constraint '%s'", id);
	return -1;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* v[0..n) in ascending order, the same array qsort by dbl_cmp gives: a radix sort of the
 * bits when every value is a non-negative non-NaN (there the bits order as the values, and
 * equal values have equal bits); any other input takes qsort. */
static void sort_doubles(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] >= 0) || signbit(v[i])) {
			qsort(v, n, sizeof *v, dbl_cmp);
			return;
		}
	if (n < 64) {
		qsort(v, n, sizeof *v, dbl_cmp);
		return;
	}
	unsigned long long *a = xmalloc(2 * n * sizeof *a), *b = a + n;
	for (size_t i = 0; i < n; i++)
		memcpy(&a[i], &v[i], sizeof a[i]);
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((a[i] >> shift) & 0xff) + 1]++;
		if (count[((a[0] >> shift) & 0xff) + 1] == n)
			continue;   /* every value has this byte: the pass would not move anything */
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			b[count[(a[i] >> shift) & 0xff]++] = a[i];
		unsigned long long *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(&v[i], &a[i], sizeof v[i]);
	free(a < b ? a : b);
}

/* The k-th smallest (from 0) of the union of the sorted a[0..na) and b[0..nb), k < na + nb:
 * the element a sort of the union would put at k (equal values are the same value). */
static double kth_of_two(const double *a, size_t na, const double *b, size_t nb, size_t k)
{
	/* i taken from a, k + 1 - i from b: the least i with b[k - i] <= a[i] */
	size_t lo = k + 1 > nb ? k + 1 - nb : 0, hi = k + 1 < na ? k + 1 : na;
	while (lo < hi) {
		size_t i = lo + (hi - lo) / 2, j = k + 1 - i;
		if (j > 0 && b[j - 1] > a[i])
			lo = i + 1;
		else
			hi = i;
	}
	size_t i = lo, j = k + 1 - i;
	if (i == 0)
		return b[j - 1];
	if (j == 0)
		return a[i - 1];
	return a[i - 1] > b[j - 1] ? a[i - 1] : b[j - 1];
}

void roll_queue_guard(double threshold, const double *completed, size_t nc, const double *scenario, size_t ns, struct roll_guard *g)
{
	memset(g, 0, sizeof *g);
	g->threshold = threshold;
	g->passed = true;
	size_t n = nc + ns;
	if (n == 0)
		return;
	/* completed is sorted already: sort the scenario's values alone and pick the two ranks
	 * ev_metrics_quantile would read from the sorted union (the same value, without copying
	 * and sorting the whole history at every scenario) */
	double *v = xmalloc((ns + 1) * sizeof *v);
	if (ns)
		memcpy(v, scenario, ns * sizeof *v);
	sort_doubles(v, ns);
	struct metrics_rank r = ev_metrics_quantile_rank(n, 0.95);
	g->p95 = ev_metrics_quantile_mix(kth_of_two(completed, nc, v, ns, r.lo), kth_of_two(completed, nc, v, ns, r.hi), r.frac);
	free(v);
	g->has_p95 = true;
	g->passed = g->p95 <= threshold + ROLL_EPS;
}
