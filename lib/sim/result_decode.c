/* The result stream's per-record decoders (see result_read.h): the fields of one job, run,
 * preemption or cluster record, for the strict reader (result_read.c, after its key-set and
 * range checks) and for report's lenient model (lib/report/model.c). Errors are
 * "PATH:LINE: 'TYPE' record: ..." through the caller's reader. */
#include "sim/result_read.h"
#include <math.h>
#include <string.h>

static const char *rec_type(const struct json *rec)
{
	const struct json *t = json_get(rec, "type");
	return t && t->kind == JSON_STRING ? t->u.str.s : "?";
}

/* A required number (int or real), finite (result_read.h). */
int result_field_num(struct nd_reader *r, const struct json *rec, const char *key, double *out, char *err, size_t errlen)
{
	const struct json *v = json_get(rec, key);
	if (!v || !json_is_num(v)) {
		ndr_errorf(r, err, errlen, "'%s' record: '%s' is %s, expected a number", rec_type(rec), key,
			   v ? json_kind_name(v->kind) : "missing");
		return -1;
	}
	*out = json_num(v);
	if (!isfinite(*out)) {
		ndr_errorf(r, err, errlen, "'%s' record: '%s' is not finite", rec_type(rec), key);
		return -1;
	}
	return 0;
}

/* A number that may be null (NAN then) when lenient. */
static int time_num(struct nd_reader *r, const struct json *rec, const char *key, unsigned flags, double *out, char *err, size_t errlen)
{
	const struct json *v = json_get(rec, key);
	if ((flags & RESULT_LENIENT) && v && v->kind == JSON_NULL) {
		*out = NAN;
		return 0;
	}
	return result_field_num(r, rec, key, out, err, errlen);
}

/* A required string (result_read.h). */
int result_field_str(struct nd_reader *r, const struct json *rec, const char *key, const char **out, char *err, size_t errlen)
{
	const struct json *v = json_get(rec, key);
	if (!v || v->kind != JSON_STRING) {
		ndr_errorf(r, err, errlen, "'%s' record: '%s' is missing or not a string", rec_type(rec), key);
		return -1;
	}
	*out = v->u.str.s;
	return 0;
}

int result_decode_job(struct nd_reader *r, const struct json *rec, unsigned flags, struct result_job_fields *out, char *err,
		      size_t errlen)
{
	const char *cls;
	if (result_field_str(r, rec, "job_id", &out->id, err, errlen) || result_field_str(r, rec, "service_class", &cls, err, errlen) ||
	    result_field_num(r, rec, "submit_time_seconds", &out->submit, err, errlen) ||
	    time_num(r, rec, "start_time_seconds", flags, &out->start, err, errlen) ||
	    time_num(r, rec, "completion_time_seconds", flags, &out->completion, err, errlen) ||
	    result_field_num(r, rec, "gpu_count", &out->gpus, err, errlen))
		return -1;
	if (strcmp(cls, "HP") && strcmp(cls, "Spot")) {
		ndr_errorf(r, err, errlen, "'%s' record: unknown service class '%s'", rec_type(rec), cls);
		return -1;
	}
	out->hp = !strcmp(cls, "HP");
	const struct json *pop = json_get(rec, "evaluation_population");
	out->eval_pop = !pop || pop->kind != JSON_FALSE;
	return 0;
}

int result_decode_run(struct nd_reader *r, const struct json *rec, struct result_run_fields *out, char *err, size_t errlen)
{
	if (result_field_str(r, rec, "job_id", &out->id, err, errlen) || result_field_num(r, rec, "start_time_seconds", &out->start, err, errlen) ||
	    result_field_num(r, rec, "end_time_seconds", &out->end, err, errlen) || result_field_str(r, rec, "end_reason", &out->reason, err, errlen))
		return -1;
	out->preempted = !strcmp(out->reason, "preempted");
	return 0;
}

int result_decode_preemption(struct nd_reader *r, const struct json *rec, struct result_preemption_fields *out, char *err,
			     size_t errlen)
{
	if (result_field_num(r, rec, "time_seconds", &out->time, err, errlen))
		return -1;
	const struct json *v = json_get(rec, "preempted_job_id");
	out->victim = v && v->kind == JSON_STRING ? v->u.str.s : NULL;
	return 0;
}

int result_decode_cluster(struct nd_reader *r, const struct json *rec, struct result_cluster_fields *out, char *err, size_t errlen)
{
	return result_field_num(r, rec, "capacity_gpus", &out->capacity, err, errlen) ||
			       result_field_num(r, rec, "simulation_start", &out->start, err, errlen) ||
			       result_field_num(r, rec, "simulation_end", &out->end, err, errlen)
		       ? -1
		       : 0;
}
