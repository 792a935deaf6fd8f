/* Fault injection (hutch-fault only): HUTCH_FAULT=STAGE:MODE.
 *   fail             the stage fails as if its first operation had
 *   kill-supervisor  SIGKILL the supervisor just before the stage
 *   kill-child       SIGKILL the sandbox's set-up process just before it
 *   leak-log         fork a process outside the sandbox that holds the
 *                    log pipe's write end open (before clone only) */
#ifdef HUTCH_FAULT
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "sandbox.h"

static const char *fault_mode(const struct stage *stage)
{
	const char *spec = getenv("HUTCH_FAULT");
	size_t len = strlen(stage->name);

	if (!spec || strncmp(spec, stage->name, len) != 0 || spec[len] != ':')
		return NULL;
	return spec + len + 1;
}


static void kill_self(void)
{
	/* pid 1 of a namespace ignores its own SIGKILL; exit_group is the
	 * same abrupt end: no cleanup code of ours runs. */
	if (getpid() == 1)
		syscall(SYS_exit_group, 128 + SIGKILL);
	raise(SIGKILL);
}

static void kill_supervisor(struct sandbox *sb, const struct stage *stage)
{
	if (stage->who == WHO_SUPERVISOR) {
		raise(SIGKILL);
		return;
	}
	if (sb->fault_supervisor_fd >= 0)
		syscall(SYS_pidfd_send_signal, sb->fault_supervisor_fd, SIGKILL, NULL, 0);
}

static void kill_child(struct sandbox *sb, const struct stage *stage)
{
	if (stage->who != WHO_SUPERVISOR)
		kill_self();
	else if (sb->pid1_fd >= 0)
		syscall(SYS_pidfd_send_signal, sb->pid1_fd, SIGKILL, NULL, 0);
}

/* A process outside the sandbox that holds the log pipe and sleeps: the
 * supervisor must not wait for its EOF (runc's hang). */
static void leak_log(struct sandbox *sb)
{
	pid_t pid;

	if (sb->log_pipe[1] < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int fd = dup(sb->log_pipe[1]);	/* dup drops close-on-exec */

		(void)fd;
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
}

int fault_point(struct sandbox *sb, const struct stage *stage)
{
	const char *mode = fault_mode(stage);

	if (stage->who == WHO_SUPERVISOR && sb->fault_supervisor_fd < 0)
		sb->fault_supervisor_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (!mode)
		return 0;
	if (strcmp(mode, "fail") == 0) {
		snprintf(sb->err, sizeof(sb->err), "%s: fault injection: injected failure",
			 stage->name);
		return -1;
	}
	if (strcmp(mode, "kill-supervisor") == 0)
		kill_supervisor(sb, stage);
	else if (strcmp(mode, "kill-child") == 0)
		kill_child(sb, stage);
	else if (strcmp(mode, "leak-log") == 0)
		leak_log(sb);
	return 0;
}
#endif
