#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pwd.h>
#include <strings.h>
#include <sys/socket.h>

#include "util.h"

/* Out of memory in a launcher leaves nothing sensible to do but stop:
 * nothing has been created yet when parsing allocates. */
static void out_of_memory(void)
{
	static const char msg[] = "hutch: memory: out of memory\n";

	fwrite(msg, 1, sizeof(msg) - 1, stderr);
	exit(125);
}

void *xreallocarray(void *ptr, size_t n, size_t size)
{
	void *p = reallocarray(ptr, n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		out_of_memory();
	return s;
}

const char *env_value(char *const *envp, const char *name)
{
	size_t len = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

struct passwd *caller_passwd(void)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw = NULL;
	uid_t uid = getuid();

	if (!f)
		return NULL;
	while ((pw = fgetpwent(f)) && pw->pw_uid != uid)
		;
	fclose(f);
	return pw;
}

char *caller_home(char *const *envp)
{
	const char *home = env_value(envp, "HOME");
	struct passwd *pw;

	if (home && *home)
		return xstrdup(home);
	pw = caller_passwd();
	return xstrdup(pw && pw->pw_dir ? pw->pw_dir : "/");
}

bool path_within(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

long long parse_uint(const char *s, long long max)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}

double parse_seconds(const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -1;
	return v;
}

double parse_duration(const char *s)
{
	static const struct { char unit; double seconds; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	size_t n = s ? strlen(s) : 0;
	char number[64];

	for (size_t i = 0; n > 1 && n < sizeof(number) && i < sizeof(units) / sizeof(units[0]); i++)
		if (s[n - 1] == units[i].unit) {
			double v;

			memcpy(number, s, n - 1);
			number[n - 1] = '\0';
			v = parse_seconds(number);
			return v < 0 ? -1 : v * units[i].seconds;
		}
	return parse_seconds(s);
}

ssize_t read_file_at(int dir, const char *name, char *buf, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

char *read_text_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = xreallocarray(NULL, cap, 1);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len == cap - 1)
			buf = xreallocarray(buf, cap *= 2, 1);
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

char *read_text_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	char *text;
	int saved;

	if (fd < 0)
		return NULL;
	text = read_text_fd(fd);
	saved = errno;
	close(fd);
	errno = saved;
	return text;
}

int write_file_at(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	if (n >= 0 && n != (ssize_t)strlen(text))
		errno = EIO;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

ssize_t send_with_fd(int sock, const void *data, size_t len, int fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

/* The first fd of MSG's SCM_RIGHTS messages; every other one closed. */
static int take_first_fd(struct msghdr *msg)
{
	int fd = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = got;
			else
				close(got);
		}
	}
	return fd;
}

ssize_t recv_with_fd(int sock, void *data, size_t len, int *fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	*fd = n >= 0 ? take_first_fd(&msg) : -1;
	return n;
}

/* "1024", "64K", "2M", "1G", "unlimited" */
int parse_amount(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (strcmp(s, "unlimited") == 0 || strcmp(s, "infinity") == 0) {
		*out = RLIM_INFINITY;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}
