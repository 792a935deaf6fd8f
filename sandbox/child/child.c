/* The sandbox side of set-up: pid 1 until it becomes init, and the
 * process that becomes COMMAND.  Failures go to the supervisor as one
 * line on the close-on-exec log pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "messages/messages.h"
#include "command_env.h"
#include "limits/limits.h"
#include "landlock/landlock.h"
#include "mount/mount.h"
#include "host/host.h"
#include "net/net.h"
#include "learn/learn.h"
#include "seccomp/seccomp.h"
#include "lib/lib.h"
#include "loop/loop.h"
#include "sandbox.h"
#include "child.h"
#include "seal.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The control pipe's write end is held by the supervisor alone, for its
 * whole life: a hang-up there means it is gone (and may have gone
 * before the death signal was set, when no signal will come). */
static bool supervisor_gone(struct sandbox *sb)
{
	struct pollfd p = { .fd = sb->control_pipe[0], .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

/* hutch mode: pid 1's first privileged step in its new namespaces, /
 * made private (mount events must not reach the caller's namespace), and
 * its outcome told to the supervisor, which waits for it before it
 * releases pid 1 (supervise.c).  A security module that makes the user
 * namespace powerless (Ubuntu's AppArmor restriction) refuses this mount
 * first, before anything of the sandbox is built: the supervisor then
 * falls back or fails naming that cause.  Named after the mounts stage,
 * whose first mount it is (made early, while the maps are written). */
static int first_mount(struct sandbox *sb)
{
	const char *what = "make private", *object = "/";
	int err = mounts_first_private() < 0 ? errno : 0;

	/* The sandbox around hutch may refuse a later mount call only. */
	if (!err && (err = nested_calls_refused(&object)))
		what = "try";
	/* Unwritten only when the supervisor is gone: the release read
	 * then ends this process. */
	(void)setup_log_first_mount(sb, err);
	if (err)
		return log_fail(sb->err, sizeof(sb->err), "mounts", what, object, err);
	return 0;
}

/* The first mount, then the release.  A refused first mount is reported
 * only once released: until then pid 1 stays, so that the supervisor can
 * write its maps and read the word, and end it if it falls back. */
static int first_mount_and_release(struct sandbox *sb)
{
	int r = 0;
	char c;

	if (!sb->fallback && setup_log_tells_first_mount(sb))
		r = first_mount(sb);
	if (read(sb->release_pipe[0], &c, 1) != 1 || supervisor_gone(sb))
		_exit(plan_failure_status(sb->plan));
	return r;
}

/* First act of the sandbox: die with the supervisor.  Then (hutch mode)
 * the first mount, and make sure the supervisor still lives: the release
 * pipe's only writer is the supervisor, so EOF there means it is gone
 * (getppid() says 0 across a pid namespace). */
int stage_deathsig(struct sandbox *sb)
{
	bool fallback = sb->role == WHO_COMMAND;	/* the fallback's table */

	timing_mark(&sb->timing, fallback ? TM_FB_CMD_START : TM_CHILD_START);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return stage_fail(sb, "set", "parent death signal");
	status_leave(sb);
	close_fd(&sb->release_pipe[1]);
	close_fd(&sb->log_pipe[0]);
	close_fd(&sb->control_pipe[1]);
	close_fd(&sb->status_pipe[0]);
	close_fd(&sb->sigfd);
	close_fd(&sb->timing_fd);	/* the supervisor writes HUTCH_TIMING's file */
	if (first_mount_and_release(sb) < 0)
		return -1;
	close_fd(&sb->release_pipe[0]);
	timing_mark(&sb->timing, fallback ? TM_FB_CMD_RELEASED : TM_CHILD_RELEASED);
	return protocol_userns_block(sb);
}

/* Like bwrap: a new network namespace has its loopback up, and with it
 * 127.0.0.1 and ::1, so that a test's local server works. */
static int bring_up_loopback(struct sandbox *sb)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	enum bwrap_text failed = BW_LOOPBACK_SOCKET;
	int r = -1;

	if (fd >= 0) {
		failed = BW_LOOPBACK_LOOKUP;
		r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	}
	if (r == 0) {
		failed = BW_LOOPBACK_UP;
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
	return r < 0 ? stage_fail_as(sb, "bring up", "loopback", failed, NULL) : 0;
}

/* The new network namespace's loopback, and the --allow-net proxy's
 * listener on it. */
int stage_network(struct sandbox *sb)
{
	if ((sb->plan->clone_flags & CLONE_NEWNET) && bring_up_loopback(sb) < 0)
		return -1;
	if (netproxy_child_listen(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_NETWORK);
	return 0;
}

int stage_hostname(struct sandbox *sb)
{
	const char *name = sb->plan->hostname;

	if (name && sethostname(name, strlen(name)) < 0)
		return stage_fail_as(sb, "set hostname", name, BW_HOSTNAME, name);
	timing_mark(&sb->timing, TM_HOSTNAME);
	return 0;
}

/* What seal needs from the host's /proc, which the new root may not
 * have: /proc/self for the nested user namespace's maps, and
 * user.max_user_namespaces for --disable-userns; and the mounts' file
 * label. */
int stage_handles(struct sandbox *sb)
{
	if (sb->nested_userns) {
		sb->self_proc = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (sb->self_proc < 0)
			return stage_fail(sb, "open", "/proc/self");
	}
	if (protocol_open_userns_limit(sb) < 0 || protocol_set_file_label(sb) < 0)
		return -1;
	return 0;
}

int stage_mounts(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	mounts_init(&sb->ms, plan, sb->err, sizeof(sb->err));
	sb->ms.protect_sock = protect_take_socket(sb);
	sb->ms.timing = &sb->timing;
	if (mounts_build(&sb->ms) < 0)
		return -1;
	timing_mark(&sb->timing, TM_MOUNTED);
	return 0;
}

static int write_self_file(struct sandbox *sb, const char *name, const char *text,
			   enum bwrap_text id)
{
	if (write_file_at(sb->self_proc, name, text) < 0)
		return stage_fail_as(sb, "write", name, id, NULL);
	return 0;
}

/* The mount namespace pid 1 leaves for the nested one dies with its last
 * reference, and its teardown waits for an RCU grace period (0.1 ms on
 * a quiet machine, milliseconds on a busy one): dropped by the unshare,
 * pid 1 would wait before it forks COMMAND's process.  Held here, it is
 * dropped by COMMAND's process (stage policy) while pid 1 executes the
 * init, off the way to COMMAND's start.  Only with an init: without,
 * pid 1 is COMMAND's process.  Without the fd (no /proc/self/ns), the
 * unshare drops it as before. */
static void hold_old_mount_ns(struct sandbox *sb)
{
	if (sb->has_init && sb->self_proc >= 0)
		sb->old_mntns = openat(sb->self_proc, "ns/mnt", O_RDONLY | O_CLOEXEC);
}

/* The second user namespace: devpts needs uid 0 mapped while it is
 * mounted, so the ids asked for come from here; in hutch mode it also
 * brings a mount namespace, to lock the finished tree (see prepare). */
static int enter_nested_userns(struct sandbox *sb)
{
	int flags = CLONE_NEWUSER | (sb->plan->mode == MODE_HUTCH ? CLONE_NEWNS : 0);
	char map[64];

	if (flags & CLONE_NEWNS)
		hold_old_mount_ns(sb);
	if (unshare(flags) < 0)
		return stage_fail_as(sb, "new user namespace", "to lock the mounts",
			       BW_UNSHARE_USER, NULL);
	if (write_self_file(sb, "setgroups", "deny", BW_SETGROUPS) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u 0 1\n", (unsigned)sb->plan->uid);
	if (write_self_file(sb, "uid_map", map, BW_UID_MAP) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u 0 1\n", (unsigned)sb->plan->gid);
	if (write_self_file(sb, "gid_map", map, BW_GID_MAP) < 0)
		return -1;
	close_fd(&sb->self_proc);
	return 0;
}

/* This process goes on as ROLE: the stage walker runs that role's
 * stages in it. */
static int become(struct sandbox *sb, enum who role)
{
	sb->role = role;
	return STAGE_NEW_ROLE;
}

/* Signals sent to pid 1 before init has its signalfd stay pending
 * across execveat instead of being lost. */
static int block_init_signals(struct sandbox *sb)
{
	static const int sigs[] = { SIGCHLD, INIT_FORWARDED_SIGNALS };
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return stage_fail(sb, "block", "signals");
	return 0;
}

/* pid 1 forks COMMAND's process, which waits on the go pipe, then
 * replaces itself with the sealed init; COMMAND runs only after that. */
int stage_seal(struct sandbox *sb)
{
	pid_t pid;

	if (protocol_take_locks(sb) < 0 || protocol_disable_userns(sb) < 0)
		return -1;
	if (sb->nested_userns && enter_nested_userns(sb) < 0)
		return -1;
	if (protocol_enter_userns2(sb) < 0 || limits_apply_nproc(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_NESTED);
	if (!sb->has_init)
		return become(sb, WHO_COMMAND);
	if (pipe2(sb->go_pipe, O_CLOEXEC) < 0)
		return stage_fail(sb, "pipe", "go");
	if (block_init_signals(sb) < 0)
		return -1;
	/* (COMMAND's process sends pid 1's marks: those until here) */
	timing_mark(&sb->timing, TM_FORKING);
	pid = clone_with_pidfd(0, &sb->command_fd, -1);
	if (pid < 0)
		return stage_fail(sb, "fork", "COMMAND's process");
	if (pid == 0) {
		close_fd(&sb->go_pipe[1]);
		return become(sb, WHO_COMMAND);
	}
	sb->command_pid = pid;
	close_fd(&sb->old_mntns);	/* COMMAND's process holds it still */
	/* With the pty relay COMMAND has a session of its own; pid 1 leaves
	 * the caller's too, so nothing in the sandbox has the caller's
	 * terminal as its controlling terminal. */
	if (sb->pty && setsid() < 0)
		return stage_fail(sb, "new session", "pid 1");
	close_fd(&sb->go_pipe[0]);
	mounts_release(&sb->ms);
	return seal_exec_init(sb);
}

static int check_pass_fds(struct sandbox *sb)
{
	for (size_t i = 0; i < sb->plan->n_pass_fds; i++) {
		int fd = sb->plan->pass_fds[i];
		char obj[32];

		if (fcntl(fd, F_SETFD, 0) < 0) {
			snprintf(obj, sizeof(obj), "%d", fd);
			return stage_fail(sb, "--pass-fd", obj);
		}
	}
	return 0;
}

/* COMMAND gets 0, 1, 2 and the fds passed on purpose, nothing else:
 * whatever the caller leaked (a host directory fd, CVE-2024-21626's
 * class) closes at execve. */
static int close_stray_fds(struct sandbox *sb)
{
	if (sb->plan->mode == MODE_BWRAP) {
		protocol_hide_fds(sb);
		return 0;	/* bwrap passes other inherited fds through */
	}
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return stage_fail(sb, "close_range", "fds");
	return check_pass_fds(sb);
}

/* --userns with --uid or --gid: no map is written for a joined
 * namespace, so the ids are switched to as bwrap does; the capabilities
 * COMMAND keeps are set afterwards, from the permitted set kept here. */
static int switch_joined_ids(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	char id[16];

	if (plan->userns_fd < 0 || sb->nested_userns)
		return 0;
	if (prctl(PR_SET_KEEPCAPS, 1) < 0)
		return stage_fail(sb, "keep", "capabilities");
	snprintf(id, sizeof(id), "%u", (unsigned)plan->gid);
	if (plan->gid != plan->caller_gid && setresgid(plan->gid, plan->gid, plan->gid) < 0)
		return stage_fail(sb, "unable to switch to gid", id);
	snprintf(id, sizeof(id), "%u", (unsigned)plan->uid);
	if (plan->uid != plan->caller_uid && setresuid(plan->uid, plan->uid, plan->uid) < 0)
		return stage_fail(sb, "unable to switch to uid", id);
	if (prctl(PR_SET_KEEPCAPS, 0) < 0)
		return stage_fail(sb, "reset", "keep-capabilities flag");
	return 0;
}

/* --rlimit limits COMMAND, never hutch's set-up (with nofile=8 the
 * seccomp listener found no fd): the limits are set last, in stage exec,
 * after everything hutch opens or allocates.  Unless the policy refuses
 * the prlimit64 that sets them, which the loaded filter would refuse
 * hutch too (or report as COMMAND's): then they come before the filter,
 * and what hutch opens after it counts against them. */
static bool limits_before_policy(const struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	const char *source;

	if (!sb->policy)
		return false;
	for (size_t i = 0; i < plan->n_rlimits; i++) {
		const uint64_t args[6] = { 0, (uint64_t)plan->rlimits[i].resource, 1, 0, 0, 0 };

		if (policy_refusal(sb->policy, SYS_prlimit64, args, &source) != 0)
			return true;
	}
	return false;
}

int stage_policy(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	timing_mark(&sb->timing, TM_CMD_START);
	/* The old namespace's teardown, while pid 1 executes the init;
	 * COMMAND never holds a handle on that tree, whose mounts are not
	 * locked. */
	close_fd(&sb->old_mntns);
	if (switch_joined_ids(sb) < 0 || pty_child(sb) < 0)
		return -1;
	if (plan->new_session && !sb->pty && setsid() < 0)
		return stage_fail_as(sb, "new session", "setsid", BW_SETSID, NULL);
	if (sigprocmask(SIG_SETMASK, &sb->caller_mask, NULL) < 0)
		return stage_fail(sb, "restore", "signal mask");
	if (sigaction(SIGCHLD, &sb->caller_chld, NULL) < 0)
		return stage_fail(sb, "restore", "SIGCHLD disposition");
	if (close_stray_fds(sb) < 0)
		return -1;
	if (limits_before_policy(sb) && limits_apply(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_PRE_FILTER);
	/* Before the filter: a strict policy refuses Landlock's calls. */
	if (landlock_scope_apply(sb) < 0)
		return -1;
	if (learn_command(sb) < 0)
		return -1;
	/* The Landlock fallback's loop does not answer notifications. */
	if (policy_apply_reporting(plan, sb->policy, sb->fallback ? NULL :
				   report_send_listener, sb, sb->err,
				   sizeof(sb->err)) < 0)
		return -1;
	timing_mark(&sb->timing, TM_POLICY);
	return protocol_before_exec(sb);
}

static void wait_for_go(struct sandbox *sb)
{
	char c;

	if (!sb->has_init)
		return;
	/* No "g": pid 1 did not become init, and takes us down with it. */
	if (read(sb->go_pipe[0], &c, 1) != 1 || c != 'g')
		_exit(plan_failure_status(sb->plan));
	close_fd(&sb->go_pipe[0]);
}

/* Without init, COMMAND itself holds the lock files and the sync fd. */
static void keep_held_fds(struct sandbox *sb)
{
	for (int i = 0; i < sb->hold_count; i++)
		fcntl(sb->hold_base + i, F_SETFD, 0);
}

/* Where execvp would have found FILE (its PATH search), into BUF; false
 * when no such file is there. */
static bool locate_command(const char *file, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(file, '/')) {
		snprintf(buf, len, "%s", file);
		return access(buf, F_OK) == 0;
	}
	for (const char *dir = path ? path : "/bin:/usr/bin"; dir; ) {
		const char *colon = strchr(dir, ':');
		int n = colon ? (int)(colon - dir) : (int)strlen(dir);

		snprintf(buf, len, "%.*s%s%s", n, dir, n ? "/" : "", file);
		if (access(buf, F_OK) == 0)
			return true;
		dir = colon ? colon + 1 : NULL;
	}
	return false;
}

/* The interpreter a script at PATH names on its #! line, into BUF. */
static bool script_interpreter(const char *path, char *buf, size_t len)
{
	char head[256];
	/* O_NONBLOCK: a FIFO named as COMMAND does not hold the message up. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	head[n] = '\0';
	snprintf(buf, len, "%.*s", (int)strcspn(head + 2 + strspn(head + 2, " \t"), " \t\n"),
		 head + 2 + strspn(head + 2, " \t"));
	return buf[0] != '\0';
}

/* ENOENT from execve says nothing of which file is missing: COMMAND, or
 * the interpreter its #! line names.  Say which, and that it is the
 * sandbox's file system that lacks it. */
static void describe_missing(const char *file, char *err, size_t len)
{
	char found[PATH_MAX], interp[PATH_MAX];

	if (!locate_command(file, found, sizeof(found)))
		snprintf(err, len, "exec: %.2048s: No such file or directory in the sandbox%s", file,
			 strchr(file, '/') ? "" : " (nor in its PATH)");
	else if (script_interpreter(found, interp, sizeof(interp)))
		snprintf(err, len, "exec: %.1024s: its interpreter %.1024s: No such file or "
			 "directory in the sandbox", file, interp);
	else
		snprintf(err, len, "exec: %s: %s", file, strerror(ENOENT));
}

static int exec_failure(struct sandbox *sb, const char *file)
{
	int errnum = errno;
	const struct plan *plan = sb->plan;

	if (plan->mode == MODE_BWRAP) {
		stage_fail_as(sb, "", file, BW_EXECVP, file);
		setup_log_fail(sb, 1);
	}
	if (errnum == ENOENT)
		describe_missing(file, sb->err, sizeof(sb->err));
	else
		stage_fail_msg(sb, "%s: %s", file, strerror(errnum));
	setup_log_fail(sb, errnum == ENOENT ? 127 : 126);
}

int stage_exec(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	char *file = plan->argv[0];
	char cwd[PATH_MAX];
	char **argv;

	wait_for_go(sb);
	timing_mark(&sb->timing, TM_GO);
	if (protocol_block(sb) < 0)
		return -1;
	if (!sb->has_init)
		keep_held_fds(sb);
	/* As bwrap does; it names the directory as it entered it. */
	if (plan->mode == MODE_BWRAP && sb->ms.pwd[0])
		command_env_set(sb, "PWD", sb->ms.pwd);
	else if (getcwd(cwd, sizeof(cwd)))
		command_env_set(sb, "PWD", cwd);
	if (plan->listen_fds > 0) {
		snprintf(cwd, sizeof(cwd), "%d", (int)getpid());
		command_env_set(sb, "LISTEN_PID", cwd);
	}
	if (plan->mode == MODE_BWRAP && strcmp(file, PLAN_SELF_EXE) == 0)
		command_env_set(sb, PLAN_REEXEC_ENV, "1");
	environ = command_env(sb);
	argv = command_argv(sb);
	if (!limits_before_policy(sb) && limits_apply(sb) < 0)
		return -1;
	if (protocol_load_filters(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_EXEC);
	if (setup_log_mark_exec(sb) < 0)
		_exit(plan_failure_status(plan));
	execvp(file, argv);
	return exec_failure(sb, file);
}
