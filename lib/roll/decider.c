#include "roll/decider.h"
#include "core/clock.h"
#include "core/spawn.h"
#include "core/xalloc.h"
#include "core/zio.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int parse_exec(struct roll_decider *d, const char *p, char *err, size_t errlen)
{
	size_t cap = 0;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != ' ')
			q++;
		d->argv = xgrow(d->argv, &cap, d->argc + 2, sizeof *d->argv);
		d->argv[d->argc++] = xstrndup(p, (size_t)(q - p));
		p = q;
	}
	if (!d->argc) {
		snprintf(err, errlen, "decider 'exec:' names no program");
		return -1;
	}
	d->argv[d->argc] = NULL;
	if (!(d->timeout > 0)) {
		snprintf(err, errlen, "the decider timeout must be > 0 seconds");
		return -1;
	}
	return 0;
}

static int parse_fixed(struct roll_decider *d, const char *arg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	d->fixed_id = arg;
	return 0;
}

static int load_plan(struct roll_decider *d, char *err, size_t errlen);
static int spawn(struct roll_decider *d, char *err, size_t errlen);
static int exec_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		       const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		       struct roll_reply *out);
static int plan_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		       const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		       struct roll_reply *out);
static int fixed_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
			const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
			struct roll_reply *out);
static void exec_stop(struct roll_decider *d);

/* The deciders, in the order the usage names them. */
static const struct roll_decider_ops builtin[] = {
	{ "fixed", "fixed:", "ACTION", false, true, false, false, parse_fixed, NULL, fixed_decide, NULL },
	{ "rule", "rule", NULL, false, true, false, false, NULL, NULL, NULL, NULL },
	{ "oracle", "oracle", NULL, false, false, false, false, NULL, NULL, NULL, NULL },
	{ "exec", "exec:", "CMD", true, true, true, true, parse_exec, spawn, exec_decide, exec_stop },
	{ "plan", "plan:", "FILE", false, true, false, true, NULL, load_plan, plan_decide, NULL },
};
#define N_BUILTIN (sizeof builtin / sizeof builtin[0])
static const struct roll_decider_ops *registered[4];
static size_t n_registered;

static const struct roll_decider_ops *ops_at(size_t i)
{
	return i < N_BUILTIN ? &builtin[i] : i < N_BUILTIN + n_registered ? registered[i - N_BUILTIN] : NULL;
}

int roll_decider_register(const struct roll_decider_ops *ops)
{
	if (n_registered == sizeof registered / sizeof registered[0])
		return -1;
	for (size_t i = 0; ops_at(i); i++)
		if (!strcmp(ops_at(i)->prefix, ops->prefix))
			return -1;
	registered[n_registered++] = ops;
	return 0;
}

int roll_decider_parse(struct roll_decider *d, const char *spec, double timeout, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	d->spec = spec;
	d->timeout = timeout;
	d->pid = -1;
	d->to_child = d->from_child = -1;
	sb_init(&d->inbuf);
	sb_init(&d->outbuf);
	arena_init(&d->plan_arena);
	for (size_t i = 0; ops_at(i); i++) {
		const struct roll_decider_ops *o = ops_at(i);
		size_t pl = strlen(o->prefix);
		if (o->arg ? strncmp(spec, o->prefix, pl) || (!spec[pl] && !o->empty_arg_ok) : strcmp(spec, o->prefix))
			continue;
		d->ops = o;
		return o->parse ? o->parse(d, spec + pl, err, errlen) : 0;
	}
	struct strbuf names;
	sb_init(&names);
	for (size_t i = 0; ops_at(i); i++) {
		const struct roll_decider_ops *o = ops_at(i);
		if (i)
			sb_adds(&names, ops_at(i + 1) ? ", " : " or ");
		sb_adds(&names, o->prefix);
		if (o->arg)
			sb_adds(&names, o->arg);
	}
	snprintf(err, errlen, "unknown decider '%s' (expected %s)", spec, names.buf);
	sb_release(&names);
	return -1;
}

bool roll_decider_deployable(const struct roll_decider *d)
{
	return d->ops->deployable;
}

bool roll_decider_reads_request(const struct roll_decider *d)
{
	return d->ops->reads_request;
}

bool roll_decider_full_request(const struct roll_decider *d)
{
	return d->ops->full_request;
}

const char *roll_decider_kind_name(const struct roll_decider *d)
{
	return d->ops->name;
}

static int load_plan(struct roll_decider *d, char *err, size_t errlen)
{
	const char *path = d->spec + 5;
	char *buf, e[512];
	size_t len, cap = 0;
	if (zio_slurp(path, &buf, &len, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	size_t line = 0;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		line++;
		if (j > i) {
			const char *rid = roll_reply_request_id(&d->plan_arena, buf + i, j - i);
			if (!rid) {
				snprintf(err, errlen, "%s:%zu: not a decision with a string request_id", path, line);
				free(buf);
				return -1;
			}
			for (size_t k = 0; k < d->n_plan; k++)
				if (!strcmp(d->plan[k].request_id, rid)) {
					snprintf(err, errlen, "%s:%zu: a second reply for request '%s'", path, line, rid);
					free(buf);
					return -1;
				}
			d->plan = xgrow(d->plan, &cap, d->n_plan + 1, sizeof *d->plan);
			d->plan[d->n_plan++] = (struct roll_plan_entry){ rid, arena_strndup(&d->plan_arena, buf + i, j - i), j - i, line };
		}
		i = j + 1;
	}
	free(buf);
	return 0;
}

/* The coprocess: its stdin and stdout are pipes to us, its stderr is ours, it keeps no other
 * descriptor of ours, and SIGPIPE kills it as usual. */
static int spawn(struct roll_decider *d, char *err, size_t errlen)
{
	struct spawn_spec sp = { .argv = d->argv, .role = "decider", .in = { SPAWN_PIPE, NULL, 0 }, .out = { SPAWN_PIPE, NULL, 0 },
				 .err = { SPAWN_INHERIT, NULL, 0 }, .flags = SPAWN_SEARCH_PATH | SPAWN_ONLY_STDIO | SPAWN_DEFAULT_SIGPIPE | SPAWN_OWN_GROUP };
	struct spawn_child child;
	if (spawn_start(&sp, &child, err, errlen))
		return -1;
	d->pid = child.pid;
	d->to_child = child.to_child;
	d->from_child = child.from_child;
	fcntl(d->to_child, F_SETFL, O_NONBLOCK);
	return 0;
}

int roll_decider_start(struct roll_decider *d, char *err, size_t errlen)
{
	return d->ops->start ? d->ops->start(d, err, errlen) : 0;
}

static void reap(struct roll_decider *d, bool block)
{
	if (d->pid <= 0 || d->exited)
		return;
	int status;
	pid_t r;
	do
		r = waitpid(d->pid, &status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == d->pid) {
		d->exited = true;
		d->exit_status = status;
	}
}

static void mark_gone(struct roll_decider *d)
{
	if (d->to_child >= 0)
		close(d->to_child);
	if (d->from_child >= 0)
		close(d->from_child);
	d->to_child = d->from_child = -1;
	sb_reset(&d->outbuf);
	reap(d, false);
	if (!d->exited) {
		/* Its stdout is closed but it still runs: it cannot answer anything any more. */
		spawn_end_group(d->pid);
		reap(d, true);
	}
	spawn_end_group(d->pid);        /* and its children with it */
}

static bool was_asked(const struct roll_decider *d, const char *rid)
{
	for (size_t i = 0; rid && i < d->n_asked; i++)
		if (!strcmp(d->asked[i], rid))
			return true;
	return false;
}

/* Exchange one line with the coprocess. */
static int exec_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		       const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		       struct roll_reply *out)
{
	(void)recommended_id, (void)recommended_reason;
	double start = clock_wall(), deadline = start + d->timeout;
	memset(out, 0, sizeof *out);
	if (d->to_child < 0) {
		roll_reply_reject(out, ROLL_REJECT_EXITED, "the decider has exited and is not restarted");
		return ROLL_DECIDE_DONE;
	}
	/* The rest of a request cut off by its timeout goes first: the decider must never see
	 * a line that is one request's start and another's end. */
	struct strbuf msg;
	sb_init(&msg);
	size_t carried = d->outbuf.len;
	if (carried)
		sb_add(&msg, d->outbuf.buf, carried);
	sb_reset(&d->outbuf);
	sb_add(&msg, line, len);
	sb_addc(&msg, '\n');
	size_t sent = 0;
	if (!was_asked(d, request_id)) {
		d->asked = xgrow(d->asked, &d->cap_asked, d->n_asked + 1, sizeof *d->asked);
		d->asked[d->n_asked++] = xstrdup(request_id);
	}
	for (;;) {
		/* A complete line already buffered? */
		char *nl = d->inbuf.len ? memchr(d->inbuf.buf, '\n', d->inbuf.len) : NULL;
		if (nl) {
			size_t ll = (size_t)(nl - d->inbuf.buf);
			char *copy = arena_strndup(a, d->inbuf.buf, ll);
			memmove(d->inbuf.buf, nl + 1, d->inbuf.len - ll - 1);
			d->inbuf.len -= ll + 1;
			d->inbuf.buf[d->inbuf.len] = '\0';
			const char *rid = ll <= ROLL_REPLY_MAX ? roll_reply_request_id(a, copy, ll) : NULL;
			if (rid && strcmp(rid, request_id) && was_asked(d, rid))
				continue;   /* a late or second answer to an earlier request */
			roll_reply_parse(a, copy, ll, request_id, cands, n, out);
			break;
		}
		if (d->inbuf.len > ROLL_REPLY_MAX) {
			char *copy = arena_strndup(a, d->inbuf.buf, d->inbuf.len);
			roll_reply_parse(a, copy, d->inbuf.len, request_id, cands, n, out);
			sb_reset(&d->inbuf);
			/* The rest of that line is unusable: the decider is no longer in step. */
			mark_gone(d);
			break;
		}
		double left = deadline - clock_wall();
		if (left <= 0) {
			roll_reply_reject(out, ROLL_REJECT_TIMEOUT, "no reply within the decider timeout");
			break;
		}
		struct pollfd pf[2] = { { d->from_child, POLLIN, 0 }, { sent < msg.len ? d->to_child : -1, POLLOUT, 0 } };
		int ms = (int)(left * 1000) + 1;
		int pr = poll(pf, 2, ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			roll_reply_reject(out, ROLL_REJECT_EXITED, "poll failed on the decider pipes");
			mark_gone(d);
			break;
		}
		if (pf[1].revents & (POLLOUT | POLLERR | POLLHUP)) {
			ssize_t w = write(d->to_child, msg.buf + sent, msg.len - sent);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				/* EPIPE: it closed its stdin; a reply may still come, so keep reading. */
				close(d->to_child);
				d->to_child = -1;
				sent = msg.len;
			}
		}
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[65536];
			ssize_t r = read(d->from_child, buf, sizeof buf);
			if (r > 0)
				sb_add(&d->inbuf, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				mark_gone(d);
				char *detail = arena_alloc(a, 96);
				if (d->exited && WIFEXITED(d->exit_status))
					snprintf(detail, 96, "the decider exited with status %d before replying", WEXITSTATUS(d->exit_status));
				else if (d->exited && WIFSIGNALED(d->exit_status))
					snprintf(detail, 96, "the decider was killed by signal %d before replying", WTERMSIG(d->exit_status));
				else
					snprintf(detail, 96, "the decider closed its output before replying");
				roll_reply_reject(out, ROLL_REJECT_EXITED, detail);
				break;
			}
		}
	}
	/* Timed out (or answered) with the line not all written: keep its unwritten rest for the
	 * next exchange; a request not begun (the carried rest took the whole time) is not sent. */
	if (d->to_child >= 0 && sent < msg.len)
		sb_add(&d->outbuf, msg.buf + sent, (sent < carried ? carried : msg.len) - sent);
	if (d->to_child < 0 && d->from_child >= 0 && !out->accepted && out->reject_reason && !strcmp(out->reject_reason, ROLL_REJECT_TIMEOUT))
		mark_gone(d);
	sb_release(&msg);
	out->seconds = clock_wall() - start;
	return ROLL_DECIDE_DONE;
}

static int plan_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		       const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
		       struct roll_reply *out)
{
	(void)line, (void)len, (void)recommended_id, (void)recommended_reason;
	for (size_t i = 0; i < d->n_plan; i++)
		if (!strcmp(d->plan[i].request_id, request_id)) {
			roll_reply_parse(a, d->plan[i].line, d->plan[i].len, request_id, cands, n, out);
			return ROLL_DECIDE_DONE;
		}
	memset(out, 0, sizeof *out);
	return ROLL_DECIDE_PENDING;
}

void roll_decider_answer(struct arena *a, const char *request_id, const char *const *cands, size_t n, const char *act,
			 const char *why, struct roll_reply *out)
{
	char buf[1024];
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "{\"type\":\"decision\",\"request_id\":");
	sb_add_jstr(&sb, request_id, strlen(request_id));
	sb_adds(&sb, ",\"action_id\":");
	sb_add_jstr(&sb, act, strlen(act));
	sb_adds(&sb, ",\"reason_code\":");
	snprintf(buf, sizeof buf, "%s", why);
	sb_add_jstr(&sb, buf, strlen(buf));
	sb_addc(&sb, '}');
	char *copy = arena_strndup(a, sb.buf, sb.len);
	roll_reply_parse(a, copy, sb.len, request_id, cands, n, out);
	sb_release(&sb);
}

static int fixed_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
			const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason,
			struct roll_reply *out)
{
	(void)line, (void)len, (void)recommended_id, (void)recommended_reason;
	roll_decider_answer(a, request_id, cands, n, d->fixed_id, "fixed-action", out);
	return ROLL_DECIDE_DONE;
}

int roll_decide(struct roll_decider *d, struct arena *a, const char *line, size_t len, const char *request_id,
		const char *const *cands, size_t n, const char *recommended_id, const char *recommended_reason, struct roll_reply *out)
{
	if (d->ops->decide)
		return d->ops->decide(d, a, line, len, request_id, cands, n, recommended_id, recommended_reason, out);
	/* Built-ins answer through the same validation as an external decider. */
	roll_decider_answer(a, request_id, cands, n, recommended_id, recommended_reason, out);
	return ROLL_DECIDE_DONE;
}

const struct roll_plan_entry *roll_decider_plan_unasked(const struct roll_decider *d, const char *const *asked, size_t n)
{
	for (size_t i = 0; i < d->n_plan; i++) {
		size_t k = 0;
		while (k < n && strcmp(asked[k], d->plan[i].request_id))
			k++;
		if (k == n)
			return &d->plan[i];
	}
	return NULL;
}

static void exec_stop(struct roll_decider *d)
{
	if (d->pid > 0) {
		if (d->to_child >= 0)
			close(d->to_child);
		d->to_child = -1;
		for (int i = 0; i < 100 && !d->exited; i++) {
			reap(d, false);
			if (!d->exited) {
				struct timespec ts = { 0, 10 * 1000 * 1000 };
				nanosleep(&ts, NULL);
			}
		}
		if (!d->exited) {
			spawn_end_group(d->pid);
			reap(d, true);
		}
		/* whatever the decider started (a wrapper's child) ends with it, and no longer
		 * holds our stderr */
		spawn_end_group(d->pid);
		if (d->from_child >= 0)
			close(d->from_child);
		d->from_child = -1;
	}
}

void roll_decider_close(struct roll_decider *d)
{
	if (d->ops && d->ops->stop)
		d->ops->stop(d);
	for (size_t i = 0; i < d->argc; i++)
		free(d->argv[i]);
	free(d->argv);
	for (size_t i = 0; i < d->n_asked; i++)
		free(d->asked[i]);
	free(d->asked);
	free(d->plan);
	sb_release(&d->inbuf);
	sb_release(&d->outbuf);
	arena_release(&d->plan_arena);
	memset(d, 0, sizeof *d);
	d->pid = -1;
	d->to_child = d->from_child = -1;
}
