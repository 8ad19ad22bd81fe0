/*
 * workspace — confinement of everything an agent names to one workspace directory. Agents
 * give ids (^[a-z0-9][a-z0-9._-]{0,127}$) and relative refs (POSIX components that do not
 * start with '.' or '-', so no "..", no hidden state, no absolute path, nothing a tool reads as
 * an option); opening a ref walks it one
 * component at a time with O_NOFOLLOW from the root's descriptor, so a symlink anywhere on
 * the way is refused, and the target must be a regular file (or a directory where asked).
 * Nothing here prints or exits: 0 / -1 (or an fd) + message.
 */
#ifndef SCHEDNAV_AGENTS_WORKSPACE_H
#define SCHEDNAV_AGENTS_WORKSPACE_H
#include <stdbool.h>
#include <stddef.h>

#define WS_REF_MAX 512
#define WS_ID_PATTERN "^[a-z0-9][a-z0-9._-]{0,127}$"
#define WS_REF_PATTERN "^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$"

struct workspace {
	int root_fd;
	char *root;          /* absolute path */
};

/* Open the root (a directory, no symlink as its last component). */
int ag_ws_open(struct workspace *ws, const char *root, char *err, size_t errlen);
void ag_ws_close(struct workspace *ws);
bool ag_ws_id_ok(const char *id);
bool ag_ws_ref_ok(const char *ref);
/* Open ref for reading: a regular file reached without a symlink. The fd or -1. */
int ag_ws_open_file(const struct workspace *ws, const char *ref, char *err, size_t errlen);
/* Create the directories of ref (relative, each component checked) under the root. */
int ag_ws_mkdirs(const struct workspace *ws, const char *ref, char *err, size_t errlen);
#endif
