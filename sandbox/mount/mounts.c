/* The mounts stage: build the sandbox's file system in a fresh tmpfs root
 * with the kernel's fd-based mount API, in the plan's order.
 *
 * Host sources are cloned (open_tree) while the host tree is still
 * visible; then the new root is pivoted in and the old one detached, and
 * every destination is resolved inside the new root with openat2
 * (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so no symlink, absolute or
 * magic, can lead set-up onto the host.
 *
 * This file walks the phases and the operations; below it: mount_api.c
 * (new file systems, attributes, errors), mount_root.c (paths and mounts
 * inside the new root), and one file per kind of operation that needs
 * more than a few lines: mount_overlay.c, mount_proc.c, mount_dev.c. */
#define _GNU_SOURCE
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "messages/messages.h"
#include "lib/lib.h"
#include "plan/plan.h"
#include "mount_api.h"
#include "mount_dev.h"
#include "mount_overlay.h"
#include "mount_proc.h"
#include "mount_root.h"
#include "mount.h"
#include "protect.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* ---- phase 1: while the host tree is visible ---- */

/* Whether OBJ is the file SAME (an fd) is: the path read from SAME's
 * link, opened again here, may lead elsewhere by now. */
static bool same_object(int obj, int same)
{
	struct stat a, b;

	return same < 0 || (fstat(obj, &a) == 0 && fstat(same, &b) == 0 &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* The tree of OP's host source SRC (for --bind-fd, SAME is its fd, and
 * SRC the fd's path).  The current directory is the one hutch runs in,
 * cloned as the object it is ("."), never found again by its path; a
 * bind that makes its source writable is opened once and judged by the
 * persistence guard as the object it is, then that very object cloned.
 * Defends against a sandbox that writes a tree the source's path passes
 * through and swaps a directory of it for a symbolic link (to $HOME)
 * between the parse, which judged the path, and the bind: -2 when the
 * guard refuses what the path leads to now (said in ms->err). */
static int open_bind_source(struct mount_state *ms, const struct fs_op *op, const char *src,
			    int same)
{
	const int how = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE;
	char link[32], real[PATH_MAX];
	ssize_t n;
	int obj, fd;

	if (ms->bwrap || !guard_op_writable(op))
		return open_tree(AT_FDCWD, src, how);
	obj = open(src, O_PATH | O_CLOEXEC);
	if (obj < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/' || !same_object(obj, same)) {
		close(obj);
		errno = n < 0 ? errno : n == 0 || real[0] != '/' ? ENOENT : ESTALE;
		return -1;
	}
	real[n] = '\0';
	if (guard_check_bound(ms->plan, op, "mounts", real, ms->err, ms->errlen) < 0) {
		close(obj);
		return -2;
	}
	fd = open_tree(obj, "", how | AT_EMPTY_PATH);
	close(obj);
	return fd;
}

static int clone_source(struct mount_state *ms, struct fs_op *op, size_t i)
{
	unsigned long long attrs = MOUNT_ATTR_NOSUID;
	int fd;

	if (op->kind == FS_BIND_FD) {
		/* The fd's mount belongs to the caller's mount namespace, which
		 * open_tree() cannot clone from here: bind its path as seen in
		 * this namespace's copy of the host tree (bwrap binds
		 * /proc/self/fd/N). */
		char link[32], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", op->fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0 || target[0] != '/') {
			if (n >= 0)
				errno = ENOENT;
			return mount_op_error(ms, "bind source", link, BW_FIND_SOURCE, link, NULL);
		}
		target[n] = '\0';
		fd = open_bind_source(ms, op, target, op->fd);
		if (fd == -2)
			return -1;
		if (fd < 0)
			return mount_op_error(ms, "bind source", link, BW_FIND_SOURCE, link, NULL);
	} else {
		fd = open_bind_source(ms, op, !ms->bwrap && (op->flags & FS_CWD) ? "." : op->src,
				      -1);
		if (fd == -2)
			return -1;
	}
	if (fd < 0) {
		if (errno == ENOENT && (op->flags & FS_TRY))
			return 0;
		return mount_op_error(ms, "bind source", op->src, BW_FIND_SOURCE, op->src, NULL);
	}
	/* A bind never brings set-uid binaries, nor devices unless asked. */
	if (!(op->flags & FS_DEVICES))
		attrs |= MOUNT_ATTR_NODEV;
	if (op->flags & FS_READONLY)
		attrs |= MOUNT_ATTR_RDONLY;
	if (mount_set_attrs(fd, attrs, true) < 0) {
		close(fd);
		return mount_op_error(ms, "set attributes of", op->src, BW_BIND_FLAGS,
				op->src ? op->src : "", op->dest);
	}
	ms->trees[i] = fd;
	return 0;
}

/* --mirror PATH: keep a host symlink as a symlink (merged /usr). */
static int mirror_source(struct mount_state *ms, struct fs_op *op, size_t i)
{
	char target[PATH_MAX];
	ssize_t n = readlink(op->src, target, sizeof(target) - 1);

	if (n < 0)
		return clone_source(ms, op, i);
	target[n] = '\0';
	ms->links[i] = xstrdup(target);
	return 0;
}

/* hutch mode: a failed operation from a profile names its FILE:LINE, so
 * that the line can be found among composed and included profiles. */
static int failed_op(struct mount_state *ms, size_t i)
{
	const char *origin = ms->plan->ops[i].origin;
	size_t len = strlen(ms->err);

	if (!ms->bwrap && origin && strcmp(origin, "command line") != 0)
		snprintf(ms->err + len, ms->errlen - len, " (%s)", origin);
	return -1;
}

static int clone_sources(struct mount_state *ms)
{
	for (size_t i = 0; i < ms->plan->n_ops; i++) {
		struct fs_op *op = &ms->plan->ops[i];
		int r = 0;

		switch (op->kind) {
		case FS_BIND: case FS_BIND_FD: r = clone_source(ms, op, i); break;
		case FS_OVERLAY: case FS_TMP_OVERLAY: case FS_RO_OVERLAY:
			r = mount_overlay_prepare(ms, op, i);
			break;
		case FS_MIRROR: r = mirror_source(ms, op, i); break;
		case FS_PROC: r = mount_proc_prepare(ms, i); break;
		case FS_DEV: r = mount_dev_prepare(ms, op); break;
		default: break;
		}
		if (r < 0)
			return failed_op(ms, i);
	}
	return 0;
}

/* Mount events must not reach the caller's namespace, nor host mounts
 * appear in the sandbox unasked: bwrap mode keeps bwrap's slave, here,
 * in bwrap's order.  hutch mode made / private before pid 1 was released
 * (mounts_first_private): nothing to do. */
static int make_propagation_private(struct mount_state *ms)
{
	struct mount_attr attr = { .propagation = MS_SLAVE };
	int refused = fault_mount_refused("first-mount");

	if (!ms->bwrap)
		return 0;
	if (refused)
		errno = refused;
	if (refused || mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return mount_op_error(ms, "make private", "/", BW_MAKE_SLAVE, NULL, NULL);
	return 0;
}

int mounts_first_private(void)
{
	struct mount_attr attr = { .propagation = MS_PRIVATE };
	int refused = fault_mount_refused("first-mount");

	if (refused) {
		errno = refused;
		return -1;
	}
	return mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr));
}

/* ---- phase 2: the new root ---- */

/* The new root is attached over a host directory (in this private
 * namespace only) until the tree is built; sources were cloned already,
 * so what it covers does not matter. */
static int attach_new_root(struct mount_state *ms)
{
	int refused = fault_mount_refused("later-mount");
	int root = refused ? -1 : mount_make_tmpfs(0755, 0);

	ms->attach_point = mount_attach_point();
	if (refused)
		errno = refused;
	if (root < 0)
		return mount_op_error(ms, "new root tmpfs", "/", BW_NEWROOT_TMPFS, NULL, NULL);
	if (move_mount(root, "", AT_FDCWD, ms->attach_point, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(root);
		return mount_op_error(ms, "attach new root on", ms->attach_point, BW_NEWROOT_BIND,
				NULL, NULL);
	}
	close(root);
	return mount_root_reopen(ms);
}

static int pivot_into_root(struct mount_state *ms)
{
	if (fchdir(ms->root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		return mount_op_error(ms, "pivot_root to", "new root", BW_PIVOT_ROOT, NULL, NULL);
	/* The old root goes: nothing of the host is left but clones. */
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return mount_op_error(ms, "detach", "old root", BW_UNMOUNT_OLDROOT, NULL, NULL);
	return 0;
}

/* ---- phase 3: the operations, resolved inside the new root ---- */

static bool is_dir_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_overlay(const struct fs_op *op)
{
	return op->kind == FS_OVERLAY || op->kind == FS_TMP_OVERLAY ||
	       op->kind == FS_RO_OVERLAY;
}

static int do_bind(struct mount_state *ms, struct fs_op *op, size_t i)
{
	int tree = ms->trees[i];
	struct mount_text mt = { BW_BIND, op->src ? op->src : "", op->dest };
	int r;

	if (tree < 0)	/* a -try whose source is missing */
		return 0;
	if (is_overlay(op))
		mt = (struct mount_text){ BW_OVERLAY, op->dest, "" };
	r = mount_root_attach(ms, tree, op->dest, is_dir_fd(tree), &mt);
	close(tree);
	ms->trees[i] = -1;
	return r;
}

static int do_tmpfs(struct mount_state *ms, struct fs_op *op)
{
	struct mount_text mt = { BW_MOUNT_TMPFS, op->dest, NULL };
	int at = mount_root_open_mount_point(ms, op->dest, true);
	mode_t mode = op->has_perms ? op->perms : 0755;

	if (at < 0)
		return -1;
	return mount_root_attach_new(ms, at, mount_make_labelled_tmpfs(mode, op->size, ms->plan->file_label),
			  op->dest, "new tmpfs for", &mt);
}

/* Whether AT is the root of a mount of TREE's file system: mount(2), as
 * bwrap calls it, refuses the same file system on the same mount point
 * (EBUSY; the host's /dev/mqueue under systemd, without --unshare-ipc). */
static bool same_fs_mounted_at(int at, int tree)
{
	struct stat a, t;
	struct statx sx;

	return fstat(at, &a) == 0 && fstat(tree, &t) == 0 && a.st_dev == t.st_dev &&
	       statx(at, "", AT_EMPTY_PATH, STATX_INO, &sx) == 0 &&
	       (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

static int do_mqueue(struct mount_state *ms, struct fs_op *op)
{
	struct mount_text mt = { BW_MOUNT_MQUEUE, op->dest, NULL };
	int at = mount_root_open_mount_point(ms, op->dest, true);
	int tree;

	if (at < 0)
		return -1;
	/* bwrap mounts mqueue without nosuid,nodev */
	tree = mount_make_fs_attrs("mqueue", NULL, 0, ms->bwrap ? 0 : MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (tree >= 0 && ms->bwrap && same_fs_mounted_at(at, tree)) {
		close(tree);
		tree = -1;
		errno = EBUSY;
	}
	return mount_root_attach_new(ms, at, tree, op->dest, "new mqueue for", &mt);
}

static int do_dir(struct mount_state *ms, struct fs_op *op)
{
	enum bwrap_text failed;
	int fd = mount_root_make_dir(ms, op->dest, op->has_perms ? op->perms : 0755, &failed);

	if (fd < 0)
		return mount_op_error(ms, "create directory", op->dest, failed, op->dest, NULL);
	close(fd);
	return 0;
}

static int chmod_fd(int fd, mode_t mode)
{
	char path[64];

	if (syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return chmod(path, mode);
}

static int do_chmod(struct mount_state *ms, struct fs_op *op)
{
	int fd = mount_root_resolve(ms, op->dest, O_PATH);
	char mode[16];
	int r = fd < 0 ? -1 : chmod_fd(fd, op->perms);

	if (fd >= 0)
		close(fd);
	snprintf(mode, sizeof(mode), "%#o", (unsigned)op->perms);
	return r < 0 ? mount_op_error(ms, "chmod", op->dest, BW_CHMOD, mode, op->dest) : 0;
}

static int copy_fd(int from, int to)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(from, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));

			if (w < 0)
				return -1;
			off += w;
		}
	return n < 0 ? -1 : 0;
}

/* A regular file only, opened without waiting: what a sandbox left at
 * LEAF in a bound host directory (a FIFO) neither blocks set-up nor
 * takes the data. */
static int create_at(int dirfd, const char *leaf, mode_t mode)
{
	int fd = openat(dirfd, leaf, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC, mode);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Fill the new file FD from FROM and give it MODE. */
static int fill_fd(int fd, mode_t mode, int from)
{
	int r = copy_fd(from, fd);

	return r == 0 ? fchmod(fd, mode) : r;
}

/* Create DEST (or NAME in DIRFD) with MODE and fill it from FD. */
static int fill_file_at(int dirfd, const char *leaf, mode_t mode, int from)
{
	int fd = create_at(dirfd, leaf, mode);
	int r;

	if (fd < 0)
		return -1;
	r = fill_fd(fd, mode, from);
	close(fd);
	return r;
}

static int do_file(struct mount_state *ms, struct fs_op *op)
{
	const char *leaf;
	mode_t mode = op->has_perms ? op->perms : 0666;
	int pfd = mount_root_open_parent(ms, op->dest, &leaf);
	int fd, r;

	if (pfd < 0)
		return mount_op_error(ms, "create parent of", op->dest, BW_MKDIR_PARENTS, op->dest, NULL);
	fd = create_at(pfd, leaf, mode);
	close(pfd);
	r = fd < 0 ? -1 : fill_fd(fd, mode, op->fd);
	if (fd >= 0)
		close(fd);
	fds_retire(op->fd);
	return r < 0 ? mount_op_error(ms, "Can't write data to file", op->dest,
				fd < 0 ? BW_CREATE_FILE : BW_WRITE_DATA, op->dest, NULL) : 0;
}

/* --bind-data: the data lives in a private tmpfs of its own. */
static int do_bind_data(struct mount_state *ms, struct fs_op *op)
{
	int tmp = mount_make_tmpfs(0755, 0);
	int tree = -1, r = -1;
	struct mount_text mt = { BW_BIND, "bindfile", op->dest };

	if (tmp >= 0 && fill_file_at(tmp, "data", op->has_perms ? op->perms : 0600, op->fd) == 0)
		tree = mount_root_clone_tmpfs_file(ms, tmp, "data");
	fds_retire(op->fd);
	if (tree >= 0 && (!(op->flags & FS_READONLY) || mount_set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0))
		r = mount_root_attach(ms, tree, op->dest, false, &mt);
	else
		r = mount_op_error(ms, "Can't write data to file", op->dest, BW_WRITE_DATA, op->dest, NULL);
	if (tree >= 0)
		close(tree);
	if (tmp >= 0)
		close(tmp);
	return r;
}

/* bwrap makes the parents of DEST even for --remount-ro. */
static int remount_parents(struct mount_state *ms, const char *dest)
{
	const char *leaf;
	int pfd;

	if (!ms->bwrap)
		return 0;
	pfd = mount_root_open_parent(ms, dest, &leaf);
	if (pfd < 0)
		return mount_op_error(ms, "create parent of", dest, BW_MKDIR_PARENTS, dest, NULL);
	close(pfd);
	return 0;
}

/* A read-only file DEST holding TEXT, in a private tmpfs of its own,
 * mounted over whatever the profile put there. */
static int mount_text_file(struct mount_state *ms, const char *dest, const char *text)
{
	size_t len = strlen(text);
	int tmp = mount_make_tmpfs(0755, 0), fd = -1, tree = -1, r;
	struct mount_text mt = { BW_BIND, "bindfile", dest };

	if (tmp >= 0)
		fd = create_at(tmp, "data", 0644);
	if (fd >= 0 && write(fd, text, len) == (ssize_t)len && fchmod(fd, 0644) == 0)
		tree = mount_root_clone_tmpfs_file(ms, tmp, "data");
	if (tree >= 0 && mount_set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0)
		r = mount_root_attach(ms, tree, dest, false, &mt);
	else
		r = mount_op_error(ms, "Can't write data to file", dest, BW_WRITE_DATA, dest, NULL);
	if (fd >= 0)
		close(fd);
	if (tree >= 0)
		close(tree);
	if (tmp >= 0)
		close(tmp);
	return r;
}

/* With --allow-net, the sandbox resolves names only through the
 * resolver hutch serves on 127.0.0.1:53 of its network namespace
 * (netproxy_dns.c), which answers only names some rule allows: its
 * /etc/resolv.conf names it (nothing asks glibc for TCP, no use-vc; no
 * search domain makes it ask other names), and its /etc/hosts names
 * localhost only, over whatever the profile bound there. */
static int mount_resolver_files(struct mount_state *ms)
{
	if (mount_text_file(ms, "/etc/resolv.conf", "# hutch: the sandbox's resolver "
			    "(--allow-net)\nnameserver 127.0.0.1\noptions timeout:2 attempts:2\n") < 0)
		return -1;
	return mount_text_file(ms, "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n");
}

/* --remount-ro of a directory that is no mount: bwrap looks for it in
 * the mount table and does not find it. */
static int not_a_mount(struct mount_state *ms, const char *dest)
{
	if (ms->bwrap)
		return mount_op_error(ms, "", dest, BW_REMOUNT_RO_NOT_MOUNT, dest, NULL);
	snprintf(ms->err, ms->errlen, "mounts: --remount-ro %s: not a mount point", dest);
	return -1;
}

static int do_remount_ro(struct mount_state *ms, struct fs_op *op)
{
	int fd, r;

	if (remount_parents(ms, op->dest) < 0)
		return -1;
	fd = mount_root_resolve(ms, op->dest, O_PATH);
	if (fd < 0)
		return mount_op_error(ms, "remount read-only", op->dest, BW_REMOUNT_RO_MISSING,
				op->dest, NULL);
	if (!mount_is_root(fd)) {
		close(fd);
		return not_a_mount(ms, op->dest);
	}
	r = mount_set_attrs(fd, MOUNT_ATTR_RDONLY, false);
	close(fd);
	return r < 0 ? mount_op_error(ms, "remount read-only", op->dest, BW_REMOUNT_RO, op->dest,
				NULL) : 0;
}

static int do_mirror(struct mount_state *ms, struct fs_op *op, size_t i)
{
	if (ms->links[i])
		return mount_root_make_symlink(ms, ms->links[i], op->dest);
	return do_bind(ms, op, i);
}

/* The mode bwrap records for an operation: its --perms, or the kind's
 * default, or 0 for the kinds that create nothing with a mode. */
static mode_t bwrap_op_mode(const struct fs_op *op)
{
	if (op->has_perms)
		return op->perms;
	switch (op->kind) {
	case FS_TMPFS: case FS_DIR: return 0755;
	case FS_FILE: return 0666;
	case FS_BIND_DATA: return 0600;
	default: return 0;
	}
}

/* The parent directories an operation creates: 0755; in bwrap mode, as
 * bwrap makes them, closed to the group where the operation's mode has
 * no group bit, likewise to others. */
static mode_t parent_mode(const struct mount_state *ms, const struct fs_op *op)
{
	mode_t perms = bwrap_op_mode(op), mode = 0755;

	if (!ms->bwrap)
		return mode;
	if (!(perms & 070))
		mode &= ~050u;
	if (!(perms & 07))
		mode &= ~05u;
	return mode;
}

static int do_op(struct mount_state *ms, size_t i)
{
	struct fs_op *op = &ms->plan->ops[i];

	ms->parent_mode = parent_mode(ms, op);
	switch (op->kind) {
	case FS_BIND: case FS_BIND_FD: return do_bind(ms, op, i);
	case FS_OVERLAY: case FS_TMP_OVERLAY: case FS_RO_OVERLAY: return do_bind(ms, op, i);
	case FS_MIRROR: return do_mirror(ms, op, i);
	case FS_REMOUNT_RO: return do_remount_ro(ms, op);
	case FS_PROC: return mount_proc_attach(ms, op, i);
	case FS_DEV: return mount_dev_attach(ms, op);
	case FS_TMPFS: return do_tmpfs(ms, op);
	case FS_MQUEUE: return do_mqueue(ms, op);
	case FS_DIR: return do_dir(ms, op);
	case FS_SYMLINK: return mount_root_make_symlink(ms, op->src, op->dest);
	case FS_CHMOD: return do_chmod(ms, op);
	case FS_FILE: return do_file(ms, op);
	case FS_BIND_DATA: return do_bind_data(ms, op);
	}
	return 0;
}

void mounts_init(struct mount_state *ms, const struct plan *plan, char *err, size_t errlen)
{
	memset(ms, 0, sizeof(*ms));
	ms->plan = plan;
	ms->bwrap = plan->mode == MODE_BWRAP;
	ms->err = err;
	ms->errlen = errlen;
	ms->root = -1;
	ms->private_proc = -1;
	ms->parent_mode = 0755;
	ms->protect_sock = -1;
	ms->trees = xreallocarray(NULL, plan->n_ops, sizeof(int));
	ms->links = xreallocarray(NULL, plan->n_ops, sizeof(char *));
	for (size_t i = 0; i < plan->n_ops; i++) {
		ms->trees[i] = -1;
		ms->links[i] = NULL;
	}
	for (int i = 0; i < N_DEV_NODES; i++)
		ms->dev_nodes[i] = -1;
	ms->console = -1;
}

void mounts_release(struct mount_state *ms)
{
	for (size_t i = 0; i < ms->plan->n_ops; i++) {
		if (ms->trees[i] >= 0)
			close(ms->trees[i]);
		free(ms->links[i]);
	}
	for (int i = 0; i < N_DEV_NODES; i++)
		if (ms->dev_nodes[i] >= 0)
			close(ms->dev_nodes[i]);
	if (ms->console >= 0)
		close(ms->console);
	free(ms->console_src);
	ms->console_src = NULL;
	if (ms->root >= 0)
		close(ms->root);
	free(ms->trees);
	free(ms->links);
	ms->trees = NULL;
	ms->links = NULL;
}

/* Like bwrap: --chdir; else the same directory if the sandbox has it;
 * else, in bwrap mode, $HOME as COMMAND will have it; else /.  ms->pwd
 * names the one entered as it was reached. */
static int enter_cwd(struct mount_state *ms, const char *old_cwd)
{
	const char *dir = ms->plan->chdir;
	const char *home = ms->bwrap ? plan_getenv(ms->plan, "HOME") : NULL;

	/* A later mount over the bound current directory (--tmpfs /tmp
	 * after a profile's bind of /tmp/x): start in /, as hutch(1)
	 * promises, and say which option it was. */
	if (dir && ms->plan->cwd_cover && chdir(dir) < 0) {
		char msg[PATH_MAX + 200];

		snprintf(msg, sizeof(msg), "mounts: the current directory %.*s is not in the "
			 "sandbox, covered by %.*s: COMMAND starts in /", PATH_MAX / 2, dir,
			 PATH_MAX / 2, ms->plan->cwd_cover);
		log_warning(ms->plan->prog, msg);
		dir = NULL;
	} else if (dir && chdir(dir) < 0) {
		return mount_op_error(ms, "chdir", dir, BW_CHDIR, dir, NULL);
	}
	if (!dir && old_cwd[0] && chdir(old_cwd) == 0)
		dir = old_cwd;
	if (!dir && home && chdir(home) == 0)
		dir = home;
	if (!dir && chdir("/") < 0)
		return mount_error(ms, "chdir", "/");
	snprintf(ms->pwd, sizeof(ms->pwd), "%s", dir ? dir : "/");
	return 0;
}

static int build_tree(struct mount_state *ms)
{
	char old_cwd[PATH_MAX];

	if (!getcwd(old_cwd, sizeof(old_cwd)))
		old_cwd[0] = '\0';
	timing_mark(ms->timing, TM_MNT_BEGIN);
	if (make_propagation_private(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_PRIVATE);
	if (clone_sources(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_SOURCES);
	if (attach_new_root(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_ROOT);
	for (size_t i = 0; i < ms->plan->n_ops; i++)
		if (do_op(ms, i) < 0)
			return failed_op(ms, i);
	if (ms->plan->n_net_rules > 0 && (ms->plan->clone_flags & CLONE_NEWNET) &&
	    mount_resolver_files(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_OPS);
	/* While the caller's whole /proc is still in view: the kernel
	 * makes no procfs for a namespace that has none. */
	mount_proc_private(ms);
	if (protect_apply(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_PROTECT);
	if (pivot_into_root(ms) < 0)
		return -1;
	timing_mark(ms->timing, TM_MNT_PIVOT);
	return enter_cwd(ms, old_cwd);
}

/* bwrap builds the tree with umask 0: modes are exactly those asked. */
int mounts_build(struct mount_state *ms)
{
	mode_t umask_before = ms->bwrap ? umask(0) : 0;
	int r = build_tree(ms);

	if (ms->bwrap)
		umask(umask_before);
	return r;
}
