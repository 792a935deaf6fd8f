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

#include "bwrap_text.h"
#include "fault.h"
#include "fds.h"
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

/* A failure in hutch's words (WHAT OBJ), or in bwrap mode in bwrap's
 * (ID with A and B). */
static int op_error(struct mount_state *ms, const char *what, const char *obj,
		    enum bwrap_text id, const char *a, const char *b)
{
	return bwrap_text_fail(ms->err, ms->errlen, ms->plan->mode,
			       &(struct failure){ "mounts", what, obj, id, a, b }, errno);
}

static int set_attrs(int fd, unsigned long long set, bool recursive)
{
	struct mount_attr attr = { .attr_set = set };

	return mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
			     &attr, sizeof(attr));
}

/* A new file system context of TYPE whose source, in mountinfo, is its
 * type's name, as bwrap mounts them ("proc", "tmpfs"...), not "none". */
static int open_fs(const char *type)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC);

	if (fs >= 0 && fsconfig(fs, FSCONFIG_SET_STRING, "source", type, 0) < 0) {
		close(fs);
		return -1;
	}
	return fs;
}

static int make_fs_attrs(const char *type, const char *const *opts, int nopts,
			 unsigned long long attrs)
{
	int fs = open_fs(type);
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
			return op_error(ms, "bind source", link, BW_FIND_SOURCE, link, NULL);
		}
		target[n] = '\0';
		fd = open_tree(AT_FDCWD, target, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			       AT_RECURSIVE);
		if (fd < 0)
			return op_error(ms, "bind source", link, BW_FIND_SOURCE, link, NULL);
	} else {
		fd = open_tree(AT_FDCWD, op->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			       AT_RECURSIVE);
	}
	if (fd < 0) {
		if (errno == ENOENT && (op->flags & FS_TRY))
			return 0;
		return op_error(ms, "bind source", op->src, BW_FIND_SOURCE, op->src, NULL);
	}
	/* A bind never brings set-uid binaries, nor devices unless asked. */
	if (!(op->flags & FS_DEVICES))
		attrs |= MOUNT_ATTR_NODEV;
	if (op->flags & FS_READONLY)
		attrs |= MOUNT_ATTR_RDONLY;
	if (set_attrs(fd, attrs, true) < 0) {
		close(fd);
		return op_error(ms, "set attributes of", op->src, BW_BIND_FLAGS,
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

/* bwrap mounts a procfs of its own in a pid namespace of its own, else
 * binds the host's. */
static enum bwrap_text proc_text(const struct mount_state *ms)
{
	return ms->plan->clone_flags & CLONE_NEWPID ? BW_MOUNT_PROC : BW_BIND_PROC;
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
		return op_error(ms, "new procfs for", ms->plan->ops[i].dest, proc_text(ms),
				ms->plan->ops[i].dest, NULL);
	ms->trees[i] = fd;
	return 0;
}

/* bwrap binds the terminal on its stdout, if any, on /dev/console: the
 * sandbox can write there anyway, and ttyname() then works inside. */
static int prepare_console(struct mount_state *ms, const struct fs_op *op)
{
	char dest[PATH_MAX];
	const char *tty = ms->bwrap && ms->console < 0 && isatty(STDOUT_FILENO) ?
			  ttyname(STDOUT_FILENO) : NULL;

	if (!tty || !*tty)
		return 0;
	snprintf(dest, sizeof(dest), "%s/console", op->dest);
	ms->console_src = xstrdup(tty);
	ms->console = open_tree(AT_FDCWD, tty, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (ms->console < 0)
		return op_error(ms, "clone terminal", tty, BW_BIND, tty, dest);
	if (set_attrs(ms->console, MOUNT_ATTR_NOSUID, false) < 0)
		return op_error(ms, "set attributes of", tty, BW_BIND_FLAGS, tty, dest);
	return 0;
}

static int prepare_dev_nodes(struct mount_state *ms, const struct fs_op *op)
{
	for (int i = 0; i < N_DEV_NODES; i++) {
		char path[32], dest[PATH_MAX];

		if (ms->dev_nodes[i] >= 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		snprintf(dest, sizeof(dest), "%s/%s", op->dest, dev_nodes[i]);
		ms->dev_nodes[i] = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (ms->dev_nodes[i] < 0)
			return op_error(ms, "clone device", path, BW_BIND, path, dest);
		/* like bwrap's device binds: nosuid (but devices, of course) */
		if (set_attrs(ms->dev_nodes[i], MOUNT_ATTR_NOSUID, false) < 0)
			return op_error(ms, "set attributes of", path, BW_BIND_FLAGS, path, dest);
	}
	return prepare_console(ms, op);
}

static int overlay_error(struct mount_state *ms, size_t i)
{
	const struct fs_op *op = &ms->plan->ops[i];
	char opts[8192] = "";
	int saved = errno;

	if (ms->bwrap)
		bwrap_text_overlay_options(ms->plan, i, opts, sizeof(opts));
	errno = saved;
	return op_error(ms, "overlay on", op->dest,
			saved == ELOOP ? BW_OVERLAY_OVERLAP : BW_OVERLAY, op->dest, opts);
}

static int check_source(struct mount_state *ms, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return op_error(ms, "overlay source", path, BW_FIND_SOURCE, path, NULL);
	free(real);
	return 0;
}

/* bwrap resolves an overlay's paths before anything is mounted: the
 * upper and work directories, then the layers, top first. */
static int check_overlay_sources(struct mount_state *ms, const struct fs_op *op)
{
	if (!ms->bwrap)
		return 0;
	if (op->kind == FS_OVERLAY &&
	    (check_source(ms, op->src) < 0 || check_source(ms, op->workdir) < 0))
		return -1;
	for (size_t l = op->n_lower; l > 0; l--)
		if (check_source(ms, op->lower[l - 1]) < 0)
			return -1;
	return 0;
}

/* An overlay's directories, opened once (O_PATH): lower top first (the
 * last --overlay-src is the top layer, as in bwrap), then upper and
 * work, or -1 for a read-only overlay. */
struct overlay_dirs {
	int *lower;
	size_t n_lower;
	int upper, work;
};

static void close_overlay_dirs(struct overlay_dirs *d)
{
	for (size_t l = 0; l < d->n_lower; l++)
		if (d->lower[l] >= 0)
			close(d->lower[l]);
	free(d->lower);
	if (d->upper >= 0)
		close(d->upper);
	if (d->work >= 0)
		close(d->work);
}

static int open_dir(int at, const char *path)
{
	return openat(at, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int open_overlay_dirs(struct mount_state *ms, const struct fs_op *op,
			     struct overlay_dirs *d)
{
	d->lower = xreallocarray(NULL, op->n_lower ? op->n_lower : 1, sizeof(int));
	d->n_lower = 0;
	d->upper = d->work = -1;
	for (size_t l = op->n_lower; l > 0; l--) {
		d->lower[d->n_lower] = open_dir(AT_FDCWD, op->lower[l - 1]);
		if (d->lower[d->n_lower++] < 0)
			return op_error(ms, "overlay layer", op->lower[l - 1], BW_FIND_SOURCE,
					op->lower[l - 1], NULL);
	}
	if (op->kind != FS_OVERLAY)
		return 0;
	d->upper = open_dir(AT_FDCWD, op->src);
	if (d->upper < 0)
		return op_error(ms, "overlay upper directory", op->src, BW_FIND_SOURCE,
				op->src, NULL);
	d->work = open_dir(AT_FDCWD, op->workdir);
	if (d->work < 0)
		return op_error(ms, "overlay work directory", op->workdir, BW_FIND_SOURCE,
				op->workdir, NULL);
	return 0;
}

static const char *attach_point(void);

/* The upper and work directories of --tmp-overlay, on a private tmpfs.
 * overlayfs clones the upper mount when it is created, which the kernel
 * refuses for a detached mount: the tmpfs is attached, in this private
 * namespace only, over a host directory until the overlay is created
 * (the layers were opened already), then detached again. */
static int open_tmp_upper(struct overlay_dirs *d, bool *attached)
{
	int tmp = make_tmpfs(0755, 0);

	if (tmp < 0)
		return -1;
	if (move_mount(tmp, "", AT_FDCWD, attach_point(), MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(tmp);
		return -1;
	}
	*attached = true;
	if (mkdirat(tmp, "upper", 0755) == 0 && mkdirat(tmp, "work", 0755) == 0) {
		d->upper = open_dir(tmp, "upper");
		d->work = open_dir(tmp, "work");
	}
	close(tmp);
	return d->upper >= 0 && d->work >= 0 ? 0 : -1;
}

/* A directory by fd, or, for an overlayfs that takes only names, by the
 * name /proc/self/fd/N of that fd: the same directory, and no path text
 * for overlayfs to split at ':' or ',' or unescape. */
static int overlay_set(int fs, const char *key, int fd, bool by_name)
{
	char name[32];

	if (!by_name)
		return fsconfig(fs, FSCONFIG_SET_FD, key, NULL, fd);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	return fsconfig(fs, FSCONFIG_SET_STRING, key, name, 0);
}

/* lowerdir takes all layers at once, ':' between them. */
static int overlay_set_lower_names(int fs, const struct overlay_dirs *d)
{
	char *all = xreallocarray(NULL, d->n_lower, 32);
	size_t n = 0;
	int r;

	for (size_t l = 0; l < d->n_lower; l++)
		n += (size_t)snprintf(all + n, 32, "%s/proc/self/fd/%d", l ? ":" : "",
				      d->lower[l]);
	r = fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", all, 0);
	free(all);
	return r;
}

static int overlay_set_lower(int fs, const struct overlay_dirs *d, bool by_name)
{
	if (by_name)
		return d->n_lower ? overlay_set_lower_names(fs, d) : 0;
	for (size_t l = 0; l < d->n_lower; l++)
		if (overlay_set(fs, "lowerdir+", d->lower[l], false) < 0)
			return -1;
	return 0;
}

/* A created overlay context, or -1 with errno set. */
static int create_overlay(const struct overlay_dirs *d, bool by_name)
{
	int fs = open_fs("overlay");
	int r = fs < 0 ? -1 : fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0);

	if (r == 0 && !by_name && fault_kernel_lacks("overlay-fd")) {
		errno = EINVAL;
		r = -1;
	}
	if (r == 0)
		r = overlay_set_lower(fs, d, by_name);
	if (r == 0 && d->upper >= 0)
		r = overlay_set(fs, "upperdir", d->upper, by_name);
	if (r == 0 && d->work >= 0)
		r = overlay_set(fs, "workdir", d->work, by_name);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	if (r < 0 && fs >= 0) {
		int saved = errno;

		close(fs);
		errno = saved;
		fs = -1;
	}
	return fs;
}

/* overlayfs takes its directories by fd since Linux 6.13.  An older one
 * refuses that with EINVAL, when the option is set (6.5 to 6.12) or only
 * at create (before 6.5, a legacy mount context that checks nothing
 * until then): then the context is built again, by name. */
static int create_overlay_any(const struct overlay_dirs *d)
{
	int fs = create_overlay(d, false);

	if (fs < 0 && errno == EINVAL)
		fs = create_overlay(d, true);
	return fs;
}

static int prepare_overlay(struct mount_state *ms, struct fs_op *op, size_t i)
{
	struct overlay_dirs d = { 0 };
	bool tmp_attached = false;
	int fs, saved;

	if (check_overlay_sources(ms, op) < 0 || open_overlay_dirs(ms, op, &d) < 0) {
		close_overlay_dirs(&d);
		return -1;
	}
	fs = op->kind == FS_TMP_OVERLAY && open_tmp_upper(&d, &tmp_attached) < 0 ?
	     -1 : create_overlay_any(&d);
	saved = errno;
	if (tmp_attached && umount2(attach_point(), MNT_DETACH) < 0 && fs >= 0) {
		saved = errno;
		close(fs);
		fs = -1;
	}
	if (fs >= 0) {
		ms->trees[i] = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				       (op->kind == FS_RO_OVERLAY ? MOUNT_ATTR_RDONLY : 0));
		saved = errno;
		close(fs);
	}
	close_overlay_dirs(&d);
	errno = saved;
	if (fs < 0 || ms->trees[i] < 0)
		return overlay_error(ms, i);
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
			r = prepare_overlay(ms, op, i);
			break;
		case FS_MIRROR: r = mirror_source(ms, op, i); break;
		case FS_PROC: r = prepare_proc(ms, i); break;
		case FS_DEV: r = prepare_dev_nodes(ms, op); break;
		default: break;
		}
		if (r < 0)
			return failed_op(ms, i);
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
		return op_error(ms, "make private", "/", BW_MAKE_SLAVE, NULL, NULL);
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
		return op_error(ms, "new root tmpfs", "/", BW_NEWROOT_TMPFS, NULL, NULL);
	if (move_mount(root, "", AT_FDCWD, ms->attach_point, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(root);
		return op_error(ms, "attach new root on", ms->attach_point, BW_NEWROOT_BIND,
				NULL, NULL);
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
		return op_error(ms, "pivot_root to", "new root", BW_PIVOT_ROOT, NULL, NULL);
	/* The old root goes: nothing of the host is left but clones. */
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return op_error(ms, "detach", "old root", BW_UNMOUNT_OLDROOT, NULL, NULL);
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

/* mkdir -p inside the root, PATH with MODE and its missing parents with
 * ms->parent_mode; returns an O_PATH fd of PATH. */
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
	pfd = make_dirs(ms, parent, ms->parent_mode);
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
	return make_dirs(ms, parent, ms->parent_mode);
}

/* The directory PATH with MODE, its parents first; *FAILED says which
 * step failed, in bwrap's terms. */
static int make_dir(struct mount_state *ms, const char *path, mode_t mode,
		    enum bwrap_text *failed)
{
	const char *leaf;
	int pfd = open_parent(ms, path, &leaf);

	*failed = BW_MKDIR_PARENTS;
	if (pfd < 0)
		return -1;
	close(pfd);
	*failed = BW_MKDIR;
	return make_dirs(ms, path, mode);
}

/* An empty file at DEST, its parents first (see make_dir). */
static int make_file(struct mount_state *ms, const char *dest, enum bwrap_text *failed)
{
	const char *leaf;
	int pfd = open_parent(ms, dest, &leaf);
	int fd;

	*failed = BW_MKDIR_PARENTS;
	if (pfd < 0)
		return -1;
	*failed = BW_CREATE_FILE_AT;
	fd = openat(pfd, leaf, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	close(pfd);
	if (fd < 0 && errno != EEXIST)
		return -1;
	if (fd >= 0)
		close(fd);
	return resolve(ms, dest, O_PATH);
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
	int fd = resolve(ms, dest, O_PATH);

	*failed = BW_MKDIR_PARENTS;	/* a parent that is no directory */
	if (fd >= 0)
		return check_kind(ms, fd, dir, failed);
	if (errno != ENOENT)
		return -1;
	return dir ? make_dir(ms, dest, 0755, failed) : make_file(ms, dest, failed);
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* bwrap's text for a failed mount: ID with A and B. */
struct mount_text {
	enum bwrap_text id;
	const char *a, *b;
};

static int open_mount_point(struct mount_state *ms, const char *dest, bool dir)
{
	enum bwrap_text failed;
	int fd = mount_point(ms, dest, dir, &failed);

	return fd < 0 ? op_error(ms, "create mount point", dest, failed, dest, NULL) : fd;
}

/* Mount TREE on the mount point FD (which this closes). */
static int attach_at(struct mount_state *ms, int tree, int fd, const char *dest,
		     const struct mount_text *mt)
{
	bool on_root;
	int r = move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);

	on_root = r == 0 && same_file(fd, ms->root);
	close(fd);
	if (r < 0)
		return op_error(ms, "attach on", dest, mt->id, mt->a, mt->b);
	return on_root ? reopen_root(ms) : 0;
}

static int attach(struct mount_state *ms, int tree, const char *dest, bool dir,
		  const struct mount_text *mt)
{
	int fd = open_mount_point(ms, dest, dir);

	return fd < 0 ? -1 : attach_at(ms, tree, fd, dest, mt);
}

/* A new file system TREE (or its failure, in WHAT's words) on the mount
 * point AT, which bwrap makes before mounting. */
static int attach_new(struct mount_state *ms, int at, int tree, const char *dest,
		      const char *what, const struct mount_text *mt)
{
	int r;

	if (tree < 0) {
		r = op_error(ms, what, dest, mt->id, mt->a, mt->b);
		close(at);
		return r;
	}
	r = attach_at(ms, tree, at, dest, mt);
	close(tree);
	return r;
}

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
	r = attach(ms, tree, op->dest, is_dir_fd(tree), &mt);
	close(tree);
	ms->trees[i] = -1;
	return r;
}

static int do_tmpfs(struct mount_state *ms, struct fs_op *op)
{
	struct mount_text mt = { BW_MOUNT_TMPFS, op->dest, NULL };
	int at = open_mount_point(ms, op->dest, true);

	if (at < 0)
		return -1;
	return attach_new(ms, at, make_tmpfs(op->has_perms ? op->perms : 0755, op->size),
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
	int at = open_mount_point(ms, op->dest, true);
	int tree;

	if (at < 0)
		return -1;
	/* bwrap mounts mqueue without nosuid,nodev */
	tree = make_fs_attrs("mqueue", NULL, 0, ms->bwrap ? 0 : MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (tree >= 0 && ms->bwrap && same_fs_mounted_at(at, tree)) {
		close(tree);
		tree = -1;
		errno = EBUSY;
	}
	return attach_new(ms, at, tree, op->dest, "new mqueue for", &mt);
}

/* Bind a path of the new procfs onto itself read-only (or, with MASK,
 * cover it with an empty read-only tmpfs): sysctls and kernel knobs must
 * not be writable by a caller who is root, mapped to root. */
/* hutch mode makes a cover noexec too; bwrap's bind of the path onto
 * itself keeps what the procfs has (noexec for a new one, not for the
 * host's). */
static int cover_proc_path(int procfd, const char *name, bool noexec)
{
	int tree = open_tree(procfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	int r;

	if (tree < 0)
		return errno == ENOENT ? 0 : -1;
	r = set_attrs(tree, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		      (noexec ? MOUNT_ATTR_NOEXEC : 0), true);
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

/* hutch mode covers every one of proc_ro_bwrap.  bwrap covers only those
 * it could write (for a caller that is not root, none): a procfs with
 * covers is not wholly visible, and the kernel then refuses a new procfs
 * inside (unshare --mount-proc, a nested sandbox with --proc).  Returns
 * 1 to cover, 0 not to, -1 (errno set) when access(2) fails otherwise. */
static int wants_cover(const struct mount_state *ms, int procfd, const char *name)
{
	if (!ms->bwrap || faccessat(procfd, name, W_OK, 0) == 0)
		return 1;
	return errno == EACCES || errno == ENOENT || errno == EROFS ? 0 : -1;
}

static int cover_proc(struct mount_state *ms, const char *dest)
{
	int procfd = resolve(ms, dest, O_PATH | O_DIRECTORY);
	const char *failed = "";
	int r = 0;

	if (procfd < 0)
		return mount_error(ms, "open", dest);
	for (size_t i = 0; i < 4 && r == 0; i++) {
		int wanted = wants_cover(ms, procfd, proc_ro_bwrap[i]);

		if (wanted < 0) {
			r = op_error(ms, "access", proc_ro_bwrap[i], BW_PROC_ACCESS, dest,
				     proc_ro_bwrap[i]);
			close(procfd);
			return r;
		}
		if (wanted && (r = cover_proc_path(procfd, proc_ro_bwrap[i], !ms->bwrap)) < 0)
			failed = proc_ro_bwrap[i];
	}
	for (size_t i = 0; i < 3 && r == 0 && !ms->bwrap; i++)
		r = cover_proc_path(procfd, proc_ro_hutch[i], true);
	if (r == 0 && !ms->bwrap)
		r = mask_proc_file(ms, procfd, "kcore");
	close(procfd);
	if (r < 0)
		return op_error(ms, "make read-only under", dest, BW_COVER_PROC, dest, failed);
	return 0;
}

static int do_proc(struct mount_state *ms, struct fs_op *op, size_t i)
{
	struct mount_text mt = { proc_text(ms), op->dest, NULL };
	int r = attach(ms, ms->trees[i], op->dest, true, &mt);

	close(ms->trees[i]);
	ms->trees[i] = -1;
	return r < 0 ? r : cover_proc(ms, op->dest);
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
	return op_error(ms, "symlink", dest, id, dest, existing);
}

static int make_symlink(struct mount_state *ms, const char *target, const char *dest)
{
	const char *leaf;
	int pfd = open_parent(ms, dest, &leaf);
	int r = 0;

	if (pfd < 0)
		return op_error(ms, "create parent of", dest, BW_MKDIR_PARENTS, dest, NULL);
	if (symlinkat(target, pfd, leaf) < 0)
		r = errno == EEXIST ? existing_symlink(ms, pfd, leaf, target, dest) :
		    op_error(ms, "symlink", dest, BW_SYMLINK, dest, NULL);
	close(pfd);
	return r;
}

static int dev_file(struct mount_state *ms, const char *dev, const char *name,
		    int tree)
{
	char path[PATH_MAX], host[PATH_MAX];
	struct mount_text mt = { BW_BIND, host, path };

	snprintf(path, sizeof(path), "%s/%s", dev, name);
	snprintf(host, sizeof(host), "/dev/%s", name);
	return attach(ms, tree, path, false, &mt);
}

static int dev_devpts(struct mount_state *ms, const char *dev)
{
	static const char *const opts[] = {
		"newinstance", "", "ptmxmode", "0666", "mode", "620",
	};
	char path[PATH_MAX];
	struct mount_text mt = { BW_MOUNT_DEVPTS, dev, NULL };
	int fs, mnt, r;

	fs = open_fs("devpts");
	if (fs < 0)
		return op_error(ms, "new devpts for", dev, mt.id, dev, NULL);
	r = fsconfig(fs, FSCONFIG_SET_FLAG, opts[0], NULL, 0);
	for (int i = 2; i < 6 && r == 0; i += 2)
		r = fsconfig(fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0);
	if (r == 0)
		r = fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	mnt = r == 0 ? fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC) : -1;
	close(fs);
	if (mnt < 0)
		return op_error(ms, "new devpts for", dev, mt.id, dev, NULL);
	snprintf(path, sizeof(path), "%s/pts", dev);
	r = attach(ms, mnt, path, true, &mt);
	close(mnt);
	return r;
}

static const char *const dev_links[][2] = {
	{ "pts/ptmx", "ptmx" }, { "/proc/self/fd", "fd" },
	{ "/proc/self/fd/0", "stdin" }, { "/proc/self/fd/1", "stdout" },
	{ "/proc/self/fd/2", "stderr" }, { "/proc/kcore", "core" },
};

static int dev_console(struct mount_state *ms, const char *dev)
{
	char path[PATH_MAX];
	struct mount_text mt = { BW_BIND, ms->console_src, path };

	if (ms->console < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/console", dev);
	return attach(ms, ms->console, path, false, &mt);
}

static int do_dev(struct mount_state *ms, struct fs_op *op)
{
	char path[PATH_MAX];
	int fd = make_tmpfs(0755, 0);
	struct mount_text mt = { BW_MOUNT_TMPFS, op->dest, NULL };
	int r;

	if (fd < 0)
		return op_error(ms, "new tmpfs for", op->dest, mt.id, op->dest, NULL);
	/* Device nodes must work in this tmpfs: no nodev on it. */
	r = attach(ms, fd, op->dest, true, &mt);
	close(fd);
	for (int i = 0; i < N_DEV_NODES && r == 0; i++)
		r = dev_file(ms, op->dest, dev_nodes[i], ms->dev_nodes[i]);
	for (size_t i = 0; i < 6 && r == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", op->dest, dev_links[i][1]);
		r = make_symlink(ms, dev_links[i][0], path);
	}
	snprintf(path, sizeof(path), "%s/shm", op->dest);
	if (r == 0 && (fd = make_dirs(ms, path, 0755)) < 0)
		return op_error(ms, "create", path, BW_DEV_SHM, op->dest, NULL);
	if (r == 0)
		close(fd);
	if (r == 0)
		r = dev_devpts(ms, op->dest);
	return r == 0 ? dev_console(ms, op->dest) : r;
}

static int do_dir(struct mount_state *ms, struct fs_op *op)
{
	enum bwrap_text failed;
	int fd = make_dir(ms, op->dest, op->has_perms ? op->perms : 0755, &failed);

	if (fd < 0)
		return op_error(ms, "create directory", op->dest, failed, op->dest, NULL);
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
	char mode[16];
	int r = fd < 0 ? -1 : chmod_fd(fd, op->perms);

	if (fd >= 0)
		close(fd);
	snprintf(mode, sizeof(mode), "%#o", (unsigned)op->perms);
	return r < 0 ? op_error(ms, "chmod", op->dest, BW_CHMOD, mode, op->dest) : 0;
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

static int create_at(int dirfd, const char *leaf, mode_t mode)
{
	return openat(dirfd, leaf, O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
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
	int pfd = open_parent(ms, op->dest, &leaf);
	int fd, r;

	if (pfd < 0)
		return op_error(ms, "create parent of", op->dest, BW_MKDIR_PARENTS, op->dest, NULL);
	fd = create_at(pfd, leaf, mode);
	close(pfd);
	r = fd < 0 ? -1 : fill_fd(fd, mode, op->fd);
	if (fd >= 0)
		close(fd);
	fds_retire(op->fd);
	return r < 0 ? op_error(ms, "Can't write data to file", op->dest,
				fd < 0 ? BW_CREATE_FILE : BW_WRITE_DATA, op->dest, NULL) : 0;
}

/* --bind-data: the data lives in a private tmpfs of its own. */
static int do_bind_data(struct mount_state *ms, struct fs_op *op)
{
	int tmp = make_tmpfs(0755, 0);
	int tree = -1, r = -1;
	struct mount_text mt = { BW_BIND, "bindfile", op->dest };

	if (tmp >= 0 && fill_file_at(tmp, "data", op->has_perms ? op->perms : 0600, op->fd) == 0)
		tree = clone_tmpfs_file(ms, tmp, "data");
	fds_retire(op->fd);
	if (tree >= 0 && (!(op->flags & FS_READONLY) || set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0))
		r = attach(ms, tree, op->dest, false, &mt);
	else
		r = op_error(ms, "Can't write data to file", op->dest, BW_WRITE_DATA, op->dest, NULL);
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
	pfd = open_parent(ms, dest, &leaf);
	if (pfd < 0)
		return op_error(ms, "create parent of", dest, BW_MKDIR_PARENTS, dest, NULL);
	close(pfd);
	return 0;
}

static int do_remount_ro(struct mount_state *ms, struct fs_op *op)
{
	int fd, r;

	if (remount_parents(ms, op->dest) < 0)
		return -1;
	fd = resolve(ms, op->dest, O_PATH);
	if (fd < 0)
		return op_error(ms, "remount read-only", op->dest, BW_REMOUNT_RO_MISSING,
				op->dest, NULL);
	r = set_attrs(fd, MOUNT_ATTR_RDONLY, false);
	close(fd);
	return r < 0 ? op_error(ms, "remount read-only", op->dest, BW_REMOUNT_RO, op->dest,
				NULL) : 0;
}

static int do_mirror(struct mount_state *ms, struct fs_op *op, size_t i)
{
	if (ms->links[i])
		return make_symlink(ms, ms->links[i], op->dest);
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
		return op_error(ms, "chdir", dir, BW_CHDIR, dir, NULL);
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
	if (make_propagation_private(ms) < 0 || clone_sources(ms) < 0)
		return -1;
	prepare_private_proc(ms);
	if (attach_new_root(ms) < 0)
		return -1;
	for (size_t i = 0; i < ms->plan->n_ops; i++)
		if (do_op(ms, i) < 0)
			return failed_op(ms, i);
	if (protect_apply(ms) < 0)
		return -1;
	if (pivot_into_root(ms) < 0)
		return -1;
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
