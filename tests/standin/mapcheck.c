/* The stand-in's own checks of what Ubuntu does (TEST-ONLY): a child
 * makes a user namespace; the child tries to write its own uid_map and
 * to unshare a mount namespace; the parent, outside, writes the child's
 * map.  One line per step: "STEP ok" or "STEP errno-name". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *result(int r)
{
	return r == 0 ? "ok" : errno == EPERM ? "EPERM" : errno == EACCES ? "EACCES" : strerror(errno);
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r = fd < 0 ? -1 : (write(fd, text, strlen(text)) < 0 ? -1 : 0);
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return r;
}

static void child(int ready, int go, unsigned uid)
{
	char map[32], c;

	snprintf(map, sizeof(map), "0 %u 1", uid);
	printf("unshare-user %s\n", result(unshare(CLONE_NEWUSER)));
	printf("own-uid-map %s\n", result(write_text("/proc/self/uid_map", map)));
	fflush(stdout);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	printf("mapped-uid %u\n", (unsigned)getuid());
	printf("unshare-mount %s\n", result(unshare(CLONE_NEWNS)));
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	int ready[2], go[2];
	char path[64], map[32], c;
	unsigned uid = getuid();
	pid_t pid;

	if (pipe(ready) < 0 || pipe(go) < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(ready[1], go[0], uid);
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "0 %u 1", uid);
	printf("parent-uid-map %s\n", result(write_text(path, map)));
	fflush(stdout);
	if (write(go[1], "g", 1) != 1)
		return 1;
	waitpid(pid, NULL, 0);
	return 0;
}
