#include "sim/result.h"
#include "core/fp.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json *result_header(struct arena *a, const struct trace *t, const struct sim_policy *p, const struct sim_output *o)
{
	struct json *h = nd_header_new(a, RESULT_SCHEMA, "sim-run");
	nd_header_add_stream(a, h, t->input_name, t->version == 2 ? TRACE_SCHEMA_V2 : TRACE_SCHEMA_V1, t->fingerprint);
	json_set(a, h, "policy", json_clone(a, p->canonical));
	json_set(a, h, "policy_fingerprint", json_str(a, p->fingerprint));
	json_set(a, h, "trace_id", json_str(a, t->trace_id));
	json_set(a, h, "trace_fingerprint", json_str(a, t->fingerprint));
	json_set(a, h, "time_origin", json_str(a, t->time_origin));
	json_set(a, h, "source", json_clone(a, t->source));
	json_set(a, h, "evaluation_start", json_real(a, o->evaluation_start));
	json_set(a, h, "evaluation_end", json_real(a, o->evaluation_end));
	return h;
}

/* A job for the id sort: 8 bytes of its id from the level's offset as a big-endian number
 * (zero after the id's end), so the sort compares integers only. */
struct id_key {
	unsigned long long key;
	const char *id;
	size_t index;
};

static unsigned long long id_prefix(const char *s)
{
	unsigned long long k = 0;
	int i = 0;
	for (; i < 8 && s[i]; i++)
		k = k << 8 | (unsigned char)s[i];
	for (; i < 8; i++)   /* zero bytes after the end (one shift by 64 would be undefined) */
		k <<= 8;
	return k;
}

/* Stable bottom-up merge sort of v[0..n) by key, tmp the same size. */
static void key_sort(struct id_key *v, struct id_key *tmp, size_t n)
{
	struct id_key *src = v, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				dst[o++] = src[j].key < src[i].key ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		struct id_key *x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* strcmp's order of v[0..n) (unsigned bytes), whose ids agree on their first off bytes: by
 * the next 8, then each run that agrees on those too and goes on past them by the 8 after.
 * Stable: equal ids keep their order, as the stable sort of indices by strcmp had it. */
static void id_sort(struct id_key *v, struct id_key *tmp, size_t n, size_t off)
{
	for (size_t i = 0; i < n; i++)
		v[i].key = id_prefix(v[i].id + off);
	key_sort(v, tmp, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].key == v[i].key; j++)
			;
		if (j - i > 1 && (v[i].key & 0xff))   /* 8 equal bytes, none the end: the ids go on */
			id_sort(v + i, tmp, j - i, off + 8);
	}
}

size_t *result_id_order(const struct trace *t, size_t n)
{
	size_t *order = xmalloc((n + 1) * sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	bool sorted = true;   /* ids are unique: already increasing means the sort is the identity */
	for (size_t i = 1; i < n && sorted; i++)
		sorted = strcmp(t->jobs[i - 1].id, t->jobs[i].id) < 0;
	if (!sorted) {
		struct id_key *v = xmalloc(2 * n * sizeof *v);
		for (size_t i = 0; i < n; i++)
			v[i] = (struct id_key){ 0, t->jobs[i].id, i };
		id_sort(v, v + n, n, 0);
		for (size_t i = 0; i < n; i++)
			order[i] = v[i].index;
		free(v);
	}
	return order;
}

void result_key(struct strbuf *sb, const char *k)
{
	sb_addc(sb, ',');
	sb_addc(sb, '"');
	sb_adds(sb, k);
	sb_adds(sb, "\":");
}

void result_kstr(struct strbuf *sb, const char *k, const char *v)
{
	result_key(sb, k);
	sb_add_jstr(sb, v, strlen(v));
}

/*
 * Python repr of v, fast for the common case: a value with at most 15 significant digits and
 * at most 9 decimals (times, round6 and round9 values) in [1e-4, 1e15). By DBL_DIG at most one such decimal maps to v, so the
 * first k whose candidate round-trips gives the shortest form; anything else goes through
 * the general formatter. tests/unit/test_sim.c checks it against sb_add_double.
 */
static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

/*
 * The same layout as below for the digits of a 16- or 17-digit repr, given as digits[0..nd)
 * and the decimal exponent e10 of the first digit (nd >= 1, no trailing zeros).
 */
static void layout(struct strbuf *sb, const char *digits, size_t nd, int e10)
{
	if (e10 >= -4 && e10 < 16) {
		if (e10 < 0) {
			sb_add(sb, "0.", 2);
			for (int i = 0; i < -e10 - 1; i++)
				sb_addc(sb, '0');
			sb_add(sb, digits, nd);
		} else {
			for (int i = 0; i <= e10; i++)
				sb_addc(sb, i < (int)nd ? digits[i] : '0');
			sb_addc(sb, '.');
			if ((int)nd > e10 + 1)
				sb_add(sb, digits + e10 + 1, nd - (size_t)e10 - 1);
			else
				sb_addc(sb, '0');
		}
	} else {
		sb_addc(sb, digits[0]);
		if (nd > 1) {
			sb_addc(sb, '.');
			sb_add(sb, digits + 1, nd - 1);
		}
		sb_addf(sb, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
	}
}

typedef unsigned __int128 u128;

/*
 * v = M * 2^-s exactly, M in [2^52, 2^53), and for v in [1e-4, 1e15) s is in [3, 66]. The
 * p-digit decimal of v, correctly rounded (ties to even, as printf %.*e), is D * 10^-k with
 * k = p - 1 - e10 and D = round(M * 10^k / 2^s); M * 10^k < 2^120 fits 128 bits, so all of it
 * is exact integer arithmetic. D round-trips (strtod gives v back) when its distance to v is
 * below half the gap to v's neighbour on that side (ties: M even wins, round-half-even).
 * Returns the decimal exponent of the first digit of the exact value, D and whether D
 * round-trips.
 */
static const u128 *pow10_u128(void)
{
	static u128 t[21];
	if (t[0] == 0) {
		t[0] = 1;
		for (int i = 1; i <= 20; i++)
			t[i] = t[i - 1] * 10;
	}
	return t;
}

static bool digits_at(unsigned long long M, int s, int p, int e10, unsigned long long *D, bool *rt)
{
	const u128 *p10x = pow10_u128();
	int k = p - 1 - e10;
	if (k < 0 || k > 20)
		return false;
	u128 X = (u128)M * p10x[k];
	u128 q = X >> s, r = X & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
	if (q < p10x[p - 1] || q >= p10x[p])
		return false;   /* e10 is not the exponent of v */
	bool up = r > half || (r == half && (q & 1));
	u128 d = up ? q + 1 : q;
	/* distance |d - X/2^s| in units of 2^-s: dist; the neighbour gap in the same units
	 * is 10^k (above, and below unless M is a power of two, where it is 10^k / 2) */
	u128 dist = up ? ((u128)1 << s) - r : r;
	bool below = !up && r != 0;
	u128 lim = p10x[k];
	u128 twice = below && M == (1ULL << 52) ? dist * 4 : dist * 2;
	*rt = twice < lim || (twice == lim && !(M & 1));
	*D = (unsigned long long)d;
	return true;
}

/* Python repr of v in [1e-4, 1e15) when it needs 16 or 17 digits; false to defer. */
static bool exact_repr(struct strbuf *sb, double v)
{
	int bexp;
	double m = frexp(v, &bexp);                       /* v = m * 2^bexp, m in [0.5, 1) */
	unsigned long long M = (unsigned long long)ldexp(m, 53);
	int s = 53 - bexp;
	if (s < 1 || s > 100 || M < (1ULL << 52) || M >= (1ULL << 53))
		return false;
	int e10 = (int)floor(log10(v));
	unsigned long long D;
	bool rt;
	/* log10 can be off by one next to a power of ten: take the e10 whose 15-digit
	 * truncation has exactly 15 digits */
	if (!digits_at(M, s, 15, e10, &D, &rt)) {
		if (digits_at(M, s, 15, e10 - 1, &D, &rt))
			e10--;
		else if (digits_at(M, s, 15, e10 + 1, &D, &rt))
			e10++;
		else
			return false;
	}
	if (rt)
		return false;   /* 15 digits or fewer: the general formatter finds the shortest */
	int p = 16;
	if (!digits_at(M, s, 16, e10, &D, &rt))
		return false;
	if (!rt) {
		p = 17;
		if (!digits_at(M, s, 17, e10, &D, &rt))
			return false;
	}
	char digits[24];
	int nd = p, e = e10;
	/* rounding up may carry into a new digit (10^p): printf then shows 1.000.. at e10 + 1 */
	unsigned long long lim = 1;
	for (int i = 0; i < p; i++)
		lim *= 10;
	if (D >= lim) {
		D /= 10;
		e++;
	}
	for (int i = p - 1; i >= 0; i--) {
		digits[i] = (char)('0' + D % 10);
		D /= 10;
	}
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	layout(sb, digits, (size_t)nd, e);
	return true;
}

/* Room for n more bytes written with put. */
static inline void reserve(struct strbuf *sb, size_t n)
{
	if (sb->len + n + 1 > sb->cap)
		sb_grow(sb, n);
}

/* m / 10^k in fixed notation, at least one digit before the point ("1.0", "0.25") */
static void fixed(struct strbuf *sb, long long m, int k)
{
	char digits[24];
	int n = 0;   /* m's digits, zero-padded to at least k + 1 ("%0*lld" without printf) */
	for (unsigned long long u = (unsigned long long)m; u || n <= k; u /= 10)
		digits[23 - ++n] = (char)('0' + u % 10);
	const char *d = digits + 23 - n;
	/* at most 23 digits, the point and a zero: one growth check, no copies through sb_add */
	reserve(sb, 25);
	char *w = sb->buf + sb->len;
	if (k == 0) {
		memcpy(w, d, (size_t)n);
		w[n] = '.';
		w[n + 1] = '0';
		sb->len += (size_t)n + 2;
	} else {
		memcpy(w, d, (size_t)(n - k));
		w[n - k] = '.';
		memcpy(w + n - k + 1, d + n - k, (size_t)k);
		sb->len += (size_t)n + 1;
	}
	sb->buf[sb->len] = 0;
}

void result_add_double(struct strbuf *sb, double v)
{
	if (v >= 1 && v < 1e15) {
		/* a whole number (most times and counts): what the 6-decimal path below finds, its
		 * digits and ".0", without the search */
		long long m = (long long)v;
		if ((double)m == v) {
			fixed(sb, m, 0);
			return;
		}
	}
	if (v >= 1e-4 && v < 1e15) {
		/* Most values have at most 6 decimals: if the 6-decimal candidate round-trips, its
		 * digits without trailing zeros are the shortest form (any shorter candidate that
		 * round-trips is the same rational, and llround(v * 1e6) finds it exactly: the
		 * product's error is below 0.125 for v * 1e6 < 1e15). If it does not, no shorter
		 * one does either, and 7 to 9 decimals are tried. */
		int k0 = 0;
		if (v * 1e6 < 1e15) {
			long long m = llround(v * 1e6);
			if ((double)m / 1e6 == v) {
				int k = 6;
				while (k > 0 && m % 10 == 0) {
					m /= 10;
					k--;
				}
				fixed(sb, m, k);
				return;
			}
			k0 = 7;
		}
		for (int k = k0; k <= 9; k++) {
			double scaled = v * p10[k];
			if (scaled >= 1e15)
				break;
			long long m = llround(scaled);
			if ((double)m / p10[k] != v)
				continue;
			fixed(sb, m, k);
			return;
		}
	} else if (v == 0 && !signbit(v)) {
		sb_add(sb, "0.0", 3);
		return;
	}
	/* Full-precision values (sums of times): sb_add_double searches precisions 0..16 in
	 * order. If 15 significant digits do not round-trip, no shorter form does either
	 * (DBL_DIG: a <=15-digit decimal comes back from its double unchanged), so the answer
	 * is 16 or 17 digits; find it directly and lay it out the same way. */
	if (v >= 1e-4 && v < 1e15 && exact_repr(sb, v))
		return;
	char tmp[40];
	if (isfinite(v) && v > 0) {
		snprintf(tmp, sizeof tmp, "%.14e", v);
		if (strtod(tmp, NULL) != v) {
			snprintf(tmp, sizeof tmp, "%.15e", v);
			if (strtod(tmp, NULL) != v)
				snprintf(tmp, sizeof tmp, "%.16e", v);
			char digits[24];
			size_t nd = 0;
			const char *p = tmp;
			for (; *p && *p != 'e'; p++)
				if (*p != '.')
					digits[nd++] = *p;
			int e10 = atoi(p + 1);
			while (nd > 1 && digits[nd - 1] == '0')
				nd--;
			layout(sb, digits, nd, e10);
			return;
		}
	}
	sb_add_double(sb, v);
}

void result_kdbl(struct strbuf *sb, const char *k, double v)
{
	result_key(sb, k);
	result_add_double(sb, v);
}

void result_kint(struct strbuf *sb, const char *k, long long v)
{
	result_key(sb, k);
	sb_add_int(sb, v);
}

int result_write(struct nd_writer *w, const struct json *hdr, const struct trace *t, const struct sim_output *o, char *err, size_t errlen)
{
	return result_write_records(w, hdr, t, o, err, errlen) || ndw_end(w, NULL, err, errlen) ? -1 : 0;
}

/* Where the body lines go: a stream (ndw_raw) or only its fingerprint. */
struct line_sink {
	struct nd_writer *w;        /* NULL: hash only */
	struct fp_xxh3 h;
};

/* Start a line in sb: a stream takes one line at a time; the hash takes the lines (each with
 * its newline, what ndw_raw adds to a stream's fingerprint) in batches of about 64 KiB, the
 * same bytes in the same order (XXH3's streaming state does not depend on the split). */
static void sink_begin(const struct line_sink *k, struct strbuf *sb)
{
	if (k->w)
		sb_reset(sb);
}

static int sink_line(struct line_sink *k, struct strbuf *sb, char *err, size_t errlen)
{
	if (k->w)
		return ndw_raw(k->w, sb->buf, sb->len, err, errlen);
	sb_addc(sb, '\n');
	if (sb->len >= 65536) {
		fp_xxh3_update(&k->h, sb->buf, sb->len);
		sb_reset(sb);
	}
	return 0;
}

/* The rest of the batch into the hash. */
static void sink_flush(struct line_sink *k, struct strbuf *sb)
{
	if (!k->w && sb->len) {
		fp_xxh3_update(&k->h, sb->buf, sb->len);
		sb_reset(sb);
	}
}

/* n bytes at the end of sb, within what reserve made room for (NUL added by the caller). */
static inline void put(struct strbuf *sb, const char *p, size_t n)
{
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
}

/* a literal, with its room */
#define PUT(sb, lit) (reserve((sb), sizeof(lit) - 1), put((sb), (lit), sizeof(lit) - 1))

/* s as a JSON string: as sb_add_jstr when nothing needs escaping (ids, models, tenants),
 * else sb_add_jstr itself. Returns with the NUL written. */
static void put_jstr(struct strbuf *sb, const char *s)
{
	size_t n = 0;
	for (unsigned char c; (c = (unsigned char)s[n]) != 0; n++)
		if (c < 0x20 || c == '"' || c == '\\') {
			sb->buf[sb->len] = 0;
			sb_add_jstr(sb, s, strlen(s));
			return;
		}
	reserve(sb, n + 2);
	sb->buf[sb->len++] = '"';
	put(sb, s, n);
	sb->buf[sb->len++] = '"';
	sb->buf[sb->len] = 0;
}

/* issue 36: the physical model's placement_sample records (time order) and its
 * placement_summary (docs/simulator.md §3.13). */
static int placement_lines(struct line_sink *k, struct strbuf *sb, const struct sim_placement_out *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->n_samples; i++) {
		const struct sim_frag_sample *x = &p->samples[i];
		sink_begin(k, sb);
		sb_adds(sb, "{\"type\":\"placement_sample\"");
		result_kdbl(sb, "time_seconds", x->time);
		result_kdbl(sb, "allocated_gpus", x->allocated_gpus);
		result_kdbl(sb, "free_gpus", x->free_gpus);
		result_kdbl(sb, "fragmented_gpus", x->fragmented_gpus);
		result_kdbl(sb, "fragmentation_ratio", x->free_gpus > 0 ? x->fragmented_gpus / x->free_gpus : 0.0);
		sb_addc(sb, '}');
		if (sink_line(k, sb, err, errlen))
			return -1;
	}
	sink_begin(k, sb);
	sb_adds(sb, "{\"type\":\"placement_summary\"");
	result_kstr(sb, "placement_strategy", p->strategy);
	result_kint(sb, "placement_seed", p->seed);
	result_kint(sb, "sample_count", (long long)p->n_samples);
	result_kdbl(sb, "allocation_ratio_mean", p->allocation_ratio_mean);
	result_kdbl(sb, "fragmented_gpus_mean", p->fragmented_gpus_mean);
	result_kdbl(sb, "fragmented_gpus_max", p->fragmented_gpus_max);
	result_kdbl(sb, "fragmentation_ratio_mean", p->fragmentation_ratio_mean);
	result_kint(sb, "unplaced_fragmentation_job_count", p->fragmentation_jobs);
	result_kint(sb, "unplaced_capacity_job_count", p->capacity_jobs);
	sb_addc(sb, '}');
	return sink_line(k, sb, err, errlen);
}

/* The body lines (job_result, run, preemption, cluster) into k; order: result_id_order's
 * (NULL: computed here). */
static int write_body(struct line_sink *k, const struct trace *t, const struct sim_output *o, const size_t *given, char *err,
		      size_t errlen)
{
	struct strbuf sb;
	int rc = -1;
	sb_init(&sb);
	size_t *own = given ? NULL : result_id_order(t, o->n_jobs);
	const size_t *order = given ? given : own;
	/* the job lines are most of a rolling scenario's result (its population holds the whole
	 * backlog): the keys are literals put into room reserved for each piece, the same bytes
	 * as result_kstr, result_kdbl and result_kint give */
	for (size_t x = 0; x < o->n_jobs; x++) {
		const struct trace_job *tj = &t->jobs[order[x]];
		const struct sim_job_result *r = &o->jobs[order[x]];
		sink_begin(k, &sb);
		PUT(&sb, "{\"type\":\"job_result\",\"job_id\":");
		put_jstr(&sb, tj->id);
		if (tj->hp)
			PUT(&sb, ",\"service_class\":\"HP\",\"submit_time_seconds\":");
		else
			PUT(&sb, ",\"service_class\":\"Spot\",\"submit_time_seconds\":");
		result_add_double(&sb, tj->submit);
		PUT(&sb, ",\"start_time_seconds\":");
		result_add_double(&sb, r->start);
		PUT(&sb, ",\"completion_time_seconds\":");
		result_add_double(&sb, r->completion);
		PUT(&sb, ",\"duration_seconds\":");
		result_add_double(&sb, trace_job_run_seconds(tj));
		PUT(&sb, ",\"gpu_count\":");
		result_add_double(&sb, tj->gpus);
		PUT(&sb, ",\"gpu_model\":");
		put_jstr(&sb, tj->model);
		if (t->version == 2) {
			PUT(&sb, ",\"tenant_id\":");
			put_jstr(&sb, tj->tenant ? tj->tenant : "");
		}
		PUT(&sb, ",\"queue_seconds\":");
		result_add_double(&sb, r->queue_seconds);
		PUT(&sb, ",\"jct_seconds\":");
		result_add_double(&sb, r->completion - tj->submit);
		PUT(&sb, ",\"preemption_count\":");
		sb_add_int(&sb, r->preemptions);
		PUT(&sb, ",\"run_count\":");
		sb_add_int(&sb, r->runs);
		if (r->evaluation_population)
			PUT(&sb, ",\"evaluation_population\":true");
		else
			PUT(&sb, ",\"evaluation_population\":false");
		if (trace_job_times_out(tj))
			PUT(&sb, ",\"timed_out\":true");   /* issue 37: ended at its time limit */
		PUT(&sb, "}");
		sb.buf[sb.len] = 0;
		if (sink_line(k, &sb, err, errlen))
			goto out;
	}
	for (size_t i = 0; i < o->n_runs; i++) {
		const struct sim_spot_run *r = &o->runs[i];
		sink_begin(k, &sb);
		sb_adds(&sb, "{\"type\":\"run\"");
		result_kstr(&sb, "job_id", t->jobs[r->job].id);
		result_kint(&sb, "run_ordinal", r->ordinal);
		result_kdbl(&sb, "start_time_seconds", r->start);
		result_kdbl(&sb, "end_time_seconds", r->end);
		result_kstr(&sb, "end_reason", r->completed ? "completed" : "preempted");
		result_kdbl(&sb, "uninterrupted_seconds", r->uninterrupted);
		result_kint(&sb, "guarantee_seconds", r->guarantee);
		result_key(&sb, "guarantee_succeeded");
		sb_adds(&sb, r->guarantee_succeeded ? "true}" : "false}");
		if (sink_line(k, &sb, err, errlen))
			goto out;
	}
	for (size_t i = 0; i < o->n_events; i++) {
		const struct sim_preemption *e = &o->events[i];
		sink_begin(k, &sb);
		sb_adds(&sb, "{\"type\":\"preemption\"");
		result_kdbl(&sb, "time_seconds", e->time);
		result_kstr(&sb, "preempted_job_id", t->jobs[e->victim].id);
		result_kstr(&sb, "triggering_job_id", t->jobs[e->trigger].id);
		result_kdbl(&sb, "rollback_seconds", e->rollback);
		result_kdbl(&sb, "overhead_seconds", e->overhead);
		result_kdbl(&sb, "added_gpu_seconds", e->added_gpu_seconds);
		sb_addc(&sb, '}');
		if (sink_line(k, &sb, err, errlen))
			goto out;
	}
	sink_begin(k, &sb);
	sb_adds(&sb, "{\"type\":\"cluster\"");
	result_kint(&sb, "node_count", (long long)o->node_count);
	result_kint(&sb, "capacity_gpus", o->capacity_gpus);
	result_kdbl(&sb, "simulation_start", o->simulation_start);
	result_kdbl(&sb, "simulation_end", o->simulation_end);
	result_kdbl(&sb, "allocated_gpu_seconds", o->allocated);
	result_kdbl(&sb, "warmup_allocated_gpu_seconds", o->warmup_allocated);
	result_kdbl(&sb, "evaluation_allocated_gpu_seconds", o->evaluation_allocated);
	result_kdbl(&sb, "drain_allocated_gpu_seconds", o->drain_allocated);
	result_kdbl(&sb, "allocation_rate_mean", o->allocation_rate_mean);
	result_kdbl(&sb, "drain_end", o->simulation_end);
	sb_addc(&sb, '}');
	if (sink_line(k, &sb, err, errlen) || (o->placement && placement_lines(k, &sb, o->placement, err, errlen)))
		goto out;
	sink_flush(k, &sb);
	rc = 0;
out:
	free(own);
	sb_release(&sb);
	return rc;
}

int result_write_records(struct nd_writer *w, const struct json *hdr, const struct trace *t, const struct sim_output *o, char *err, size_t errlen)
{
	struct line_sink k = { .w = w };
	return ndw_header(w, hdr, err, errlen) || write_body(&k, t, o, NULL, err, errlen) ? -1 : 0;
}

void result_fingerprint(const struct trace *t, const struct sim_output *o, char fp[FP_HEX_XXH3])
{
	result_fingerprint_ordered(t, o, NULL, fp);
}

void result_fingerprint_ordered(const struct trace *t, const struct sim_output *o, const size_t *order, char fp[FP_HEX_XXH3])
{
	struct line_sink k = { .w = NULL };
	char err[8];
	fp_xxh3_init(&k.h);
	write_body(&k, t, o, order, err, sizeof err);   /* hashing never fails */
	fp_xxh3_hex(&k.h, fp);
	fp_xxh3_release(&k.h);
}
