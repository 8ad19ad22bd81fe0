/* The control_decision records read back by family (predict.h "pc_decision_reader"): the
 * table's dispatch and the pieces every family's reader shares. */
#include "predict/predict.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

double pc_decision_num(const struct json *o, const char *key)
{
	const struct json *v = o ? json_get(o, key) : NULL;
	return v && json_is_num(v) && isfinite(json_num(v)) ? json_num(v) : NAN;
}

double pc_decision_first_quota(const struct json *q)
{
	return q && q->kind == JSON_OBJECT && q->u.obj.n ? pc_decision_num(q, q->u.obj.keys[0]) : NAN;
}

const struct json *pc_decision_step1(const struct json *points, const char *pool)
{
	if (!points || points->kind != JSON_ARRAY)
		return NULL;
	for (size_t i = 0; i < points->u.arr.n; i++) {
		const struct json *pt = points->u.arr.items[i];
		const struct json *p = json_get(pt, "resource_pool");
		const char *ps = p && p->kind == JSON_STRING ? p->u.str.s : NULL;
		if (pc_decision_num(pt, "horizon_step") == 1 && (!pool || (ps && !strcmp(ps, pool))))
			return pt;
	}
	return NULL;
}

void pc_decision_forecast(const struct json *rec, const char *pool, struct pc_decision_point *x)
{
	const struct json *pt = pc_decision_step1(json_get(rec, "points"), pool);
	x->target = pc_decision_num(pt, "target_time_seconds");
	x->mu = pc_decision_num(pt, "mu_gpus");
	x->q = pc_decision_num(pt, "guarantee_quantile_gpus");
}

const struct pc_decision_reader *pc_decision_reader_of(const struct json *rec, char *err, size_t errlen)
{
	for (size_t i = 0; i < pc_n_families; i++) {
		const struct pc_decision_reader *d = pc_families[i]->decision_reader;
		int k = d ? d->shape(rec, err, errlen) : 0;
		if (k < 0)
			return NULL;
		if (k > 0)
			return d;
	}
	snprintf(err, errlen, "'control_decision' record: of no controller family's shape");
	return NULL;
}
