/* The supervisor's stages of the namespace path: prepare, clone, id maps
 * and run, which hands pid 1 to the supervision loop (supervise_loop.c)
 * with what is the namespace path's own: the tree is killed by closing
 * init's control pipe (or SIGKILL to pid 1 without init), pid 1 alone is
 * reaped (its pid namespace takes the rest), init's status lines are
 * read, and a stuck teardown is reported from the pid namespace's
 * members (teardown.c).  Where user namespaces are refused, clone or
 * idmap hands over to the Landlock fallback (landlock_run.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "messages/messages.h"
#include "lib/lib.h"
#include "join.h"
#include "fallback/fallback.h"
#include "host/host.h"
#include "net/net.h"
#include "learn/learn.h"
#include "limits/limits.h"
#include "seccomp/seccomp.h"
#include "mount/mount.h"
#include "loop/loop.h"
#include "sandbox.h"
#include "child/child.h"
#include "supervise.h"
#include "supervisor.h"

static const int forwarded_signals[] = { FORWARDED_SIGNALS };

static int make_pipe(struct sandbox *sb, int p[2], const char *name)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return stage_fail(sb, "pipe", name);
	return 0;
}

static bool plan_has_dev(const struct plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == FS_DEV)
			return true;
	return false;
}

/* Does hutch's caller ignore SIG (SIG_IGN, kept across execve)? */
static bool caller_ignores(int sig)
{
	struct sigaction old;

	return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

/* Signals hutch forwards are taken through a signalfd in the loop.  One
 * the caller ignores (a script's `cmd &` ignores SIGINT and SIGQUIT,
 * nohup SIGHUP) is not taken: it stays ignored in hutch, which the
 * kernel then discards, and COMMAND inherits the ignore, as it would
 * run without hutch; it is neither forwarded nor an end of the run. */
static int block_signals(struct sandbox *sb)
{
	sigset_t set;

	sigemptyset(&set);
	if (sb->plan->mode == MODE_HUTCH)
		for (size_t i = 0; i < sizeof(forwarded_signals) / sizeof(int); i++)
			if (!caller_ignores(forwarded_signals[i]))
				sigaddset(&set, forwarded_signals[i]);
	if (sb->pty)
		sigaddset(&set, SIGWINCH);
	/* SIGPIPE is blocked, not taken: a write to a pipe whose reader
	 * died (pid 1 during set-up) fails with EPIPE instead of killing
	 * hutch without a word.  COMMAND gets the caller's mask back. */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, &sb->caller_mask) < 0)
		return stage_fail(sb, "block signals", "");
	/* A caller that ignores SIGCHLD would have the kernel reap pid 1
	 * unseen: its status lost, waitid failing, hutch waiting for ever.
	 * COMMAND gets the caller's disposition back. */
	if (sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = SIG_DFL },
		      &sb->caller_chld) < 0)
		return stage_fail(sb, "SIGCHLD disposition", "");
	sigdelset(&set, SIGPIPE);
	sb->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sb->sigfd < 0)
		return stage_fail(sb, "signalfd", "");
	return 0;
}

/* --die-with-parent: the supervisor too dies with its own parent. */
static int follow_parent(struct sandbox *sb)
{
	pid_t parent = getppid();

	if (!sb->plan->die_with_parent)
		return 0;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return stage_fail(sb, "parent death signal", "");
	if (getppid() != parent)
		raise(SIGKILL);
	return 0;
}

/* HUTCH_TIMING=FILE: opened before any process of the sandbox runs,
 * as the caller's own regular file, never through a link (the sandbox
 * may write where FILE is). */
static int open_timing_file(struct sandbox *sb)
{
	const char *why = NULL;
	char obj[PATH_MAX + 64];

	if (!sb->plan->timing_file)
		return 0;
	sb->timing_fd = hostfile_open_append(sb->plan->timing_file, &why);
	if (sb->timing_fd >= 0)
		return 0;
	snprintf(obj, sizeof(obj), "%.*s: %s", PATH_MAX, sb->plan->timing_file, why);
	return stage_fail_msg(sb, "HUTCH_TIMING %s", obj);
}

int stage_prepare(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	sb->has_init = (plan->clone_flags & CLONE_NEWPID) && !plan->as_pid_1;
	/* hutch mode always ends in a second user namespace, with a mount
	 * namespace of its own: copied into a less privileged namespace,
	 * every mount and its flags are locked, so even a COMMAND given
	 * CAP_SYS_ADMIN cannot make a read-only bind writable or unmount it
	 * to reveal what lies under it. */
	sb->nested_userns = (plan->clone_flags & CLONE_NEWUSER) &&
			    (plan->mode == MODE_HUTCH || plan->disable_userns ||
			     (plan_has_dev(plan) && (plan->uid != 0 || plan->gid != 0)));
	if (open_timing_file(sb) < 0)
		return -1;
	if (follow_parent(sb) < 0 || limits_prepare(sb) < 0 || pty_prepare(sb) < 0 ||
	    block_signals(sb) < 0 || status_prepare(sb) < 0 || report_prepare(sb) < 0 ||
	    netproxy_prepare(sb) < 0 || protect_prepare(sb) < 0 || learn_prepare(sb) < 0)
		return -1;
	if (setup_log_open(sb->log_pipe) < 0)
		return stage_fail(sb, "log channel", "");
	if (make_pipe(sb, sb->release_pipe, "release") < 0)
		return -1;
	/* The control pipe's write end lives exactly as long as the
	 * supervisor: pid 1 checks it after setting its death signal. */
	if (make_pipe(sb, sb->control_pipe, "control") < 0 ||
	    (sb->has_init && make_pipe(sb, sb->status_pipe, "status") < 0))
		return -1;
	if (sb->has_init && fcntl(sb->status_pipe[0], F_SETFL, O_NONBLOCK) < 0)
		return stage_fail(sb, "status pipe", "");
	timing_mark(&sb->timing, TM_PREP_FDS);
	if (sb->has_init && seal_make_image(sb) < 0)
		return -1;
	if (protocol_prepare(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_PREP_IMAGE);
	if (policy_prepare(plan, &sb->policy, sb->err, sizeof(sb->err)) < 0)
		return -1;
	timing_mark(&sb->timing, TM_PREPARED);
	return 0;
}

/* ---- clone ---- */

static bool userns_refused(int err)
{
	return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS;
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

/* Namespaces refused, and said why in sb->err: never unconfined, the
 * fallback where the plan has one (fallback_stage_run), else a clean failure. */
static int fall_back_or_fail(struct sandbox *sb)
{
	sb->fallback = sb->plan->fallback == FALLBACK_LANDLOCK;
	return sb->fallback ? 0 : -1;
}

int stage_clone(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	int flags;
	pid_t pid;

	/* The user namespace is the one given: none is made. */
	if (plan->userns_fd >= 0)
		sb->clone_flags &= ~CLONE_NEWUSER;
	flags = sb->clone_flags;
	/* Inside another sandbox as uid 0 without CAP_SETFCAP: no map can
	 * be written; said in one line before anything is made; never
	 * unconfined.  (A refused mount call is seen at pid 1's first.) */
	if (plan->mode == MODE_HUTCH && (flags & CLONE_NEWUSER) && nested_uid0_refused_here(sb))
		return fall_back_or_fail(sb);
	pid = clone_pid1(sb, flags);
	if (pid < 0 && sb->err[0])
		return -1;	/* joining a namespace failed, and said why */
	/* Not in hutch mode: its nested user namespace (seal) would fail
	 * the same way; the refusal below says why, or falls back. */
	if (pid < 0 && userns_refused(errno) && plan->userns_try && plan->caller_uid == 0 &&
	    plan->mode == MODE_BWRAP) {
		sb->clone_flags &= ~CLONE_NEWUSER;
		flags = sb->clone_flags;
		pid = clone_pid1(sb, flags);
	}
	if (pid < 0 && errno == EINVAL && plan->cgroupns_try) {
		sb->clone_flags &= ~CLONE_NEWCGROUP;
		pid = clone_pid1(sb, sb->clone_flags);
	}
	if (pid < 0 && userns_refused_here(sb, errno))
		return fall_back_or_fail(sb);
	if (pid < 0)
		return stage_fail(sb, "new namespaces", "(clone3)");
	if (pid == 0) {
		sb->pid1_fd = -1;
		sb->role = WHO_CHILD;	/* the walker goes on with pid 1's stages */
		return STAGE_NEW_ROLE;
	}
	sb->pid1 = pid;
	timing_mark(&sb->timing, TM_CLONED);
	if (limits_attach(sb) < 0)
		return -1;
	report_started(sb);
	if (learn_attach(sb) < 0)
		return -1;
	close_fd(&sb->log_pipe[1]);
	close_fd(&sb->release_pipe[0]);
	close_fd(&sb->control_pipe[0]);
	close_fd(&sb->status_pipe[1]);
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
		return stage_fail_as(sb, fd < 0 ? "open" : "write", path, id, NULL);
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

/* pid 1, killed and reaped: nothing of it is left (its namespaces, with
 * whatever it mounted, die with it). */
static void end_pid1(struct sandbox *sb)
{
	siginfo_t si;

	pidfd_signal(sb->pid1_fd, SIGKILL);
	waitid(P_PIDFD, (id_t)sb->pid1_fd, &si, WEXITED);
	close_fd(&sb->pid1_fd);
	sb->pid1 = 0;
}

/* pid 1's first mount (child.c), made while the maps were written: was
 * it refused by the sandbox around hutch (its seccomp filter refuses the
 * mount calls, or kills at one: pid 1 ends without a word), or by a
 * security module that leaves the new user namespace without
 * capabilities (Ubuntu's AppArmor restriction, or one doing the same)?
 * Then pid 1 is ended, its messages dropped, and sb->err names the
 * cause and the fix (nested.c, userns_probe.c), for the fallback's
 * notice or the failure.  What it defends against: a launch that
 * silently runs weaker than asked.  Only a refusal at that first mount,
 * before anything of the sandbox was built, qualifies; any other errno,
 * or a later step, is a plain failure, which the normal path reports.
 * The outer sandbox is asked first, as it was when it was looked for
 * before clone: its filter refuses the probe's mounts under any
 * security module. */
static bool first_mount_refused(struct sandbox *sb)
{
	int err = setup_log_wait_first_mount(sb);

	if (err == 0)
		return false;
	if (!nested_mount_refused_here(sb, err) && !(err > 0 && userns_mount_refused_here(sb, err)))
		return false;
	end_pid1(sb);
	/* Its failure line is superseded: the cause goes in its place. */
	close_fd(&sb->log_pipe[0]);
	sb->run.log_len = 0;
	return true;
}

int stage_idmap(struct sandbox *sb)
{
	if (sb->fallback)
		return 0;
	const struct plan *plan = sb->plan;
	unsigned inside_uid = sb->nested_userns ? 0 : plan->uid;
	unsigned inside_gid = sb->nested_userns ? 0 : plan->gid;

	int r = 0;

	/* With --userns-block-fd the caller writes the maps. */
	if ((sb->clone_flags & CLONE_NEWUSER) && plan->userns_block_fd < 0) {
		r = write_id_maps(sb, inside_uid, inside_gid);
		/* clone made the namespace, but the maps fail (Ubuntu's
		 * AppArmor restriction for a root caller).  Never unconfined:
		 * the fallback (fallback_stage_run ends this child), or a clean
		 * failure. */
		if (r < 0 && errno == EPERM && userns_refused_here(sb, EPERM))
			return fall_back_or_fail(sb);
	}
	if (r == 0)
		timing_mark(&sb->timing, TM_MAPS);
	/* Also where the maps failed: pid 1 killed at its first mount (a
	 * filter's SIGSYS) takes its /proc files with it, and that cause
	 * comes first. */
	if (setup_log_tells_first_mount(sb) && first_mount_refused(sb))
		return fall_back_or_fail(sb);
	if (r < 0)
		return -1;
	/* A sandbox without its own pid namespace sees the supervisor: it
	 * must not reach hutch's binary through /proc/PID/exe or ptrace.
	 * Not before the maps are written (through /proc/PID of a child
	 * that inherits the flag at clone), and before the child runs on. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return stage_fail(sb, "not dumpable", "");
	/* While the child waits: a child that fails fast has no namespace
	 * ids left to read once it is a zombie. */
	status_started(sb);
	/* Before the write: pid 1 may run, and mark its wake-up, at once. */
	timing_mark(&sb->timing, TM_RELEASED);
	if (write(sb->release_pipe[1], "r", 1) != 1)
		return stage_fail(sb, "release the child", "");
	close_fd(&sb->release_pipe[1]);
	return 0;
}

/* ---- run ---- */

/* Teardown: init kills the namespace in order when its control pipe
 * closes; without init, SIGKILL to pid 1 takes the namespace down. */
static void kill_namespace(struct sandbox *sb, void *ctx)
{
	(void)ctx;
	if (sb->has_init)
		close_fd(&sb->control_pipe[1]);
	else
		pidfd_signal(sb->pid1_fd, SIGKILL);
}

static void reap_pid1(struct sandbox *sb, void *ctx)
{
	struct run_state *rs = &sb->run;
	siginfo_t si;

	(void)ctx;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)sb->pid1_fd, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
		return;
	timing_mark(&sb->timing, TM_REAPED);
	rs->reaped = true;
	rs->code = si.si_code;
	rs->status = si.si_status;
}

static void report_stuck_namespace(struct sandbox *sb, void *ctx)
{
	(void)ctx;
	teardown_report_stuck(sb);
}

/* One line from init: "stop N" when COMMAND stopped (the pty relay
 * stops hutch too); "exit N", "signal N" or "none" when it ended, after
 * which init tears down what is left: that teardown too has a deadline. */
static void status_line(struct sandbox *sb, const char *line)
{
	struct run_state *rs = &sb->run;
	int sig;

	if (sscanf(line, "stop %d", &sig) == 1) {
		pty_on_command_stop(sb);
		return;
	}
	timing_mark(&sb->timing, TM_ENDED);
	rs->command_ended = true;
	sscanf(line, "signal %d", &rs->command_signal);
	supervise_start_deadline(sb);
}

static void on_status(struct sandbox *sb)
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
			status_line(sb, line);
		}
		return;
	}
	close_fd(&sb->status_pipe[0]);
}

static const struct supervise_ops namespace_ops = {
	.kill_tree = kill_namespace,
	.reap = reap_pid1,
	.kill_left = NULL,	/* the pid namespace dies with pid 1 */
	.report_stuck = report_stuck_namespace,
	.on_status = on_status,
	.chld_fd = -1,
};

/* pid 1 failed in its set-up (its message in the log, or killed by a
 * filter's SIGSYS) after a first mount that passed: under a seccomp
 * filter that refuses a later mount call, the cause and the fix follow
 * its message, found here, on the failure path only. */
static void explain_refused_setup(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;
	bool killed = rs->reaped && (rs->code == CLD_KILLED || rs->code == CLD_DUMPED) &&
		      rs->status == SIGSYS;
	size_t room = sizeof(rs->log) - 1 - rs->log_len;
	int len;

	if (rs->exec_seen || rs->timed_out || (rs->log_len == 0 && !killed) || room == 0 ||
	    !nested_mount_refused_here(sb, -1))
		return;
	len = snprintf(rs->log + rs->log_len, room + 1, "%s\n", sb->err);
	if (len > 0)
		rs->log_len += (size_t)len < room ? (size_t)len : room;
}

int stage_run(struct sandbox *sb)
{
	if (sb->fallback)
		return fallback_stage_run(sb);
	if (pty_start(sb) < 0 || netproxy_start(sb) < 0 || learn_start(sb) < 0)
		return -1;
	if (supervise_loop_run(sb, &namespace_ops, NULL) < 0)
		return -1;
	explain_refused_setup(sb);
	return 0;
}
