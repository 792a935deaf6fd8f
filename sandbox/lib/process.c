/* Process helpers below the stages: clone with a pidfd (every process
 * hutch makes is pinned by a pidfd from birth, so that no signal meant
 * for it can reach a recycled pid), what /proc says of a process, and
 * the monotonic clock the deadlines count on. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "process.h"

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

int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

const char *proc_stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64];
	const char *paren;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] ? paren + 2 : NULL;
}

pid_t proc_parent_of(pid_t pid)
{
	char buf[1024];
	const char *f = proc_stat_fields(pid, buf, sizeof(buf));
	int ppid = -1;

	return f && sscanf(f, "%*c %d", &ppid) == 1 ? ppid : -1;
}

unsigned long long proc_start_time(pid_t pid)
{
	char buf[1024];
	const char *f = proc_stat_fields(pid, buf, sizeof(buf));
	unsigned long long t = 0;

	if (f && sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			"%*d %*d %*d %*d %llu", &t) != 1)
		t = 0;
	return t;
}

long proc_read_number(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

bool die_with(pid_t parent)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent;
}

double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void timer_arm_at(int timer, double *armed_for, double next)
{
	struct itimerspec its = { 0 };
	double delta;

	if (next == *armed_for)
		return;
	*armed_for = next;
	if (next > 0) {
		delta = next - monotonic_now();
		if (delta < 0.001)
			delta = 0.001;
		its.it_value.tv_sec = (time_t)delta;
		its.it_value.tv_nsec = (long)((delta - (double)(time_t)delta) * 1e9);
	}
	timerfd_settime(timer, 0, &its, NULL);
}
