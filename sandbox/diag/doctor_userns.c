/* --doctor's check of user namespaces: a child in new user, mount and
 * pid namespaces, as pid 1 is made; where that is refused, the cause as
 * the shared probe (userns_probe.c) classifies it for the fallback too,
 * with the same fixes, and what only this fuller probe can see (the pid
 * and mount namespace limits, CAP_SETFCAP, AppArmor's profile). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "doctor_probe.h"
#include "host/host.h"
#include "lib/lib.h"

#define CAP_SETFCAP_BIT 31

static void probe_userns(struct probe *p, int arg)
{
	(void)arg;
	errno = ESRCH;
	if (!doctor_probe_step(p, "pid 1 of the new pid namespace", getpid() == 1))
		return;
	p->ok = doctor_probe_step(p, "make / private",
				  mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
}

/* The first of the namespace count limits that is 0, or NULL. */
static const char *zero_ns_limit(void)
{
	static const char *const names[] = {
		"user.max_user_namespaces", "user.max_mnt_namespaces", "user.max_pid_namespaces",
	};
	static const char *const paths[] = {
		"/proc/sys/user/max_user_namespaces", "/proc/sys/user/max_mnt_namespaces",
		"/proc/sys/user/max_pid_namespaces",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (proc_read_number(paths[i]) == 0)
			return names[i];
	return NULL;
}

static void userns_count_refused(struct finding *f)
{
	const char *limit = zero_ns_limit();
	char fix[256];

	if (!limit) {
		doctor_say(f, LVL_FAIL, "raise user.max_user_namespaces (sysctl -w user.max_user_namespaces=15000), "
		    "here or in the parent user namespace",
		    "clone(CLONE_NEWUSER) failed with ENOSPC: a count of namespaces is at its limit "
		    "(user.max_user_namespaces = %ld here)", proc_read_number("/proc/sys/user/max_user_namespaces"));
		return;
	}
	snprintf(fix, sizeof(fix), "sysctl -w %s=15000 (and %s = 15000 in /etc/sysctl.d/hutch.conf)",
		 limit, limit);
	doctor_say(f, LVL_FAIL, fix, "clone(CLONE_NEWUSER) failed with ENOSPC: %s = 0", limit);
}

/* The container's fix: the shared probe's, and the fallback. */
static const char *container_fix(char *buf, size_t len)
{
	snprintf(buf, len, "%s; or use --fallback=landlock", userns_fix(REFUSED_SECCOMP));
	return buf;
}

/* EPERM from clone: the cause as the fallback's probe finds it. */
static void userns_eperm(struct doctor *d, struct finding *f)
{
	enum userns_refusal kind = userns_classify(&(struct userns_trial){ USERNS_UNSHARE, EPERM });
	char fix[512];

	d->userns_refusal = kind;
	if (kind == REFUSED_SYSCTL)
		doctor_say(f, LVL_FAIL, userns_fix(REFUSED_SYSCTL),
		    "clone(CLONE_NEWUSER) failed with EPERM: kernel.unprivileged_userns_clone = 0");
	else if (kind == REFUSED_SECCOMP)
		doctor_say(f, LVL_FAIL, container_fix(fix, sizeof(fix)), "clone(CLONE_NEWUSER) failed "
		    "with EPERM under a seccomp filter (a container's profile) while no sysctl "
		    "forbids user namespaces");
	else
		doctor_say(f, LVL_FAIL, "look for the denial in the kernel log (dmesg) or the audit log",
		    "clone(CLONE_NEWUSER) failed with EPERM, and neither a sysctl nor a seccomp filter "
		    "explains it (an LSM policy?)");
}

static void userns_clone_refused(struct doctor *d, struct finding *f, int err)
{
	enum userns_refusal kind = userns_classify(&(struct userns_trial){ USERNS_UNSHARE, err });

	d->userns_refusal = kind;
	if (kind == REFUSED_COUNT && err == ENOSPC)
		userns_count_refused(f);
	else if (kind == REFUSED_COUNT)
		doctor_say(f, LVL_FAIL, "run hutch from a less deeply nested user namespace",
		    "clone(CLONE_NEWUSER) failed with EUSERS: 32 nested user namespaces already");
	else if (err == EPERM)
		userns_eperm(d, f);
	else if (kind == REFUSED_KERNEL)
		doctor_say(f, LVL_FAIL, "a kernel built with CONFIG_USER_NS=y and CONFIG_PID_NS=y",
		    "clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID) failed with EINVAL: "
		    "the kernel has no user or pid namespaces");
	else
		doctor_say(f, LVL_FAIL, "see the error", "clone(CLONE_NEWUSER) failed: %s", strerror(err));
}

/* Whether capability BIT is in this process's effective set. */
static bool has_capability(int bit)
{
	char *status = read_text_at(AT_FDCWD, "/proc/self/status");
	char *line = status ? strstr(status, "\nCapEff:") : NULL;
	unsigned long long caps = line ? strtoull(line + 8, NULL, 16) : 0;

	free(status);
	return caps & (1ULL << bit);
}

/* Ubuntu's restriction: the clone works, the namespace has no power.
 * Told by that behaviour where the sysctl is missing (a security module
 * doing the same: tests/standin). */
static void report_powerless(struct finding *f, const struct probe *p)
{
	char why[256];

	doctor_probe_failure(p, why, sizeof(why));
	if (proc_read_number(APPARMOR_SYSCTL) == 1)
		doctor_say(f, LVL_FAIL, APPARMOR_FIX, "a new user namespace is made but has no privilege "
		    "(%s): kernel.apparmor_restrict_unprivileged_userns = 1", why);
	else
		doctor_say(f, LVL_FAIL, APPARMOR_FIX, "a new user namespace is made but has no privilege "
		    "(%s): a security module refuses its capabilities, as Ubuntu's "
		    "kernel.apparmor_restrict_unprivileged_userns = 1 does", why);
}

/* The probe's failed step as the shared probe names it. */
static struct userns_trial probe_trial(const struct probe *p)
{
	bool map = strncmp(p->what, "write ", 6) == 0;

	return (struct userns_trial){ map ? USERNS_MAP : USERNS_MOUNT, p->err };
}

/* The clone worked; a later step of the set-up did not.  Where that is
 * Ubuntu's restriction (or a module doing the same), the verdict names
 * it as the fallback's notice does (d->userns_refusal). */
static void userns_setup_refused(struct doctor *d, struct finding *f, const struct probe *p)
{
	char why[256], fix[512], cause[256];
	bool eperm = p->err == EPERM || p->err == EACCES;
	struct userns_trial trial = probe_trial(p);
	struct nested_finding outer = { .lack = NESTED_NONE };

	doctor_probe_failure(p, why, sizeof(why));
	if (eperm)
		nested_find(getuid(), &outer);
	if (userns_powerless(&trial)) {
		d->userns_refusal = REFUSED_APPARMOR;
		report_powerless(f, p);
	} else if (eperm && outer.lack != NESTED_NONE) {
		/* Another sandbox's doing: its fix, never "add CAP_SETFCAP"
		 * or "unconfine the container", which would arm COMMAND. */
		nested_reason(&outer, cause, sizeof(cause));
		doctor_say(f, LVL_FAIL, nested_fix(&outer), "in new user, mount and pid namespaces: %s: %s "
		    "(see nested)", why, cause);
	} else if (eperm && strcmp(p->what, "write uid_map") == 0 && getuid() == 0 &&
		 !has_capability(CAP_SETFCAP_BIT))
		doctor_say(f, LVL_FAIL, "run hutch as a non-root uid here",
		    "write uid_map: mapping uid 0 needs CAP_SETFCAP, which this process lacks "
		    "(inside another sandbox?)");
	else if (eperm && userns_seccomp_filtered())
		doctor_say(f, LVL_FAIL, container_fix(fix, sizeof(fix)), "in new user, mount and pid "
		    "namespaces: %s, under a seccomp filter (a container's profile)", why);
	else
		doctor_say(f, LVL_FAIL, "see the error", "in new user, mount and pid namespaces: %s", why);
}

void doctor_check_userns(struct doctor *d, struct finding *f)
{
	struct probe p;

	if (doctor_probe_run(NS_FLAGS, probe_userns, 0, &p) < 0 && strcmp(p.what, "clone") == 0) {
		userns_clone_refused(d, f, p.err);
	} else if (!p.ok) {
		userns_setup_refused(d, f, &p);
	} else {
		d->userns_ok = true;
		doctor_say(f, LVL_OK, NULL, "a child in new user, mount and pid namespaces got its id maps, "
		    "was pid 1 and could mount");
	}
}

