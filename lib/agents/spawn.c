/* spawn — fixed-argv subprocesses (see spawn.h). */
#define _GNU_SOURCE
#include "agents/spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int spawn_run(char *const argv[], const char *cwd, const char *out_path, const char *err_path, char *err, size_t errlen)
{
	static char *const env[] = { "LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "waiting for '%s': %s", argv[0], strerror(errno));
			return -1;
		}
	return WIFEXITED(st) ? WEXITSTATUS(st) : SPAWN_SIGNALED + WTERMSIG(st);   /* never mistaken for exit 130 */
}
