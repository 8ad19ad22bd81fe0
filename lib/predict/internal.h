/*
 * internal — what the predict modules share and nobody else needs: the field tables of
 * the controller configs (both families' configs follow the original's coercions: an
 * integer-valued float is an integer, strings carry no control characters or NUL; the key
 * set is exact). Not a public interface; nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_INTERNAL_H
#define SCHEDNAV_PREDICT_INTERNAL_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

/* One config field: one row of its family's table, which drives the key-set check, the
 * read and the canonical dict (the fingerprinted to_dict()). */
enum pc_field_type {
	PC_FIELD_STR,        /* const char * (an identifier, text_id_problem) */
	PC_FIELD_INT,        /* long long (an integer-valued float is an integer) */
	PC_FIELD_REAL,       /* double, finite */
	PC_FIELD_BOOL,       /* bool */
	PC_FIELD_HORIZONS,   /* long long * (count at count_offset): a list of at most 64 integers */
};
#define PC_FIELD_OPTIONAL 1u     /* PC_FIELD_STR only: may be absent (then NULL, and not in the dict) */
#define PC_FIELD_DICT_LAST 2u    /* the dict writes it after every other row (the original's to_dict() order) */
#define PC_FIELD_POSITIVE 4u     /* in the family's "must be positive" group (pc_field_any_not_positive) */
#define PC_FIELD_CHECK_LATE 8u   /* its check runs after every other row is read, lists excepted */

struct pc_field {
	const char *key;
	enum pc_field_type type;
	size_t offset;          /* of the value in the family's config struct */
	size_t count_offset;    /* PC_FIELD_HORIZONS: of its size_t count */
	unsigned flags;
	long long max;          /* PC_FIELD_INT, > 0: the bound of the family's range group (pc_field_any_over_max) */
	/* The value's own rule, run right after the read (PC_FIELD_CHECK_LATE: after the others). */
	int (*check)(void *config, char *err, size_t errlen);
};

/* The offset of member m of T, which must have the C type ctype (else no compile). */
#define PC_FIELD_MEMBER(T, m, ctype) (offsetof(T, m) + 0 * sizeof(char[_Generic(((T *)0)->m, ctype: 1)]))

/* Read doc into config by the n rows of f: doc must be an object holding every required
 * key and no other; then every scalar row in table order, each followed by its check;
 * then the late checks; then the lists. The first error wins. 0 or -1 + message. */
int pc_field_read(const struct pc_field *f, size_t n, const struct json *doc, void *config, struct arena *a, char *err,
             size_t errlen);
/* The canonical dict of config: the rows in table order, PC_FIELD_DICT_LAST ones at the end, an
 * absent optional row left out; ints as ints, reals as reals. */
struct json *pc_field_dict(const struct pc_field *f, size_t n, const void *config, struct arena *a);
/* Whether some PC_FIELD_POSITIVE row is <= 0 (a real: not > 0). */
bool pc_field_any_not_positive(const struct pc_field *f, size_t n, const void *config);
/* Whether some PC_FIELD_INT row with a max is above it. */
bool pc_field_any_over_max(const struct pc_field *f, size_t n, const void *config);
struct pc_sim;
struct sim_hooks;
struct trace;
/* The evidence window of a run on t: its evaluation window, else [first, last arrival]
 * (family.c; both families open on it). */
void pc_evidence_window(const struct trace *t, double *start, double *end);
/* The tenant family's hooks into h (h->ctx = b already set; tenant/tenant_sim.c). */
void pt_sim_bind(struct pc_sim *b, struct sim_hooks *h);
/* Its per-pool queue of Spot jobs (tenant/tenant_sim.c), owned by the pc_controller. */
struct pt_controller;
struct pt_queue;
struct pt_queue *pt_queue_new(const struct trace *t, const struct pt_controller *tc);
struct pt_queue *pt_queue_clone(const struct pt_queue *q);
void pt_queue_free(struct pt_queue *q);   /* accepts NULL */

struct sim_policy;
/* Both families' check_policy hook (ctx = struct pc_sim): the guarantee must fit a
 * horizon; remembers the horizon index and the admission mode. */
int pc_sim_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen);

/* snprintf(err, "%s", msg); returns -1 */
int pc_field_fail(char *err, size_t errlen, const char *msg);
#endif
