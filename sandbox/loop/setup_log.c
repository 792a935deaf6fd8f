/* The set-up log: both ends of the channel from the set-up processes
 * (pid 1 before it becomes init, COMMAND's process before execve) to the
 * supervisor.  Each failure is one line in one write; the exec stage
 * writes "exec" on a line of its own just before execve.
 *
 * The channel is a unix socket rather than a pipe: each message then
 * carries its writer's pid as this pid namespace names it (SO_PASSCRED,
 * set by the kernel, not claimed by the writer), so the exec marker names
 * COMMAND's host pid even when COMMAND is gone already.  Both ends are
 * close-on-exec: COMMAND never holds the write end, and a message after
 * the marker can only be execvp's own failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/lib.h"
#include "sandbox.h"
#include "setup_log.h"

int setup_log_open(int fds[2])
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

void setup_log_fail(struct sandbox *sb, int status)
{
	size_t len = strlen(sb->err);
	char marks[TIMING_LINES_MAX];
	/* With --timing: how far set-up came, before the failure. */
	size_t n_marks = timing_format_lines(&sb->timing, marks, sizeof(marks));

	if (n_marks > 0 && sb->log_pipe[1] >= 0 && write(sb->log_pipe[1], marks, n_marks) < 0)
		_exit(status);
	if (len == sizeof(sb->err) - 1)
		len--;
	sb->err[len++] = '\n';
	/* One write: the supervisor reads whole lines. */
	if (sb->log_pipe[1] >= 0 && write(sb->log_pipe[1], sb->err, len) < 0)
		_exit(status);
	_exit(status);
}

int setup_log_mark_exec(struct sandbox *sb)
{
	char buf[TIMING_LINES_MAX + 8];
	/* With --timing, the marks go first, in the same write. */
	size_t len = timing_format_lines(&sb->timing, buf, sizeof(buf) - 8);

	memcpy(buf + len, "exec\n", 5);
	len += 5;
	if (sb->log_pipe[1] >= 0 && write(sb->log_pipe[1], buf, len) != (ssize_t)len)
		return -1;
	return 0;
}

/* From the exec stage's marker on, an end of pid 1 is COMMAND's.  Take
 * the marker out of the log, which then holds only failure messages; its
 * writer is COMMAND. */
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

#define FIRST_MOUNT "first-mount "

/* The word taken out of the log, whenever it comes (a failure of the
 * supervisor's own may have the log drained before it waited): the log
 * then holds only failure messages. */
static void take_first_mount(struct run_state *rs)
{
	char *at, *end;

	rs->log[rs->log_len] = '\0';
	for (at = rs->log; at && strncmp(at, FIRST_MOUNT, sizeof(FIRST_MOUNT) - 1) != 0;
	     at = strchr(at, '\n'), at = at ? at + 1 : NULL)
		;
	if (!at || !(end = strchr(at, '\n')))
		return;
	rs->first_mount_err = (int)strtol(at + sizeof(FIRST_MOUNT) - 1, NULL, 10);
	rs->first_mount_told = rs->first_mount_err >= 0;
	end++;
	memmove(at, end, rs->log_len - (size_t)(end - rs->log) + 1);
	rs->log_len -= (size_t)(end - at);
}

bool setup_log_read(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;

	for (;;) {
		size_t room = sizeof(rs->log) - 1 - rs->log_len;
		char discard[256];
		pid_t writer;
		ssize_t n;

		if (sb->log_pipe[0] < 0)
			return false;
		if (room == 0)
			n = read_log(sb->log_pipe[0], discard, sizeof(discard), &writer);
		else
			n = read_log(sb->log_pipe[0], rs->log + rs->log_len, room, &writer);
		if (n > 0 && room > 0) {
			rs->log_len += (size_t)n;
			take_exec_marker(rs, writer);
			take_first_mount(rs);
			if (sb->timing.on)
				rs->log_len = timing_take_lines(&sb->timing, rs->log, rs->log_len);
		}
		if (n == 0) {
			rs->log_eof = true;
			close_fd(&sb->log_pipe[0]);
			return true;
		}
		if (n < 0)
			return false;
	}
}

/* ---- the first mount's word (hutch mode) ---- */

/* bwrap mode keeps bwrap's order: its first mount comes with the tree. */
bool setup_log_tells_first_mount(const struct sandbox *sb)
{
	return sb->plan->mode == MODE_HUTCH;
}

int setup_log_first_mount(struct sandbox *sb, int err)
{
	char line[32];
	int len = snprintf(line, sizeof(line), FIRST_MOUNT "%d\n", err);

	if (sb->log_pipe[1] < 0 || write(sb->log_pipe[1], line, (size_t)len) != len)
		return -1;
	return 0;
}

/* pid 1 may write the word and exit at once (its mount refused): what it
 * wrote is in the log before its pidfd says it ended, so the log is read
 * once more after.  A process outside holding the log's write end (the
 * fault build's leak-log) never keeps this waiting: pid 1's end does. */
int setup_log_wait_first_mount(struct sandbox *sb)
{
	struct pollfd p[2] = {
		{ .fd = sb->log_pipe[0], .events = POLLIN },
		{ .fd = sb->pid1_fd, .events = POLLIN },
	};
	for (;;) {
		bool eof = setup_log_read(sb);

		if (sb->run.first_mount_told)
			return sb->run.first_mount_err;
		if (eof || sb->log_pipe[0] < 0 || (p[1].revents & POLLIN))
			return -1;
		p[0].fd = sb->log_pipe[0];
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return -1;
	}
}
