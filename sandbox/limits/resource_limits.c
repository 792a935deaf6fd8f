/* Resource limits.  --rlimit is set in COMMAND's process before execve.
 * --pids is RLIMIT_NPROC set in pid 1 inside the sandbox's fresh user
 * namespace, where the kernel (5.14 and later) counts that namespace's
 * processes only; the kernel exempts the host's root from it.  --memory,
 * --memory-swap, --cpu (and --pids again, as pids.max) need a cgroup v2
 * hierarchy where hutch may make a child cgroup: the sandbox is cloned
 * straight into it, and it is removed after the run.  cgroup v1
 * hierarchies are never touched.  Below this file: cgroup_pick.c (where
 * that cgroup can go) and limits_text.c (the pure part: names, amounts,
 * what cgroup files say). */
#define _GNU_SOURCE
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

#include "cgroup_pick.h"
#include "messages/messages.h"
#include "limits.h"
#include "limits_text.h"
#include "sandbox.h"
#include "lib/lib.h"


/* The limits' part of the run-time state (sb->limits); it outlives
 * limits_finish, so that the final status can still read what ended
 * COMMAND, and is freed by limits_release. */
struct limits_state {
	int parent_fd;		/* the cgroup the sandbox's was made in, or -1 */
	char parent[PATH_MAX];	/* its path */
	char name[64];		/* the sandbox's cgroup under it; "" when none */
	unsigned enabled;	/* controllers the sandbox's cgroup has */
	bool nproc;		/* RLIMIT_NPROC counts the sandbox (not exempt) */
	char why_none[CGROUP_REASON_LEN]; /* why no cgroup serves --pids */
	const char *ended_by;	/* the limit that ended COMMAND, or NULL */
	char self_leaf[64];	/* the supervisor's own leaf under parent, or "" */
	unsigned we_enabled;	/* controllers enabled in parent for this run */
};

static unsigned needed_controllers(const struct plan *plan)
{
	return (plan->memory || plan->memory_swap ? CTL_MEMORY : 0) |
	       (plan->cpu > 0 ? CTL_CPU : 0);
}

static const char *option_of(const struct plan *plan, unsigned bit)
{
	if (bit == CTL_MEMORY)
		return plan->memory ? "--memory" : "--memory-swap";
	return bit == CTL_CPU ? "--cpu" : "--pids";
}

/* "limits: --memory: no usable cgroup v2 memory controller (why)". */
static int no_cgroup(struct sandbox *sb, unsigned need, const struct cgroup_pick *p)
{
	unsigned missing = need & ~p->have;

	for (size_t i = 0; i < N_LIMITS_CONTROLLERS; i++) {
		unsigned bit = limits_controllers[i].bit;

		if ((missing ? missing : need) & bit) {
			snprintf(sb->err, sizeof(sb->err),
				 "limits: %s: no usable cgroup v2 %s controller (%.3900s)",
				 option_of(sb->plan, bit), limits_controllers[i].name, p->reason);
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

	if (write_file_at(sb->cgroup_fd, file, value) == 0)
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
	struct cgroup_pick p = { .fd = -1 };

	if (!want)
		return 0;
	if (!limits_cgroup_pick_parent(&p, need, want)) {
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
	struct cgroup_pick p = { .fd = -1, .dry = true };
	bool found = limits_cgroup_pick_parent(&p, 0, CTL_MEMORY | CTL_CPU | CTL_PIDS);
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
	struct cgroup_pick p = { .fd = -1, .dry = true };

	if ((plan->clone_flags & CLONE_NEWUSER) && !caller_is_host_root(plan)) {
		snprintf(how, len, "RLIMIT_NPROC in the sandbox's user namespace");
		return true;
	}
	if (limits_cgroup_pick_parent(&p, 0, CTL_PIDS) && (p.have & CTL_PIDS)) {
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
	if (write_file_at(sb->cgroup_fd, "cgroup.procs", pid) == 0)
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
		limits_cgroup_leave_leaf(sb->limits->parent_fd, sb->limits->self_leaf,
					 sb->limits->we_enabled);
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
