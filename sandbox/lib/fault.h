/* Fault injection for tests: built only into hutch-fault (make check),
 * never into the installed hutch.  HUTCH_FAULT=STAGE:MODE makes the
 * named stage fail (MODE fail), or SIGKILLs the supervisor (kill-supervisor)
 * or the sandbox's set-up process (kill-child) just before it runs;
 * leak-log forks a process outside the sandbox that holds the log
 * pipe's write end open; hold waits before it until a byte comes through
 * the FIFO HUTCH_FAULT_HOLD (a race made deterministic).
 * HUTCH_FAULT=lacks:FEATURE makes hutch behave as
 * on a kernel without FEATURE (overlay-fd: overlayfs taking directories
 * by fd), to test the fallback on a kernel that has it.
 * HUTCH_FAULT=refuse:MOUNT:ERRNO (MOUNT first-mount: pid 1's first mount,
 * / made private; later-mount: the new root's tmpfs; ERRNO EPERM, EACCES
 * or EINVAL) makes that mount fail with ERRNO, as a security module
 * leaving the user namespace without capabilities would (Ubuntu's
 * AppArmor restriction), without calling it.
 * HUTCH_FAULT=landlock-abi:N makes hutch use Landlock as a kernel of
 * ABI N would have it (at most the kernel's own): the fallback's rows of
 * an older kernel (no signal scoping before ABI 6) tested on a new one. */
#ifndef HUTCH_FAULT_H
#define HUTCH_FAULT_H

#include <stdbool.h>

struct sandbox;
struct stage;

#ifdef HUTCH_FAULT
int fault_point(struct sandbox *sb, const struct stage *stage);
bool fault_kernel_lacks(const char *feature);
int fault_mount_refused(const char *mount);
int fault_landlock_abi(int abi);
#else
static inline int fault_point(struct sandbox *sb, const struct stage *stage)
{
	(void)sb;
	(void)stage;
	return 0;
}

static inline bool fault_kernel_lacks(const char *feature)
{
	(void)feature;
	return false;
}

static inline int fault_mount_refused(const char *mount)
{
	(void)mount;
	return 0;
}

static inline int fault_landlock_abi(int abi)
{
	return abi;
}
#endif

#endif
