/* spawn — subprocesses through posix_spawn (see spawn.h). */
#define _GNU_SOURCE
#include "core/spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Descriptor fd of the child from io; a pipe's child end is pipe_end. */
static void add_io(posix_spawn_file_actions_t *fa, int fd, const struct spawn_io *io, int pipe_end)
{
	switch (io->kind) {
	case SPAWN_INHERIT:
		break;
	case SPAWN_DEVNULL:
		posix_spawn_file_actions_addopen(fa, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
		break;
	case SPAWN_FILE:
		posix_spawn_file_actions_addopen(fa, fd, io->path, O_WRONLY | O_CREAT | O_TRUNC, io->mode);
		break;
	case SPAWN_APPEND:
		posix_spawn_file_actions_addopen(fa, fd, io->path, O_WRONLY | O_CREAT | O_APPEND, io->mode);
		break;
	case SPAWN_PIPE:
		posix_spawn_file_actions_adddup2(fa, pipe_end, fd);
		break;
	case SPAWN_TO_STDOUT:
		posix_spawn_file_actions_adddup2(fa, 1, fd);
		break;
	}
}

static void close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int spawn_start(const struct spawn_spec *s, struct spawn_child *c, char *err, size_t errlen)
{
	const char *role = s->role ? s->role : "", *sp = s->role ? " " : "";
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	c->pid = -1;
	c->to_child = c->from_child = -1;
	if ((s->in.kind == SPAWN_PIPE && pipe2(in, O_CLOEXEC)) || (s->out.kind == SPAWN_PIPE && pipe2(out, O_CLOEXEC))) {
		snprintf(err, errlen, "cannot create pipes for %s%s'%s': %s", role, sp, s->argv[0], strerror(errno));
		close_pipe(in);
		close_pipe(out);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	add_io(&fa, 0, &s->in, in[0]);
	add_io(&fa, 1, &s->out, out[1]);
	add_io(&fa, 2, &s->err, -1);
	if (s->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
	if (s->flags & SPAWN_ONLY_STDIO)
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	short flags = 0;
	if (s->flags & SPAWN_CLEAR_SIGMASK) {
		sigset_t none;
		sigemptyset(&none);
		posix_spawnattr_setsigmask(&at, &none);
		flags |= POSIX_SPAWN_SETSIGMASK;
	}
	if (s->flags & SPAWN_DEFAULT_SIGPIPE) {
		sigset_t pipe_sig;
		sigemptyset(&pipe_sig);
		sigaddset(&pipe_sig, SIGPIPE);
		posix_spawnattr_setsigdefault(&at, &pipe_sig);
		flags |= POSIX_SPAWN_SETSIGDEF;
	}
	if (s->flags & SPAWN_OWN_GROUP) {
		posix_spawnattr_setpgroup(&at, 0);
		flags |= POSIX_SPAWN_SETPGROUP;
	}
	posix_spawnattr_setflags(&at, flags);
	char *const *envp = s->envp ? s->envp : environ;
	int rc = (s->flags & SPAWN_SEARCH_PATH) ? posix_spawnp(&c->pid, s->argv[0], &fa, &at, s->argv, envp)
						 : posix_spawn(&c->pid, s->argv[0], &fa, &at, s->argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	/* The child's ends are the child's alone. */
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (rc) {
		snprintf(err, errlen, "cannot run %s%s'%s': %s", role, sp, s->argv[0], strerror(rc));
		if (in[1] >= 0)
			close(in[1]);
		if (out[0] >= 0)
			close(out[0]);
		c->pid = -1;
		return -1;
	}
	c->to_child = in[1];
	c->from_child = out[0];
	return 0;
}

int spawn_wait(pid_t pid, const char *name, char *err, size_t errlen)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "waiting for '%s': %s", name, strerror(errno));
			return -1;
		}
	return WIFEXITED(st) ? WEXITSTATUS(st) : SPAWN_SIGNALED + WTERMSIG(st);
}

void spawn_end_group(pid_t pid)
{
	if (pid > 0)
		kill(-pid, SIGKILL);    /* ESRCH: the group is already empty */
}

int spawn_wait_group(pid_t pid, const char *name, char *err, size_t errlen)
{
	int rc = spawn_wait(pid, name, err, errlen);
	spawn_end_group(pid);
	return rc;
}

int spawn_run(char *const argv[], const char *cwd, const char *out_path, const char *err_path, char *err, size_t errlen)
{
	static char *const env[] = { "LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin", NULL };
	struct spawn_spec s = {
		.argv = argv, .envp = env, .cwd = cwd, .flags = SPAWN_CLEAR_SIGMASK | SPAWN_OWN_GROUP,
		.in = { SPAWN_DEVNULL, NULL, 0 },
		.out = out_path ? (struct spawn_io){ SPAWN_FILE, out_path, 0644 } : (struct spawn_io){ SPAWN_DEVNULL, NULL, 0 },
		.err = err_path ? (struct spawn_io){ SPAWN_APPEND, err_path, 0644 } : (struct spawn_io){ SPAWN_DEVNULL, NULL, 0 },
	};
	struct spawn_child c;
	if (spawn_start(&s, &c, err, errlen))
		return -1;
	return spawn_wait_group(c.pid, argv[0], err, errlen);
}
