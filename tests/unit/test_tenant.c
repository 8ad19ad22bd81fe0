/* Unit tests for the tenant controller's pieces in lib/predict: the calendar, the minute
 * history with its offset-aligned hourly maxima and train/validation split, the
 * split-conformal rank, the quota rule and the η law (docs/predictive-rules.md §2,
 * docs/tenant-controller.md "The estimators"), and the
 * two estimators (bit-reproducible, incremental = from scratch). */
#include "core/fp.h"
#include "core/num.h"
#include "predict/calendar.h"
#include "predict/tenant/estimator_internal.h"
#include "core/arena.h"
#include "core/die.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "predict/tenant/tenant_config.h"
#include "predict/tenant/tenant_controller.h"
#include "predict/tenant/tenant_history.h"
#include "predict/predict.h"
#include "predict/tenant/tenant_feedback.h"
#include "trace/trace.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static char err[512];

/* ---- calendar ---- */

static void civil_case(const char *origin, double seconds, int y, int mo, int d, int hour, int weekday)
{
	struct pc_cal_origin o;
	struct pc_cal_time t;
	CHECK(!pc_cal_origin_parse(origin, &o), "origin '%s' rejected", origin);
	CHECK(!pc_cal_civil(&o, seconds, &t), "civil of %s + %.17g failed", origin, seconds);
	CHECK(t.year == y && t.month == mo && t.day == d && t.hour == hour && t.weekday == weekday,
	      "%s + %.17g: got %04d-%02d-%02d %02dh wd %d, want %04d-%02d-%02d %02dh wd %d", origin, seconds, t.year, t.month,
	      t.day, t.hour, t.weekday, y, mo, d, hour, weekday);
}

static int workday_of(const struct pc_calendar *c, int y, int m, int d)
{
	struct pc_cal_origin o = { .days = pc_cal_days_from_civil(y, m, d), .micros = 0 };
	struct pc_cal_time t;
	bool w;
	pc_cal_civil(&o, 0, &t);
	if (pc_cal_is_workday(c, &t, &w, err, sizeof err))
		return -1;
	return w;
}

static const char *bad_table(const char *holidays, const char *makeup)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		"{\"schema_version\":\"schednav.workday-calendar/1\",\"calendar\":\"t\",\"source\":\"test\",\"years\":[2024],"
		"\"holidays\":{\"2024\":[%s]},\"makeup_workdays\":{\"2024\":[%s]}}", holidays, makeup);
	return buf;
}

static void test_calendar(void)
{
	/* expected values from Python: datetime.fromisoformat(origin) + timedelta(seconds=s) */
	civil_case("2024-03-01 00:00:00", 0, 2024, 3, 1, 0, 4);
	civil_case("2024-03-01 00:00:00", 309599.9999996, 2024, 3, 4, 14, 0);   /* microseconds round up */
	civil_case("2026-03-01T12:00:00", -46800, 2026, 2, 28, 23, 5);
	civil_case("20240301", 31622400, 2025, 3, 2, 0, 6);
	civil_case("2024-03-01 23:59:59.5", 0.5, 2024, 3, 2, 0, 5);
	civil_case("1970-01-01 00:00:00", -1, 1969, 12, 31, 23, 2);
	civil_case("2024-03-01 00:00:00", 15897599.9999996, 2024, 9, 1, 0, 6);
	struct pc_cal_origin o;
	CHECK(pc_cal_origin_parse("2024-13-01 00:00:00", &o), "month 13 accepted");
	CHECK(pc_cal_origin_parse("yesterday", &o), "junk origin accepted");

	struct pc_calendar china, weekday;
	CHECK(!pc_cal_load(&china, "china", err, sizeof err), "china: %s", err);
	CHECK(!pc_cal_load(&weekday, "weekday", err, sizeof err), "weekday: %s", err);
	CHECK(pc_cal_load(&weekday, "lunar", err, sizeof err) && strstr(err, "'lunar'"), "unknown calendar accepted");
	pc_cal_load(&weekday, "weekday", err, sizeof err);
	CHECK(china.table && china.n_years >= 9 && china.years[0] <= 2017 && china.years[china.n_years - 1] >= 2025,
	      "china covers %d-%d", china.years[0], china.years[china.n_years - 1]);
	/* 2024 (the v2026 spot trace's year): Spring Festival 10-17 Feb, make-up Sun 4 and 18 Feb */
	CHECK(workday_of(&china, 2024, 2, 12) == 0, "2024-02-12 (Mon, Spring Festival) is a workday");
	CHECK(workday_of(&china, 2024, 2, 18) == 1, "2024-02-18 (Sun, make-up) is not a workday");
	CHECK(workday_of(&china, 2024, 2, 4) == 1, "2024-02-04 (Sun, make-up) is not a workday");
	CHECK(workday_of(&china, 2024, 3, 4) == 1, "2024-03-04 (plain Monday) is not a workday");
	CHECK(workday_of(&china, 2024, 3, 2) == 0, "2024-03-02 (plain Saturday) is a workday");
	CHECK(workday_of(&china, 2024, 4, 4) == 0, "2024-04-04 (Qingming) is a workday");
	CHECK(workday_of(&china, 2024, 4, 7) == 1, "2024-04-07 (Sun, make-up) is not a workday");
	CHECK(workday_of(&china, 2024, 5, 3) == 0, "2024-05-03 (Labour Day) is a workday");
	CHECK(workday_of(&china, 2024, 5, 11) == 1, "2024-05-11 (Sat, make-up) is not a workday");
	CHECK(workday_of(&china, 2024, 6, 10) == 0, "2024-06-10 (Dragon Boat) is a workday");
	CHECK(workday_of(&china, 2024, 9, 14) == 1, "2024-09-14 (Sat, make-up) is not a workday");
	CHECK(workday_of(&china, 2024, 10, 7) == 0, "2024-10-07 (National Day) is a workday");
	CHECK(workday_of(&china, 2023, 12, 31) == 0, "2023-12-31 is a workday");
	CHECK(workday_of(&china, 2020, 1, 31) == 0, "2020-01-31 (extended Spring Festival) is a workday");
	CHECK(workday_of(&china, 2019, 5, 5) == 1, "2019-05-05 (Sun, revised make-up) is not a workday");
	CHECK(workday_of(&weekday, 2024, 2, 12) == 1, "weekday: a Monday is not a workday");
	CHECK(workday_of(&weekday, 2024, 2, 18) == 0, "weekday: a Sunday is a workday");
	CHECK(workday_of(&china, 1970, 1, 5) == -1 && strstr(err, "covers") && strstr(err, "weekday"),
	      "china answered for 1970 (%s)", err);
	CHECK(workday_of(&weekday, 1970, 1, 5) == 1, "weekday: 1970-01-05 (Mon)");
	struct pc_cal_origin o24;
	pc_cal_origin_parse("2024-03-01 00:00:00", &o24);
	CHECK(!pc_cal_check_span(&china, &o24, 0, 184 * 86400.0, err, sizeof err), "2024 span: %s", err);
	CHECK(pc_cal_check_span(&china, &o24, 0, 20 * 365 * 86400.0, err, sizeof err), "2044 accepted");
	/* the built-in table is the file in configs/ (when the test runs from the tree) */
	FILE *f = fopen("configs/calendars/china.json", "rb");
	if (f) {
		static char buf[1 << 16];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		char hex[FP_HEX_SHA256];
		fp_sha256_of(buf, n, hex);
		CHECK(!strcmp(hex, china.fingerprint), "built-in china table differs from configs/calendars/china.json");
	}
	/* the loader refuses broken tables */
	struct pc_calendar t;
	CHECK(!pc_cal_load_table(&t, bad_table("\"2024-02-12\"", "\"2024-02-18\""), strlen(bad_table("\"2024-02-12\"", "\"2024-02-18\"")), err, sizeof err),
	      "good table refused: %s", err);
	pc_cal_release(&t);
	/* the id's old spelling (workday-calendar/v1) is read too; another one is refused, naming the new id */
	{
		static char old[1024];
		const char *doc = bad_table("\"2024-02-12\"", "\"2024-02-18\"");
		const char *at = strstr(doc, "calendar/1\"");
		snprintf(old, sizeof old, "%.*sv%s", (int)(at - doc + strlen("calendar/")), doc, at + strlen("calendar/"));
		CHECK(strstr(old, "\"schednav.workday-calendar/v1\"") != NULL, "old spelling not made: %s", old);
		CHECK(!pc_cal_load_table(&t, old, strlen(old), err, sizeof err), "old spelling refused: %s", err);
		pc_cal_release(&t);
		char *v2 = strstr(old, "calendar/v1\"");
		v2[strlen("calendar/v")] = '2';
		CHECK(pc_cal_load_table(&t, old, strlen(old), err, sizeof err) &&
		      !strcmp(err, "calendar table needs schema_version 'schednav.workday-calendar/1'"), "/v2 not refused: '%s'", err);
	}
	const char *cases[][3] = {
		{ "\"2024-02-12\"", "\"2024-02-19\"", "not a Saturday or Sunday" },
		{ "\"2024-02-13\",\"2024-02-12\"", "", "increase" },
		{ "\"2024-02-18\"", "\"2024-02-18\"", "both" },
		{ "\"2025-01-01\"", "", "outside" },
		{ "\"2024-02-30\"", "", "not a YYYY-MM-DD" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *doc = bad_table(cases[i][0], cases[i][1]);
		CHECK(pc_cal_load_table(&t, doc, strlen(doc), err, sizeof err) && strstr(err, cases[i][2]),
		      "bad table %zu: got '%s'", i, err);
	}
	pc_cal_release(&china);
	pc_cal_release(&weekday);
}

/* ---- history ---- */

static double pattern(size_t n, size_t series)
{
	/* piecewise constant with changes at odd times, so every block sees a different max */
	return (double)((n * 7 + series * 13) % 23 / 3) + 0.25 * (double)series;
}

/* The index of series s at offset o against the maxima and prefix sums added in double
 * straight from the samples v[0..N) (the representation the index held before int32). */
static bool index_matches(const struct pt_history *h, size_t s, const double *v, size_t N)
{
	for (int o = 0; o < h->n_offsets; o++) {
		struct pt_hist_vals x = pt_hist_hourly(h, s, (size_t)o), P = pt_hist_prefix(h, s, (size_t)o);
		double sum = 0;
		if (memcmp(&(double){ pt_hv_at(P, 0) }, &sum, sizeof sum))
			return false;
		for (size_t j = 0; j < h->n_blocks[o]; j++) {
			size_t off = (size_t)o * (size_t)h->stride_points;
			double m = 0;
			for (size_t n = off + 60 * j; n < off + 60 * j + 60 && n < N; n++)
				m = v[n] > m ? v[n] : m;
			sum += m;
			double got = pt_hv_at(x, j), gotp = pt_hv_at(P, j + 1);
			if (memcmp(&got, &m, sizeof m) || memcmp(&gotp, &sum, sizeof sum) ||
			    pt_hv_at(pt_hv_from(x, j), 0) != got || pt_hv_at(pt_hv_from(P, j + 1), 0) != gotp)
				return false;
		}
	}
	return true;
}

/* Whole GPU counts are held as int32, read back as the same doubles; a half GPU rescales the
 * index to halves; a value finer than 2^-30 or a prefix sum past INT32_MAX turns the whole
 * index to double, still the same doubles. */
static void test_history_int_index(void)
{
	const char *pools[] = { "P" };
	enum { N = 60 * 6 + 17 };
	double v[3][N];
	/* per mode: int32 at the end, its scale, the sample that widened it (N: none) */
	const struct { bool int_index; int scale_exp; size_t widened_at; } want[] = {
		{ true, 0, N }, { true, 1, N }, { false, 0, 204 }, { false, 1, 164 }, { false, 1, 264 },
	};
	for (int mode = 0; mode < 5; mode++) {
		struct pt_history h, k;
		CHECK(!pt_hist_init(&h, 0, 60, 60, 5, pools, 1, err, sizeof err), "init: %s", err);
		CHECK(h.int_index, "a new index is int32");
		size_t s[2];
		pt_hist_series_index(&h, "P", "t0", &s[0], err, sizeof err);
		size_t widened_at = N;
		for (size_t n = 0; n < N; n++) {
			if (n == 70)
				pt_hist_series_index(&h, "P", "t1", &s[1], err, sizeof err);
			v[0][n] = pattern(n, 0);
			v[1][n] = n >= 70 ? (double)((n * 5) % 17) : 0;
			/* mode 1: one half GPU in the third hour (block max: 20.5 GPUs); mode 2: a
			 * block maximum of 2^30 twice, so the prefix sum passes INT32_MAX on the
			 * second; mode 3: halves, then 20.1 (no power-of-two scale up to 2^-30 holds
			 * it); mode 4: halves, then 2^29 twice (2^30 halves each, past INT32_MAX
			 * as halves on the second, in a later hour than the halves) */
			if ((mode == 1 || mode == 3 || mode == 4) && n == 100)
				v[1][n] = 20.5;
			if (mode == 2 && (n == 140 || n == 200))
				v[0][n] = 1073741824.0;
			if (mode == 3 && n == 150)
				v[1][n] = 20.1;
			if (mode == 4 && (n == 200 || n == 260))
				v[0][n] = 536870912.0;
			pt_hist_set(&h, s[0], v[0][n]);
			if (n >= 70)
				pt_hist_set(&h, s[1], v[1][n]);
			CHECK(!pt_hist_sample(&h, 60.0 * (double)n, err, sizeof err), "sample %zu: %s", n, err);
			if (!h.int_index && widened_at == N)
				widened_at = n;
			if (n == 130) {
				pt_hist_clone(&k, &h, err, sizeof err);
				CHECK(k.int_index == h.int_index && index_matches(&k, s[0], v[0], n + 1), "clone of the index");
				pt_hist_release(&k);
			}
		}
		CHECK(h.int_index == want[mode].int_index && widened_at == want[mode].widened_at &&
		      h.scale_exp == want[mode].scale_exp, "mode %d: int32 %d, 2^-%d, widened at %zu", mode, h.int_index,
		      h.scale_exp, widened_at);
		for (int q = 0; q < 2; q++)
			CHECK(index_matches(&h, s[q], v[q], N), "mode %d series %d: index differs from the doubles", mode, q);
		pt_hist_release(&h);
	}
}

static void test_history(void)
{
	struct pt_history h;
	const char *pools[] = { "V100", "A100" };
	CHECK(!pt_hist_init(&h, 100, 60, 60, 5, pools, 2, err, sizeof err), "init: %s", err);
	CHECK(!strcmp(h.pools[0], "A100") && h.n_offsets == 12, "pools sorted / 12 offsets");
	size_t a, b, c;
	CHECK(!pt_hist_series_index(&h, "A100", "t2", &a, err, sizeof err), "register");
	CHECK(pt_hist_series_index(&h, "H100", "t1", &b, err, sizeof err) && strstr(err, "'H100'"), "unknown pool accepted");
	CHECK(pt_hist_series_index(&h, "A100", "bad\ttenant", &b, err, sizeof err), "control character accepted");
	size_t N = 60 * 5 + 37, late = 131;
	double *v0 = calloc(N, sizeof *v0), *v1 = calloc(N, sizeof *v1), *v2 = calloc(N, sizeof *v2);
	for (size_t n = 0; n < N; n++) {
		if (n == late) {
			CHECK(!pt_hist_series_index(&h, "A100", "t1", &b, err, sizeof err), "register late");
			CHECK(!pt_hist_series_index(&h, "V100", "t1", &c, err, sizeof err), "register late 2");
		}
		v0[n] = pattern(n, 0);
		pt_hist_set(&h, a, 99);  /* overwritten before the sample: never observed */
		pt_hist_set(&h, a, v0[n]);
		if (n >= late) {
			v1[n] = pattern(n, 1);
			v2[n] = n % 60 == 30 ? 5 : 0;
			pt_hist_set(&h, b, v1[n]);
			pt_hist_set(&h, c, v2[n]);
		}
		CHECK(!pt_hist_sample(&h, 100 + 60.0 * (double)n, err, sizeof err), "sample %zu: %s", n, err);
	}
	CHECK(pt_hist_sample(&h, 100 + 60.0 * (double)N + 30, err, sizeof err), "off-grid sample accepted");
	size_t idx[3] = { a, b, c };
	double *vals[3] = { v0, v1, v2 };
	for (int o = 0; o < 12; o++) {
		size_t off = (size_t)o * 5, want = N >= off ? (N - off) / 60 : 0;
		CHECK(h.n_blocks[o] == want, "offset %d: %zu blocks, want %zu", o, h.n_blocks[o], want);
		for (int s = 0; s < 3; s++)
			for (size_t j = 0; j < h.n_blocks[o]; j++) {
				double m = 0;
				for (size_t n = off + 60 * j; n < off + 60 * j + 60; n++)
					m = vals[s][n] > m ? vals[s][n] : m;
				CHECK(pt_hv_at(pt_hist_hourly(&h, idx[s], (size_t)o), j) == m, "series %d offset %d block %zu: %g, want %g", s, o, j,
				      pt_hv_at(pt_hist_hourly(&h, idx[s], (size_t)o), j), m);
			}
	}
	size_t pa, pv;
	pt_hist_pool_index(&h, "A100", &pa);
	pt_hist_pool_index(&h, "V100", &pv);
	for (size_t n = 0; n < N; n++) {
		CHECK(pt_hist_pool_total(&h, pa, n) == v0[n] + v1[n], "A100 total at %zu", n);
		CHECK(pt_hist_pool_total(&h, pv, n) == v2[n], "V100 total at %zu", n);
	}
	for (int o = 0; o < 12; o++)
		for (size_t j = 0; j < h.n_blocks[o]; j++) {
			double m = 0, mv = 0, sum = 0;
			for (size_t n = (size_t)o * 5 + 60 * j; n < (size_t)o * 5 + 60 * j + 60; n++) {
				m = fmax(m, v0[n] + v1[n]);
				mv = fmax(mv, v2[n]);
			}
			for (size_t q = 0; q <= j; q++)
				sum += pt_hv_at(pt_hist_hourly(&h, a, (size_t)o), q);
			CHECK(pt_hist_pool_hourly(&h, pa, (size_t)o)[j] == m && pt_hist_pool_hourly(&h, pv, (size_t)o)[j] == mv,
			      "pool hourly max offset %d block %zu", o, j);
			CHECK(pt_hv_at(pt_hist_prefix(&h, a, (size_t)o), j + 1) == sum, "prefix sum offset %d block %zu", o, j);
		}
	/* id order: ["A100","t1"] < ["A100","t2"] < ["V100","t1"] */
	CHECK(h.sorted[0] == b && h.sorted[1] == a && h.sorted[2] == c, "series id order");
	struct pt_history k;
	pt_hist_clone(&k, &h, err, sizeof err);
	pt_hist_set(&h, a, 1000);
	pt_hist_sample(&h, 100 + 60.0 * (double)N, err, sizeof err);
	CHECK(k.n_samples == N && pt_hist_pool_total(&k, pa, N - 1) == v0[N - 1] + v1[N - 1], "clone shares state");
	pt_hist_release(&k);
	pt_hist_release(&h);
	free(v0), free(v1), free(v2);

	/* the split at the 844-h gate: N = 50641 samples, trained_at = 844 h after the first */
	const char *one[] = { "P" };
	pt_hist_init(&h, 0, 60, 60, 5, one, 1, err, sizeof err);
	pt_hist_series_index(&h, "P", "t", &a, err, sizeof err);
	for (size_t n = 0; n < 50641; n++)
		pt_hist_sample(&h, 60.0 * (double)n, err, sizeof err);
	struct pt_hist_split sp;
	pt_hist_split_at(&h, 844 * 3600.0, 672, 4, 168, &sp);
	/* windows s = 0, 5, ... <= 50641 - 40560; train: s + 40320 <= 40320; validation:
	 * 240 <= s <= 10080, so windows 48 .. 2016; 1 .. 47 straddle B and are dropped */
	CHECK(sp.n_windows == 2017 && sp.n_train == 1 && sp.validation_first == 48 && sp.validation_end == 2017,
	      "split: %zu windows, %zu train, validation [%zu, %zu)", sp.n_windows, sp.n_train, sp.validation_first,
	      sp.validation_end);
	struct pt_hist_window w = pt_hist_window_at(&h, 13, 672);
	CHECK(w.offset_index == 1 && w.first_block == 1 && w.target_start == (65 + 40320) * 60.0, "window 13 geometry");
	pt_hist_split_at(&h, 843 * 3600.0, 672, 4, 168, &sp);
	CHECK(sp.n_train == 0, "train windows before the gate");
	pt_hist_release(&h);
}

/* ---- conformal, quota, η ---- */

static void test_conformal(void)
{
	/* hand-worked: n = 10, ceil(0.9 * 10) = 9, so rank 9 of the sorted residuals
	 * -5 -1 1 2 3 3.5 4 5 6 9 is 6; 2 of 10 are <= 0, 9 of 10 are <= 6 */
	double res[] = { 3, -1, 4, 1, -5, 9, 2, 6, 5, 3.5 };
	struct pt_est_calibration c;
	pt_est_conformal(res, 10, 0.9, &c);
	CHECK(c.n == 10 && c.rank == 9 && c.offset == 6 && c.raw_coverage == 0.2 && c.calibrated_coverage == 0.9,
	      "n 10: rank %zu offset %g coverage %g / %g", c.rank, c.offset, c.raw_coverage, c.calibrated_coverage);
	/* n = 7: ceil(6.3) = 7, the maximum; offsets round to 6 dp and can be negative */
	double neg[] = { -2.5, -1.25, -3.0000004, -0.5, -7, -1.1234567, -4 };
	pt_est_conformal(neg, 7, 0.9, &c);
	CHECK(c.rank == 7 && c.offset == -0.5 && c.raw_coverage == 1 && c.calibrated_coverage == 1, "n 7: %zu %g", c.rank,
	      c.offset);
	double r6[] = { 1.23456789, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	pt_est_conformal(r6, 20, 0.9, &c);  /* ceil(18) = 18: the value 0 */
	CHECK(c.rank == 18 && c.offset == 0 && c.calibrated_coverage == 0.95, "n 20: %zu %g %g", c.rank, c.offset,
	      c.calibrated_coverage);
	double top[] = { 1.23456789 };
	pt_est_conformal(top, 1, 0.9, &c);
	CHECK(c.rank == 1 && c.offset == 1.234568 && c.calibrated_coverage == 1 && c.raw_coverage == 0, "n 1: %g", c.offset);
	pt_est_conformal(NULL, 0, 0.9, &c);
	CHECK(c.n == 0 && c.offset == 0, "n 0");
}

/* The tenant family's quota through the engine's one quota function (pc_quota). */
static long long tenant_quota(double capacity, const double *q, size_t n, long long h, double eta, double idle, double running,
			      bool cap, double *free)
{
	struct pc_point pts[8] = { 0 };
	for (size_t k = 0; k < n; k++)
		pts[k].q = q[k];
	struct pc_quota_input in = { .points = pts, .n = n, .capacity = capacity, .eta = eta, .floor_before_subtract = true,
				     .inventory_cap = cap, .idle_gpus = idle, .running_spot_gpus = running };
	*free = pc_quota_free(&in, h);
	return pc_quota(&in, h);
}

static void test_quota(void)
{
	double q[] = { 30.8, 40.2 }, free;
	/* the spec's vector: floor(30.8) = 30 -> 70, floor(40.2) = 40 -> 60; free 60; cap 20 + 5 */
	CHECK(tenant_quota(100, q, 2, 2, 1.0, 20, 5, true, &free) == 25 && free == 60, "vector: free %g", free);
	CHECK(tenant_quota(100, q, 2, 2, 1.0, 20, 5, false, &free) == 60, "no cap");
	CHECK(tenant_quota(100, q, 2, 1, 1.0, 20, 5, true, &free) == 25 && free == 70, "h 1");
	CHECK(tenant_quota(100, q, 2, 2, 0.3, 20, 5, true, &free) == 18, "eta below the cap");
	CHECK(tenant_quota(100, q, 1, 2, 1.0, 20, 5, true, &free) == 0 && free == 0, "fewer points than h");
	CHECK(tenant_quota(100, q, 2, 0, 1.0, 20, 5, true, &free) == 0, "h 0");
	double big[] = { 150, 10 };
	CHECK(tenant_quota(100, big, 2, 2, 1.25, 200, 0, true, &free) == 0 && free == 0, "q over C reserves all of C");
	double edge[] = { 29.9999999995 };  /* floor(q + EPS) = 30 */
	CHECK(tenant_quota(100, edge, 1, 1, 1.0, 100, 0, false, &free) == 70, "EPS in the floor");
	double low[] = { -3 };
	CHECK(tenant_quota(8, low, 1, 1, 1.25, 100, 0, false, &free) == 8 && free == 8, "quota clipped to C");
}

/* The tenant family's eta law is the engine's pc_eta_per_decision on the tenant config's
 * view (probability 0.9, eta in [0.25, 1.25], multiples 1.5 and 0.5, queue threshold 3600). */
static struct pc_config LAW;

static double law(double eta, double rate, double wait, enum pc_reason *why)
{
	/* a rate r as failure weight r over total weight 1 (r = failure / total exactly) */
	return pc_eta_per_decision(eta, rate, 1.0, wait, &LAW, 3600, why);
}

static void test_eta(void)
{
	enum pc_reason why;
	double e;
	LAW = (struct pc_config){ .guarantee_probability = 0.9, .minimum_eta = 0.25, .maximum_eta = 1.25,
				  .initial_eta = 1.0, .high_eviction_ratio = 1.5, .low_eviction_ratio = 0.5 };
	e = pc_eta_per_decision(1.0, 0, 0, 99999, &LAW, 3600, &why);
	CHECK(e == 1.0 && why == PC_NO_NEW_COMPLETED_RUNS, "no events: %g", e);
	e = law(1.0, 0.2, 0, &why);
	CHECK(fabs(e - 0.1 / 0.2 * 1.0) < 1e-15 && why == PC_HIGH_EVICTION_DECREASE, "r 0.2: %g", e);
	e = law(1.0, 0.15, 0, &why);
	CHECK(why == PC_HIGH_EVICTION_DECREASE, "r 0.15 is high (1.5 e* is 0.15 - 3e-17)");
	e = law(1.0, 0.05, 99999, &why);
	CHECK(e == 1.0 && why == PC_INSIDE_FEEDBACK_BAND, "r 1/20 is not low (0.5 e* = 0.04999999999999999)");
	e = law(1.0, 0.04, 3600, &why);
	CHECK(e == 1.0 && why == PC_INSIDE_FEEDBACK_BAND, "wait 3600 is not over the threshold");
	e = law(1.0, 0.04, 3601, &why);
	CHECK(e == 1.0 * (1.5 - 0.04 / (1.0 - 0.9)) && why == PC_LOW_EVICTION_BACKLOG_INCREASE, "r 0.04, long wait: %.17g", e);
	e = law(1.0, 0, 3601, &why);
	CHECK(e == 1.25, "low increase clamps at 1.25: %g", e);
	e = law(0.3, 1.0, 0, &why);
	CHECK(e == 0.25 && why == PC_HIGH_EVICTION_DECREASE, "high decrease clamps at 0.25: %g", e);

	/* the feedback window: events older than 14400 s are dropped (kept: time >= now - 14400) */
	struct pt_fb_window g = { 0 }, h;
	double total, failed;
	pt_fb_add(&g, 100, true, 1);   /* a preemption on 1 node */
	pt_fb_add(&g, 200, false, 3);  /* a completion on 3 nodes: rate 0.25 */
	pt_fb_clone(&h, &g);
	CHECK(pt_fb_rate(&h, 300, 14400, &total, &failed) && total == 4 && failed == 1 && h.version == 2, "clone: %g", total);
	pt_fb_add(&g, 700, true, 1);
	CHECK(pt_fb_rate(&g, 14500, 14400, &total, &failed) && g.n == 3 && total == 5 && failed == 2, "window kept %zu events", g.n);
	CHECK(pt_fb_rate(&g, 14650, 14400, &total, &failed) && g.n == 1 && total == 1 && failed == 1, "window kept %zu events", g.n);
	CHECK(!pt_fb_rate(&g, 30000, 14400, &total, &failed) && g.n == 0 && total == 0 && g.event_count == 3 &&
	      g.failure_weight == 2 && g.success_weight == 3, "window empty; totals kept");
	pt_fb_release(&g);
	pt_fb_release(&h);
}

/* ---- estimators ---- */

/* Demand of tenant t at sample n: a weekly pattern of hourly steps, plus a ramp for t1. */
static double weekly(size_t n, int t)
{
	size_t hour_of_week = n / 60 % 168;
	double base = t == 0 ? 10 : 4;
	return base + (double)(hour_of_week % 24 >= 9 && hour_of_week % 24 < 18 ? 6 * (t + 1) : 0) +
	       (double)(hour_of_week / 24 == 5 ? -3 : 0);
}

static void feed(struct pt_history *h, size_t from, size_t to, size_t s0, size_t s1, double (*f)(size_t, int))
{
	for (size_t n = from; n < to; n++) {
		pt_hist_set(h, s0, f(n, 0));
		pt_hist_set(h, s1, f(n, 1));
		pt_hist_sample(h, 60.0 * (double)n, err, sizeof err);
	}
}

static void history_for(struct pt_history *h, size_t *s0, size_t *s1)
{
	const char *pools[] = { "P", "Q" };
	pt_hist_init(h, 0, 60, 60, 5, pools, 2, err, sizeof err);
	pt_hist_series_index(h, "P", "t0", s0, err, sizeof err);
	pt_hist_series_index(h, "P", "t1", s1, err, sizeof err);
}

static struct pt_est_config config_for(const char *model, const struct pc_calendar *cal)
{
	struct pt_est_config c = { .kind = pt_est_find(model), .lookback_hours = 672, .horizon_hours = 4, .validation_hours = 168,
		                .moving_average_window = 25, .probability = 0.9, .calibrate = true, .calendar = cal };
	pc_cal_origin_parse("2024-03-01 00:00:00", &c.origin);
	strcpy(c.controller_fingerprint, "0123");
	return c;
}

static void test_estimators(void)
{
	struct pc_calendar cal;
	pc_cal_load(&cal, "china", err, sizeof err);
	struct pt_history h;
	size_t s0, s1;
	history_for(&h, &s0, &s1);
	size_t gate = 844 * 60, n_end = gate + 24 * 60 + 1;  /* samples to 868 h */
	feed(&h, 0, n_end, s0, s1, weekly);

	/* seasonal-conformal-v1 on an exactly weekly signal: level 0, mu = last week, offset 0 */
	struct pt_estimator se;
	struct pt_est_config sc = config_for(PT_EST_SEASONAL_ID, &cal);
	CHECK(!pt_est_init(&se, &sc, err, sizeof err), "seasonal init: %s", err);
	double now = 60.0 * (double)(n_end - 1);
	CHECK(!pt_est_fit(&se, &h, now, err, sizeof err), "seasonal fit: %s", err);
	struct pt_est_point pts[2 * PT_EST_MAX_STEPS];
	size_t np;
	CHECK(!pt_est_forecast(&se, &h, now, pts, &np, err, sizeof err), "seasonal forecast: %s", err);
	CHECK(np == 4 && pts[0].pool == 0 && pts[3].step == 4, "seasonal: %zu points (pool Q has no series)", np);
	for (size_t k = 0; k < np; k++) {
		/* the target block k is samples [n + 60k, n + 60k + 60) of the weekly signal */
		size_t n0 = n_end - 1 + 60 * k;
		double w0 = 0, w1 = 0;
		for (size_t n = n0; n < n0 + 60; n++) {
			w0 = fmax(w0, weekly(n, 0));
			w1 = fmax(w1, weekly(n, 1));
		}
		CHECK(pts[k].mu == w0 + w1 && pts[k].offset == 0 && pts[k].quantile == pts[k].mu && pts[k].sigma == 0,
		      "seasonal step %d: mu %g want %g offset %g", pts[k].step, pts[k].mu, w0 + w1, pts[k].offset);
		CHECK(pts[k].target == now + 3600.0 * (double)(k + 1), "target time");
	}
	CHECK(se.cal[0].n == 1969 && se.cal[0].rank == 1773 && se.cal[0].calibrated_coverage == 1, "seasonal calibration n %zu rank %zu",
	      se.cal[0].n, se.cal[0].rank);

	/* tenant-quantile-linear-v1: the fit is a pure function of (history, trained_at):
	 * incremental refits give the bytes of a fit from scratch, and a clone continues alike */
	struct pt_est_config lc = config_for(PT_EST_LINEAR_ID, &cal);
	struct pt_estimator inc, scratch, twin;
	pt_est_init(&inc, &lc, err, sizeof err);
	pt_est_init(&scratch, &lc, err, sizeof err);
	struct pt_history h2;
	size_t a0, a1;
	history_for(&h2, &a0, &a1);
	feed(&h2, 0, gate + 1, a0, a1, weekly);
	CHECK(!pt_est_fit(&inc, &h2, 60.0 * (double)gate, err, sizeof err), "linear fit at the gate: %s", err);
	CHECK(inc.train_windows == 1 && inc.validation_windows == 1969 && inc.generation == 1, "gate fit: %zu train",
	      inc.train_windows);
	feed(&h2, gate + 1, n_end, a0, a1, weekly);
	pt_est_clone(&twin, &inc);
	CHECK(!pt_est_fit(&inc, &h2, now, err, sizeof err), "linear refit: %s", err);
	CHECK(!pt_est_fit(&twin, &h2, now, err, sizeof err), "twin refit: %s", err);
	CHECK(!pt_est_fit(&scratch, &h2, now, err, sizeof err), "scratch fit: %s", err);
	CHECK(inc.train_windows == 289 && pt_est_linear_windows_added(&inc) == 289, "train windows after a day: %zu", inc.train_windows);
	CHECK(inc.generation == 2 && scratch.generation == 1, "generations");
	bool same = true;
	for (int k = 0; same && k < 4; k++) {
		size_t ni, ns;
		const double *bi = pt_est_linear_coefficients(&inc, k, &ni), *bs = pt_est_linear_coefficients(&scratch, k, &ns);
		same = ni == ns && !memcmp(bi, bs, ni * sizeof(double));
	}
	CHECK(same, "incremental and from-scratch coefficients differ");
	CHECK(!strcmp(inc.fingerprint, twin.fingerprint), "clone diverged");
	CHECK(strcmp(inc.fingerprint, scratch.fingerprint), "fingerprint ignores the generation");
	scratch.generation = inc.generation;
	struct pt_est_point a[8], b[8];
	size_t na, nb;
	CHECK(!pt_est_forecast(&inc, &h2, now, a, &na, err, sizeof err), "linear forecast: %s", err);
	CHECK(!pt_est_forecast(&scratch, &h2, now, b, &nb, err, sizeof err), "scratch forecast: %s", err);
	bool equal = na == 4 && nb == 4;
	for (size_t k = 0; equal && k < na; k++)
		equal = a[k].pool == b[k].pool && a[k].step == b[k].step && a[k].target == b[k].target && a[k].mu == b[k].mu &&
		        a[k].sigma == b[k].sigma && a[k].quantile == b[k].quantile && a[k].offset == b[k].offset;
	CHECK(equal, "forecasts differ");
	/* on this noise-free signal the ridge fit is close, and the offset covers the rest */
	for (size_t k = 0; k < na; k++)
		CHECK(fabs(a[k].mu - pts[k].mu) < 1.0 && a[k].quantile >= a[k].mu - 1e-9, "linear step %d mu %g vs %g", a[k].step,
		      a[k].mu, pts[k].mu);
	CHECK(strcmp(inc.fingerprint, se.fingerprint) && strlen(inc.fingerprint) == 64, "fingerprints");
	/* v1 (no calibration): offset 0, q = raw = mu + z sigma, sigma the validation RMS */
	struct pt_est_config vc = lc;
	vc.calibrate = false;
	struct pt_estimator v1;
	pt_est_init(&v1, &vc, err, sizeof err);
	CHECK(!pt_est_fit(&v1, &h2, now, err, sizeof err), "v1 fit: %s", err);
	CHECK(!pt_est_forecast(&v1, &h2, now, b, &nb, err, sizeof err), "v1 forecast: %s", err);
	for (size_t k = 0; k < nb; k++)
		CHECK(b[k].offset == 0 && b[k].sigma > 0 && b[k].quantile == b[k].raw &&
		      fabs(b[k].raw - (b[k].mu + 1.2815515655446008 * b[k].sigma)) < 2e-6 && b[k].mu == a[k].mu &&
		      v1.cal[k].rank == 0 && inc.cal[k].rank == 1773,
		      "v1 step %d: mu %g sigma %g raw %g q %g", b[k].step, b[k].mu, b[k].sigma, b[k].raw, b[k].quantile);
	CHECK(strcmp(v1.fingerprint, inc.fingerprint), "v1 and v2 share a fingerprint");
	pt_est_release(&v1);
	/* a new series after the fit: forecasting refuses until the next fit */
	size_t extra;
	pt_hist_series_index(&h2, "Q", "t9", &extra, err, sizeof err);
	CHECK(pt_est_forecast(&inc, &h2, now, a, &na, err, sizeof err) && strstr(err, "changed"), "stale fit used");
	/* empty train set at 843 h */
	struct pt_history h3;
	history_for(&h3, &a0, &a1);
	feed(&h3, 0, 843 * 60 + 1, a0, a1, weekly);
	struct pt_estimator early;
	pt_est_init(&early, &lc, err, sizeof err);
	CHECK(pt_est_fit(&early, &h3, 843 * 3600.0, err, sizeof err) && strstr(err, "insufficient history"), "843 h fit: %s", err);
	pt_est_release(&early);
	pt_hist_release(&h3);
	pt_est_release(&inc);
	pt_est_release(&twin);
	pt_est_release(&scratch);
	pt_est_release(&se);
	pt_hist_release(&h2);
	pt_hist_release(&h);
	pc_cal_release(&cal);
}

/* tenant-quantile-linear-v1 when the columns outgrow the normal equations' first
 * allocation (38 fixed + 2 pools + 2 tenants, then 28 more tenants: past 64) between two
 * fits: the sums kept so far move into the wider matrices unchanged, so the refit still
 * gives the bytes of a fit from scratch */
static void test_linear_growth(void)
{
	struct pc_calendar cal;
	pc_cal_load(&cal, "china", err, sizeof err);
	struct pt_est_config lc = config_for(PT_EST_LINEAR_ID, &cal);
	struct pt_estimator inc, scratch;
	pt_est_init(&inc, &lc, err, sizeof err);
	pt_est_init(&scratch, &lc, err, sizeof err);
	struct pt_history h;
	size_t a0, a1, gate = 844 * 60, n_end = gate + 24 * 60 + 1;
	history_for(&h, &a0, &a1);
	feed(&h, 0, gate + 1, a0, a1, weekly);
	CHECK(!pt_est_fit(&inc, &h, 60.0 * (double)gate, err, sizeof err), "linear fit at the gate: %s", err);
	for (int t = 0; t < 28; t++) {
		char name[16];
		size_t s;
		snprintf(name, sizeof name, "u%02d", t);
		CHECK(!pt_hist_series_index(&h, t % 2 ? "Q" : "P", name, &s, err, sizeof err), "register %s: %s", name, err);
		pt_hist_set(&h, s, 1 + t % 5);
	}
	feed(&h, gate + 1, n_end, a0, a1, weekly);
	double now = 60.0 * (double)(n_end - 1);
	CHECK(!pt_est_fit(&inc, &h, now, err, sizeof err), "linear refit past 64 columns: %s", err);
	CHECK(!pt_est_fit(&scratch, &h, now, err, sizeof err), "scratch fit: %s", err);
	bool same = true;
	size_t ni = 0, ns = 0;
	for (int k = 0; same && k < 4; k++) {
		const double *bi = pt_est_linear_coefficients(&inc, k, &ni), *bs = pt_est_linear_coefficients(&scratch, k, &ns);
		same = ni == ns && !memcmp(bi, bs, ni * sizeof(double));
	}
	CHECK(same && ni == 38 + 2 + 30, "grown incremental and from-scratch coefficients differ (%zu columns)", ni);
	pt_est_release(&inc);
	pt_est_release(&scratch);
	pt_hist_release(&h);
	pc_cal_release(&cal);
}

/* ---- config ---- */

static const char *config_text(const char *id, const char *model, const char *extra)
{
	static char buf[2048];
	snprintf(buf, sizeof buf,
		"{\"schema_version\":\"schednav.tenant-predictive-controller/1\",\"controller_id\":\"%s\",\"model\":\"%s\","
		"\"demand_sample_interval_seconds\":60,\"quota_update_interval_seconds\":300,\"aggregation_interval_seconds\":3600,"
		"\"lookback_hours\":48,\"forecast_horizon_hours\":4,\"retrain_interval_seconds\":86400,\"validation_hours\":24,"
		"\"training_stride_seconds\":300,\"guarantee_probability\":0.9,\"guarantee_horizons_hours\":[1,2,4],"
		"\"business_calendar\":\"weekday\",\"moving_average_window\":5,\"embedding_dimension\":8,"
		"\"attention_hidden_dimension\":16,\"train_epochs\":10,\"batch_size\":32,\"learning_rate\":4e-05,"
		"\"early_stopping_patience\":3,\"random_seed\":20260807,\"nonzero_targets_only\":true,\"initial_eta\":1.0,"
		"\"minimum_eta\":0.25,\"maximum_eta\":1.25,\"feedback_window_seconds\":14400,\"queue_wait_threshold_seconds\":3600,"
		"\"high_eviction_multiple\":1.5,\"low_eviction_multiple\":0.5,\"runtime_inventory_cap\":true%s}",
		id, model, extra ? extra : "");
	return buf;
}

/* A tenant config through the engine's one config entry (pc_config_from_json). */
static int parse_config(struct pc_config *c, struct arena *a, const char *text)
{
	struct json *doc;
	if (json_parse(a, text, strlen(text), &doc, err, sizeof err))
		return -1;
	return pc_config_from_json(c, doc, a, err, sizeof err);
}

static void test_config(void)
{
	struct arena a;
	arena_init(&a);
	struct pc_config c, c2;
	static const char *const shipped[] = { "configs/controllers/schednav-tenant-linear-v1.json",
		"configs/controllers/schednav-tenant-linear-v2.json", "configs/controllers/schednav-tenant-seasonal-v1.json",
		"configs/controllers/schednav-tenant-seasonal-v2.json" };
	FILE *probe = fopen(shipped[0], "r");
	if (probe) {
		fclose(probe);
		for (size_t i = 0; i < 4; i++) {
			CHECK(!pc_config_load(&c, shipped[i], &a, err, sizeof err) && c.tenant, "%s: %s", shipped[i], err);
			CHECK(c.tenant->quirks_fixed && c.minimum_history_hours == 844 && (c.tenant->calibration_method != NULL) == (i % 2 == 1) &&
			      c.sw.pools == PC_POOLS_PER_MODEL && c.sw.floor_before_subtract && c.sw.inventory_cap && c.sw.gate_scope == PC_GATE_POOL,
			      "%s: facts", shipped[i]);
		}
	}
	CHECK(!parse_config(&c, &a, config_text("schednav-x", PT_EST_LINEAR_ID, NULL)), "v1: %s", err);
	CHECK(!parse_config(&c2, &a, config_text("schednav-x", PT_EST_LINEAR_ID,
		",\"quantile_calibration_method\":\"validation-residual-nearest-rank\"")), "v2: %s", err);
	CHECK(strcmp(c.fingerprint, c2.fingerprint) && !c.tenant->calibration_method && c2.tenant->calibration_method, "v2 key not hashed");
	struct json *d1 = c.canonical;
	CHECK(!json_get(d1, "quantile_calibration_method") && json_get(d1, "learning_rate")->kind == JSON_REAL &&
	      json_get(d1, "lookback_hours")->kind == JSON_INT, "v1 dict");
	CHECK(!parse_config(&c2, &a, config_text("tenant-predictive-spot-v2", PT_EST_SEASONAL_ID, NULL)) && !c2.tenant->quirks_fixed &&
	      c2.tenant->estimator == pt_est_find(PT_EST_SEASONAL_ID), "original id keeps the quirks");
	CHECK(pc_config_horizon_for(&c, 3600) == 0 && pc_config_horizon_for(&c, 3601) == 1 && pc_config_horizon_for(&c, 10800) == 2 &&
	      pc_config_horizon_for(&c, 0) == 0 && pc_config_horizon_for(&c, 14401) == -1, "horizons");
	const char *bad[][2] = {
		{ "tenant-linear-gaussian-v1", "PyTorch" },
		{ "lstm", "unknown model" },
	};
	for (size_t i = 0; i < 2; i++)
		CHECK(parse_config(&c, &a, config_text("schednav-x", bad[i][0], NULL)) && strstr(err, bad[i][1]), "model %s: %s",
		      bad[i][0], err);
	CHECK(parse_config(&c, &a, config_text("schednav-x", PT_EST_LINEAR_ID, ",\"sigma_min\":1")) && strstr(err, "'sigma_min'"),
	      "unknown key: %s", err);
	CHECK(parse_config(&c, &a, config_text("schednav-x", PT_EST_LINEAR_ID, ",\"quantile_calibration_method\":\"cqr\"")),
	      "bad calibration method accepted");
	char *t = xstrdup(config_text("schednav-x", PT_EST_LINEAR_ID, NULL));
	char *w = strstr(t, "\"weekday\"");
	memcpy(w, "\"lunar\"  ", 9);
	CHECK(parse_config(&c, &a, t) && strstr(err, "china or weekday"), "calendar: %s", err);
	free(t);
	t = xstrdup(config_text("schednav-x", PT_EST_LINEAR_ID, NULL));
	w = strstr(t, "\"moving_average_window\":5");
	w[strlen("\"moving_average_window\":")] = '4';
	CHECK(parse_config(&c, &a, t) && strstr(err, "odd"), "even window: %s", err);
	free(t);
	t = xstrdup(config_text("schednav-x", PT_EST_LINEAR_ID, NULL));
	w = strstr(t, "\"nonzero_targets_only\":true");
	memcpy(w + strlen("\"nonzero_targets_only\":"), "1   ", 4);
	CHECK(parse_config(&c, &a, t) && strstr(err, "true or false"), "bool: %s", err);
	free(t);
	arena_release(&a);
}

/* ---- the controller, driven by hand ---- */

struct sink_log { struct strbuf lines; size_t decisions; };

static void sink(void *ctx, const struct pt_controller *tc, const struct pt_decision *d)
{
	struct sink_log *log = ctx;
	pt_write_decision(&log->lines, tc, d);
	sb_addc(&log->lines, '\n');
	log->decisions++;
}

/* HP demand of tenants A and B on pool P: A holds 20 GPUs in working hours, B 10 always. */
static void drive(struct pt_controller *tc, double from, double to, struct pt_pool_observation *po, bool *a_on)
{
	for (double now = from; now <= to + 1e-9; now += 60) {
		double hour = fmod(now / 3600, 24);
		bool want = hour >= 9 && hour < 18;
		if (want != *a_on) {
			pt_hp_run(tc, "P", "A", 20, want, err, sizeof err);
			*a_on = want;
		}
		pt_after_advance(tc, now);
		if (pt_update_due(tc, now)) {
			struct pt_observation obs = { .hp_outstanding_gpus = 10 + (*a_on ? 20 : 0), .spot_backlog_gpus = 3,
				                      .running_spot_gpus = po[0].running_spot_gpus, .pools = po };
			CHECK(pt_update(tc, now, &obs, err, sizeof err) >= 0, "update at %g: %s", now, err);
		}
	}
}

static void test_control(void)
{
	struct arena a;
	arena_init(&a);
	struct pc_config ours, orig;
	parse_config(&ours, &a, config_text("schednav-test", PT_EST_LINEAR_ID,
		",\"quantile_calibration_method\":\"validation-residual-nearest-rank\""));
	parse_config(&orig, &a, config_text("tenant-predictive-spot-v2", PT_EST_LINEAR_ID,
		",\"quantile_calibration_method\":\"validation-residual-nearest-rank\""));
	const char *pools[] = { "Q", "P" };
	double caps[] = { 16, 100 };
	double ev0 = 80 * 3600.0, ev1 = 90 * 3600.0;
	struct pt_controller *tc = pt_open(&ours, pools, caps, 2, "2024-03-04 00:00:00", 0, ev0, ev1, 10, err, sizeof err);
	struct pt_controller *to = pt_open(&orig, pools, caps, 2, "2024-03-04 00:00:00", 0, ev0, ev1, 10, err, sizeof err);
	CHECK(tc && to, "open: %s", err);
	CHECK(!pt_open(&ours, pools, caps, 2, "not a date", 0, ev0, ev1, 10, err, sizeof err) && strstr(err, "time_origin"),
	      "bad origin accepted");
	/* the span bound (issue 35): the history from the start to the evidence end is at most 3,650 days */
	struct pt_controller *tb = pt_open(&ours, pools, caps, 2, "2024-03-04 00:00:00", 60, ev0, 60 + PT_MAX_SPAN_SECONDS, 10, err,
	                                   sizeof err);
	CHECK(tb != NULL, "a span of exactly 3,650 days refused: %s", err);
	pt_close(tb);
	CHECK(!pt_open(&ours, pools, caps, 2, "2024-03-04 00:00:00", 0, ev0, PT_MAX_SPAN_SECONDS + 60, 10, err, sizeof err) &&
	      strstr(err, "(315360060 s): 3650.00069 days, more than its bound of 3,650 days; replay a window"),
	      "a span over 3,650 days: %s", err);
	int p = pt_pool_index(tc, "P");
	CHECK(p == 0 && pt_pool_index(tc, "Q") == 1 && pt_pool_index(tc, "R") == -1, "pool order");
	struct sink_log log = { 0 }, olog = { 0 };
	sb_init(&log.lines);
	sb_init(&olog.lines);
	pt_set_sink(tc, sink, &log);
	pt_set_sink(to, sink, &olog);
	CHECK(!pt_hp_run(tc, "P", "B", 10, true, err, sizeof err) && !pt_hp_run(to, "P", "B", 10, true, err, sizeof err), "B");
	CHECK(pt_hp_run(tc, "P", "C", 1, false, err, sizeof err) && strstr(err, "without starting"), "stop before start");
	CHECK(pt_hp_run(tc, "Z", "C", 1, true, err, sizeof err) && strstr(err, "'Z'"), "unknown pool");
	struct pt_pool_observation po[2] = { { .idle_gpus = 50, .running_spot_gpus = 4, .spot_backlog_gpus = 3,
		                               .maximum_spot_wait_seconds = 4000 },
		                             { .idle_gpus = 16 } };
	bool a1 = false, a2 = false;
	/* a Spot run with a 1-h guarantee on 2 nodes of P, evicted later: wake-ups and events */
	drive(tc, 0, ev0 - 60, po, &a1);
	drive(to, 0, ev0 - 60, po, &a2);
	CHECK(log.decisions == 0 && !pt_last_decision(tc), "decisions before the evidence start");
	CHECK(pt_next_wakeup(tc, ev0 - 60) == ev0, "next sample");
	pt_spot_run_started(tc, 3, 0, 2, 4, ev0 - 30, 3600);
	pt_spot_run_started(to, 3, 0, 2, 4, ev0 - 30, 3600);
	CHECK(pt_next_wakeup(tc, ev0 - 60) == ev0, "the sample comes first");
	CHECK(pt_next_wakeup(tc, ev0 + 3000) == ev0 + 3570, "guarantee period end is a wake-up");
	drive(tc, ev0, ev0 + 7200, po, &a1);
	drive(to, ev0, ev0 + 7200, po, &a2);
	const struct pt_decision *d = pt_last_decision(tc);
	CHECK(d && d->now == ev0 + 7200 && d->n_points == 4 && d->points[0].pool == 0, "decision at the grid end");
	CHECK(log.decisions == 25, "decisions every 300 s from the evidence start: %zu", log.decisions);
	const struct pt_estimator *e = pt_estimator(tc);
	CHECK(e->trained && e->generation == 1 && e->trained_at == ev0, "one fit at the evidence start (%lld)", e->generation);
	/* two guarantee periods completed: ev0 - 30 + 3600 and + 7200, 2 nodes each */
	CHECK(d->pools[0].event_weight == 4 && d->pools[0].has_rate && d->pools[0].eviction_rate == 0, "guarantee events: %g",
	      d->pools[0].event_weight);
	pt_spot_run_closed(tc, 3, ev0 + 7230, true);
	pt_spot_run_closed(to, 3, ev0 + 7230, true);
	CHECK(pt_next_wakeup(tc, ev0 + 7230) == ev0 + 7260, "closed run wakes nothing");
	drive(tc, ev0 + 7260, ev0 + 9000, po, &a1);
	drive(to, ev0 + 7260, ev0 + 9000, po, &a2);
	/* 2 failure of 6 total: 1/3 >= 0.15; ours applies it once, the original at every decision */
	d = pt_last_decision(tc);
	const struct pt_decision *od = pt_last_decision(to);
	/* (eta rose to 1.25 first: success events only and a Spot wait over 3600 s) */
	CHECK(fabs(d->pools[0].eta_after - 0.375) < 1e-12 && d->pools[0].skipped && !strcmp(pt_reason_name(&d->pools[0]), "no_new_events"),
	      "ours: eta %.17g reason %s", d->pools[0].eta_after, pt_reason_name(&d->pools[0]));
	CHECK(od->pools[0].eta_after == 0.25 && !strcmp(pt_reason_name(&od->pools[0]), "high_eviction"), "original: eta %g", od->pools[0].eta_after);
	/* pool Q has no series: no points, quota 0, eta untouched */
	CHECK(d->pools[1].quota[0] == 0 && d->pools[1].eta_after == 1.0 && d->eta == d->pools[0].eta_after, "pool Q");
	/* the inventory cap: idle 50 + running Spot 4 */
	CHECK(d->pools[0].quota[0] <= 54 && d->pools[0].quota[0] >= 0, "cap");
	/* Q2 */
	struct pt_observation obs = { .pools = po };
	for (int k = 0; k < 2; k++) {
		struct pt_controller *x = k ? to : tc;
		pt_hp_run(x, "P", "B", 10, false, err, sizeof err);
		pt_hp_run(x, "P", "B", 12, true, err, sizeof err);
		CHECK(pt_update(x, ev0 + 9060, &obs, err, sizeof err) == 0 && !pt_latest_update(x) && pt_last_decision(x),
		      "Q2: a minute-only sample");
	}
	/* fork: the clone and the original continue byte for byte alike */
	struct pt_controller *fork = pt_clone(tc);
	struct sink_log flog = { 0 };
	sb_init(&flog.lines);
	pt_set_sink(fork, sink, &flog);
	size_t mark = log.lines.len;
	bool a3 = a1;
	drive(tc, ev0 + 9120, ev1 + 600, po, &a1);
	drive(fork, ev0 + 9120, ev1 + 600, po, &a3);
	CHECK(flog.lines.len == log.lines.len - mark && !memcmp(flog.lines.buf, log.lines.buf + mark, flog.lines.len),
	      "fork diverged");
	CHECK(!pt_update_due(tc, ev1 + 600) || pt_next_wakeup(tc, ev1 + 600) == INFINITY, "sampling stops after the end");
	CHECK(pt_history(tc)->n_samples == (size_t)(ev1 / 60) + 1, "samples to the evidence end: %zu", pt_history(tc)->n_samples);
	CHECK(pt_gate_active(tc, ev0) && pt_gate_active(tc, ev1 - 1) && !pt_gate_active(tc, ev1) && !pt_gate_active(tc, ev0 - 1),
	      "gate window");
	/* Q3: the same forecasts scored with opposite signs */
	drive(to, ev0 + 9120, ev1 + 600, po, &a2);
	const struct pt_scores *s = pt_scores(tc), *so = pt_scores(to);
	CHECK(s->n > 0 && s->n == so->n && s->error != 0 && s->error == -so->error && s->abs_error == so->abs_error,
	      "Q3: scored %zu / %zu, error %g / %g", s->n, so->n, s->error, so->error);
	/* every record is one JSON object */
	struct arena ja;
	arena_init(&ja);
	size_t lines = 0;
	for (char *line = log.lines.buf, *nl; line && (nl = strchr(line, '\n')); line = nl + 1, lines++) {
		struct json *doc;
		CHECK(!json_parse(&ja, line, (size_t)(nl - line), &doc, err, sizeof err), "decision %zu: %s", lines, err);
	}
	struct strbuf rep;
	sb_init(&rep);
	pt_write_report(&rep, tc);
	struct json *doc;
	CHECK(!json_parse(&ja, rep.buf, rep.len, &doc, err, sizeof err), "report: %s", err);
	CHECK(json_get(json_get(doc, "forecast_evaluation"), "scored_point_count")->u.i == (long long)s->n, "report count");
	CHECK(json_get(json_get(doc, "quirks_fixed"), "q3_mean_error_actual_minus_mu")->kind == JSON_TRUE, "quirk flags");
	sb_release(&rep);
	arena_release(&ja);
	sb_release(&log.lines);
	sb_release(&olog.lines);
	sb_release(&flog.lines);
	pt_close(fork);
	pt_close(tc);
	pt_close(to);
	arena_release(&a);
}

/* ---- the cutoff bundle and its leakage test ---- */

/* Jobs of tenants A and B on pool P every 2 h; after `cut`, the future variant differs:
 * jobs still running at the cutoff get other (still later) ends, later jobs are new. */
static void bundle_trace(struct trace *t, int version, double cut, bool variant)
{
	trace_init(t);
	t->version = version;
	t->trace_id = trace_strdup(t, "tenant-unit");
	t->time_origin = trace_strdup(t, "2024-03-04 00:00:00");
	for (int i = 0; i < 4; i++) {
		struct trace_node *n = trace_add_node(t);
		char id[16];
		snprintf(id, sizeof id, "n%d", i);
		n->id = trace_strdup(t, id);
		n->model = trace_strdup(t, i < 3 ? "P" : "Q");
		n->gpu_count = 8;
	}
	int k = 0;
	for (double sub = 30; sub < cut + 20 * 3600; sub += 7200, k++) {
		for (int tenant = 0; tenant < 2; tenant++) {
			struct trace_job *j = trace_add_job(t);
			char id[32];
			bool future = sub > cut;
			snprintf(id, sizeof id, "%s%04d%c", future && variant ? "x" : "j", k, 'a' + tenant);
			j->id = trace_strdup(t, id);
			j->submit = sub + tenant * 100;
			j->duration = 3000 + 2000 * (k % 3) + (future && variant ? 777 : 0);
			if (!future && j->submit + j->duration > cut && variant)
				j->duration += 5000;   /* still running at the cutoff: a different end */
			j->gpus = tenant ? 2 : 4 + (k % 4);
			j->hp = k % 5 != 4 || tenant;
			j->model = trace_strdup(t, "P");
			j->tenant = version == 2 ? trace_strdup(t, tenant ? "B" : "A") : NULL;
		}
	}
	trace_sort(t);
}

static char *bundle_bytes(const struct trace *t, const struct pc_config *c, double cut)
{
	struct arena a;
	arena_init(&a);
	struct json *b = pc_bundle(&a, t, c, cut, err, sizeof err);
	char *out = NULL;
	if (b) {
		struct strbuf sb;
		sb_init(&sb);
		json_write(&sb, b);
		out = sb.buf;
	}
	arena_release(&a);
	return out;
}

static void test_bundle(void)
{
	struct arena a;
	arena_init(&a);
	struct pc_config ours, orig;
	parse_config(&ours, &a, config_text("schednav-test", PT_EST_SEASONAL_ID,
		",\"quantile_calibration_method\":\"validation-residual-nearest-rank\""));
	parse_config(&orig, &a, config_text("tenant-predictive-spot-v2", PT_EST_SEASONAL_ID,
		",\"quantile_calibration_method\":\"validation-residual-nearest-rank\""));
	double cut = 77.5 * 3600.0;   /* job 38 (submitted 273630, 7000 s) runs across it */
	struct trace base, alt, v1;
	bundle_trace(&base, 2, cut, false);
	bundle_trace(&alt, 2, cut, true);
	char *x = bundle_bytes(&base, &ours, cut), *y = bundle_bytes(&alt, &ours, cut);
	CHECK(x && y, "bundle: %s", err);
	if (x && y) {
		CHECK(!strcmp(x, y), "leakage: a different future changed the bundle");
		CHECK(strstr(x, "\"horizon_step\":4") && strstr(x, "\"history_ready\":true") &&
		      strstr(x, "\"running_job_durations_exposed\":false"), "bundle content");
	}
	free(x), free(y);
	/* the original's prefix fingerprint hashes the durations of running jobs (Q10) */
	x = bundle_bytes(&base, &orig, cut), y = bundle_bytes(&alt, &orig, cut);
	CHECK(x && y && strcmp(x, y), "Q10 kept under the original id");
	free(x), free(y);
	CHECK(!bundle_bytes(&base, &ours, 10) && strstr(err, "precedes"), "cutoff before the first arrival: %s", err);
	CHECK(!bundle_bytes(&base, &ours, cut + 60) && strstr(err, "quota updates"), "off the 300-s grid: %s", err);
	CHECK(!bundle_bytes(&base, &ours, cut + 30) && strstr(err, "sampling"), "off the 60-s grid: %s", err);
	bundle_trace(&v1, 1, cut, false);
	CHECK(!bundle_bytes(&v1, &ours, cut) && strstr(err, "trace/2"), "trace/1 accepted: %s", err);
	trace_release(&v1);
	bundle_trace(&v1, 2, cut, false);
	v1.jobs[3].model = trace_strdup(&v1, "*");
	CHECK(!bundle_bytes(&v1, &ours, cut) && strstr(err, "concrete gpu_model"), "'*' accepted: %s", err);
	trace_release(&v1);
	trace_release(&base);
	trace_release(&alt);
	arena_release(&a);
}

int main(void)
{
	test_calendar();
	test_history();
	test_history_int_index();
	test_conformal();
	test_quota();
	test_eta();
	test_estimators();
	test_linear_growth();
	test_config();
	test_control();
	test_bundle();
	printf("test_tenant: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
