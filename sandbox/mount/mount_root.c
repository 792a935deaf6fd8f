/* Paths and mounts inside the sandbox's new root.  Every path is resolved
 * with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) from the root's
 * fd: a symlink in the tree being built, absolute or magic, cannot lead
 * set-up out of it onto the host.  Mount points are made as bwrap makes
 * them (parents first, a directory or an empty file). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "messages/messages.h"
#include "mount_api.h"
#include "mount_root.h"
#include "mount.h"

int mount_root_resolve(struct mount_state *ms, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, ms->root, path, &how, sizeof(how));
}

/* Split DEST into its parent and last component ("a/b/c" -> "a/b", "c"). */
static void split_path(const char *dest, char *parent, size_t len, const char **leaf)
{
	const char *slash;

	snprintf(parent, len, "%s", dest);
	while (strlen(parent) > 1 && parent[strlen(parent) - 1] == '/')
		parent[strlen(parent) - 1] = '\0';
	slash = strrchr(parent, '/');
	*leaf = dest + (slash ? slash - parent + 1 : 0);
	if (slash == parent)
		parent[1] = '\0';
	else if (slash)
		*(char *)slash = '\0';
	else
		snprintf(parent, len, "/");
}

/* The directory LEAF of the directory PFD, whose path in the root is
 * PATH, with MODE (or the one already there): an O_PATH fd of it. */
static int dir_at(struct mount_state *ms, int pfd, const char *leaf, const char *path,
		  mode_t mode)
{
	if (mkdirat(pfd, leaf, mode) < 0 && errno != EEXIST)
		return -1;
	return mount_root_resolve(ms, path, O_PATH | O_DIRECTORY);
}

/* The parent directory "/" is the root itself: no lookup. */
static int open_dir(struct mount_state *ms, const char *path)
{
	if (strcmp(path, "/") == 0)
		return fcntl(ms->root, F_DUPFD_CLOEXEC, 3);
	return mount_root_resolve(ms, path, O_PATH | O_DIRECTORY);
}

/* mkdir -p inside the root, PATH with MODE and its missing parents with
 * ms->parent_mode; returns an O_PATH fd of PATH. */
int mount_root_make_dirs(struct mount_state *ms, const char *path, mode_t mode)
{
	char parent[PATH_MAX];
	const char *leaf;
	int fd, pfd;

	fd = open_dir(ms, path);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	split_path(path, parent, sizeof(parent), &leaf);
	if (strcmp(parent, path) == 0 || !*leaf)
		return -1;
	pfd = mount_root_make_dirs(ms, parent, ms->parent_mode);
	if (pfd < 0)
		return -1;
	fd = dir_at(ms, pfd, leaf, path, mode);
	close(pfd);
	return fd;
}

int mount_root_open_parent(struct mount_state *ms, const char *dest, const char **leaf)
{
	char parent[PATH_MAX];

	split_path(dest, parent, sizeof(parent), leaf);
	return mount_root_make_dirs(ms, parent, ms->parent_mode);
}

/* The directory PATH with MODE, its parents first; *FAILED says which
 * step failed, in bwrap's terms. */
int mount_root_make_dir(struct mount_state *ms, const char *path, mode_t mode,
		    enum bwrap_text *failed)
{
	const char *leaf;
	int pfd = mount_root_open_parent(ms, path, &leaf);
	int fd;

	*failed = BW_MKDIR_PARENTS;
	if (pfd < 0)
		return -1;
	*failed = BW_MKDIR;
	fd = *leaf ? dir_at(ms, pfd, leaf, path, mode) : mount_root_resolve(ms, path, O_PATH | O_DIRECTORY);
	close(pfd);
	return fd;
}

/* An empty file at DEST, its parents first (see make_dir): an fd of it
 * to mount on (the new file's own, when this made it). */
static int make_file(struct mount_state *ms, const char *dest, enum bwrap_text *failed)
{
	const char *leaf;
	int pfd = mount_root_open_parent(ms, dest, &leaf);
	int fd;

	*failed = BW_MKDIR_PARENTS;
	if (pfd < 0)
		return -1;
	*failed = BW_CREATE_FILE_AT;
	fd = openat(pfd, leaf, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	close(pfd);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	return mount_root_resolve(ms, dest, O_PATH);
}

/* bwrap mode refuses an existing mount point of the other kind as bwrap
 * does, before mounting: a directory wanted where a file is, or the
 * reverse. */
static int check_kind(struct mount_state *ms, int fd, bool dir, enum bwrap_text *failed)
{
	struct stat st;

	if (!ms->bwrap || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode) == dir)
		return fd;
	close(fd);
	*failed = dir ? BW_MKDIR : BW_CREATE_FILE_AT;
	errno = dir ? ENOTDIR : EISDIR;
	return -1;
}

/* Open DEST as a mount point, creating a directory or an empty file. */
static int mount_point(struct mount_state *ms, const char *dest, bool dir,
		       enum bwrap_text *failed)
{
	int fd = mount_root_resolve(ms, dest, O_PATH);

	*failed = BW_MKDIR_PARENTS;	/* a parent that is no directory */
	if (fd >= 0)
		return check_kind(ms, fd, dir, failed);
	if (errno != ENOENT)
		return -1;
	return dir ? mount_root_make_dir(ms, dest, 0755, failed) : make_file(ms, dest, failed);
}

/* FD is the new root's directory itself (compared with its identity as
 * mount_root_reopen saw it). */
static bool is_root(const struct mount_state *ms, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == ms->root_dev && st.st_ino == ms->root_ino;
}

int mount_root_open_mount_point(struct mount_state *ms, const char *dest, bool dir)
{
	enum bwrap_text failed;
	int fd = mount_point(ms, dest, dir, &failed);

	return fd < 0 ? mount_op_error(ms, "create mount point", dest, failed, dest, NULL) : fd;
}

/* The topmost mount at the attach point: a bind onto "/" stacks a mount
 * over the root, and later operations must see it. */
int mount_root_reopen(struct mount_state *ms)
{
	struct stat st;

	if (ms->root >= 0)
		close(ms->root);
	ms->root = open(ms->attach_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ms->root < 0 || fstat(ms->root, &st) < 0)
		return mount_error(ms, "open", "new root");
	ms->root_dev = st.st_dev;
	ms->root_ino = st.st_ino;
	return 0;
}

/* Mount TREE on the mount point FD (which this closes). */
static int attach_at(struct mount_state *ms, int tree, int fd, const char *dest,
		     const struct mount_text *mt)
{
	bool on_root;
	int r = move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);

	on_root = r == 0 && is_root(ms, fd);
	close(fd);
	if (r < 0)
		return mount_op_error(ms, "attach on", dest, mt->id, mt->a, mt->b);
	return on_root ? mount_root_reopen(ms) : 0;
}

int mount_root_attach(struct mount_state *ms, int tree, const char *dest, bool dir,
		  const struct mount_text *mt)
{
	int fd = mount_root_open_mount_point(ms, dest, dir);

	return fd < 0 ? -1 : attach_at(ms, tree, fd, dest, mt);
}

/* A new file system TREE (or its failure, in WHAT's words) on the mount
 * point AT, which bwrap makes before mounting. */
int mount_root_attach_new(struct mount_state *ms, int at, int tree, const char *dest,
		      const char *what, const struct mount_text *mt)
{
	int r;

	if (tree < 0) {
		r = mount_op_error(ms, what, dest, mt->id, mt->a, mt->b);
		close(at);
		return r;
	}
	r = attach_at(ms, tree, at, dest, mt);
	close(tree);
	return r;
}

/* DEST exists where a link to TARGET was to be made: bwrap accepts a
 * link with the same target, and says what is there instead. */
static int existing_symlink(struct mount_state *ms, int pfd, const char *leaf,
			    const char *target, const char *dest)
{
	char existing[PATH_MAX];
	ssize_t n = readlinkat(pfd, leaf, existing, sizeof(existing) - 1);
	enum bwrap_text id = errno == EINVAL ? BW_SYMLINK_NOT_LINK : BW_SYMLINK_UNREADABLE;

	if (n >= 0 && (size_t)n == strlen(target) && memcmp(existing, target, (size_t)n) == 0)
		return 0;
	if (n >= 0) {
		existing[n] = '\0';
		id = BW_SYMLINK_EXISTS;
	}
	errno = n >= 0 || !ms->bwrap ? EEXIST : errno;
	return mount_op_error(ms, "symlink", dest, id, dest, existing);
}

int mount_root_make_symlink(struct mount_state *ms, const char *target, const char *dest)
{
	const char *leaf;
	int pfd = mount_root_open_parent(ms, dest, &leaf);
	int r = 0;

	if (pfd < 0)
		return mount_op_error(ms, "create parent of", dest, BW_MKDIR_PARENTS, dest, NULL);
	if (symlinkat(target, pfd, leaf) < 0)
		r = errno == EEXIST ? existing_symlink(ms, pfd, leaf, target, dest) :
		    mount_op_error(ms, "symlink", dest, BW_SYMLINK, dest, NULL);
	close(pfd);
	return r;
}

/* A mount of the file NAME of the detached tmpfs TMP, or -1.  Linux
 * before 6.15 (Debian 12's 6.1 among them) refuses to clone from a mount
 * that is not attached in the caller's namespace (EINVAL): the tmpfs is
 * then stacked on the new root for the moment, in this private namespace
 * only, cloned from, and detached again before anything else happens. */
int mount_root_clone_tmpfs_file(struct mount_state *ms, int tmp, const char *name)
{
	int tree = open_tree(tmp, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	int saved;

	if (tree >= 0 || errno != EINVAL)
		return tree;
	if (move_mount(tmp, "", AT_FDCWD, ms->attach_point, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return -1;
	tree = open_tree(tmp, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	saved = errno;
	if (umount2(ms->attach_point, MNT_DETACH) < 0) {
		if (tree >= 0)
			close(tree);
		return -1;
	}
	errno = saved;
	return tree;
}
