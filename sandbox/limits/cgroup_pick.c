/* Where the sandbox's cgroup can go: from the supervisor's own cgroup up
 * to the cgroup v2 root, the first cgroup that offers the controllers
 * the limits need, that the caller may write, and whose children may
 * have controllers (cgroup v2's no-internal-processes rule; a supervisor
 * alone in a delegated scope steps into a leaf of its own).  Stale
 * cgroups of runs killed before their end are swept on the way.  cgroup
 * v1 hierarchies are never touched. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_pick.h"
#include "limits_text.h"
#include "lib/lib.h"

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

static void describe_controllers(struct cgroup_pick *p, const char *list)
{
	char trimmed[256];
	size_t n = strcspn(list, "\n");

	snprintf(trimmed, sizeof(trimmed), "%.*s", (int)n, list);
	snprintf(p->reason, sizeof(p->reason), "cgroup2 at %s has: %s", p->dir,
		 *trimmed ? trimmed : "no controller");
}

/* Enable USE in FD's cgroup.subtree_control, as far as not yet done. */
static bool enable_controllers(struct cgroup_pick *p, int fd, unsigned use)
{
	char *on = read_text_at(fd, "cgroup.subtree_control");
	unsigned have = on ? limits_controller_bits(on) : 0;

	free(on);
	for (size_t i = 0; i < N_LIMITS_CONTROLLERS; i++) {
		char word[16];

		if (!(use & limits_controllers[i].bit) || (have & limits_controllers[i].bit))
			continue;
		snprintf(word, sizeof(word), "+%s", limits_controllers[i].name);
		if (write_file_at(fd, "cgroup.subtree_control", word) < 0) {
			snprintf(p->reason, sizeof(p->reason), "enable %s in %s/cgroup.subtree_control: %s",
				 limits_controllers[i].name, p->dir, strerror(errno));
			return false;
		}
		p->enabled |= limits_controllers[i].bit;
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
static bool step_into_leaf(struct cgroup_pick *p, int fd)
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
	moved = leaf >= 0 && write_file_at(leaf, "cgroup.procs", "0") == 0;
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
void limits_cgroup_leave_leaf(int fd, const char *leaf, unsigned enabled)
{
	char self[24];

	for (size_t i = 0; i < N_LIMITS_CONTROLLERS; i++) {
		char word[16];

		snprintf(word, sizeof(word), "-%s", limits_controllers[i].name);
		if (enabled & limits_controllers[i].bit)
			write_file_at(fd, "cgroup.subtree_control", word);
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	if (write_file_at(fd, "cgroup.procs", self) == 0)
		unlinkat(fd, leaf, AT_REMOVEDIR);
}

/* cgroup v2's no-internal-processes rule: only a cgroup without
 * processes of its own (or the root) gives its children controllers;
 * Linux lets pids alone be enabled anyway, and then refuses to start
 * anything in the child (EOPNOTSUPP).  A supervisor alone in its own
 * cgroup (a delegated scope: systemd-run --scope -p Delegate=yes) steps
 * into a leaf of its own, which the end of the run removes again. */
static bool may_have_children(struct cgroup_pick *p, int fd)
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
static bool try_candidate(struct cgroup_pick *p, unsigned need, unsigned want)
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
		limits_cgroup_leave_leaf(fd, p->self_leaf, p->enabled);
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
static bool locate_own_cgroup(struct cgroup_pick *p, char *mnt, size_t mntlen)
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
bool limits_cgroup_pick_parent(struct cgroup_pick *p, unsigned need, unsigned want)
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
