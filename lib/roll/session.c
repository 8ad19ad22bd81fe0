#include "roll/session.h"
#include "core/clock.h"
#include "core/ndjson.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "eval/metrics.h"
#include "roll/record_check.h"
#include "roll/session_internal.h"
#include "sim/result.h"
#include "sim/result_read.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---- the hooks: the predictor's, wrapped, plus the decision at each cutoff ---- */

static int h_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.check_policy ? l->pc_hooks.check_policy(l->pc_hooks.ctx, p, err, errlen) : 0;
}

static double replay_cutoff(const struct roll_live *l)
{
	return l->ctl->eval_start + (double)(l->replayed * l->ctl->cfg->interval);
}

static double h_next_wakeup(void *ctx, const struct sim *s, double after)
{
	struct roll_live *l = ctx;
	double next = l->pc_hooks.next_wakeup ? l->pc_hooks.next_wakeup(l->pc_hooks.ctx, s, after) : INFINITY;
	double c = l->replayed < l->o.replay_n ? replay_cutoff(l) : roll_due(l->ctl) ? roll_next_cutoff(l->ctl) : INFINITY;
	if (c > after && c < next)
		next = c;
	return next;
}

/* Resume: re-apply decision l->replayed as recorded, after checking that the state is the
 * one it was taken in (a replay that diverged would silently give another result). */
static int replay_one(struct roll_live *l, struct sim *s, char *err, size_t errlen)
{
	struct arena a;
	struct roll_state st;
	arena_init(&a);
	int rc = roll_live_state(l, &a, &st, err, errlen);
	long long i = l->replayed;
	if (!rc && strcmp(st.handoff_fp, l->ctl->p.handoff[i])) {
		snprintf(err, errlen, "resume: the replayed state at decision %lld (%.17g) differs from the checkpoint (handoff %s, recorded %s)",
			 i, sim_now(s), st.handoff_fp, l->ctl->p.handoff[i]);
		rc = -1;
	}
	/* at the checkpoint's own decision the predictor's learned state must be the recorded one */
	if (!rc && i + 1 == l->o.replay_n && l->pred && l->o.pred_state_expect) {
		struct strbuf sb;
		sb_init(&sb);
		json_write(&sb, roll_predictor_state_json(l->pred, &a));
		if (strcmp(sb.buf, l->o.pred_state_expect)) {
			snprintf(err, errlen, "resume: the replayed inner predictor's state at decision %lld (%.17g) differs from the checkpoint", i,
				 sim_now(s));
			rc = -1;
		}
		sb_release(&sb);
	}
	const struct sim_policy *p = &l->ctl->cat->actions[l->ctl->p.applied[i]];
	if (!rc && sim_policy(s) != p)
		rc = sim_set_policy(s, p, err, errlen);
	arena_release(&a);
	l->replayed++;
	return rc;
}

static int h_at_instant(void *ctx, struct sim *s, char *err, size_t errlen)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.at_instant && l->pc_hooks.at_instant(l->pc_hooks.ctx, s, err, errlen))
		return -1;
	if (l->t.window_end_clock == 0 && sim_now(s) >= l->ctl->eval_end) {
		l->t.window_end_clock = clock_wall();
		l->t.window_end_cpu = clock_rusage_cpu(2);
	}
	while (l->replayed < l->o.replay_n && sim_now(s) + SIM_EPS >= replay_cutoff(l))
		if (replay_one(l, s, err, errlen))
			return -1;
	while (l->replayed >= l->o.replay_n && roll_due(l->ctl) && sim_now(s) + SIM_EPS >= roll_next_cutoff(l->ctl)) {
		struct roll_engine e;
		roll_live_engine(l, &e);
		struct arena a;
		arena_init(&a);
		double t0 = clock_wall();
		if (l->ctl->p.index == 0 || l->t.first_cutoff_clock == 0) {
			l->t.first_cutoff_clock = t0;
			l->t.first_cutoff_cpu = clock_rusage_cpu(2);
		}
		/* the last scenario's copy stays for the next decision: its buffers' pages stay
		 * mapped (no page fault per page of the backlog at each decision), and lib/sim
		 * gives back the pages below the live state as it moves on */
		int rc = roll_step(l->ctl, &e, &a, err, errlen);
		l->t.decide_seconds += clock_wall() - t0;
		if (rc == ROLL_STEP_PENDING) {
			l->stopped = true;
			l->pending_arena = a;   /* ctl->pending_request lives here */
			snprintf(err, errlen, "a decision is pending");
			return -1;
		}
		if (rc == 0 && sim_policy(s) != roll_active(l->ctl))
			rc = sim_set_policy(s, roll_active(l->ctl), err, errlen);
		if (rc == 0 && l->o.frozen)
			rc = l->o.frozen(l->o.frozen_ctx, &a, err, errlen);
		arena_release(&a);
		if (rc)
			return -1;
	}
	/* after the last decision the scenarios' copy is not needed any more: closed before the
	 * session writes its job results */
	if (l->spare && l->replayed >= l->o.replay_n && !roll_due(l->ctl)) {
		sim_close(l->spare);
		l->spare = NULL;
	}
	return 0;
}

static void h_after_advance(void *ctx, struct sim *s)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.after_advance)
		l->pc_hooks.after_advance(l->pc_hooks.ctx, s);
}

static double h_gate_limit(void *ctx, const struct sim *s, int model)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.gate_limit(l->pc_hooks.ctx, s, model);
}

static bool h_gate_admit(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct roll_live *l = ctx;
	return l->pc_hooks.gate_admit(l->pc_hooks.ctx, s, j);
}

static void h_run_started(void *ctx, const struct sim *s, const struct sim_job_view *j)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.run_started)
		l->pc_hooks.run_started(l->pc_hooks.ctx, s, j);
}

static void insert_sorted(double *v, size_t n, double x)
{
	size_t i = n;
	while (i > 0 && v[i - 1] > x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = x;
}

static void h_run_closed(void *ctx, const struct sim *s, const struct sim_job_view *j, bool evicted)
{
	struct roll_live *l = ctx;
	if (l->pc_hooks.run_closed)
		l->pc_hooks.run_closed(l->pc_hooks.ctx, s, j, evicted);
	if (!j->hp) {
		l->closed_spot_runs++;
		l->evictions += evicted;
		return;
	}
	double sub = j->tj->submit;
	if (evicted || sub < sim_evaluation_start(s) || sub > sim_evaluation_end(s))
		return;
	/* An HP job runs once (HP is never evicted): its queue time is run start − submit. */
	if (l->n_hp == l->cap_hp) {
		l->cap_hp = l->cap_hp ? 2 * l->cap_hp : 256;
		l->hp_queue = xrealloc(l->hp_queue, l->cap_hp * sizeof *l->hp_queue);
		l->hp_jct = xrealloc(l->hp_jct, l->cap_hp * sizeof *l->hp_jct);
	}
	insert_sorted(l->hp_queue, l->n_hp, num_round(j->run_start - sub, 6));
	insert_sorted(l->hp_jct, l->n_hp, num_round(sim_now(s) - sub, 6));
	l->n_hp++;
}

struct roll_live *roll_live_open(struct roll_controller *ctl, const struct trace *exec, struct roll_predictor *pred,
				 const struct roll_live_options *o, char *err, size_t errlen)
{
	struct roll_live *l = xcalloc(1, sizeof *l);
	arena_init(&l->pending_arena);
	l->o = *o;
	l->ctl = ctl;
	l->exec = exec;
	l->pred = pred;
	fp_xxh3_init(&l->prefix);
	if (pred)
		l->pc_hooks = pred->hooks;
	struct sim_hooks h = { 0 };
	h.ctx = l;
	h.check_policy = h_check_policy;
	h.next_wakeup = h_next_wakeup;
	h.at_instant = h_at_instant;
	h.after_advance = h_after_advance;
	if (l->pc_hooks.gate_limit && l->pc_hooks.gate_admit) {
		h.gate_limit = h_gate_limit;
		h.gate_admit = h_gate_admit;
	}
	h.run_started = h_run_started;
	h.run_closed = h_run_closed;
	h.idle_limit_seconds = l->pc_hooks.idle_limit_seconds;
	l->sim = sim_open_reserve(exec, roll_active(ctl), &h, o->reserve, err, errlen);
	if (!l->sim) {
		roll_live_close(l);
		return NULL;
	}
	return l;
}

void roll_live_get_timing(const struct roll_live *l, struct roll_live_timing *t)
{
	*t = l->t;
}

int roll_live_run(struct roll_live *l, struct sim_output *out, char *err, size_t errlen)
{
	if (sim_finish(l->sim, out, err, errlen))
		return l->stopped ? ROLL_STEP_PENDING : -1;
	return 0;
}

void roll_live_close(struct roll_live *l)
{
	if (!l)
		return;
	sim_close(l->spare);
	sim_close(l->sim);
	arena_release(&l->pending_arena);
	fp_xxh3_release(&l->prefix);
	free(l->hp_queue);
	free(l->hp_jct);
	free(l->undone);
	free(l->ro_flag);
	free(l->ro_map);
	free(l->ro_kept);
	free(l->id_order);
	free(l->id_rank);
	free(l);
}

static size_t max_in_window(const struct trace *t, double width)
{
	size_t best = 0, lo = 0;
	for (size_t hi = 0; hi < t->n_jobs; hi++) {
		while (t->jobs[hi].submit - t->jobs[lo].submit > width)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	return best;
}

size_t roll_live_reserve(const struct roll_controller *ctl, const struct trace *exec, const struct trace *history, size_t pools)
{
	double H = (double)ctl->cfg->horizon;
	size_t points = pools * (size_t)(ctl->cfg->horizon / 3600 + 2);
	size_t replay = max_in_window(history, H) + points * ROLL_MAX_PIECES, future = max_in_window(exec, H);
	return (replay > future ? replay : future) + 16;
}
