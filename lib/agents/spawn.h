/*
 * spawn — run one of our tools as a subprocess with a fixed argv: posix_spawn, never a shell,
 * a fixed environment (LC_ALL=C, TZ=UTC, a plain PATH), a working directory, stdin from
 * /dev/null, stdout and stderr into files. Nothing here prints or exits.
 */
#ifndef SCHEDNAV_AGENTS_SPAWN_H
#define SCHEDNAV_AGENTS_SPAWN_H
#include <stddef.h>

#define SPAWN_SIGNALED 256

/* Run argv[0] (an absolute path) in cwd with stdout to out_path (NULL: /dev/null) and stderr
 * appended to err_path. Returns the exit status (0..255), SPAWN_SIGNALED + the signal number
 * when a signal ended it, or -1 + message. */
int spawn_run(char *const argv[], const char *cwd, const char *out_path, const char *err_path, char *err, size_t errlen);
#endif
