/*
 * physical — the simulator on the physical node model (issue 36, docs/simulator.md §3.13):
 * placement_strategy other than 'deterministic_best_fit' builds a lib/place cluster from the
 * trace's nodes and places each job's workers with the lib/place policy of that name.
 *
 * - A node: its GPUs (at most PLACE_MAX_GPUS), its model, cpu_milli and memory_mib when the
 *   trace has them; a node without one is unconstrained in that dimension (PHYS_UNBOUNDED).
 * - A job: `workers` workers (1 without the field), each with the job's cpu_milli and
 *   memory_mib (0 without them) and either gpus / workers whole GPUs on one node or a
 *   gpu_milli share of one GPU; a job without the fields is one worker taking its `gpus`:
 *   whole GPUs when integral, a share when below 1. gpu_spec (else a gpu_model other than
 *   "*") restricts the nodes' models.
 * - Gang start: every worker is placed or none is. A job's workers are identical, so how many
 *   of them a node can host does not depend on where the others went: the job fits exactly
 *   when the nodes' room for one more worker sums to at least `workers` (phys_room), and
 *   then placing them one by one with the policy always succeeds.
 * - The pool ledgers (fbm, tfree, node free) follow the pieces, one per worker, so the queue
 *   pass, the metrics and the hooks see the same GPU totals as on the pool model.
 */
#include "sim/internal.h"
#include "sim/policy.h"
#include "core/xalloc.h"
#include "place/place.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHYS_UNBOUNDED ((int64_t)1 << 36)   /* a node's CPU or memory the trace does not give: far above any
                                             * job (<= 2^32 per worker), and small enough that the
                                             * policies' scores keep their GPU term (best-fit's CPU term
                                             * is then 2.7e7, exact in a double) */

struct phys_job {
	struct place_pod pod;            /* one worker */
	int workers;
	bool ready;                      /* pod and workers set */
	bool frag_refused;               /* refused once while the free GPUs of its models covered it */
	struct place_choice *ch;         /* running: each worker's choice */
};

struct phys {
	struct place_cluster c;
	struct phys_job *jobs;           /* one per job slot (cap_n + 1) */
	size_t n_jobs;
	struct place_node *scratch;      /* sim_phys_victims' copy of the nodes */
	struct sim_job **set;            /* sim_phys_victims' answer */
	size_t cap_set;
	struct sim_frag_sample *samples; /* sim_phys_sample */
	size_t n_samples, cap_samples;
};

/* A trace job's worker and count; 0, or -1 and a message naming the job. */
static int job_pod(const struct place_cluster *c, const struct trace_job *tj, struct place_pod *p, int *workers, char *err,
		   size_t errlen)
{
	memset(p, 0, sizeof *p);
	long long w = tj->res & TRACE_RES_WORKERS ? tj->workers : 1;
	if (w < 1 || w > 1000000) {
		snprintf(err, errlen, "job '%s': workers %lld out of range", tj->id, w);
		return -1;
	}
	*workers = (int)w;
	p->cpu = tj->res & TRACE_RES_CPU ? tj->cpu_milli : 0;
	p->mem = tj->res & TRACE_RES_MEM ? tj->memory_mib : 0;
	if (p->cpu < 0 || p->mem < 0) {
		snprintf(err, errlen, "job '%s': negative cpu_milli or memory_mib", tj->id);
		return -1;
	}
	double per = tj->gpus / (double)w;
	if (tj->res & TRACE_RES_GPU_MILLI) {
		if (tj->gpu_milli < 1 || tj->gpu_milli > 999) {
			snprintf(err, errlen, "job '%s': gpu_milli %lld is not a share of one GPU (1..999)", tj->id, tj->gpu_milli);
			return -1;
		}
		p->num_gpu = 1;
		p->gpu_milli = (int)tj->gpu_milli;
	} else if (per == floor(per) && per >= 1) {
		if (per > PLACE_MAX_GPUS) {
			snprintf(err, errlen, "job '%s': a worker asks for %.17g whole GPUs on one node; the physical model holds at most %d per node",
				 tj->id, per, PLACE_MAX_GPUS);
			return -1;
		}
		p->num_gpu = (int)per;
		p->gpu_milli = PLACE_GPU_MILLI;
	} else if (w == 1 && per < 1 && fabs(per * 1000 - round(per * 1000)) < 1e-6 && round(per * 1000) >= 1) {
		p->num_gpu = 1;
		p->gpu_milli = (int)round(per * 1000);
	} else {
		snprintf(err, errlen, "job '%s': gpus %.17g over %lld worker(s) is neither whole GPUs per worker nor one share of a GPU "
			 "in milli; the physical model cannot place it", tj->id, tj->gpus, w);
		return -1;
	}
	if (fabs((double)w * (double)place_pod_gpu_milli(p) / 1000.0 - tj->gpus) > 1e-9) {
		snprintf(err, errlen, "job '%s': gpus %.17g is not workers (%lld) x the worker's GPUs (%d x %d milli)", tj->id, tj->gpus, w,
			 p->num_gpu, p->gpu_milli);
		return -1;
	}
	/* the allowed models: gpu_spec's, and of those gpu_model when it is not "*" (as trace_check_fits) */
	const char *spec = tj->res & TRACE_RES_GPU_SPEC ? tj->gpu_spec : NULL;
	if (spec && *spec) {
		for (const char *a = spec; *a;) {
			const char *b = strchr(a, '|');
			size_t len = b ? (size_t)(b - a) : strlen(a);
			for (int m = 0; m < c->nmodels; m++)
				if (strlen(c->models[m]) == len && !memcmp(c->models[m], a, len))
					p->spec_mask |= (uint64_t)1 << m;
			a += len + (b != NULL);
		}
		if (!p->spec_mask) {
			snprintf(err, errlen, "job '%s': gpu_spec '%s' names no node's GPU model", tj->id, spec);
			return -1;
		}
	}
	if (strcmp(tj->model, "*")) {
		int m = place_model_find(c, tj->model);
		uint64_t only = m < 0 ? 0 : (uint64_t)1 << m;
		p->spec_mask = p->spec_mask ? p->spec_mask & only : only;
		if (!p->spec_mask) {
			snprintf(err, errlen, "job '%s': gpu_model '%s' is not a model of its gpu_spec '%s' that a node has", tj->id, tj->model,
				 spec ? spec : "");
			return -1;
		}
	}
	return 0;
}

/* How many more of pod fit on n, up to cap. */
static long node_room(const struct place_node *n, const struct place_pod *p, long cap)
{
	if (!place_fits(NULL, n, p))
		return 0;
	long k = cap;
	if (p->cpu > 0 && n->cpu_free / p->cpu < k)
		k = (long)(n->cpu_free / p->cpu);
	if (p->mem > 0 && n->mem_free / p->mem < k)
		k = (long)(n->mem_free / p->mem);
	if (p->num_gpu) {
		long g = 0;
		for (int i = 0; i < n->ngpu; i++)
			g += n->gpu_free[i] / p->gpu_milli;   /* whole GPUs: 1 when fully free */
		g /= p->num_gpu;
		if (g < k)
			k = g;
	}
	return k;
}

/* Whether `workers` copies of pod fit on nodes[0..nn) together. */
static bool phys_room(const struct place_node *nodes, size_t nn, const struct place_pod *p, int workers)
{
	long need = workers;
	for (size_t i = 0; i < nn && need > 0; i++)
		need -= node_room(&nodes[i], p, need);
	return need <= 0;
}

/* The free GPU milli on the nodes of the models p may use. */
static int64_t free_milli(const struct place_cluster *c, const struct place_pod *p)
{
	int64_t f = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		if (!p->spec_mask || (c->nodes[i].model >= 0 && (p->spec_mask >> c->nodes[i].model & 1)))
			f += place_node_gpu_free(&c->nodes[i]);
	return f;
}

static struct phys_job *job_of(struct sim *s, const struct sim_job *j)
{
	struct phys *ph = s->phys;
	size_t slot = (size_t)(j - s->jobs);
	if (slot >= ph->n_jobs)
		return NULL;
	struct phys_job *x = &ph->jobs[slot];
	if (!x->ready) {   /* a job added after the start (roll's future): unplaceable when malformed */
		char err[256];
		if (job_pod(&ph->c, j->tj, &x->pod, &x->workers, err, sizeof err))
			return NULL;
		x->ready = true;
	}
	return x;
}

int sim_phys_init(struct sim *s, char *err, size_t errlen)
{
	const struct trace *t = s->t;
	struct phys *ph = xcalloc(1, sizeof *ph);
	s->phys = ph;
	struct place_cluster *c = &ph->c;
	place_cluster_init(c);
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct trace_node *n = &t->nodes[i];
		if (n->gpu_count > PLACE_MAX_GPUS) {
			snprintf(err, errlen, "node '%s' has %lld GPUs; the physical model (placement_strategy '%s') holds at most %d per node",
				 n->id, n->gpu_count, policy_placement_name(s->p->placement), PLACE_MAX_GPUS);
			return -1;
		}
		int m = place_model_index(c, n->model);
		if (m < 0) {
			snprintf(err, errlen, "node '%s': more than %d GPU models", n->id, PLACE_MAX_MODELS);
			return -1;
		}
		place_add_node(c, n->res & TRACE_RES_CPU ? n->cpu_milli : PHYS_UNBOUNDED, n->res & TRACE_RES_MEM ? n->memory_mib : PHYS_UNBOUNDED,
			       (int)n->gpu_count, m);
	}
	ph->n_jobs = s->cap_n + 1;
	ph->jobs = xcalloc(ph->n_jobs, sizeof *ph->jobs);
	struct place_pod *pods = xmalloc((s->n + 1) * sizeof *pods);
	for (size_t i = 0; i < s->n; i++) {
		struct phys_job *x = &ph->jobs[i];
		if (job_pod(c, s->jobs[i].tj, &x->pod, &x->workers, err, errlen)) {
			free(pods);
			return -1;
		}
		x->ready = true;
		pods[i] = x->pod;
	}
	if (trace_check_fits(t, err, errlen)) {   /* lib/trace/fits.c: the job and why, in trace order */
		free(pods);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {   /* (a backstop: trace_check_fits holds every shape this model takes) */
		struct phys_job *x = &ph->jobs[i];
		if (!phys_room(c->nodes, c->nnodes, &x->pod, x->workers)) {
			snprintf(err, errlen, "job '%s' can never fit: no set of nodes holds its %d worker(s) of %lld cpu_milli, %lld memory_mib, "
				 "%d GPU(s) x %d milli even when idle", s->jobs[i].tj->id, x->workers, (long long)x->pod.cpu,
				 (long long)x->pod.mem, x->pod.num_gpu, x->pod.gpu_milli);
			free(pods);
			return -1;
		}
	}
	place_set_types(c, pods, s->n);   /* the fragmentation measure's typical pods: the trace's */
	free(pods);
	place_start(c, place_policy(policy_placement_name(s->p->placement)), (uint64_t)s->p->placement_seed);
	ph->scratch = xmalloc((c->nnodes + 1) * sizeof *ph->scratch);
	return 0;
}

void sim_phys_release(struct sim *s)
{
	struct phys *ph = s->phys;
	if (!ph)
		return;
	for (size_t i = 0; i < ph->n_jobs; i++)
		free(ph->jobs[i].ch);
	free(ph->jobs);
	free(ph->scratch);
	free(ph->set);
	free(ph->samples);
	place_cluster_release(&ph->c);
	free(ph);
	s->phys = NULL;
}

void sim_phys_clone(struct sim *d, const struct sim *s)
{
	const struct phys *ph = s->phys;
	struct phys *x = sim_mem_dup(ph, sizeof *ph);
	place_cluster_clone(&x->c, &ph->c);
	x->jobs = sim_mem_dup(ph->jobs, ph->n_jobs * sizeof *ph->jobs);
	for (size_t i = 0; i < ph->n_jobs; i++)
		if (ph->jobs[i].ch)
			x->jobs[i].ch = sim_mem_dup(ph->jobs[i].ch, (size_t)ph->jobs[i].workers * sizeof *ph->jobs[i].ch);
	x->scratch = xmalloc((ph->c.nnodes + 1) * sizeof *x->scratch);
	x->set = NULL;
	x->cap_set = 0;
	x->samples = sim_mem_dup(ph->samples, ph->n_samples * sizeof *ph->samples);
	x->cap_samples = ph->n_samples;
	d->phys = x;
}

bool sim_phys_fits(struct sim *s, const struct sim_job *j)
{
	struct phys_job *x = job_of(s, j);
	return x && phys_room(s->phys->c.nodes, s->phys->c.nnodes, &x->pod, x->workers);
}

/* The pool ledgers: pieces of j (one per worker) added (sign -1: taken) or given back. */
static void ledgers(struct sim *s, const struct sim_job *j, int sign)
{
	for (size_t i = 0; i < j->n_alloc; i++) {
		size_t n = j->alloc[i].node;
		double x = sign * j->alloc[i].x;
		s->nodes[n].free += x;
		s->fbm[s->nodes[n].model] += x;
		s->tfree += x;
	}
}

int sim_phys_place(struct sim *s, struct sim_job *j)
{
	struct phys *ph = s->phys;
	struct phys_job *x = job_of(s, j);
	if (!x)
		return -1;
	if (!phys_room(ph->c.nodes, ph->c.nnodes, &x->pod, x->workers)) {
		if (!x->frag_refused && free_milli(&ph->c, &x->pod) >= (int64_t)x->workers * place_pod_gpu_milli(&x->pod))
			x->frag_refused = true;   /* the GPUs are there, on no nodes that hold it */
		return -1;
	}
	const struct place_ops *ops = ph->c.ops;
	x->ch = xmalloc((size_t)x->workers * sizeof *x->ch);
	j->alloc = xgrow(j->alloc, &j->cap_alloc, (size_t)x->workers, sizeof *j->alloc);
	j->n_alloc = 0;
	double per = (double)place_pod_gpu_milli(&x->pod) / 1000.0;
	for (int k = 0; k < x->workers; k++) {
		if (ops->choose(&ph->c, &x->pod, &x->ch[k])) {
			/* not reached (phys_room said every worker fits, and they are identical): undone */
			while (k-- > 0)
				ops->release(&ph->c, &x->pod, &x->ch[k]);
			free(x->ch);
			x->ch = NULL;
			j->n_alloc = 0;
			return -1;
		}
		ops->place(&ph->c, &x->pod, &x->ch[k]);
		j->alloc[j->n_alloc].node = x->ch[k].node;
		j->alloc[j->n_alloc++].x = per;
	}
	ledgers(s, j, -1);
	return 0;
}

void sim_phys_unplace(struct sim *s, struct sim_job *j)
{
	struct phys *ph = s->phys;
	struct phys_job *x = &ph->jobs[j - s->jobs];
	for (int k = x->workers; k-- > 0;)
		ph->c.ops->release(&ph->c, &x->pod, &x->ch[k]);
	free(x->ch);
	x->ch = NULL;
	ledgers(s, j, +1);
	j->n_alloc = 0;
}

/* A running job's workers taken from (sign -1) or given back to (+1) the scratch nodes. */
static void scratch_apply(struct phys *ph, const struct phys_job *x, int sign)
{
	for (int k = 0; k < x->workers; k++) {
		struct place_node *n = &ph->scratch[x->ch[k].node];
		n->cpu_free += sign * x->pod.cpu;
		n->mem_free += sign * x->pod.mem;
		for (int g = 0; g < x->pod.num_gpu; g++)
			n->gpu_free[x->ch[k].gpu[g]] += sign * x->pod.gpu_milli;
	}
}

/*
 * The victims for HP job hp on the physical model (docs/simulator.md §3.13): walk the running
 * Spot jobs past their guarantee in the victim order vl, releasing each on a scratch copy of
 * the nodes, until hp fits; then, first victim to last but one, put each back when hp still
 * fits without it. The answer (in victim order, *out) is empty when hp fits already or when
 * releasing every candidate would not make it fit (evicting then would not help).
 */
size_t sim_phys_victims(struct sim *s, struct sim_job *hp, const struct victim_list *vl, struct sim_job ***out)
{
	struct phys *ph = s->phys;
	struct phys_job *h = job_of(s, hp);
	*out = ph->set;
	if (!h || phys_room(ph->c.nodes, ph->c.nnodes, &h->pod, h->workers))
		return 0;
	memcpy(ph->scratch, ph->c.nodes, ph->c.nnodes * sizeof *ph->scratch);
	size_t n = 0;
	bool fits = false;
	for (size_t i = vl->off; i < vl->n && !fits; i++) {
		struct sim_job *v = vl->v[i];
		if (!v->running)
			continue;
		scratch_apply(ph, &ph->jobs[v - s->jobs], +1);
		ph->set = xgrow(ph->set, &ph->cap_set, n + 1, sizeof *ph->set);
		ph->set[n++] = v;
		fits = phys_room(ph->scratch, ph->c.nnodes, &h->pod, h->workers);
	}
	*out = ph->set;
	if (!fits)
		return 0;
	size_t keep = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		const struct phys_job *x = &ph->jobs[ph->set[i] - s->jobs];
		scratch_apply(ph, x, -1);
		if (phys_room(ph->scratch, ph->c.nnodes, &h->pod, h->workers))
			continue;   /* not needed: stays */
		scratch_apply(ph, x, +1);
		ph->set[keep++] = ph->set[i];
	}
	ph->set[keep++] = ph->set[n - 1];
	return keep;
}

void sim_phys_forget(struct sim *s, size_t first)
{
	struct phys *ph = s->phys;
	for (size_t i = first; i < ph->n_jobs; i++) {
		ph->jobs[i].ready = false;
		ph->jobs[i].frag_refused = false;
	}
}

/* The cluster's state now, as a sample. */
static struct sim_frag_sample sample_now(const struct sim *s)
{
	const struct place_cluster *c = &s->phys->c;
	double frag = c->frag_total > 0 ? c->frag_total : 0.0;   /* (a running sum: no negative noise) */
	return (struct sim_frag_sample){ s->now, (double)c->gpu_used / 1000.0, frag / 1000.0,
		(double)(c->gpu_capacity - c->gpu_used) / 1000.0 };
}

void sim_phys_sample(struct sim *s)
{
	struct phys *ph = s->phys;
	struct sim_frag_sample x = sample_now(s);
	if (ph->n_samples) {
		struct sim_frag_sample *last = &ph->samples[ph->n_samples - 1];
		if (last->allocated_gpus == x.allocated_gpus && last->fragmented_gpus == x.fragmented_gpus)
			return;
		if (last->time == x.time) {
			*last = x;
			return;
		}
	}
	ph->samples = xgrow(ph->samples, &ph->cap_samples, ph->n_samples + 1, sizeof *ph->samples);
	ph->samples[ph->n_samples++] = x;
}

/* The summary: time-weighted means over [simulation_start, simulation_end] (each sample holds
 * until the next), the largest fragmented amount, and the jobs refused for fragmentation (some
 * start pass found their GPUs free but no nodes to hold them) against those that only waited
 * for capacity (queue_seconds > 0, never refused for fragmentation). */
void sim_phys_finish(struct sim *s, struct sim_output *o)
{
	struct phys *ph = s->phys;
	sim_phys_sample(s);   /* the state after the last completions */
	struct sim_placement_out *p = xcalloc(1, sizeof *p);
	p->strategy = policy_placement_name(s->p->placement);
	p->seed = s->p->placement_seed;
	p->n_samples = ph->n_samples;
	p->samples = sim_mem_dup(ph->samples, ph->n_samples * sizeof *ph->samples);
	double span = o->simulation_end - o->simulation_start, cap = (double)ph->c.gpu_capacity / 1000.0;
	double a = 0, f = 0, r = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		const struct sim_frag_sample *x = &p->samples[i];
		double until = i + 1 < p->n_samples ? p->samples[i + 1].time : o->simulation_end, w = span > 0 ? (until - x->time) / span : 0;
		if (i + 1 == p->n_samples && !(span > 0))
			w = 1;
		a += w * (cap > 0 ? x->allocated_gpus / cap : 0);
		f += w * x->fragmented_gpus;
		r += w * (x->free_gpus > 0 ? x->fragmented_gpus / x->free_gpus : 0);
		if (x->fragmented_gpus > p->fragmented_gpus_max)
			p->fragmented_gpus_max = x->fragmented_gpus;
	}
	p->allocation_ratio_mean = a;
	p->fragmented_gpus_mean = f;
	p->fragmentation_ratio_mean = r;
	for (size_t i = 0; i < s->n; i++) {
		if (ph->jobs[i].frag_refused)
			p->fragmentation_jobs++;
		else if (o->jobs[i].queue_seconds > SIM_EPS)
			p->capacity_jobs++;
	}
	o->placement = p;
}
