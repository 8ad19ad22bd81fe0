#include "predict/calendar.h"
#include "core/arena.h"
#include "core/json.h"
#include "core/ndjson.h"
#include "core/xalloc.h"
#include "trace/export.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US_PER_DAY 86400000000LL

static int two(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Howard Hinnant's days_from_civil: exact for every proleptic Gregorian date. */
long long pc_cal_days_from_civil(int year, int month, int day)
{
	long long y = (long long)year - (month <= 2);
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(long long z, int *year, int *month, int *day)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long y = yoe + era * 400;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	*day = (int)(doy - (153 * mp + 2) / 5 + 1);
	*month = (int)(mp < 10 ? mp + 3 : mp - 9);
	*year = (int)(y + (*month <= 2));
}

int pc_cal_origin_parse(const char *s, struct pc_cal_origin *out)
{
	if (!s || !trace_iso_time_valid(s))
		return -1;
	size_t n = strlen(s), p;
	int y, mo, d;
	if (s[4] == '-') {
		y = two(s) * 100 + two(s + 2), mo = two(s + 5), d = two(s + 8);
		p = 10;
	} else {
		y = two(s) * 100 + two(s + 2), mo = two(s + 4), d = two(s + 6);
		p = 8;
	}
	long long hh = 0, mm = 0, ss = 0, us = 0;
	if (p < n) {
		p++;
		while (p < n && ((unsigned char)s[p] & 0xC0) == 0x80) /* rest of a UTF-8 separator */
			p++;
		hh = two(s + p);
		p += 2;
		for (int part = 0; part < 2 && p < n; part++) {
			if (s[p] == ':')
				p++;
			if (p + 1 >= n || !is_digit(s[p]) || !is_digit(s[p + 1]))
				break;
			if (part)
				ss = two(s + p);
			else
				mm = two(s + p);
			p += 2;
		}
		if (p < n && (s[p] == '.' || s[p] == ',')) {
			p++;
			long long scale = 100000;
			for (; p < n && is_digit(s[p]); p++) {
				if (scale) /* digits beyond the sixth are truncated, as fromisoformat does */
					us += (s[p] - '0') * scale;
				scale /= 10;
			}
		}
	}
	out->days = pc_cal_days_from_civil(y, mo, d);
	out->micros = ((hh * 60 + mm) * 60 + ss) * 1000000 + us;
	return 0;
}

int pc_cal_civil(const struct pc_cal_origin *origin, double seconds, struct pc_cal_time *out)
{
	if (!isfinite(seconds) || fabs(seconds) > 1e13)
		return -1;
	double whole = trunc(seconds);
	double frac_us = (seconds - whole) * 1e6;
	long long us = (long long)whole * 1000000 + (long long)nearbyint(frac_us); /* half-even, as timedelta */
	long long total = origin->micros + us;
	long long day = origin->days + (total >= 0 ? total / US_PER_DAY : -((-total + US_PER_DAY - 1) / US_PER_DAY));
	long long in_day = total - (day - origin->days) * US_PER_DAY;
	civil_from_days(day, &out->year, &out->month, &out->day);
	out->hour = (int)(in_day / 3600000000LL);
	out->minute = (int)(in_day / 60000000LL % 60);
	long long wd = (day + 3) % 7; /* 1970-01-01 was a Thursday */
	out->weekday = (int)(wd < 0 ? wd + 7 : wd);
	return 0;
}

/* ---- tables ---- */

void pc_cal_release(struct pc_calendar *c)
{
	free(c->years);
	free(c->holidays);
	free(c->makeup);
	memset(c, 0, sizeof *c);
}

static bool parse_date(const char *s, size_t len, int *y, int *m, int *d)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (len != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !is_digit(s[i]))
			return false;
	*y = two(s) * 100 + two(s + 2), *m = two(s + 5), *d = two(s + 8);
	if (*y < 1 || *m < 1 || *m > 12 || *d < 1)
		return false;
	int md = mdays[*m - 1] + (*m == 2 && ((*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0));
	return *d <= md;
}

static bool covered(const struct pc_calendar *c, int year)
{
	for (size_t i = 0; i < c->n_years; i++)
		if (c->years[i] == year)
			return true;
	return false;
}

/* One date list: an object year -> array of "YYYY-MM-DD", concatenated in key order. */
static int load_dates(struct pc_calendar *c, const struct json *obj, const char *what, bool weekend_only,
                      long long **out, size_t *n_out, char *err, size_t errlen)
{
	if (!obj || obj->kind != JSON_OBJECT) {
		snprintf(err, errlen, "calendar '%s': '%s' must be an object of year -> dates", c->name, what);
		return -1;
	}
	size_t total = 0;
	for (size_t i = 0; i < obj->u.obj.n; i++) {
		const struct json *a = obj->u.obj.vals[i];
		if (a->kind != JSON_ARRAY) {
			snprintf(err, errlen, "calendar '%s': '%s.%s' must be an array of dates", c->name, what, obj->u.obj.keys[i]);
			return -1;
		}
		total += a->u.arr.n;
	}
	long long *v = xmalloc((total ? total : 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < obj->u.obj.n; i++) {
		const struct json *a = obj->u.obj.vals[i];
		for (size_t j = 0; j < a->u.arr.n; j++) {
			const struct json *e = a->u.arr.items[j];
			int y, m, d;
			if (e->kind != JSON_STRING || !parse_date(e->u.str.s, e->u.str.len, &y, &m, &d)) {
				snprintf(err, errlen, "calendar '%s': '%s.%s' holds a value that is not a YYYY-MM-DD date", c->name, what,
				         obj->u.obj.keys[i]);
				free(v);
				return -1;
			}
			long long day = pc_cal_days_from_civil(y, m, d);
			int wd = (int)(((day + 3) % 7 + 7) % 7);
			if (!covered(c, y)) {
				snprintf(err, errlen, "calendar '%s': %s date '%s' is outside the covered years", c->name, what, e->u.str.s);
				free(v);
				return -1;
			}
			if (weekend_only && wd < 5) {
				snprintf(err, errlen, "calendar '%s': make-up workday '%s' is not a Saturday or Sunday", c->name, e->u.str.s);
				free(v);
				return -1;
			}
			if (n && day <= v[n - 1]) {
				snprintf(err, errlen, "calendar '%s': %s dates must increase without duplicates at '%s'", c->name, what,
				         e->u.str.s);
				free(v);
				return -1;
			}
			v[n++] = day;
		}
	}
	*out = v;
	*n_out = n;
	return 0;
}

static bool member(const long long *v, size_t n, long long day)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < day)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == day;
}

int pc_cal_load_table(struct pc_calendar *c, const char *text, size_t len, char *err, size_t errlen)
{
	struct arena a;
	struct json *doc;
	char jerr[200];
	int rc = -1;
	memset(c, 0, sizeof *c);
	arena_init(&a);
	if (json_parse(&a, text, len, &doc, jerr, sizeof jerr) || doc->kind != JSON_OBJECT) {
		snprintf(err, errlen, "calendar table is not a JSON object");
		goto out;
	}
	static const char *const keys[] = { "schema_version", "calendar", "description", "source", "years", "holidays",
		                            "makeup_workdays", NULL };
	for (size_t i = 0; i < doc->u.obj.n; i++) {
		bool known = false;
		for (const char *const *k = keys; *k; k++)
			known |= !strcmp(*k, doc->u.obj.keys[i]);
		if (!known) {
			snprintf(err, errlen, "calendar table has unknown key '%s'", doc->u.obj.keys[i]);
			goto out;
		}
	}
	const struct json *sv = json_get(doc, "schema_version"), *name = json_get(doc, "calendar"),
	                  *src = json_get(doc, "source"), *years = json_get(doc, "years");
	if (!sv || sv->kind != JSON_STRING || !nd_schema_is(sv->u.str.s, PC_CALENDAR_SCHEMA)) {
		snprintf(err, errlen, "calendar table needs schema_version '" PC_CALENDAR_SCHEMA "'");
		goto out;
	}
	if (!name || name->kind != JSON_STRING || !name->u.str.len || name->u.str.len >= sizeof c->name ||
	    !strcmp(name->u.str.s, "weekday")) {
		snprintf(err, errlen, "calendar table needs a short 'calendar' name other than 'weekday'");
		goto out;
	}
	memcpy(c->name, name->u.str.s, name->u.str.len + 1);
	if (!src || src->kind != JSON_STRING || !src->u.str.len) {
		snprintf(err, errlen, "calendar '%s': 'source' must name where the table comes from", c->name);
		goto out;
	}
	if (!years || years->kind != JSON_ARRAY || !years->u.arr.n) {
		snprintf(err, errlen, "calendar '%s': 'years' must be a non-empty array", c->name);
		goto out;
	}
	c->years = xmalloc(years->u.arr.n * sizeof *c->years);
	for (size_t i = 0; i < years->u.arr.n; i++) {
		const struct json *y = years->u.arr.items[i];
		if (y->kind != JSON_INT || y->u.i < 1 || y->u.i > 9999 || (i && y->u.i <= c->years[i - 1])) {
			snprintf(err, errlen, "calendar '%s': 'years' must be increasing integers", c->name);
			goto out;
		}
		c->years[c->n_years++] = (int)y->u.i;
	}
	if (load_dates(c, json_get(doc, "holidays"), "holidays", false, &c->holidays, &c->n_holidays, err, errlen) ||
	    load_dates(c, json_get(doc, "makeup_workdays"), "makeup_workdays", true, &c->makeup, &c->n_makeup, err, errlen))
		goto out;
	for (size_t i = 0; i < c->n_makeup; i++)
		if (member(c->holidays, c->n_holidays, c->makeup[i])) {
			snprintf(err, errlen, "calendar '%s': a date is both a holiday and a make-up workday", c->name);
			goto out;
		}
	c->table = true;
	fp_sha256_of(text, len, c->fingerprint);
	rc = 0;
out:
	arena_release(&a);
	if (rc)
		pc_cal_release(c);
	return rc;
}

int pc_cal_load(struct pc_calendar *c, const char *name, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (!strcmp(name, "weekday")) {
		strcpy(c->name, "weekday");
		return 0;
	}
	if (!strcmp(name, "china"))
		return pc_cal_load_table(c, (const char *)calendar_china_json, calendar_china_json_len, err, errlen);
	snprintf(err, errlen, "unknown business calendar '%s' (china or weekday)", name);
	return -1;
}

int pc_cal_is_workday(const struct pc_calendar *c, const struct pc_cal_time *t, bool *workday, char *err, size_t errlen)
{
	if (!c->table) {
		*workday = t->weekday < 5;
		return 0;
	}
	if (!covered(c, t->year)) {
		snprintf(err, errlen, "calendar '%s' covers %d-%d, not %04d-%02d-%02d: copy the controller config and set "
			 "\"business_calendar\": \"weekday\" in the copy (as configs/controllers/schednav-tenant-linear-v2-weekday.json "
			 "does for schednav-tenant-linear-v2.json)", c->name,
		         c->years[0], c->years[c->n_years - 1], t->year, t->month, t->day);
		return -1;
	}
	long long day = pc_cal_days_from_civil(t->year, t->month, t->day);
	if (member(c->makeup, c->n_makeup, day))
		*workday = true;
	else
		*workday = t->weekday < 5 && !member(c->holidays, c->n_holidays, day);
	return 0;
}

int pc_cal_check_span(const struct pc_calendar *c, const struct pc_cal_origin *origin, double from, double to,
                   char *err, size_t errlen)
{
	struct pc_cal_time a, b;
	if (!c->table)
		return 0;
	if (pc_cal_civil(origin, from, &a) || pc_cal_civil(origin, to, &b)) {
		snprintf(err, errlen, "calendar '%s': trace time out of range", c->name);
		return -1;
	}
	bool w;
	for (int y = a.year; y <= b.year; y++) {
		struct pc_cal_time t = { .year = y, .month = y == a.year ? a.month : 1, .day = y == a.year ? a.day : 1 };
		if (pc_cal_is_workday(c, &t, &w, err, errlen))
			return -1;
	}
	return 0;
}
