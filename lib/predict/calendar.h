/*
 * calendar — civil time of trace times and the workday calendars of the tenant
 * controller (docs/predictive-rules.md §2: calendar china | weekday; docs/tenant-controller.md
 * "Calendar": a static table).
 *
 * Trace times are seconds from the trace time_origin, a naive local time. A civil time
 * is origin + seconds as Python's datetime + timedelta(seconds=x) computes it: the
 * seconds are split into whole seconds and a fraction rounded half-even to
 * microseconds, then added exactly. The weekday counts from Monday = 0.
 *
 * `weekday` calls Monday to Friday workdays. `china` is the table of
 * configs/calendars/china.json (compiled into the library): statutory holidays are
 * rest days, make-up workdays are workdays, any other date of a covered year follows
 * the weekday rule, and a date outside the covered years is an error (never a guess).
 * A calendar owns its tables; pc_cal_release frees them. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_CALENDAR_H
#define SCHEDNAV_PREDICT_CALENDAR_H
#define PC_CALENDAR_SCHEMA "schednav.workday-calendar/1"
#include "core/fp.h"
#include <stdbool.h>
#include <stddef.h>

struct pc_cal_origin {
	long long days;            /* days from 1970-01-01 (proleptic Gregorian) */
	long long micros;          /* microseconds into that day */
};

struct pc_cal_time {
	int year, month, day;
	int hour, minute;
	int weekday;               /* 0 = Monday ... 6 = Sunday */
};

/* Parse an ISO 8601 time_origin (YYYY-MM-DD or YYYYMMDD, optionally a separator and
 * HH[:MM[:SS[.ffffff]]] or HHMM[SS]; a Z or ±HH:MM suffix is ignored: the clock is
 * naive). 0, or -1 when s is not such a date-time. */
int pc_cal_origin_parse(const char *s, struct pc_cal_origin *out);
/* origin + seconds as a civil time. -1 when seconds is not finite or out of range. */
int pc_cal_civil(const struct pc_cal_origin *origin, double seconds, struct pc_cal_time *out);
/* Days from 1970-01-01 of a valid civil date (no checks). */
long long pc_cal_days_from_civil(int year, int month, int day);

struct pc_calendar {
	char name[16];             /* "china" or "weekday" */
	bool table;                /* false: the plain weekday rule everywhere */
	int *years;                /* covered years, increasing */
	size_t n_years;
	long long *holidays;       /* days from 1970-01-01, increasing */
	size_t n_holidays;
	long long *makeup;         /* make-up workdays, increasing */
	size_t n_makeup;
	char fingerprint[FP_HEX_SHA256]; /* SHA-256 of the table file's bytes; "" for weekday */
};

/* Load the calendar a controller config names: "china" (the built-in table) or
 * "weekday". 0, or -1 with a message. */
int pc_cal_load(struct pc_calendar *c, const char *name, char *err, size_t errlen);
/* Load a table from the bytes of a schednav.workday-calendar/1 JSON document: every
 * date valid, inside a listed year, each list increasing and without duplicates, no
 * date in both lists, every make-up workday a Saturday or Sunday. */
int pc_cal_load_table(struct pc_calendar *c, const char *text, size_t len, char *err, size_t errlen);
void pc_cal_release(struct pc_calendar *c);
/* Whether the date of t is a workday. 0, or -1 when the table does not cover its year. */
int pc_cal_is_workday(const struct pc_calendar *c, const struct pc_cal_time *t, bool *workday, char *err, size_t errlen);
/* Check that every date from origin + from to origin + to (seconds) is covered. */
int pc_cal_check_span(const struct pc_calendar *c, const struct pc_cal_origin *origin, double from, double to,
                   char *err, size_t errlen);

/* The built-in china table (generated at build time from configs/calendars/china.json). */
extern const unsigned char calendar_china_json[];
extern const size_t calendar_china_json_len;
#endif
