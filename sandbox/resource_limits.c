/* Resource limits.  --rlimit is set in COMMAND's process before execve.
 * --pids is RLIMIT_NPROC set in pid 1 inside the sandbox's fresh user
 * namespace, where the kernel (5.14 and later) counts that namespace's
 * processes only; the kernel exempts the host's root from it.  --memory,
 * --memory-swap, --cpu (and --pids again, as pids.max) need a cgroup v2
 * hierarchy where hutch may make a child cgroup: the sandbox is cloned
 * straight into it, and it is removed after the run.  cgroup v1
 * hierarchies are never touched. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "resource_limits.h"
#include "sandbox.h"
#include "util.h"

#define CPU_PERIOD_US 100000LL
#define CPU_MIN_QUOTA_US 1000LL
#define REASON_LEN (PATH_MAX + 512)

enum { CTL_MEMORY = 1u << 0, CTL_CPU = 1u << 1, CTL_PIDS = 1u << 2 };

static const struct controller { unsigned bit; const char *name; } controllers[] = {
	{ CTL_MEMORY, "memory" }, { CTL_CPU, "cpu" }, { CTL_PIDS, "pids" },
};
#define N_CONTROLLERS (sizeof(controllers) / sizeof(controllers[0]))

enum unit { UNIT_COUNT, UNIT_BYTES, UNIT_SECONDS, UNIT_MICROSECONDS };

static const struct rlimit_info {
	int resource;
	enum unit unit;
	const char *name;
} rlimit_info[] = {
	{ RLIMIT_AS, UNIT_BYTES, "as" }, { RLIMIT_CORE, UNIT_BYTES, "core" },
	{ RLIMIT_CPU, UNIT_SECONDS, "cpu" }, { RLIMIT_DATA, UNIT_BYTES, "data" },
	{ RLIMIT_FSIZE, UNIT_BYTES, "fsize" }, { RLIMIT_LOCKS, UNIT_COUNT, "locks" },
	{ RLIMIT_MEMLOCK, UNIT_BYTES, "memlock" }, { RLIMIT_MSGQUEUE, UNIT_BYTES, "msgqueue" },
	{ RLIMIT_NICE, UNIT_COUNT, "nice" }, { RLIMIT_NOFILE, UNIT_COUNT, "nofile" },
	{ RLIMIT_NPROC, UNIT_COUNT, "nproc" }, { RLIMIT_RSS, UNIT_BYTES, "rss" },
	{ RLIMIT_RTPRIO, UNIT_COUNT, "rtprio" }, { RLIMIT_RTTIME, UNIT_MICROSECONDS, "rttime" },
	{ RLIMIT_SIGPENDING, UNIT_COUNT, "sigpending" }, { RLIMIT_STACK, UNIT_BYTES, "stack" },
};

/* The limits' part of the run-time state (sb->limits); it outlives
 * limits_finish, so that the final status can still read what ended
 * COMMAND, and is freed by limits_release. */
struct limits_state {
	int parent_fd;		/* the cgroup the sandbox's was made in, or -1 */
	char parent[PATH_MAX];	/* its path */
	char name[64];		/* the sandbox's cgroup under it; "" when none */
	unsigned enabled;	/* controllers the sandbox's cgroup has */
	bool nproc;		/* RLIMIT_NPROC counts the sandbox (not exempt) */
	char why_none[REASON_LEN]; /* why no cgroup serves --pids */
	const char *ended_by;	/* the limit that ended COMMAND, or NULL */
	char self_leaf[64];	/* the supervisor's own leaf under parent, or "" */
	unsigned we_enabled;	/* controllers enabled in parent for this run */
};

/* ---- pure helpers (unit-tested) ---- */

static const struct rlimit_info *rlimit_by_resource(int resource)
{
	for (size_t i = 0; i < sizeof(rlimit_info) / sizeof(rlimit_info[0]); i++)
		if (rlimit_info[i].resource == resource)
			return &rlimit_info[i];
	return NULL;
}

const char *limits_rlimit_name(int resource)
{
	const struct rlimit_info *info = rlimit_by_resource(resource);

	return info ? info->name : "?";
}

/* 536870912 -> "512M"; RLIM_INFINITY -> "unlimited". */
void limits_format_bytes(unsigned long long v, char *buf, size_t len)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	if (v == RLIM_INFINITY) {
		snprintf(buf, len, "unlimited");
		return;
	}
	while (v != 0 && i < 3 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", v);
	else
		snprintf(buf, len, "%llu%c", v, suffix[i]);
}

/* A value of RESOURCE in its unit: "512M", "10s", "1024", "unlimited". */
void limits_format_rlimit(int resource, unsigned long long v, char *buf, size_t len)
{
	const struct rlimit_info *info = rlimit_by_resource(resource);
	enum unit unit = info ? info->unit : UNIT_COUNT;

	if (v == RLIM_INFINITY || unit == UNIT_BYTES)
		limits_format_bytes(v, buf, len);
	else
		snprintf(buf, len, "%llu%s", v, unit == UNIT_SECONDS ? "s" :
			 unit == UNIT_MICROSECONDS ? "us" : "");
}

static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : NULL;
}

static size_t line_len(const char *s)
{
	return strcspn(s, "\n");
}

/* The cgroup v2 path ("0::/PATH") in /proc/self/cgroup TEXT. */
int limits_cgroup2_path(const char *text, char *path, size_t len)
{
	for (const char *line = text; line && *line; line = next_line(line)) {
		size_t n = line_len(line);

		if (n < 4 || strncmp(line, "0::/", 4) != 0 || n - 3 >= len)
			continue;
		memcpy(path, line + 3, n - 3);
		path[n - 3] = '\0';
		return 0;
	}
	return -1;
}

/* Undo mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* PATH relative to a mount's ROOT, or NULL if the mount does not show it. */
static const char *below_root(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return strcmp(path, "/") == 0 ? "" : path;
	if (strncmp(path, root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path + n;
}

/* One mountinfo LINE: root and mount point, when it is a cgroup2 mount. */
static bool cgroup2_line(const char *line, char *root, char *mnt)
{
	char *copy = strndup(line, line_len(line));
	char *sep = copy ? strstr(copy, " - ") : NULL;
	char fstype[32];
	bool ok;

	ok = sep && sscanf(sep, " - %31s", fstype) == 1 && strcmp(fstype, "cgroup2") == 0 &&
	     sscanf(copy, "%*s %*s %*s %4095s %4095s", root, mnt) == 2;
	free(copy);
	if (ok) {
		unescape_octal(root);
		unescape_octal(mnt);
	}
	return ok;
}

/* The directory of cgroup PATH under the first cgroup2 mount in
 * MOUNTINFO that shows it, and that mount point.  Returns 0, -1 when
 * no cgroup2 is mounted, -2 when no cgroup2 mount shows PATH. */
int limits_cgroup_dir(const char *mountinfo, const char *path, char *dir, size_t dirlen,
		      char *mnt, size_t mntlen)
{
	int found = -1;

	for (const char *line = mountinfo; line && *line; line = next_line(line)) {
		char root[PATH_MAX], point[PATH_MAX];
		const char *rel;

		if (!cgroup2_line(line, root, point))
			continue;
		found = -2;
		rel = below_root(root, path);
		if (!rel || (size_t)snprintf(dir, dirlen, "%s%s", point, rel) >= dirlen ||
		    (size_t)snprintf(mnt, mntlen, "%s", point) >= mntlen)
			continue;
		return 0;
	}
	return found;
}

/* Bits of the controllers named in LIST ("cpu memory pids"). */
unsigned limits_controller_bits(const char *list)
{
	unsigned bits = 0;

	while (list && *list) {
		size_t n;

		list += strspn(list, " \n");
		n = strcspn(list, " \n");
		for (size_t i = 0; i < N_CONTROLLERS; i++)
			if (n == strlen(controllers[i].name) &&
			    strncmp(list, controllers[i].name, n) == 0)
				bits |= controllers[i].bit;
		list += n;
	}
	return bits;
}

/* The count after KEY in a memory.events or pids.events TEXT, or -1. */
long long limits_event_count(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *line = text; line && *line; line = next_line(line))
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return strtoll(line + n + 1, NULL, 10);
	return -1;
}

/* The supervisor's pid in a name hutch gives its cgroups
 * ("hutch-PID-XXXX", or "hutch-PID-self" for the supervisor's own
 * leaf), or 0 when NAME is not one. */
pid_t limits_cgroup_owner(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "hutch-", 6) != 0 || name[6] < '1' || name[6] > '9')
		return 0;
	pid = strtol(name + 6, &end, 10);
	if (pid <= 0 || pid > INT_MAX || *end != '-' || strlen(end + 1) != 4)
		return 0;
	if (strcmp(end + 1, "self") != 0 && strspn(end + 1, "0123456789abcdef") != 4)
		return 0;
	return (pid_t)pid;
}

/* cpu.max for FRACTION of one CPU: "50000 100000" for 0.5. */
void limits_cpu_max(double fraction, char *buf, size_t len)
{
	long long quota = (long long)(fraction * (double)CPU_PERIOD_US + 0.5);

	if (quota < CPU_MIN_QUOTA_US)
		quota = CPU_MIN_QUOTA_US;
	snprintf(buf, len, "%lld %lld", quota, CPU_PERIOD_US);
}

/* UID in the parent user namespace, through a uid_map TEXT; -1 if unmapped. */
long long limits_map_uid(const char *text, unsigned long long uid)
{
	for (const char *line = text; line && *line; line = next_line(line)) {
		unsigned long long inside, outside, count;

		if (sscanf(line, "%llu %llu %llu", &inside, &outside, &count) == 3 &&
		    uid >= inside && uid - inside < count)
			return (long long)(outside + (uid - inside));
	}
	return -1;
}

/* ---- small files ---- */

static char *read_text_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = xreallocarray(NULL, cap, 1);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len == cap - 1)
			buf = xreallocarray(buf, cap *= 2, 1);
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int write_text_at(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* ---- finding where the sandbox's cgroup can go ---- */

static unsigned needed_controllers(const struct plan *plan)
{
	return (plan->memory || plan->memory_swap ? CTL_MEMORY : 0) |
	       (plan->cpu > 0 ? CTL_CPU : 0);
}

/* A candidate parent cgroup, and why the last one tried was unusable. */
struct pick {
	int fd;
	char dir[PATH_MAX];
	const char *mnt;	/* the cgroup2 mount point */
	bool own;		/* the candidate is the supervisor's own cgroup */
	bool dry;		/* only tell: enable nothing, move nothing */
	unsigned have;		/* controllers the last candidate offers */
	unsigned enabled;	/* controllers this run enabled in it */
	char self_leaf[64];	/* the supervisor's leaf made in it, or "" */
	char reason[REASON_LEN];
};

static bool may_write(int fd)
{
	/* W_OK on the directory (mkdir), cgroup.subtree_control (enable
	 * controllers) and cgroup.procs (the kernel's delegation check for
	 * moving a process out of our cgroup into one made here). */
	return faccessat(fd, ".", W_OK, 0) == 0 &&
	       faccessat(fd, "cgroup.subtree_control", W_OK, 0) == 0 &&
	       faccessat(fd, "cgroup.procs", W_OK, 0) == 0;
}

/* Remove the cgroups that runs killed before their end left in FD:
 * named after a supervisor that no longer exists (or after this one,
 * which has made none yet).  rmdir refuses a populated cgroup, so a
 * live sandbox's cannot go. */
static void sweep_stale(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		pid_t owner = limits_cgroup_owner(e->d_name);

		if (owner > 0 && (owner == getpid() || (kill(owner, 0) < 0 && errno == ESRCH)))
			unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void describe_controllers(struct pick *p, const char *list)
{
	char trimmed[256];
	size_t n = strcspn(list, "\n");

	snprintf(trimmed, sizeof(trimmed), "%.*s", (int)n, list);
	snprintf(p->reason, sizeof(p->reason), "cgroup2 at %s has: %s", p->dir,
		 *trimmed ? trimmed : "no controller");
}

/* Enable USE in FD's cgroup.subtree_control, as far as not yet done. */
static bool enable_controllers(struct pick *p, int fd, unsigned use)
{
	char *on = read_text_at(fd, "cgroup.subtree_control");
	unsigned have = on ? limits_controller_bits(on) : 0;

	free(on);
	for (size_t i = 0; i < N_CONTROLLERS; i++) {
		char word[16];

		if (!(use & controllers[i].bit) || (have & controllers[i].bit))
			continue;
		snprintf(word, sizeof(word), "+%s", controllers[i].name);
		if (write_text_at(fd, "cgroup.subtree_control", word) < 0) {
			snprintf(p->reason, sizeof(p->reason), "enable %s in %s/cgroup.subtree_control: %s",
				 controllers[i].name, p->dir, strerror(errno));
			return false;
		}
		p->enabled |= controllers[i].bit;
	}
	return true;
}

/* Whether FD's cgroup holds processes of its own; *ONLY_US when the
 * supervisor is the only one. */
static bool holds_processes(int fd, bool *only_us)
{
	char *procs = read_text_at(fd, "cgroup.procs");
	char self[24];
	bool any = procs && *procs;

	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	*only_us = procs && strcmp(procs, self) == 0;
	free(procs);
	return any;
}

/* Move the supervisor into a new leaf "hutch-PID-self" of FD's cgroup. */
static bool step_into_leaf(struct pick *p, int fd)
{
	int leaf;
	bool moved;

	snprintf(p->self_leaf, sizeof(p->self_leaf), "hutch-%d-self", (int)getpid());
	if (mkdirat(fd, p->self_leaf, 0755) < 0 && errno != EEXIST) {
		snprintf(p->reason, sizeof(p->reason), "create %s/%s: %s", p->dir, p->self_leaf,
			 strerror(errno));
		p->self_leaf[0] = '\0';
		return false;
	}
	leaf = openat(fd, p->self_leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	moved = leaf >= 0 && write_text_at(leaf, "cgroup.procs", "0") == 0;
	if (!moved) {
		snprintf(p->reason, sizeof(p->reason), "move into %s/%s: %s", p->dir, p->self_leaf,
			 strerror(errno));
		unlinkat(fd, p->self_leaf, AT_REMOVEDIR);
		p->self_leaf[0] = '\0';
	}
	if (leaf >= 0)
		close(leaf);
	return moved;
}

/* Undo step_into_leaf: the controllers ENABLED for this run off again
 * (a cgroup with any cannot take a process), the supervisor back in
 * FD's cgroup, the leaf removed.  Best effort: a leaf left behind is
 * empty once the supervisor is gone, and the next start removes it. */
static void leave_leaf(int fd, const char *leaf, unsigned enabled)
{
	char self[24];

	for (size_t i = 0; i < N_CONTROLLERS; i++) {
		char word[16];

		snprintf(word, sizeof(word), "-%s", controllers[i].name);
		if (enabled & controllers[i].bit)
			write_text_at(fd, "cgroup.subtree_control", word);
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	if (write_text_at(fd, "cgroup.procs", self) == 0)
		unlinkat(fd, leaf, AT_REMOVEDIR);
}

/* cgroup v2's no-internal-processes rule: only a cgroup without
 * processes of its own (or the root) gives its children controllers;
 * Linux lets pids alone be enabled anyway, and then refuses to start
 * anything in the child (EOPNOTSUPP).  A supervisor alone in its own
 * cgroup (a delegated scope: systemd-run --scope -p Delegate=yes) steps
 * into a leaf of its own, which the end of the run removes again. */
static bool may_have_children(struct pick *p, int fd)
{
	bool only_us;

	if (strcmp(p->dir, p->mnt) == 0 || !holds_processes(fd, &only_us))
		return true;
	if (p->own && only_us)
		return p->dry || step_into_leaf(p, fd);
	snprintf(p->reason, sizeof(p->reason), "%s holds processes, so its children cannot have "
		 "controllers (cgroup v2's no-internal-processes rule)", p->dir);
	return false;
}

/* Whether the cgroup at P->dir can hold the sandbox's: it offers NEED
 * and something of WANT, the caller may write it, and the controllers
 * can be enabled for its children.  Keeps its fd in P->fd. */
static bool try_candidate(struct pick *p, unsigned need, unsigned want)
{
	int fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *list;

	if (fd < 0) {
		snprintf(p->reason, sizeof(p->reason), "%s: %s", p->dir, strerror(errno));
		return false;
	}
	if (!p->dry && may_write(fd))
		sweep_stale(fd);
	list = read_text_at(fd, "cgroup.controllers");
	p->have = list ? limits_controller_bits(list) : 0;
	describe_controllers(p, list ? list : "");
	free(list);
	if ((p->have & need) == need && (p->have & want)) {
		if (!may_write(fd))
			snprintf(p->reason, sizeof(p->reason), "%s: not writable by uid %u: %s",
				 p->dir, (unsigned)getuid(), strerror(errno));
		else if (may_have_children(p, fd) && (p->dry || enable_controllers(p, fd, p->have & want)))
			p->fd = fd;
	}
	if (p->fd < 0 && p->self_leaf[0]) {
		leave_leaf(fd, p->self_leaf, p->enabled);
		p->self_leaf[0] = '\0';
	}
	if (p->fd < 0)
		p->enabled = 0;
	if (p->fd < 0)
		close(fd);
	return p->fd >= 0;
}

/* Cut the last component of DIR, never above MNT. */
static bool up_one(char *dir, const char *mnt)
{
	char *slash = strrchr(dir, '/');

	if (strlen(dir) <= strlen(mnt) || !slash)
		return false;
	*slash = '\0';
	if (strlen(dir) < strlen(mnt))
		strcpy(dir, mnt);
	return true;
}

/* Our own cgroup's directory and the cgroup2 mount point; or false
 * with the reason in P. */
static bool locate_own_cgroup(struct pick *p, char *mnt, size_t mntlen)
{
	char *cg = read_text_at(AT_FDCWD, "/proc/self/cgroup");
	char *mi = read_text_at(AT_FDCWD, "/proc/self/mountinfo");
	char path[PATH_MAX];
	int r = -3;

	if (cg && mi && limits_cgroup2_path(cg, path, sizeof(path)) == 0)
		r = limits_cgroup_dir(mi, path, p->dir, sizeof(p->dir), mnt, mntlen);
	free(cg);
	free(mi);
	if (r == -1)
		snprintf(p->reason, sizeof(p->reason), "no cgroup2 file system is mounted");
	else if (r == -2)
		snprintf(p->reason, sizeof(p->reason), "no cgroup2 mount shows this process's cgroup %s", path);
	else if (r == -3)
		snprintf(p->reason, sizeof(p->reason), "no cgroup v2 path in /proc/self/cgroup");
	return r == 0;
}

/* From our own cgroup up to the hierarchy's root: the first where the
 * sandbox's cgroup can go.  P->reason is then the topmost's failure. */
static bool pick_parent(struct pick *p, unsigned need, unsigned want)
{
	char mnt[PATH_MAX];

	if (!locate_own_cgroup(p, mnt, sizeof(mnt)))
		return false;
	bool found = false;

	p->mnt = mnt;
	p->own = true;
	do {
		found = try_candidate(p, need, want);
		p->own = false;
	} while (!found && up_one(p->dir, mnt));
	p->mnt = NULL;	/* MNT is this function's */
	return found;
}

static const char *option_of(const struct plan *plan, unsigned bit)
{
	if (bit == CTL_MEMORY)
		return plan->memory ? "--memory" : "--memory-swap";
	return bit == CTL_CPU ? "--cpu" : "--pids";
}

/* "limits: --memory: no usable cgroup v2 memory controller (why)". */
static int no_cgroup(struct sandbox *sb, unsigned need, const struct pick *p)
{
	unsigned missing = need & ~p->have;

	for (size_t i = 0; i < N_CONTROLLERS; i++) {
		unsigned bit = controllers[i].bit;

		if ((missing ? missing : need) & bit) {
			snprintf(sb->err, sizeof(sb->err),
				 "limits: %s: no usable cgroup v2 %s controller (%.3900s)",
				 option_of(sb->plan, bit), controllers[i].name, p->reason);
			return -1;
		}
	}
	return -1;
}

/* ---- the sandbox's cgroup ---- */

static void cgroup_path(const struct sandbox *sb, char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s%s%s", sb->limits->parent, sb->limits->name, file ? "/" : "", file ? file : "");
}

static int make_cgroup_dir(struct sandbox *sb)
{
	char path[PATH_MAX + 80];

	int r = -1;

	errno = EEXIST;
	for (unsigned n = 0; r < 0 && errno == EEXIST && n < 0x10000; n++) {
		snprintf(sb->limits->name, sizeof(sb->limits->name), "hutch-%d-%04x", (int)getpid(), n);
		r = mkdirat(sb->limits->parent_fd, sb->limits->name, 0755);
	}
	if (r < 0) {
		cgroup_path(sb, path, sizeof(path), NULL);
		sb->limits->name[0] = '\0';
		return log_fail(sb->err, sizeof(sb->err), "limits", "create cgroup", path, errno);
	}
	sb->cgroup_fd = openat(sb->limits->parent_fd, sb->limits->name,
			       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sb->cgroup_fd < 0) {
		cgroup_path(sb, path, sizeof(path), NULL);
		return log_fail(sb->err, sizeof(sb->err), "limits", "open cgroup", path, errno);
	}
	return 0;
}

static int set_limit(struct sandbox *sb, const char *option, const char *file, const char *value)
{
	char path[PATH_MAX + 80], what[64];

	if (write_text_at(sb->cgroup_fd, file, value) == 0)
		return 0;
	cgroup_path(sb, path, sizeof(path), file);
	snprintf(what, sizeof(what), "%s: write", option);
	return log_fail(sb->err, sizeof(sb->err), "limits", what, path, errno);
}

static void amount_text(unsigned long long v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%llu", v);
}

static int write_limits(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	char v[64];

	amount_text(plan->memory, v, sizeof(v));
	if (plan->memory && set_limit(sb, "--memory", "memory.max", v) < 0)
		return -1;
	amount_text(plan->memory_swap, v, sizeof(v));
	if (plan->memory_swap && set_limit(sb, "--memory-swap", "memory.swap.max", v) < 0)
		return -1;
	limits_cpu_max(plan->cpu, v, sizeof(v));
	if (plan->cpu > 0 && set_limit(sb, "--cpu", "cpu.max", v) < 0)
		return -1;
	snprintf(v, sizeof(v), "%lld", plan->pids);
	if ((sb->limits->enabled & CTL_PIDS) && set_limit(sb, "--pids", "pids.max", v) < 0)
		return -1;
	return 0;
}

/* The cgroup v2 part: a cgroup with the limits, or an error when a limit
 * that needs one has none; --pids alone falls back to RLIMIT_NPROC. */
static int cgroup_prepare(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	unsigned need = needed_controllers(plan);
	unsigned want = need | (plan->pids > 0 ? CTL_PIDS : 0);
	struct pick p = { .fd = -1 };

	if (!want)
		return 0;
	if (!pick_parent(&p, need, want)) {
		snprintf(sb->limits->why_none, sizeof(sb->limits->why_none), "%s", p.reason);
		return need ? no_cgroup(sb, need, &p) : 0;
	}
	sb->limits->parent_fd = p.fd;
	sb->limits->enabled = p.have & want;
	sb->limits->we_enabled = p.enabled;
	snprintf(sb->limits->self_leaf, sizeof(sb->limits->self_leaf), "%s", p.self_leaf);
	snprintf(sb->limits->parent, sizeof(sb->limits->parent), "%s", p.dir);
	if (plan->pids > 0 && !(sb->limits->enabled & CTL_PIDS))
		snprintf(sb->limits->why_none, sizeof(sb->limits->why_none), "%s", p.reason);
	if (make_cgroup_dir(sb) < 0)
		return -1;
	return write_limits(sb);
}

/* ---- --pids without a cgroup ---- */

/* The kernel exempts the host's root (kuid 0) from RLIMIT_NPROC.  From
 * here only one level of user namespaces is visible: a uid that maps to
 * 0 in the parent counts as root (the safe side: a warning too many). */
static bool caller_is_host_root(const struct plan *plan)
{
	char *map = read_text_at(AT_FDCWD, "/proc/self/uid_map");
	long long parent = map ? limits_map_uid(map, plan->caller_uid) : 0;

	free(map);
	return parent == 0;
}

/* --pids that nothing enforces: an error when the command line asked
 * for it; when a profile did, the run goes on quietly (so that
 * `hutch COMMAND` still runs for root where no pids controller is
 * usable) and --explain and --doctor say so. */
static int unenforced_pids(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	bool asked = plan->pids_origin && strcmp(plan->pids_origin, "command line") == 0;

	if (plan->pids == 0 || sb->limits->nproc || (sb->limits->enabled & CTL_PIDS) || !asked)
		return 0;
	snprintf(sb->err, sizeof(sb->err),
		 "limits: --pids %lld is not enforced for a caller that is root without a "
		 "usable cgroup v2 pids controller (%.3900s)", plan->pids, sb->limits->why_none);
	return -1;
}

/* For --doctor: where a run would make its cgroup, read-only. */
bool limits_probe_cgroup(char *dir, size_t dirlen, char *controllers_list, size_t listlen,
			 char *reason, size_t reasonlen)
{
	struct pick p = { .fd = -1, .dry = true };
	bool found = pick_parent(&p, 0, CTL_MEMORY | CTL_CPU | CTL_PIDS);
	char *list = NULL;

	if (found) {
		list = read_text_at(p.fd, "cgroup.controllers");
		close(p.fd);
	}
	snprintf(dir, dirlen, "%s", p.dir);
	snprintf(controllers_list, listlen, "%.*s", list ? (int)strcspn(list, "\n") : 0,
		 list ? list : "");
	snprintf(reason, reasonlen, "%s", p.reason);
	free(list);
	return found;
}

/* For --explain: how this machine would enforce --pids, read-only. */
bool limits_pids_enforced(const struct plan *plan, char *how, size_t len)
{
	struct pick p = { .fd = -1, .dry = true };

	if ((plan->clone_flags & CLONE_NEWUSER) && !caller_is_host_root(plan)) {
		snprintf(how, len, "RLIMIT_NPROC in the sandbox's user namespace");
		return true;
	}
	if (pick_parent(&p, 0, CTL_PIDS) && (p.have & CTL_PIDS)) {
		close(p.fd);
		snprintf(how, len, "pids.max in a cgroup under %s", p.dir);
		return true;
	}
	snprintf(how, len, "NOT enforced here: the kernel exempts root from RLIMIT_NPROC, and no "
		 "cgroup v2 pids controller is usable (%s)", p.reason);
	return false;
}

int limits_prepare(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	sb->limits = calloc(1, sizeof(*sb->limits));
	if (!sb->limits) {
		snprintf(sb->err, sizeof(sb->err), "limits: state: out of memory");
		return -1;
	}
	sb->limits->parent_fd = -1;
	/* Without a new user namespace RLIMIT_NPROC would count every
	 * process of the caller's uid on the host. */
	sb->limits->nproc = plan->pids > 0 && (plan->clone_flags & CLONE_NEWUSER) &&
		      !caller_is_host_root(plan);
	if (cgroup_prepare(sb) < 0)
		return -1;
	return unenforced_pids(sb);
}

/* With clone3, pid 1 started in the cgroup and this changes nothing;
 * with the clone fallback it moves pid 1 before it is released. */
int limits_attach(struct sandbox *sb)
{
	char pid[32], path[PATH_MAX + 80];

	if (sb->cgroup_fd < 0)
		return 0;
	snprintf(pid, sizeof(pid), "%d", (int)sb->pid1);
	if (write_text_at(sb->cgroup_fd, "cgroup.procs", pid) == 0)
		return 0;
	cgroup_path(sb, path, sizeof(path), "cgroup.procs");
	return log_fail(sb->err, sizeof(sb->err), "limits", "move pid 1 into", path, errno);
}

/* ---- inside the sandbox ---- */

static void close_host_cgroup_fds(struct sandbox *sb)
{
	if (sb->cgroup_fd >= 0)
		close(sb->cgroup_fd);
	if (sb->limits->parent_fd >= 0)
		close(sb->limits->parent_fd);
	sb->cgroup_fd = sb->limits->parent_fd = -1;
}

int limits_apply_nproc(struct sandbox *sb)
{
	struct rlimit rl;
	bool in_cgroup = sb->limits->name[0] != '\0';

	/* No fd to a host cgroup directory stays within reach of the sandbox. */
	close_host_cgroup_fds(sb);
	/* A cgroup namespace rooted at the sandbox's cgroup: the kernel then
	 * refuses to move its processes out of it, and so out of its limits. */
	if (in_cgroup && unshare(CLONE_NEWCGROUP) < 0)
		return log_fail(sb->err, sizeof(sb->err), "limits", "new cgroup namespace",
				"for the sandbox's cgroup", errno);
	if (!sb->limits->nproc)
		return 0;
	if (getrlimit(RLIMIT_NPROC, &rl) < 0)
		return log_fail(sb->err, sizeof(sb->err), "limits", "get rlimit", "nproc", errno);
	/* The caller's own hard limit, when lower, is the stricter cap. */
	if (rl.rlim_max > (rlim_t)sb->plan->pids)
		rl.rlim_max = (rlim_t)sb->plan->pids;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &rl) < 0)
		return log_fail(sb->err, sizeof(sb->err), "limits", "--pids:", "RLIMIT_NPROC", errno);
	return 0;
}

/* Whether a later --rlimit sets the same resource (the last one wins). */
static bool overridden(const struct plan *plan, size_t i)
{
	for (size_t j = i + 1; j < plan->n_rlimits; j++)
		if (plan->rlimits[j].resource == plan->rlimits[i].resource)
			return true;
	return false;
}

static int rlimit_failure(struct sandbox *sb, const struct rlimit_setting *r,
			  const struct rlimit *cur, int errnum)
{
	const char *name = limits_rlimit_name(r->resource);
	char limit[32];

	if (errnum != EPERM || r->hard <= cur->rlim_max) {
		snprintf(sb->err, sizeof(sb->err), "limits: rlimit %s: %s", name, strerror(errnum));
		return -1;
	}
	limits_format_rlimit(r->resource, cur->rlim_max, limit, sizeof(limit));
	snprintf(sb->err, sizeof(sb->err), "limits: rlimit %s: %s (hard limit above %s%s)", name,
		 strerror(errnum), sb->limits->nproc && r->resource == RLIMIT_NPROC ? "--pids " :
		 "the caller's ", limit);
	return -1;
}

static int apply_rlimit(struct sandbox *sb, const struct rlimit_setting *r)
{
	struct rlimit cur, want = { .rlim_cur = r->soft, .rlim_max = r->hard };

	if (getrlimit(r->resource, &cur) < 0)
		cur.rlim_max = RLIM_INFINITY;
	if (setrlimit(r->resource, &want) < 0)
		return rlimit_failure(sb, r, &cur, errno);
	return 0;
}

int limits_apply(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	for (size_t i = 0; i < plan->n_rlimits; i++)
		if (!overridden(plan, i) && apply_rlimit(sb, &plan->rlimits[i]) < 0)
			return -1;
	return 0;
}

/* ---- after the run ---- */

/* The signal that ended COMMAND, or 0. */
static int command_signal(const struct sandbox *sb)
{
	const struct run_state *rs = &sb->run;

	if (rs->command_ended || rs->command_signal)
		return rs->command_signal;
	return rs->reaped && rs->code != CLD_EXITED ? rs->status : 0;
}

static const struct rlimit_setting *rlimit_in_force(const struct plan *plan, int resource)
{
	for (size_t i = plan->n_rlimits; i-- > 0;)
		if (plan->rlimits[i].resource == resource)
			return &plan->rlimits[i];
	return NULL;
}

static void say(const struct sandbox *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct sandbox *sb, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warning(sb->plan->prog, msg);
}

/* CPU seconds used by the sandbox's processes, all reaped by now. */
static double sandbox_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* At the hard CPU limit the kernel sends SIGKILL (and only that when
 * soft and hard are equal).  The CPU time used tells, roughly: rusage
 * undercounts what the limit measures by several percent. */
static bool killed_at_hard_cpu(const struct sandbox *sb, const struct rlimit_setting *cpu,
			       int sig)
{
	return sig == SIGKILL && !sb->run.timed_out && cpu->hard != RLIM_INFINITY &&
	       sandbox_cpu_seconds() >= 0.75 * (double)cpu->hard;
}

/* SIGXCPU or SIGXFSZ with the matching rlimit set: that limit ended
 * COMMAND. */
static void note_rlimit_signal(const struct sandbox *sb, int sig)
{
	const struct rlimit_setting *cpu = rlimit_in_force(sb->plan, RLIMIT_CPU);
	const struct rlimit_setting *fsize = rlimit_in_force(sb->plan, RLIMIT_FSIZE);
	char value[32];

	if (cpu && (sig == SIGXCPU || killed_at_hard_cpu(sb, cpu, sig))) {
		sb->limits->ended_by = "cpu-time";
		limits_format_rlimit(RLIMIT_CPU, sig == SIGXCPU ? cpu->soft : cpu->hard, value,
				     sizeof(value));
		say(sb, "COMMAND was killed by %s at its CPU time limit (rlimit cpu %s)",
		    sig == SIGXCPU ? "SIGXCPU" : "SIGKILL", value);
	} else if (fsize && sig == SIGXFSZ) {
		sb->limits->ended_by = "file-size";
		limits_format_rlimit(RLIMIT_FSIZE, fsize->soft, value, sizeof(value));
		say(sb, "COMMAND was killed by SIGXFSZ at its file size limit (rlimit fsize %s)",
		    value);
	}
}

static long long cgroup_event(const struct sandbox *sb, unsigned controller, const char *file,
			       const char *key)
{
	char path[96], *text;
	long long n;

	if (!(sb->limits->enabled & controller))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", sb->limits->name, file);
	text = read_text_at(sb->limits->parent_fd, path);
	n = text ? limits_event_count(text, key) : -1;
	free(text);
	return n;
}

/* memory.events' oom_kill: the memory limit ended COMMAND (SIGKILL) or
 * other processes of the sandbox. */
static void note_oom(const struct sandbox *sb, int sig)
{
	long long n = cgroup_event(sb, CTL_MEMORY, "memory.events", "oom_kill");
	char limit[32];

	if (n <= 0)
		return;
	limits_format_bytes(sb->plan->memory ? sb->plan->memory : RLIM_INFINITY, limit,
			    sizeof(limit));
	if (sig == SIGKILL) {
		sb->limits->ended_by = "memory";
		say(sb, "COMMAND was killed by the OOM killer (memory limit %s)", limit);
	} else {
		say(sb, "limits: the OOM killer killed %lld processes in the sandbox "
		    "(memory limit %s)", n, limit);
	}
}

/* pids.events' max: forks refused at pids.max. */
static void note_pids_max(const struct sandbox *sb)
{
	long long n = cgroup_event(sb, CTL_PIDS, "pids.events", "max");

	if (n <= 0)
		return;
	if (!sb->limits->ended_by)
		sb->limits->ended_by = "pids";
	say(sb, "limits: %lld forks failed at the process limit (pids.max %lld)", n,
	    sb->plan->pids);
}

static void remove_cgroup(const struct sandbox *sb)
{
	char path[PATH_MAX + 80], msg[PATH_MAX + 200];

	if (unlinkat(sb->limits->parent_fd, sb->limits->name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		cgroup_path(sb, path, sizeof(path), NULL);
		snprintf(msg, sizeof(msg), "limits: remove cgroup %s: %s (the next start removes it)",
			 path, strerror(errno));
		log_warning(sb->plan->prog, msg);
	}
	sb->limits->name[0] = '\0';
}

/* The limit that ended COMMAND ("memory", "pids", "cpu-time",
 * "file-size"), or NULL; valid after limits_finish. */
const char *limits_ended_by(const struct sandbox *sb)
{
	return sb->limits ? sb->limits->ended_by : NULL;
}

void limits_finish(struct sandbox *sb)
{
	int sig;

	if (!sb->limits)
		return;
	sig = command_signal(sb);
	if (sb->limits->name[0]) {
		note_oom(sb, sig);
		note_pids_max(sb);
		remove_cgroup(sb);
	}
	if (sb->limits->self_leaf[0] && sb->limits->parent_fd >= 0)
		leave_leaf(sb->limits->parent_fd, sb->limits->self_leaf, sb->limits->we_enabled);
	sb->limits->self_leaf[0] = '\0';
	if (!sb->limits->ended_by)
		note_rlimit_signal(sb, sig);
	close_host_cgroup_fds(sb);
}

void limits_release(struct sandbox *sb)
{
	free(sb->limits);
	sb->limits = NULL;
}
