/* The --allow-net proxy's worker confines itself, before it reads a
 * byte the sandbox sends, to no more power than the sandbox has: what
 * it defends against is a parser bug turned into code run by hutch,
 * outside the sandbox, with the caller's rights (root in most CI).
 * Taken over, the worker can still only relay bytes on the sockets it
 * holds and ask the supervisor, which checks every field (netproxy_chan.c).
 *
 * In order: the caller's environment wiped; every fd closed but the
 * channel, the hand-over socket, its epoll set and timer; rlimits (no
 * file written, no core, a bounded number of fds); as root, the
 * unprivileged ids 65534 (uid 0 without capabilities would still own
 * root's files and may signal root's processes: a process of 65534 owns
 * neither); every capability dropped; not dumpable (no ptrace, no
 * /proc/PID/mem from another process of the same uid); no_new_privs;
 * Landlock where the kernel has it, every filesystem right handled with
 * no rule (no file opened, made or removed), TCP bind and connect
 * handled with no rule (ABI 4), abstract unix sockets and signals
 * scoped (ABI 6); last, a seccomp filter (libseccomp) that kills the
 * worker for any system call but those a relay needs: no open, no
 * socket, no connect, no exec, no fork, no executable mapping.  Without
 * Landlock the filter alone keeps it from files: no call that takes a
 * path is allowed.  What it still holds, being a fork: the rest of the
 * supervisor's memory as it was at prepare (the plan: what COMMAND is
 * given anyway, and the host paths it is given them from). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock/landlock.h"
#include "netproxy_conn.h"

#define WORKER_ID 65534		/* the overflow uid and gid: nobody's */
#define WORKER_NOFILE 512	/* MAX_CONNS times a client, a server, two pipes, and a few */

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Every fd but the N_KEEP of KEEP closed. */
static int close_all_but(const int *keep, int n_keep)
{
	int sorted[8];
	unsigned from = 0;

	if (n_keep > 8) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sorted, keep, (size_t)n_keep * sizeof(int));
	qsort(sorted, (size_t)n_keep, sizeof(int), by_value);
	for (int i = 0; i < n_keep; i++) {
		if ((unsigned)sorted[i] > from &&
		    syscall(SYS_close_range, from, (unsigned)sorted[i] - 1, 0) < 0)
			return -1;
		from = (unsigned)sorted[i] + 1;
	}
	return (int)syscall(SYS_close_range, from, ~0U, 0);
}

static int set_limit(int resource, rlim_t most)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) < 0)
		return -1;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > most)
		rl.rlim_max = most;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	return setrlimit(resource, &rl);
}

static int limit_resources(void)
{
	return set_limit(RLIMIT_NOFILE, WORKER_NOFILE) < 0 || set_limit(RLIMIT_FSIZE, 0) < 0 ||
	       set_limit(RLIMIT_CORE, 0) < 0 || set_limit(RLIMIT_MEMLOCK, 0) < 0 ? -1 : 0;
}

/* Root becomes 65534; where 65534 is not mapped (a user namespace with
 * a narrow map), root stays root without a capability. */
static int leave_root(void)
{
	if (geteuid() != 0 && getuid() != 0)
		return 0;
	if (setgroups(0, NULL) < 0 && errno != EPERM)
		return -1;
	if (setresgid(WORKER_ID, WORKER_ID, WORKER_ID) < 0 ||
	    setresuid(WORKER_ID, WORKER_ID, WORKER_ID) < 0)
		return errno == EINVAL ? 0 : -1;
	return 0;
}

/* The bounding set emptied while the capability to do so is there (as
 * root); without it, there is nothing in the sets to keep. */
static void empty_bounding_set(void)
{
	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		(void)prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
}

static int drop_capabilities(void)
{
	cap_t none = cap_init();
	int r = none ? cap_set_proc(none) : -1;

	if (none)
		cap_free(none);
	if (r == 0)
		(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return r;
}

/* Every filesystem right the kernel's ABI knows, handled, with no rule. */
static int landlock_nothing(void)
{
	int abi = landlock_abi_version(), fd;
	struct ll_ruleset_attr attr = { .handled_access_fs = (LL_FS_MAKE_SYM << 1) - 1 };

	if (abi <= 0)
		return 0;	/* no Landlock: the seccomp filter alone */
	if (abi >= 2)
		attr.handled_access_fs |= LL_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LL_FS_TRUNCATE;
	if (abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (abi >= 5)
		attr.handled_access_fs |= LL_FS_IOCTL_DEV;
	if (abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	/* An older kernel takes the larger struct: its fields it does not
	 * know are zero. */
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -1;
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* What the worker calls, and nothing else. */
static const int allowed[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(recvfrom), SCMP_SYS(sendto),
	SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(accept4), SCMP_SYS(close),
	SCMP_SYS(shutdown), SCMP_SYS(setsockopt), SCMP_SYS(getsockopt), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(epoll_ctl),
	SCMP_SYS(timerfd_settime), SCMP_SYS(clock_gettime), SCMP_SYS(splice), SCMP_SYS(pipe2),
	SCMP_SYS(fcntl), SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
	SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn), SCMP_SYS(restart_syscall),
};

static int load_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int r = ctx ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	/* Memory for malloc, never executable. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = seccomp_load(ctx);
	if (ctx)
		seccomp_release(ctx);
	if (r < 0)
		errno = -r;
	return r < 0 ? -1 : 0;
}

/* The caller's environment wiped from this copy of the supervisor's
 * memory: it may hold what COMMAND was not given (--unsetenv,
 * --clearenv), and a worker taken over could send it to the sandbox. */
static void scrub_environment(void)
{
	for (char **e = environ; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
	(void)clearenv();
}

int netproxy_confine(const int *keep, int n_keep, const char **what)
{
	errno = 0;
	scrub_environment();
	if (close_all_but(keep, n_keep) < 0)
		return *what = "close_range", -1;
	if (limit_resources() < 0)
		return *what = "setrlimit", -1;
	empty_bounding_set();
	if (leave_root() < 0)
		return *what = "setresuid", -1;
	if (drop_capabilities() < 0)
		return *what = "capabilities", -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return *what = "no_new_privs", -1;
	if (landlock_nothing() < 0)
		return *what = "Landlock", -1;
	if (load_filter() < 0)
		return *what = "seccomp", -1;
	return 0;
}
