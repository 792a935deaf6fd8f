/* The supervision loop: one poll over pid 1's pidfd, the signals to
 * forward (a signalfd), the set-up log, init's status pipe, the
 * registered poll sources, the caller's SIGCHLD signalfd and one timerfd for three deadlines:
 * --timeout (then SIGTERM), the grace after SIGTERM (then the tree is
 * killed) and the teardown's deadline (then what is still there is
 * reported as stuck and hutch exits instead of hanging).
 *
 * Used by the namespace path and by the Landlock fallback; each supplies
 * through struct supervise_ops what differs: how the tree is killed,
 * how pid 1 is reaped, what may be left after it and what "stuck" is. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "messages/messages.h"
#include "lib/lib.h"
#include "pty.h"
#include "sandbox.h"
#include "setup_log.h"
#include "status.h"
#include "loop.h"

static void arm_timer(struct run_state *rs)
{
	struct itimerspec its = { 0 };
	double next = 0;
	double candidates[3] = { rs->timeout_at, rs->kill_at, rs->deadline_at };

	for (int i = 0; i < 3; i++)
		if (candidates[i] > 0 && (next == 0 || candidates[i] < next))
			next = candidates[i];
	if (next > 0) {
		double delta = next - monotonic_now();

		if (delta < 0.000001)
			delta = 0.000001;
		its.it_value.tv_sec = (time_t)delta;
		its.it_value.tv_nsec = (long)((delta - (double)(time_t)delta) * 1e9);
	}
	timerfd_settime(rs->timerfd, 0, &its, NULL);
}

void supervise_start_deadline(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;

	if (rs->deadline_at == 0)
		rs->deadline_at = monotonic_now() + sb->plan->teardown_deadline;
	arm_timer(rs);
}

/* The grace is over: the tree is killed, and the deadline bounds the
 * wait for it. */
static void start_teardown(struct sandbox *sb, const struct supervise_ops *ops, void *ctx)
{
	struct run_state *rs = &sb->run;

	if (rs->deadline_at > 0)
		return;
	rs->kill_at = 0;
	rs->deadline_at = monotonic_now() + sb->plan->teardown_deadline;
	ops->kill_tree(sb, ctx);
	arm_timer(rs);
}

static void start_grace(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;

	if (rs->kill_at == 0 && rs->deadline_at == 0)
		rs->kill_at = monotonic_now() + sb->plan->kill_after;
	arm_timer(rs);
}

/* Pass the signals that came to hutch on to pid 1 (SIGWINCH to the pty
 * relay); true when one of them asks the sandbox to end. */
static bool forward_signals(struct sandbox *sb)
{
	struct signalfd_siginfo si;
	bool ending = false;

	while (read(sb->sigfd, &si, sizeof(si)) == sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGWINCH) {
			pty_on_winch(sb);
			continue;
		}
		pidfd_signal(sb->pid1_fd, sig);
		ending |= sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
	}
	return ending;
}

static void on_timer(struct sandbox *sb, const struct supervise_ops *ops, void *ctx)
{
	struct run_state *rs = &sb->run;
	uint64_t ticks;
	double t = monotonic_now();

	if (read(rs->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	if (rs->deadline_at > 0 && t >= rs->deadline_at) {
		rs->stuck = true;
		return;
	}
	if (rs->timeout_at > 0 && t >= rs->timeout_at) {
		rs->timeout_at = 0;
		rs->timed_out = true;
		pidfd_signal(sb->pid1_fd, SIGTERM);
		start_grace(sb);
	}
	if (rs->kill_at > 0 && t >= rs->kill_at)
		start_teardown(sb, ops, ctx);
	arm_timer(rs);
}

static void drain_signalfd(int fd)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		;
}

void supervise_drain_log(struct sandbox *sb)
{
	/* EOF, the marker and no message: COMMAND runs. */
	if (setup_log_read(sb) && sb->run.log_len == 0 && sb->run.exec_seen) {
		timing_mark(&sb->timing, TM_EXEC_SEEN);
		status_executed(sb);
	}
}

enum { P_PID1, P_SIGNALS, P_TIMER, P_LOG, P_STATUS, P_CHILDREN, N_FIXED };

static void on_sources(struct sandbox *sb, const struct pollfd *fds)
{
	struct poll_source ready[MAX_POLL_SOURCES];
	int n = sb->n_sources;

	/* A handler may add or remove sources: act on a copy. */
	memcpy(ready, sb->sources, sizeof(ready));
	for (int i = 0; i < n; i++)
		if (fds[N_FIXED + i].revents)
			ready[i].on_ready(sb, fds[N_FIXED + i].revents);
}

static int poll_once(struct sandbox *sb, const struct supervise_ops *ops, void *ctx)
{
	struct run_state *rs = &sb->run;
	/* A reaped pid 1's pidfd stays readable: no longer polled. */
	struct pollfd fds[N_FIXED + MAX_POLL_SOURCES] = {
		[P_PID1] = { .fd = rs->reaped ? -1 : sb->pid1_fd, .events = POLLIN },
		[P_SIGNALS] = { .fd = sb->sigfd, .events = POLLIN },
		[P_TIMER] = { .fd = rs->timerfd, .events = POLLIN },
		[P_LOG] = { .fd = sb->log_pipe[0], .events = POLLIN },
		[P_STATUS] = { .fd = ops->on_status ? sb->status_pipe[0] : -1, .events = POLLIN },
		[P_CHILDREN] = { .fd = ops->chld_fd, .events = POLLIN },
	};

	for (int i = 0; i < sb->n_sources; i++)
		fds[N_FIXED + i] = (struct pollfd){ .fd = sb->sources[i].fd,
						    .events = sb->sources[i].events };
	if (poll(fds, (nfds_t)(N_FIXED + sb->n_sources), -1) < 0)
		return errno == EINTR ? 0 : -1;
	timing_mark(&sb->timing, TM_WAKE);	/* the first one counts */
	on_sources(sb, fds);
	if (fds[P_LOG].revents)
		supervise_drain_log(sb);
	if (fds[P_STATUS].revents)
		ops->on_status(sb);
	if (fds[P_SIGNALS].revents && forward_signals(sb))
		start_grace(sb);
	if (fds[P_TIMER].revents)
		on_timer(sb, ops, ctx);
	if (fds[P_CHILDREN].revents)
		drain_signalfd(ops->chld_fd);
	if (fds[P_PID1].revents || fds[P_CHILDREN].revents)
		ops->reap(sb, ctx);
	return 0;
}

/* pid 1 is reaped: is anything it left still there?  The first time
 * something is, the teardown deadline starts anew, for it alone. */
static bool left_behind(struct sandbox *sb, const struct supervise_ops *ops, void *ctx)
{
	struct run_state *rs = &sb->run;

	if (!ops->kill_left || ops->kill_left(sb, ctx) == 0)
		return false;
	if (!rs->leftovers) {
		rs->leftovers = true;
		rs->timeout_at = rs->kill_at = 0;
		rs->deadline_at = monotonic_now() + sb->plan->teardown_deadline;
		arm_timer(rs);
	}
	return true;
}

int supervise_loop_run(struct sandbox *sb, const struct supervise_ops *ops, void *ctx)
{
	struct run_state *rs = &sb->run;

	rs->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (rs->timerfd < 0)
		return stage_fail(sb, "timerfd", "");
	if (sb->plan->timeout > 0)
		rs->timeout_at = monotonic_now() + sb->plan->timeout;
	arm_timer(rs);
	timing_mark(&sb->timing, TM_LOOP);
	while (!rs->stuck && !(rs->reaped && !left_behind(sb, ops, ctx)))
		if (poll_once(sb, ops, ctx) < 0) {
			stage_fail(sb, "poll", "");
			close_fd(&rs->timerfd);
			return -1;
		}
	/* pid 1 is gone: take what the log holds, without waiting. */
	supervise_drain_log(sb);
	close_fd(&rs->timerfd);
	if (rs->stuck)
		ops->report_stuck(sb, ctx);
	return 0;
}
