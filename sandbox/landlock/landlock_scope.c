#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock_scope.h"
#include "lib/lib.h"
#include "messages/messages.h"
#include "sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self 446
#endif

#define LANDLOCK_VERSION_QUERY (1U << 0)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)
#define SCOPE_MIN_ABI 6
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)

/* The ruleset attribute as of ABI 6 (Debian 12's headers predate it). */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int landlock_abi_version(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_QUERY);

	return v < 0 ? 0 : fault_landlock_abi((int)v);
}

static bool network_shared(const struct plan *plan)
{
	return plan->mode == MODE_HUTCH && !(plan->clone_flags & CLONE_NEWNET);
}

int landlock_scope_apply(struct sandbox *sb)
{
	int abi = landlock_abi_version();
	bool scope = network_shared(sb->plan) && abi >= SCOPE_MIN_ABI;
	struct ruleset_attr attr = {
		.scoped = scope ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0,
	};
	int fd;

	/* Abstract sockets live in the network namespace: sharing it would
	 * otherwise hand the sandbox the host's X11 and D-Bus sockets. */
	if (!scope && !sb->ms.proc_fenced)
		return 0;
	/* With the caller's /proc in the sandbox, a domain of its own makes
	 * the kernel refuse COMMAND ptrace access to every process outside
	 * (/proc/PID/environ, mem, fd).  It needs one handled right or scope.
	 * From ABI 6 a scope: abstract unix sockets, which in a network
	 * namespace of the sandbox's own only the sandbox has.  Before, an
	 * fs right (creating block devices, which nothing in a sandbox
	 * needs), with which Landlock also refuses COMMAND every mount. */
	if (sb->ms.proc_fenced && abi >= SCOPE_MIN_ABI)
		attr.scoped |= SCOPE_ABSTRACT_UNIX_SOCKET;
	else if (sb->ms.proc_fenced)
		attr.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return stage_fail(sb, "no_new_privs", "for landlock");
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return stage_fail(sb, "landlock", "scope");
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		close(fd);
		return stage_fail(sb, "landlock", "restrict");
	}
	close(fd);
	return 0;
}
