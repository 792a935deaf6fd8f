/* Shared by the libFuzzer harnesses: parse_plan under guard.
 *
 * The harnesses link hutch's objects with -Wl,--wrap=open,read,write,close
 * so that every file the parser touches goes through the guards below:
 *  - parsing is pure (design invariant 8): an open for writing or any
 *    write() from hutch's code while parsing aborts, a finding;
 *  - a path the input names is opened only if it is a regular file or a
 *    directory (checked through O_PATH first, so a device, FIFO or tty is
 *    never opened for real and nothing blocks);
 *  - read() while parsing works only on fds the harness lent (an --args pipe) or that
 *    the parser opened itself: "--args 0" cannot read the fuzzer's stdin;
 *  - every fd the parser opened must be closed when parse_plan returns. */
#ifndef HUTCH_FUZZ_H
#define HUTCH_FUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse/parse.h"
#include "plan/plan.h"

#define FUZZ_MAX_FD 4096

enum { FD_NONE, FD_LENT, FD_OPENED };
static unsigned char fuzz_fds[FUZZ_MAX_FD];
static int fuzz_open_count;
static int fuzz_in_parse;

int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t len);
ssize_t __real_write(int fd, const void *buf, size_t len);
int __real_close(int fd);

static inline void fuzz_abort(const char *what)
{
	fprintf(stderr, "fuzz: parse broke its contract: %s\n", what);
	abort();
}

int __wrap_open(const char *path, int flags, ...)
{
	struct stat st;
	int fd;

	if (!fuzz_in_parse) {
		int mode = 0;

		if (flags & (O_CREAT | O_TMPFILE)) {
			va_list ap;

			va_start(ap, flags);
			mode = va_arg(ap, int);
			va_end(ap);
		}
		return __real_open(path, flags, mode);
	}
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)))
		fuzz_abort("open for writing");
	fd = __real_open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
		__real_close(fd);
		errno = EACCES;
		return -1;
	}
	__real_close(fd);
	fd = __real_open(path, flags | O_NONBLOCK);
	if (fd >= 0 && fd < FUZZ_MAX_FD) {
		fuzz_fds[fd] = FD_OPENED;
		fuzz_open_count++;
	}
	return fd;
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	if (fuzz_in_parse && (fd < 0 || fd >= FUZZ_MAX_FD || fuzz_fds[fd] == FD_NONE)) {
		errno = EBADF;
		return -1;
	}
	return __real_read(fd, buf, len);
}

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	if (fuzz_in_parse)
		fuzz_abort("write()");
	return __real_write(fd, buf, len);
}

int __wrap_close(int fd)
{
	if (fd >= 0 && fd < FUZZ_MAX_FD && fuzz_fds[fd] == FD_OPENED) {
		fuzz_fds[fd] = FD_NONE;
		fuzz_open_count--;
	}
	return __real_close(fd);
}

/* Let the parser read FD (an --args pipe); fuzz_unlend when done. */
static inline void fuzz_lend(int fd)
{
	if (fd >= 0 && fd < FUZZ_MAX_FD)
		fuzz_fds[fd] = FD_LENT;
}

static inline void fuzz_unlend(int fd)
{
	if (fd >= 0 && fd < FUZZ_MAX_FD)
		fuzz_fds[fd] = FD_NONE;
}

/* A fixed environment: HOME points nowhere, so no user profile is read. */
static char *fuzz_envp[] = {
	"HOME=/nonexistent/fuzz-home", "USER=fuzz", "PATH=/usr/bin:/bin",
	"TERM=dumb", "LANG=C.UTF-8", "XDG_RUNTIME_DIR=/run/user/0", NULL,
};

/* Parse ARGV as main() does, then free the plan and check for stray fds. */
static inline void fuzz_parse(int argc, char **argv)
{
	struct plan plan;
	char err[4096];

	fuzz_in_parse = 1;
	int r = parse_plan(&plan, argc, argv, fuzz_envp, err, sizeof(err));

	fuzz_in_parse = 0;
	if (getenv("FUZZ_VERBOSE"))	/* to see what an input does */
		fprintf(stderr, "parse_plan: %s, %zu ops\n", r < 0 ? err : "ok", plan.n_ops);
	plan_free(&plan);
	if (fuzz_open_count != 0)
		fuzz_abort("an fd it opened is still open");
}

/* Split DATA at NUL bytes into ARGV after ARGV0 (as --args does);
 * returns argc.  BUF (SIZE + 1 bytes) holds the strings, ARGV SIZE + 2. */
static inline int fuzz_split(const uint8_t *data, size_t size, char *buf, char **argv,
		      const char *argv0)
{
	int argc = 0;

	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)argv0;
	for (size_t off = 0; off < size; off += strlen(buf + off) + 1)
		argv[argc++] = buf + off;
	argv[argc] = NULL;
	return argc;
}

#endif
