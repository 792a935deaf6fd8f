/* Why are user namespaces refused here (see userns_probe.c)? */
#ifndef HUTCH_USERNS_PROBE_H
#define HUTCH_USERNS_PROBE_H

#include <stdbool.h>

struct sandbox;

#define USERNS_CLONE_SYSCTL "/proc/sys/kernel/unprivileged_userns_clone"
#define APPARMOR_SYSCTL "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define MAX_USERNS_SYSCTL "/proc/sys/user/max_user_namespaces"

/* The fix for a namespace made without capabilities: hutch's AppArmor
 * profile, which `make install` writes (profiles: README, Install). */
/* The profile make install writes for this build's BINDIR (Makefile). */
#ifndef HUTCH_APPARMOR_PROFILE
#define HUTCH_APPARMOR_PROFILE "/etc/apparmor.d/usr.local.bin.hutch"
#endif
#define APPARMOR_FIX "load hutch's AppArmor profile (make install writes it): " \
	"sudo apparmor_parser -r " HUTCH_APPARMOR_PROFILE "; or sysctl -w " \
	"kernel.apparmor_restrict_unprivileged_userns=0"

/* The steps a probe retraces; the first that failed. */
enum userns_step { USERNS_OK, USERNS_UNSHARE, USERNS_MAP, USERNS_MOUNT, USERNS_FAILED };

struct userns_trial {
	int step;	/* USERNS_UNSHARE also for clone(CLONE_NEWUSER) */
	int err;
};

/* What refused: the cause the messages name. */
enum userns_refusal {
	REFUSED_NOT, REFUSED_SECCOMP, REFUSED_SYSCTL, REFUSED_COUNT, REFUSED_APPARMOR,
	REFUSED_KERNEL, REFUSED_OTHER,
};

/* The cause of R's failure, from the sysctls and this process's seccomp
 * state; REFUSED_NOT when a user namespace alone is fine. */
enum userns_refusal userns_classify(const struct userns_trial *r);
/* Was R's namespace made, but without capabilities (Ubuntu's AppArmor
 * restriction, or a security module doing the same)? */
bool userns_powerless(const struct userns_trial *r);
/* The fix for a cause, one line.  For REFUSED_APPARMOR where the sysctl
 * does not show 1: another security module's (the restriction seen by
 * its behaviour alone), as for userns_reason. */
const char *userns_fix(enum userns_refusal kind);
/* The cause in words, as the fallback's notice names it; NULL for
 * REFUSED_NOT, REFUSED_COUNT and REFUSED_OTHER. */
const char *userns_reason(enum userns_refusal kind);
/* Is this process under a seccomp filter (a container's profile)? */
bool userns_seccomp_filtered(void);

/* Did clone's failure (ERRNUM) come from a refused user namespace?  Sets
 * sb->err to one precise line naming what refused and the fix, and
 * sb->found.reason to the cause alone. */
bool userns_refused_here(struct sandbox *sb, int errnum);
/* Clone succeeded, but pid 1's first mount failed with ERRNUM: is the
 * new user namespace powerless (Ubuntu's AppArmor restriction, or a
 * security module doing the same)?  No probe: pid 1's mount is the
 * trial.  Sets sb->err like the above, naming the mounts stage. */
bool userns_mount_refused_here(struct sandbox *sb, int errnum);

#endif
