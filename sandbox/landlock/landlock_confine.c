/* The Landlock fallback's confinement: the supervisor builds the
 * ruleset and the network filter from the rules; COMMAND's process,
 * first thing at the policy stage, enters them for good.
 *
 * What it defends against: COMMAND reaching what the plan does not
 * give.  Every fs right the kernel's ABI knows is handled, so what no
 * rule grants is denied; with no network in the plan socket() is left
 * only AF_UNIX (and Landlock denies TCP bind and connect where its ABI
 * can); abstract unix sockets and signals are scoped to COMMAND's domain
 * where the ABI has scoping.  no_new_privs first: no execve can then
 * grant privileges, and Landlock without CAP_SYS_ADMIN needs it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "plan/plan.h"
#include "landlock_confine.h"
#include "messages/messages.h"
#include "sandbox.h"

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
		return landlock_fail_path(fb, "Landlock rule for", path);
	pb.allowed_access = access & handled_fs(fb->found->abi) &
			    (S_ISDIR(st.st_mode) ? ~0ULL : R_FILE);
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		return landlock_fail_path(fb, "Landlock rule for", path);
	return 0;
}

/* A rule that grants writing is judged by the persistence guard again,
 * as the object FD opened: the parse judged R's path, which a sandbox
 * writing a tree it passes through can have swapped for a link to $HOME
 * since (the same second look as mounts.c gives a writable bind). */
static int guard_rule_object(struct fallback *fb, const struct rule *r, int fd)
{
	char link[32], real[PATH_MAX];
	ssize_t n;

	if (!r->op || !(r->access & R_WRITE))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/')
		return landlock_fail_path(fb, "Landlock rule for", r->path);
	real[n] = '\0';
	return guard_check_bound(fb->plan, r->op, "fallback", real, fb->err, fb->errlen);
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
			return landlock_fail_path(fb, "Landlock rule for", r->path);
		rc = guard_rule_object(fb, r, fd);
		if (rc == 0)
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
int landlock_build_ruleset(struct fallback *fb)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = handled_fs(fb->found->abi) };

	if (fb->deny_net && fb->found->abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	/* Abstract unix sockets and signals: not outside COMMAND's domain. */
	if (fb->found->abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
	fb->ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fb->ruleset < 0)
		return landlock_fail_path(fb, "Landlock", "ruleset");
	return add_host_rules(fb, fb->ruleset);
}

/* No network in the plan: socket() for any family but AF_UNIX fails
 * (IP, packet, netlink and the rest), and io_uring, whose socket
 * operation would pass by socket(), looks absent. */
int landlock_build_net_filter(struct fallback *fb)
{
	int rc;

	if (!fb->deny_net)
		return 0;
	fb->net_filter = seccomp_init(SCMP_ACT_ALLOW);
	if (!fb->net_filter)
		return landlock_fail_path(fb, "seccomp", "network filter");
	rc = seccomp_rule_add(fb->net_filter, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket),
			      1, SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
	if (rc == 0)
		rc = seccomp_rule_add(fb->net_filter, SCMP_ACT_ERRNO(ENOSYS),
				      SCMP_SYS(io_uring_setup), 0);
	if (rc < 0) {
		errno = -rc;
		return landlock_fail_path(fb, "seccomp", "network filter");
	}
	return 0;
}

static int confine_fail(struct sandbox *sb, const char *what, const char *object)
{
	return log_fail(sb->err, sizeof(sb->err), "fallback", what, object, errno);
}

int landlock_confine(struct sandbox *sb)
{
	struct fallback_child *fc = sb->fallback_child;
	int rc;

	if (fc->workdir && chdir(fc->workdir) < 0)
		return confine_fail(sb, "chdir", fc->workdir);
	/* Landlock without CAP_SYS_ADMIN needs it; no execve grants privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return confine_fail(sb, "set", "no_new_privs");
	/* From here on only the plan's paths, and no way to undo it. */
	if (syscall(SYS_landlock_restrict_self, fc->ruleset, 0) < 0)
		return confine_fail(sb, "restrict", "to the Landlock ruleset");
	close(fc->ruleset);
	fc->ruleset = -1;
	if (fc->net_filter && (rc = seccomp_load(fc->net_filter)) < 0) {
		errno = -rc;
		return confine_fail(sb, "load", "the network filter");
	}
	return 0;
}
