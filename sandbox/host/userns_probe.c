/* Why are user namespaces refused here?  One probe for the namespace
 * path's decision to fall back, the fallback's notice and --doctor.
 *
 * When clone fails (or, under Ubuntu's AppArmor restriction, clone
 * succeeds and the uid_map write fails), a probe process retraces the
 * steps alone (unshare, uid_map, a mount in its own mount namespace) and
 * the result names what refused and the fix in one line.  Where clone
 * and the maps succeed but pid 1's first mount is refused (the same
 * restriction, seen from the launch itself), that mount is the trial and
 * no probe runs.  The causes: a seccomp filter, kernel.unprivileged_userns_clone,
 * user.max_user_namespaces, AppArmor, or a kernel without user
 * namespaces.  Never a guess that lets COMMAND run unconfined: the
 * caller falls back to Landlock or fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "messages/messages.h"
#include "lib/lib.h"
#include "sandbox.h"
#include "userns_probe.h"

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


/* Where the namespace is made but powerless without that sysctl: a
 * security module doing what Ubuntu's does (a BPF LSM policy; the test
 * stand-in, tests/standin). */
#define POWERLESS_REASON "a security module refuses capabilities in new user namespaces, " \
	"as Ubuntu's kernel.apparmor_restrict_unprivileged_userns=1 does"
/* ... and the fix there: no sysctl to name, no AppArmor profile known to
 * be the one. */
#define POWERLESS_FIX "let hutch make user namespaces in the policy of the security " \
	"module that restricts them (a BPF LSM, SELinux, AppArmor), or use hutch's " \
	"AppArmor profile where that module is AppArmor (" HUTCH_APPARMOR_PROFILE ")"

static const struct { const char *reason, *fix; } refusals[] = {
	[REFUSED_SECCOMP] = {
		"a seccomp filter refuses clone and unshare with CLONE_NEWUSER, "
		"as Docker's default profile does",
		"run the container with --security-opt seccomp=unconfined, or a seccomp "
		"profile that allows clone, clone3, unshare and mount in user namespaces" },
	[REFUSED_SYSCTL] = {
		"kernel.unprivileged_userns_clone is 0",
		"sysctl -w kernel.unprivileged_userns_clone=1" },
	[REFUSED_COUNT] = {
		NULL,	/* with the limit's value: see count_reason */
		"sysctl -w user.max_user_namespaces=15000" },
	[REFUSED_APPARMOR] = {
		"kernel.apparmor_restrict_unprivileged_userns=1 leaves the new user "
		"namespace without capabilities",
		APPARMOR_FIX },
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
	struct userns_trial r = { USERNS_OK, 0 };
	char map[32];

	snprintf(map, sizeof(map), "0 %u 1", (unsigned)geteuid());
	/* The user namespace alone first: a filter refuses that itself, a
	 * security module that withholds capabilities in it lets it be made
	 * (then the map write, or the mount namespace beside it, fails). */
	if (unshare(CLONE_NEWUSER) < 0)
		r = (struct userns_trial){ USERNS_UNSHARE, errno };
	else if (write_text("/proc/self/setgroups", "deny") < 0 ||
		 write_text("/proc/self/uid_map", map) < 0)
		r = (struct userns_trial){ USERNS_MAP, errno };
	else if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		r = (struct userns_trial){ USERNS_MOUNT, errno };
	_exit(write(out, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

static struct userns_trial run_probe(void)
{
	struct userns_trial r = { USERNS_FAILED, 0 };
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
			r = (struct userns_trial){ USERNS_FAILED, 0 };
		waitpid(pid, NULL, 0);
	}
	close(p[0]);
	return r;
}

bool userns_seccomp_filtered(void)
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

/* Ubuntu's restriction, told by what it does: the namespace was made
 * (clone or unshare worked), and the first step that needs a capability
 * in it (the map write, the first mount) is refused.  Not for root
 * (mapping uid 0 needs CAP_SETFCAP, which a nested root may lack); under
 * a seccomp filter only the map write tells (a filter may refuse a
 * mount, not a capability): so a hutch inside a sandbox whose programs
 * hold no capability (Ubuntu's profile for hutch or bwrap) is told from
 * a hutch inside Docker's default. */
bool userns_powerless(const struct userns_trial *r)
{
	if (r->step != USERNS_MAP && r->step != USERNS_MOUNT)
		return false;
	if (r->err != EPERM && r->err != EACCES)
		return false;
	if (proc_read_number(APPARMOR_SYSCTL) == 1)
		return true;
	if (geteuid() == 0)
		return false;
	return r->step == USERNS_MAP || !userns_seccomp_filtered();
}

static enum userns_refusal classify_eperm(const struct userns_trial *r)
{
	bool apparmor = proc_read_number(APPARMOR_SYSCTL) == 1;

	if (r->step != USERNS_UNSHARE)
		return userns_powerless(r) ? REFUSED_APPARMOR : REFUSED_OTHER;
	if (proc_read_number(USERNS_CLONE_SYSCTL) == 0 && geteuid() != 0)
		return REFUSED_SYSCTL;
	if (userns_seccomp_filtered())
		return REFUSED_SECCOMP;
	return apparmor ? REFUSED_APPARMOR : REFUSED_OTHER;
}

enum userns_refusal userns_classify(const struct userns_trial *r)
{
	if (r->step == USERNS_OK || r->step == USERNS_FAILED)
		return REFUSED_NOT;	/* a user namespace alone is fine */
	if (r->err == ENOSPC || r->err == EUSERS)
		return REFUSED_COUNT;
	if (r->err == EINVAL && r->step == USERNS_UNSHARE)
		return REFUSED_KERNEL;
	if (r->err == EPERM || r->err == EACCES)
		return classify_eperm(r);
	return REFUSED_NOT;
}

/* Ubuntu's restriction as behaviour, where the sysctl is not there to
 * name it: another security module's words and fix. */
static bool powerless_without_sysctl(enum userns_refusal kind)
{
	return kind == REFUSED_APPARMOR && proc_read_number(APPARMOR_SYSCTL) != 1;
}

const char *userns_fix(enum userns_refusal kind)
{
	return powerless_without_sysctl(kind) ? POWERLESS_FIX : refusals[kind].fix;
}

/* The cause alone, in the words of the fallback's notice, for --doctor's
 * verdict; NULL where it needs the limit's value or the failed step
 * (REFUSED_COUNT, REFUSED_OTHER). */
const char *userns_reason(enum userns_refusal kind)
{
	return powerless_without_sysctl(kind) ? POWERLESS_REASON : refusals[kind].reason;
}

static void count_reason(char *buf, size_t len)
{
	long max = proc_read_number(MAX_USERNS_SYSCTL);

	if (max == 0)
		snprintf(buf, len, "user.max_user_namespaces is 0");
	else
		snprintf(buf, len, "the user namespace limit is reached "
			 "(user.max_user_namespaces is %ld, or 32 levels of nesting)", max);
}

static void other_reason(const struct userns_trial *r, char *buf, size_t len)
{
	static const char *const steps[] = {
		[USERNS_UNSHARE] = "unshare", [USERNS_MAP] = "the uid_map write",
		[USERNS_MOUNT] = "the first mount",
	};

	snprintf(buf, len, "%s fails: %s", steps[r->step], strerror(r->err));
}

/* sb->err: "STAGE: new user namespace refused: REASON; fix: FIX". */
static void describe_refusal(struct sandbox *sb, const char *stage, enum userns_refusal kind,
			     const struct userns_trial *r)
{
	const struct plan *plan = sb->plan;

	if (kind == REFUSED_COUNT)
		count_reason(sb->found.reason, sizeof(sb->found.reason));
	else if (kind == REFUSED_OTHER)
		other_reason(r, sb->found.reason, sizeof(sb->found.reason));
	else
		snprintf(sb->found.reason, sizeof(sb->found.reason), "%s", userns_reason(kind));
	snprintf(sb->err, sizeof(sb->err), "%s: new user namespace refused: %s; fix: %s%s",
		 stage, sb->found.reason, userns_fix(kind),
		 plan->fallback == FALLBACK_NONE ?
		 "; or --fallback landlock to run confined by Landlock instead" : "");
}

/* bwrap mode never falls back: bwrap's messages. */
static bool bwrap_refusal(struct sandbox *sb, int errnum)
{
	bool userns = sb->clone_flags & CLONE_NEWUSER;
	enum bwrap_text id = BW_NEW_NAMESPACE;

	if (sb->pid1 > 0)
		return false;	/* after clone: the stage's own message */
	if (userns && errnum == EINVAL)
		id = BW_NEW_NAMESPACE_EINVAL;
	else if (userns && errnum == EPERM)
		id = BW_NEW_NAMESPACE_EPERM;
	else if (errnum == ENOSPC)
		id = BW_NEW_NAMESPACE_ENOSPC;
	messages_bwrap_fail(sb->err, sizeof(sb->err), MODE_BWRAP,
			    &(struct failure){ "clone", "new namespaces", "(clone3)", id, NULL, NULL },
			    errnum);
	return true;
}

bool userns_refused_here(struct sandbox *sb, int errnum)
{
	struct userns_trial r;
	enum userns_refusal kind;

	if (sb->plan->mode == MODE_BWRAP)
		return bwrap_refusal(sb, errnum);
	if (!(sb->clone_flags & CLONE_NEWUSER) ||
	    (errnum != 0 && errnum != EPERM && errnum != EACCES && errnum != ENOSPC &&
	     errnum != EUSERS && errnum != EINVAL))
		return false;	/* not a refusal: ENOMEM, EAGAIN, ... */
	r = run_probe();
	kind = userns_classify(&r);
	if (kind == REFUSED_NOT)
		return false;
	describe_refusal(sb, sb->pid1 > 0 ? "idmap" : "clone", kind, &r);
	return true;
}

/* What it defends against: a launch that silently runs weaker than
 * asked.  Only the powerless namespace's own signature qualifies: EPERM
 * or EACCES from the very first mount in a user namespace hutch made,
 * before anything of the sandbox was built (any other errno, or a later
 * step, is a plain failure); never in bwrap mode, which fails as bwrap
 * does.  Classified as the probe classifies its own first mount. */
bool userns_mount_refused_here(struct sandbox *sb, int errnum)
{
	struct userns_trial r = { USERNS_MOUNT, errnum };

	if (sb->plan->mode == MODE_BWRAP || !(sb->clone_flags & CLONE_NEWUSER) ||
	    (errnum != EPERM && errnum != EACCES))
		return false;
	describe_refusal(sb, "mounts", userns_classify(&r), &r);
	return true;
}
