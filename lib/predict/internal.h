/*
 * internal — what the predict modules share and nobody else needs: the checked readers of
 * controller config fields (both families' configs follow the original's coercions: an
 * integer-valued float is an integer, strings carry no control characters or NUL) and the
 * exact-key-set check. Not a public interface; nothing here prints or exits.
 */
#ifndef SCHEDNAV_PREDICT_INTERNAL_H
#define SCHEDNAV_PREDICT_INTERNAL_H
#include "core/arena.h"
#include "core/json.h"
#include <stdbool.h>
#include <stddef.h>

/* Each reads v (a present key's value) into *out, or returns -1 with "'key' must be ...". */
int pcf_int(const struct json *v, const char *key, long long *out, char *err, size_t errlen);
int pcf_real(const struct json *v, const char *key, double *out, char *err, size_t errlen);
int pcf_bool(const struct json *v, const char *key, bool *out, char *err, size_t errlen);
int pcf_str(const struct json *v, const char *key, const char **out, char *err, size_t errlen);
/* doc must be an object holding every key of required (NULL-terminated) and nothing but
 * those and the optional ones (NULL-terminated, may be NULL). 0 or -1 + message. */
int pcf_keys(const struct json *doc, const char *const *required, const char *const *optional, char *err, size_t errlen);
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

/* guarantee_horizons_hours: a list of at most 64 integers, into an arena array (+1 spare). */
int pcf_horizons(const struct json *h, struct arena *a, long long **out, size_t *n, char *err, size_t errlen);

struct sim_policy;
/* Both families' check_policy hook (ctx = struct pc_sim): the guarantee must fit a
 * horizon; remembers the horizon index and the admission mode. */
int pc_sim_check_policy(void *ctx, const struct sim_policy *p, char *err, size_t errlen);

/* snprintf(err, "%s", msg); returns -1 */
int pcf_fail(char *err, size_t errlen, const char *msg);
#endif
