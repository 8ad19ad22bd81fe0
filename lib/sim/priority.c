/*
 * priority — Slurm's priority/multifactor (issue 37, docs/simulator.md §3.12): the config and
 * the order. What is modelled of Slurm's formula
 *   priority = w_age·age + w_fs·fairshare + w_size·jobsize + w_part·partition + w_qos·qos
 * (each factor in [0, 1], the sum truncated to an integer as Slurm's uint32):
 *   age       = min(1, (now − submit) / PriorityMaxAge)
 *   jobsize   = GPUs / the cluster's GPUs (PriorityFavorSmall: 1 − that)
 *   partition = the job's GPU model's PriorityJobFactor / the largest one
 *   qos       = its class's QOS priority / the larger of the two
 *   fairshare = 2^(−U/S), the classic formula: U = the tenant's decayed GPU-seconds / every
 *               tenant's, S = its Shares / every tenant's (PriorityDecayHalfLife decay)
 * Not modelled: the site factor, nice, TRES weights, association factors, Fair Tree (the
 * default since Slurm 19.05; this is the classic fair-share), PriorityCalcPeriod (usage is
 * brought up to date at every pass), PriorityUsageResetPeriod.
 */
#include "sim/priority.h"
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = { "PriorityWeightAge", "PriorityWeightFairshare", "PriorityWeightJobSize", "PriorityWeightPartition",
	"PriorityWeightQOS", "PriorityMaxAge", "PriorityDecayHalfLife", "PriorityFavorSmall", "QOSPriority", "PartitionPriorityJobFactor",
	"Shares", NULL };

static int number(const struct json *o, const char *k, double def, double lo, double *out, char *err, size_t errlen)
{
	struct json *v = json_get(o, k);
	*out = def;
	if (!v)
		return 0;
	if (!json_is_num(v) || !isfinite(json_num(v)) || json_num(v) < lo || json_num(v) > 4294967295.0) {
		snprintf(err, errlen, "'priority_multifactor.%s' must be a number in [%g, 4294967295]", k, lo);
		return -1;
	}
	*out = json_num(v);
	return 0;
}

static int named(const struct json *o, const char *k, struct mf_named **out, size_t *n, struct arena *a, char *err, size_t errlen)
{
	struct json *v = json_get(o, k);
	*out = NULL;
	*n = 0;
	if (!v)
		return 0;
	if (v->kind != JSON_OBJECT) {
		snprintf(err, errlen, "'priority_multifactor.%s' must be an object of names to numbers", k);
		return -1;
	}
	*out = arena_alloc(a, (v->u.obj.n + 1) * sizeof **out);
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const struct json *x = v->u.obj.vals[i];
		if (!json_is_num(x) || !isfinite(json_num(x)) || json_num(x) < 0) {
			snprintf(err, errlen, "'priority_multifactor.%s.%s' must be a number >= 0", k, v->u.obj.keys[i]);
			return -1;
		}
		(*out)[(*n)++] = (struct mf_named){ v->u.obj.keys[i], json_num(x) };
	}
	return 0;
}

int sim_mf_parse(const struct json *o, struct mf_config *c, struct arena *a, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (!o || o->kind != JSON_OBJECT) {
		snprintf(err, errlen, "'priority_multifactor' must be an object of slurm.conf Priority* keys");
		return -1;
	}
	for (size_t i = 0; i < o->u.obj.n; i++) {
		size_t k = 0;
		while (keys[k] && strcmp(keys[k], o->u.obj.keys[i]))
			k++;
		if (!keys[k]) {
			snprintf(err, errlen, "'priority_multifactor' has an unknown key '%s'", o->u.obj.keys[i]);
			return -1;
		}
	}
	if (number(o, "PriorityWeightAge", 0, 0, &c->w_age, err, errlen) || number(o, "PriorityWeightFairshare", 0, 0, &c->w_fairshare, err, errlen) ||
	    number(o, "PriorityWeightJobSize", 0, 0, &c->w_jobsize, err, errlen) ||
	    number(o, "PriorityWeightPartition", 0, 0, &c->w_partition, err, errlen) || number(o, "PriorityWeightQOS", 0, 0, &c->w_qos, err, errlen) ||
	    number(o, "PriorityMaxAge", 7 * 86400.0, 1, &c->max_age, err, errlen) ||
	    number(o, "PriorityDecayHalfLife", 7 * 86400.0, 1, &c->half_life, err, errlen))
		return -1;
	struct json *fs = json_get(o, "PriorityFavorSmall");
	if (fs && fs->kind != JSON_TRUE && fs->kind != JSON_FALSE) {
		snprintf(err, errlen, "'priority_multifactor.PriorityFavorSmall' must be true or false");
		return -1;
	}
	c->favor_small = fs && fs->kind == JSON_TRUE;
	struct mf_named *q;
	size_t nq;
	if (named(o, "QOSPriority", &q, &nq, a, err, errlen) ||
	    named(o, "PartitionPriorityJobFactor", &c->partition, &c->n_partition, a, err, errlen) ||
	    named(o, "Shares", &c->shares, &c->n_shares, a, err, errlen))
		return -1;
	for (size_t i = 0; i < nq; i++) {
		if (!strcmp(q[i].name, "HP"))
			c->qos_hp = q[i].value;
		else if (!strcmp(q[i].name, "Spot"))
			c->qos_spot = q[i].value;
		else {
			snprintf(err, errlen, "'priority_multifactor.QOSPriority' names a class '%s' (want 'HP' and 'Spot')", q[i].name);
			return -1;
		}
	}
	return 0;
}

/* ---- the state: each tenant's decayed usage ---- */

struct mf_state {
	const char **tenants;       /* sorted, unique ("" for a trace without tenants) */
	double *usage, *shares;
	size_t n;
	double last;                /* the time usage is up to date to */
	double max_part;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double named_value(const struct mf_named *v, size_t n, const char *name, double def)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].value;
	return def;
}

static int tenant_index(const struct mf_state *m, const struct sim_job *j)
{
	const char *t = j->tj->tenant ? j->tj->tenant : "";
	const char **hit = bsearch(&t, m->tenants, m->n, sizeof *m->tenants, str_cmp);
	return hit ? (int)(hit - m->tenants) : 0;
}

static struct mf_state *state_new(const struct sim *s)
{
	const struct mf_config *c = s->p->mf;
	struct mf_state *m = xcalloc(1, sizeof *m);
	const struct trace *t = s->t;
	m->tenants = xmalloc((t->n_jobs + 1) * sizeof *m->tenants);
	for (size_t i = 0; i < t->n_jobs; i++)
		m->tenants[i] = t->jobs[i].tenant ? t->jobs[i].tenant : "";
	qsort(m->tenants, t->n_jobs, sizeof *m->tenants, str_cmp);
	for (size_t i = 0; i < t->n_jobs; i++)
		if (m->n == 0 || strcmp(m->tenants[m->n - 1], m->tenants[i]))
			m->tenants[m->n++] = m->tenants[i];
	m->usage = xcalloc(m->n + 1, sizeof *m->usage);
	m->shares = xcalloc(m->n + 1, sizeof *m->shares);
	for (size_t i = 0; i < m->n; i++)
		m->shares[i] = named_value(c->shares, c->n_shares, m->tenants[i], 1.0);
	m->max_part = 0;
	for (size_t i = 0; i < c->n_partition; i++)
		if (c->partition[i].value > m->max_part)
			m->max_part = c->partition[i].value;
	m->last = s->now;
	return m;
}

void sim_priority_release(struct sim *s)
{
	struct mf_state *m = s->mfs;
	if (!m)
		return;
	free(m->tenants);
	free(m->usage);
	free(m->shares);
	free(m);
	s->mfs = NULL;
}

void sim_priority_clone(struct sim *d, const struct sim *s)
{
	const struct mf_state *m = s->mfs;
	d->mfs = NULL;
	if (!m)
		return;
	struct mf_state *c = sim_mem_dup(m, sizeof *m);
	c->tenants = sim_mem_dup(m->tenants, (m->n + 1) * sizeof *m->tenants);
	c->usage = sim_mem_dup(m->usage, (m->n + 1) * sizeof *m->usage);
	c->shares = sim_mem_dup(m->shares, (m->n + 1) * sizeof *m->shares);
	d->mfs = c;
}

/* Usage up to `to`: every tenant's decays by the half-life, every running job adds its GPUs
 * times the time since the last update to its tenant's (the running set is the step's). */
static void usage_update(struct sim *s, struct mf_state *m, double to)
{
	double dt = to - m->last;
	if (!(dt > 0))
		return;
	double f = exp2(-dt / s->p->mf->half_life);
	for (size_t i = 0; i < m->n; i++)
		m->usage[i] *= f;
	for (size_t i = 0; i < s->rn; i++) {
		const struct sim_job *j = s->running[i].j;
		m->usage[tenant_index(m, j)] += j->gpu * dt;
	}
	m->last = to;
}

void sim_priority_step(struct sim *s, double next)
{
	if (!s->mfs)
		s->mfs = state_new(s);
	usage_update(s, s->mfs, next);
}

struct keyed { double prio; int cls; struct sim_job *j; };

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->j->eo < y->j->eo ? -1 : x->j->eo > y->j->eo;
}

static double priority_of(struct sim *s, const struct sim_job *j, double total_usage, double total_shares)
{
	const struct mf_config *c = s->p->mf;
	struct mf_state *m = s->mfs;
	double age = (s->now - j->submit) / c->max_age;
	age = age > 1 ? 1 : age < 0 ? 0 : age;
	double size = j->gpu / s->cap;
	if (c->favor_small)
		size = 1 - size;
	double qmax = c->qos_hp > c->qos_spot ? c->qos_hp : c->qos_spot;
	double qos = qmax > 0 ? (j->hp ? c->qos_hp : c->qos_spot) / qmax : 0;
	const char *model = j->model < 0 ? "*" : s->models[j->model];
	double part = m->max_part > 0 ? named_value(c->partition, c->n_partition, model, 0) / m->max_part : 0;
	int ti = tenant_index(m, j);
	double u = total_usage > 0 ? m->usage[ti] / total_usage : 0, sh = total_shares > 0 ? m->shares[ti] / total_shares : 0;
	double fs = sh > 0 ? exp2(-u / sh) : 0;
	return floor(c->w_age * age + c->w_fairshare * fs + c->w_jobsize * size + c->w_partition * part + c->w_qos * qos);
}

/* The queued jobs v[0..n) in multifactor order: HP first under priority_preemptive (the
 * class still leads the key), then priority, highest first, then eo. */
void sim_priority_sort(struct sim *s, struct sim_job **v, size_t n)
{
	if (!s->mfs)
		s->mfs = state_new(s);
	struct mf_state *m = s->mfs;
	usage_update(s, m, s->now);
	double tu = 0, ts = 0;
	for (size_t i = 0; i < m->n; i++) {
		tu += m->usage[i];
		ts += m->shares[i];
	}
	struct keyed *k = xmalloc((n + 1) * sizeof *k);
	bool preemptive = s->p->scheduler == SCHED_PRIORITY_PREEMPTIVE;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){ priority_of(s, v[i], tu, ts), preemptive && !v[i]->hp, v[i] };
	qsort(k, n, sizeof *k, keyed_cmp);
	for (size_t i = 0; i < n; i++)
		v[i] = k[i].j;
	free(k);
}
