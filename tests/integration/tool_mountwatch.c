/* mountwatch: count mount events in the caller's mount namespace while
 * a command runs (t_seal.sh).
 *
 *   mountwatch CMD...
 *
 * Opens /proc/self/mountinfo, runs CMD, and polls the mountinfo fd for
 * POLLPRI (the kernel raises it on every mount, unmount or propagation
 * change in this namespace) together with CMD's pidfd.  Each event is
 * counted and re-armed by reading the file again.  Once CMD has exited:
 * "events N status S" on stdout; exit 0, or 2 on a set-up error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "mountwatch: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Reading the whole file acknowledges the event. */
static void rearm(int fd)
{
	char buf[65536];

	lseek(fd, 0, SEEK_SET);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int count_events(int mountinfo, int pidfd)
{
	struct pollfd p[2] = { { mountinfo, POLLPRI, 0 }, { pidfd, POLLIN, 0 } };
	int events = 0;

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		if (p[0].revents & (POLLPRI | POLLERR)) {
			events++;
			rearm(mountinfo);
		}
		if (p[1].revents & POLLIN) {
			/* A last look, for an event just before the end. */
			if (poll(p, 1, 0) > 0 && (p[0].revents & (POLLPRI | POLLERR)))
				events++;
			return events;
		}
	}
}

int main(int argc, char **argv)
{
	int mountinfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	int status, events, pidfd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: mountwatch CMD...\n");
		return 2;
	}
	if (mountinfo < 0)
		die("/proc/self/mountinfo");
	rearm(mountinfo);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		die("exec");
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pid < 0 || pidfd < 0)
		die("fork");
	events = count_events(mountinfo, pidfd);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	printf("events %d status %d\n", events,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
