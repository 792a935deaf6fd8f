/* exeprobe: what code inside a sandbox can do to the binaries behind
 * /proc/PID/exe (t_seal.sh).  One line of output per probe.
 *
 *   exeprobe write PATH...     open each PATH for writing
 *   exeprobe open read|path PATH
 *                              open PATH read-only or with O_PATH
 *   exeprobe ptrace PID        PTRACE_ATTACH to PID (and detach)
 *   exeprobe send SOCK PATH... open each PATH with O_PATH and send the fds
 *                              over the unix socket SOCK (SCM_RIGHTS),
 *                              with a line per PATH: "ok" or why not
 *   exeprobe recv SOCK CMD...  bind SOCK, run CMD, take what is sent
 *                              while it runs; once CMD has exited, reopen
 *                              each fd through /proc/self/fd/N for writing
 *                              and write a byte: CVE-2019-5736's move.
 * Exit: 0, or 2 on a usage or set-up error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FDS 16

static int die(const char *what)
{
	fprintf(stderr, "exeprobe: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void report(const char *what, int ok)
{
	printf("%s: %s\n", what, ok ? "ok" : strerror(errno));
}

static int probe_write(int n, char **paths)
{
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_WRONLY | O_CLOEXEC);

		report(paths[i], fd >= 0);
	}
	return 0;
}

static int probe_open(const char *mode, const char *path)
{
	int flags = strcmp(mode, "path") == 0 ? O_PATH : O_RDONLY;

	report(path, open(path, flags | O_CLOEXEC) >= 0);
	return 0;
}

static int probe_ptrace(const char *pid_text)
{
	pid_t pid = (pid_t)atoi(pid_text);
	char what[64];
	int ok = ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0;

	snprintf(what, sizeof(what), "ptrace %d", pid);
	report(what, ok);
	if (ok) {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	return 0;
}

static struct sockaddr_un sock_addr(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	return addr;
}

/* One message: the text "PATH\tok|reason\n" for each PATH, and the fds
 * of those opened, in order. */
static int probe_send(const char *sock, int n, char **paths)
{
	char text[4096] = "", cbuf[CMSG_SPACE(sizeof(int) * MAX_FDS)] = { 0 };
	int fds[MAX_FDS], nfds = 0, s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = sock_addr(sock);
	struct iovec iov = { text, 0 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t len = 0;

	if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect");
	for (int i = 0; i < n && i < MAX_FDS; i++) {
		int fd = open(paths[i], O_PATH | O_CLOEXEC);

		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\t%s\n", paths[i],
					fd >= 0 ? "ok" : strerror(errno));
		if (fd >= 0)
			fds[nfds++] = fd;
	}
	iov.iov_len = len;
	if (nfds > 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	if (sendmsg(s, &msg, 0) < 0)
		die("sendmsg");
	printf("sent %d fd%s\n", nfds, nfds == 1 ? "" : "s");
	return 0;
}

struct received {
	char text[4096];
	int fds[MAX_FDS];
	int nfds;
};

static void take_message(int listener, struct received *r)
{
	char cbuf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	struct iovec iov = { r->text, sizeof(r->text) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	ssize_t n;

	if (s < 0)
		die("accept");
	n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0)
		die("recvmsg");
	r->text[n] = '\0';
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			r->nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(r->fds, CMSG_DATA(c), sizeof(int) * (size_t)r->nfds);
		}
	close(s);
}

/* After CMD is gone: reopen each fd received for writing, write a byte. */
static void reopen_all(struct received *r)
{
	int next = 0;

	for (char *save = NULL, *line = strtok_r(r->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t'), proc[64], what[4200];
		int fd;

		if (tab)
			*tab = '\0';
		if (!tab || strcmp(tab + 1, "ok") != 0 || next >= r->nfds) {
			printf("%s: not sent: %s\n", line, tab ? tab + 1 : "?");
			continue;
		}
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", r->fds[next++]);
		fd = open(proc, O_WRONLY | O_CLOEXEC);
		snprintf(what, sizeof(what), "%s: reopen for writing", line);
		report(what, fd >= 0);
		if (fd >= 0) {
			snprintf(what, sizeof(what), "%s: write", line);
			report(what, write(fd, "X", 1) == 1);
		}
	}
}

static int probe_recv(const char *sock, char **cmd)
{
	struct sockaddr_un addr = sock_addr(sock);
	struct received r = { .nfds = 0 };
	int status, listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct pollfd p[2] = { { listener, POLLIN, 0 }, { -1, POLLIN, 0 } };
	pid_t pid;

	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(listener, 1) < 0)
		die("bind");
	pid = fork();
	if (pid == 0) {
		execvp(cmd[0], cmd);
		die("exec");
	}
	p[1].fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pid < 0 || p[1].fd < 0)
		die("fork");
	/* A message, or CMD's end: whichever comes first (then one look
	 * more, for a message sent just before the end). */
	if (poll(p, 2, -1) > 0 && !(p[0].revents & POLLIN))
		poll(p, 1, 0);
	if (p[0].revents & POLLIN)
		take_message(listener, &r);
	else
		strcpy(r.text, "(nothing)\tnot sent\n");
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	printf("status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	reopen_all(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(cmd, "write") == 0)
		return probe_write(argc - 2, argv + 2);
	if (strcmp(cmd, "open") == 0 && argc == 4)
		return probe_open(argv[2], argv[3]);
	if (strcmp(cmd, "ptrace") == 0 && argc == 3)
		return probe_ptrace(argv[2]);
	if (strcmp(cmd, "send") == 0 && argc >= 4)
		return probe_send(argv[2], argc - 3, argv + 3);
	if (strcmp(cmd, "recv") == 0 && argc >= 4)
		return probe_recv(argv[2], argv + 3);
	fprintf(stderr, "usage: exeprobe write|open|ptrace|send|recv ...\n");
	return 2;
}
