/* tcpconnect ADDR PORT [nonblock]: a raw TCP client for t_netconnect.sh,
 * which reads no proxy variable.  Connects to ADDR (a literal IPv4 or
 * IPv6 address) with connect(), blocking or not (then poll), checks
 * that the fd kept its flags (O_NONBLOCK as made, FD_CLOEXEC set), sends
 * "GET /hello" and prints "connected: " and the first line of the
 * answer, or "errno N" when connect() fails. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static socklen_t address(const char *text, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		return sizeof(*sin6);
	}
	fprintf(stderr, "tcpconnect: %s: not an address\n", text);
	exit(2);
}

/* connect(), waiting for a non-blocking one: 0 or an errno. */
static int connect_and_wait(int fd, const struct sockaddr_storage *ss, socklen_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int error = 0;
	socklen_t elen = sizeof(error);

	if (connect(fd, (const struct sockaddr *)ss, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	if (poll(&pfd, 1, 5000) != 1)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &elen) < 0)
		return errno;
	return error;
}

int main(int argc, char **argv)
{
	static const char req[] = "GET /hello HTTP/1.0\r\n\r\n";
	struct sockaddr_storage ss;
	bool nonblock = argc > 3 && strcmp(argv[3], "nonblock") == 0;
	socklen_t len;
	char buf[256];
	ssize_t n;
	int fd, e;

	if (argc < 3) {
		fprintf(stderr, "usage: tcpconnect ADDR PORT [nonblock]\n");
		return 2;
	}
	len = address(argv[1], atoi(argv[2]), &ss);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return perror("socket"), 1;
	e = connect_and_wait(fd, &ss, len);
	if (e) {
		printf("errno %d\n", e);
		return 0;
	}
	if (!!(fcntl(fd, F_GETFL) & O_NONBLOCK) != nonblock || !(fcntl(fd, F_GETFD) & FD_CLOEXEC)) {
		printf("flags changed\n");
		return 1;
	}
	if (nonblock)
		(void)fcntl(fd, F_SETFL, 0);
	if (write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1)
		return perror("write"), 1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return perror("read"), 1;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	printf("connected: %s\n", buf);
	return 0;
}
