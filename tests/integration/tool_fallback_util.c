/* Helpers for t_fallback.sh, one program with four verbs:
 *
 *   tool docker CMD...        run CMD the way Docker's default seccomp profile
 *                             would: clone3 fails with ENOSYS, clone with a
 *                             namespace flag, unshare, setns, keyctl, add_key
 *                             and request_key with EPERM
 *   tool refuse CALL[:ARG:MASK] HOW CMD...
 *                             run CMD under a filter that allows all but
 *                             CALL (only with every bit of MASK set in
 *                             argument ARG, if given), which fails with
 *                             errno HOW (a number) or, HOW "kill", kills
 *                             the process
 *   tool inet-fd FD CMD...    run CMD with an unconnected TCP socket on FD
 *   tool connect PORT [FD]    connect to 127.0.0.1:PORT (on FD, or on a new
 *                             AF_INET socket); print what failed, or "connected"
 *   tool listen               listen on 127.0.0.1, print the port, accept
 *                             until stdin reaches EOF
 *   tool socket FAMILY        socket(FAMILY) for inet, inet6, packet, netlink
 *
 * Build: gcc -o tool tool_fallback_util.c -lseccomp */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "tool: %s: %s\n", what, strerror(errno));
	return 2;
}

/* Docker's profile refuses these to a container without CAP_SYS_ADMIN. */
static int docker(char **argv)
{
	static const int ns_flags[] = {
		CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
		CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = ctx ? 0 : -1;

	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(keyctl), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(add_key), 0);
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(request_key), 0);
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
	if (rc != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
		return die("seccomp filter");
	execvp(argv[0], argv);
	return die(argv[0]);
}

/* A sandbox around hutch whose filter refuses one call only. */
static int refuse(const char *spec, const char *how, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	char call[64];
	unsigned arg = 0;
	unsigned long long mask = 0;
	int nr, rc;
	uint32_t action = strcmp(how, "kill") == 0 ? SCMP_ACT_KILL_PROCESS :
			  SCMP_ACT_ERRNO((uint32_t)atoi(how));

	if (sscanf(spec, "%63[a-z0-9_]:%u:%lli", call, &arg, &mask) < 1 || arg > 5)
		return die("refuse: CALL[:ARG:MASK]");
	nr = seccomp_syscall_resolve_name(call);
	if (!ctx || nr == __NR_SCMP_ERROR)
		return die("seccomp filter");
	if (mask)
		rc = seccomp_rule_add(ctx, action, nr, 1,
				      (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ, mask, mask });
	else
		rc = seccomp_rule_add(ctx, action, nr, 0);
	if (rc < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
		return die("seccomp filter");
	execvp(argv[0], argv);
	return die(argv[0]);
}

static int inet_fd(int fd, char **argv)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || dup2(s, fd) < 0)
		return die("socket");
	execvp(argv[0], argv);
	return die(argv[0]);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sa;
}

static int do_connect(int port, int fd)
{
	struct sockaddr_in sa = loopback(port);

	if (fd < 0 && (fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("connect: %s\n", strerror(errno));
		return 1;
	}
	printf("connected\n");
	return 0;
}

static int do_listen(void)
{
	struct sockaddr_in sa = loopback(0);
	socklen_t len = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0)
		return die("listen");
	printf("%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		struct pollfd fds[2] = { { .fd = 0, .events = POLLIN }, { .fd = s, .events = POLLIN } };

		if (poll(fds, 2, -1) < 0)
			return die("poll");
		if (fds[0].revents)
			return 0;
		if (fds[1].revents) {
			int c = accept(s, NULL, NULL);

			if (c >= 0)
				close(c);
		}
	}
}

static int do_socket(const char *name)
{
	static const struct { const char *name; int family; } families[] = {
		{ "inet", AF_INET }, { "inet6", AF_INET6 }, { "packet", AF_PACKET },
		{ "netlink", AF_NETLINK }, { "unix", AF_UNIX },
	};

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (strcmp(name, families[i].name) != 0)
			continue;
		if (socket(families[i].family, SOCK_DGRAM, 0) < 0) {
			printf("socket %s: %s\n", name, strerror(errno));
			return 1;
		}
		printf("socket %s: ok\n", name);
		return 0;
	}
	fprintf(stderr, "tool: unknown family %s\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "docker") == 0)
		return docker(argv + 2);
	if (argc >= 5 && strcmp(argv[1], "refuse") == 0)
		return refuse(argv[2], argv[3], argv + 4);
	if (argc >= 4 && strcmp(argv[1], "inet-fd") == 0)
		return inet_fd(atoi(argv[2]), argv + 3);
	if (argc >= 3 && strcmp(argv[1], "connect") == 0)
		return do_connect(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : -1);
	if (argc == 2 && strcmp(argv[1], "listen") == 0)
		return do_listen();
	if (argc == 3 && strcmp(argv[1], "socket") == 0)
		return do_socket(argv[2]);
	fprintf(stderr, "usage: tool docker|refuse|inet-fd|connect|listen|socket ...\n");
	return 2;
}
