/* bwrap's helper protocol beyond the status fds: --userns, --userns2,
 * --pidns, --userns-block-fd, --block-fd, --sync-fd, --lock-file,
 * --seccomp and --add-seccomp-fd, the SELinux labels, --disable-userns
 * and --assert-userns-disabled. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "messages/messages.h"
#include "plan/plan.h"
#include "bwrap.h"
#include "sandbox.h"
#include "lib/lib.h"

#define MAX_FILTER_BYTES (BPF_MAXINSNS * sizeof(struct sock_filter))

static bool selinux_enabled(void)
{
	return access("/sys/fs/selinux/enforce", F_OK) == 0;
}

/* One seccomp program from FD: classic BPF, as bwrap takes it.  An
 * empty one is refused when it is loaded, as in bwrap; the same fd given
 * twice is closed the second time. */
static int read_filter(struct sandbox *sb, int fd, struct extra_filter *f)
{
	size_t cap = MAX_FILTER_BYTES + 1, len = 0;
	char *buf = xreallocarray(NULL, cap, 1);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		free(buf);
		return stage_fail_bwrap(sb, BW_SECCOMP_READ, NULL);
	}
	fds_retire(fd);
	if (len % sizeof(struct sock_filter) || len > MAX_FILTER_BYTES) {
		free(buf);
		return stage_fail_bwrap(sb, BW_SECCOMP_SIZE, NULL);
	}
	f->insns = buf;
	f->len = (unsigned short)(len / sizeof(struct sock_filter));
	return 0;
}

static int read_filters(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	if (plan->n_seccomp_fds == 0)
		return 0;
	sb->filters = xreallocarray(NULL, plan->n_seccomp_fds, sizeof(*sb->filters));
	for (size_t i = 0; i < plan->n_seccomp_fds; i++) {
		if (read_filter(sb, plan->seccomp_fds[i], &sb->filters[i]) < 0)
			return -1;
		sb->n_filters++;
	}
	return 0;
}

/* bwrap's checks are on the options as given: --unshare-user itself,
 * not the user namespace an unprivileged caller gets anyway.  hutch mode
 * always makes one, so there only the combinations that cannot work are
 * refused. */
static int check_userns_options(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	bool bwrap = plan->mode == MODE_BWRAP;

	if (bwrap && plan->userns_block_fd >= 0 && !plan->unshare_user_given)
		return stage_fail_msg(sb, "--userns-block-fd requires --unshare-user");
	if (plan->userns_block_fd >= 0 && plan->info_fd < 0)
		return stage_fail_msg(sb, "--userns-block-fd requires --info-fd");
	if (bwrap && plan->userns_fd >= 0 && plan->unshare_user_given)
		return stage_fail_msg(sb, "--userns not compatible --unshare-user");
	if (bwrap && plan->userns_fd >= 0 && plan->userns_try)
		return stage_fail_msg(sb, "--userns not compatible --unshare-user-try");
	if (bwrap && plan->disable_userns && !plan->unshare_user_given)
		return stage_fail_msg(sb, "--disable-userns requires --unshare-user");
	if (plan->userns2_fd >= 0 && plan->userns_fd < 0)
		return stage_fail_msg(sb, "--userns2 requires --userns");
	return 0;
}

int protocol_prepare(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;

	if ((plan->exec_label || plan->file_label) && !selinux_enabled())
		return stage_fail_msg(sb, plan->mode == MODE_BWRAP ?
				      "labeling not supported on this system" :
				      "labeling not supported on this system (SELinux is not enabled)");
	if (plan->overlay_src_left)
		return stage_fail_msg(sb, "--overlay-src must be followed by another --overlay-src "
				"or one of --overlay, --tmp-overlay, or --ro-overlay");
	if (check_userns_options(sb) < 0)
		return -1;
	return read_filters(sb);
}

static int block_on(struct sandbox *sb, int fd, const char *what)
{
	char c;

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) < 0)
		return stage_fail(sb, what, "read");
	fds_retire(fd);
	return 0;
}

int protocol_userns_block(struct sandbox *sb)
{
	int fd = sb->userns_block_fd;

	sb->userns_block_fd = -1;
	return block_on(sb, fd, "--userns-block-fd");
}

/* Open before the host's /proc goes: the user.* sysctls are those of
 * the opener's user namespace. */
int protocol_open_userns_limit(struct sandbox *sb)
{
	if (!sb->plan->disable_userns)
		return 0;
	sb->userns_limit_fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
	if (sb->userns_limit_fd < 0)
		return stage_fail_as(sb, "open", "/proc/sys/user/max_user_namespaces",
			       BW_OPEN_MAX_USERNS, NULL);
	return 0;
}

/* --disable-userns: the sandbox's user namespace may hold one child, the
 * one hutch enters next; nothing under it can create another.  Counts
 * are per user namespace, so seccomp (which cannot see clone3's flags)
 * is not what enforces it. */
int protocol_disable_userns(struct sandbox *sb)
{
	if (sb->userns_limit_fd < 0)
		return 0;
	if (write(sb->userns_limit_fd, "1", 1) != 1)
		return stage_fail_as(sb, "write", "/proc/sys/user/max_user_namespaces",
			       BW_WRITE_MAX_USERNS, NULL);
	close(sb->userns_limit_fd);
	sb->userns_limit_fd = -1;
	return 0;
}

int protocol_enter_userns2(struct sandbox *sb)
{
	if (sb->plan->userns2_fd < 0)
		return 0;
	if (setns(sb->plan->userns2_fd, CLONE_NEWUSER) < 0)
		return stage_fail(sb, "Setting userns2", "failed");
	fds_retire(sb->plan->userns2_fd);
	return 0;
}

/* Lock files and the sync fd stay open in pid 1 for the sandbox's life;
 * they are gathered in a contiguous range that init keeps. */
static int take_lock(struct sandbox *sb, const char *path)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	/* O_NONBLOCK: a FIFO at PATH opens at once instead of blocking set-up. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return stage_fail_bwrap(sb, BW_LOCK_OPEN, path);
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		stage_fail_bwrap(sb, BW_LOCK, path);
		close(fd);
		return -1;
	}
	return fd;
}

/* FDS move to a range that held no fd: dup3 onto a caller's fd (one
 * COMMAND keeps) or onto one of hutch's own would replace it. */
static int hold_fds(struct sandbox *sb, const int *fds, int n)
{
	sb->hold_base = fds_free_run(HOLD_BASE, n);
	for (int i = 0; i < n; i++) {
		if (dup3(fds[i], sb->hold_base + i, O_CLOEXEC) < 0)
			return stage_fail(sb, "hold", "lock or sync fd");
		sb->hold_count++;
	}
	return 0;
}

int protocol_take_locks(struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	/* Without an init the supervisor's own copy keeps the sync fd
	 * open for the sandbox's life (it never outlives hutch). */
	int sync = plan->sync_fd >= 0 && sb->has_init;
	int fds[HOLD_MAX], n = 0, r = 0;

	if ((size_t)sync + plan->n_lock_files > HOLD_MAX) {
		errno = EMFILE;
		return stage_fail(sb, "hold", "lock or sync fd");
	}
	if (sync)
		fds[n++] = plan->sync_fd;
	for (size_t i = 0; i < plan->n_lock_files && r == 0; i++) {
		int fd = take_lock(sb, plan->lock_files[i]);

		if (fd < 0)
			r = -1;
		else
			fds[n++] = fd;
	}
	if (r == 0)
		r = hold_fds(sb, fds, n);
	for (int i = sync; i < n; i++)
		close(fds[i]);
	return r;
}

static void close_on_exec(const char *option, int fd, void *arg)
{
	(void)option;
	(void)arg;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);	/* not ours to fail on */
}

/* The protocol's fds are hutch's business, not COMMAND's: as in bwrap,
 * it never sees them (hutch mode closes every stray fd anyway). */
void protocol_hide_fds(struct sandbox *sb)
{
	fds_each(sb->plan, close_on_exec, NULL);
}

/* Through prctl, as bwrap loads them: a caller's program that comes
 * before another must allow prctl, not seccomp(2). */
static int load_filter(struct sandbox *sb, const struct extra_filter *f)
{
	struct sock_fprog prog = { .len = f->len, .filter = (struct sock_filter *)f->insns };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
		return 0;
	if (errno == EINVAL)
		return stage_fail_bwrap(sb, BW_SECCOMP_EINVAL, NULL);
	return stage_fail_bwrap(sb, BW_SECCOMP_LOAD, NULL);
}

/* --file-label: the files set-up creates get LABEL, as bwrap's
 * setfscreatecon gives them (its tmpfs mounts get it as their context,
 * mount_api.c).  Written while /proc is still the host's; execve resets
 * it. */
int protocol_set_file_label(struct sandbox *sb)
{
	const char *label = sb->plan->file_label;

	if (label && write_file_at(AT_FDCWD, "/proc/thread-self/attr/fscreate", label) < 0)
		return stage_fail_as(sb, "file label", label, BW_FILE_LABEL, NULL);
	return 0;
}

static int set_exec_label(struct sandbox *sb)
{
	const char *label = sb->plan->exec_label;

	if (label && write_file_at(AT_FDCWD, "/proc/thread-self/attr/exec", label) < 0)
		return stage_fail_as(sb, "exec label", label, BW_EXEC_LABEL, sb->plan->argv[0]);
	return 0;
}

/* A forked child tries: the assertion must not change this process. */
static int assert_userns_disabled(struct sandbox *sb)
{
	pid_t pid;
	int status;

	if (!sb->plan->assert_userns_disabled)
		return 0;
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return stage_fail(sb, "check", "user namespaces disabled");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return stage_fail_msg(sb, "creation of new user namespaces was not disabled as requested");
	return 0;
}

int protocol_before_exec(struct sandbox *sb)
{
	if (assert_userns_disabled(sb) < 0 || set_exec_label(sb) < 0)
		return -1;
	return 0;
}

/* The caller's programs come last, as in bwrap ("so that filters don't
 * need to handle anything above"): after --block-fd and COMMAND's
 * limits, which hutch itself sets with a call they may refuse. */
int protocol_load_filters(struct sandbox *sb)
{
	for (int i = 0; i < sb->n_filters; i++)
		if (load_filter(sb, &sb->filters[i]) < 0)
			return -1;
	return 0;
}

int protocol_block(struct sandbox *sb)
{
	int fd = sb->block_fd;

	sb->block_fd = -1;
	return block_on(sb, fd, "--block-fd");
}

void protocol_release(struct sandbox *sb)
{
	for (int i = 0; i < sb->n_filters; i++)
		free(sb->filters[i].insns);
	free(sb->filters);
	sb->filters = NULL;
	sb->n_filters = 0;
}
