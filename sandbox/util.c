#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <strings.h>

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

int write_file_at(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -1 : 0;
}
