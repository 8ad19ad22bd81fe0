#include "roll/ablation.h"
#include <math.h>
#include <string.h>

/* Mean with a compensated sum (Neumaier): the original used statistics.mean, exact up to
 * the final rounding, which this matches for every practical input. */
static double mean(const double *v, size_t n)
{
	double s = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double t = s + v[i];
		c += fabs(s) >= fabs(v[i]) ? (s - t) + v[i] : (v[i] - t) + s;
		s = t;
	}
	return (s + c) / (double)n;
}

void roll_arm_summarise(const struct roll_cell *cells, size_t n, struct roll_arm_summary *s)
{
	memset(s, 0, sizeof *s);
	double a[n ? n : 1], j[n ? n : 1], e[n ? n : 1];
	size_t na = 0, nj = 0, ne = 0;
	for (size_t i = 0; i < n; i++) {
		const struct roll_cell *c = &cells[i];
		if (!c->present)
			continue;
		s->windows++;
		s->passes += c->passed;
		s->simulations += c->simulations;
		s->llm_calls += c->llm_calls;
		if (c->has_alloc)
			a[na++] = c->alloc;
		if (c->has_jct)
			j[nj++] = c->jct;
		if (c->has_evict)
			e[ne++] = c->evict;
	}
	if ((s->has_alloc = na > 0))
		s->alloc = mean(a, na);
	if ((s->has_jct = nj > 0))
		s->jct = mean(j, nj);
	if ((s->has_evict = ne > 0))
		s->evict = mean(e, ne);
}

/* A missing mean compares as "no difference": the hierarchy can only use known values. */
const char *roll_compare_arms(const struct roll_arm_summary *l, const struct roll_arm_summary *r)
{
	if (l->passes != r->passes)
		return l->passes > r->passes ? "better" : "worse";
	if (l->has_alloc && r->has_alloc) {
		double d = l->alloc - r->alloc;
		if (fabs(d) >= 0.01)
			return d > 0 ? "better" : "worse";
	}
	if (l->has_jct && r->has_jct && l->jct != r->jct)
		return l->jct < r->jct ? "better" : "worse";
	if (l->has_evict && r->has_evict && l->evict != r->evict)
		return l->evict < r->evict ? "better" : "worse";
	return "tie";
}

void roll_gates_evaluate(const struct roll_arm_def *arms, const struct roll_arm_summary *sum, size_t n, long long windows,
			 struct roll_gates *g)
{
	memset(g, 0, sizeof *g);
	g->superiority = g->vs_ordinary = g->analyst = "incomplete";
	int agent = -1, masked = -1, base = -1;
	for (size_t i = 0; i < n; i++) {
		if (arms[i].role == ARM_AGENT)
			agent = (int)i;
		if (arms[i].role == ARM_MASKED)
			masked = (int)i;
		if (arms[i].role == ARM_BASELINE)
			base = (int)i;
	}
	bool complete = true;
	for (size_t i = 0; i < n; i++)
		complete = complete && sum[i].windows == windows;
	if (agent >= 0 && sum[agent].windows > 0) {
		const struct roll_arm_summary *A = &sum[agent];
		for (size_t i = 0; i < n; i++)
			if ((int)i != agent && arms[i].deployable && sum[i].windows > 0)
				g->pairwise[i] = roll_compare_arms(A, &sum[i]);
		if (complete) {
			bool no_fewer = true, same_budget = true, better = true;
			for (size_t i = 0; i < n; i++) {
				if ((int)i == agent || !arms[i].deployable)
					continue;
				no_fewer = no_fewer && A->passes >= sum[i].passes;
				if (arms[i].rolling && arms[i].budget == arms[agent].budget) {
					same_budget = same_budget && A->simulations == sum[i].simulations;
					better = better && !strcmp(g->pairwise[i], "better");
				}
			}
			g->superiority = no_fewer && same_budget && better ? "supported" : "not_established";
			if (base >= 0)
				g->vs_ordinary = !strcmp(g->pairwise[base], "better") ? "supported" : "not_established";
			if (masked >= 0) {
				const struct roll_arm_summary *M = &sum[masked];
				bool matched = A->windows == M->windows && A->simulations == M->simulations && A->llm_calls == M->llm_calls;
				g->analyst = matched && !strcmp(g->pairwise[masked], "better") ? "supported" : "not_established";
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (arms[i].deployable && sum[i].windows == windows && windows > 0 && sum[i].passes == windows)
			g->eligible[g->n_eligible++] = arms[i].id;
	for (size_t i = 0; i < n && !g->recommended; i++) {
		if (!(arms[i].deployable && sum[i].windows == windows && windows > 0 && sum[i].passes == windows))
			continue;
		bool top = g->n_eligible > 0;
		for (size_t k = 0; k < n && top; k++)
			if (k != i && arms[k].deployable && sum[k].windows == windows && sum[k].passes == windows)
				top = !strcmp(roll_compare_arms(&sum[i], &sum[k]), "better");
		if (top)
			g->recommended = arms[i].id;
	}
	g->claim_supported = !strcmp(g->superiority, "supported") && !strcmp(g->vs_ordinary, "supported");
}
