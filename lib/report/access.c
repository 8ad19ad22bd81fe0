/* The report's JSON accessors (report/report.h): a number or a string of a record, a string in
 * an array. The base every other file of lib/report may use; it uses none of them. */
#include "report/report.h"
#include <math.h>
#include <string.h>

double rp_num(const struct json *rec, const char *key)
{
	const struct json *v = json_get(rec, key);
	return v && json_is_num(v) ? json_num(v) : NAN;
}

const char *rp_str(const struct json *rec, const char *key)
{
	const struct json *v = json_get(rec, key);
	return v && v->kind == JSON_STRING ? v->u.str.s : NULL;
}

bool rp_json_has_str(const struct json *arr, const char *s)
{
	if (!arr || arr->kind != JSON_ARRAY || !s)
		return false;
	for (size_t i = 0; i < arr->u.arr.n; i++) {
		const struct json *v = arr->u.arr.items[i];
		if (v->kind == JSON_STRING && !strcmp(v->u.str.s, s))
			return true;
	}
	return false;
}
