/* The supervisor: prepare, clone, id maps, then one poll loop over pid
 * 1's pidfd, the signals to forward, the set-up log, init's status and a
 * timer, until pid 1 is reaped or the teardown deadline passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdint.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwrap_text.h"
#include "join.h"
#include "landlock.h"
#include "log.h"
#include "netproxy.h"
#include "resource_limits.h"
#include "policy.h"
#include "protect.h"
#include "pty.h"
#include "report.h"
#include "status.h"
#include "sandbox.h"
#include "seal.h"
#include "supervise.h"
#include "util.h"

static const int forwarded_signals[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

static int sys_fail(struct sandbox *sb, const char *stage, const char *what)
{
	return log_fail(sb->err, sizeof(sb->err), stage, what, "", errno);
}

static int make_pipe(struct sandbox *sb, int p[2], const char *name)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return log_fail(sb->err, sizeof(sb->err), "prepare", "pipe", name, errno);
	return 0;
}

/* The set-up log is a unix socket rather than a pipe: each message then
 * carries its writer's pid as this pid namespace names it, so the exec
 * marker names COMMAND's host pid even when COMMAND is gone already. */
int supervise_log_channel(int fds[2])
{
	int on = 1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -1;
	if (setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0 ||
	    fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0) {
		int saved = errno;

		close(fds[0]);
		close(fds[1]);
		errno = saved;
		return -1;
	}
	return 0;
}

static bool plan_has_dev(const struct plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == FS_DEV)
			return true;
	return false;
}

/* Signals hutch forwards are taken through a signalfd in the loop. */
static int block_signals(struct sandbox *sb)
{
	sigset_t set;

	sigemptyset(&set);
	if (sb->plan->mode == MODE_HUTCH)
		for (size_t i = 0; i < sizeof(forwarded_signals) / sizeof(int); i++)
			sigaddset(&set, forwarded_signals[i]);
	if (sb->pty)
		sigaddset(&set, SIGWINCH);
	/* SIGPIPE is blocked, not taken: a write to a pipe whose reader
	 * died (pid 1 during set-up) fails with EPIPE instead of killing
	 * hutch without a word.  COMMAND gets the caller's mask back. */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, &sb->caller_mask) < 0)
		return sys_fail(sb, "prepare", "block signals");
	/* A caller that ignores SIGCHLD would have the kernel reap pid 1
	 * unseen: its status lost, waitid failing, hutch waiting for ever.
	 * COMMAND gets the caller's disposition back. */
	if (sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = SIG_DFL },
		      &sb->caller_chld) < 0)
		return sys_fail(sb, "prepare", "SIGCHLD disposition");
	sigdelset(&set, SIGPIPE);
	sb->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sb->sigfd < 0)
		return sys_fail(sb, "prepare", "signalfd");
	return 0;
}

/* --die-with-parent: the supervisor too dies with its own parent. */
static int follow_parent(struct sandbox *sb)
{
	pid_t parent = getppid();

	if (!sb->plan->die_with_parent)
		return 0;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return sys_fail(sb, "prepare", "parent death signal");
	if (getppid() != parent)
		raise(SIGKILL);
	return 0;
}

int stage_prepare(struct sandbox *sb)
{
	struct plan *plan = sb->plan;

	sb->has_init = (plan->clone_flags & CLONE_NEWPID) && !plan->as_pid_1;
	/* hutch mode always ends in a second user namespace, with a mount
	 * namespace of its own: copied into a less privileged namespace,
	 * every mount and its flags are locked, so even a COMMAND given
	 * CAP_SYS_ADMIN cannot make a read-only bind writable or unmount it
	 * to reveal what lies under it. */
	sb->nested_userns = (plan->clone_flags & CLONE_NEWUSER) &&
			    (plan->mode == MODE_HUTCH || plan->disable_userns ||
			     (plan_has_dev(plan) && (plan->uid != 0 || plan->gid != 0)));
	if (follow_parent(sb) < 0 || limits_prepare(sb) < 0 || pty_prepare(sb) < 0 ||
	    block_signals(sb) < 0 || status_prepare(sb) < 0 || report_prepare(sb) < 0 ||
	    netproxy_prepare(sb) < 0 || protect_prepare(sb) < 0)
		return -1;
	if (supervise_log_channel(sb->log_pipe) < 0)
		return sys_fail(sb, "prepare", "log channel");
	if (make_pipe(sb, sb->release_pipe, "release") < 0)
		return -1;
	/* The control pipe's write end lives exactly as long as the
	 * supervisor: pid 1 checks it after setting its death signal. */
	if (make_pipe(sb, sb->control_pipe, "control") < 0 ||
	    (sb->has_init && make_pipe(sb, sb->status_pipe, "status") < 0))
		return -1;
	if (sb->has_init && fcntl(sb->status_pipe[0], F_SETFL, O_NONBLOCK) < 0)
		return sys_fail(sb, "prepare", "status pipe");
	if (sb->has_init && seal_make_image(sb) < 0)
		return -1;
	if (protocol_prepare(sb) < 0)
		return -1;
	return policy_prepare(plan, &sb->policy, sb->err, sizeof(sb->err));
}

/* ---- clone ---- */

pid_t clone_with_pidfd(int flags, int *pidfd, int cgroup_fd)
{
	struct clone_args args = {
		.flags = (unsigned long long)flags | CLONE_PIDFD,
		.pidfd = (unsigned long long)(uintptr_t)pidfd,
		/* With CLONE_PARENT the kernel takes the caller's, and
		 * clone3 refuses another. */
		.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD,
	};
	pid_t pid;

	/* Started straight into its cgroup: no moment outside the limits. */
	if (cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (unsigned long long)cgroup_fd;
	}
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));

	/* clone3 is refused with ENOSYS by container seccomp profiles and
	 * by valgrind; clone gives the same pidfd. */
	if (pid < 0 && errno == ENOSYS)
		pid = (pid_t)syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, NULL, pidfd,
				     NULL, 0);
	return pid;
}

pid_t pidfd_pid(int pidfd)
{
	char path[64], buf[512];
	char *line;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	line = strstr(buf, "\nPid:");
	return line && atoi(line + 5) > 0 ? (pid_t)atoi(line + 5) : -1;
}

static bool userns_refused(int err)
{
	return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS;
}

static void close_pipe_end(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* pid 1, straight from here or through join.c's intermediates; its pid
 * as this /proc names it: when hutch runs in a pid namespace whose /proc
 * is its parent's, clone's answer names another process there. */
static pid_t clone_pid1(struct sandbox *sb, int flags)
{
	pid_t pid, seen;

	if (sb->plan->userns_fd >= 0 || sb->plan->pidns_fd >= 0)
		return join_clone(sb, flags);
	pid = clone_with_pidfd(flags, &sb->pid1_fd, sb->cgroup_fd);
	if (pid > 0 && (seen = pidfd_pid(sb->pid1_fd)) > 0)
		pid = seen;
	return pid;
}

int stage_clone(struct sandbox *sb)
{
	struct plan *plan = sb->plan;
	int flags;
	pid_t pid;

	/* The user namespace is the one given: none is made. */
	if (plan->userns_fd >= 0)
		plan->clone_flags &= ~CLONE_NEWUSER;
	flags = plan->clone_flags;
	pid = clone_pid1(sb, flags);
	if (pid < 0 && sb->err[0])
		return -1;	/* joining a namespace failed, and said why */
	/* Not in hutch mode: its nested user namespace (seal) would fail
	 * the same way; the refusal below says why, or falls back. */
	if (pid < 0 && userns_refused(errno) && plan->userns_try && plan->caller_uid == 0 &&
	    plan->mode == MODE_BWRAP) {
		plan->clone_flags &= ~CLONE_NEWUSER;
		flags = plan->clone_flags;
		pid = clone_pid1(sb, flags);
	}
	if (pid < 0 && errno == EINVAL && plan->cgroupns_try) {
		plan->clone_flags &= ~CLONE_NEWCGROUP;
		pid = clone_pid1(sb, plan->clone_flags);
	}
	if (pid < 0 && landlock_userns_refused(sb, errno)) {
		/* Never unconfined: the fallback, or a clean failure. */
		sb->fallback = plan->fallback == FALLBACK_LANDLOCK;
		return sb->fallback ? 0 : -1;
	}
	if (pid < 0)
		return log_fail(sb->err, sizeof(sb->err), "clone",
				"new namespaces", "(clone3)", errno);
	if (pid == 0) {
		sb->pid1_fd = -1;
		if (stages_run(sb, WHO_CHILD, "clone", NULL) < 0)
			child_fail(sb, failure_status(plan));
		_exit(failure_status(plan));
	}
	sb->pid1 = pid;
	if (limits_attach(sb) < 0)
		return -1;
	report_started(sb);
	close_pipe_end(&sb->log_pipe[1]);
	close_pipe_end(&sb->release_pipe[0]);
	close_pipe_end(&sb->control_pipe[0]);
	close_pipe_end(&sb->status_pipe[1]);
	return 0;
}

/* ---- idmap ---- */

/* NAME under /proc/PID of pid 1; ID is bwrap's text for its failure. */
static int write_proc_file(struct sandbox *sb, const char *name, const char *text,
			   enum bwrap_text id)
{
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/%s", sb->pid1, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : (int)write(fd, text, strlen(text));
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return bwrap_text_fail(sb->err, sizeof(sb->err), sb->plan->mode,
				       &(struct failure){ "idmap", fd < 0 ? "open" : "write",
							  path, id, NULL, NULL }, errno);
	return 0;
}

/* In bwrap's order: uid_map, setgroups, gid_map.  setgroups stays
 * denied: dropping supplementary groups could grant access that a
 * negative group ACL denies. */
static int write_id_maps(struct sandbox *sb, unsigned uid, unsigned gid)
{
	char map[64];
	int r;

	snprintf(map, sizeof(map), "%u %u 1\n", uid, (unsigned)sb->plan->caller_uid);
	r = write_proc_file(sb, "uid_map", map, BW_UID_MAP);
	if (r == 0)
		r = write_proc_file(sb, "setgroups", "deny", BW_SETGROUPS);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, (unsigned)sb->plan->caller_gid);
	if (r == 0)
		r = write_proc_file(sb, "gid_map", map, BW_GID_MAP);
	return r;
}

int stage_idmap(struct sandbox *sb)
{
	if (sb->fallback)
		return 0;
	struct plan *plan = sb->plan;
	unsigned inside_uid = sb->nested_userns ? 0 : plan->uid;
	unsigned inside_gid = sb->nested_userns ? 0 : plan->gid;

	/* With --userns-block-fd the caller writes the maps. */
	if ((plan->clone_flags & CLONE_NEWUSER) && plan->userns_block_fd < 0) {
		int r = write_id_maps(sb, inside_uid, inside_gid);

		/* Ubuntu's AppArmor restriction: clone made the namespace, but
		 * without powers (the maps or the first mount fail).  Never
		 * unconfined: the fallback (landlock_run ends this child), or
		 * a clean failure. */
		if ((r < 0 && errno == EPERM && landlock_userns_refused(sb, EPERM)) ||
		    (r == 0 && landlock_userns_restricted(sb))) {
			sb->fallback = plan->fallback == FALLBACK_LANDLOCK;
			return sb->fallback ? 0 : -1;
		}
		if (r < 0)
			return -1;
	}
	/* A sandbox without its own pid namespace sees the supervisor: it
	 * must not reach hutch's binary through /proc/PID/exe or ptrace.
	 * Not before the maps are written (through /proc/PID of a child
	 * that inherits the flag at clone), and before the child runs on. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return sys_fail(sb, "idmap", "not dumpable");
	/* While the child waits: a child that fails fast has no namespace
	 * ids left to read once it is a zombie. */
	status_started(sb);
	if (write(sb->release_pipe[1], "r", 1) != 1)
		return sys_fail(sb, "idmap", "release the child");
	close_pipe_end(&sb->release_pipe[1]);
	return 0;
}

/* ---- run ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void arm_timer(struct run_state *rs)
{
	struct itimerspec its = { 0 };
	double next = 0;
	double candidates[3] = { rs->timeout_at, rs->kill_at, rs->deadline_at };

	for (int i = 0; i < 3; i++)
		if (candidates[i] > 0 && (next == 0 || candidates[i] < next))
			next = candidates[i];
	if (next > 0) {
		double delta = next - now();

		if (delta < 0.000001)
			delta = 0.000001;
		its.it_value.tv_sec = (time_t)delta;
		its.it_value.tv_nsec = (long)((delta - (double)(time_t)delta) * 1e9);
	}
	timerfd_settime(rs->timerfd, 0, &its, NULL);
}

static void signal_pid1(struct sandbox *sb, int sig)
{
	syscall(SYS_pidfd_send_signal, sb->pid1_fd, sig, NULL, 0);
}

/* Teardown: init kills the namespace in order when its control pipe
 * closes; without init, SIGKILL to pid 1 takes the namespace down.  A
 * deadline bounds the wait either way. */
static void start_teardown(struct sandbox *sb, struct run_state *rs)
{
	if (rs->deadline_at > 0)
		return;
	rs->kill_at = 0;
	rs->deadline_at = now() + sb->plan->teardown_deadline;
	if (sb->has_init)
		close_pipe_end(&sb->control_pipe[1]);
	else
		signal_pid1(sb, SIGKILL);
	arm_timer(rs);
}

static void start_grace(struct sandbox *sb, struct run_state *rs)
{
	if (rs->kill_at == 0 && rs->deadline_at == 0)
		rs->kill_at = now() + sb->plan->kill_after;
	arm_timer(rs);
}

bool supervise_forward_signals(struct sandbox *sb)
{
	struct signalfd_siginfo si;
	bool ending = false;

	while (read(sb->sigfd, &si, sizeof(si)) == sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGWINCH) {
			pty_on_winch(sb);
			continue;
		}
		signal_pid1(sb, sig);
		ending |= sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
	}
	return ending;
}

static void on_signal(struct sandbox *sb, struct run_state *rs)
{
	if (supervise_forward_signals(sb))
		start_grace(sb, rs);
}

static void on_timer(struct sandbox *sb, struct run_state *rs)
{
	uint64_t ticks;
	double t = now();

	if (read(rs->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	if (rs->deadline_at > 0 && t >= rs->deadline_at) {
		rs->stuck = true;
		return;
	}
	if (rs->timeout_at > 0 && t >= rs->timeout_at) {
		rs->timeout_at = 0;
		rs->timed_out = true;
		signal_pid1(sb, SIGTERM);
		start_grace(sb, rs);
	}
	if (rs->kill_at > 0 && t >= rs->kill_at)
		start_teardown(sb, rs);
	arm_timer(rs);
}

/* The exec stage writes "exec" on its own line just before execve: from
 * then on, an end of pid 1 is COMMAND's.  Take the marker out of the log,
 * which then holds only failure messages; its writer is COMMAND. */
static void take_exec_marker(struct run_state *rs, pid_t writer)
{
	static const char marker[] = "exec\n";
	char *at;

	rs->log[rs->log_len] = '\0';
	while ((at = strstr(rs->log, marker)) && (at == rs->log || at[-1] == '\n')) {
		memmove(at, at + sizeof(marker) - 1,
			rs->log_len - (size_t)(at - rs->log) - (sizeof(marker) - 1) + 1);
		rs->log_len -= sizeof(marker) - 1;
		rs->exec_seen = true;
		rs->command_host_pid = writer;
	}
}

/* One read of the log channel into BUF, with the writer's pid.  The
 * kernel never joins the bytes of two writers into one read. */
static ssize_t read_log(int fd, char *buf, size_t len, pid_t *writer)
{
	union {
		struct cmsghdr hdr;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.space, .msg_controllen = sizeof(control.space),
	};
	ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);

	*writer = 0;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*writer = cred.pid;
		}
	return n;
}

/* Read what the log channel holds now, never waiting for more. */
void supervise_drain_log(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;

	for (;;) {
		size_t room = sizeof(rs->log) - 1 - rs->log_len;
		char discard[256];
		pid_t writer;
		ssize_t n;

		if (sb->log_pipe[0] < 0)
			return;
		if (room == 0)
			n = read_log(sb->log_pipe[0], discard, sizeof(discard), &writer);
		else
			n = read_log(sb->log_pipe[0], rs->log + rs->log_len, room, &writer);
		if (n > 0 && room > 0) {
			rs->log_len += (size_t)n;
			take_exec_marker(rs, writer);
		}
		if (n == 0) {
			rs->log_eof = true;
			close_pipe_end(&sb->log_pipe[0]);
			/* EOF, the marker and no message: COMMAND runs. */
			if (rs->log_len == 0 && rs->exec_seen)
				status_executed(sb);
		}
		if (n <= 0)
			return;
	}
}

/* One line from init: "stop N" when COMMAND stopped (the pty relay
 * stops hutch too); "exit N", "signal N" or "none" when it ended, after
 * which init tears down what is left: that teardown too has a deadline. */
static void status_line(struct sandbox *sb, struct run_state *rs, const char *line)
{
	int sig;

	if (sscanf(line, "stop %d", &sig) == 1) {
		pty_on_command_stop(sb);
		return;
	}
	rs->command_ended = true;
	sscanf(line, "signal %d", &rs->command_signal);
	if (rs->deadline_at == 0)
		rs->deadline_at = now() + sb->plan->teardown_deadline;
	arm_timer(rs);
}

static void drain_status(struct sandbox *sb, struct run_state *rs)
{
	char buf[256];
	ssize_t n;

	if (sb->status_pipe[0] < 0)
		return;
	n = read(sb->status_pipe[0], buf, sizeof(buf) - 1);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n > 0) {
		buf[n] = '\0';
		for (char *line = buf, *end; *line; line = end) {
			end = line + strcspn(line, "\n");
			if (*end)
				*end++ = '\0';
			status_line(sb, rs, line);
		}
		return;
	}
	close_pipe_end(&sb->status_pipe[0]);
}

static void reap_pid1(struct sandbox *sb, struct run_state *rs)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)sb->pid1_fd, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
		return;
	rs->reaped = true;
	rs->code = si.si_code;
	rs->status = si.si_status;
}

int supervise_add_source(struct sandbox *sb, int fd, short events,
			 void (*on_ready)(struct sandbox *sb, short revents))
{
	if (sb->n_sources == MAX_POLL_SOURCES)
		return -1;
	sb->sources[sb->n_sources++] = (struct poll_source){ fd, events, on_ready };
	return 0;
}

void supervise_remove_source(struct sandbox *sb, int fd)
{
	for (int i = 0; i < sb->n_sources; i++)
		if (sb->sources[i].fd == fd) {
			sb->sources[i] = sb->sources[--sb->n_sources];
			return;
		}
}

#define N_BASE_FDS 5

static void poll_sources(struct sandbox *sb, struct pollfd *fds)
{
	struct poll_source ready[MAX_POLL_SOURCES];
	short revents[MAX_POLL_SOURCES];
	int n = sb->n_sources;

	/* A handler may add or remove sources: act on a copy. */
	for (int i = 0; i < n; i++) {
		ready[i] = sb->sources[i];
		revents[i] = fds[N_BASE_FDS + i].revents;
	}
	for (int i = 0; i < n; i++)
		if (revents[i])
			ready[i].on_ready(sb, revents[i]);
}

static int poll_once(struct sandbox *sb, struct run_state *rs)
{
	struct pollfd fds[N_BASE_FDS + MAX_POLL_SOURCES] = {
		{ .fd = sb->pid1_fd, .events = POLLIN },
		{ .fd = sb->sigfd, .events = POLLIN },
		{ .fd = rs->timerfd, .events = POLLIN },
		{ .fd = sb->log_pipe[0], .events = POLLIN },
		{ .fd = sb->status_pipe[0], .events = POLLIN },
	};
	int n = N_BASE_FDS + sb->n_sources;

	for (int i = 0; i < sb->n_sources; i++)
		fds[N_BASE_FDS + i] = (struct pollfd){ .fd = sb->sources[i].fd,
						       .events = sb->sources[i].events };
	if (poll(fds, (nfds_t)n, -1) < 0)
		return errno == EINTR ? 0 : -1;
	poll_sources(sb, fds);
	if (fds[3].revents)
		supervise_drain_log(sb);
	if (fds[4].revents)
		drain_status(sb, rs);
	if (fds[1].revents)
		on_signal(sb, rs);
	if (fds[2].revents)
		on_timer(sb, rs);
	if (fds[0].revents)
		reap_pid1(sb, rs);
	return 0;
}

int stage_run(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;

	if (sb->fallback)
		return landlock_run(sb);
	rs->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (rs->timerfd < 0)
		return sys_fail(sb, "run", "timerfd");
	if (pty_start(sb) < 0 || netproxy_start(sb) < 0)
		return -1;
	if (sb->plan->timeout > 0)
		rs->timeout_at = now() + sb->plan->timeout;
	arm_timer(rs);
	while (!rs->reaped && !rs->stuck)
		if (poll_once(sb, rs) < 0)
			return sys_fail(sb, "run", "poll");
	/* pid 1 is gone: take what the log holds, without waiting. */
	supervise_drain_log(sb);
	close(rs->timerfd);
	if (rs->stuck)
		supervise_report_stuck(sb);
	return 0;
}

static int signal_status(int sig)
{
	return 128 + sig;
}

int supervise_exit_status(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;
	struct plan *plan = sb->plan;

	if (rs->stuck)
		return 125;
	if (rs->log_len > 0)
		return rs->code == CLD_EXITED ? rs->status : failure_status(plan);
	if (rs->timed_out && plan->mode == MODE_HUTCH)
		return 124;
	/* pid 1 gone before COMMAND ran is hutch's failure, not COMMAND's. */
	if (plan->mode == MODE_HUTCH && !rs->exec_seen)
		return 125;
	if (rs->code == CLD_EXITED)
		return rs->status;
	return signal_status(rs->status);
}
