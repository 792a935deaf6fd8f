/* The fallback where user namespaces are refused.
 *
 * Detection.  When clone fails (or, under Ubuntu's AppArmor restriction,
 * clone succeeds and the uid_map write or the first mount fails), a probe
 * process retraces the steps alone (unshare, uid_map, a mount in its own
 * mount namespace) and the result names what refused and the fix in one
 * line: a seccomp filter, kernel.unprivileged_userns_clone,
 * user.max_user_namespaces, AppArmor, or a kernel without user namespaces.
 *
 * --fallback landlock.  COMMAND runs without namespaces as a child of the
 * supervisor, which is a subreaper and kills every descendant when COMMAND
 * ends.  Before the policy stage (capabilities, no_new_privs, the seccomp
 * policy, fds: the same code as the namespace path) COMMAND's process is
 * confined by a Landlock ruleset built from the same plan (all the fs
 * rights the kernel's ABI knows are handled: what no rule grants is
 * denied), Landlock scoping (abstract unix sockets, signals) and, when the
 * plan has no network, Landlock's TCP rules and a seccomp filter that
 * leaves socket() only AF_UNIX.  What cannot be expressed is refused
 * before anything runs; Landlock missing is a failure, never an
 * unconfined COMMAND.
 *
 * The fs operations, in order (a later one at PATH replaces what earlier
 * ones gave at and beneath PATH, as a mount on top would):
 *   --ro-bind, --mirror, --ro-bind-try SRC SRC   read and execute on SRC
 *   --bind D D                                   read, write, execute on D
 *   --dev-bind D D                               the same, and devices
 *   --proc /proc                                 read (the host's /proc)
 *   --dev /dev                                   read-write on null, zero,
 *                                                full, random, urandom, tty
 *   --tmpfs /tmp, --tmpfs $HOME                  a per-run directory,
 *                                                named by TMPDIR and HOME
 *   --tmpfs elsewhere                            no access (the host's stays
 *                                                hidden, nothing is writable)
 *   --remount-ro P                               write rights taken away at
 *                                                and beneath P
 *   --dir D, --symlink T D                       kept when the host has the
 *                                                same already; otherwise refused
 * Inside a per-run directory --dir, --tmpfs, --symlink and --chmod are
 * carried out there, and a bind becomes a symlink to the host path plus
 * its rule.  Refused: binds whose source and destination differ, --proc
 * or --dev elsewhere, a rule beneath another that grants more (Landlock
 * only adds rights: it cannot hide what a rule above grants), --file,
 * --bind-data, --bind-fd, overlays, --mqueue, --uid/--gid other than the
 * caller's, --hostname. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwrap_text.h"
#include "landlock.h"
#include "landlock_scope.h"
#include "log.h"
#include "pty.h"
#include "resource_limits.h"
#include "sandbox.h"
#include "status.h"
#include "util.h"

/* ---- Landlock's interface as of ABI 7 (Debian 12's headers stop at 2) ---- */

#define LL_RULE_PATH_BENEATH	1
#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The rights a plan gives. */
#define R_READ	 (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define R_RX	 (R_READ | LL_FS_EXECUTE)
#define R_WRITE	 (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | \
		  LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | \
		  LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE)
#define R_RW	 (R_RX | R_WRITE)
#define R_DEVICES (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK | LL_FS_IOCTL_DEV)
#define R_NODE	 (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
/* The only rights a rule on a file (not a directory) may carry. */
#define R_FILE	 (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
		  LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

static const char *const dev_nodes[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};

/* ---- what this run found, for the stderr line and the status fd ---- */

static struct {
	char reason[512];	/* why user namespaces are refused */
	int abi;
	bool deny_net;
	bool host_proc;
} found;

enum approximation {
	APPROX_PER_RUN, APPROX_SUBREAPER, APPROX_UNIX_UDP, APPROX_IPC, APPROX_PROC,
	APPROX_NO_SCOPE, APPROX_TCP_SECCOMP, N_APPROX,
};

static const char *const approximation_text[N_APPROX] = {
	[APPROX_PER_RUN] = "private /tmp and HOME are per-run directories",
	[APPROX_SUBREAPER] = "no pid namespace (a subreaper instead)",
	[APPROX_UNIX_UDP] = "pathname unix sockets (e.g. a readable docker.sock) and UDP "
			    "are not mediated",
	[APPROX_IPC] = "SysV IPC and POSIX message queues are the host's",
	[APPROX_PROC] = "/proc is the host's, read-only",
	[APPROX_NO_SCOPE] = "abstract unix sockets and signals are not scoped (Landlock ABI < 6)",
	[APPROX_TCP_SECCOMP] = "TCP is refused by seccomp alone (Landlock ABI < 4)",
};

static bool approximation_applies(enum approximation a)
{
	switch (a) {
	case APPROX_PROC: return found.host_proc;
	case APPROX_NO_SCOPE: return found.abi < 6;
	case APPROX_TCP_SECCOMP: return found.deny_net && found.abi < 4;
	default: return true;
	}
}

const char *landlock_approximation(int i)
{
	for (int a = 0; a < N_APPROX; a++)
		if (approximation_applies((enum approximation)a) && i-- == 0)
			return approximation_text[a];
	return NULL;
}

static void format_approximations(char *buf, size_t len)
{
	const char *text;
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; (text = landlock_approximation(i)) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "; " : "", text);
}

/* ---- small file helpers ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static long read_number(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

/* The fields of /proc/PID/stat after the command name, in BUF. */
static const char *stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64];
	const char *paren;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] ? paren + 2 : NULL;
}

static pid_t parent_of(pid_t pid)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof(buf));
	int ppid = -1;

	return f && sscanf(f, "%*c %d", &ppid) == 1 ? ppid : -1;
}

/* Start time in clock ticks since boot: with the pid, names a process
 * for good (a pid alone is recycled). */
static unsigned long long start_time(pid_t pid)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof(buf));
	unsigned long long t = 0;

	if (f && sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			"%*d %*d %*d %*d %llu", &t) != 1)
		t = 0;
	return t;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- detection ---- */

#define USERNS_CLONE_SYSCTL "/proc/sys/kernel/unprivileged_userns_clone"
#define APPARMOR_SYSCTL "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define MAX_USERNS_SYSCTL "/proc/sys/user/max_user_namespaces"

enum probe_step { PROBE_OK, PROBE_UNSHARE, PROBE_MAP, PROBE_MOUNT, PROBE_FAILED };

struct probe {
	int step;	/* the first step that failed */
	int err;
};

enum refusal {
	REFUSED_NOT, REFUSED_SECCOMP, REFUSED_SYSCTL, REFUSED_COUNT, REFUSED_APPARMOR,
	REFUSED_KERNEL, REFUSED_OTHER,
};

static const struct { const char *reason, *fix; } refusals[] = {
	[REFUSED_SECCOMP] = {
		"a seccomp filter refuses clone and unshare with CLONE_NEWUSER, "
		"as Docker's default profile does",
		"run the container with --security-opt seccomp=unconfined or a profile "
		"allowing clone with CLONE_NEWUSER" },
	[REFUSED_SYSCTL] = {
		"kernel.unprivileged_userns_clone is 0",
		"sysctl -w kernel.unprivileged_userns_clone=1" },
	[REFUSED_COUNT] = {
		NULL,	/* with the limit's value: see count_reason */
		"sysctl -w user.max_user_namespaces=15000" },
	[REFUSED_APPARMOR] = {
		"kernel.apparmor_restrict_unprivileged_userns=1 leaves the new user "
		"namespace without capabilities",
		"an AppArmor profile with `userns,` for this binary, or sysctl "
		"kernel.apparmor_restrict_unprivileged_userns=0" },
	[REFUSED_KERNEL] = {
		"this kernel has no user namespaces",
		"a kernel built with CONFIG_USER_NS" },
	[REFUSED_OTHER] = {
		NULL,	/* with the step and errno: see other_reason */
		"look for the seccomp filter or security module (SELinux, AppArmor) "
		"that applies to hutch" },
};

/* In the probe process: the steps of a sandbox's set-up, alone. */
static void __attribute__((noreturn)) probe_steps(int out)
{
	struct probe r = { PROBE_OK, 0 };
	char map[32];

	snprintf(map, sizeof(map), "0 %u 1", (unsigned)geteuid());
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		r = (struct probe){ PROBE_UNSHARE, errno };
	else if (write_text("/proc/self/setgroups", "deny") < 0 ||
		 write_text("/proc/self/uid_map", map) < 0)
		r = (struct probe){ PROBE_MAP, errno };
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		r = (struct probe){ PROBE_MOUNT, errno };
	_exit(write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

static struct probe run_probe(void)
{
	struct probe r = { PROBE_FAILED, 0 };
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return r;
	pid = fork();
	if (pid == 0)
		probe_steps(p[1]);
	close(p[1]);
	if (pid > 0) {
		if (read(p[0], &r, sizeof(r)) != sizeof(r))
			r = (struct probe){ PROBE_FAILED, 0 };
		waitpid(pid, NULL, 0);
	}
	close(p[0]);
	return r;
}

static bool seccomp_filtered(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	bool filtered = false;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			filtered = strtol(line + 8, NULL, 10) == 2;
	if (f)
		fclose(f);
	return filtered;
}

static enum refusal classify_eperm(const struct probe *r)
{
	bool apparmor = read_number(APPARMOR_SYSCTL) == 1;

	if (r->step != PROBE_UNSHARE)
		return apparmor ? REFUSED_APPARMOR : REFUSED_OTHER;
	if (read_number(USERNS_CLONE_SYSCTL) == 0 && geteuid() != 0)
		return REFUSED_SYSCTL;
	if (seccomp_filtered())
		return REFUSED_SECCOMP;
	return apparmor ? REFUSED_APPARMOR : REFUSED_OTHER;
}

static enum refusal classify(const struct probe *r)
{
	if (r->step == PROBE_OK || r->step == PROBE_FAILED)
		return REFUSED_NOT;	/* a user namespace alone is fine */
	if (r->err == ENOSPC || r->err == EUSERS)
		return REFUSED_COUNT;
	if (r->err == EINVAL && r->step == PROBE_UNSHARE)
		return REFUSED_KERNEL;
	if (r->err == EPERM || r->err == EACCES)
		return classify_eperm(r);
	return REFUSED_NOT;
}

static void count_reason(char *buf, size_t len)
{
	long max = read_number(MAX_USERNS_SYSCTL);

	if (max == 0)
		snprintf(buf, len, "user.max_user_namespaces is 0");
	else
		snprintf(buf, len, "the user namespace limit is reached "
			 "(user.max_user_namespaces is %ld, or 32 levels of nesting)", max);
}

static void other_reason(const struct probe *r, char *buf, size_t len)
{
	static const char *const steps[] = {
		[PROBE_UNSHARE] = "unshare", [PROBE_MAP] = "the uid_map write",
		[PROBE_MOUNT] = "the first mount",
	};

	snprintf(buf, len, "%s fails: %s", steps[r->step], strerror(r->err));
}

/* sb->err: "STAGE: new user namespace refused: REASON; fix: FIX". */
static void describe_refusal(struct sandbox *sb, enum refusal kind, const struct probe *r)
{
	const struct plan *plan = sb->plan;

	if (kind == REFUSED_COUNT)
		count_reason(found.reason, sizeof(found.reason));
	else if (kind == REFUSED_OTHER)
		other_reason(r, found.reason, sizeof(found.reason));
	else
		snprintf(found.reason, sizeof(found.reason), "%s", refusals[kind].reason);
	snprintf(sb->err, sizeof(sb->err), "%s: new user namespace refused: %s; fix: %s%s",
		 sb->pid1 > 0 ? "idmap" : "clone", found.reason, refusals[kind].fix,
		 plan->fallback == FALLBACK_NONE ?
		 "; or --fallback landlock to run confined by Landlock instead" : "");
}

/* bwrap mode never falls back: bwrap's messages. */
static bool bwrap_refusal(struct sandbox *sb, int errnum)
{
	bool userns = sb->plan->clone_flags & CLONE_NEWUSER;
	enum bwrap_text id = BW_NEW_NAMESPACE;

	if (sb->pid1 > 0)
		return false;	/* after clone: the stage's own message */
	if (userns && errnum == EINVAL)
		id = BW_NEW_NAMESPACE_EINVAL;
	else if (userns && errnum == EPERM)
		id = BW_NEW_NAMESPACE_EPERM;
	else if (errnum == ENOSPC)
		id = BW_NEW_NAMESPACE_ENOSPC;
	bwrap_text_fail(sb->err, sizeof(sb->err), MODE_BWRAP,
			&(struct failure){ "clone", "new namespaces", "(clone3)", id, NULL, NULL },
			errnum);
	return true;
}

bool landlock_userns_refused(struct sandbox *sb, int errnum)
{
	struct probe r;
	enum refusal kind;

	if (sb->plan->mode == MODE_BWRAP)
		return bwrap_refusal(sb, errnum);
	if (!(sb->plan->clone_flags & CLONE_NEWUSER) ||
	    (errnum != 0 && errnum != EPERM && errnum != EACCES && errnum != ENOSPC &&
	     errnum != EUSERS && errnum != EINVAL))
		return false;	/* not a refusal: ENOMEM, EAGAIN, ... */
	r = run_probe();
	kind = classify(&r);
	if (kind == REFUSED_NOT)
		return false;
	describe_refusal(sb, kind, &r);
	return true;
}

bool landlock_userns_restricted(struct sandbox *sb)
{
	if (sb->plan->mode == MODE_BWRAP || read_number(APPARMOR_SYSCTL) != 1)
		return false;
	return landlock_userns_refused(sb, 0);
}

/* ---- the plan as Landlock rules ---- */

enum { AREA_TMP, AREA_HOME, N_AREAS };

/* A tmpfs that becomes a per-run directory. */
struct area {
	char *dest;		/* its path in the plan; NULL: none */
	uint64_t access;
	int fd;			/* O_PATH, once made */
	char host[PATH_MAX];	/* the per-run directory */
};

static const char *const area_leaf[N_AREAS] = { "tmp", "home" };

struct rule {
	char *path;
	uint64_t access;	/* 0: nothing there (a tmpfs elsewhere) */
	const struct fs_op *op;
};

enum make_kind { MAKE_DIR, MAKE_LINK, MAKE_CHMOD };

/* Set-up inside a per-run directory, done by hutch before COMMAND runs. */
struct make {
	enum make_kind kind;
	int area;
	char *rel;		/* path inside the area */
	char *target;		/* MAKE_LINK */
	mode_t mode;
	const struct fs_op *op;
};

struct fallback {
	const struct plan *plan;
	char *err;
	size_t errlen;
	struct rule *rules;
	size_t n_rules;
	struct make *makes;
	size_t n_makes;
	struct area areas[N_AREAS];
	char *home;		/* the HOME whose tmpfs becomes per-run */
	char *workdir;		/* where COMMAND starts, mapped; NULL: stay */
	bool deny_net;
	char base[PATH_MAX];	/* where per-run directories live */
	char run_name[128];	/* this run's, in base; "" until made */
	int base_fd;
	int run_fd;
	int ruleset;
	scmp_filter_ctx net_filter;
	int chld_fd;		/* SIGCHLD, for orphans and teardown */
	int self_fd;		/* the supervisor's own pidfd */
};


/* "--ro-bind /usr /usr": the operation as the caller wrote it. */
static void describe_op(const struct fs_op *op, char *buf, size_t len)
{
	const char *name = plan_op_name(op->kind);
	bool show_src = op->src && op->kind != FS_MIRROR;

	if (op->kind == FS_BIND)
		name = (op->flags & FS_DEVICES) ? "dev-bind" :
		       (op->flags & FS_READONLY) ? "ro-bind" : "bind";
	snprintf(buf, len, "--%s%s%s%s %s", name,
		 op->kind == FS_BIND && (op->flags & FS_TRY) ? "-try" : "",
		 show_src ? " " : "", show_src ? op->src : "", op->dest);
}

static int refuse(struct fallback *fb, const struct fs_op *op, const char *why)
{
	char what[PATH_MAX * 2 + 32];

	describe_op(op, what, sizeof(what));
	snprintf(fb->err, fb->errlen, "fallback: %s: %s", what, why);
	return -1;
}

/* PATH made canonical without the file system: absolute, no repeated or
 * trailing '/'; "." and ".." are refused (-1), never resolved. */
static int clean_path(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (!in || in[0] != '/')
		return -1;
	for (const char *p = in; *p;) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		if (n > 0 && o + n + 2 > len)
			return -1;
		if (n > 0) {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p = end;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* Is PATH strictly beneath DIR? */
static bool beneath(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return strcmp(path, "/") != 0;
	return strncmp(path, dir, len) == 0 && path[len] == '/';
}

static bool at_or_beneath(const char *path, const char *dir)
{
	return strcmp(path, dir) == 0 || beneath(path, dir);
}

/* A later operation at PATH hides what a rule above PATH grants there;
 * Landlock only adds rights, so it cannot: refuse instead of exposing. */
static int check_covered(struct fallback *fb, const struct fs_op *op, const char *path,
			 uint64_t access)
{
	char other[PATH_MAX * 2 + 32], why[sizeof(other) + 128];

	for (size_t i = 0; i < fb->n_rules; i++) {
		const struct rule *r = &fb->rules[i];

		if (!beneath(path, r->path) || !(r->access & ~access))
			continue;
		describe_op(r->op, other, sizeof(other));
		snprintf(why, sizeof(why), "Landlock cannot take away beneath %s what it "
			 "grants; drop one of them", other);
		return refuse(fb, op, why);
	}
	return 0;
}

static void free_make(struct make *m)
{
	free(m->rel);
	free(m->target);
}

static void drop_area(struct fallback *fb, int area)
{
	size_t kept = 0;

	for (size_t i = 0; i < fb->n_makes; i++) {
		if (fb->makes[i].area == area) {
			free_make(&fb->makes[i]);
		} else {
			fb->makes[kept++] = fb->makes[i];
		}
	}
	fb->n_makes = kept;
	free(fb->areas[area].dest);
	fb->areas[area].dest = NULL;
}

/* What earlier operations gave at and beneath PATH is covered. */
static void drop_covered(struct fallback *fb, const char *path)
{
	size_t kept = 0;

	for (size_t i = 0; i < fb->n_rules; i++) {
		if (at_or_beneath(fb->rules[i].path, path))
			free(fb->rules[i].path);
		else
			fb->rules[kept++] = fb->rules[i];
	}
	fb->n_rules = kept;
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && at_or_beneath(fb->areas[a].dest, path))
			drop_area(fb, a);
}

static int add_rule(struct fallback *fb, const struct fs_op *op, const char *path,
		    uint64_t access)
{
	if (check_covered(fb, op, path, access) < 0)
		return -1;
	drop_covered(fb, path);
	fb->rules = xreallocarray(fb->rules, fb->n_rules + 1, sizeof(*fb->rules));
	fb->rules[fb->n_rules++] = (struct rule){ xstrdup(path), access, op };
	return 0;
}

/* What earlier operations made at and beneath REL in AREA is covered. */
static void drop_covered_makes(struct fallback *fb, int area, const char *rel)
{
	size_t kept = 0, len = strlen(rel);

	for (size_t i = 0; i < fb->n_makes; i++) {
		struct make *m = &fb->makes[i];

		if (m->area == area && strncmp(m->rel, rel, len) == 0 &&
		    (m->rel[len] == '\0' || m->rel[len] == '/'))
			free_make(m);
		else
			fb->makes[kept++] = *m;
	}
	fb->n_makes = kept;
}

static void add_make(struct fallback *fb, const struct fs_op *op, enum make_kind kind,
		     int area, const char *rel, const char *target)
{
	mode_t mode = op->has_perms ? op->perms : 0755;

	if (kind == MAKE_CHMOD)
		mode = op->perms;
	else
		drop_covered_makes(fb, area, rel);
	fb->makes = xreallocarray(fb->makes, fb->n_makes + 1, sizeof(*fb->makes));
	fb->makes[fb->n_makes++] = (struct make){ kind, area, xstrdup(rel),
						 target ? xstrdup(target) : NULL, mode, op };
}

static uint64_t bind_access(const struct fs_op *op)
{
	if (op->flags & FS_READONLY)
		return R_RX;
	return (op->flags & FS_DEVICES) ? R_RW | R_DEVICES : R_RW;
}

/* The host path a bind or mirror grants, in PATH; 0 with PATH "" when a
 * -try or --mirror source is absent. */
static int bind_source(struct fallback *fb, const struct fs_op *op, const char *dest,
		       char *path, size_t len)
{
	struct stat st;
	char why[256];

	if (clean_path(op->src, path, len) < 0 || strcmp(path, dest) != 0)
		return refuse(fb, op, "Landlock cannot move paths; use the same path "
			      "inside and out");
	if (stat(path, &st) == 0)
		return 0;
	path[0] = '\0';
	if (errno == ENOENT && ((op->flags & FS_TRY) || op->kind == FS_MIRROR))
		return 0;
	snprintf(why, sizeof(why), "%s", strerror(errno));
	return refuse(fb, op, why);
}

static bool is_symlink(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* --mirror keeps a host symlink a symlink: no rule, its target decides. */
static int add_bind(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	char src[PATH_MAX];

	if (bind_source(fb, op, dest, src, sizeof(src)) < 0)
		return -1;
	if (!src[0] || (op->kind == FS_MIRROR && is_symlink(src)))
		return 0;
	return add_rule(fb, op, src, op->kind == FS_MIRROR ? R_RX : bind_access(op));
}

static int remount_ro(struct fallback *fb, const struct fs_op *op, const char *path)
{
	if (check_covered(fb, op, path, R_RW & ~R_WRITE) < 0)
		return -1;
	for (size_t i = 0; i < fb->n_rules; i++)
		if (at_or_beneath(fb->rules[i].path, path))
			fb->rules[i].access &= ~R_WRITE;
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && at_or_beneath(fb->areas[a].dest, path))
			fb->areas[a].access &= ~R_WRITE;
	return 0;
}

/* --proc and --dev bring the host's: only at the same path. */
static int check_host_path(struct fallback *fb, const struct fs_op *op, const char *dest,
			   const char *host)
{
	char why[128];

	if (strcmp(dest, host) == 0)
		return 0;
	snprintf(why, sizeof(why), "Landlock cannot move paths: the host's %s is at %s",
		 host, host);
	return refuse(fb, op, why);
}

static int add_proc(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	if (check_host_path(fb, op, dest, "/proc") < 0)
		return -1;
	found.host_proc = true;
	return add_rule(fb, op, dest, R_READ);
}

static int add_dev(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	struct stat st;

	if (check_host_path(fb, op, dest, "/dev") < 0 || add_rule(fb, op, dest, 0) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
		if (stat(dev_nodes[i], &st) == 0 && add_rule(fb, op, dev_nodes[i], R_NODE) < 0)
			return -1;
	return 0;
}

static int add_tmpfs(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	int area = strcmp(dest, "/tmp") == 0 ? AREA_TMP :
		   fb->home && strcmp(dest, fb->home) == 0 ? AREA_HOME : -1;

	if (add_rule(fb, op, dest, 0) < 0)
		return -1;
	if (area >= 0) {
		free(fb->areas[area].dest);
		fb->areas[area].dest = xstrdup(dest);
		fb->areas[area].access = R_RW;
	}
	return 0;
}

/* --dir and --symlink outside the per-run directories would write to the
 * host: fine only when the host has the same already. */
static int keep_if_host_has(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (op->kind == FS_DIR && stat(dest, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	n = op->kind == FS_SYMLINK ? readlink(dest, target, sizeof(target) - 1) : -1;
	if (n >= 0) {
		target[n] = '\0';
		if (strcmp(target, op->src) == 0)
			return 0;
	}
	return refuse(fb, op, "Landlock cannot create paths on the host; only inside "
		      "the per-run /tmp and HOME");
}

/* The deepest per-run directory strictly above DEST, or -1. */
static int area_holding(const struct fallback *fb, const char *dest)
{
	int best = -1;

	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && beneath(dest, fb->areas[a].dest) &&
		    (best < 0 || strlen(fb->areas[a].dest) > strlen(fb->areas[best].dest)))
			best = a;
	return best;
}

/* A bind inside a per-run directory: the host path's rule, and a symlink
 * to it where the sandbox expects it. */
static int bind_in_area(struct fallback *fb, const struct fs_op *op, int area,
			const char *dest, const char *rel)
{
	char src[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if (bind_source(fb, op, dest, src, sizeof(src)) < 0)
		return -1;
	if (!src[0])
		return 0;
	if (op->kind == FS_MIRROR && is_symlink(src)) {
		n = readlink(src, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		add_make(fb, op, MAKE_LINK, area, rel, target);
		return 0;
	}
	add_make(fb, op, MAKE_LINK, area, rel, src);
	return add_rule(fb, op, src, op->kind == FS_MIRROR ? R_RX : bind_access(op));
}

static int translate_in_area(struct fallback *fb, const struct fs_op *op, int area,
			     const char *dest)
{
	const char *rel = dest + strlen(fb->areas[area].dest) + 1;

	if (strcmp(fb->areas[area].dest, "/") == 0)
		rel = dest + 1;
	switch (op->kind) {
	case FS_DIR:
	case FS_TMPFS:
		add_make(fb, op, MAKE_DIR, area, rel, NULL);
		return 0;
	case FS_SYMLINK:
		add_make(fb, op, MAKE_LINK, area, rel, op->src);
		return 0;
	case FS_CHMOD:
		add_make(fb, op, MAKE_CHMOD, area, rel, NULL);
		return 0;
	case FS_BIND:
	case FS_MIRROR:
		return bind_in_area(fb, op, area, dest, rel);
	default:
		return refuse(fb, op, "not possible inside a per-run directory under the "
			      "fallback");
	}
}

static int translate_op(struct fallback *fb, const struct fs_op *op)
{
	char dest[PATH_MAX];
	int area;

	if (clean_path(op->dest, dest, sizeof(dest)) < 0)
		return refuse(fb, op, "the fallback needs an absolute path without . or ..");
	area = area_holding(fb, dest);
	if (area >= 0)
		return translate_in_area(fb, op, area, dest);
	switch (op->kind) {
	case FS_BIND:
	case FS_MIRROR: return add_bind(fb, op, dest);
	case FS_REMOUNT_RO: return remount_ro(fb, op, dest);
	case FS_PROC: return add_proc(fb, op, dest);
	case FS_DEV: return add_dev(fb, op, dest);
	case FS_TMPFS: return add_tmpfs(fb, op, dest);
	case FS_DIR:
	case FS_SYMLINK: return keep_if_host_has(fb, op, dest);
	default: return refuse(fb, op, "needs a mount namespace; not possible under the "
			       "fallback");
	}
}

/* What the plan asks that no process of the caller's can be given
 * without a user namespace. */
static int check_identity(struct fallback *fb)
{
	const struct plan *plan = fb->plan;

	if (plan->uid != plan->caller_uid || plan->gid != plan->caller_gid) {
		snprintf(fb->err, fb->errlen, "fallback: --uid %u --gid %u: ids other than "
			 "the caller's need a user namespace", (unsigned)plan->uid,
			 (unsigned)plan->gid);
		return -1;
	}
	if (plan->hostname) {
		snprintf(fb->err, fb->errlen, "fallback: --hostname %s: needs a UTS namespace",
			 plan->hostname);
		return -1;
	}
	if (plan->n_net_rules || plan->n_protect) {
		snprintf(fb->err, fb->errlen, "fallback: %s: needs namespaces (%s)",
			 plan->n_net_rules ? "--allow-net" : "--protect", plan->n_net_rules ?
			 "its proxy listens in a network namespace of the sandbox's own" :
			 "Landlock cannot take writing away beneath a writable directory");
		return -1;
	}
	return 0;
}

static void fallback_init(struct fallback *fb, const struct plan *plan, char *err,
			  size_t errlen)
{
	const char *home = plan_getenv(plan, "HOME");
	char clean[PATH_MAX];

	memset(fb, 0, sizeof(*fb));
	fb->plan = plan;
	fb->err = err;
	fb->errlen = errlen;
	fb->base_fd = fb->run_fd = fb->ruleset = fb->chld_fd = fb->self_fd = -1;
	for (int a = 0; a < N_AREAS; a++)
		fb->areas[a].fd = -1;
	if (!home)
		home = getenv("HOME");
	if (home && clean_path(home, clean, sizeof(clean)) == 0)
		fb->home = xstrdup(clean);
	fb->deny_net = (plan->clone_flags & CLONE_NEWNET) && !plan->share_net;
	found.deny_net = fb->deny_net;
}

static int translate(struct fallback *fb)
{
	if (check_identity(fb) < 0)
		return -1;
	for (size_t i = 0; i < fb->plan->n_ops; i++)
		if (translate_op(fb, &fb->plan->ops[i]) < 0)
			return -1;
	return 0;
}

static void fallback_free(struct fallback *fb)
{
	for (size_t i = 0; i < fb->n_rules; i++)
		free(fb->rules[i].path);
	for (int a = 0; a < N_AREAS; a++) {
		drop_area(fb, a);
		if (fb->areas[a].fd >= 0)
			close(fb->areas[a].fd);
	}
	free(fb->rules);
	free(fb->makes);
	free(fb->home);
	free(fb->workdir);
	close_fd(&fb->base_fd);
	close_fd(&fb->run_fd);
	close_fd(&fb->ruleset);
	close_fd(&fb->chld_fd);
	close_fd(&fb->self_fd);
	if (fb->net_filter)
		seccomp_release(fb->net_filter);
}

/* ---- per-run directories ---- */

#define RUN_PREFIX "hutch-fallback-"
#define MAX_TREE_DEPTH 256

/* Remove NAME in PARENT and all it holds, never following a symlink. */
static int remove_tree(int parent, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *dir;
	int fd, rc = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0);
	if (depth > MAX_TREE_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	/* COMMAND may have left a directory it made unreadable; a stale
	 * run's survivors may swap it for a symlink: never follow one. */
	if ((st.st_mode & 0700) != 0700 &&
	    fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    remove_tree(dirfd(dir), e->d_name, depth + 1) < 0)
			rc = -1;
	closedir(dir);
	return rc < 0 ? -1 : unlinkat(parent, name, AT_REMOVEDIR);
}

static unsigned long pidns_id(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* hutch-fallback-PIDNS-PID-START: the supervisor that made it, for good. */
static bool run_dir_is_stale(int base, const char *name)
{
	unsigned long ns;
	unsigned long long start;
	int pid, end = 0;
	struct stat st;

	if (sscanf(name, RUN_PREFIX "%lu-%d-%llu%n", &ns, &pid, &start, &end) != 3 ||
	    name[end] != '\0' || ns != pidns_id())
		return false;
	if (fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return false;
	return start_time(pid) != start;
}

/* A run killed before its cleanup leaves its directory: remove those
 * whose supervisor is gone. */
static void remove_stale_run_dirs(struct fallback *fb)
{
	int fd = openat(fb->base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	char msg[PATH_MAX + 512];

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) == 0 &&
		    run_dir_is_stale(fb->base_fd, e->d_name) &&
		    remove_tree(fb->base_fd, e->d_name, 0) < 0) {
			snprintf(msg, sizeof(msg), "fallback: stale per-run directory %s/%s: "
				 "not removed: %s", fb->base, e->d_name, strerror(errno));
			log_warning(fb->plan->prog, msg);
		}
	closedir(dir);
}

static int fail_path(struct fallback *fb, const char *what, const char *path)
{
	snprintf(fb->err, fb->errlen, "fallback: %s %s: %s", what, path, strerror(errno));
	return -1;
}

/* The directory REL's parent in AREA, made as needed, never through a
 * symlink (COMMAND's files cannot exist yet, but --symlink's can). */
static int make_parents(struct fallback *fb, const struct make *m, const char **leaf)
{
	char path[PATH_MAX], *save = NULL, *next;
	int fd = dup(fb->areas[m->area].fd);

	snprintf(path, sizeof(path), "%s", m->rel);
	*leaf = strrchr(m->rel, '/') ? strrchr(m->rel, '/') + 1 : m->rel;
	for (char *c = strtok_r(path, "/", &save); c && fd >= 0; c = next) {
		int sub;

		next = strtok_r(NULL, "/", &save);
		if (!next)
			break;
		if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			sub = -1;
		else
			sub = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = sub;
	}
	return fd;
}

static int apply_make(struct fallback *fb, const struct make *m)
{
	char what[PATH_MAX * 2 + 32];
	const char *leaf;
	int dir = make_parents(fb, m, &leaf), rc = -1;

	if (dir >= 0 && m->kind == MAKE_DIR)
		rc = mkdirat(dir, leaf, m->mode) == 0 || errno == EEXIST ? 0 : -1;
	else if (dir >= 0 && m->kind == MAKE_LINK)
		rc = symlinkat(m->target, dir, leaf);
	else if (dir >= 0)	/* --chmod never follows a symlink out */
		rc = fchmodat(dir, leaf, m->mode, AT_SYMLINK_NOFOLLOW);
	if (dir >= 0)
		close(dir);
	if (rc == 0)
		return 0;
	describe_op(m->op, what, sizeof(what));
	return fail_path(fb, "in the per-run directory:", what);
}

static bool any_area(const struct fallback *fb)
{
	return fb->areas[AREA_TMP].dest || fb->areas[AREA_HOME].dest;
}

static int open_base(struct fallback *fb)
{
	const char *tmpdir = getenv("TMPDIR");

	snprintf(fb->base, sizeof(fb->base), "%s",
		 tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
	fb->base_fd = open(fb->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fb->base_fd < 0 && any_area(fb))
		return fail_path(fb, "per-run directories in", fb->base);
	return 0;
}

static int make_area(struct fallback *fb, int a)
{
	struct area *area = &fb->areas[a];

	if (!area->dest)
		return 0;
	if (snprintf(area->host, sizeof(area->host), "%s/%s/%s", fb->base, fb->run_name,
		     area_leaf[a]) >= (int)sizeof(area->host)) {
		errno = ENAMETOOLONG;
		return fail_path(fb, "per-run directory in", fb->base);
	}
	if (mkdirat(fb->run_fd, area_leaf[a], 0700) < 0)
		return fail_path(fb, "per-run directory", area->host);
	area->fd = openat(fb->run_fd, area_leaf[a], O_PATH | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
	return area->fd < 0 ? fail_path(fb, "per-run directory", area->host) : 0;
}

static int make_run_dirs(struct fallback *fb)
{
	char path[PATH_MAX + 160];

	if (open_base(fb) < 0)
		return -1;
	if (fb->base_fd >= 0)
		remove_stale_run_dirs(fb);
	if (!any_area(fb))
		return 0;
	snprintf(fb->run_name, sizeof(fb->run_name), RUN_PREFIX "%lu-%d-%llu", pidns_id(),
		 getpid(), start_time(getpid()));
	snprintf(path, sizeof(path), "%s/%s", fb->base, fb->run_name);
	/* 0700, and never one that exists already: no one else's files. */
	if (mkdirat(fb->base_fd, fb->run_name, 0700) < 0) {
		fail_path(fb, "per-run directory", path);
		fb->run_name[0] = '\0';
		return -1;
	}
	fb->run_fd = openat(fb->base_fd, fb->run_name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	if (fb->run_fd < 0)
		return fail_path(fb, "per-run directory", path);
	for (int a = 0; a < N_AREAS; a++)
		if (make_area(fb, a) < 0)
			return -1;
	for (size_t i = 0; i < fb->n_makes; i++)
		if (apply_make(fb, &fb->makes[i]) < 0)
			return -1;
	return 0;
}

static void remove_run_dirs(struct fallback *fb)
{
	char msg[PATH_MAX + 256];

	if (!fb->run_name[0] || remove_tree(fb->base_fd, fb->run_name, 0) == 0)
		return;
	snprintf(msg, sizeof(msg), "teardown: per-run directory %s/%s: not removed: %s "
		 "(the next run removes it)", fb->base, fb->run_name, strerror(errno));
	log_warning(fb->plan->prog, msg);
}

/* PATH as COMMAND reaches it: inside a per-run directory, or itself. */
static char *map_path(const struct fallback *fb, const char *path)
{
	char clean[PATH_MAX];
	int best = -1;

	if (clean_path(path, clean, sizeof(clean)) < 0)
		return xstrdup(path);
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && at_or_beneath(clean, fb->areas[a].dest) &&
		    (best < 0 || strlen(fb->areas[a].dest) > strlen(fb->areas[best].dest)))
			best = a;
	if (best < 0)
		return xstrdup(clean);
	return xasprintf("%s%s", fb->areas[best].host,
			 clean + (strcmp(fb->areas[best].dest, "/") == 0 ? 0 :
				  strlen(fb->areas[best].dest)));
}

/* TMPDIR and HOME name the per-run directories; the working directory
 * follows its path into them. */
static void point_env(struct fallback *fb, struct plan *plan)
{
	char *home;

	if (fb->areas[AREA_TMP].dest)
		plan_setenv(plan, "TMPDIR", fb->areas[AREA_TMP].host);
	if (fb->home) {
		home = map_path(fb, fb->home);
		if (strcmp(home, fb->home) != 0)
			plan_setenv(plan, "HOME", home);
		free(home);
	}
	if (plan->chdir)
		fb->workdir = map_path(fb, plan->chdir);
}

/* ---- the ruleset and the network filter ---- */

static uint64_t handled_fs(int abi)
{
	uint64_t fs = (LL_FS_MAKE_SYM << 1) - 1;	/* ABI 1 */

	if (abi >= 2)
		fs |= LL_FS_REFER;
	if (abi >= 3)
		fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LL_FS_IOCTL_DEV;
	return fs;
}

static int add_path_rule(struct fallback *fb, int ruleset, int fd, uint64_t access,
			 const char *path)
{
	struct ll_path_beneath pb = { .parent_fd = fd };
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail_path(fb, "Landlock rule for", path);
	pb.allowed_access = access & handled_fs(found.abi) &
			    (S_ISDIR(st.st_mode) ? ~0ULL : R_FILE);
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		return fail_path(fb, "Landlock rule for", path);
	return 0;
}

static int add_host_rules(struct fallback *fb, int ruleset)
{
	for (size_t i = 0; i < fb->n_rules; i++) {
		const struct rule *r = &fb->rules[i];
		int fd, rc;

		if (r->access == 0)
			continue;
		fd = open(r->path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return fail_path(fb, "Landlock rule for", r->path);
		rc = add_path_rule(fb, ruleset, fd, r->access, r->path);
		close(fd);
		if (rc < 0)
			return -1;
	}
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && add_path_rule(fb, ruleset, fb->areas[a].fd,
						       fb->areas[a].access, fb->areas[a].host) < 0)
			return -1;
	return 0;
}

/* Every right the kernel knows is handled: what no rule grants is denied. */
static int build_ruleset(struct fallback *fb)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = handled_fs(found.abi) };

	if (fb->deny_net && found.abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	/* Abstract unix sockets and signals: not outside COMMAND's domain. */
	if (found.abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	fb->ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fb->ruleset < 0)
		return fail_path(fb, "Landlock", "ruleset");
	return add_host_rules(fb, fb->ruleset);
}

/* No network in the plan: socket() for any family but AF_UNIX fails
 * (IP, packet, netlink and the rest), and io_uring, whose socket
 * operation would pass by socket(), looks absent. */
static int build_net_filter(struct fallback *fb)
{
	int rc;

	if (!fb->deny_net)
		return 0;
	fb->net_filter = seccomp_init(SCMP_ACT_ALLOW);
	if (!fb->net_filter)
		return fail_path(fb, "seccomp", "network filter");
	rc = seccomp_rule_add(fb->net_filter, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket),
			      1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (rc == 0)
		rc = seccomp_rule_add(fb->net_filter, SCMP_ACT_ERRNO(ENOSYS),
				      SCMP_SYS(io_uring_setup), 0);
	if (rc < 0) {
		errno = -rc;
		return fail_path(fb, "seccomp", "network filter");
	}
	return 0;
}

/* ---- COMMAND's process ---- */

static int child_fail_errno(struct sandbox *sb, const char *what, const char *object)
{
	return log_fail(sb->err, sizeof(sb->err), "fallback", what, object, errno);
}

static int confine(struct sandbox *sb, struct fallback *fb)
{
	int rc;

	if (fb->workdir && chdir(fb->workdir) < 0)
		return child_fail_errno(sb, "chdir", fb->workdir);
	/* Landlock without CAP_SYS_ADMIN needs it; no execve grants privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return child_fail_errno(sb, "set", "no_new_privs");
	/* From here on only the plan's paths, and no way to undo it. */
	if (syscall(SYS_landlock_restrict_self, fb->ruleset, 0) < 0)
		return child_fail_errno(sb, "restrict", "to the Landlock ruleset");
	close(fb->ruleset);
	fb->ruleset = -1;
	if (fb->net_filter && (rc = seccomp_load(fb->net_filter)) < 0) {
		errno = -rc;
		return child_fail_errno(sb, "load", "the network filter");
	}
	return 0;
}

/* Set-up as the namespace path does it, less the namespaces: the parent
 * death signal and the release, Landlock, then policy and exec. */
static void __attribute__((noreturn)) run_command(struct sandbox *sb, struct fallback *fb)
{
	if (stages_run(sb, WHO_CHILD, "clone", "deathsig") < 0 || confine(sb, fb) < 0 ||
	    stages_run(sb, WHO_COMMAND, "seal", NULL) < 0)
		child_fail(sb, failure_status(sb->plan));
	_exit(failure_status(sb->plan));
}

/* ---- the supervisor ---- */

/* The child clone made before its maps failed (AppArmor) waits to be
 * released: without its release pipe it exits (stage_deathsig), and is
 * reaped with the orphans. */
static void abandon_namespace_child(struct sandbox *sb)
{
	if (sb->pid1_fd < 0)
		return;
	close_fd(&sb->release_pipe[1]);
	close_fd(&sb->pid1_fd);
	sb->pid1 = 0;
}

/* Fresh log and release pipes: clone may have used up the first. */
static int renew_pipes(struct sandbox *sb)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&sb->log_pipe[i]);
		close_fd(&sb->release_pipe[i]);
	}
	if (supervise_log_channel(sb->log_pipe) < 0 || pipe2(sb->release_pipe, O_CLOEXEC) < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "pipe", "log, release",
				errno);
	return 0;
}

/* Orphans come to the supervisor, which reaps them and, at the end,
 * kills every descendant: the pid namespace's guarantee, approximated. */
static int become_subreaper(struct sandbox *sb, struct fallback *fb)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "become", "subreaper", errno);
	fb->chld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	fb->self_fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fb->chld_fd < 0 || fb->self_fd < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "signalfd", "SIGCHLD",
				errno);
	return 0;
}

static void print_notice(struct sandbox *sb)
{
	char approx[1024], msg[2048];

	format_approximations(approx, sizeof(approx));
	snprintf(msg, sizeof(msg), "fallback: user namespaces refused (%s); running under "
		 "Landlock ABI %d + seccomp; approximations: %s", found.reason, found.abi,
		 approx);
	log_warning(sb->plan->prog, msg);
}

static int check_landlock(struct sandbox *sb)
{
	found.abi = landlock_abi_version();
	if (found.abi >= 1)
		return 0;
	/* Never unconfined: without Landlock there is no fallback. */
	snprintf(sb->err, sizeof(sb->err), "fallback: Landlock is not available in this "
		 "kernel, so COMMAND does not run unconfined; user namespaces are refused "
		 "(%s)", found.reason);
	return -1;
}

/* The subreaper finds descendants in /proc and signals them by pidfd:
 * both must count pids alike, or a recycled number could name an
 * outsider.  A /proc of another pid namespace: no fallback. */
static int check_proc(struct sandbox *sb)
{
	char self[32] = "";

	if (readlink("/proc/self", self, sizeof(self) - 1) > 0 && atoi(self) == getpid())
		return 0;
	snprintf(sb->err, sizeof(sb->err), "fallback: /proc: not this pid namespace's, so "
		 "COMMAND's descendants cannot be found; mount a /proc for it (user "
		 "namespaces are refused: %s)", found.reason);
	return -1;
}

static int prepare(struct sandbox *sb, struct fallback *fb)
{
	/* The refusal's message is said; child_fail must not send its tail. */
	memset(sb->err, 0, sizeof(sb->err));
	point_env(fb, sb->plan);
	sb->has_init = false;	/* COMMAND runs as the supervisor's child */
	if (build_ruleset(fb) < 0 || build_net_filter(fb) < 0 || renew_pipes(sb) < 0 ||
	    become_subreaper(sb, fb) < 0)
		return -1;
	print_notice(sb);
	return 0;
}

/* The supervisor's side of the start: pidfd, cgroup, then release. */
static int start_command(struct sandbox *sb, struct fallback *fb)
{
	pid_t pid = fork();

	if (pid < 0)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "fork", "COMMAND", errno);
	if (pid == 0)
		run_command(sb, fb);
	sb->pid1 = pid;
	sb->pid1_fd = (int)syscall(SYS_pidfd_open, pid, 0);
	close_fd(&sb->log_pipe[1]);
	close_fd(&sb->release_pipe[0]);
	close_fd(&fb->ruleset);
	if (sb->pid1_fd < 0) {
		kill(pid, SIGKILL);	/* our unreaped child: its pid is still its own */
		return log_fail(sb->err, sizeof(sb->err), "fallback", "pidfd", "COMMAND", errno);
	}
	if (limits_attach(sb) < 0)
		return -1;
	/* COMMAND sees the supervisor in /proc: no ptrace, no /proc/PID/exe. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0 || write(sb->release_pipe[1], "r", 1) != 1)
		return log_fail(sb->err, sizeof(sb->err), "fallback", "release", "COMMAND", errno);
	close_fd(&sb->release_pipe[1]);
	status_started(sb);
	return 0;
}

/* ---- the loop ---- */

static void reap_children(struct sandbox *sb)
{
	struct run_state *rs = &sb->run;
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			return;
		if (si.si_pid == sb->pid1) {
			rs->reaped = true;
			rs->code = si.si_code;
			rs->status = si.si_status;
		}
	}
}

static void drain_signalfd(int fd)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		;
}

struct pid_list {
	pid_t *pids;
	size_t n;
};

static void pid_list_add(struct pid_list *list, pid_t pid)
{
	list->pids = xreallocarray(list->pids, list->n + 1, sizeof(*list->pids));
	list->pids[list->n++] = pid;
}

static void add_task_children(const char *path, struct pid_list *out)
{
	FILE *f = fopen(path, "re");
	int pid;

	while (f && fscanf(f, "%d", &pid) == 1)
		pid_list_add(out, pid);
	if (f)
		fclose(f);
}

static void children_of(pid_t pid, struct pid_list *out)
{
	char path[64], file[384];
	struct dirent *t;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	while (tasks && (t = readdir(tasks)))
		if (t->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s/children", path, t->d_name);
			add_task_children(file, out);
		}
	if (tasks)
		closedir(tasks);
}

/* SIGKILL every descendant of PID (pinned by PIDFD); returns how many
 * there were, and lists them in LEFT if given.  Each is pinned by its own
 * pidfd and checked to be PID's child while PID is still itself, so a
 * recycled pid never brings SIGKILL to an outsider. */
static int kill_descendants(pid_t pid, int pidfd, int depth, struct pid_list *left)
{
	struct pid_list kids = { 0 };
	int count = 0;

	children_of(pid, &kids);
	for (size_t i = 0; i < kids.n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, kids.pids[i], 0);

		if (fd < 0)
			continue;
		if (parent_of(kids.pids[i]) == pid &&
		    syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) {
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
			count++;
			if (left)
				pid_list_add(left, kids.pids[i]);
			if (depth < MAX_TREE_DEPTH)
				count += kill_descendants(kids.pids[i], fd, depth + 1, left);
		}
		close(fd);
	}
	free(kids.pids);
	return count;
}

static int poll_timeout(const struct run_state *rs)
{
	double at[3] = { rs->timeout_at, rs->kill_at, rs->deadline_at }, next = 0;

	for (int i = 0; i < 3; i++)
		if (at[i] > 0 && (next == 0 || at[i] < next))
			next = at[i];
	if (next == 0)
		return -1;
	next -= now();
	if (next > 3600)
		return 3600 * 1000;	/* woken early is fine: deadlines are rechecked */
	return next <= 0 ? 0 : (int)(next * 1000) + 1;
}

static void signal_command(struct sandbox *sb, int sig)
{
	syscall(SYS_pidfd_send_signal, sb->pid1_fd, sig, NULL, 0);
}

static void start_grace(struct sandbox *sb)
{
	if (sb->run.kill_at == 0)
		sb->run.kill_at = now() + sb->plan->kill_after;
}

static void on_signals(struct sandbox *sb)
{
	if (supervise_forward_signals(sb))
		start_grace(sb);
}

/* --timeout: SIGTERM, then after the grace SIGKILL to all. */
static void on_deadlines(struct sandbox *sb, struct fallback *fb)
{
	struct run_state *rs = &sb->run;
	double t = now();

	if (rs->timeout_at > 0 && t >= rs->timeout_at) {
		rs->timeout_at = 0;
		rs->timed_out = true;
		signal_command(sb, SIGTERM);
		start_grace(sb);
	}
	if (rs->kill_at > 0 && t >= rs->kill_at) {
		rs->kill_at = 0;
		signal_command(sb, SIGKILL);
		kill_descendants(getpid(), fb->self_fd, 0, NULL);
	}
}

enum { P_COMMAND, P_SIGNALS, P_CHILDREN, P_LOG, N_FIXED };

static void on_sources(struct sandbox *sb, const struct pollfd *fds)
{
	struct poll_source ready[MAX_POLL_SOURCES];
	int n = sb->n_sources;

	/* A handler may change the table: act on a copy. */
	memcpy(ready, sb->sources, sizeof(ready));
	for (int i = 0; i < n; i++)
		if (fds[N_FIXED + i].revents)
			ready[i].on_ready(sb, fds[N_FIXED + i].revents);
}

static int poll_run(struct sandbox *sb, struct fallback *fb)
{
	struct pollfd fds[N_FIXED + MAX_POLL_SOURCES] = {
		[P_COMMAND] = { .fd = sb->pid1_fd, .events = POLLIN },
		[P_SIGNALS] = { .fd = sb->sigfd, .events = POLLIN },
		[P_CHILDREN] = { .fd = fb->chld_fd, .events = POLLIN },
		[P_LOG] = { .fd = sb->log_pipe[0], .events = POLLIN },
	};

	for (int i = 0; i < sb->n_sources; i++)
		fds[N_FIXED + i] = (struct pollfd){ sb->sources[i].fd, sb->sources[i].events, 0 };
	if (poll(fds, (nfds_t)(N_FIXED + sb->n_sources), poll_timeout(&sb->run)) < 0)
		return errno == EINTR ? 0 : -1;
	on_sources(sb, fds);
	if (fds[P_LOG].revents)
		supervise_drain_log(sb);
	if (fds[P_SIGNALS].revents)
		on_signals(sb);
	on_deadlines(sb, fb);
	if (fds[P_CHILDREN].revents)
		drain_signalfd(fb->chld_fd);
	if (fds[P_COMMAND].revents || fds[P_CHILDREN].revents)
		reap_children(sb);
	return 0;
}

static void describe_stuck(struct sandbox *sb, pid_t pid)
{
	char buf[1024], msg[256];
	const char *f = stat_fields(pid, buf, sizeof(buf));

	snprintf(msg, sizeof(msg), "teardown: pid %d (state %c): still there after %gs",
		 pid, f ? f[0] : '?', sb->plan->teardown_deadline);
	log_line(sb->plan->prog, msg);
}

static void report_stuck(struct sandbox *sb, struct fallback *fb)
{
	struct pid_list left = { 0 };
	char msg[256];

	kill_descendants(getpid(), fb->self_fd, 0, &left);
	for (size_t i = 0; i < left.n; i++)
		describe_stuck(sb, left.pids[i]);
	snprintf(msg, sizeof(msg), "teardown: %zu descendant%s of COMMAND did not exit "
		 "within %gs and remain%s", left.n, left.n == 1 ? "" : "s",
		 sb->plan->teardown_deadline, left.n == 1 ? "s" : "");
	log_line(sb->plan->prog, msg);
	free(left.pids);
	sb->run.stuck = true;
}

/* COMMAND has ended: kill what it left, until nothing is left or the
 * deadline passes.  Each death of a descendant reaches the supervisor as
 * SIGCHLD, directly or once its orphans are reparented here. */
static void teardown(struct sandbox *sb, struct fallback *fb)
{
	struct run_state *rs = &sb->run;
	struct pollfd pfd = { .fd = fb->chld_fd, .events = POLLIN };

	rs->timeout_at = rs->kill_at = 0;
	rs->deadline_at = now() + sb->plan->teardown_deadline;
	for (;;) {
		drain_signalfd(fb->chld_fd);
		reap_children(sb);
		if (kill_descendants(getpid(), fb->self_fd, 0, NULL) == 0)
			return;
		if (poll(&pfd, 1, poll_timeout(rs)) == 0) {
			report_stuck(sb, fb);
			return;
		}
	}
}

static int supervise_command(struct sandbox *sb, struct fallback *fb)
{
	struct run_state *rs = &sb->run;
	int rc = 0;

	if (pty_start(sb) < 0)
		rc = -1;
	if (sb->plan->timeout > 0)
		rs->timeout_at = now() + sb->plan->timeout;
	while (rc == 0 && !rs->reaped)
		if (poll_run(sb, fb) < 0)
			rc = log_fail(sb->err, sizeof(sb->err), "run", "poll", "COMMAND", errno);
	if (!rs->reaped)
		signal_command(sb, SIGKILL);
	teardown(sb, fb);
	supervise_drain_log(sb);
	return rc;
}

int landlock_run(struct sandbox *sb)
{
	struct fallback fb;
	int rc = -1;

	abandon_namespace_child(sb);
	fallback_init(&fb, sb->plan, sb->err, sizeof(sb->err));
	if (check_landlock(sb) == 0 && check_proc(sb) == 0 && translate(&fb) == 0) {
		if (make_run_dirs(&fb) == 0 && prepare(sb, &fb) == 0 &&
		    start_command(sb, &fb) == 0)
			rc = supervise_command(sb, &fb);
		else if (sb->pid1_fd >= 0)
			teardown(sb, &fb);
		remove_run_dirs(&fb);
	}
	fallback_free(&fb);
	return rc;
}

/* ---- --explain ---- */

static const char *access_name(uint64_t access)
{
	if (access == 0)
		return "no access";
	if ((access & R_WRITE) && (access & LL_FS_MAKE_CHAR))
		return "read-write, devices";
	if (access & R_WRITE)
		return "read-write";
	if (access == R_NODE)
		return "read-write (device)";
	return (access & LL_FS_EXECUTE) ? "read, execute" : "read";
}

static int area_at(const struct fallback *fb, const char *path)
{
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && strcmp(fb->areas[a].dest, path) == 0)
			return a;
	return -1;
}

/* A rule of no access on a per-run area is said with the area. */
static bool said_with_area(const struct fallback *fb, size_t i)
{
	return fb->rules[i].access == 0 && area_at(fb, fb->rules[i].path) >= 0;
}

/* A host path the per-run directory links to, rather than a --symlink. */
static bool made_as_link_to_host(const struct fallback *fb, size_t i)
{
	return fb->makes[i].kind == MAKE_LINK && fb->makes[i].op->kind != FS_SYMLINK;
}

static void explain_rules(const struct fallback *fb, FILE *out)
{
	char what[PATH_MAX * 2 + 32];

	for (size_t i = 0; i < fb->n_rules; i++) {
		if (said_with_area(fb, i))
			continue;	/* said below */
		describe_op(fb->rules[i].op, what, sizeof(what));
		fprintf(out, "  %-20s %s    (%s, %s)\n", access_name(fb->rules[i].access),
			fb->rules[i].path, what, fb->rules[i].op->origin);
	}
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest)
			fprintf(out, "  %-20s %s: a per-run directory instead, named by $%s, "
				"removed at exit\n", access_name(fb->areas[a].access),
				fb->areas[a].dest, a == AREA_TMP ? "TMPDIR" : "HOME");
	for (size_t i = 0; i < fb->n_makes; i++) {
		describe_op(fb->makes[i].op, what, sizeof(what));
		fprintf(out, "  %-20s %s: made in the per-run directory%s\n", "", what,
			made_as_link_to_host(fb, i) ? " as a symlink to the host path" : "");
	}
}

static void explain_network(const struct fallback *fb, FILE *out)
{
	if (!fb->deny_net)
		fprintf(out, "  network: the host's (shared)\n");
	else
		fprintf(out, "  network: none: socket() only for AF_UNIX (seccomp)%s\n",
			found.abi >= 4 ? ", TCP bind and connect denied (Landlock)" : "");
}

void landlock_explain(const struct plan *plan, FILE *out)
{
	struct fallback fb;
	char err[4096], approx[1024];

	if (plan->mode == MODE_BWRAP)
		return;
	if (plan->fallback == FALLBACK_NONE) {
		fprintf(out, "fallback: none: where user namespaces are refused, fail "
			"(exit 125) naming what refused and the fix\n");
		return;
	}
	found.abi = landlock_abi_version();
	fallback_init(&fb, plan, err, sizeof(err));
	if (translate(&fb) < 0) {
		fprintf(out, "fallback: landlock, but this plan cannot run under it: %s\n",
			err + strlen("fallback: "));
	} else {
		fprintf(out, "fallback: landlock (ABI %d here), where user namespaces are "
			"refused; everything not listed is denied:\n", found.abi);
		explain_rules(&fb, out);
		explain_network(&fb, out);
		format_approximations(approx, sizeof(approx));
		fprintf(out, "  approximations: %s\n", approx);
	}
	fallback_free(&fb);
}

static void json_rules(const struct fallback *fb, FILE *out)
{
	char what[PATH_MAX * 2 + 32];
	bool first = true;

	fputs("\"rules\": [", out);
	for (size_t i = 0; i < fb->n_rules; i++) {
		if (said_with_area(fb, i))
			continue;	/* in per-run */
		describe_op(fb->rules[i].op, what, sizeof(what));
		fputs(first ? "{\"access\": " : ", {\"access\": ", out);
		first = false;
		json_fputs(out, access_name(fb->rules[i].access));
		fputs(", \"path\": ", out);
		json_fputs(out, fb->rules[i].path);
		fputs(", \"option\": ", out);
		json_fputs(out, what);
		fputs(", \"origin\": ", out);
		json_fputs(out, fb->rules[i].op->origin);
		fputc('}', out);
	}
	fputs("], \"per-run\": [", out);
	first = true;
	for (int a = 0; a < N_AREAS; a++) {
		if (!fb->areas[a].dest)
			continue;
		fputs(first ? "{\"access\": " : ", {\"access\": ", out);
		first = false;
		json_fputs(out, access_name(fb->areas[a].access));
		fputs(", \"dest\": ", out);
		json_fputs(out, fb->areas[a].dest);
		fprintf(out, ", \"variable\": \"%s\"}", a == AREA_TMP ? "TMPDIR" : "HOME");
	}
	fputs("], \"made\": [", out);
	for (size_t i = 0; i < fb->n_makes; i++) {
		describe_op(fb->makes[i].op, what, sizeof(what));
		fputs(i ? ", {\"option\": " : "{\"option\": ", out);
		json_fputs(out, what);
		fprintf(out, ", \"as-symlink\": %s}",
			made_as_link_to_host(fb, i) ? "true" : "false");
	}
	fputc(']', out);
}

void landlock_explain_json(const struct plan *plan, FILE *out)
{
	struct fallback fb;
	char err[4096];
	const char *text;

	if (plan->mode == MODE_BWRAP || plan->fallback == FALLBACK_NONE) {
		fputs("{\"mode\": \"none\"}", out);
		return;
	}
	found.abi = landlock_abi_version();
	fallback_init(&fb, plan, err, sizeof(err));
	if (translate(&fb) < 0) {
		fputs("{\"mode\": \"landlock\", \"usable\": false, \"reason\": ", out);
		json_fputs(out, err + strlen("fallback: "));
		fputc('}', out);
		fallback_free(&fb);
		return;
	}
	fprintf(out, "{\"mode\": \"landlock\", \"usable\": true, \"abi\": %d, ", found.abi);
	json_rules(&fb, out);
	fprintf(out, ", \"network\": \"%s\", \"approximations\": [",
		fb.deny_net ? "none" : "shared");
	for (int i = 0; (text = landlock_approximation(i)); i++) {
		fputs(i ? ", " : "", out);
		json_fputs(out, text);
	}
	fputs("]}", out);
	fallback_free(&fb);
}
