/* hutch inside a sandbox (hutch, bwrap, a container, a service's
 * seccomp filter): what the outer one withholds that new namespaces
 * need, so that the run inside falls back or fails saying exactly that
 * in one line, and --doctor predicts it.
 *
 * Two things withheld are seen here: uid 0 without CAP_SETFCAP (the
 * kernel maps uid 0 of the parent into a new user namespace only for a
 * writer that holds it, and an outer sandbox drops every capability),
 * found before clone by a capget; and the mount calls refused by the
 * outer sandbox's seccomp filter (hutch's default policy, until
 * --allow-nested): at launch, pid 1 makes each once right after its
 * first mount, in a form the kernel refuses for its arguments, and only
 * when one was refused (or pid 1 died there) does the supervisor try
 * them for real in a throwaway child in user and mount namespaces of its
 * own, where it runs under a seccomp filter: the fork is on the failure
 * path, never on every launch in a container.
 * Never a guess that lets COMMAND run weaker than asked without saying
 * so. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nested.h"
#include "sandbox.h"

const char *const nested_syscalls[] = {
	"mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
	"fspick", "open_tree", "move_mount", "mount_setattr", NULL,
};

bool nested_syscall(const char *name)
{
	size_t len = strcspn(name, ", ");

	for (size_t i = 0; nested_syscalls[i]; i++)
		if (strlen(nested_syscalls[i]) == len && strncmp(nested_syscalls[i], name, len) == 0)
			return true;
	return false;
}

/* ---- uid 0 without CAP_SETFCAP ---- */

static bool has_setfcap(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (caps)
		cap_get_flag(caps, CAP_SETFCAP, CAP_EFFECTIVE, &v);
	cap_free(caps);
	return v == CAP_SET;
}

/* ---- the mount calls, in a throwaway child ---- */

/* The calls hutch's mounts stage makes, in its order; each step's
 * bad-argument form (pivot_root, umount2) passes a filter and is then
 * refused by the kernel for its arguments, changing nothing. */
enum { STEP_NONE, STEP_UNSHARE, STEP_SETATTR, STEP_FSOPEN, STEP_FSCONFIG, STEP_FSMOUNT,
       STEP_OPEN_TREE, STEP_MOVE_MOUNT, STEP_PIVOT_ROOT, STEP_UMOUNT2, STEP_DONE };

static const char *const step_calls[] = {
	[STEP_SETATTR] = "mount_setattr", [STEP_FSOPEN] = "fsopen", [STEP_FSCONFIG] = "fsconfig",
	[STEP_FSMOUNT] = "fsmount", [STEP_OPEN_TREE] = "open_tree",
	[STEP_MOVE_MOUNT] = "move_mount", [STEP_PIVOT_ROOT] = "pivot_root",
	[STEP_UMOUNT2] = "umount2",
};

/* The answer a filter or security module gives, not the kernel's
 * answer to the arguments. */
static bool refusal_errno(int err)
{
	return err == EPERM || err == EACCES || err == ENOSYS;
}

/* One record a step: sent on entering it (err -1), and again with its
 * errno when it fails; a SIGSYS in it leaves the first as the last. */
struct step_record {
	int step;
	int err;
};

static void send_record(int out, int step, int err)
{
	struct step_record r = { step, err };

	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
}

/* An fd that was never expected (the arguments ask for none), closed;
 * 0 then, or -1 with errno. */
static int close_unexpected(int fd)
{
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Each call the mounts stage makes after its first, with arguments the
 * kernel refuses (a bad pointer, fd or flag) once a filter has let it
 * through: its errno then is never one a refusal gives.  0 or -1. */
static int call_harmlessly(int step)
{
	switch (step) {
	case STEP_FSOPEN: return close_unexpected(fsopen(NULL, FSOPEN_CLOEXEC));
	case STEP_FSCONFIG: return fsconfig(-1, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	case STEP_FSMOUNT: return close_unexpected(fsmount(-1, FSMOUNT_CLOEXEC, 0));
	case STEP_OPEN_TREE: return close_unexpected(open_tree(AT_FDCWD, NULL, OPEN_TREE_CLOEXEC));
	case STEP_MOVE_MOUNT: return move_mount(-1, NULL, -1, NULL, 0);
	case STEP_PIVOT_ROOT: return (int)syscall(SYS_pivot_root, NULL, NULL);
	case STEP_UMOUNT2: return umount2(NULL, 0);
	}
	return -1;
}

static int run_step(int step, int *fs, int *mnt)
{
	struct mount_attr priv = { .propagation = MS_PRIVATE };

	switch (step) {
	case STEP_UNSHARE: return unshare(CLONE_NEWUSER | CLONE_NEWNS);
	case STEP_SETATTR: return mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &priv, sizeof(priv));
	case STEP_FSOPEN: return (*fs = fsopen("tmpfs", FSOPEN_CLOEXEC));
	case STEP_FSCONFIG: return fsconfig(*fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	case STEP_FSMOUNT: return (*mnt = fsmount(*fs, FSMOUNT_CLOEXEC, 0));
	/* Recursive: / has locked submounts in a user namespace of its own,
	 * and cloning it alone is refused (EINVAL) past any filter. */
	case STEP_OPEN_TREE:
		return open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	case STEP_MOVE_MOUNT: return move_mount(*mnt, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH);
	/* Past any filter, the kernel refuses these arguments. */
	case STEP_PIVOT_ROOT:
	case STEP_UMOUNT2:
		return call_harmlessly(step) == 0 || !refusal_errno(errno) ? 0 : -1;
	}
	return 0;
}

/* The child: each step announced, then tried, until the first failure. */
static void __attribute__((noreturn)) probe_child(int out)
{
	int fs = -1, mnt = -1;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* Killed by a filter, it leaves no core file in the caller's cwd. */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	for (int n = STEP_UNSHARE; n < STEP_DONE; n++) {
		send_record(out, n, -1);
		if (run_step(n, &fs, &mnt) < 0) {
			send_record(out, n, errno);
			_exit(0);
		}
	}
	send_record(out, STEP_DONE, -1);
	_exit(0);
}

/* The child's last record. */
static struct step_record read_outcome(int in)
{
	struct step_record r, last = { STEP_NONE, -1 };

	while (read(in, &r, sizeof(r)) == (ssize_t)sizeof(r))
		last = r;
	return last;
}

static void probe_mounts(struct nested_finding *out)
{
	struct step_record r = { STEP_NONE, -1 };
	int p[2], status = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		probe_child(p[1]);
	}
	close(p[1]);
	if (pid > 0)
		r = read_outcome(p[0]);
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	/* No user namespace at all is the clone path's to explain; a
	 * refusal in a call's own errno, or death in it, is the filter's. */
	if (r.step <= STEP_UNSHARE || r.step >= STEP_DONE)
		return;
	if (r.err == -1 ? !WIFSIGNALED(status) : !refusal_errno(r.err))
		return;
	out->lack = NESTED_MOUNT;
	out->err = r.err == -1 ? 0 : r.err;
	snprintf(out->call, sizeof(out->call), "%s", step_calls[r.step]);
}

/* ---- in pid 1: the other mount calls, in those forms ---- */

int nested_calls_refused(const char **call)
{
	/* No filter (0): nothing can refuse them that the first mount did
	 * not; seven calls fewer on the launch path. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0)
		return 0;
	for (int n = STEP_FSOPEN; n < STEP_DONE; n++)
		if (call_harmlessly(n) < 0 && refusal_errno(errno)) {
			*call = step_calls[n];
			return errno;
		}
	return 0;
}

/* A fork only where a filter could refuse (2: SECCOMP_MODE_FILTER). */
static void find_mount_refusal(struct nested_finding *out)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2)
		probe_mounts(out);
}

void nested_find(uid_t uid, struct nested_finding *out)
{
	memset(out, 0, sizeof(*out));
	if (uid == 0 && !has_setfcap()) {
		out->lack = NESTED_SETFCAP;
		return;
	}
	find_mount_refusal(out);
}

void nested_reason(const struct nested_finding *f, char *buf, size_t len)
{
	if (f->lack == NESTED_SETFCAP)
		snprintf(buf, len, "uid 0 without CAP_SETFCAP, which the sandbox around hutch "
			 "withholds, cannot map uid 0 into a new user namespace");
	else if (f->lack == NESTED_MOUNT)
		snprintf(buf, len, "the sandbox around hutch refuses %s (%s) even in a user "
			 "namespace of hutch's own", f->call,
			 f->err ? strerror(f->err) : "killed by its seccomp filter");
	else
		snprintf(buf, len, "nothing withheld");
}

const char *nested_fix(const struct nested_finding *f)
{
	if (f->lack == NESTED_SETFCAP)
		return "start that sandbox with a uid other than 0 (hutch --allow-nested "
		       "--uid 1000; bwrap --unshare-user --uid 1000)";
	if (f->lack == NESTED_MOUNT)
		return "start that hutch with --allow-nested (another sandbox: let its "
		       "seccomp filter allow the mount calls hutch(1) lists under --allow-nested)";
	return "";
}

/* The fallback's notice says the reason alone: it carries the fix;
 * the failure names STAGE, where the refusal was seen. */
static void describe(struct sandbox *sb, const char *stage, const struct nested_finding *f)
{
	char cause[256];

	nested_reason(f, cause, sizeof(cause));
	snprintf(sb->found.reason, sizeof(sb->found.reason), "%s; fix: %s", cause,
		 nested_fix(f));
	snprintf(sb->err, sizeof(sb->err), "%s: new namespaces: %s", stage, sb->found.reason);
}

bool nested_uid0_refused_here(struct sandbox *sb)
{
	struct nested_finding f = { .lack = NESTED_NONE };

	if (sb->plan->caller_uid != 0 || has_setfcap())
		return false;
	f.lack = NESTED_SETFCAP;
	describe(sb, "clone", &f);
	return true;
}

bool nested_mount_refused_here(struct sandbox *sb, int err)
{
	struct nested_finding f = { .lack = NESTED_NONE };

	if (sb->plan->mode != MODE_HUTCH || !(sb->clone_flags & CLONE_NEWUSER) ||
	    (err >= 0 && !refusal_errno(err)))
		return false;
	find_mount_refusal(&f);
	if (f.lack != NESTED_MOUNT)
		return false;
	describe(sb, "mounts", &f);
	return true;
}
