/* Draw helpers shared by the generators (generate.c for /1 and /2, generate3.c for /3):
 * shuffled decks, a cumulative-weight pick, and the nodes, jobs and closing steps that every
 * generated trace gets. */
#include "synth/synth.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>

void synth_deck_fill(struct synth_deck *d, const long long *counts, size_t ncounts, size_t stride)
{
	d->n = 0;
	for (size_t i = 0; i < ncounts; i++)
		d->n += (size_t)counts[i * stride];
	d->items = xmalloc((d->n ? d->n : 1) * sizeof *d->items);
	size_t k = 0;
	for (size_t i = 0; i < ncounts; i++)
		for (long long c = 0; c < counts[i * stride]; c++)
			d->items[k++] = (unsigned)i;
	d->next = 0;
}

void synth_deck_shuffle(struct synth_deck *d)
{
	for (size_t i = d->n; i > 1; i--) {
		size_t k = (size_t)synth_rng_below(d->rng, i);
		unsigned x = d->items[i - 1];
		d->items[i - 1] = d->items[k];
		d->items[k] = x;
	}
	d->next = 0;
}

void synth_deck_init(struct synth_deck *d, const long long *counts, size_t ncounts, size_t stride, uint64_t seed, uint64_t stream)
{
	synth_deck_fill(d, counts, ncounts, stride);
	synth_rng_seed(&d->own, seed, stream);
	d->rng = &d->own;
	synth_deck_shuffle(d);
}

unsigned synth_deck_draw(struct synth_deck *d)
{
	if (d->next == d->n)
		synth_deck_shuffle(d);
	return d->items[d->next++];
}

size_t synth_pick_cum(const double *cum, size_t n, double v)
{
	size_t i = 0;
	while (i + 1 < n && v >= cum[i])
		i++;
	return i;
}

void synth_add_nodes(const struct synth_profile *p, const struct synth_options *o, const bool *model_on, struct trace *t)
{
	for (size_t i = 0; i < p->n_nodes; i++) {
		int m = synth_profile_model(p, p->nodes[i].model);
		if (m >= 0 ? !model_on[m] : o->n_gpu_models > 0)
			continue;
		struct trace_node *n = trace_add_node(t);
		n->id = trace_strdup(t, p->nodes[i].id);
		n->model = trace_strdup(t, p->nodes[i].model);
		n->gpu_count = p->nodes[i].gpus;
	}
}

void synth_add_job(struct trace *t, long long number, double submit, double duration, double gpus, bool hp,
	char *model, char *tenant)
{
	char id[32];
	snprintf(id, sizeof id, "j%07lld", number);
	struct trace_job *j = trace_add_job(t);
	j->id = trace_strdup(t, id);
	j->submit = submit;
	j->duration = duration;
	j->gpus = gpus;
	j->hp = hp;
	j->model = model;
	j->tenant = tenant;
}

int synth_finish(const struct synth_profile *p, const struct synth_options *o, const bool *model_on,
	struct trace *t, long long capped, const char *how, char *err, size_t errlen)
{
	t->version = 2;
	if (synth_trace_id(p, o, model_on, t, err, errlen))
		return -1;
	t->time_origin = trace_strdup(t, p->time_origin);
	synth_set_source(p, o, model_on, t, capped, how);
	if (t->n_jobs == 0) {
		snprintf(err, errlen, "the day range and GPU-model filters keep no jobs");
		return -1;
	}
	trace_sort(t);
	return 0;
}
