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
 *  - where PATH is missing, its first missing component is made as a
 *    read-only placeholder (an empty directory where components follow
 *    it or PATH ends in "/", else a file holding the path's text, empty
 *    unless --protect-git gave one) and bound read-only over itself, so
 *    that it cannot be created: a missing .git/hooks/pre-commit would
 *    otherwise run outside at the next commit.
 *
 * The kernel needs a mount point to exist, so a placeholder is made in
 * the directory that lacks it, the host's own when that directory is
 * bound in.  What keeps it from outliving the run:
 *
 *  - it carries the extended attribute user.hutch.placeholder, so that
 *    another run finds it is one: it shares it (binds it read-only as it
 *    is) instead of treating it as the user's and making placeholders
 *    inside it;
 *  - every run using it holds a shared flock on it, taken before the
 *    bind and handed with the placeholder's fd to the supervisor, which
 *    keeps it until exit.  At exit the supervisor removes it only if it
 *    gets the lock exclusive (no other run uses it: removing it would
 *    detach the other run's mount) and it is still the same marked,
 *    caller-owned, unchanged placeholder.  The lock goes with the last
 *    fd, so a run killed with SIGKILL holds none: its placeholder is
 *    left marked, and the next run that protects the path shares it and
 *    removes it at its exit.
 */
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
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "messages/messages.h"
#include "mount_root.h"
#include "mount.h"
#include "plan/plan.h"
#include "protect.h"
#include "sandbox.h"
#include "lib/lib.h"

#define MAX_LINKS 40	/* links followed in one PATH, as the kernel's ELOOP */
#define MAX_TRIES 3	/* a placeholder made or removed by another run meanwhile */
#define MARK "user.hutch.placeholder"
#define AGAIN 2		/* step: look at the same component again */

struct protect_state {
	int sock[2];	/* [0] supervisor, [1] pid 1 */
};

/* What pid 1 tells the supervisor about one placeholder, twice: with
 * the fd of its directory (part 0), then with its own (part 1), on which
 * pid 1 took the shared lock. */
struct placeholder_note {
	uint64_t size;		/* of a file: its text's length */
	uint8_t part;
	uint8_t made;		/* made by this run, not found */
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

static bool is_marked(int fd)
{
	return fgetxattr(fd, MARK, NULL, 0) >= 0;
}

/* Remove the placeholder NOTE names in DIR if it is still the one OBJ
 * is, unchanged, and no other run uses it.  A concurrent run holds the
 * shared lock: removing a placeholder it has bound over would detach its
 * mount, and with it the protection. */
static void remove_placeholder(int dir, int obj, const struct placeholder_note *note)
{
	struct stat st, at;

	if (memchr(note->name, '\0', sizeof(note->name)) == NULL || strchr(note->name, '/') ||
	    !note->name[0] || fstat(obj, &st) < 0 || st.st_uid != geteuid() ||
	    !(note->made || is_marked(obj)) || flock(obj, LOCK_EX | LOCK_NB) < 0 ||
	    fstatat(dir, note->name, &at, AT_SYMLINK_NOFOLLOW) < 0 ||
	    at.st_dev != st.st_dev || at.st_ino != st.st_ino)
		return;
	if (S_ISDIR(st.st_mode))
		(void)unlinkat(dir, note->name, AT_REMOVEDIR);	/* fails if not empty */
	else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size == note->size)
		(void)unlinkat(dir, note->name, 0);
}

/* The next note and its fd from SOCK; false when none is left. */
static bool take_note(int sock, uint8_t part, struct placeholder_note *note, int *fd)
{
	if (recv_with_fd(sock, note, sizeof(*note), fd) != (ssize_t)sizeof(*note))
		return false;
	if (note->part == part && *fd >= 0)
		return true;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return true;
}

void protect_finish(struct sandbox *sb)
{
	struct protect_state *ps = sb->protect;
	struct placeholder_note note, obj_note;
	int dir, obj;

	if (!ps)
		return;
	/* The notes wait in the socket: read them without waiting. */
	while (ps->sock[0] >= 0 && take_note(ps->sock[0], 0, &note, &dir)) {
		obj = -1;
		if (dir >= 0 && take_note(ps->sock[0], 1, &obj_note, &obj) && obj >= 0 &&
		    strncmp(note.name, obj_note.name, sizeof(note.name)) == 0)
			remove_placeholder(dir, obj, &note);
		if (obj >= 0)
			close(obj);
		if (dir >= 0)
			close(dir);
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
	const char *text;	/* what a placeholder file holds, or NULL */
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
	return mount_root_resolve(ms, path, flags | O_PATH);
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

static int send_note(struct mount_state *ms, int dir, int obj, const char *name, bool made)
{
	struct placeholder_note note = { .made = made };
	struct stat st;

	if (ms->protect_sock < 0 || fstat(obj, &st) < 0)
		return -1;
	note.size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	snprintf(note.name, sizeof(note.name), "%s", name);
	if (send_with_fd(ms->protect_sock, &note, sizeof(note), dir) != (ssize_t)sizeof(note))
		return -1;
	note.part = 1;
	return send_with_fd(ms->protect_sock, &note, sizeof(note), obj) ==
	       (ssize_t)sizeof(note) ? 0 : -1;
}

static bool still_named(int dir, const char *name, int obj)
{
	struct stat st, at;

	return fstat(obj, &st) == 0 && fstatat(dir, name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
	       at.st_dev == st.st_dev && at.st_ino == st.st_ino;
}

/* NAME in DIR, as OBJ, is bound read-only over itself under a shared
 * lock that the supervisor keeps to exit: whatever run made it as a
 * placeholder does not remove it while this one has it bound (which
 * would detach the mount).  AGAIN when another run removed it before the
 * lock was taken, or holds it exclusive to remove it now; but a file of
 * the user's (not MARKED) that someone else holds locked is bound
 * read-only all the same, unshared. */
static int share_and_bind(struct walk *w, int dir, const char *name, int obj, bool made,
			  bool marked, const char *path)
{
	const char *what = made ? "bind read-only placeholder" : "bind read-only";

	if (flock(obj, LOCK_SH | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			return walk_fail(w, "lock", path);
		if (made || marked)
			return AGAIN;
		return bind_over_itself(obj, true) < 0 ? walk_fail(w, what, path) : 0;
	}
	if (!still_named(dir, name, obj))
		return AGAIN;
	/* Named before the bind: a failure after it still cleans up. */
	if (send_note(w->ms, dir, obj, name, made) < 0 || bind_over_itself(obj, true) < 0)
		return walk_fail(w, what, path);
	return 0;
}

/* PATH exists: read-only over itself, unless its mount is read-only. */
static int protect_plain(struct walk *w, int fd, const char *path)
{
	if (!on_writable_mount(fd))
		return 0;
	return bind_over_itself(fd, true) < 0 ? walk_fail(w, "bind read-only", path) : 0;
}

/* NAME, a directory or regular file in the directory DONE that FD names
 * (O_PATH), opened for real: O_PATH can neither be locked nor asked for
 * an extended attribute.  -1 if it is no longer the same inode. */
static int reopen(struct walk *w, const char *path, int fd, bool is_dir)
{
	struct stat a, b;
	int obj = mount_root_resolve(w->ms, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
				     (is_dir ? O_DIRECTORY : 0));

	if (obj >= 0 && (fstat(fd, &a) < 0 || fstat(obj, &b) < 0 || a.st_dev != b.st_dev ||
			 a.st_ino != b.st_ino)) {
		close(obj);
		errno = ESTALE;
		obj = -1;
	}
	return obj;
}

/* PATH (NAME in DONE), a directory or regular file on a writable mount:
 * shared and bound read-only over itself.  ONLY_MARKED: only if it is a
 * placeholder (of a run still going, or of one killed); 1 if it is not. */
static int share_existing(struct walk *w, int fd, const char *path, const char *name,
			  bool is_dir, bool only_marked)
{
	int obj, dir, r;
	bool marked;

	if (!on_writable_mount(fd) || is_mount_root(fd))
		return only_marked ? 1 : protect_plain(w, fd, path);
	obj = reopen(w, path, fd, is_dir);
	/* Another user's, unreadable: not a placeholder of the caller's. */
	if (obj < 0 && (errno == EACCES || errno == EPERM))
		return only_marked ? 1 : protect_plain(w, fd, path);
	if (obj < 0)
		return walk_fail(w, "open", path);
	marked = is_marked(obj);
	if (only_marked && !marked) {
		close(obj);
		return 1;
	}
	dir = open_in_root(w->ms, w->done, O_DIRECTORY);
	if (dir < 0) {
		close(obj);
		return walk_fail(w, "open", w->done);
	}
	r = share_and_bind(w, dir, name, obj, false, marked, path);
	close(dir);
	close(obj);
	return r;
}

/* PATH exists: read-only over itself; a directory or file shared. */
static int protect_existing(struct walk *w, int fd, const char *path, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return share_existing(w, fd, path, name, S_ISDIR(st.st_mode), false);
	return protect_plain(w, fd, path);
}

/* NAME in DIR, made as an empty directory or a file holding TEXT, and
 * marked; opened read-only.  -1 with errno if it could not be made. */
static int make_placeholder(int dir, const char *name, bool is_dir, const char *text)
{
	int fd, obj;

	if (is_dir) {
		if (mkdirat(dir, name, 0555) < 0)
			return -1;
		obj = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		size_t len = text ? strlen(text) : 0;

		fd = openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0)
			return -1;
		obj = len && write(fd, text, len) != (ssize_t)len ? -1 :
		      openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		close(fd);
	}
	if (obj < 0) {	/* made, but not to be used: not left behind */
		int saved = errno;

		(void)unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0);
		errno = saved;
		return -1;
	}
	/* Without user xattrs (some filesystems) another run cannot tell it
	 * is a placeholder: it still protects it and keeps it locked. */
	(void)fsetxattr(obj, MARK, "1", 1, 0);
	return obj;
}

/* NAME is missing in the directory DONE: a read-only placeholder there,
 * shared and named to the supervisor, bound read-only over itself.
 * Nothing where the directory's mount is read-only or the directory may
 * not be written: nothing can be created there.  AGAIN if another run
 * made it meanwhile. */
static int place_holder(struct walk *w, const char *name, bool is_dir)
{
	char path[PATH_MAX];
	int dir = open_in_root(w->ms, w->done, O_DIRECTORY);
	int obj, r;

	if (dir < 0 || join_path(path, sizeof(path), w->done, name) < 0) {
		if (dir >= 0)
			close(dir);
		return walk_fail(w, "open", w->done);
	}
	if (!on_writable_mount(dir)) {
		close(dir);
		return 0;
	}
	obj = make_placeholder(dir, name, is_dir, is_dir ? NULL : w->text);
	if (obj < 0) {
		/* What set-up may not create there (a directory of another
		 * user's), COMMAND, with the same ids and no capability, may
		 * not either. */
		r = errno == EEXIST ? AGAIN :
		    errno == EACCES || errno == EPERM || errno == EROFS ? 0 :
		    walk_fail(w, is_dir ? "create placeholder directory" :
			      "create placeholder file", path);
		close(dir);
		return r;
	}
	r = share_and_bind(w, dir, name, obj, true, true, path);
	/* Not left behind when it could not be shared (the supervisor's
	 * removal, if it was named, then finds nothing). */
	if (r != 0 && still_named(dir, name, obj))
		(void)unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0);
	close(obj);
	close(dir);
	return r;
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

/* One step of the walk: NAME below DONE.  1 to go on, 0 at the end,
 * AGAIN to look at NAME again. */
static int step(struct walk *w, const char *name, bool last, bool want_dir)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, r = 1;

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
	/* A placeholder directory on the way (.git where there is no
	 * checkout) is shared as it is, not filled with others. */
	if (S_ISDIR(st.st_mode) && !last)
		r = share_existing(w, fd, path, name, true, true);
	if (r != 1) {
		close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode))
		r = follow_link(w, fd, path) < 0 ? -1 : 1;
	else if (last || !S_ISDIR(st.st_mode))
		r = protect_existing(w, fd, path, name);	/* PATH, or a file in its way */
	else
		r = pin(w, fd, path) < 0 ? -1 : 1;
	if (r == 1 && !S_ISLNK(st.st_mode))
		snprintf(w->done, sizeof(w->done), "%s", path);
	close(fd);
	return r;
}

static int protect_one(struct mount_state *ms, const struct protect_path *p)
{
	struct walk w = { .ms = ms, .option = p->path, .text = p->text };
	bool want_dir = p->path[strlen(p->path) - 1] == '/';
	char name[NAME_MAX + 1];
	bool last;
	int r = 1;

	snprintf(w.done, sizeof(w.done), "/");
	snprintf(w.todo, sizeof(w.todo), "%s", p->path);
	while (r == 1 && next_component(&w, name, sizeof(name), &last)) {
		int tries = 0;

		do
			r = step(&w, name, last, want_dir);
		while (r == AGAIN && ++tries < MAX_TRIES);
		if (r == AGAIN) {
			errno = EBUSY;
			r = walk_fail(&w, "share placeholder (made, removed or locked by another "
				      "process meanwhile)", name);
		}
	}
	if (r == 1) {
		/* PATH ended in "." or "..": it is the directory reached. */
		int fd = open_in_root(ms, w.done, O_DIRECTORY);

		if (fd < 0)
			return walk_fail(&w, "open", w.done);
		r = protect_plain(&w, fd, w.done);
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
