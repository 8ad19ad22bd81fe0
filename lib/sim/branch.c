/*
 * Branching a live session into a counterfactual (rolling control, docs/rolling.md): the jobs
 * not admitted yet are replaced by another future, the hooks by other hooks, and the
 * evaluation window and allocation integrals restart at the cutoff. Everything already
 * admitted keeps its exact state: placements, remaining work, waits, ledgers, counters.
 * Used in a fork()ed child of the process that owns the live session, so the live session
 * itself is never touched.
 */
#include "sim/internal.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sim_admitted(const struct sim *s) { return s->next_arrival; }
size_t sim_job_count(const struct sim *s) { return s->n; }
const struct trace_job *sim_job_trace(const struct sim *s, size_t index) { return s->jobs[index].tj; }
bool sim_job_in_population(const struct sim *s, size_t index) { return s->jobs[index].eval_pop; }

void sim_job_state(struct sim *s, size_t index, struct sim_job_state *o)
{
	struct sim_job *j = &s->jobs[index];
	memset(o, 0, sizeof *o);
	o->queued = j->queued;
	o->running = j->running;
	o->done = j->done;
	o->remaining = j->running ? sim_running_rem(s, j) : j->rem;
	o->queued_since = j->qsince;
	o->queue_seconds = j->qsec;
	o->run_start = j->run_start;
	o->run_guarantee = j->rg;
	o->first_start = j->first_start;
	o->completion = j->completion;
	o->preemptions = j->preemptions;
	o->runs = j->runs;
	o->eo = j->eo;
	o->evaluation_population = j->eval_pop;
}

int sim_replace_future(struct sim *s, const struct trace_job *jobs, size_t n, double start, double end, char *err, size_t errlen)
{
	size_t first = s->next_arrival;
	if (first + n > s->cap_n) {
		snprintf(err, errlen, "a counterfactual future of %zu jobs exceeds the session's reserve (%zu free slots)", n, s->cap_n - first);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct trace_job *tj = &jobs[i];
		if (!(tj->submit + SIM_EPS >= s->now) || (i && tj->submit < jobs[i - 1].submit) || !(tj->duration > SIM_EPS) ||
		    !isfinite(tj->duration) || !(tj->gpus > 0) || !isfinite(tj->gpus)) {
			snprintf(err, errlen, "counterfactual job '%s': submit before now, out of order, or a bad duration or GPU count", tj->id);
			return -1;
		}
		if (sim_model_of(s, tj->model) == -2) {
			snprintf(err, errlen, "counterfactual job '%s' asks for model '%s' that no node has", tj->id, tj->model);
			return -1;
		}
	}
	/* The slots from next_arrival on were never admitted: nothing refers to them (only the
	 * ones the new future takes are touched: in a fork()ed copy every page written is copied). */
	memset(&s->jobs[first], 0, n * sizeof *s->jobs);
	for (size_t i = 0; i < n; i++)
		sim_job_init(s, &s->jobs[first + i], &jobs[i], (long long)(first + i), start, end);   /* models checked above */
	if (s->phys)
		sim_phys_forget(s, first);   /* issue 36: their worker shapes are read again when placed */
	/* The counterfactual's population: what is still queued or running and was in the real
	 * one, plus the new future. eval_spot keeps its meaning for the eviction budget. */
	size_t np, *slot = sim_present_slots(s, &np);
	for (size_t k = 0; k < np; k++) {
		size_t i = slot ? slot[k] : k;
		if (i < first && s->jobs[i].done && s->jobs[i].eval_pop)   /* write only what changes (copy-on-write) */
			s->jobs[i].eval_pop = false;
	}
	free(slot);
	if (s->live_only && first < s->fresh_from)
		s->fresh_from = first;   /* the slots from first on now hold the new future */
	s->n = first + n;
	struct sim_output *o = s->out;
	o->n_jobs = s->n;
	o->evaluation_start = start;
	o->evaluation_end = end;
	o->allocated = o->warmup_allocated = o->evaluation_allocated = 0;
	return 0;
}

const struct sim_output *sim_output_so_far(const struct sim *s) { return s->out; }

int sim_set_hooks(struct sim *s, const struct sim_hooks *h, char *err, size_t errlen)
{
	if (!s->hooked) {
		snprintf(err, errlen, "a session opened without hooks cannot take hooks later");
		return -1;
	}
	s->hooks = h ? *h : (struct sim_hooks){ 0 };
	s->gated = h && h->gate_limit && h->gate_admit;
	s->idle_since = NAN;
	sim_queue_rebuild(s);   /* the lanes split by class only under a gate */
	return 0;
}
