/* Files hutch opens on the host by a path the caller gave (hostfile.h).
 * What it defends against: a sandbox that writes the tree such a path
 * lies in and plants, between two runs, a symbolic link there (hutch
 * would truncate and write the link's target, ~/.bashrc, outside the
 * sandbox), a FIFO (open() would block hutch before its timeout is even
 * armed, for good), a socket or a directory.  Reading checks the file
 * it opened, not the name; writing never opens an existing name. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hostfile.h"
#include "util.h"

#define TEMP_TRIES 8

const char *hostfile_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	default: return "of an unknown type";
	}
}

static const char *not_regular(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "not a regular file (a directory)";
	case S_IFIFO: return "not a regular file (a FIFO)";
	case S_IFSOCK: return "not a regular file (a socket)";
	case S_IFCHR: return "not a regular file (a character device)";
	case S_IFBLK: return "not a regular file (a block device)";
	default: return "not a regular file";
	}
}

/* Who may have written a file hutch reads: the caller or root. */
static bool owner_trusted(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

static int fail_with(const char **why, const char *text, int fd)
{
	if (fd >= 0)
		close(fd);
	*why = text;
	return -1;
}

/* The file an O_PATH fd stands for, opened for reading.  Through
 * /proc/self/fd the very inode checked is opened; without /proc, PATH
 * again, and the inode must be the same. */
static int reopen_for_reading(int path_fd, const char *path, const struct stat *st)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	char proc[64];
	struct stat again;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
	fd = open(proc, flags);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	fd = open(path, flags);
	if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev ||
			again.st_ino != st->st_ino)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

int hostfile_open_read(const char *path, struct stat *st, const char **why)
{
	/* O_PATH opens nothing: no FIFO waits, no device wakes up. */
	int path_fd = open(path, O_PATH | O_CLOEXEC);
	int fd;

	if (path_fd < 0 || fstat(path_fd, st) < 0)
		return fail_with(why, strerror(errno), path_fd);
	if (!S_ISREG(st->st_mode))
		return fail_with(why, not_regular(st->st_mode), path_fd);
	if (!owner_trusted(st))
		return fail_with(why, "owned by another user (neither you nor root)", path_fd);
	fd = reopen_for_reading(path_fd, path, st);
	if (fd < 0)
		return fail_with(why, strerror(errno), path_fd);
	close(path_fd);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		return fail_with(why, strerror(errno), fd);
	return fd;
}

/* All of FD, up to HOSTFILE_MAX_READ bytes, whatever its size says (a
 * file of /proc says 0); NULL and *WHY if there is more or a NUL. */
static char *read_bounded(int fd, size_t *len, const char **why)
{
	size_t cap = 4096;
	char *buf = xreallocarray(NULL, cap + 1, 1);
	ssize_t n;

	*len = 0;
	while ((n = read(fd, buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len > HOSTFILE_MAX_READ)
			break;
		if (*len == cap)
			buf = xreallocarray(buf, (cap *= 2) + 1, 1);
	}
	*why = n < 0 ? strerror(errno) : *len > HOSTFILE_MAX_READ ? "larger than 1 MiB" :
	       memchr(buf, '\0', *len) ? "holds a NUL byte" : NULL;
	if (*why) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

char *hostfile_read_small(const char *path, size_t *len, struct stat *st, const char **why)
{
	int fd = hostfile_open_read(path, st, why);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_bounded(fd, len, why);
	close(fd);
	return text;
}

/* ---- writing ---- */

/* PATH's directory, without a symbolic link in any component (the
 * sandbox may have replaced one with a link); *BASE its last one. */
static int open_parent(const char *path, const char **base, const char **why)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	const char *slash = strrchr(path, '/');
	char *dir = slash == path ? xstrdup("/") : slash ? xasprintf("%.*s", (int)(slash - path), path) :
		    xstrdup(".");
	int fd;

	*base = slash ? slash + 1 : path;
	if (!**base || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0) {
		free(dir);
		return fail_with(why, "names a directory, not a file", -1);
	}
	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	free(dir);
	if (fd < 0)
		return fail_with(why, errno == ELOOP ? "a symbolic link on the way to its "
				 "directory (refused: links are not followed)" : strerror(errno), -1);
	return fd;
}

/* What stands at NAME may be replaced: nothing, or what a sandbox can
 * plant there (a link, a FIFO, a socket, a file of the caller); never a
 * directory, a device or another user's file. */
static bool replaceable(int dir, const char *name, const char **why)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return true;
		*why = strerror(errno);
		return false;
	}
	if (S_ISDIR(st.st_mode))
		*why = "a directory stands there";
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		*why = "a device stands there";
	else if (S_ISREG(st.st_mode) && st.st_uid != geteuid())
		*why = "another user's file stands there";
	else
		return true;
	return false;
}

/* A new file of a name no one has in DIR; its name in NAME. */
static int create_temp(int dir, char name[64], const char **why)
{
	unsigned long long r;

	for (int i = 0; i < TEMP_TRIES; i++) {
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return fail_with(why, strerror(errno), -1);
		snprintf(name, 64, ".hutch-%016llx.tmp", r);
		/* O_EXCL|O_NOFOLLOW: a name that exists, link or not, is never opened. */
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
			    O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : fail_with(why, strerror(errno), -1);
	}
	return fail_with(why, strerror(EEXIST), -1);
}

int hostfile_create_fresh(const char *path, const char **why)
{
	char temp[64];
	const char *base;
	int dir = open_parent(path, &base, why), fd = -1;

	if (dir < 0)
		return -1;
	if (replaceable(dir, base, why) && (fd = create_temp(dir, temp, why)) >= 0 &&
	    renameat(dir, temp, dir, base) < 0) {
		*why = errno == EISDIR ? "a directory stands there" : strerror(errno);
		unlinkat(dir, temp, 0);
		close(fd);
		fd = -1;
	}
	close(dir);
	return fd;
}

static bool write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		text += n;
		len -= (size_t)n;
	}
	return true;
}

int hostfile_replace(const char *path, const char *text, size_t len, const char **why)
{
	char temp[64];
	const char *base;
	int dir = open_parent(path, &base, why), fd = -1, r = -1;

	if (dir < 0)
		return -1;
	if (replaceable(dir, base, why) && (fd = create_temp(dir, temp, why)) >= 0) {
		if (!write_all(fd, text, len))
			*why = strerror(errno ? errno : ENOSPC);
		else if (renameat(dir, temp, dir, base) < 0)
			*why = errno == EISDIR ? "a directory stands there" : strerror(errno);
		else
			r = 0;
		if (r < 0)
			unlinkat(dir, temp, 0);
		close(fd);
	}
	close(dir);
	return r;
}

/* An existing NAME in DIR for appending: never a link followed (O_PATH
 * with O_NOFOLLOW holds the link itself, refused as not regular), never
 * a FIFO or device opened, never another user's file; the very inode
 * checked is opened, through /proc/self/fd. */
static int open_existing_for_append(int dir, const char *name, const char **why)
{
	struct stat st;
	char proc[64];
	int path_fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd;

	if (path_fd < 0 || fstat(path_fd, &st) < 0)
		return fail_with(why, strerror(errno), path_fd);
	if (!S_ISREG(st.st_mode))
		return fail_with(why, S_ISLNK(st.st_mode) ? "a symbolic link (refused: links are "
				 "not followed)" : not_regular(st.st_mode), path_fd);
	if (st.st_uid != geteuid())
		return fail_with(why, "another user's file stands there", path_fd);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
	fd = open(proc, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail_with(why, strerror(errno), path_fd);
	close(path_fd);
	return fd;
}

int hostfile_open_append(const char *path, const char **why)
{
	const char *base;
	int dir = open_parent(path, &base, why), fd;

	if (dir < 0)
		return -1;
	/* O_EXCL|O_NOFOLLOW: only a new file is created and opened here. */
	fd = openat(dir, base, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
		    O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		fd = open_existing_for_append(dir, base, why);
	else if (fd < 0)
		fd = fail_with(why, strerror(errno), -1);
	close(dir);
	return fd;
}
