/* tool_proto_ns: namespaces to join, for --userns, --userns2 and --pidns.
 *
 * Enters a new user namespace (this uid mapped to 0) with a new pid
 * namespace, forks its pid 1, which makes a nested user namespace (0
 * mapped to 0).  Prints one line, "USERNS PIDNS USERNS2" as /proc paths,
 * once everything is in place, then waits until its stdin reaches EOF. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

/* Map 0 in a new user namespace to OUTSIDE_UID and OUTSIDE_GID. */
static void enter_userns(unsigned outside_uid, unsigned outside_gid, int extra)
{
	char map[64];

	if (unshare(CLONE_NEWUSER | extra) < 0)
		die("unshare");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1\n", outside_uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1\n", outside_gid);
	write_file("/proc/self/gid_map", map);
}

int main(void)
{
	int ready[2];
	pid_t child;
	char c;

	enter_userns(geteuid(), getegid(), CLONE_NEWPID);
	if (pipe(ready) < 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(ready[0]);
		enter_userns(0, 0, 0);
		close(ready[1]);
		while (read(STDIN_FILENO, &c, 1) > 0)
			;
		return 0;
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 0)
		die("ready");
	printf("/proc/%d/ns/user /proc/%d/ns/pid /proc/%d/ns/user\n", getpid(), child, child);
	fflush(stdout);
	close(STDIN_FILENO);
	waitpid(child, NULL, 0);
	return 0;
}
