/* /proc in the sandbox: a new procfs (or, where the kernel refuses one,
 * a fenced substitute), with the kernel's writable knobs under it covered
 * read-only and /proc/kcore masked, and the private procfs pid 1 uses at
 * teardown.  Defends against a caller mapped to root writing sysctls or
 * reading kernel memory, and against /proc leaking the host's processes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "messages/messages.h"
#include "landlock/landlock.h"
#include "mount_api.h"
#include "mount_proc.h"
#include "mount_root.h"
#include "mount.h"

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
		fd = mount_make_tmpfs(0555, 4096);
	}
	if (fd < 0 || mount_set_attrs(fd, ro, true) < 0) {
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
int mount_proc_prepare(struct mount_state *ms, size_t i)
{
	int fd;

	/* Without a pid namespace of its own, a new procfs is refused to an
	 * unprivileged caller: like bwrap, bind the host's. */
	if (!(ms->plan->clone_flags & CLONE_NEWPID)) {
		fd = open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		/* bwrap's bind of the host /proc: nosuid,nodev */
		if (fd >= 0 && mount_set_attrs(fd, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true) < 0) {
			close(fd);
			fd = -1;
		}
	} else {
		/* bwrap's new procfs: nosuid,nodev,noexec */
		fd = mount_make_fs_attrs("proc", NULL, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				   MOUNT_ATTR_NOEXEC);
		if (fd < 0 && errno == EPERM && !ms->bwrap)
			return substitute_proc(ms, i);
	}

	if (fd < 0)
		return mount_op_error(ms, "new procfs for", ms->plan->ops[i].dest, proc_text(ms),
				ms->plan->ops[i].dest, NULL);
	ms->trees[i] = fd;
	return 0;
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
	r = mount_set_attrs(tree, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		      (noexec ? MOUNT_ATTR_NOEXEC : 0), true);
	if (r == 0)
		r = move_mount(tree, "", procfd, name, MOVE_MOUNT_F_EMPTY_PATH);
	close(tree);
	return r;
}

/* /proc/kcore is the kernel's memory: hide it behind an empty file. */
static int mask_proc_file(struct mount_state *ms, int procfd, const char *name)
{
	struct stat st;
	int tmp, fd, tree, r = -1;

	/* A kernel without it (no CONFIG_PROC_KCORE) has nothing to hide:
	 * no tmpfs made and dropped again, which costs an RCU grace period. */
	if (fstatat(procfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
		return 0;
	tmp = mount_make_tmpfs(0555, 4096);
	if (tmp < 0)
		return -1;
	fd = openat(tmp, "empty", O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0400);
	if (fd >= 0)
		close(fd);
	tree = mount_root_clone_tmpfs_file(ms, tmp, "empty");
	if (tree >= 0 && mount_set_attrs(tree, MOUNT_ATTR_RDONLY, false) == 0)
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

/* hutch mode covers every one of proc_ro_bwrap and proc_ro_hutch, and
 * masks kcore.  bwrap covers only those it could write (for a caller
 * that is not root, none): a procfs with covers is not wholly visible,
 * and the kernel then refuses a new procfs inside (unshare --mount-proc,
 * a nested sandbox with --proc).  --allow-nested asks for that procfs,
 * so hutch mode then covers as bwrap does, but only where pid 1's uid
 * is not root on the host: the kernel lets a host root write a sysctl
 * by its file mode alone, without any capability (core_pattern: code
 * run as root outside), and /proc/sys itself, a directory no one can
 * write, would look safe to access(2).  Pid 1 holds every capability
 * COMMAND could ever have here, so what it cannot write (or, for kcore,
 * read) a cover would not protect. */
#define SYSCTL_PROBE "sys/vm/overcommit_memory"	/* 0644, root's, on every kernel */

static bool covers_all(const struct mount_state *ms, int procfd)
{
	if (ms->bwrap)
		return false;
	if (!ms->plan->allow_nested)
		return true;
	return !(faccessat(procfd, SYSCTL_PROBE, W_OK, 0) < 0 && errno == EACCES);
}

/* 1 to cover NAME, 0 not to, -1 (errno set) when access(2) fails
 * otherwise. */
static int wants_cover(bool all, int procfd, const char *name, int mode)
{
	if (all || faccessat(procfd, name, mode, 0) == 0)
		return 1;
	return errno == EACCES || errno == ENOENT || errno == EROFS ? 0 : -1;
}

/* hutch mode's own covers (fs, acpi, scsi) and the kcore mask. */
static int cover_proc_hutch(struct mount_state *ms, int procfd, bool all)
{
	int r = 0;

	for (size_t i = 0; i < 3 && r == 0; i++)
		if (wants_cover(all, procfd, proc_ro_hutch[i], W_OK) != 0)
			r = cover_proc_path(procfd, proc_ro_hutch[i], true);
	/* Unsure whether it could be read: masked. */
	if (r == 0 && wants_cover(all, procfd, "kcore", R_OK) != 0)
		r = mask_proc_file(ms, procfd, "kcore");
	return r;
}

static int cover_proc(struct mount_state *ms, const char *dest)
{
	int procfd = mount_root_resolve(ms, dest, O_PATH | O_DIRECTORY);
	const char *failed = "";
	bool all;
	int r = 0;

	if (procfd < 0)
		return mount_error(ms, "open", dest);
	all = covers_all(ms, procfd);
	for (size_t i = 0; i < 4 && r == 0; i++) {
		int wanted = wants_cover(all, procfd, proc_ro_bwrap[i], W_OK);

		if (wanted < 0) {
			r = mount_op_error(ms, "access", proc_ro_bwrap[i], BW_PROC_ACCESS, dest,
				     proc_ro_bwrap[i]);
			close(procfd);
			return r;
		}
		if (wanted && (r = cover_proc_path(procfd, proc_ro_bwrap[i], !ms->bwrap)) < 0)
			failed = proc_ro_bwrap[i];
	}
	if (r == 0 && !ms->bwrap)
		r = cover_proc_hutch(ms, procfd, all);
	close(procfd);
	if (r < 0)
		return mount_op_error(ms, "make read-only under", dest, BW_COVER_PROC, dest, failed);
	return 0;
}

int mount_proc_attach(struct mount_state *ms, struct fs_op *op, size_t i)
{
	struct mount_text mt = { proc_text(ms), op->dest, NULL };
	int r = mount_root_attach(ms, ms->trees[i], op->dest, true, &mt);

	if (r == 0 && ms->private_proc < 0 && !ms->proc_substituted &&
	    (ms->plan->clone_flags & CLONE_NEWPID))
		ms->private_proc = openat(ms->trees[i], ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	close(ms->trees[i]);
	ms->trees[i] = -1;
	return r < 0 ? r : cover_proc(ms, op->dest);
}

/* The procfs pid 1 lists the namespace's processes from at teardown:
 * the sandbox's first fresh /proc, held by a directory fd taken before
 * COMMAND runs (what COMMAND later mounts over /proc does not change what
 * that fd reaches), else one of its own that is never attached.  Reusing
 * the attached one matters for speed: closing a never-attached mount at
 * pid 1's exit costs the kernel an RCU grace period that the supervisor
 * waits for. */
void mount_proc_private(struct mount_state *ms)
{
	if (ms->private_proc < 0 && (ms->plan->clone_flags & CLONE_NEWPID))
		ms->private_proc = mount_make_fs("proc", NULL, 0);
}
