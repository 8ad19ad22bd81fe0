/* workspace — ids and refs confined to one root (see workspace.h). */
#include "agents/workspace.h"
#include "agents/jschema.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ag_ws_open(struct workspace *ws, const char *root, char *err, size_t errlen)
{
	ws->root_fd = -1;
	ws->root = NULL;
	char *abs = realpath(root, NULL);
	if (!abs) {
		snprintf(err, errlen, "workspace '%s': %s", root, strerror(errno));
		return -1;
	}
	int fd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "workspace '%s': %s", root, strerror(errno));
		free(abs);
		return -1;
	}
	ws->root_fd = fd;
	ws->root = abs;
	return 0;
}

void ag_ws_close(struct workspace *ws)
{
	if (ws->root_fd >= 0)
		close(ws->root_fd);
	free(ws->root);
	ws->root_fd = -1;
	ws->root = NULL;
}

bool ag_ws_id_ok(const char *id)
{
	size_t n = strlen(id);
	if (n < 1 || n > 128 || !((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= '0' && id[0] <= '9')))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = id[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static bool ref_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool ag_ws_ref_ok(const char *ref)
{
	size_t n = strlen(ref);
	if (n == 0 || n > WS_REF_MAX)
		return false;
	bool start = true;
	for (size_t i = 0; i < n; i++) {
		char c = ref[i];
		if (c == '/') {
			if (start)
				return false;   /* leading '/' or "//" */
			start = true;
			continue;
		}
		if (!ref_char(c) || (start && (c == '.' || c == '-')))
			return false;   /* ".", "..", hidden names; "-x" would read as an option (WS_REF_PATTERN) */
		start = false;
	}
	return !start;
}

/* Walk the directory components of ref from the root with O_NOFOLLOW; the parent's fd and the
 * last component's offset, or -1. */
static int walk_parent(const struct workspace *ws, const char *ref, bool create, size_t *last, char *err, size_t errlen)
{
	if (!ag_ws_ref_ok(ref)) {
		snprintf(err, errlen, "'%.*s' is not a relative reference inside the workspace", ag_utf8_clip(ref, 600), ref);
		return -1;
	}
	int dir = dup(ws->root_fd);
	size_t pos = 0;
	for (;;) {
		const char *slash = strchr(ref + pos, '/');
		if (!slash)
			break;
		char comp[WS_REF_MAX + 1];
		size_t len = (size_t)(slash - (ref + pos));
		memcpy(comp, ref + pos, len);
		comp[len] = 0;
		if (create && mkdirat(dir, comp, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "'%.600s': %s", ref, strerror(errno));
			close(dir);
			return -1;
		}
		int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0) {
			snprintf(err, errlen, "'%.600s': %s", ref, errno == ELOOP || errno == ENOTDIR ? "a component is a symlink or not a directory" : strerror(errno));
			return -1;
		}
		dir = next;
		pos = (size_t)(slash - ref) + 1;
	}
	*last = pos;
	return dir;
}

int ag_ws_open_file(const struct workspace *ws, const char *ref, char *err, size_t errlen)
{
	size_t last;
	int dir = walk_parent(ws, ref, false, &last, err, errlen);
	if (dir < 0)
		return -1;
	/* O_NONBLOCK: opening a FIFO must not hang the server before fstat refuses it */
	int fd = openat(dir, ref + last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dir);
	if (fd < 0) {
		snprintf(err, errlen, "'%.600s': %s", ref, errno == ELOOP ? "is a symlink" : strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%.600s' is not a regular file", ref);
		close(fd);
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

int ag_ws_mkdirs(const struct workspace *ws, const char *ref, char *err, size_t errlen)
{
	/* "REF/x": every component of REF becomes a directory to create or enter */
	char probe[WS_REF_MAX + 3];
	size_t last;
	if (strlen(ref) > WS_REF_MAX - 2) {
		snprintf(err, errlen, "'%.600s' is too long", ref);
		return -1;
	}
	snprintf(probe, sizeof probe, "%s/x", ref);
	int dir = walk_parent(ws, probe, true, &last, err, errlen);
	if (dir < 0)
		return -1;
	close(dir);
	return 0;
}
