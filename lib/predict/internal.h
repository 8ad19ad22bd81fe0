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
enum pcf_type {
	PCF_STR,        /* const char * (an identifier, text_id_problem) */
	PCF_INT,        /* long long (an integer-valued float is an integer) */
	PCF_REAL,       /* double, finite */
	PCF_BOOL,       /* bool */
	PCF_HORIZONS,   /* long long * (count at count_offset): a list of at most 64 integers */
};
#define PCF_OPTIONAL 1u     /* PCF_STR only: may be absent (then NULL, and not in the dict) */
#define PCF_DICT_LAST 2u    /* the dict writes it after every other row (the original's to_dict() order) */
#define PCF_POSITIVE 4u     /* in the family's "must be positive" group (pcf_any_not_positive) */
#define PCF_CHECK_LATE 8u   /* its check runs after every other row is read, lists excepted */

struct pcf_field {
	const char *key;
	enum pcf_type type;
	size_t offset;          /* of the value in the family's config struct */
	size_t count_offset;    /* PCF_HORIZONS: of its size_t count */
	unsigned flags;
	long long max;          /* PCF_INT, > 0: the bound of the family's range group (pcf_any_over_max) */
	/* The value's own rule, run right after the read (PCF_CHECK_LATE: after the others). */
	int (*check)(void *config, char *err, size_t errlen);
};

/* The offset of member m of T, which must have the C type ctype (else no compile). */
#define PCF_MEMBER(T, m, ctype) (offsetof(T, m) + 0 * sizeof(char[_Generic(((T *)0)->m, ctype: 1)]))

/* Read doc into config by the n rows of f: doc must be an object holding every required
 * key and no other; then every scalar row in table order, each followed by its check;
 * then the late checks; then the lists. The first error wins. 0 or -1 + message. */
int pcf_read(const struct pcf_field *f, size_t n, const struct json *doc, void *config, struct arena *a, char *err,
             size_t errlen);
/* The canonical dict of config: the rows in table order, PCF_DICT_LAST ones at the end, an
 * absent optional row left out; ints as ints, reals as reals. */
struct json *pcf_dict(const struct pcf_field *f, size_t n, const void *config, struct arena *a);
/* Whether some PCF_POSITIVE row is <= 0 (a real: not > 0). */
bool pcf_any_not_positive(const struct pcf_field *f, size_t n, const void *config);
/* Whether some PCF_INT row with a max is above it. */
bool pcf_any_over_max(const struct pcf_field *f, size_t n, const void *config);
struct pc_sim;
struct sim_hooks;
struct trace;
/* The evidence window of a run on t: its evaluation window, else [first, last arrival]
 * (family.c; both families open on it). */
void pc_evidence_window(const struct trace *t, double *start, double *end);
/* The tenant family's hooks into h (h->ctx = b already set; tenant/tenant_sim.c). */
void pc_tenant_bind(struct pc_sim *b, struct sim_hooks *h);
/* Its per-pool queue of Spot jobs (tenant/tenant_sim.c), owned by the pc_controller. */
struct tenant_control;
struct pc_tenant_queue;
struct pc_tenant_queue *ptq_new(const struct trace *t, const struct tenant_control *tc);
struct pc_tenant_queue *ptq_clone(const struct pc_tenant_queue *q);
void ptq_free(struct pc_tenant_queue *q);   /* accepts NULL */

struct sim_policy;
/* Both families' check_policy hook (ctx = struct pc_sim): the guarantee must fit a
 * horizon; remembers the horizon index and the admission mode. */
int pc_sim_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen);

/* snprintf(err, "%s", msg); returns -1 */
int pcf_fail(char *err, size_t errlen, const char *msg);
#endif
