/* The mounts stage: build the sandbox's file system in a fresh tmpfs root
 * with the kernel's fd-based mount API, in the plan's order.
 *
 * Host sources are cloned (open_tree) while the host tree is still
 * visible; then the new root is pivoted in and the old one detached, and
 * every destination is resolved inside the new root with openat2
 * (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so no symlink, absolute or
 * magic, can lead set-up onto the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mounts.h"
#include "landlock_scope.h"
#include "log.h"
#include "protect.h"
#include "util.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* Device nodes that --dev binds from the host. */
static const char *const dev_nodes[N_DEV_NODES] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

static int mount_error(struct mount_state *ms, const char *what, const char *obj)
{
	return log_fail(ms->err, ms->errlen, "mounts", what, obj, errno);
}

static int set_attrs(int fd, unsigned long long set, bool recursive)
{
	struct mount_attr attr = { .attr_set = set };

	return mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
			     &attr, sizeof(attr));
}

static int make_fs_attrs(const char *type, const char *const *opts, int nopts,
			 unsigned long long attrs)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0)
		return -1;
	for (int i = 0; i + 1 < nopts; i += 2)
		if (fsconfig(fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0) < 0)
			goto fail;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fail;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	close(fs);
	return mnt;
fail:
	close(fs);
	return -1;
}

static int make_fs(const char *type, const char *const *opts, int nopts)
{
	return make_fs_attrs(type, opts, nopts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

static int make_tmpfs(mode_t mode, unsigned long long size)
{
	char modebuf[16], sizebuf[32];
	const char *opts[4] = { "mode", modebuf, "size", sizebuf };

	snprintf(modebuf, sizeof(modebuf), "%o", (unsigned)mode);
	snprintf(sizebuf, sizeof(sizebuf), "%llu", size);
	return make_fs("tmpfs", opts, size ? 4 : 2);
}

/* ---- phase 1: while the host tree is visible ---- */

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
			return log_fail(ms->err, ms->errlen, "mounts",
					ms->bwrap ? "Can't find source path" : "bind source",
					link, errno);
		}
		target[n] = '\0';
		fd = open_tree(AT_FDCWD, target, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			       AT_RECURSIVE);
		if (fd < 0)
			return log_fail(ms->err, ms->errlen, "mounts",
					ms->bwrap ? "Can't find source path" : "bind source",
					link, errno);
	} else {
		fd = open_tree(AT_FDCWD, op->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			       AT_RECURSIVE);
	}
	if (fd < 0) {
		if (errno == ENOENT && (op->flags & FS_TRY))
			return 0;
		return log_fail(ms->err, ms->errlen, "mounts",
				ms->bwrap ? "Can't find source path" : "bind source",
				op->src, errno);
	}
	/* A bind never brings set-uid binaries, nor devices unless asked. */
	if (!(op->flags & FS_DEVICES))
		attrs |= MOUNT_ATTR_NODEV;
	if (op->flags & FS_READONLY)
		attrs |= MOUNT_ATTR_RDONLY;
	if (set_attrs(fd, attrs, true) < 0) {
		close(fd);
		return mount_error(ms, "set attributes of", op->src);
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

/* hutch mode, where the kernel refuses a fresh procfs because the
 * caller's /proc has mounts over parts of it (a container engine's
 * masked paths fail its "too revealing" check): the caller's /proc,
 * read-only, and COMMAND gets a Landlock domain of its own (policy
 * stage), so that the kernel refuses it ptrace access (/proc/PID/environ,
 * mem, fd) to every process outside the sandbox.  Without Landlock that
 * fence cannot be had, and /proc is an empty read-only tmpfs. */
static int substitute_proc(struct mount_state *ms, size_t i)
{
	unsigned long long ro = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				MOUNT_ATTR_NOEXEC;
	int fd = -1;

	if (landlock_abi_version() > 0) {
		fd = open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		ms->proc_fenced = fd >= 0;
	} else {
		fd = make_tmpfs(0555, 4096);
	}
	if (fd < 0 || set_attrs(fd, ro, true) < 0) {
		if (fd >= 0)
			close(fd);
		return mount_error(ms, "substitute for a procfs on", ms->plan->ops[i].dest);
	}
	ms->proc_substituted = true;
	ms->trees[i] = fd;
	return 0;
}

/* procfs can only be mounted while a full procfs is visible in this
 * mount namespace (the kernel's "too revealing" check), so now. */
static int prepare_proc(struct mount_state *ms, size_t i)
{
	int fd;

	/* Without a pid namespace of its own, a new procfs is refused to an
	 * unprivileged caller: like bwrap, bind the host's. */
	if (!(ms->plan->clone_flags & CLONE_NEWPID)) {
		fd = open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		/* bwrap's bind of the host /proc: nosuid,nodev */
		if (fd >= 0 && set_attrs(fd, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true) < 0) {
			close(fd);
			fd = -1;
		}
	} else {
		/* bwrap's new procfs: nosuid,nodev,noexec */
		fd = make_fs_attrs("proc", NULL, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				   MOUNT_ATTR_NOEXEC);
		if (fd < 0 && errno == EPERM && !ms->bwrap)
			return substitute_proc(ms, i);
	}

	if (fd < 0)
		return mount_error(ms, "new procfs for", ms->plan->ops[i].dest);
	ms->trees[i] = fd;
	return 0;
}

static int prepare_dev_nodes(struct mount_state *ms)
{
	for (int i = 0; i < N_DEV_NODES; i++) {
		char path[32];

		if (ms->dev_nodes[i] >= 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		ms->dev_nodes[i] = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (ms->dev_nodes[i] < 0)
			return mount_error(ms, "clone device", path);
		/* like bwrap's device binds: nosuid (but devices, of course) */
		if (set_attrs(ms->dev_nodes[i], MOUNT_ATTR_NOSUID, false) < 0)
			return mount_error(ms, "set attributes of", path);
	}
	return 0;
}

static int overlay_set_dir(int fs, const char *key, const char *path)
{
	return fsconfig(fs, FSCONFIG_SET_STRING, key, path, 0);
}

static const char *attach_point(void);

/* The upper and work directories of --tmp-overlay, on a private tmpfs.
 * overlayfs clones the upper mount when it is created, which the kernel
 * refuses for a detached mount: the tmpfs is attached, in this private
 * namespace only, over a host directory until the overlay is created
 * (lower layers were resolved already), then detached again. */
static int overlay_tmp_layers(int fs, bool *attached)
{
	int tmp = make_tmpfs(0755, 0);
	int upper = -1, work = -1, r = -1;

	if (tmp < 0)
		return -1;
	if (move_mount(tmp, "", AT_FDCWD, attach_point(), MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(tmp);
		return -1;
	}
	*attached = true;
	if (mkdirat(tmp, "upper", 0755) == 0 && mkdirat(tmp, "work", 0755) == 0) {
		upper = openat(tmp, "upper", O_PATH | O_DIRECTORY | O_CLOEXEC);
		work = openat(tmp, "work", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (upper >= 0 && work >= 0 &&
	    fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, upper) == 0)
		r = fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, work);
	if (upper >= 0)
		close(upper);
	if (work >= 0)
		close(work);
	close(tmp);
	return r;
}

/* Overlays are assembled while host paths are visible. */
static int prepare_overlay(struct mount_state *ms, struct fs_op *op, size_t i)
{
	int fs = fsopen("overlay", FSOPEN_CLOEXEC);
	int r = fs < 0 ? -1 : 0;
	bool tmp_attached = false;

	if (r == 0 && fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0)
		r = -1;
	/* The last --overlay-src is the top layer (bwrap); lowerdir+ takes
	 * the top layer first. */
	for (size_t l = op->n_lower; l > 0 && r == 0; l--)
		r = overlay_set_dir(fs, "lowerdir+", op->lower[l - 1]);
	if (r == 0 && op->kind == FS_OVERLAY)
		r = overlay_set_dir(fs, "upperdir", op->src) == 0 ?
		    overlay_set_dir(fs, "workdir", op->workdir) : -1;
	if (r == 0 && op->kind == FS_TMP_OVERLAY)
		r = overlay_tmp_layers(fs, &tmp_attached);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	if (tmp_attached) {
		int saved = errno;

		if (umount2(attach_point(), MNT_DETACH) < 0 && r == 0)
			r = -1;
		else
			errno = saved;
	}
	if (r == 0)
		ms->trees[i] = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				       (op->kind == FS_RO_OVERLAY ? MOUNT_ATTR_RDONLY : 0));
	if (fs >= 0)
		close(fs);
	if (r < 0 || ms->trees[i] < 0)
		return mount_error(ms, "overlay on", op->dest);
	return 0;
}

static int clone_sources(struct mount_state *ms)
{
	for (size_t i = 0; i < ms->plan->n_ops; i++) {
		struct fs_op *op = &ms->plan->ops[i];
		int r = 0;

		switch (op->kind) {
		case FS_BIND: case FS_BIND_FD: r = clone_source(ms, op, i); break;
		case FS_OVERLAY: case FS_TMP_OVERLAY: case FS_RO_OVERLAY:
			r = prepare_overlay(ms, op, i);
			break;
		case FS_MIRROR: r = mirror_source(ms, op, i); break;
		case FS_PROC: r = prepare_proc(ms, i); break;
		case FS_DEV: r = prepare_dev_nodes(ms); break;
		default: break;
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* A private procfs for pid 1's teardown: it lists the namespace's
 * processes even without --proc, and is never attached. */
static void prepare_private_proc(struct mount_state *ms)
{
	if (ms->plan->clone_flags & CLONE_NEWPID)
		ms->private_proc = make_fs("proc", NULL, 0);
}

/* Mount events must not reach the caller's namespace, nor host mounts
 * appear in the sandbox unasked: bwrap mode keeps bwrap's slave. */
static int make_propagation_private(struct mount_state *ms)
{
	struct mount_attr attr = {
		.propagation = ms->bwrap ? MS_SLAVE : MS_PRIVATE,
	};

	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return mount_error(ms, "make private", "/");
	return 0;
}

/* ---- phase 2: the new root ---- */

static const char *attach_point(void)
{
	static const char *const candidates[] = { "/tmp", "/mnt", "/run", "/" };
	struct stat st;

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (stat(candidates[i], &st) == 0 && S_ISDIR(st.st_mode))
			return candidates[i];
	return "/";
}

/* The new root is attached over a host directory (in this private
 * namespace only) until the tree is built; sources were cloned already,
 * so what it covers does not matter. */
static int reopen_root(struct mount_state *ms);

static int attach_new_root(struct mount_state *ms)
{
	int root = make_tmpfs(0755, 0);

	ms->attach_point = attach_point();
	if (root < 0)
		return mount_error(ms, "new root tmpfs", "/");
	if (move_mount(root, "", AT_FDCWD, ms->attach_point, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(root);
		return mount_error(ms, "attach new root on", ms->attach_point);
	}
	close(root);
	return reopen_root(ms);
}

/* The topmost mount at the attach point: a bind onto "/" stacks a mount
 * over the root, and later operations must see it. */
static int reopen_root(struct mount_state *ms)
{
	if (ms->root >= 0)
		close(ms->root);
	ms->root = open(ms->attach_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ms->root < 0)
		return mount_error(ms, "open", "new root");
	return 0;
}

static int pivot_into_root(struct mount_state *ms)
{
	if (fchdir(ms->root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		return mount_error(ms, "pivot_root to", "new root");
	/* The old root goes: nothing of the host is left but clones. */
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return mount_error(ms, "detach", "old root");
	return 0;
}

/* ---- phase 3: the operations, resolved inside the new root ---- */

static int resolve(struct mount_state *ms, const char *path, int flags)
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

/* mkdir -p inside the root; returns an O_PATH fd of PATH. */
static int make_dirs(struct mount_state *ms, const char *path, mode_t mode)
{
	char parent[PATH_MAX];
	const char *leaf;
	int fd, pfd;

	fd = resolve(ms, path, O_PATH | O_DIRECTORY);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	split_path(path, parent, sizeof(parent), &leaf);
	if (strcmp(parent, path) == 0 || !*leaf)
		return -1;
	pfd = make_dirs(ms, parent, 0755);
	if (pfd < 0)
		return -1;
	if (mkdirat(pfd, leaf, mode) < 0 && errno != EEXIST) {
		close(pfd);
		return -1;
	}
	close(pfd);
	return resolve(ms, path, O_PATH | O_DIRECTORY);
}

static int open_parent(struct mount_state *ms, const char *dest, const char **leaf)
{
	char parent[PATH_MAX];

	split_path(dest, parent, sizeof(parent), leaf);
	return make_dirs(ms, parent, 0755);
}

/* Open DEST as a mount point, creating a directory or an empty file. */
static int mount_point(struct mount_state *ms, const char *dest, bool dir)
{
	const char *leaf;
	int fd = resolve(ms, dest, O_PATH);
	int pfd;

	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (dir)
		return make_dirs(ms, dest, 0755);
	pfd = open_parent(ms, dest, &leaf);
	if (pfd < 0)
		return -1;
	fd = openat(pfd, leaf, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	close(pfd);
	if (fd < 0 && errno != EEXIST)
		return -1;
	if (fd >= 0)
		close(fd);
	return resolve(ms, dest, O_PATH);
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int attach(struct mount_state *ms, int tree, const char *dest, bool dir)
{
	int fd = mount_point(ms, dest, dir);
	bool on_root;
	int r;

	if (fd < 0)
		return mount_error(ms, "create mount point", dest);
	r = move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	on_root = r == 0 && same_file(fd, ms->root);
	close(fd);
	if (r < 0)
		return mount_error(ms, "attach on", dest);
	return on_root ? reopen_root(ms) : 0;
}

static bool is_dir_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

static int do_bind(struct mount_state *ms, struct fs_op *op, size_t i)
{
	int tree = ms->trees[i];
	int r;

	if (tree < 0)	/* a -try whose source is missing */
		return 0;
	r = attach(ms, tree, op->dest, is_dir_fd(tree));
	close(tree);
	ms->trees[i] = -1;
	return r;
}

static int do_tmpfs(struct mount_state *ms, struct fs_op *op)
{
	int fd = make_tmpfs(op->has_perms ? op->perms : 0755, op->size);
	int r;

	if (fd < 0)
		return mount_error(ms, "new tmpfs for", op->dest);
	r = attach(ms, fd, op->dest, true);
	close(fd);
	return r;
}

static int do_mqueue(struct mount_state *ms, struct fs_op *op)
{
	/* bwrap mounts mqueue without nosuid,nodev */
	int fd = make_fs_attrs("mqueue", NULL, 0, ms->bwrap ? 0 :
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	int r;

	if (fd < 0)
		return mount_error(ms, "new mqueue for", op->dest);
	r = attach(ms, fd, op->dest, true);
	close(fd);
	return r;
}

/* Bind a path of the new procfs onto itself read-only (or, with MASK,
 * cover it with an empty read-only tmpfs): sysctls and kernel knobs must
 * not be writable by a caller who is root, mapped to root. */
static int cover_proc_path(int procfd, const char *name)
{
	int tree = open_tree(procfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	int r;

	if (tree < 0)
		return errno == ENOENT ? 0 : -1;
	r = set_attrs(tree, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		      MOUNT_ATTR_NOEXEC, true);
	if (r == 0)
		r = move_mount(tree, "", procfd, name, MOVE_MOUNT_F_EMPTY_PATH);
	close(tree);
	return r;
}

/* A mount of the file NAME of the detached tmpfs TMP, or -1.  Linux
 * before 6.15 (Debian 12's 6.1 among them) refuses to clone from a mount
 * that is not attached in the caller's namespace (EINVAL): the tmpfs is
 * then stacked on the new root for the moment, in this private namespace
 * only, cloned from, and detached again before anything else happens. */
static int clone_tmpfs_file(struct mount_state *ms, int tmp, const char *name)
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

/* /proc/kcore is the kernel's memory: hide it behind an empty file. */
static int mask_proc_file(struct mount_state *ms, int procfd, const char *name)
{
	int tmp = make_tmpfs(0555, 4096);
	int fd, tree, r = -1;

	if (tmp < 0)
		return -1;
	fd = openat(tmp, "empty", O_CREAT | O_WRONLY | O_CLOEXEC, 0400);
	if (fd >= 0)
		close(fd);
	tree = clone_tmpfs_file(ms, tmp, "empty");
	if (tree >= 0 && set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0)
		r = move_mount(tree, "", procfd, name, MOVE_MOUNT_F_EMPTY_PATH);
	if (r < 0 && errno == ENOENT)
		r = 0;
	if (tree >= 0)
		close(tree);
	close(tmp);
	return r;
}

static const char *const proc_ro_bwrap[] = { "sys", "sysrq-trigger", "irq", "bus" };
static const char *const proc_ro_hutch[] = { "fs", "acpi", "scsi" };

static int cover_proc(struct mount_state *ms, const char *dest)
{
	int procfd = resolve(ms, dest, O_PATH | O_DIRECTORY);
	int r = 0;

	if (procfd < 0)
		return mount_error(ms, "open", dest);
	for (size_t i = 0; i < 4 && r == 0; i++)
		r = cover_proc_path(procfd, proc_ro_bwrap[i]);
	for (size_t i = 0; i < 3 && r == 0 && !ms->bwrap; i++)
		r = cover_proc_path(procfd, proc_ro_hutch[i]);
	if (r == 0 && !ms->bwrap)
		r = mask_proc_file(ms, procfd, "kcore");
	close(procfd);
	if (r < 0)
		return mount_error(ms, "make read-only under", dest);
	return 0;
}

static int do_proc(struct mount_state *ms, struct fs_op *op, size_t i)
{
	int r = attach(ms, ms->trees[i], op->dest, true);

	close(ms->trees[i]);
	ms->trees[i] = -1;
	return r < 0 ? r : cover_proc(ms, op->dest);
}

static int make_symlink(struct mount_state *ms, const char *target, const char *dest)
{
	char existing[PATH_MAX];
	const char *leaf;
	int pfd = open_parent(ms, dest, &leaf);
	ssize_t n;

	if (pfd < 0)
		return mount_error(ms, "create parent of", dest);
	if (symlinkat(target, pfd, leaf) == 0) {
		close(pfd);
		return 0;
	}
	/* bwrap accepts an existing link with the same target. */
	n = errno == EEXIST ? readlinkat(pfd, leaf, existing, sizeof(existing) - 1) : -1;
	close(pfd);
	if (n >= 0 && (size_t)n == strlen(target) && memcmp(existing, target, (size_t)n) == 0)
		return 0;
	errno = n >= 0 ? EEXIST : errno;
	return mount_error(ms, "symlink", dest);
}

static int dev_file(struct mount_state *ms, const char *dev, const char *name,
		    int tree)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	return attach(ms, tree, path, false);
}

static int dev_devpts(struct mount_state *ms, const char *dev)
{
	static const char *const opts[] = {
		"newinstance", "", "ptmxmode", "0666", "mode", "620",
	};
	char path[PATH_MAX];
	int fs, mnt, r;

	fs = fsopen("devpts", FSOPEN_CLOEXEC);
	if (fs < 0)
		return mount_error(ms, "new devpts for", dev);
	r = fsconfig(fs, FSCONFIG_SET_FLAG, opts[0], NULL, 0);
	for (int i = 2; i < 6 && r == 0; i += 2)
		r = fsconfig(fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	mnt = r == 0 ? fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC) : -1;
	close(fs);
	if (mnt < 0)
		return mount_error(ms, "new devpts for", dev);
	snprintf(path, sizeof(path), "%s/pts", dev);
	r = attach(ms, mnt, path, true);
	close(mnt);
	return r;
}

static const char *const dev_links[][2] = {
	{ "pts/ptmx", "ptmx" }, { "/proc/self/fd", "fd" },
	{ "/proc/self/fd/0", "stdin" }, { "/proc/self/fd/1", "stdout" },
	{ "/proc/self/fd/2", "stderr" }, { "/proc/kcore", "core" },
};

static int do_dev(struct mount_state *ms, struct fs_op *op)
{
	char path[PATH_MAX];
	int fd = make_tmpfs(0755, 0);
	int r;

	if (fd < 0)
		return mount_error(ms, "new tmpfs for", op->dest);
	/* Device nodes must work in this tmpfs: no nodev on it. */
	r = attach(ms, fd, op->dest, true);
	close(fd);
	for (int i = 0; i < N_DEV_NODES && r == 0; i++)
		r = dev_file(ms, op->dest, dev_nodes[i], ms->dev_nodes[i]);
	for (size_t i = 0; i < 6 && r == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", op->dest, dev_links[i][1]);
		r = make_symlink(ms, dev_links[i][0], path);
	}
	snprintf(path, sizeof(path), "%s/shm", op->dest);
	if (r == 0 && (fd = make_dirs(ms, path, 0755)) < 0)
		return mount_error(ms, "create", path);
	if (r == 0)
		close(fd);
	return r == 0 ? dev_devpts(ms, op->dest) : r;
}

static int do_dir(struct mount_state *ms, struct fs_op *op)
{
	int fd = make_dirs(ms, op->dest, op->has_perms ? op->perms : 0755);

	if (fd < 0)
		return mount_error(ms, "create directory", op->dest);
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
	int fd = resolve(ms, op->dest, O_PATH);
	int r;

	if (fd < 0)
		return mount_error(ms, "chmod", op->dest);
	r = chmod_fd(fd, op->perms);
	close(fd);
	return r < 0 ? mount_error(ms, "chmod", op->dest) : 0;
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

/* Create DEST (or NAME in DIRFD) with MODE and fill it from FD. */
static int fill_file_at(int dirfd, const char *leaf, mode_t mode, int from)
{
	int fd = openat(dirfd, leaf, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
	int r;

	if (fd < 0)
		return -1;
	r = copy_fd(from, fd);
	if (r == 0)
		r = fchmod(fd, mode);
	close(fd);
	return r;
}

static int do_file(struct mount_state *ms, struct fs_op *op)
{
	const char *leaf;
	int pfd = open_parent(ms, op->dest, &leaf);
	int r;

	if (pfd < 0)
		return mount_error(ms, "create parent of", op->dest);
	r = fill_file_at(pfd, leaf, op->has_perms ? op->perms : 0666, op->fd);
	close(pfd);
	close(op->fd);
	return r < 0 ? log_fail(ms->err, ms->errlen, "mounts", "Can't write data to file",
				op->dest, errno) : 0;
}

/* --bind-data: the data lives in a private tmpfs of its own. */
static int do_bind_data(struct mount_state *ms, struct fs_op *op)
{
	int tmp = make_tmpfs(0755, 0);
	int tree = -1, r = -1;

	if (tmp >= 0 && fill_file_at(tmp, "data", op->has_perms ? op->perms : 0600, op->fd) == 0)
		tree = clone_tmpfs_file(ms, tmp, "data");
	close(op->fd);
	if (tree >= 0 && (!(op->flags & FS_READONLY) || set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0))
		r = attach(ms, tree, op->dest, false);
	else
		r = mount_error(ms, "Can't write data to file", op->dest);
	if (tree >= 0)
		close(tree);
	if (tmp >= 0)
		close(tmp);
	return r;
}

static int do_remount_ro(struct mount_state *ms, struct fs_op *op)
{
	int fd = resolve(ms, op->dest, O_PATH);
	int r;

	if (fd < 0)
		return mount_error(ms, "remount read-only", op->dest);
	r = set_attrs(fd, MOUNT_ATTR_RDONLY, false);
	close(fd);
	return r < 0 ? mount_error(ms, "remount read-only", op->dest) : 0;
}

static int do_mirror(struct mount_state *ms, struct fs_op *op, size_t i)
{
	if (ms->links[i])
		return make_symlink(ms, ms->links[i], op->dest);
	return do_bind(ms, op, i);
}

static int do_op(struct mount_state *ms, size_t i)
{
	struct fs_op *op = &ms->plan->ops[i];

	switch (op->kind) {
	case FS_BIND: case FS_BIND_FD: return do_bind(ms, op, i);
	case FS_OVERLAY: case FS_TMP_OVERLAY: case FS_RO_OVERLAY: return do_bind(ms, op, i);
	case FS_MIRROR: return do_mirror(ms, op, i);
	case FS_REMOUNT_RO: return do_remount_ro(ms, op);
	case FS_PROC: return do_proc(ms, op, i);
	case FS_DEV: return do_dev(ms, op);
	case FS_TMPFS: return do_tmpfs(ms, op);
	case FS_MQUEUE: return do_mqueue(ms, op);
	case FS_DIR: return do_dir(ms, op);
	case FS_SYMLINK: return make_symlink(ms, op->src, op->dest);
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
	ms->protect_sock = -1;
	ms->trees = xreallocarray(NULL, plan->n_ops, sizeof(int));
	ms->links = xreallocarray(NULL, plan->n_ops, sizeof(char *));
	for (size_t i = 0; i < plan->n_ops; i++) {
		ms->trees[i] = -1;
		ms->links[i] = NULL;
	}
	for (int i = 0; i < N_DEV_NODES; i++)
		ms->dev_nodes[i] = -1;
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
	if (ms->root >= 0)
		close(ms->root);
	free(ms->trees);
	free(ms->links);
	ms->trees = NULL;
	ms->links = NULL;
}

static int enter_cwd(struct mount_state *ms, const char *old_cwd)
{
	const char *dir = ms->plan->chdir;

	if (dir) {
		if (chdir(dir) < 0)
			return log_fail(ms->err, ms->errlen, "mounts",
					ms->bwrap ? "Can't chdir to" : "chdir", dir, errno);
		return 0;
	}
	/* Like bwrap: stay in the same directory if the sandbox has it. */
	if (old_cwd[0] && chdir(old_cwd) == 0)
		return 0;
	return chdir("/") < 0 ? mount_error(ms, "chdir", "/") : 0;
}

int mounts_build(struct mount_state *ms)
{
	char old_cwd[PATH_MAX];

	if (!getcwd(old_cwd, sizeof(old_cwd)))
		old_cwd[0] = '\0';
	if (make_propagation_private(ms) < 0 || clone_sources(ms) < 0)
		return -1;
	prepare_private_proc(ms);
	if (attach_new_root(ms) < 0)
		return -1;
	for (size_t i = 0; i < ms->plan->n_ops; i++)
		if (do_op(ms, i) < 0)
			return -1;
	if (protect_apply(ms) < 0)
		return -1;
	if (pivot_into_root(ms) < 0)
		return -1;
	return enter_cwd(ms, old_cwd);
}
