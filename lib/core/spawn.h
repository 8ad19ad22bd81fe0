/*
 * spawn — the one way the tree starts a subprocess: posix_spawn with a fixed argv, never a
 * shell. The caller says where the child's stdin, stdout and stderr go (inherited,
 * /dev/null, a file, a pipe back to the caller) and what else the child gets (a working
 * directory, a fixed environment, PATH search, no descriptor but 0-2, default signal
 * handling); spawn_wait reaps it. Nothing here prints or exits.
 *
 * Users: the MCP bridge runs our tools (spawn_run), report runs gnuplot
 * (lib/report/gnuplot.c), roll talks to an exec: decider as a coprocess (lib/roll/decider.c).
 * Each runs its child in a process group of its own (SPAWN_OWN_GROUP) and ends the whole
 * group when it is done with the child (spawn_end_group): a wrapper script's children
 * (a `sleep`, an interpreter) never outlive it holding our stderr or a pipe.
 */
#ifndef SCHEDNAV_CORE_SPAWN_H
#define SCHEDNAV_CORE_SPAWN_H
#include <stddef.h>
#include <sys/types.h>

/* spawn_wait's value for a child a signal ended: SPAWN_SIGNALED + the signal number, never
 * mistaken for an exit status (130 is an exit status). */
#define SPAWN_SIGNALED 256

enum spawn_io_kind {
	SPAWN_INHERIT,     /* the caller's descriptor */
	SPAWN_DEVNULL,     /* /dev/null */
	SPAWN_FILE,        /* path, created or truncated, with mode */
	SPAWN_APPEND,      /* path, created or appended to, with mode */
	SPAWN_PIPE,        /* a pipe to the caller (stdin: to_child; stdout: from_child) */
	SPAWN_TO_STDOUT,   /* stderr only: wherever stdout goes */
};

struct spawn_io {
	enum spawn_io_kind kind;
	const char *path;
	mode_t mode;
};

enum {
	SPAWN_SEARCH_PATH = 1,      /* argv[0] without a '/' is looked up in PATH */
	SPAWN_CLEAR_SIGMASK = 2,    /* the child starts with no signal blocked */
	SPAWN_DEFAULT_SIGPIPE = 4,  /* the child starts with SIGPIPE at its default action */
	SPAWN_ONLY_STDIO = 8,       /* the child inherits no descriptor but 0, 1 and 2 */
	SPAWN_OWN_GROUP = 16,       /* the child leads a new process group (its pid is the group id) */
};

struct spawn_spec {
	char *const *argv;
	char *const *envp;          /* NULL: the caller's environment */
	const char *cwd;            /* NULL: the caller's */
	const char *role;           /* names the child in messages: "ROLE 'ARGV0'" (NULL: "'ARGV0'") */
	struct spawn_io in, out, err;
	int flags;                  /* SPAWN_* above */
};

struct spawn_child {
	pid_t pid;
	int to_child, from_child;   /* the caller's ends of SPAWN_PIPE (O_CLOEXEC), else -1 */
};

/* Start the child: 0, or -1 + "cannot run 'ARGV0': why" (no child is left). */
int spawn_start(const struct spawn_spec *s, struct spawn_child *c, char *err, size_t errlen);
/* Wait for the child pid (name for the message): its exit status (0..255), SPAWN_SIGNALED +
 * the signal number when a signal ended it, or -1 + "waiting for 'NAME': why". */
int spawn_wait(pid_t pid, const char *name, char *err, size_t errlen);
/* End every process left in the group of a child started with SPAWN_OWN_GROUP (SIGKILL;
 * the child itself included when it still runs). No-op for pid <= 0. */
void spawn_end_group(pid_t pid);
/* spawn_wait, then spawn_end_group: the child's own children end with it. */
int spawn_wait_group(pid_t pid, const char *name, char *err, size_t errlen);
/* Run one of our tools to its end: argv[0] (an absolute path) in cwd, in a process group of
 * its own ended with it, a fixed environment (LC_ALL=C, TZ=UTC, PATH=/usr/bin:/bin), no signal blocked, stdin from /dev/null, stdout
 * to out_path (NULL: /dev/null), stderr appended to err_path (NULL: /dev/null). Returns
 * what spawn_wait does, or -1 + message. */
int spawn_run(char *const argv[], const char *cwd, const char *out_path, const char *err_path, char *err, size_t errlen);
#endif
