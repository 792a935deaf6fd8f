/* --userns and --pidns: pid 1 is born in namespaces the caller passed as
 * fds, while the supervisor never enters them.  A supervisor that joined
 * a user namespace could not return to its own pid namespace, so every
 * process it forked later would be born in the caller's (a sanitizer's
 * exit-time tracer hung there); and the kernel refuses a new pid
 * namespace (--unshare-pid) to a process whose children already go to
 * another one.  So an intermediate joins them and clones pid 1 with
 * CLONE_PARENT: pid 1 is the supervisor's own child, with its pidfd,
 * parent-death signal and exit status, exactly as without the options.
 * With --pidns and --unshare-pid a second intermediate, born in the
 * joined pid namespace (CLONE_PARENT too), makes the new one inside it.
 *
 * Each intermediate reports on a datagram socket: the pidfd it made (pid
 * 1's, or the second intermediate's, which the supervisor reaps), or the
 * step that failed and its errno. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "join.h"
#include "messages/messages.h"
#include "lib/lib.h"
#include "sandbox.h"

enum join_step {
	JOIN_USERNS = 1,	/* setns into --userns failed */
	JOIN_PIDNS,		/* setns into --pidns failed */
	JOIN_FORK,		/* the second intermediate: its pidfd, or errno */
	JOIN_CLONE,		/* pid 1: its pidfd, or clone's errno */
};

struct join_reply {
	int step;
	int err;
};

static void send_reply(int sock, int step, int err, int fd)
{
	struct join_reply reply = { .step = step, .err = err };

	/* Nothing to do on failure: the supervisor sees no pid 1. */
	(void)send_with_fd(sock, &reply, sizeof(reply), fd);
}

/* One reply already queued; -1 when none is left. */
static int recv_reply(int sock, struct join_reply *reply, int *fd)
{
	if (recv_with_fd(sock, reply, sizeof(*reply), fd) == sizeof(*reply))
		return 0;
	if (*fd >= 0)
		close(*fd);
	return -1;
}

static void wait_exit(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

/* The second intermediate (--pidns with a new pid namespace): born in
 * the joined one, where a new pid namespace can be made. */
static pid_t clone_pid1_from_joined(struct sandbox *sb, int flags, int sock)
{
	int child_fd = -1;
	pid_t pid = clone_with_pidfd(CLONE_PARENT, &child_fd, -1);

	if (pid != 0) {
		send_reply(sock, JOIN_FORK, pid < 0 ? errno : 0, child_fd);
		/* Its report first, then this one's exit: the supervisor,
		 * once it reaped this process, finds both queued. */
		if (pid > 0)
			wait_exit(child_fd);
		_exit(0);
	}
	pid = clone_with_pidfd(flags | CLONE_PARENT, &child_fd, sb->cgroup_fd);
	if (pid != 0) {
		send_reply(sock, JOIN_CLONE, pid < 0 ? errno : 0, child_fd);
		_exit(0);
	}
	return 0;
}

/* The first intermediate: join, then clone pid 1 (or the second
 * intermediate).  Returns only in pid 1. */
static pid_t run_intermediate(struct sandbox *sb, int flags, int sock, pid_t supervisor)
{
	const struct plan *plan = sb->plan;
	int pid1_fd = -1;
	pid_t pid;

	/* Never outlive the supervisor, which is waiting for us. */
	if (!die_with(supervisor))
		_exit(1);
	if (plan->userns_fd >= 0 && setns(plan->userns_fd, CLONE_NEWUSER) < 0) {
		send_reply(sock, JOIN_USERNS, errno, -1);
		_exit(1);
	}
	if (plan->pidns_fd >= 0 && setns(plan->pidns_fd, CLONE_NEWPID) < 0) {
		send_reply(sock, JOIN_PIDNS, errno, -1);
		_exit(1);
	}
	if (plan->pidns_fd >= 0 && (flags & CLONE_NEWPID))
		return clone_pid1_from_joined(sb, flags, sock);
	pid = clone_with_pidfd(flags | CLONE_PARENT, &pid1_fd, sb->cgroup_fd);
	if (pid != 0) {
		send_reply(sock, JOIN_CLONE, pid < 0 ? errno : 0, pid1_fd);
		_exit(0);
	}
	return 0;
}

static void reap(int pidfd)
{
	siginfo_t si;

	if (pidfd < 0)
		return;
	while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	close(pidfd);
}

static int join_failure(struct sandbox *sb, const struct join_reply *r)
{
	errno = r->err;
	if (r->step == JOIN_USERNS && r->err == EINVAL)
		stage_fail_msg(sb, "Joining the specified user namespace "
			       "failed, it might not be a descendant of the current user namespace.");
	else if (r->step == JOIN_USERNS)
		stage_fail(sb, "Joining specified user namespace", "failed");
	else
		stage_fail(sb, "Setting pidns", "failed");
	errno = r->err;
	return -1;
}

/* The supervisor's side, once the first intermediate is gone: every
 * report is queued by then (it waits for the second one's exit). */
static int collect_replies(struct sandbox *sb, int sock)
{
	struct join_reply r;
	int fd, second = -1;
	bool failed = false;
	int err = ECHILD;	/* no report at all: an intermediate died */

	while (recv_reply(sock, &r, &fd) == 0) {
		if ((r.step == JOIN_USERNS || r.step == JOIN_PIDNS) && !failed)
			failed = join_failure(sb, &r) < 0;
		else if (r.step == JOIN_FORK && fd >= 0)
			second = fd;
		else if (r.step == JOIN_CLONE && fd >= 0)
			sb->pid1_fd = fd;
		else
			err = r.err ? r.err : EMFILE;	/* a pidfd that did not come */
	}
	reap(second);
	if (failed)
		return -1;
	if (sb->pid1_fd < 0) {
		errno = err;
		return -1;
	}
	return 0;
}

pid_t join_clone(struct sandbox *sb, int flags)
{
	pid_t supervisor = getpid();
	int sock[2], first_fd = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock) < 0)
		return -1;
	pid = clone_with_pidfd(0, &first_fd, -1);
	if (pid == 0) {
		close(sock[0]);
		pid = run_intermediate(sb, flags, sock[1], supervisor);
		close(sock[1]);	/* pid 1 from here on */
		return pid;
	}
	close(sock[1]);
	if (pid < 0) {
		close(sock[0]);
		return -1;
	}
	reap(first_fd);
	pid = collect_replies(sb, sock[0]) < 0 ? -1 : pidfd_pid(sb->pid1_fd);
	close(sock[0]);
	if (pid < 0 && sb->pid1_fd >= 0) {
		/* No pid to name it by (no fdinfo): it must not stay. */
		int errnum = errno;

		syscall(SYS_pidfd_send_signal, sb->pid1_fd, SIGKILL, NULL, 0);
		reap(sb->pid1_fd);
		sb->pid1_fd = -1;
		errno = errnum ? errnum : ESRCH;
	}
	return pid;
}
