/* --doctor: whether hutch can run on this machine, found by trying each
 * operation for real in a throwaway child (never by reading version
 * numbers), and what to change where one fails.
 *
 * One line per check: "OK   NAME: DETAIL", "WARN NAME: DETAIL; fix: FIX"
 * or "FAIL NAME: DETAIL; fix: FIX", then a "mode" line saying what
 * `hutch COMMAND` will get.  Every child is reaped before the next check;
 * mounts are made only in the children's own mount namespaces, and no
 * file is created anywhere. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "limits/limits.h"
#include "diag.h"
#include "doctor_probe.h"
#include "seccomp/seccomp.h"
#include "landlock/landlock.h"
#include "net/net.h"
#include "lib/lib.h"
#include "sandbox.h"
#include "child/child.h"
#include "host/host.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The parsers of /proc/self/cgroup and mountinfo, in resource_limits.c
 * (where the unit tests exercise them). */

#define EXIT_CANNOT_RUN 125
/* RLIMIT_NPROC set in the nproc probe's fresh user namespace. */
#define NPROC_LIMIT 8

static const char *const level_words[] = { "OK  ", "WARN", "FAIL" };

/* Which mode cannot run when a check fails. */
#define NEED_NS 0x1u	/* namespaces (hutch's normal mode) */
#define NEED_LL 0x2u	/* the Landlock fallback */

struct check {
	const char *name;
	void (*run)(struct doctor *d, struct finding *f);
	unsigned needed_by;
};

/* ---- clone3, clone, pidfds ---- */

typedef pid_t clone_fn(int flags, int *pidfd);

/* clone3, and clone where clone3 gives ENOSYS: what hutch does. */
static pid_t hutch_clone(int flags, int *pidfd)
{
	return clone_with_pidfd(flags, pidfd, -1);
}

/* A child made by HOW that exits with CODE at once; -1 with errno. */
static pid_t exiting_child(clone_fn *how, int code, int *pidfd)
{
	pid_t pid = how(0, pidfd);

	if (pid == 0)
		_exit(code);
	return pid;
}

/* Such a child, reaped.  0, or -1 with errno. */
static int child_exits(clone_fn *how)
{
	int pidfd = -1;
	siginfo_t si;
	pid_t pid = exiting_child(how, 0, &pidfd);

	if (pid < 0)
		return -1;
	doctor_probe_reap(pid, pidfd, &si);
	return 0;
}

static void check_clone3(struct doctor *d, struct finding *f)
{
	if (child_exits(doctor_clone3) == 0) {
		d->clone3_ok = true;
		doctor_say(f, LVL_OK, NULL, "clone3 with CLONE_PIDFD works");
	} else if (errno == ENOSYS) {
		doctor_say(f, LVL_WARN, "allow clone3 in the seccomp profile (Docker 20.10.10 and later do)",
		    "clone3 is refused with ENOSYS (a container's seccomp profile?): hutch uses clone "
		    "with CLONE_PIDFD, and moves pid 1 into its cgroup after the clone");
	} else {
		doctor_say(f, LVL_WARN, "see the error; hutch falls back to clone only on ENOSYS",
		    "clone3 failed: %s", strerror(errno));
	}
}

static void check_clone(struct doctor *d, struct finding *f)
{
	enum level level = d->clone3_ok ? LVL_WARN : LVL_FAIL;

	if (child_exits(doctor_clone) == 0)
		doctor_say(f, LVL_OK, NULL, "clone with CLONE_PIDFD works (the fallback where clone3 is refused)");
	else
		doctor_say(f, level, "a kernel of Linux 5.3 or later, and a seccomp profile that allows clone",
		    "clone with CLONE_PIDFD failed: %s%s", strerror(errno),
		    d->clone3_ok ? " (needed only where clone3 is refused)" : "");
}

static void check_pidfd(struct doctor *d, struct finding *f)
{
	int pidfd = -1;
	siginfo_t si;
	pid_t pid = exiting_child(hutch_clone, 0, &pidfd);
	long proc = -1, own = -1;

	(void)d;
	if (pid < 0) {
		doctor_say(f, LVL_FAIL, "Linux 5.3 or later", "clone with CLONE_PIDFD failed: %s", strerror(errno));
		return;
	}
	if (pidfd >= 0)
		doctor_probe_pidfd_pids(pidfd, &proc, &own);
	doctor_probe_reap(pid, pidfd, &si);
	if (own == pid)
		doctor_say(f, LVL_OK, NULL, "CLONE_PIDFD gives a pidfd of the child (fdinfo NSpid: %ld)", own);
	else
		doctor_say(f, LVL_FAIL, "Linux 5.3 or later", "CLONE_PIDFD gave no pidfd of pid %d", (int)pid);
}

static void check_waitid(struct doctor *d, struct finding *f)
{
	int pidfd = -1;
	siginfo_t si = { 0 };
	pid_t pid = exiting_child(hutch_clone, 42, &pidfd);
	int r;

	(void)d;
	if (pid < 0) {
		doctor_say(f, LVL_FAIL, "see clone3", "no child to wait for: %s", strerror(errno));
		return;
	}
	r = waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
	if (r < 0) {
		doctor_say(f, LVL_FAIL, "Linux 5.4 or later", "waitid(P_PIDFD) failed: %s", strerror(errno));
		doctor_probe_reap(pid, -1, &si);
	} else if (si.si_code != CLD_EXITED || si.si_status != 42) {
		doctor_say(f, LVL_FAIL, "a kernel whose waitid(P_PIDFD) works", "waitid(P_PIDFD) gave a wrong status");
	} else {
		doctor_say(f, LVL_OK, NULL, "waitid(P_PIDFD) collects the child's exit status");
	}
	if (pidfd >= 0)
		close(pidfd);
}

/* A child that blocks until killed or until HOLD's write end closes. */
static pid_t blocked_child(int hold[2], int *pidfd)
{
	pid_t pid;
	char c;

	if (pipe2(hold, O_CLOEXEC) < 0)
		return -1;
	pid = clone_with_pidfd(0, pidfd, -1);
	if (pid == 0) {
		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
	}
	close(hold[0]);
	if (pid < 0)
		close(hold[1]);
	return pid;
}

static void check_pidfd_send_signal(struct doctor *d, struct finding *f)
{
	int hold[2], pidfd = -1, r, err;
	siginfo_t si;
	pid_t pid = blocked_child(hold, &pidfd);

	(void)d;
	if (pid < 0) {
		doctor_say(f, LVL_FAIL, "see the error", "no child to signal: %s", strerror(errno));
		return;
	}
	r = (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	err = errno;
	close(hold[1]);
	doctor_probe_reap(pid, pidfd, &si);
	if (r == 0 && si.si_code == CLD_KILLED && si.si_status == SIGKILL)
		doctor_say(f, LVL_OK, NULL, "a pidfd delivers SIGKILL to its child");
	else
		doctor_say(f, LVL_FAIL, "Linux 5.1 or later", "pidfd_send_signal failed: %s",
		    r < 0 ? strerror(err) : "the child was not killed");
}

/* ---- fds and paths ---- */

static void check_close_range(struct doctor *d, struct finding *f)
{
	int fd = open("/", O_PATH | O_DIRECTORY);
	bool cloexec, closed;

	(void)d;
	if (fd < 0) {
		doctor_say(f, LVL_FAIL, "see the error", "open /: %s", strerror(errno));
		return;
	}
	cloexec = syscall(SYS_close_range, fd, fd, CLOSE_RANGE_CLOEXEC) == 0 &&
		  (fcntl(fd, F_GETFD) & FD_CLOEXEC);
	closed = syscall(SYS_close_range, fd, fd, 0) == 0 && fcntl(fd, F_GETFD) < 0;
	if (!closed)
		close(fd);
	if (cloexec && closed)
		doctor_say(f, LVL_OK, NULL, "close_range closes fds and marks them close-on-exec");
	else
		doctor_say(f, LVL_FAIL, "Linux 5.11 or later", "close_range failed: %s", strerror(errno));
}

static void check_openat2(struct doctor *d, struct finding *f)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = root < 0 ? -1 : (int)syscall(SYS_openat2, root, "../..", &how, sizeof(how));
	struct stat a, b;
	int err = errno;

	(void)d;
	if (fd >= 0 && fstat(root, &a) == 0 && fstat(fd, &b) == 0 && a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev)
		doctor_say(f, LVL_OK, NULL, "openat2 with RESOLVE_IN_ROOT keeps \"..\" inside the root");
	else
		doctor_say(f, LVL_FAIL, "Linux 5.6 or later", "openat2 with RESOLVE_IN_ROOT: %s",
		    fd < 0 ? strerror(err) : "\"..\" left the root");
	if (fd >= 0)
		close(fd);
	if (root >= 0)
		close(root);
}

/* hutch's supervisor writes pid 1's id maps through /proc/PID. */
static void check_proc(struct doctor *d, struct finding *f)
{
	char self[32];
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

	(void)d;
	if (n > 0)
		self[n] = '\0';
	if (n > 0 && strtol(self, NULL, 10) == (long)getpid())
		doctor_say(f, LVL_OK, NULL, "/proc shows this process's pid namespace");
	else if (n > 0)
		doctor_say(f, LVL_FAIL, "mount a /proc of this pid namespace (unshare --mount-proc)",
		    "/proc belongs to another pid namespace (/proc/self is %s, the pid is %d): "
		    "hutch would write pid 1's id maps to the wrong /proc/PID", self, (int)getpid());
	else
		doctor_say(f, LVL_FAIL, "mount /proc", "/proc/self: %s", strerror(errno));
}

/* ---- the mount API, in a throwaway user and mount namespace ---- */

/* The calls as a run makes them: a tmpfs attached, a clone of an
 * attached tree (Linux before 6.15 clones no detached mount), its
 * attributes set, the clone attached. */
static void probe_mount_api(struct probe *p, int arg)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
	int fs = -1, mnt = -1, copy = -1;

	(void)arg;
	if (!doctor_probe_step(p, "make / private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) ||
	    !doctor_probe_step(p, "fsopen tmpfs", (fs = fsopen("tmpfs", FSOPEN_CLOEXEC)) >= 0) ||
	    !doctor_probe_step(p, "fsconfig create", fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0) ||
	    !doctor_probe_step(p, "fsmount", (mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0)) >= 0) ||
	    !doctor_probe_step(p, "move_mount", move_mount(mnt, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) == 0) ||
	    !doctor_probe_step(p, "open_tree clone", (copy = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE |
							   OPEN_TREE_CLOEXEC | AT_RECURSIVE)) >= 0) ||
	    !doctor_probe_step(p, "mount_setattr", mount_setattr(copy, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
						    sizeof(attr)) == 0))
		return;
	p->ok = doctor_probe_step(p, "move_mount", move_mount(copy, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) == 0);
}

static void probe_procfs(struct probe *p, int arg)
{
	int fs = -1;

	(void)arg;
	/* fsmount is where the kernel's "too revealing" check refuses it. */
	if (!doctor_probe_step(p, "fsopen proc", (fs = fsopen("proc", FSOPEN_CLOEXEC)) >= 0) ||
	    !doctor_probe_step(p, "fsconfig create", fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0))
		return;
	p->ok = doctor_probe_step(p, "fsmount proc", fsmount(fs, FSMOUNT_CLOEXEC, 0) >= 0);
}

/* A check that runs in a user namespace is not tried without one. */
static bool without_userns(const struct doctor *d, struct finding *f)
{
	if (!d->userns_ok)
		doctor_say(f, LVL_WARN, "make user namespaces work (see userns)",
		    "not tried: it needs a user namespace");
	return !d->userns_ok;
}

static void check_mount_api(struct doctor *d, struct finding *f)
{
	struct probe p;
	char why[256];

	if (without_userns(d, f))
		return;
	if (doctor_probe_run(NS_FLAGS, probe_mount_api, 0, &p) < 0 || !p.ok)
		doctor_say(f, LVL_FAIL, "a seccomp profile that allows the mount API (Linux 5.12 has all "
		    "of it)", "%s", doctor_probe_failure(&p, why, sizeof(why)));
	else
		doctor_say(f, LVL_OK, NULL, "fsopen, fsconfig, fsmount, open_tree, mount_setattr and "
		    "move_mount work in a user namespace");
}

/* A fresh procfs for the sandbox, or the run's substitute (mounts.c). */
static void check_procfs(struct doctor *d, struct finding *f)
{
	struct probe p;
	char why[256];

	if (without_userns(d, f))
		return;
	if (doctor_probe_run(NS_FLAGS, probe_procfs, 0, &p) == 0 && p.ok)
		doctor_say(f, LVL_OK, NULL, "a fresh procfs mounts in a new pid namespace");
	else if (landlock_abi_version() > 0)
		doctor_say(f, LVL_WARN, "run outside a container, or give it an unmasked /proc",
		    "the kernel refuses a fresh procfs (%s; /proc has mounts over parts of it, as "
		    "container engines make): hutch mode shows the caller's /proc read-only, with "
		    "COMMAND in a Landlock domain that refuses it access to other processes' "
		    "environ, memory and fds; bwrap mode's --proc fails",
		    doctor_probe_failure(&p, why, sizeof(why)));
	else
		doctor_say(f, LVL_WARN, "run outside a container, or give it an unmasked /proc",
		    "the kernel refuses a fresh procfs (%s), and without Landlock the caller's "
		    "/proc cannot be fenced: hutch mode's /proc is an empty read-only tmpfs; "
		    "bwrap mode's --proc fails", doctor_probe_failure(&p, why, sizeof(why)));
}

/* ---- the sealed init image ---- */

static void probe_exec_image(struct probe *p, int image)
{
	char *const argv[] = { "hutch-init", NULL };
	char *const envp[] = { NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* hutch-init, run without its fds, exits at once; mute its complaint. */
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	syscall(SYS_execveat, image, "", argv, envp, AT_EMPTY_PATH);
	doctor_probe_step(p, "execveat the sealed memfd", false);
}

static void memfd_refused(struct finding *f, long noexec, const char *err)
{
	if (noexec == 2)
		doctor_say(f, LVL_FAIL, "sysctl -w vm.memfd_noexec=0",
		    "executable memfds are refused: vm.memfd_noexec = 2 (%s)", err);
	else
		doctor_say(f, LVL_FAIL, "see the error", "%s", err);
}

static void check_memfd(struct doctor *d, struct finding *f)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	long noexec = proc_read_number("/proc/sys/vm/memfd_noexec");
	struct probe p = { 0 };
	char why[256];

	(void)d;
	if (sb)
		sb->init_image = -1;
	if (!sb || seal_make_image(sb) < 0) {
		memfd_refused(f, noexec, sb ? sb->err : strerror(errno));
	} else if (doctor_probe_run(0, probe_exec_image, sb->init_image, &p) < 0 || p.reported ||
		   p.end.si_code != CLD_EXITED) {
		memfd_refused(f, noexec, doctor_probe_failure(&p, why, sizeof(why)));
	} else {
		doctor_say(f, LVL_OK, NULL, "the init image (%zu bytes) runs from a sealed MFD_EXEC memfd; "
		    "vm.memfd_noexec = %ld", seal_image_size(), noexec < 0 ? 0 : noexec);
	}
	if (sb && sb->init_image >= 0)
		close(sb->init_image);
	free(sb);
}

/* ---- seccomp ---- */

/* A filter with a listener, loaded as policy.c loads hutch's (libseccomp
 * would hide the kernel's EBUSY behind another errno). */
static void probe_listener(struct probe *p, int arg)
{
	struct sock_fprog prog = { 0 };
	struct sock_filter *insns = NULL;
	char err[256];
	size_t n = 0;

	(void)arg;
	errno = ENOMEM;
	if (!doctor_probe_step(p, "build a filter", policy_allow_all_program(&insns, &n, err, sizeof(err)) == 0))
		return;
	prog.len = (unsigned short)n;
	prog.filter = insns;
	if (doctor_probe_step(p, "no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0))
		p->ok = doctor_probe_step(p, "load a filter with a listener",
			     syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) >= 0);
	free(insns);
}

static void probe_seccomp(struct probe *p, int arg)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	(void)arg;
	errno = ENOMEM;
	if (!doctor_probe_step(p, "seccomp_init", ctx != NULL))
		return;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EDOM), SCMP_SYS(getppid), 0);
	if ((errno = -r) == 0)
		errno = -(r = seccomp_load(ctx));
	if (doctor_probe_step(p, "build and load a filter", r == 0))
		p->ok = doctor_probe_step(p, "getppid answered by the filter",
			     syscall(SYS_getppid) < 0 && errno == EDOM);
	seccomp_release(ctx);
}

static void check_seccomp(struct doctor *d, struct finding *f)
{
	struct probe p;
	char why[256];

	(void)d;
	if (doctor_probe_run(0, probe_seccomp, 0, &p) == 0 && p.ok)
		doctor_say(f, LVL_OK, NULL, "a libseccomp filter loads and answers a syscall with an errno");
	else
		doctor_say(f, LVL_FAIL, "a kernel with CONFIG_SECCOMP_FILTER=y, and a container profile "
		    "that allows seccomp()", "%s", doctor_probe_failure(&p, why, sizeof(why)));
}

static void check_seccomp_notify(struct doctor *d, struct finding *f)
{
	struct seccomp_notif_sizes sizes = { 0 };
	struct probe p = { 0 };
	char why[256];

	(void)d;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0 &&
	    doctor_probe_run(0, probe_listener, 0, &p) == 0 && p.ok)
		doctor_say(f, LVL_OK, NULL, "a filter loads with a listener fd (--report works)");
	else if (sizes.seccomp_notif && p.err == EBUSY)
		doctor_say(f, LVL_WARN, "run hutch outside that sandbox, or that sandbox without its report",
		    "a seccomp filter of this process already has a listener (inside another sandbox "
		    "that watches syscalls?): --report cannot see refused syscalls");
	else
		doctor_say(f, LVL_WARN, "Linux 5.0 or later and libseccomp 2.5 or later",
		    "no user notification (%s): --report cannot see refused syscalls",
		    sizes.seccomp_notif ? doctor_probe_failure(&p, why, sizeof(why)) : strerror(errno));
}

/* ---- Landlock ---- */

static void probe_landlock(struct probe *p, int arg)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_READ_FILE,
	};
	int fd = -1;

	(void)arg;
	if (!doctor_probe_step(p, "no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) ||
	    !doctor_probe_step(p, "create a ruleset",
		  (fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0)) >= 0) ||
	    !doctor_probe_step(p, "restrict_self", syscall(SYS_landlock_restrict_self, fd, 0) == 0))
		return;
	errno = EPERM;
	p->ok = doctor_probe_step(p, "the ruleset does not deny reading /",
		     open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) < 0 && errno == EACCES);
}

static void landlock_scoping(struct doctor *d, struct finding *f)
{
	if (d->landlock_abi >= 6)
		doctor_say(f, LVL_OK, NULL, "ABI %d: the fallback works, and --share-net scopes abstract "
		    "unix sockets and signals", d->landlock_abi);
	else
		doctor_say(f, LVL_WARN, "Linux 6.12 or later (Landlock ABI 6)",
		    "ABI %d: the fallback works, but with --share-net signals outside, and "
		    "abstract unix sockets (X11, D-Bus) where no connect broker runs (the "
		    "fallback, --seccomp-policy none), stay reachable", d->landlock_abi);
}

static void check_landlock(struct doctor *d, struct finding *f)
{
	enum level missing = d->userns_ok ? LVL_WARN : LVL_FAIL;
	struct probe p = { 0 };
	char why[256];

	d->landlock_abi = landlock_abi_version();
	if (d->landlock_abi == 0) {
		doctor_say(f, missing, "a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in lsm= on "
		    "its command line", "no Landlock: no fallback where user namespaces are refused, "
		    "no scoping with --share-net");
		return;
	}
	if (doctor_probe_run(0, probe_landlock, 0, &p) < 0 || !p.ok) {
		doctor_say(f, missing, "see the error", "ABI %d, but a ruleset did not confine a child: %s",
		    d->landlock_abi, doctor_probe_failure(&p, why, sizeof(why)));
		return;
	}
	d->landlock_ok = true;
	landlock_scoping(d, f);
}

/* ---- RLIMIT_NPROC per user namespace ---- */

/* Forks (each exits at once, reaped only at the end) under a low
 * RLIMIT_NPROC, up to a few past it. */
static void probe_nproc(struct probe *p, int limit)
{
	struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
	pid_t pid;

	if (!doctor_probe_step(p, "setrlimit", setrlimit(RLIMIT_NPROC, &rl) == 0))
		return;
	while (p->value < limit + 4 && (pid = fork()) >= 0) {
		if (pid == 0)
			_exit(0);
		p->value++;
	}
	while (wait(NULL) > 0)
		;
	p->ok = true;
}

static void nproc_unenforced(struct doctor *d, struct finding *f)
{
	if (d->no_cgroup_pids)
		doctor_say(f, LVL_WARN, "for a root caller, a delegated cgroup v2 pids controller (see cgroup)",
		    "not enforced for uid 0 (the kernel exempts root): --pids limits nothing for this "
		    "caller");
	else
		doctor_say(f, LVL_OK, NULL, "not enforced for uid 0 (the kernel exempts root): --pids uses "
		    "the cgroup v2 pids controller instead");
}

static void check_rlimit_nproc(struct doctor *d, struct finding *f)
{
	struct probe p;
	char why[256];

	if (without_userns(d, f))
		return;
	if (doctor_probe_run(NS_FLAGS, probe_nproc, NPROC_LIMIT, &p) < 0 || !p.ok) {
		doctor_say(f, LVL_WARN, "see the error", "%s", doctor_probe_failure(&p, why, sizeof(why)));
	} else if (p.value > NPROC_LIMIT) {
		nproc_unenforced(d, f);
	} else if (p.value < NPROC_LIMIT - 1) {
		doctor_say(f, LVL_WARN, "Linux 5.14 or later",
		    "counted with the uid's processes outside (%d forks under a limit of %d): "
		    "--pids also counts the caller's other processes", p.value, NPROC_LIMIT);
	} else {
		doctor_say(f, LVL_OK, NULL, "counted per user namespace: a fresh one with RLIMIT_NPROC %d "
		    "forked %d (--pids needs no cgroup)", NPROC_LIMIT, p.value);
	}
}

/* ---- cgroup v2 ---- */

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; s && (s = strstr(s, word)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\n' || s[n] == '\0'))
			return true;
	return false;
}

#define CGROUP_FIX "a cgroup v2 hierarchy with the memory, pids and cpu controllers " \
	"(systemd.unified_cgroup_hierarchy=1) and a delegated subtree " \
	"(systemd-run --user --scope -p Delegate=yes hutch ...)"
#define CGROUP_EFFECT "--memory, --memory-swap and --cpu fail naming why; --pids relies on " \
	"RLIMIT_NPROC alone"

/* Where a run would put its cgroup: the limits module's own choice. */
static void check_cgroup(struct doctor *d, struct finding *f)
{
	char dir[PATH_MAX], list[256], reason[PATH_MAX + 512];
	bool found = limits_probe_cgroup(dir, sizeof(dir), list, sizeof(list), reason,
					 sizeof(reason));
	bool mem = found && has_word(list, "memory");
	bool pids = found && has_word(list, "pids");
	bool cpu = found && has_word(list, "cpu");

	d->no_cgroup_pids = !pids;
	if (mem && pids && cpu)
		doctor_say(f, LVL_OK, NULL, "a run's cgroup goes under %s, with the memory, pids and cpu "
		    "controllers", dir);
	else if (found)
		doctor_say(f, LVL_WARN, CGROUP_FIX, "a run's cgroup goes under %s; controllers: %s%s%s%s: "
		    CGROUP_EFFECT, dir, *list ? list : "none", mem ? "" : "; no memory",
		    pids ? "" : "; no pids", cpu ? "" : "; no cpu");
	else
		doctor_say(f, LVL_WARN, CGROUP_FIX, "no cgroup for a run: %s: " CGROUP_EFFECT, reason);
}

/* --allow-net's proxy resolves and connects on the host: can it at all?
 * Bounded: the probe's child is killed after NET_PROBE_SECONDS. */
#define NET_PROBE_SECONDS 2.0
static void check_net(struct doctor *d, struct finding *f)
{
	char detail[512];

	(void)d;
	if (net_probe_host(NET_PROBE_SECONDS, detail, sizeof(detail)))
		doctor_say(f, LVL_OK, NULL, "%s: --allow-net rules can be reached", detail);
	else
		doctor_say(f, LVL_WARN, "the host's name resolution and network (/etc/resolv.conf, a "
		    "route out); without them COMMAND still runs", "%s: --allow-net requests "
		    "will fail (hutch's proxy resolves and connects from this host)", detail);
}

/* ---- the caller's environment ---- */

/* What the parse made of HOME and XDG_CONFIG_HOME (plan_note): a user
 * profile directory it could not read, a HOME that is no home.  Neither
 * stops a run; both change what the profiles give COMMAND. */
static void check_profiles(struct doctor *d, struct finding *f)
{
	const struct plan *plan = d->plan;
	const char *home = plan_getenv(plan, "HOME");
	char notes[sizeof(f->detail)] = "";
	size_t len = 0;

	if (plan->n_notes == 0) {
		doctor_say(f, LVL_OK, NULL, "HOME and the user's profiles read as they are; COMMAND's HOME: "
		    "%s", home ? home : "(unset)");
		return;
	}
	for (size_t i = 0; i < plan->n_notes && len < sizeof(notes); i++)
		len += (size_t)snprintf(notes + len, sizeof(notes) - len, "%s%s", i ? "; " : "",
					plan->notes[i]);
	doctor_say(f, LVL_WARN, "run hutch with a HOME (and XDG_CONFIG_HOME) of the caller's own, "
	    "such as env HOME=/home/NAME, or as the user whose environment this is", "%s", notes);
}

/* ---- the table and the verdict ---- */

static const struct check checks[] = {
	{ "userns", doctor_check_userns, NEED_NS },
	{ "nested", doctor_check_nested, NEED_NS },
	{ "clone3", check_clone3, 0 },
	{ "clone", check_clone, NEED_NS | NEED_LL },
	{ "pidfd", check_pidfd, NEED_NS | NEED_LL },
	{ "waitid", check_waitid, NEED_NS | NEED_LL },
	{ "pidfd_send_signal", check_pidfd_send_signal, NEED_NS | NEED_LL },
	{ "close_range", check_close_range, NEED_NS | NEED_LL },
	{ "openat2", check_openat2, NEED_NS },
	{ "proc", check_proc, NEED_NS },
	{ "mount-api", check_mount_api, NEED_NS },
	{ "procfs", check_procfs, 0 },
	{ "memfd", check_memfd, NEED_NS },
	{ "seccomp", check_seccomp, NEED_NS | NEED_LL },
	{ "seccomp-notify", check_seccomp_notify, 0 },
	{ "landlock", check_landlock, NEED_LL },
	{ "cgroup", check_cgroup, 0 },
	{ "rlimit-nproc", check_rlimit_nproc, 0 },
	{ "net", check_net, 0 },
	{ "profiles", check_profiles, 0 },
};
#define N_CHECKS (sizeof(checks) / sizeof(checks[0]))

static void print_finding(FILE *out, const char *name, const struct finding *f)
{
	fprintf(out, "%s %s: %s", level_words[f->level], name, f->detail);
	if (f->level != LVL_OK)
		fprintf(out, "; fix: %s", f->fix);
	fputc('\n', out);
	fflush(out);
}

/* The fallback's verdict: with the cause and its fix where the userns
 * check named one (the words of the fallback's own notice), so that the
 * last line says what refused namespaces, e.g. Docker's seccomp profile. */
static void fallback_verdict(const struct doctor *d, struct finding *f)
{
	const char *reason = userns_reason(d->userns_refusal);
	const char *why = reason ? ": user namespaces refused: " : "";
	char fix[1024];

	snprintf(fix, sizeof(fix), "%s, for the full sandbox",
		 reason ? userns_fix(d->userns_refusal) : "make user namespaces work (see the FAIL lines)");
	if (d->plan->fallback == FALLBACK_LANDLOCK)
		doctor_say(f, LVL_WARN, fix, "landlock fallback (`hutch COMMAND` runs without namespaces, "
		    "confined by Landlock ABI %d and seccomp)%s%s", d->landlock_abi, why,
		    reason ? reason : "");
	else
		doctor_say(f, LVL_WARN, fix, "landlock fallback only when asked (`hutch COMMAND` fails here, "
		    "as its profile has no fallback; `hutch --fallback=landlock COMMAND` runs without "
		    "namespaces, confined by Landlock ABI %d and seccomp)%s%s", d->landlock_abi, why,
		    reason ? reason : "");
}

static void verdict(const struct doctor *d, unsigned failed, struct finding *f)
{
	bool landlock_ok = d->landlock_ok && !(failed & NEED_LL);

	if (!(failed & NEED_NS))
		doctor_say(f, LVL_OK, NULL, "namespaces (`hutch COMMAND` runs in new user, mount and pid "
		    "namespaces)");
	else if (landlock_ok)
		fallback_verdict(d, f);
	else
		doctor_say(f, LVL_FAIL, "fix the FAIL lines above", "none: hutch cannot run here");
}

int doctor_run(const struct plan *plan, FILE *out)
{
	struct doctor d = { .plan = plan };
	struct finding f;
	unsigned failed = 0;

	for (size_t i = 0; i < N_CHECKS; i++) {
		memset(&f, 0, sizeof(f));
		checks[i].run(&d, &f);
		if (f.level == LVL_FAIL)
			failed |= checks[i].needed_by;
		print_finding(out, checks[i].name, &f);
	}
	verdict(&d, failed, &f);
	print_finding(out, "mode", &f);
	return f.level == LVL_FAIL ? EXIT_CANNOT_RUN : 0;
}
