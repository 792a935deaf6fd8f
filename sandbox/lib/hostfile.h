/* Files hutch opens on the host by a path the caller gave: the profiles
 * and seccomp policies it reads, the --report it writes.  Such a path may
 * lie in a tree the sandbox can write (a checkout bound read-write), so
 * what stands there may have been planted by the sandbox: a symbolic
 * link, a FIFO, a socket, a directory. */
#ifndef HUTCH_HOSTFILE_H
#define HUTCH_HOSTFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* The largest file hostfile_read_small reads. */
#define HOSTFILE_MAX_READ (1 << 20)

/* What MODE's file is, in words: "a directory", "a FIFO", ... */
const char *hostfile_kind(mode_t mode);

/* Open PATH for reading: a regular file owned by the caller or by root,
 * never blocking (a FIFO is refused, not waited on), never a device
 * opened.  The fd (close-on-exec, blocking again) and its stat in *ST,
 * or -1 and *WHY (static text). */
int hostfile_open_read(const char *path, struct stat *st, const char **why);

/* The whole of the file PATH, opened as hostfile_open_read does, of at
 * most HOSTFILE_MAX_READ bytes and without a NUL byte, NUL-terminated
 * (free it); its length in *LEN, its stat in *ST.  NULL and *WHY when
 * it cannot be read. */
char *hostfile_read_small(const char *path, size_t *len, struct stat *st, const char **why);

/* Create PATH as a new, empty regular file of the caller, mode 0600, for
 * writing (close-on-exec): made under a temporary name in PATH's
 * directory, reached without a symbolic link, then renamed over PATH,
 * so that whatever stood there (a symbolic link, a FIFO, a socket, an
 * old report) is replaced, never followed or opened.  A directory, a
 * device or another user's file at PATH is refused.  The fd, or -1 and
 * *WHY (static text). */
int hostfile_create_fresh(const char *path, const char **why);

/* TEXT as PATH: written whole under a temporary name in PATH's
 * directory (reached without a symbolic link), then renamed over
 * whatever stands at the name as hostfile_create_fresh does, so that a
 * file planted there meanwhile is gone.  0, or -1 and *WHY (static
 * text). */
int hostfile_replace(const char *path, const char *text, size_t len, const char **why);

/* PATH for appending (close-on-exec): a new regular file of the caller,
 * mode 0600, or the caller's regular file that stands there, reached
 * without a symbolic link; a link, a FIFO, a socket, a device, a
 * directory or another user's file is refused.  The fd, or -1 and *WHY
 * (static text). */
int hostfile_open_append(const char *path, const char **why);

#endif
