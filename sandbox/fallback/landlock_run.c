/* The Landlock fallback's stages (stages.c's second table), where user
 * namespaces are refused: COMMAND runs without namespaces as a child of
 * the supervisor (fork), confined by Landlock (confine) and the same
 * seccomp policy, and the supervision loop (supervise_loop.c) watches it
 * as it watches pid 1 (run).
 *
 * What it defends against: COMMAND's descendants outliving the run, as a
 * pid namespace would not let them.  The supervisor is a subreaper: the
 * orphans come to it, and once COMMAND ends (or the grace after SIGTERM
 * does) it kills every descendant, found in /proc and each pinned by a
 * pidfd and checked to be its parent's child before SIGKILL, so that a
 * recycled pid never brings SIGKILL to an outsider.  Landlock missing,
 * or a /proc of another pid namespace, is a failure: COMMAND never runs
 * unconfined. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fallback.h"
#include "landlock/landlock.h"
#include "landlock_rundir.h"
#include "messages/messages.h"
#include "lib/lib.h"
#include "loop/loop.h"
#include "feature/feature.h"
#include "child/child.h"
#include "sandbox.h"

#define MAX_TREE_DEPTH 256

/* The runner's own, from stage fallback to finish: the rules, and what
 * the subreaper needs. */
struct fallback_run {
	struct fallback fb;
	bool has_rules;		/* landlock_rules_init ran: free them */
	bool has_dirs;		/* the per-run directories exist: remove them */
	bool supervised;	/* the run stage began: it ends the tree */
	int chld_fd;		/* SIGCHLD, for orphans and teardown */
	int self_fd;		/* the supervisor's own pidfd */
};

/* ---- before COMMAND ---- */

/* The child clone made before its maps failed (AppArmor) waits to be
 * released: without its release pipe it exits (stage_deathsig), and is
 * reaped with the orphans. */
static void abandon_namespace_child(struct sandbox *sb)
{
	if (sb->pid1_fd < 0)
		return;
	close_fd(&sb->release_pipe[1]);
	close_fd(&sb->pid1_fd);
	sb->pid1 = 0;
}

/* Fresh log and release pipes: clone may have used up the first. */
static int renew_pipes(struct sandbox *sb)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&sb->log_pipe[i]);
		close_fd(&sb->release_pipe[i]);
	}
	if (setup_log_open(sb->log_pipe) < 0 || pipe2(sb->release_pipe, O_CLOEXEC) < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "pipe", "log, release",
				errno);
	return 0;
}

/* Orphans come to the supervisor, which reaps them and, at the end,
 * kills every descendant: the pid namespace's guarantee, approximated. */
static int become_subreaper(struct sandbox *sb, struct fallback_run *fr)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "become", "subreaper", errno);
	fr->chld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	fr->self_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fr->chld_fd < 0 || fr->self_fd < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "signalfd", "SIGCHLD",
				errno);
	return 0;
}

static void print_notice(struct sandbox *sb)
{
	char approx[1024], msg[2048];

	landlock_format_approximations(&sb->found, approx, sizeof(approx));
	snprintf(msg, sizeof(msg), "fallback: user namespaces refused (%s); running under "
		 "Landlock ABI %d + seccomp; approximations: %s", sb->found.reason,
		 sb->found.abi, approx);
	log_warning(sb->plan->prog, msg);
}

static int check_landlock(struct sandbox *sb)
{
	sb->found.abi = landlock_abi_version();
	if (sb->found.abi >= 1)
		return 0;
	/* Never unconfined: without Landlock there is no fallback. */
	snprintf(sb->err, sizeof(sb->err), "fallback: Landlock is not available in this "
		 "kernel, so COMMAND does not run unconfined; user namespaces are refused "
		 "(%s)", sb->found.reason);
	return -1;
}

/* The subreaper finds descendants in /proc and signals them by pidfd:
 * both must count pids alike, or a recycled number could name an
 * outsider.  A /proc of another pid namespace: no fallback. */
static int check_proc(struct sandbox *sb)
{
	char self[32] = "";

	if (readlink("/proc/self", self, sizeof(self) - 1) > 0 && atoi(self) == getpid())
		return 0;
	snprintf(sb->err, sizeof(sb->err), "fallback: /proc: not this pid namespace's, so "
		 "COMMAND's descendants cannot be found; mount a /proc for it (user "
		 "namespaces are refused: %s)", sb->found.reason);
	return -1;
}

static int prepare(struct sandbox *sb, struct fallback_run *fr)
{
	/* The refusal's message is said; setup_log_fail must not send its tail. */
	memset(sb->err, 0, sizeof(sb->err));
	fallback_point_env(&fr->fb, sb);
	sb->has_init = false;	/* COMMAND runs as the supervisor's child */
	if (landlock_build_ruleset(&fr->fb) < 0 || landlock_build_net_filter(&fr->fb) < 0 ||
	    renew_pipes(sb) < 0 || become_subreaper(sb, fr) < 0)
		return -1;
	print_notice(sb);
	return 0;
}

/* In the new process: what COMMAND's process enters at the confine
 * stage; then the walker runs the table's COMMAND stages in it
 * (deathsig waits for the release). */
static int become_command_child(struct sandbox *sb, struct fallback *fb)
{
	struct fallback_child *fc = xreallocarray(NULL, 1, sizeof(*fc));

	*fc = (struct fallback_child){ fb->ruleset, fb->net_filter, fb->workdir };
	sb->fallback_child = fc;
	sb->role = WHO_COMMAND;
	return STAGE_NEW_ROLE;
}

/* The supervisor's side of the start: pidfd, cgroup, then release.
 * Returns STAGE_NEW_ROLE in the new process. */
static int start_command(struct sandbox *sb, struct fallback *fb)
{
	pid_t pid = fork();

	if (pid < 0)
		return log_fail(sb->err, sizeof(sb->err), "fork", "fork", "COMMAND's process", errno);
	if (pid == 0)
		return become_command_child(sb, fb);
	sb->pid1 = pid;
	sb->pid1_fd = (int)syscall(SYS_pidfd_open, pid, 0);
	close_fd(&sb->log_pipe[1]);
	close_fd(&sb->release_pipe[0]);
	close_fd(&fb->ruleset);
	if (sb->pid1_fd < 0) {
		kill(pid, SIGKILL);	/* our unreaped child: its pid is still its own */
		return log_fail(sb->err, sizeof(sb->err), "fork", "pidfd", "COMMAND", errno);
	}
	if (feature_run(sb, FEATURE_ATTACH) < 0)
		return -1;
	/* COMMAND sees the supervisor in /proc: no ptrace, no /proc/PID/exe. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return log_fail(sb->err, sizeof(sb->err), "fork", "make", "the supervisor not dumpable", errno);
	feature_notify(sb, FEATURE_RELEASE_READY);
	if (write(sb->release_pipe[1], "r", 1) != 1)
		return log_fail(sb->err, sizeof(sb->err), "fork", "release", "COMMAND", errno);
	close_fd(&sb->release_pipe[1]);
	return 0;
}

/* ---- the tree below the supervisor ---- */

struct pid_list {
	pid_t *pids;
	size_t n;
};

static void pid_list_add(struct pid_list *list, pid_t pid)
{
	list->pids = xreallocarray(list->pids, list->n + 1, sizeof(*list->pids));
	list->pids[list->n++] = pid;
}

static void add_task_children(const char *path, struct pid_list *out)
{
	FILE *f = fopen(path, "re");
	int pid;

	while (f && fscanf(f, "%d", &pid) == 1)
		pid_list_add(out, pid);
	if (f)
		fclose(f);
}

static void children_of(pid_t pid, struct pid_list *out)
{
	char path[64], file[384];
	struct dirent *t;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	while (tasks && (t = readdir(tasks)))
		if (t->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s/children", path, t->d_name);
			add_task_children(file, out);
		}
	if (tasks)
		closedir(tasks);
}

/* SIGKILL every descendant of PID (pinned by PIDFD); returns how many
 * there were, and lists them in LEFT if given.  Each is pinned by its own
 * pidfd and checked to be PID's child while PID is still itself, so a
 * recycled pid never brings SIGKILL to an outsider. */
static int kill_descendants(pid_t pid, int pidfd, int depth, struct pid_list *left)
{
	struct pid_list kids = { 0 };
	int count = 0;

	children_of(pid, &kids);
	for (size_t i = 0; i < kids.n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, kids.pids[i], 0);

		if (fd < 0)
			continue;
		if (proc_parent_of(kids.pids[i]) == pid && pidfd_signal(pidfd, 0) == 0) {
			pidfd_signal(fd, SIGKILL);
			count++;
			if (left)
				pid_list_add(left, kids.pids[i]);
			if (depth < MAX_TREE_DEPTH)
				count += kill_descendants(kids.pids[i], fd, depth + 1, left);
		}
		close(fd);
	}
	free(kids.pids);
	return count;
}

/* ---- what the supervision loop asks of the fallback ---- */

/* The grace is over: COMMAND and every descendant. */
static void kill_tree(struct sandbox *sb, void *ctx)
{
	struct fallback_run *fr = ctx;

	pidfd_signal(sb->pid1_fd, SIGKILL);
	kill_descendants(getpid(), fr->self_fd, 0, NULL);
}

/* COMMAND and the orphans reparented here, all reaped. */
static void reap_children(struct sandbox *sb, void *ctx)
{
	struct run_state *rs = &sb->run;
	siginfo_t si;

	(void)ctx;
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			return;
		if (si.si_pid == sb->pid1) {
			timing_mark(&sb->timing, TM_FB_REAPED);
			rs->reaped = true;
			rs->code = si.si_code;
			rs->status = si.si_status;
		}
	}
}

/* COMMAND has ended: kill what it left, until nothing is left.  Each
 * death of a descendant reaches the supervisor as SIGCHLD, directly or
 * once its orphans are reparented here. */
static int kill_left(struct sandbox *sb, void *ctx)
{
	struct fallback_run *fr = ctx;

	reap_children(sb, ctx);
	return kill_descendants(getpid(), fr->self_fd, 0, NULL);
}

static void describe_stuck(struct sandbox *sb, pid_t pid)
{
	char buf[1024], msg[256];
	const char *f = proc_stat_fields(pid, buf, sizeof(buf));

	snprintf(msg, sizeof(msg), "teardown: pid %d (state %c): still there after %gs",
		 pid, f ? f[0] : '?', sb->plan->teardown_deadline);
	log_line(sb->plan->prog, msg);
}

static void report_stuck(struct sandbox *sb, void *ctx)
{
	struct fallback_run *fr = ctx;
	struct pid_list left = { 0 };
	char msg[256];

	kill_descendants(getpid(), fr->self_fd, 0, &left);
	for (size_t i = 0; i < left.n; i++)
		describe_stuck(sb, left.pids[i]);
	snprintf(msg, sizeof(msg), "teardown: %zu descendant%s of COMMAND did not exit "
		 "within %gs and remain%s", left.n, left.n == 1 ? "" : "s",
		 sb->plan->teardown_deadline, left.n == 1 ? "s" : "");
	log_line(sb->plan->prog, msg);
	free(left.pids);
}

/* Set-up or the loop failed once COMMAND's process was made: take the
 * tree down, waiting for it no longer than the teardown deadline. */
static void abort_command(struct sandbox *sb, struct fallback_run *fr)
{
	double deadline = monotonic_now() + sb->plan->teardown_deadline;
	struct pollfd pfd = { .fd = fr->chld_fd, .events = POLLIN };
	struct signalfd_siginfo si;

	kill_tree(sb, fr);
	while (kill_left(sb, fr) > 0 && monotonic_now() < deadline)
		if (poll(&pfd, 1, 10) > 0)
			while (read(fr->chld_fd, &si, sizeof(si)) == sizeof(si))
				;
}

static int supervise_command(struct sandbox *sb, struct fallback_run *fr)
{
	const struct supervise_ops ops = {
		.kill_tree = kill_tree,
		.reap = reap_children,
		.kill_left = kill_left,
		.report_stuck = report_stuck,
		.on_status = NULL,	/* no init */
		.chld_fd = fr->chld_fd,
	};

	if (feature_run(sb, FEATURE_START) == 0 && supervise_loop_run(sb, &ops, fr) == 0)
		return 0;
	/* Never a COMMAND left running unwatched. */
	abort_command(sb, fr);
	supervise_drain_log(sb);
	return -1;
}

/* ---- the stages ---- */

/* Stage fallback: Landlock and this pid namespace's /proc checked, the
 * plan translated into rules, the per-run directories made, the
 * subreaper set up, and the one-line notice said.  The namespace
 * child clone made, if any, is abandoned. */
int fallback_stage_enter(struct sandbox *sb)
{
	struct fallback_run *fr = xreallocarray(NULL, 1, sizeof(*fr));

	timing_mark(&sb->timing, TM_FB_ENTER);
	*fr = (struct fallback_run){ .chld_fd = -1, .self_fd = -1 };
	sb->fallback_run = fr;
	abandon_namespace_child(sb);
	landlock_rules_init(&fr->fb, sb->plan, &sb->found, sb->err, sizeof(sb->err));
	fr->has_rules = true;
	if (check_landlock(sb) < 0 || check_proc(sb) < 0 || landlock_translate(&fr->fb) < 0)
		return -1;
	/* Before: a failure halfway leaves a directory to remove. */
	fr->has_dirs = true;
	if (fallback_make_run_dirs(&fr->fb) < 0 || prepare(sb, fr) < 0)
		return -1;
	timing_mark(&sb->timing, TM_FB_READY);
	return 0;
}

/* Stage fork: COMMAND's process, attached and released; it goes on with
 * the table's COMMAND stages (STAGE_NEW_ROLE), keeping its copy of the
 * rules until execve.  A failure here takes down what was made. */
int fallback_stage_fork(struct sandbox *sb)
{
	struct fallback_run *fr = sb->fallback_run;
	int rc = start_command(sb, &fr->fb);

	if (rc < 0 && sb->pid1_fd >= 0)
		abort_command(sb, fr);
	if (rc == 0)
		timing_mark(&sb->timing, TM_FB_RELEASED);
	return rc;
}

/* Stage confine, in COMMAND's process: the file system and network
 * rules, where the namespace path has its mounts already. */
int fallback_stage_confine(struct sandbox *sb)
{
	if (landlock_confine(sb) < 0)
		return -1;
	timing_mark(&sb->timing, TM_FB_CONFINED);
	return 0;
}

/* Stage run: the supervision loop over COMMAND and its descendants. */
int fallback_stage_run(struct sandbox *sb)
{
	struct fallback_run *fr = sb->fallback_run;

	fr->supervised = true;	/* from here on, the loop or its abort ends the tree */
	return supervise_command(sb, fr);
}

/* Every way out: the per-run directories removed, the rules freed. */
void fallback_finish(struct sandbox *sb)
{
	struct fallback_run *fr = sb->fallback_run;

	if (!fr)
		return;
	/* A stage after fork failed before the loop ran (main killed
	 * COMMAND alone): what COMMAND forked meanwhile goes too. */
	if (!fr->supervised && sb->pid1 > 0)
		abort_command(sb, fr);
	if (fr->has_dirs)
		fallback_remove_run_dirs(&fr->fb);
	if (fr->has_rules)
		landlock_rules_free(&fr->fb);
	close_fd(&fr->chld_fd);
	close_fd(&fr->self_fd);
	free(fr);
	sb->fallback_run = NULL;
}

/* Last: what the fallback set in COMMAND's environment (TMPDIR, HOME). */
void fallback_release(struct sandbox *sb)
{
	command_env_release(sb);
}
