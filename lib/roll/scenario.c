#include "roll/scenario.h"
#include "core/fp.h"
#include "core/num.h"
#include "core/strbuf.h"
#include "core/strrank.h"
#include "core/xalloc.h"
#include "eval/evidence.h"
#include "roll/config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample { bool hp; const char *model; double d; uint32_t rank; /* of model, by strcmp */ };

/* (class, pool, d): HP first, then the model in strcmp order (by its rank), then d */
static int sample_cmp(const void *x, const void *y)
{
	const struct sample *a = x, *b = y;
	if (a->hp != b->hp)
		return a->hp ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->d < b->d ? -1 : a->d > b->d;
}

static int class_cmp(const void *x, const void *y)
{
	const struct sample *a = x, *b = y;
	if (a->hp != b->hp)
		return a->hp ? -1 : 1;
	return a->d < b->d ? -1 : a->d > b->d;
}

/* Duration samples of the jobs visible and completed at the cutoff, kept sorted two ways
 * and grown as the cutoff moves forward: a job enters when submit + duration <= cut + EPS.
 * Only the durations are kept (16 B a sample): in (class, pool, d) order with a table of
 * the (class, pool) groups, and in (class, d) order with the HP count before the Spot. */
struct sample_group { bool hp; const char *model; size_t start, end; };

struct roll_samples {
	double *dur_pool, *dur_class;        /* the durations in (class, pool, d) and (class, d) order */
	size_t n, cap;
	struct sample_group *grp;            /* dur_pool's groups, in (class, pool) order */
	size_t n_grp, grp_cap;
	size_t n_hp;                         /* dur_class: HP first, then Spot */
	const struct trace *exec, *hist;
	size_t *exec_end, *hist_end;         /* job indices by completion time */
	size_t pe, ph;                       /* how many of them entered */
	double cut;
	/* keys (id, class) of the history jobs that entered: an execution job with the same
	 * key is the same job and counts once. None when the history is the execution trace's
	 * very jobs (trace_load_sharing): every execution job that enters has entered as a
	 * history job by then (the same order, the same test), and a trace's ids are unique */
	const struct trace_job **slot;
	size_t scap, sn;
	bool same_jobs;
};

static bool done_by(const struct trace_job *j, double cut)
{
	return j->submit <= cut + ROLL_EPS && j->submit + j->duration <= cut + ROLL_EPS;
}

static unsigned long long key_hash(const struct trace_job *j)
{
	unsigned long long h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)j->id; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h ^ (j->hp ? 0x9e3779b97f4a7c15ULL : 0);
}

static bool key_eq(const struct trace_job *a, const struct trace_job *b)
{
	return a->hp == b->hp && !strcmp(a->id, b->id);
}

static bool key_has(const struct roll_samples *s, const struct trace_job *j)
{
	for (size_t i = key_hash(j) & (s->scap - 1); s->slot[i]; i = (i + 1) & (s->scap - 1))
		if (key_eq(s->slot[i], j))
			return true;
	return false;
}

static void key_add(struct roll_samples *s, const struct trace_job *j)
{
	size_t i = key_hash(j) & (s->scap - 1);
	while (s->slot[i] && !key_eq(s->slot[i], j))
		i = (i + 1) & (s->scap - 1);
	if (!s->slot[i])
		s->sn++;
	s->slot[i] = j;
}

struct end_key { double end; size_t i; };

static int by_end(const void *x, const void *y)
{
	const struct end_key *a = x, *b = y;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The job indices by completion time (submit + duration), then index; the keys are
 * computed once, not at every comparison. */
static size_t *end_order(const struct trace *t)
{
	size_t *v = xmalloc((t->n_jobs + 1) * sizeof *v);
	struct end_key *k = xmalloc((t->n_jobs + 1) * sizeof *k);
	for (size_t i = 0; i < t->n_jobs; i++)
		k[i] = (struct end_key){ t->jobs[i].submit + t->jobs[i].duration, i };
	if (t->n_jobs)
		qsort(k, t->n_jobs, sizeof *k, by_end);
	for (size_t i = 0; i < t->n_jobs; i++)
		v[i] = k[i].i;
	free(k);
	return v;
}

struct roll_samples *roll_samples_new(const struct trace *exec, const struct trace *history)
{
	struct roll_samples *s = xcalloc(1, sizeof *s);
	s->exec = exec;
	s->hist = history;
	s->exec_end = end_order(exec);
	/* a history that is the execution trace's very jobs (trace_load_sharing) shares the order */
	s->same_jobs = history->jobs == exec->jobs;
	s->hist_end = s->same_jobs ? s->exec_end : end_order(history);
	if (!s->same_jobs) {
		s->scap = 16;
		while (s->scap < 2 * history->n_jobs + 16)
			s->scap *= 2;
		s->slot = xcalloc(s->scap, sizeof *s->slot);
	}
	s->cut = -INFINITY;
	return s;
}

void roll_samples_free(struct roll_samples *s)
{
	if (!s)
		return;
	free(s->dur_pool);
	free(s->dur_class);
	free(s->grp);
	if (s->hist_end != s->exec_end)
		free(s->hist_end);
	free(s->exec_end);
	free(s->slot);
	free(s);
}

/* (class, pool) order of sample_cmp without the duration: HP first, then the model. */
static int group_key_cmp(bool hp_a, const char *model_a, bool hp_b, const char *model_b)
{
	if (hp_a != hp_b)
		return hp_a ? -1 : 1;
	return strcmp(model_a, model_b);
}

/* Merge the sorted durations old[0..n) and the batch b[0..nb) (its durations, in the same
 * order) into out: an old value first unless it is greater (a stable merge, as the
 * samples were merged with their class and pool). */
static size_t merge_dur(double *out, const double *old, size_t n, const struct sample *b, size_t nb)
{
	size_t i = 0, k = 0, o = 0;
	while (i < n || k < nb)
		out[o++] = k == nb || (i < n && !(old[i] > b[k].d)) ? old[i++] : b[k++].d;
	return o;
}

/* Merge the batch (sorted by sample_cmp) into dur_pool and its group table. */
static void merge_pool(struct roll_samples *s, const struct sample *b, size_t nb, double *tmp)
{
	struct sample_group *g = xmalloc((s->n_grp + nb + 1) * sizeof *g);
	size_t ng = 0, gi = 0, k = 0, o = 0;
	while (gi < s->n_grp || k < nb) {
		const struct sample_group *og = gi < s->n_grp ? &s->grp[gi] : NULL;
		int c = !og ? 1 : k == nb ? -1 : group_key_cmp(og->hp, og->model, b[k].hp, b[k].model);
		size_t k1 = k;
		if (c >= 0)   /* the batch's run of this key */
			while (k1 < nb && !group_key_cmp(b[k1].hp, b[k1].model, b[k].hp, b[k].model))
				k1++;
		struct sample_group ng_ = c <= 0 ? *og : (struct sample_group){ b[k].hp, b[k].model, 0, 0 };
		ng_.start = o;
		if (c < 0)
			o += merge_dur(tmp + o, s->dur_pool + og->start, og->end - og->start, NULL, 0);
		else if (c == 0)
			o += merge_dur(tmp + o, s->dur_pool + og->start, og->end - og->start, b + k, k1 - k);
		else
			o += merge_dur(tmp + o, NULL, 0, b + k, k1 - k);
		ng_.end = o;
		g[ng++] = ng_;
		if (c <= 0)
			gi++;
		if (c >= 0)
			k = k1;
	}
	free(s->grp);
	s->grp = g;
	s->n_grp = ng;
	memcpy(s->dur_pool, tmp, o * sizeof *tmp);
}

/* Merge the batch (sorted by class_cmp: HP by d, then Spot by d) into dur_class. */
static void merge_class(struct roll_samples *s, const struct sample *b, size_t nb, double *tmp)
{
	size_t bh = 0;
	while (bh < nb && b[bh].hp)
		bh++;
	size_t o = merge_dur(tmp, s->dur_class, s->n_hp, b, bh);
	o += merge_dur(tmp + o, s->dur_class + s->n_hp, s->n - s->n_hp, b + bh, nb - bh);
	s->n_hp += bh;
	memcpy(s->dur_class, tmp, o * sizeof *tmp);
}

void roll_samples_advance(struct roll_samples *s, double cut)
{
	if (cut <= s->cut)
		return;
	s->cut = cut;
	struct sample *batch = NULL;
	size_t nb = 0, bcap = 0;
	/* the history's jobs first: their keys decide which execution jobs are duplicates */
	for (; s->ph < s->hist->n_jobs; s->ph++) {
		const struct trace_job *j = &s->hist->jobs[s->hist_end[s->ph]];
		if (!(j->submit + j->duration <= cut + ROLL_EPS))
			break;
		if (j->submit <= cut + ROLL_EPS && (s->same_jobs || !key_has(s, j))) {
			if (!s->same_jobs)
				key_add(s, j);
			batch = xgrow(batch, &bcap, nb + 1, sizeof *batch);
			batch[nb++] = (struct sample){ j->hp, j->model, j->duration, 0 };
		}
	}
	for (; !s->same_jobs && s->pe < s->exec->n_jobs; s->pe++) {
		const struct trace_job *j = &s->exec->jobs[s->exec_end[s->pe]];
		if (!(j->submit + j->duration <= cut + ROLL_EPS))
			break;
		if (j->submit <= cut + ROLL_EPS && !key_has(s, j)) {
			batch = xgrow(batch, &bcap, nb + 1, sizeof *batch);
			batch[nb++] = (struct sample){ j->hp, j->model, j->duration, 0 };
		}
	}
	if (nb) {
		size_t need = s->n + nb;
		if (need > s->cap) {
			s->cap = need + need / 2;
			s->dur_pool = xrealloc(s->dur_pool, s->cap * sizeof *s->dur_pool);
			s->dur_class = xrealloc(s->dur_class, s->cap * sizeof *s->dur_class);
		}
		double *tmp = xmalloc(need * sizeof *tmp);
		uint32_t *rank = xmalloc(nb * sizeof *rank);
		str_ranks(&batch[0].model, nb, sizeof *batch, rank);
		for (size_t i = 0; i < nb; i++)
			batch[i].rank = rank[i];
		free(rank);
		qsort(batch, nb, sizeof *batch, sample_cmp);
		merge_pool(s, batch, nb, tmp);
		qsort(batch, nb, sizeof *batch, class_cmp);
		merge_class(s, batch, nb, tmp);
		free(tmp);
		s->n = need;
	}
	free(batch);
}

/* The sorted durations of (class, pool), else of the class. */
static const double *samples_for(const struct roll_samples *s, bool hp, const char *model, size_t *n)
{
	size_t lo = 0, hi = s->n_grp;
	while (lo < hi) {   /* the first group at or after (hp, model) */
		size_t mid = lo + (hi - lo) / 2;
		if (group_key_cmp(s->grp[mid].hp, s->grp[mid].model, hp, model) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_grp && !group_key_cmp(s->grp[lo].hp, s->grp[lo].model, hp, model) && s->grp[lo].end > s->grp[lo].start) {
		*n = s->grp[lo].end - s->grp[lo].start;
		return s->dur_pool + s->grp[lo].start;
	}
	*n = hp ? s->n_hp : s->n - s->n_hp;
	return s->dur_class + (hp ? 0 : s->n_hp);
}

double roll_estimate_remaining(const double *d, size_t n, double elapsed, long long horizon, const char **method, long long *samples)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {   /* first d > elapsed */
		size_t mid = lo + (hi - lo) / 2;
		if (d[mid] > elapsed)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t m = n - lo;
	double est;
	if (m > 0) {
		/* statistics.median of the survivors d − elapsed, which sort like d. */
		size_t i = lo + m / 2;
		est = m % 2 ? d[i] - elapsed : ((d[i - 1] - elapsed) + (d[i] - elapsed)) / 2;
		*method = "conditional-survival-median";
		*samples = (long long)m;
	} else if (n > 0) {
		size_t i = n / 2;
		double med = n % 2 ? d[i] : (d[i - 1] + d[i]) / 2;
		est = med > 3600.0 ? med : 3600.0;
		*method = "right-censored-class-median-fallback";
		*samples = (long long)n;
	} else {
		est = 3600.0;
		*method = "sparse-history-one-hour-fallback";
		*samples = 0;
	}
	if (est < 60.0)
		est = 60.0;
	return est < (double)horizon ? est : (double)horizon;
}

size_t roll_decompose(double requested, const struct roll_piece *templates, size_t n_templates, double capacity,
		      size_t point_index, const char *tenant, struct roll_piece out[ROLL_MAX_PIECES])
{
	double req = requested > 0 ? requested : 0.0;
	if (req > capacity)
		req = capacity;
	if (req <= ROLL_EPS)
		return 0;
	struct roll_piece *usable = xmalloc((n_templates + 1) * sizeof *usable), *ordered = xmalloc((n_templates + 1) * sizeof *ordered);
	size_t nu = 0;
	for (size_t i = 0; i < n_templates; i++)
		if (ROLL_EPS < templates[i].gpus && templates[i].gpus <= capacity + ROLL_EPS)
			usable[nu++] = templates[i];
	if (nu > 0) {
		size_t off = point_index % nu;
		for (size_t i = 0; i < nu; i++)
			ordered[i] = usable[(off + i) % nu];
	} else {
		double g = capacity / 64.0 > 1.0 ? capacity / 64.0 : 1.0;
		ordered[0] = (struct roll_piece){ req < g ? req : g, tenant, NULL };
		nu = 1;
	}
	double min_piece = req / ROLL_MAX_PIECES, rem = req;
	size_t n = 0;
	while (rem > ROLL_EPS && n < ROLL_MAX_PIECES) {
		const struct roll_piece *t = &ordered[n % nu];
		double size = min_piece > t->gpus ? min_piece : t->gpus;
		double g = rem < size ? rem : size;
		out[n++] = (struct roll_piece){ g, t->tenant ? t->tenant : tenant, t->source_id };
		rem -= g;
	}
	if (rem > ROLL_EPS)
		out[n - 1].gpus += rem;
	free(usable);
	free(ordered);
	return n;
}

static int scn_cmp(const void *x, const void *y)
{
	const struct roll_scn_job *a = x, *b = y;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* kind::NNNNNN::rest (the index zero-padded to 6 digits), in exactly its own length: a
 * decision holds one per carried job, tens of thousands in a backlog */
static const char *fmt_id(struct arena *a, const char *kind, size_t i, const char *rest)
{
	char num[32];
	int nn = snprintf(num, sizeof num, "%06zu", i);
	size_t lk = strlen(kind), lr = strlen(rest);
	char *s = arena_alloc(a, lk + (size_t)nn + lr + 5);
	memcpy(s, kind, lk);
	memcpy(s + lk, "::", 2);
	memcpy(s + lk + 2, num, (size_t)nn);
	memcpy(s + lk + 2 + nn, "::", 2);
	memcpy(s + lk + 4 + nn, rest, lr + 1);
	return s;
}

struct jobvec { struct roll_scn_job *v; size_t n, cap; };

static struct roll_scn_job *push(struct jobvec *jv)
{
	jv->v = xgrow(jv->v, &jv->cap, jv->n + 1, sizeof *jv->v);
	struct roll_scn_job *j = &jv->v[jv->n++];
	memset(j, 0, sizeof *j);
	return j;
}

/* The trace's pool of every model (trace_capacity) and a job's any-model GPU model. */
#define ANY_MODEL "*"

static bool pool_matches(const char *pool, const char *model)
{
	return !strcmp(pool, ANY_MODEL) || !strcmp(model, pool) || !strcmp(model, ANY_MODEL);
}

static double r6(double v) { return num_round(v, 6); }

/* The carryover's remaining-time estimates of in (in->carry_est, made once per cutoff, or a
 * new set in a). */
static struct roll_carry_est *carry_estimates(struct arena *a, const struct roll_scenario_in *in, const struct roll_samples *smp)
{
	const struct roll_state *st = in->state;
	struct roll_carry_est *ce = in->carry_est;
	if (!ce) {
		ce = arena_alloc(a, sizeof *ce);
		memset(ce, 0, sizeof *ce);
	}
	if (!ce->built) {
		ce->est = arena_alloc(a, (st->n_carry + 1) * sizeof *ce->est);
		for (size_t i = 0; i < st->n_carry; i++) {
			const struct roll_carry *c = &st->carry[i];
			size_t n;
			const double *d = samples_for(smp, c->hp, c->model, &n);
			struct roll_estimate *e = &ce->est[i];
			e->carry = c;
			e->scenario_id = fmt_id(a, "carryover", i, c->id);
			e->estimate = roll_estimate_remaining(d, n, c->running ? c->run_elapsed : 0.0, in->horizon, &e->method, &e->samples);
		}
		ce->n = st->n_carry;
		ce->built = true;
	}
	return ce;
}

void roll_scenario_build(struct arena *a, const struct roll_scenario_in *in, struct roll_scenario *s)
{
	memset(s, 0, sizeof *s);
	s->profile_id = in->profile_id;
	s->forecast_tenant = in->scenario_tenant;
	s->stress = in->stress;
	s->actual_future = in->actual_future;
	s->cut = in->cut;
	s->horizon = in->horizon;
	double cut = in->cut, H = (double)in->horizon;
	const struct roll_state *st = in->state;
	const struct trace *hist = in->history;
	struct jobvec jv = { NULL, 0, 0 };
	struct roll_samples *own = NULL;
	const struct roll_samples *smp = in->samples;
	if (!smp) {
		own = roll_samples_new(in->exec, hist);
		roll_samples_advance(own, cut);
		smp = own;
	}

	/* Completed workload history of (cut − H, cut]: replay material and HP templates. */
	size_t h_lo = roll_first_after(hist, cut - H), h_hi = roll_first_after(hist, cut + ROLL_EPS);
	size_t n_tpl = 0, cap_tpl = h_hi - h_lo + st->n_carry + 1;
	struct roll_piece *tpl = xmalloc(cap_tpl * sizeof *tpl);
	const char **tpl_pool = xmalloc(cap_tpl * sizeof *tpl_pool);
	for (size_t i = h_lo; i < h_hi; i++) {
		const struct trace_job *j = &hist->jobs[i];
		if (j->hp && done_by(j, cut)) {
			tpl_pool[n_tpl] = j->model;
			tpl[n_tpl++] = (struct roll_piece){ j->gpus, j->tenant, j->id };
		}
	}

	/* 2. carryover estimates (the jobs themselves stay in the live simulator state), once
	 * per cutoff. */
	struct roll_carry_est *ce = carry_estimates(a, in, smp);
	s->carry_est = ce;
	s->est = ce->est;
	s->n_est = ce->n;
	for (size_t i = 0; i < st->n_carry; i++) {
		const struct roll_carry *c = &st->carry[i];
		if (c->hp) {
			tpl_pool[n_tpl] = c->model;
			tpl[n_tpl++] = (struct roll_piece){ c->gpus, c->tenant, c->id };
		}
	}

	if (in->actual_future) {
		const struct trace *t = in->exec;
		size_t lo = roll_first_after(t, cut), hi = roll_first_after(t, cut + H);
		for (size_t i = lo; i < hi; i++) {
			const struct trace_job *x = &t->jobs[i];
			struct roll_scn_job *j = push(&jv);
			*j = (struct roll_scn_job){ fmt_id(a, "future", i - lo, x->id), x->submit, x->duration, x->gpus, x->hp,
				x->model, x->tenant, SCN_FUTURE, x->id, false, 0.0 };
		}
	} else {
		/* 3. replay of the completed history, shifted by +H. */
		size_t k = 0;
		for (size_t i = h_lo; i < h_hi; i++) {
			const struct trace_job *x = &hist->jobs[i];
			if (!done_by(x, cut))
				continue;
			size_t idx = k++;
			if (in->n_points && x->hp)
				continue;
			struct roll_scn_job *j = push(&jv);
			*j = (struct roll_scn_job){ fmt_id(a, "history", idx, x->id), x->submit + H, x->duration, x->gpus, x->hp,
				x->model, x->tenant, SCN_HISTORY, x->id, false, 0.0 };
		}
		/* 4–5. forecast increments over the surviving carryover, decomposed into pieces. */
		s->decomposition = in->n_points ? json_array(a) : json_null(a);
		struct roll_piece *ptpl = xmalloc((n_tpl + 1) * sizeof *ptpl), pieces[ROLL_MAX_PIECES];
		for (size_t pi = 0; pi < in->n_points; pi++) {
			const struct roll_point *p = &in->points[pi];
			if (p->target <= cut + ROLL_EPS || p->target > cut + H + ROLL_EPS)
				continue;
			const char *pool = p->pool ? p->pool : in->scenario_pool;
			if (!pool)
				continue;
			long long capl = trace_capacity(in->exec, pool);
			if (strcmp(pool, ANY_MODEL) && capl <= 0)
				continue;
			double cap = (double)capl, q = p->q > 0 ? p->q : 0.0;
			double total = cap < q ? cap : q, surviving = 0;
			for (size_t i = 0; i < s->n_est; i++) {
				const struct roll_carry *c = s->est[i].carry;
				if (c->hp && c->running && pool_matches(pool, c->model) && s->est[i].estimate > p->target - cut + ROLL_EPS)
					surviving += c->gpus;
			}
			double requested = total - surviving > 0 ? total - surviving : 0.0;
			if (requested <= ROLL_EPS)
				continue;
			double duration = cut + H - (p->target - 3600.0);
			if (duration > 3600.0)
				duration = 3600.0;
			size_t nt = 0;
			for (size_t i = 0; i < n_tpl; i++)
				if (!strcmp(pool, ANY_MODEL) || !strcmp(tpl_pool[i], pool))
					ptpl[nt++] = tpl[i];
			for (size_t i = 0; strcmp(pool, ANY_MODEL) && i < n_tpl; i++)
				if (!strcmp(tpl_pool[i], ANY_MODEL))
					ptpl[nt++] = tpl[i];
			size_t np = roll_decompose(requested, ptpl, nt, cap, pi, in->scenario_tenant, pieces);
			double max_piece = 0;
			for (size_t k2 = 0; k2 < np; k2++) {
				char rest[64 + 1];
				snprintf(rest, sizeof rest, "%04zu::", k2);
				size_t need = strlen(pool) + 64;
				char *id = arena_alloc(a, need);
				snprintf(id, need, "forecast-hp::%06zu::%s%s", pi, rest, pool);
				struct roll_scn_job *j = push(&jv);
				double sub = p->target - 3600.0 > cut ? p->target - 3600.0 : cut;
				*j = (struct roll_scn_job){ id, sub, duration > 60.0 ? duration : 60.0, pieces[k2].gpus, true, pool,
					pieces[k2].tenant, SCN_FORECAST, NULL, false, 0.0 };
				if (pieces[k2].gpus > max_piece)
					max_piece = pieces[k2].gpus;
			}
			struct json *d = json_object(a);
			json_set(a, d, "target_time_seconds", json_real(a, p->target));
			json_set(a, d, "resource_pool", json_str(a, pool));
			json_set(a, d, "forecast_quantile_gpus", json_real(a, r6(p->q)));
			json_set(a, d, "forecast_total_active_gpus", json_real(a, r6(total)));
			json_set(a, d, "surviving_carryover_hp_gpus", json_real(a, r6(surviving)));
			json_set(a, d, "scenario_incremental_hp_gpus", json_real(a, r6(requested)));
			json_set(a, d, "visible_template_count", json_int(a, (long long)nt));
			json_set(a, d, "synthetic_job_count", json_int(a, (long long)np));
			json_set(a, d, "maximum_synthetic_job_gpus", json_real(a, r6(max_piece)));
			json_push(a, s->decomposition, d);
		}
		free(ptpl);
	}
	if (!s->decomposition)
		s->decomposition = json_null(a);
	free(tpl);
	free(tpl_pool);
	if (jv.n)
		qsort(jv.v, jv.n, sizeof *jv.v, scn_cmp);
	s->jobs = arena_alloc(a, (jv.n + 1) * sizeof *s->jobs);
	if (jv.n)
		memcpy(s->jobs, jv.v, jv.n * sizeof *jv.v);
	s->n_jobs = jv.n;
	free(jv.v);
	roll_samples_free(own);
}

const char *const roll_estimator_methods[3] = { "conditional-survival-median", "right-censored-class-median-fallback",
	"sparse-history-one-hour-fallback" };

/* The object json_write_fields writes for keys scenario_job_id, estimated_remaining_seconds,
 * estimator_method, estimator_sample_count (in that order), written directly: no JSON nodes,
 * no per-entry allocation (27,000 entries a scenario at a backlog). */
void roll_estimate_entry_write(struct strbuf *sb, const struct roll_estimate *e)
{
	static const char k0[] = "{\"scenario_job_id\":", k1[] = ",\"estimated_remaining_seconds\":",
			  k2[] = ",\"estimator_method\":", k3[] = ",\"estimator_sample_count\":";
	sb_add(sb, k0, sizeof k0 - 1);
	sb_add_jstr(sb, e->scenario_id, strlen(e->scenario_id));
	sb_add(sb, k1, sizeof k1 - 1);
	sb_add_double(sb, e->estimate);
	sb_add(sb, k2, sizeof k2 - 1);
	sb_add_jstr(sb, e->method, strlen(e->method));
	sb_add(sb, k3, sizeof k3 - 1);
	sb_add_int(sb, e->samples);
	sb_addc(sb, '}');
}

static int double_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static const char *kind_name(enum roll_scn_kind k)
{
	return k == SCN_CARRYOVER ? "carryover" : k == SCN_HISTORY ? "history-replay" : k == SCN_FORECAST ? "forecast-piece" : "actual-future";
}

/* Issue 23: the record listed one estimate per carryover job (5 MB a record at a backlog
 * of 27,000). It keeps their count, the XXH3-128 of the entries (one line ENTRY<LF> each
 * in the state's order, ENTRY as roll_estimate_entry_write writes it) and a fixed-size
 * summary. The queued carryover's initial waits are the observation's current waits; the
 * record keeps their count and an XXH3-128 over "SCENARIO_JOB_ID<TAB>WAIT<LF>" lines in
 * estimate order, waits in Python repr. Computed once per cutoff: every scenario of a
 * decision carries the same. */
static void carry_est_summarize(struct roll_carry_est *ce)
{
	struct strbuf wl;
	struct fp_xxh3 wh, eh;
	double *est = xmalloc((ce->n + 1) * sizeof *est);
	sb_init(&wl);
	fp_xxh3_init(&wh);
	fp_xxh3_init(&eh);
	ce->n_waits = 0;
	for (int m = 0; m < 3; m++)
		ce->by_method[m] = 0;
	for (size_t i = 0; i < ce->n; i++) {
		const struct roll_estimate *e = &ce->est[i];
		sb_reset(&wl);
		roll_estimate_entry_write(&wl, e);
		sb_addc(&wl, '\n');
		fp_xxh3_update(&eh, wl.buf, wl.len);
		est[i] = e->estimate;
		for (int m = 0; m < 3; m++)
			if (!strcmp(e->method, roll_estimator_methods[m]))
				ce->by_method[m]++;
		if (!e->carry->running && e->carry->queue_wait > ROLL_EPS) {
			sb_reset(&wl);
			sb_adds(&wl, e->scenario_id);
			sb_addc(&wl, '\t');
			sb_add_double(&wl, e->carry->queue_wait);
			sb_addc(&wl, '\n');
			fp_xxh3_update(&wh, wl.buf, wl.len);
			ce->n_waits++;
		}
	}
	fp_xxh3_hex(&wh, ce->wait_fp);
	fp_xxh3_release(&wh);
	fp_xxh3_hex(&eh, ce->est_fp);
	fp_xxh3_release(&eh);
	sb_release(&wl);
	qsort(est, ce->n, sizeof *est, double_cmp);
	if (ce->n) {
		ce->min = est[0];
		ce->median = est[(ce->n - 1) / 2];
		ce->max = est[ce->n - 1];
	}
	free(est);
	ce->summarized = true;
}

struct json *roll_scenario_json(struct arena *a, struct roll_scenario *s, const char *trace_id, const char *snapshot_fp,
				const char *projection_fp, long long decision_index)
{
	struct json *o = json_object(a), *x;
	char id[512];
	snprintf(id, sizeof id, "%s-scenario-%lld", trace_id, (long long)s->cut);
	json_set(a, o, "type", json_str(a, "scenario"));
	json_set(a, o, "decision_index", json_int(a, decision_index));
	json_set(a, o, "cutoff_time_seconds", json_real(a, s->cut));
	json_set(a, o, "scenario_profile_id", json_str(a, s->profile_id));
	json_set(a, o, "selection_role", json_str(a, s->stress ? "stress" : "decision"));
	json_set(a, o, "trace_id", json_str(a, id));
	json_set(a, o, "generator", json_str(a, ROLL_SCENARIO_GENERATOR));
	json_set(a, o, "start_state", json_str(a, "live-simulator-state-at-cutoff"));
	json_set(a, o, "horizon_seconds", json_int(a, s->horizon));
	json_set(a, o, "evaluation_window_seconds", x = json_object(a));
	json_set(a, x, "start", json_real(a, s->cut));
	json_set(a, x, "end", json_real(a, s->cut + (double)s->horizon));
	json_set(a, o, "scheduler_snapshot_fingerprint", json_str(a, snapshot_fp));
	json_set(a, o, "future_arrivals_visible", json_bool(a, s->actual_future));
	json_set(a, o, "non_deployable", json_bool(a, s->actual_future));
	json_set(a, o, "carryover_runtime_estimator", json_str(a, "cutoff-visible-conditional-survival-median/v1"));
	/* the carryover's estimates: counts, fingerprints and summary (carry_est_summarize) */
	struct roll_carry_est *ce = s->carry_est;
	if (!ce->summarized)
		carry_est_summarize(ce);
	json_set(a, o, "carryover_runtime_estimate_count", json_int(a, (long long)ce->n));
	json_set(a, o, "carryover_runtime_estimates_fingerprint", json_str(a, ce->est_fp));
	x = json_object(a);
	struct json *bm = json_object(a), *rem = json_object(a);
	for (int m = 0; m < 3; m++)
		json_set(a, bm, roll_estimator_methods[m], json_int(a, ce->by_method[m]));
	json_set(a, x, "job_count_by_estimator_method", bm);
	json_set(a, rem, "minimum", ce->n ? json_real(a, ce->min) : json_null(a));
	json_set(a, rem, "median", ce->n ? json_real(a, ce->median) : json_null(a));
	json_set(a, rem, "maximum", ce->n ? json_real(a, ce->max) : json_null(a));
	json_set(a, x, "estimated_remaining_seconds", rem);
	json_set(a, o, "carryover_runtime_estimate_summary", x);
	json_set(a, o, "initial_queue_wait_job_count", json_int(a, ce->n_waits));
	json_set(a, o, "initial_queue_wait_fingerprint", json_str(a, ce->wait_fp));
	bool forecast = s->decomposition->kind == JSON_ARRAY;
	json_set(a, o, "forecast_derived_hp_jobs", json_bool(a, forecast));
	if (forecast) {
		x = json_object(a);
		json_set(a, x, "method", json_str(a, "cutoff-visible-job-shape-after-carryover/v2"));
		json_set(a, x, "aggregate_demand_preserved", json_bool(a, true));
		json_set(a, x, "surviving_carryover_subtracted_before_decomposition", json_bool(a, true));
		json_set(a, x, "future_job_shapes_visible", json_bool(a, false));
		json_set(a, x, "maximum_jobs_per_forecast_point", json_int(a, ROLL_MAX_PIECES));
		json_set(a, x, "points", s->decomposition);
		json_set(a, o, "forecast_hp_decomposition", x);
	} else
		json_set(a, o, "forecast_hp_decomposition", json_null(a));
	json_set(a, o, "forecast_projection_fingerprint", projection_fp && !s->actual_future ? json_str(a, projection_fp) : json_null(a));
	struct json *jobs = json_array(a);
	long long n_inj = 0;
	for (size_t i = 0; i < s->n_jobs; i++) {
		const struct roll_scn_job *j = &s->jobs[i];
		if (j->kind == SCN_CARRYOVER)
			continue;
		n_inj++;
		x = json_object(a);
		json_set(a, x, "job_id", json_str(a, j->id));
		json_set(a, x, "kind", json_str(a, kind_name(j->kind)));
		json_set(a, x, "submit", json_real(a, j->submit));
		json_set(a, x, "duration", json_real(a, j->duration));
		json_set(a, x, "gpus", json_real(a, j->gpus));
		json_set(a, x, "class", json_str(a, j->hp ? "HP" : "Spot"));
		json_set(a, x, "gpu_model", json_str(a, j->model));
		json_set(a, x, "tenant", j->tenant ? json_str(a, j->tenant) : json_null(a));
		json_push(a, jobs, x);
	}
	json_set(a, o, "injected_job_count", json_int(a, n_inj));
	json_set(a, o, "injected_jobs", jobs);
	ev_self_fp_stamp(a, o, "scenario_fingerprint");
	snprintf(s->fp, sizeof s->fp, "%s", json_get_str(o, "scenario_fingerprint"));
	return o;
}
