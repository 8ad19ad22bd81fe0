/*
 * decider — who answers a decision_request (protocol.h). Specs:
 *   fixed:ACTION  always ACTION (rejected like any reply when ACTION is not a candidate);
 *   rule          the workload rule's candidates, answered with the declared hierarchy's
 *                 selection after the v3 hold (`rolling-workload-rule-v1`);
 *   oracle        the whole catalog evaluated on the actual future, answered like rule:
 *                 non-deployable, for analysis only, and marked so in every record;
 *   exec:CMD      an external program run as a coprocess (CMD split on spaces, no shell,
 *                 PATH lookup, stdin/stdout pipes, stderr inherited, SIGPIPE reset): one
 *                 request line in, one reply line out, within the timeout. A reply that names
 *                 an earlier request (late, or a second reply) is discarded; a request cut
 *                 off mid-line by its timeout is finished before the next one is written, so
 *                 the decider only ever sees whole lines; a decider that exits is never
 *                 restarted and every later request is rejected (`decider_exited`);
 *   plan:FILE     recorded replies (one `decision` line per request_id, for agents that
 *                 answer asynchronously); the first request without a reply stops the run
 *                 with a planning checkpoint (ROLL_DECIDE_PENDING); a reply to a request
 *                 the run never asked is an error (roll_decider_plan_unasked).
 * The caller must ignore SIGPIPE (roll does) so a decider closing its stdin is an error
 * code, not a signal. roll_decider_close ends the coprocess: it closes its stdin, waits
 * up to one second, then kills it, and always reaps it. Nothing here prints or exits
 * (the child calls _exit only when exec fails, after reporting errno to the parent).
 */
#ifndef SCHEDNAV_ROLL_DECIDER_H
#define SCHEDNAV_ROLL_DECIDER_H
#include "core/arena.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "roll/protocol.h"
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct roll_plan_entry { const char *request_id; const char *line; size_t len; size_t lineno; };
struct roll_decider;

/* One kind of decider: a row of the table in decider.c (or one registered with
 * roll_decider_register). A new decider is its functions and one row; lib/roll/decision.c
 * asks only the flags below, never the kind. */
struct roll_decider_ops {
	const char *name;           /* the kind's name in records ("rule") */
	const char *prefix;         /* the spec: exactly this when arg is NULL, else this and ARG */
	const char *arg;            /* ARG's name in messages ("ACTION"), NULL: none */
	bool empty_arg_ok;          /* an empty ARG goes to parse (which explains), else unknown */
	bool deployable;            /* false: it sees the actual future (the whole catalog is
	                             * evaluated on it, for analysis only, marked in every record) */
	bool reads_request;         /* it reads the request line (else the line is not built) */
	bool full_request;          /* its request keeps the whole observation (exec: the line;
	                             * plan: the planning checkpoint), else only its fingerprint */
	/* Parse ARG (the spec after the prefix; "" without one): 0 or -1 + message. NULL: none. */
	int (*parse)(struct roll_decider *d, const char *arg, char *err, size_t errlen);
	/* Start it (spawn, read a file): 0 or -1 + message. NULL: nothing to start. */
	int (*start)(struct roll_decider *d, char *err, size_t errlen);
	/* Answer one request as roll_decide does; NULL: the built-in answer (the hierarchy's
	 * recommendation, through the same validation as an external reply). */
	int (*decide)(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		      const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		      struct roll_reply *out);
	/* End what start began (the coprocess); NULL: nothing. */
	void (*stop)(struct roll_decider *d);
};

/* Add a decider kind after the built-in ones (a test build's toy decider; at most 4). The
 * table is read by roll_decider_parse only. 0, or -1 when full or the prefix is taken. */
int roll_decider_register(const struct roll_decider_ops *ops);

/* The built-in answer: the reply {action_id, reason_code} parsed like an external one. */
void roll_decider_answer(struct arena *a, const char *request_id, const char *const *cands, size_t n, const char *action_id,
			 const char *reason, struct roll_reply *out);

struct roll_decider {
	const struct roll_decider_ops *ops;
	const char *spec;                  /* as given */
	const char *fixed_id;              /* fixed:ACTION */
	char **argv;                       /* exec:CMD (malloc'd) */
	size_t argc;
	double timeout;                    /* seconds, exec only */
	pid_t pid;
	int to_child, from_child;          /* -1 when closed */
	bool exited;
	int exit_status;                   /* waitpid status once exited */
	struct strbuf inbuf;               /* bytes read past the last line */
	struct strbuf outbuf;              /* the unwritten rest of a request cut off by its timeout */
	char **asked;                      /* every request id written so far (malloc'd) */
	size_t n_asked, cap_asked;
	struct roll_plan_entry *plan;      /* plan:FILE (malloc'd; strings in plan_arena) */
	size_t n_plan;
	struct arena plan_arena;
};

/* Parse a decider spec; 0 or -1 + message (usage errors). */
int roll_decider_parse(struct roll_decider *d, const char *spec, double timeout, char *err, size_t errlen);
/* Start it: spawn the coprocess, or read the plan. 0 or -1 + message. */
int roll_decider_start(struct roll_decider *d, char *err, size_t errlen);
bool roll_decider_deployable(const struct roll_decider *d);
bool roll_decider_reads_request(const struct roll_decider *d);
bool roll_decider_full_request(const struct roll_decider *d);
const char *roll_decider_kind_name(const struct roll_decider *d);

#define ROLL_DECIDE_DONE 0
#define ROLL_DECIDE_PENDING 1          /* plan:FILE has no reply for this request */

/* Answer one request (request_line without '\n'; request_id; candidate ids; the hierarchy's
 * recommendation). Fills out (accepted or rejected); returns ROLL_DECIDE_DONE or
 * ROLL_DECIDE_PENDING. */
int roll_decide(struct roll_decider *d, struct arena *a, const char *request_line, size_t len, const char *request_id,
		const char *const *candidates, size_t n, const char *recommended_id, const char *recommended_reason,
		struct roll_reply *out);
/* plan:FILE: the first entry (in file order) whose request_id is none of the n asked ids,
 * or NULL (always NULL for a decider without a plan). */
const struct roll_plan_entry *roll_decider_plan_unasked(const struct roll_decider *d, const char *const *asked, size_t n);
/* End the coprocess (if any) and free everything; safe on a parsed-only decider. */
void roll_decider_close(struct roll_decider *d);
#endif
