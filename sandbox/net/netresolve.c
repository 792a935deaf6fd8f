/* Host-side name lookups for the proxy and --doctor.  A lookup may
 * wait for seconds on a DNS server, and the supervisor must never wait:
 * each lookup runs in a child of its own that writes one fixed-size
 * answer (smaller than PIPE_BUF, so one atomic write) and exits.  The
 * child keeps no fd but its pipe: it must hold neither the sandbox's
 * control pipe (teardown waits for its last writer) nor a client's
 * socket. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netresolve.h"
#include "lib/lib.h"

#define PROBE_NAME "example.com"
#define PROBE_PORT 443

_Static_assert(sizeof(struct net_answer) < PIPE_BUF, "one atomic write");

static struct net_addr addr_of(const struct sockaddr *sa)
{
	struct net_addr a = { .family = AF_UNSPEC };
	char text[INET6_ADDRSTRLEN];
	const void *bytes = sa->sa_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	/* Through text: netrule_addr_parse makes ::ffff:a.b.c.d an IPv4 address. */
	if ((sa->sa_family == AF_INET || sa->sa_family == AF_INET6) &&
	    inet_ntop(sa->sa_family, bytes, text, sizeof(text)) &&
	    netrule_addr_parse(text, &a) == 0)
		return a;
	a.family = AF_UNSPEC;
	return a;
}

static bool already_in(const struct net_answer *ans, const struct net_addr *a)
{
	for (int i = 0; i < ans->n; i++)
		if (netrule_addr_equal(&ans->addrs[i], a))
			return true;
	return false;
}

/* getent(1) does the lookup: linked against the system's libc, it sees
 * every NSS module nsswitch.conf names (mdns, systemd-resolved), which
 * hutch, linked statically, cannot load (util.h). */
static const char *const getent_paths[] = { "/usr/bin/getent", "/bin/getent" };

/* The lookup child's own child: getent ahosts HOST, its output on OUT.
 * It dies with the lookup child, which is killed at its deadline.  HOST
 * may come from the sandbox (a request's name): after "--" it is never
 * an option, and no shell sees it. */
static void exec_getent(const char *host, int out, pid_t parent)
{
	char *const argv[] = { "getent", "ahosts", "--", (char *)host, NULL };

	if (!die_with(parent) || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	for (size_t i = 0; i < sizeof(getent_paths) / sizeof(getent_paths[0]); i++)
		execve(getent_paths[i], argv, environ);
	execvp("getent", argv);	/* where the system keeps it elsewhere (NixOS) */
	_exit(127);
}

/* getent's lines, "ADDRESS STREAM|DGRAM|RAW [NAME]": each address once. */
static void parse_getent(char *text, struct net_answer *ans)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line && ans->n < NET_MAX_ADDRS;
	     line = strtok_r(NULL, "\n", &save)) {
		char addr[64], type[16];
		struct net_addr a;

		if (sscanf(line, "%63s %15s", addr, type) == 2 && strcmp(type, "STREAM") == 0 &&
		    netrule_addr_parse(addr, &a) == 0 && !already_in(ans, &a))
			ans->addrs[ans->n++] = a;
	}
}

static void resolve(const char *host, struct net_answer *ans)
{
	char *out = NULL;
	pid_t parent = getpid(), pid;
	int p[2], status = 0;

	memset(ans, 0, sizeof(*ans));
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(ans->why, sizeof(ans->why), "cannot run getent: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0)
		exec_getent(host, p[1], parent);
	close(p[1]);
	if (pid > 0)
		out = read_text_fd(p[0]);	/* to its end: no line cut short */
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		snprintf(ans->why, sizeof(ans->why), "cannot run getent: %s", strerror(errno));
		free(out);
		return;
	}
	if (out)
		parse_getent(out, ans);
	free(out);
	if (ans->n > 0)
		return;
	if (!WIFEXITED(status))
		snprintf(ans->why, sizeof(ans->why), "getent ended without an answer");
	else if (WEXITSTATUS(status) == 2)
		snprintf(ans->why, sizeof(ans->why), "Name or service not known");
	else if (WEXITSTATUS(status) == 127)
		snprintf(ans->why, sizeof(ans->why), "cannot run getent (%s, %s, nor in PATH)",
			 getent_paths[0], getent_paths[1]);
	else
		snprintf(ans->why, sizeof(ans->why), "no address");
}

/* The child's first acts: die with the supervisor, keep only OUT. */
static void become_lookup_child(int out, pid_t parent)
{
	if (!die_with(parent))
		_exit(1);
	if (out > 3)
		syscall(SYS_close_range, 3, out - 1, 0);
	syscall(SYS_close_range, out + 1, ~0U, 0);
}

int net_lookup_start(const char *host, int *pipe_fd, int *pidfd)
{
	pid_t parent = getpid(), pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	pid = clone_with_pidfd(0, pidfd, -1);
	if (pid == 0) {
		struct net_answer ans;

		become_lookup_child(p[1], parent);
		resolve(host, &ans);
		_exit(write(p[1], &ans, sizeof(ans)) == (ssize_t)sizeof(ans) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0) {
		int saved = errno;

		close(p[0]);
		errno = saved;
		return -1;
	}
	*pipe_fd = p[0];
	return 0;
}

int net_lookup_read(int pipe_fd, struct net_answer *answer)
{
	ssize_t n = read(pipe_fd, answer, sizeof(*answer));

	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n == (ssize_t)sizeof(*answer) && answer->n >= 0 && answer->n <= NET_MAX_ADDRS) {
		answer->why[sizeof(answer->why) - 1] = '\0';
		return 1;
	}
	memset(answer, 0, sizeof(*answer));
	snprintf(answer->why, sizeof(answer->why), "the resolver ended without an answer");
	return -1;
}

bool net_lookup_end(int pidfd, bool wait)
{
	siginfo_t si;

	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	memset(&si, 0, sizeof(si));
	/* Killed, it ends at once; WNOHANG unless the caller can wait. */
	if (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | (wait ? 0 : WNOHANG)) < 0)
		return errno == ECHILD;
	return si.si_pid != 0;
}

size_t net_own_addresses(struct net_addr *out, size_t max)
{
	struct ifaddrs *ifs = NULL;
	size_t n = 0;

	if (getifaddrs(&ifs) < 0)
		return 0;
	for (struct ifaddrs *i = ifs; i && n < max; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		out[n] = addr_of(i->ifa_addr);
		if (out[n].family != AF_UNSPEC)
			n++;
	}
	freeifaddrs(ifs);
	return n;
}

/* ---- --doctor ---- */

struct probe_answer {
	int stage;		/* 0 reached, 1 no name, 2 no connection */
	char text[200];
};

static void probe_in_child(struct probe_answer *out)
{
	struct net_answer ans;
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	char addr[64];
	int fd;

	resolve(PROBE_NAME, &ans);
	if (ans.n == 0) {
		out->stage = 1;
		snprintf(out->text, sizeof(out->text), "%s does not resolve (%s)", PROBE_NAME,
			 ans.why);
		return;
	}
	netrule_addr_format(&ans.addrs[0], addr, sizeof(addr));
	if (ans.addrs[0].family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(PROBE_PORT);
		memcpy(&sin->sin_addr, ans.addrs[0].bytes, 4);
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(PROBE_PORT);
		memcpy(&sin6->sin6_addr, ans.addrs[0].bytes, 16);
		len = sizeof(*sin6);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) < 0) {
		out->stage = 2;
		snprintf(out->text, sizeof(out->text), "%s resolves (%s) but port %d does not "
			 "answer (%s)", PROBE_NAME, addr, PROBE_PORT, strerror(errno));
		return;
	}
	snprintf(out->text, sizeof(out->text), "%s resolves (%s) and port %d answers",
		 PROBE_NAME, addr, PROBE_PORT);
}

bool net_probe_host(double seconds, char *detail, size_t len)
{
	struct probe_answer ans = { .stage = 1 };
	double start = monotonic_now();
	pid_t parent = getpid(), pid;
	int p[2], pidfd = -1;
	struct pollfd pfd;
	int ready;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = clone_with_pidfd(0, &pidfd, -1)) < 0) {
		snprintf(detail, len, "cannot start the probe: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		become_lookup_child(p[1], parent);
		probe_in_child(&ans);
		_exit(write(p[1], &ans, sizeof(ans)) == (ssize_t)sizeof(ans) ? 0 : 1);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	ready = poll(&pfd, 1, (int)(seconds * 1000));
	if (ready == 1 && read(p[0], &ans, sizeof(ans)) == (ssize_t)sizeof(ans)) {
		ans.text[sizeof(ans.text) - 1] = '\0';
		snprintf(detail, len, "%s (%.0f ms)", ans.text, (monotonic_now() - start) * 1000);
	} else {
		ans.stage = 1;
		snprintf(detail, len, "no answer for %s:%d within %gs", PROBE_NAME, PROBE_PORT,
			 seconds);
	}
	close(p[0]);
	net_lookup_end(pidfd, true);
	close(pidfd);
	return ans.stage == 0;
}
