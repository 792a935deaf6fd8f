/* The stand-in's loader (TEST-ONLY): loads standin.bpf.c, attaches it,
 * and holds it for as long as it lives.  Nothing is pinned: the links
 * die with this process, which dies with its parent (PR_SET_PDEATHSIG)
 * or when its standard input ends.
 *
 * Commands, one a line on standard input, each answered by one line on
 * standard output ("ok ..." or "error: ..."):
 *   restrict UID      namespaces owned by UID, and below, are restricted
 *   attach PATTERN    a file executed from a path matching PATTERN (a path,
 *                     or a shell pattern whose * and ? stay within a
 *                     component, as AppArmor's) keeps its capabilities
 *                     there: the stand-in for an AppArmor profile with
 *                     `userns,` attached to PATTERN
 *   detach PATTERN    no longer, for the files executed through it too
 *   allow, disallow   the same as attach and detach
 *   counters          "ok denied N allowed N": capability checks so far
 * "ready" is printed once the program is attached.
 *
 * An attachment is by path, as a profile's: the suite runs a fresh copy
 * of hutch in each test's scratch directory, a new file each time.  The
 * BPF program cannot match paths within 6.1's verifier limits, so the
 * loader does: fanotify reports every exec on the filesystems of the
 * attached paths and waits for the loader's answer (FAN_OPEN_EXEC_PERM),
 * which first records the file (device and inode) in allowed_programs
 * when its path matches, and removes it when it does not (a file of
 * another path that reuses a removed copy's inode number).  The program
 * reads the map when the exec commits (standin.bpf.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "standin.skel.h"

#define PATTERNS 8
#define PATTERN_MAX 256

struct program_id {	/* standin.bpf.c's */
	__u64 dev;
	__u64 ino;
};

struct loader {
	struct standin_bpf *skel;
	int fan;	/* fanotify: execs on the attached paths' filesystems */
	char patterns[PATTERNS][PATTERN_MAX];	/* "" : a free slot */
};

/* The slot + 1 of the first pattern PATH matches, or 0. */
static __u32 attachment(const struct loader *l, const char *path)
{
	for (__u32 k = 0; k < PATTERNS; k++)
		if (l->patterns[k][0] && fnmatch(l->patterns[k], path, FNM_PATHNAME) == 0)
			return k + 1;
	return 0;
}

/* FD's file as the kernel names it: its dev_t is major << 20 | minor. */
static int program_id(int fd, struct program_id *id)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	id->dev = ((__u64)major(st.st_dev) << 20) | minor(st.st_dev);
	id->ino = st.st_ino;
	return 0;
}

/* An exec of FD's file: record it as registered or not, then let the
 * exec go on (always: the stand-in decides capabilities, not execs). */
static void on_exec(struct loader *l, int fd)
{
	char link[64], path[PATH_MAX];
	struct fanotify_response answer = { .fd = fd, .response = FAN_ALLOW };
	struct program_id id;
	ssize_t n;
	__u32 slot;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0 && program_id(fd, &id) == 0) {
		path[n] = '\0';
		slot = attachment(l, path);
		if (slot)
			bpf_map__update_elem(l->skel->maps.allowed_programs, &id, sizeof(id),
					     &slot, sizeof(slot), BPF_ANY);
		else
			bpf_map__delete_elem(l->skel->maps.allowed_programs, &id, sizeof(id), 0);
	}
	if (write(l->fan, &answer, sizeof(answer)) != sizeof(answer))
		fprintf(stderr, "standin: fanotify answer: %s\n", strerror(errno));
	close(fd);
}

/* Every exec fanotify has reported. */
static void read_execs(struct loader *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	struct fanotify_event_metadata *m;
	ssize_t len = read(l->fan, buf, sizeof(buf));

	for (m = (void *)buf; len > 0 && FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len))
		if (m->vers == FANOTIFY_METADATA_VERSION && m->fd >= 0)
			on_exec(l, m->fd);
}

/* Watch execs on the filesystem of PATTERN's deepest existing directory
 * (before its first wildcard). */
static int watch_filesystem(struct loader *l, const char *pattern)
{
	char dir[PATTERN_MAX];
	char *cut;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", pattern);
	dir[strcspn(dir, "*?[")] = '\0';
	while ((cut = strrchr(dir, '/')) && (*cut = '\0', dir[0] && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))))
		;
	if (!dir[0])
		strcpy(dir, "/");
	if (fanotify_mark(l->fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM,
			  AT_FDCWD, dir) < 0)
		return -errno;
	return 0;
}

/* Forget the files executed through slot K's pattern. */
static void forget_programs(struct loader *l, __u32 k)
{
	struct bpf_map *map = l->skel->maps.allowed_programs;
	struct program_id key, next;
	__u32 slot;
	void *prev = NULL;

	while (bpf_map__get_next_key(map, prev, &next, sizeof(next)) == 0) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &slot, sizeof(slot), 0) == 0 &&
		    slot == k + 1) {
			bpf_map__delete_elem(map, &key, sizeof(key), 0);
			prev = NULL;	/* the walk starts again without it */
		}
	}
}

static int find_slot(const struct loader *l, const char *pattern)
{
	for (int k = 0; k < PATTERNS; k++)
		if (strcmp(l->patterns[k], pattern) == 0)
			return k;
	return -1;
}

static int cmd_attach(struct loader *l, const char *pattern)
{
	int k, r;

	if (pattern[0] != '/' || strlen(pattern) >= PATTERN_MAX)
		return -EINVAL;
	if (find_slot(l, pattern) >= 0)
		return 0;
	k = find_slot(l, "");
	if (k < 0)
		return -ENOSPC;
	r = watch_filesystem(l, pattern);
	if (r < 0)
		return r;
	strcpy(l->patterns[k], pattern);
	return 0;
}

static int cmd_detach(struct loader *l, const char *pattern)
{
	int k = pattern[0] ? find_slot(l, pattern) : -1;

	if (k < 0)
		return -ENOENT;
	l->patterns[k][0] = '\0';
	forget_programs(l, (__u32)k);
	return 0;
}

static int cmd_restrict(struct standin_bpf *skel, const char *arg)
{
	__u32 uid = (__u32)strtoul(arg, NULL, 10);
	__u8 one = 1;

	return bpf_map__update_elem(skel->maps.restricted_uids, &uid, sizeof(uid),
				    &one, sizeof(one), BPF_ANY);
}

static int cmd_counters(struct standin_bpf *skel)
{
	__u64 n[2] = { 0, 0 };

	for (__u32 i = 0; i < 2; i++)
		if (bpf_map__lookup_elem(skel->maps.counters, &i, sizeof(i),
					 &n[i], sizeof(n[i]), 0) < 0)
			return -errno;
	printf("ok denied %llu allowed %llu\n", (unsigned long long)n[0],
	       (unsigned long long)n[1]);
	return 1;	/* answered */
}

static int command(struct loader *l, char *line)
{
	char *arg = strchr(line, ' ');

	line[strcspn(line, "\n")] = '\0';
	if (arg)
		*arg++ = '\0';
	if (strcmp(line, "counters") == 0)
		return cmd_counters(l->skel);
	if (!arg)
		return -EINVAL;
	if (strcmp(line, "restrict") == 0)
		return cmd_restrict(l->skel, arg);
	if (strcmp(line, "attach") == 0 || strcmp(line, "allow") == 0)
		return cmd_attach(l, arg);
	if (strcmp(line, "detach") == 0 || strcmp(line, "disallow") == 0)
		return cmd_detach(l, arg);
	return -EINVAL;
}

/* One command line from standard input, if a whole one has come:
 * 1 (LINE holds it), 0 (not yet), -1 (the input ended). */
static int read_command(char *buf, size_t size, size_t *have, char *line)
{
	char *nl = memchr(buf, '\n', *have);
	ssize_t n;

	if (!nl) {
		if (*have == size)
			*have = 0;	/* a line too long: dropped */
		n = read(0, buf + *have, size - *have);
		if (n <= 0)
			return -1;
		*have += (size_t)n;
		nl = memchr(buf, '\n', *have);
		if (!nl)
			return 0;
	}
	memcpy(line, buf, (size_t)(nl - buf + 1));
	line[nl - buf + 1] = '\0';
	*have -= (size_t)(nl - buf + 1);
	memmove(buf, nl + 1, *have);
	return 1;
}

static void answer(int r)
{
	if (r < 0)
		printf("error: %s\n", strerror(-r));
	else if (r == 0)
		printf("ok\n");
}

/* Commands and execs, until standard input ends. */
static void serve(struct loader *l)
{
	char buf[4096], line[4097];
	size_t have = 0;
	struct pollfd fds[2] = { { .fd = 0, .events = POLLIN }, { .fd = l->fan, .events = POLLIN } };
	int r;

	for (;;) {
		if (memchr(buf, '\n', have)) {
			read_command(buf, sizeof(buf), &have, line);
			answer(command(l, line));
			continue;
		}
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (fds[1].revents & POLLIN)
			read_execs(l);
		if (fds[0].revents & (POLLIN | POLLHUP)) {
			r = read_command(buf, sizeof(buf), &have, line);
			if (r < 0)
				return;
			if (r > 0)
				answer(command(l, line));
		}
	}
}

int main(void)
{
	static struct loader l;
	int r;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;	/* the parent is already gone */
	setvbuf(stdout, NULL, _IOLBF, 0);
	l.fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (l.fan < 0) {
		fprintf(stderr, "standin: fanotify_init: %s\n", strerror(errno));
		return 1;
	}
	l.skel = standin_bpf__open_and_load();
	if (!l.skel) {
		fprintf(stderr, "standin: load: %s\n", strerror(errno));
		return 1;
	}
	r = standin_bpf__attach(l.skel);
	if (r < 0) {
		fprintf(stderr, "standin: attach: %s\n", strerror(-r));
		standin_bpf__destroy(l.skel);
		return 1;
	}
	printf("ready\n");
	serve(&l);
	standin_bpf__destroy(l.skel);
	return 0;
}
