/* --learn's observer: a process in the sandbox, with COMMAND's view and
 * no more rights than COMMAND (its capabilities, no_new_privs and plain
 * seccomp filter are COMMAND's, taken on before it reads anything), that
 * reads the paths of the calls the supervisor let continue from the
 * caller's memory, looks at them in the sandbox's own file system, and
 * sends one record for each that was missing there or fell on a
 * read-only mount.  Every byte of COMMAND's is read and parsed here, in
 * the sandbox, never by the supervisor: what a hostile COMMAND can do to
 * the observer it could do by itself.  The observer is not dumpable, so
 * COMMAND cannot write into it through ptrace or /proc/PID/mem either.
 *
 * The call waits until the observer has read its path from the caller's
 * memory (it acks then, before looking at the path), never longer than
 * the supervisor's deadline: a path the caller frees once the call
 * returns is still there to read, and COMMAND's end cannot kill the
 * observer with paths unread.  A path read after a deadline let the
 * call go on may be learned wrong, which only makes a line the user
 * reviews, checked like any other.  A forged ack only lets an allowed
 * call go on early. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "learn_observer.h"
#include "learn_record.h"
#include "lib/lib.h"

#define MEM_CACHE 64	/* callers' /proc/PID/mem kept open */

enum intent {
	INTENT_LOOKUP,	/* read, stat, access, readlink, chdir */
	INTENT_EXEC,
	INTENT_OPEN,	/* open: FLAGS say */
	INTENT_MAKE,	/* mkdir, the target of a rename */
	INTENT_REMOVE,	/* unlink, rmdir, the source of a rename */
};

/* Which arguments of a call are what: DIRFD's index (-1: none, the cwd),
 * PATH's, FLAGS' (-1: none; -2: openat2's, its struct's first field;
 * -3: creat's, O_CREAT|O_WRONLY|O_TRUNC). */
struct call_shape {
	long nr;
	enum intent intent;
	int dirfd, path, flags;
};

static const struct call_shape shapes[] = {
#ifdef SYS_open
	{ SYS_open, INTENT_OPEN, -1, 0, 1 },
#endif
#ifdef SYS_creat
	{ SYS_creat, INTENT_OPEN, -1, 0, -3 },
#endif
	{ SYS_openat, INTENT_OPEN, 0, 1, 2 },
#ifdef SYS_openat2
	{ SYS_openat2, INTENT_OPEN, 0, 1, -2 },
#endif
#ifdef SYS_stat
	{ SYS_stat, INTENT_LOOKUP, -1, 0, -1 },
#endif
#ifdef SYS_lstat
	{ SYS_lstat, INTENT_LOOKUP, -1, 0, -1 },
#endif
#ifdef SYS_newfstatat
	{ SYS_newfstatat, INTENT_LOOKUP, 0, 1, -1 },
#endif
	{ SYS_statx, INTENT_LOOKUP, 0, 1, -1 },
#ifdef SYS_access
	{ SYS_access, INTENT_LOOKUP, -1, 0, -1 },
#endif
	{ SYS_faccessat, INTENT_LOOKUP, 0, 1, -1 },
#ifdef SYS_faccessat2
	{ SYS_faccessat2, INTENT_LOOKUP, 0, 1, -1 },
#endif
#ifdef SYS_readlink
	{ SYS_readlink, INTENT_LOOKUP, -1, 0, -1 },
#endif
	{ SYS_readlinkat, INTENT_LOOKUP, 0, 1, -1 },
	{ SYS_execve, INTENT_EXEC, -1, 0, -1 },
	{ SYS_execveat, INTENT_EXEC, 0, 1, -1 },
#ifdef SYS_mkdir
	{ SYS_mkdir, INTENT_MAKE, -1, 0, -1 },
#endif
	{ SYS_mkdirat, INTENT_MAKE, 0, 1, -1 },
#ifdef SYS_unlink
	{ SYS_unlink, INTENT_REMOVE, -1, 0, -1 },
#endif
#ifdef SYS_rmdir
	{ SYS_rmdir, INTENT_REMOVE, -1, 0, -1 },
#endif
	{ SYS_unlinkat, INTENT_REMOVE, 0, 1, -1 },
#ifdef SYS_rename
	{ SYS_rename, INTENT_REMOVE, -1, 0, -1 },
	{ SYS_rename, INTENT_MAKE, -1, 1, -1 },
#endif
#ifdef SYS_renameat
	{ SYS_renameat, INTENT_REMOVE, 0, 1, -1 },
	{ SYS_renameat, INTENT_MAKE, 2, 3, -1 },
#endif
#ifdef SYS_renameat2
	{ SYS_renameat2, INTENT_REMOVE, 0, 1, -1 },
	{ SYS_renameat2, INTENT_MAKE, 2, 3, -1 },
#endif
	{ SYS_chdir, INTENT_LOOKUP, -1, 0, -1 },
};

/* LEN bytes at ADDR in MEM (the caller's /proc/PID/mem), NUL-terminated
 * within BUF; false when unreadable or too long. */
static bool read_string(int mem, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len - 1) {
		/* page by page: a string may end just before an unmapped one */
		size_t chunk = 4096 - (size_t)((addr + got) % 4096);
		ssize_t n;

		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		n = pread(mem, buf + got, chunk, (off_t)(addr + got));
		if (n <= 0)
			return false;
		if (memchr(buf + got, '\0', (size_t)n))
			return true;
		got += (size_t)n;
	}
	return false;
}

/* The directory a relative path starts from, as the sandbox names it. */
static bool base_dir(pid_t pid, int dirfd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, dirfd);
	n = readlink(link, buf, len - 1);
	if (n <= 0 || buf[0] != '/')
		return false;	/* gone, or a pipe, a socket... */
	buf[n] = '\0';
	return true;
}

/* The call's path, absolute and normal, into OUT; false when it cannot
 * be known. */
static bool call_path(pid_t pid, int mem, const struct call_shape *s,
		      const struct learn_request *rq, char *out, size_t len)
{
	char path[LEARN_PATH_MAX], base[PATH_MAX];
	int dirfd = s->dirfd < 0 ? AT_FDCWD : (int)rq->args[s->dirfd];

	if (!read_string(mem, rq->args[s->path], path, sizeof(path)) || !path[0])
		return false;
	if (path[0] == '/') {
		snprintf(out, len, "%s", path);
	} else {
		if (!base_dir(pid, dirfd, base, sizeof(base)))
			return false;
		if ((size_t)snprintf(out, len, "%s/%s", base, path) >= len)
			return false;
	}
	learn_path_normalize(out);
	return true;
}

static int open_flags(int mem, const struct call_shape *s, const struct learn_request *rq)
{
	uint64_t how_flags = 0;

	if (s->flags >= 0)
		return (int)rq->args[s->flags];
	if (s->flags == -3)
		return O_CREAT | O_WRONLY | O_TRUNC;
	if (s->flags == -2 && pread(mem, &how_flags, sizeof(how_flags), (off_t)rq->args[2]) ==
	    (ssize_t)sizeof(how_flags))
		return (int)how_flags;
	return 0;
}

static bool missing(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 && errno == ENOENT;
}

/* access(W_OK) says EROFS for a read-only mount (statfs is a call the
 * strict policy refuses; access is one every policy allows). */
static bool read_only(const char *path)
{
	return access(path, W_OK) < 0 && errno == EROFS;
}

/* PATH's directory into DIR. */
static void parent_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	snprintf(dir, len, "%.*s", (int)n, path);
}

/* What is learned of a call at PATH: the kind, and into WHERE the path
 * the record names; 0 when nothing (found, or written where it may). */
static enum learn_kind judge(const struct call_shape *s, int flags, const char *path,
			     char *where, size_t len)
{
	bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
	char dir[LEARN_PATH_MAX];

	snprintf(where, len, "%s", path);
	if (s->intent == INTENT_LOOKUP || (s->intent == INTENT_OPEN && !writes))
		return missing(path) ? LEARN_READ : 0;
	if (s->intent == INTENT_EXEC)
		return missing(path) ? LEARN_EXEC : 0;
	if (s->intent == INTENT_OPEN && !missing(path))
		return read_only(path) ? LEARN_WRITE : 0;
	if (s->intent == INTENT_OPEN && !(flags & O_CREAT))
		return LEARN_READ;
	/* made where something is (mkdir -p, EEXIST): nothing refused */
	if (s->intent == INTENT_MAKE && !missing(path))
		return 0;
	/* made or removed: its directory is what must be writable */
	parent_of(path, dir, sizeof(dir));
	snprintf(where, len, "%s", dir);
	if (missing(dir))
		return LEARN_MADE_IN;
	return read_only(dir) ? LEARN_WRITE : 0;
}

/* Paths of the sandbox's own making: nothing to learn there. */
static bool ignored(const char *path)
{
	static const char *const own[] = { "/proc", "/sys", "/dev" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		size_t n = strlen(own[i]);

		if (strncmp(path, own[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return true;
	}
	return false;
}

static void comm_of(pid_t pid, char *comm, size_t len)
{
	char name[32];
	int fd;
	ssize_t n;

	snprintf(name, sizeof(name), "/proc/%d/comm", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* write(), not send(): one message on the seqpacket socket, with a
 * call the strict policy allows (SIGPIPE is ignored). */
static void send_record(int out, enum learn_kind kind, pid_t pid, const char *path)
{
	struct learn_record rec;
	char comm[LEARN_COMM_MAX + 1];
	size_t n;

	comm_of(pid, comm, sizeof(comm));
	n = learn_record_make(&rec, kind, comm, path);
	if (n > 0 && learn_path_valid(path, strlen(path)))
		(void)!write(out, &rec, n);
}

static void send_ack(int out, uint32_t seq)
{
	struct learn_ack ack = { LEARN_ACK_MAGIC, seq };

	if (seq)
		(void)!write(out, &ack, sizeof(ack));
}

/* The caller's memory, its fd kept for the next call of the same pid
 * (reopened when it fails: the process exec'd, or the pid is another's).
 * OUTER: this sandbox's /proc is a substitute of the outer pid
 * namespace's (see proc_is_own), so a caller is named by its outer pid. */
struct mem_cache {
	bool outer;
	pid_t pid[MEM_CACHE];
	int fd[MEM_CACHE];
};

/* Is /proc this sandbox's own (its pid namespace's)?  Not where a
 * container engine masked the outer /proc, so that no procfs could be
 * mounted and the sandbox got the outer one in its place. */
static bool proc_is_own(void)
{
	char self[16];
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

	if (n <= 0)
		return true;
	self[n] = '\0';
	return strtol(self, NULL, 10) == (long)getpid();
}

/* Does the outer pid OUTER name the sandbox's process INSIDE?  Defends
 * against reading another process's memory for the caller's, where the
 * supervisor's pid namespace is not the one this /proc shows (a
 * sandbox in a sandbox): the numbers then mean something else. */
static bool outer_pid_is(pid_t outer, pid_t inside)
{
	char name[32], status[4096];

	snprintf(name, sizeof(name), "/proc/%d/status", (int)outer);
	return read_file_at(AT_FDCWD, name, status, sizeof(status)) > 0 &&
	       learn_nspid_last(status) == inside;
}

/* The pid that names the caller of RQ in this sandbox's /proc; 0 when
 * none does. */
static pid_t caller_pid(const struct mem_cache *c, const struct learn_request *rq)
{
	if (!c->outer)
		return (pid_t)rq->pid;
	if (rq->outer_pid == 0 || rq->outer_pid > INT_MAX)
		return 0;
	return (pid_t)rq->outer_pid;
}

static int mem_of(struct mem_cache *c, const struct learn_request *rq, pid_t pid, bool fresh)
{
	unsigned slot = (unsigned)pid % MEM_CACHE;
	char name[32];

	if (c->pid[slot] == pid && c->fd[slot] >= 0 && !fresh)
		return c->fd[slot];
	if (c->fd[slot] >= 0)
		close(c->fd[slot]);
	snprintf(name, sizeof(name), "/proc/%d/mem", (int)pid);
	c->pid[slot] = pid;
	c->fd[slot] = open(name, O_RDONLY | O_CLOEXEC);
	if (c->fd[slot] >= 0 && c->outer && !outer_pid_is(pid, (pid_t)rq->pid)) {
		close(c->fd[slot]);
		c->fd[slot] = -1;
	}
	return c->fd[slot];	/* < 0: gone, or not ours to read (not dumpable) */
}

/* WHERE as the sandbox resolves it, in place, still read-only there;
 * false when it cannot be.  Defends against a link COMMAND planted in
 * its own tmpfs, named as a host directory and pointing at a read-only
 * one: judged through the link (access follows it), the name would be
 * proposed writable; and against the link turned, once judged, to a
 * writable directory of its own named as a host one. */
static bool resolve_in_sandbox(char *where, size_t len)
{
	char real[PATH_MAX];

	if (!realpath(where, real) || strlen(real) >= len || !read_only(real))
		return false;
	snprintf(where, len, "%s", real);
	return true;
}

static void observe_one(struct mem_cache *c, const struct call_shape *s,
			const struct learn_request *rq, int out)
{
	pid_t pid = caller_pid(c, rq);
	char path[LEARN_PATH_MAX], where[LEARN_PATH_MAX];
	int mem = pid > 0 ? mem_of(c, rq, pid, false) : -1, flags = 0;
	enum learn_kind kind;
	bool known = mem >= 0 && call_path(pid, mem, s, rq, path, sizeof(path));

	if (!known && mem >= 0 && (mem = mem_of(c, rq, pid, true)) >= 0)
		known = call_path(pid, mem, s, rq, path, sizeof(path));
	if (known)
		flags = open_flags(mem, s, rq);
	send_ack(out, rq->seq);	/* read: the call may go on */
	if (!known || ignored(path))
		return;
	kind = judge(s, flags, path, where, sizeof(where));
	if (kind == LEARN_WRITE && !resolve_in_sandbox(where, sizeof(where)))
		return;
	if (kind && !ignored(where))
		send_record(out, kind, pid, where);
}

/* The first shape of the call only holds the ack (a rename's second
 * path is read before it too). */
static void observe(struct mem_cache *c, struct learn_request *rq, int out)
{
	bool any = false;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		if (shapes[i].nr != rq->nr)
			continue;
		if (i + 1 < sizeof(shapes) / sizeof(shapes[0]) && shapes[i + 1].nr == rq->nr) {
			struct learn_request first = *rq;

			first.seq = 0;	/* the second one acks */
			observe_one(c, &shapes[i], &first, out);
		} else {
			observe_one(c, &shapes[i], rq, out);
		}
		any = true;
	}
	if (!any)
		send_ack(out, rq->seq);
}

bool learn_observer_knows(long nr)
{
	if (nr == SYS_exit_group)
		return true;	/* a barrier: acked once all before it are done */
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (shapes[i].nr == nr)
			return true;
	return false;
}

void learn_observer_run(int in, int out)
{
	struct learn_request rq;
	struct mem_cache cache;

	for (int i = 0; i < MEM_CACHE; i++) {
		cache.pid[i] = 0;
		cache.fd[i] = -1;
	}
	cache.outer = !proc_is_own();

	signal(SIGPIPE, SIG_IGN);
	/* No /proc in this sandbox (the profile system): no path can be
	 * read; the supervisor, acked never, says so in FILE. */
	if (access("/proc/self/mem", F_OK) < 0)
		_exit(0);
	for (;;) {
		ssize_t n = read(in, &rq, sizeof(rq));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(rq))
			break;	/* EOF: the supervisor is done */
		observe(&cache, &rq, out);
	}
	_exit(0);
}
