/* --protect PATH.  After every other mount, in the new root, before
 * pivot_root:
 *
 *  - PATH is resolved inside the new root one component at a time
 *    (openat2 RESOLVE_IN_ROOT, never following a link by itself), so
 *    that every directory and link on the way is known;
 *  - each of them on a writable mount is bound over itself (a link
 *    included): a mount point cannot be renamed, removed or replaced
 *    (EBUSY), so `mv .git .git.old; mkdir .git` or a link swapped for
 *    a directory cannot put another PATH in its place;
 *  - PATH itself is bound read-only over itself, recursively; a file
 *    standing where PATH needs a directory (a worktree's .git file) is
 *    protected instead, since it decides where PATH leads;
 *  - where PATH is missing, its first missing component is made as an
 *    empty read-only placeholder (a directory where components follow it
 *    or PATH ends in "/", else a file) and bound read-only over itself,
 *    so that it cannot be created: a missing .git/hooks/pre-commit would
 *    otherwise run outside at the next commit.
 *
 * The kernel needs a mount point to exist, so a placeholder is made in
 * the directory that lacks it, the host's own when that directory is
 * bound in.  pid 1 names each one to the supervisor (its directory's fd,
 * its name and inode), which removes it at exit if it is still the empty
 * placeholder made. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "mount_root.h"
#include "mounts.h"
#include "plan.h"
#include "protect.h"
#include "sandbox.h"
#include "stage_fail.h"
#include "util.h"

#define MAX_LINKS 40	/* links followed in one PATH, as the kernel's ELOOP */

struct protect_state {
	int sock[2];	/* [0] supervisor, [1] pid 1 */
};

/* What pid 1 tells the supervisor about one placeholder. */
struct placeholder_note {
	uint64_t dev, ino;
	uint8_t is_dir;
	char name[NAME_MAX + 1];
};

/* ---- parse ---- */

static const char *bound_cwd(const struct plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].flags & FS_CWD)
			return plan->ops[i].dest;
	return NULL;
}

int protect_resolve(struct plan *plan, char *err, size_t errlen)
{
	const char *cwd = bound_cwd(plan);

	for (size_t i = 0; i < plan->n_protect; i++) {
		struct protect_path *p = &plan->protect[i];
		char *abs;

		if (strspn(p->path, "/") == strlen(p->path)) {
			snprintf(err, errlen, "--protect %s (%s): the whole tree; bind it "
				 "read-only instead", p->path, p->origin);
			return -1;
		}
		if (p->path[0] == '/')
			continue;
		if (!cwd || cwd[0] != '/') {
			snprintf(err, errlen, "--protect %s (%s): a relative path is taken "
				 "against the bound current directory, and none is bound "
				 "(--bind-cwd or --ro-bind-cwd)", p->path, p->origin);
			return -1;
		}
		abs = xasprintf("%s/%s", cwd, p->path);
		free(p->path);
		p->path = abs;
	}
	return 0;
}

/* ---- supervisor ---- */

int protect_prepare(struct sandbox *sb)
{
	struct protect_state *ps;

	if (sb->plan->n_protect == 0)
		return 0;
	ps = calloc(1, sizeof(*ps));
	if (!ps) {
		errno = ENOMEM;
		return stage_fail(sb, "allocate", "--protect");
	}
	ps->sock[0] = ps->sock[1] = -1;
	sb->protect = ps;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ps->sock) < 0)
		return stage_fail(sb, "socketpair", "for --protect");
	return 0;
}

int protect_take_socket(struct sandbox *sb)
{
	struct protect_state *ps = sb->protect;
	int fd;

	if (!ps)
		return -1;
	close(ps->sock[0]);
	ps->sock[0] = -1;
	fd = ps->sock[1];
	ps->sock[1] = -1;
	return fd;
}

/* Remove the placeholder NOTE names in DIR if it is still the one made:
 * the same inode, and empty. */
static void remove_placeholder(int dir, const struct placeholder_note *note)
{
	struct stat st;

	if (memchr(note->name, '\0', sizeof(note->name)) == NULL || strchr(note->name, '/') ||
	    fstatat(dir, note->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if ((uint64_t)st.st_dev != note->dev || (uint64_t)st.st_ino != note->ino)
		return;
	if (note->is_dir && S_ISDIR(st.st_mode))
		(void)unlinkat(dir, note->name, AT_REMOVEDIR);	/* fails if not empty */
	else if (!note->is_dir && S_ISREG(st.st_mode) && st.st_size == 0)
		(void)unlinkat(dir, note->name, 0);
}

void protect_finish(struct sandbox *sb)
{
	struct protect_state *ps = sb->protect;
	struct placeholder_note note;
	int dir;

	if (!ps)
		return;
	/* The notes wait in the socket: read them without waiting. */
	while (ps->sock[0] >= 0 &&
	       recv_with_fd(ps->sock[0], &note, sizeof(note), &dir) == (ssize_t)sizeof(note)) {
		if (dir >= 0) {
			remove_placeholder(dir, &note);
			close(dir);
		}
	}
	if (ps->sock[0] >= 0)
		close(ps->sock[0]);
	if (ps->sock[1] >= 0)
		close(ps->sock[1]);
	free(ps);
	sb->protect = NULL;
}

/* ---- pid 1: the mounts ---- */

struct walk {
	struct mount_state *ms;
	const char *option;	/* PATH as given, for messages */
	char done[PATH_MAX];	/* resolved so far: directories only, no link */
	char todo[PATH_MAX];	/* what is left to resolve */
	int links;
};

static int walk_fail(struct walk *w, const char *what, const char *obj)
{
	char detail[PATH_MAX + 64];

	snprintf(detail, sizeof(detail), "%s (--protect %s)", obj, w->option);
	return log_fail(w->ms->err, w->ms->errlen, "mounts", what, detail, errno);
}

static int open_in_root(struct mount_state *ms, const char *path, int flags)
{
	return root_resolve(ms, path, flags | O_PATH);
}

/* DIR/NAME into OUT; -1 with ENAMETOOLONG if it does not fit. */
static int join_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static bool on_writable_mount(int fd)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_RDONLY);
}

static bool is_mount_root(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) < 0)
		return false;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* Bind what FD names over itself; READONLY: recursively read-only. */
static int bind_over_itself(int fd, bool readonly)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};
	int tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
			     AT_RECURSIVE);
	int r;

	if (tree < 0)
		return -1;
	r = readonly ? mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
				     sizeof(attr)) : 0;
	if (r == 0)
		r = move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	close(tree);
	return r;
}

/* A directory or link on the way to PATH, on a writable mount, is pinned
 * in place: as a mount point it cannot be renamed, removed or replaced. */
static int pin(struct walk *w, int fd, const char *path)
{
	if (!on_writable_mount(fd) || is_mount_root(fd))
		return 0;
	return bind_over_itself(fd, false) < 0 ? walk_fail(w, "pin", path) : 0;
}

/* PATH exists: read-only over itself, unless its mount is read-only. */
static int protect_existing(struct walk *w, int fd, const char *path)
{
	if (!on_writable_mount(fd))
		return 0;
	return bind_over_itself(fd, true) < 0 ? walk_fail(w, "bind read-only", path) : 0;
}

static int send_note(struct mount_state *ms, int dir, const char *name, int fd, bool is_dir)
{
	struct placeholder_note note = { .is_dir = is_dir };
	struct stat st;

	if (ms->protect_sock < 0 || fstat(fd, &st) < 0)
		return -1;
	note.dev = (uint64_t)st.st_dev;
	note.ino = (uint64_t)st.st_ino;
	snprintf(note.name, sizeof(note.name), "%s", name);
	return send_with_fd(ms->protect_sock, &note, sizeof(note), dir) ==
	       (ssize_t)sizeof(note) ? 0 : -1;
}

/* NAME is missing in the directory DONE: an empty read-only placeholder
 * there, named to the supervisor, bound read-only over itself.  Nothing
 * where the directory's mount is read-only or the directory may not be
 * written: nothing can be created there. */
static int place_holder(struct walk *w, const char *name, bool is_dir)
{
	char path[PATH_MAX];
	int dir = open_in_root(w->ms, w->done, O_DIRECTORY);
	int fd = -1, r = -1;

	if (dir < 0 || join_path(path, sizeof(path), w->done, name) < 0) {
		if (dir >= 0)
			close(dir);
		return walk_fail(w, "open", w->done);
	}
	if (!on_writable_mount(dir)) {
		close(dir);
		return 0;
	}
	if (is_dir)
		r = mkdirat(dir, name, 0555);
	else if ((fd = openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			      0444)) >= 0)
		r = close(fd);
	/* What set-up may not create there (a directory of another user's),
	 * COMMAND, with the same ids and no capability, may not either. */
	if (r < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		close(dir);
		return 0;
	}
	fd = r == 0 ? openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0) {
		close(dir);
		return walk_fail(w, is_dir ? "create placeholder directory" :
				 "create placeholder file", path);
	}
	/* Named before the bind: a failure after it still cleans up. */
	r = send_note(w->ms, dir, name, fd, is_dir);
	if (r == 0)
		r = bind_over_itself(fd, true);
	close(fd);
	close(dir);
	return r < 0 ? walk_fail(w, "bind read-only placeholder", path) : 0;
}

/* Take the next component of W->todo into NAME; false at the end. */
static bool next_component(struct walk *w, char *name, size_t len, bool *last)
{
	char *p = w->todo + strspn(w->todo, "/");
	size_t n = strcspn(p, "/");

	if (n == 0)
		return false;
	snprintf(name, len, "%.*s", (int)n, p);
	memmove(w->todo, p + n, strlen(p + n) + 1);
	*last = w->todo[strspn(w->todo, "/")] == '\0';
	return true;
}

/* DONE/NAME is a link: pin it, and go on with its target spliced in. */
static int follow_link(struct walk *w, int fd, const char *path)
{
	char target[PATH_MAX], rest[PATH_MAX];
	ssize_t n;

	if (pin(w, fd, path) < 0)
		return -1;
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0)
		return walk_fail(w, "read link", path);
	target[n] = '\0';
	if (++w->links > MAX_LINKS) {
		errno = ELOOP;
		return walk_fail(w, "resolve", path);
	}
	if (join_path(rest, sizeof(rest), target, w->todo) < 0)
		return walk_fail(w, "resolve", path);
	memcpy(w->todo, rest, sizeof(rest));
	if (target[0] == '/')
		snprintf(w->done, sizeof(w->done), "/");
	return 0;
}

static void go_up(struct walk *w)
{
	char *slash = strrchr(w->done, '/');

	if (slash && slash != w->done)
		*slash = '\0';
	else
		snprintf(w->done, sizeof(w->done), "/");
}

/* One step of the walk: NAME below DONE.  1 to go on, 0 at the end. */
static int step(struct walk *w, const char *name, bool last, bool want_dir)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, r;

	if (strcmp(name, ".") == 0)
		return 1;
	if (strcmp(name, "..") == 0) {
		go_up(w);
		return 1;
	}
	if (join_path(path, sizeof(path), w->done, name) < 0)
		return walk_fail(w, "open", w->done);
	fd = open_in_root(w->ms, path, O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return place_holder(w, name, !last || want_dir);
	if (fd < 0 || fstat(fd, &st) < 0)
		return walk_fail(w, "open", path);
	if (S_ISLNK(st.st_mode))
		r = follow_link(w, fd, path) < 0 ? -1 : 1;
	else if (last || !S_ISDIR(st.st_mode))
		r = protect_existing(w, fd, path);	/* PATH, or a file in its way */
	else
		r = pin(w, fd, path) < 0 ? -1 : 1;
	if (r == 1 && !S_ISLNK(st.st_mode))
		snprintf(w->done, sizeof(w->done), "%s", path);
	close(fd);
	return r;
}

static int protect_one(struct mount_state *ms, const struct protect_path *p)
{
	struct walk w = { .ms = ms, .option = p->path };
	bool want_dir = p->path[strlen(p->path) - 1] == '/';
	char name[NAME_MAX + 1];
	bool last;
	int r = 1;

	snprintf(w.done, sizeof(w.done), "/");
	snprintf(w.todo, sizeof(w.todo), "%s", p->path);
	while (r == 1 && next_component(&w, name, sizeof(name), &last))
		r = step(&w, name, last, want_dir);
	if (r == 1) {
		/* PATH ended in "." or "..": it is the directory reached. */
		int fd = open_in_root(ms, w.done, O_DIRECTORY);

		if (fd < 0)
			return walk_fail(&w, "open", w.done);
		r = protect_existing(&w, fd, w.done);
		close(fd);
	}
	return r < 0 ? -1 : 0;
}

int protect_apply(struct mount_state *ms)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < ms->plan->n_protect; i++)
		r = protect_one(ms, &ms->plan->protect[i]);
	if (ms->protect_sock >= 0)
		close(ms->protect_sock);
	ms->protect_sock = -1;
	return r;
}
