/* Fault injection (hutch-fault only): HUTCH_FAULT=STAGE:MODE.
 *   fail             the stage fails as if its first operation had
 *   kill-supervisor  SIGKILL the supervisor just before the stage
 *   kill-child       SIGKILL the sandbox's set-up process just before it
 *   leak-log         fork a process outside the sandbox that holds the
 *                    log pipe's write end open (before clone only)
 * and HUTCH_FAULT=lacks:FEATURE, a kernel without FEATURE, and
 * HUTCH_FAULT=refuse:MOUNT:ERRNO, a mount refused, and
 * HUTCH_FAULT=landlock-abi:N, an older Landlock (fault.h). */
#ifdef HUTCH_FAULT
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "sandbox.h"

/* HUTCH_FAULT names a set-up stage with kill-supervisor. */
static bool fault_needs_killer(void)
{
	const char *spec = getenv("HUTCH_FAULT");

	const struct stage_table *tables[] = { &stages_namespace, &stages_fallback };

	if (!spec || !strstr(spec, ":kill-supervisor"))
		return false;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (int i = 0; i < tables[t]->count; i++) {
			const struct stage *s = &tables[t]->rows[i];

			if (s->who != WHO_SUPERVISOR && strncmp(spec, s->name, strlen(s->name)) == 0 &&
			    spec[strlen(s->name)] == ':')
				return true;
		}
	return false;
}

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

/* A process inside a pid namespace cannot signal one outside it, so a
 * set-up stage asks a killer forked by the supervisor (outside) to do it:
 * one byte on a pipe.  The killer exits at EOF when nobody asked. */
static void start_killer(struct sandbox *sb)
{
	pid_t supervisor = getpid();
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	if (fork() == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			kill(supervisor, SIGKILL);
		_exit(0);
	}
	close(p[0]);
	sb->fault_supervisor_fd = p[1];
}

static void kill_supervisor(struct sandbox *sb, const struct stage *stage)
{
	if (stage->who == WHO_SUPERVISOR) {
		raise(SIGKILL);
		return;
	}
	if (sb->fault_supervisor_fd >= 0 && write(sb->fault_supervisor_fd, "k", 1) == 1) {
		char c;
		int sig = 0;

		/* Wait here for the death signal: EOF once hutch is gone,
		 * which needs our own copy of the write end closed first
		 * (still open before the deathsig stage). */
		if (sb->control_pipe[1] >= 0) {
			close(sb->control_pipe[1]);
			sb->control_pipe[1] = -1;
		}
		if (read(sb->control_pipe[0], &c, 1) < 0)
			return;
		/* EOF comes before the parent death signal: without a pid
		 * namespace (the fallback) nothing else would end what this
		 * process forks meanwhile, so wait for that signal here. */
		if (sb->fallback && prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig != 0)
			for (;;)
				pause();
	}
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

/* Wait, just before the stage, until the test writes a byte into the
 * FIFO HUTCH_FAULT_HOLD: the moment a race with set-up would need. */
static void hold(void)
{
	const char *fifo = getenv("HUTCH_FAULT_HOLD");
	int fd = fifo ? open(fifo, O_RDONLY | O_CLOEXEC) : -1;
	char c;

	if (fd >= 0) {
		if (read(fd, &c, 1) < 0)
			c = 0;
		close(fd);
	}
}

bool fault_kernel_lacks(const char *feature)
{
	const char *spec = getenv("HUTCH_FAULT");

	return spec && strncmp(spec, "lacks:", 6) == 0 && strcmp(spec + 6, feature) == 0;
}

int fault_mount_refused(const char *mount)
{
	static const struct { const char *name; int err; } errs[] = {
		{ "EPERM", EPERM }, { "EACCES", EACCES }, { "EINVAL", EINVAL },
	};
	const char *spec = getenv("HUTCH_FAULT");
	size_t len = strlen(mount);

	if (!spec || strncmp(spec, "refuse:", 7) != 0 || strncmp(spec + 7, mount, len) != 0 ||
	    spec[7 + len] != ':')
		return 0;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (strcmp(spec + 8 + len, errs[i].name) == 0)
			return errs[i].err;
	return 0;
}

/* The kernel's Landlock ABI, or N of HUTCH_FAULT=landlock-abi:N where
 * that is lower: never more than the kernel has. */
int fault_landlock_abi(int abi)
{
	const char *spec = getenv("HUTCH_FAULT");
	char *end;
	long n;

	if (!spec || strncmp(spec, "landlock-abi:", 13) != 0)
		return abi;
	n = strtol(spec + 13, &end, 10);
	if (end == spec + 13 || *end != '\0' || n < 0 || n >= abi)
		return abi;
	return (int)n;
}

int fault_point(struct sandbox *sb, const struct stage *stage)
{
	const char *mode;

	/* First of the supervisor's stages: the killer a set-up stage needs. */
	if (stage == &stages_namespace.rows[0] && fault_needs_killer())
		start_killer(sb);
	mode = fault_mode(stage);
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
	else if (strcmp(mode, "hold") == 0)
		hold();
	return 0;
}
#endif
