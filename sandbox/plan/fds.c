/* The caller's fds: the numbers given to --bind-fd, --pass-fd, --info-fd
 * and every other option that takes an fd.
 *
 * Defends against an fd number the caller never opened, or is done with,
 * picking up one of hutch's own fds: a --bind-fd of hutch's O_PATH of the
 * host root, a --pass-fd of its log pipe.  Each number is checked when
 * its option is parsed, before hutch has opened anything of its own, so
 * that it names what the caller holds.  From then on hutch never closes
 * one while it may still open fds: it retires it, so that the number stays
 * taken, and its own fds can never be given it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fds.h"
#include "lib/lib.h"

bool fds_is_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

/* What bwrap 0.11.1 says when FD is not open: it finds out only when it
 * first uses the fd.  It says nothing for --sync-fd, --block-fd and
 * --userns-block-fd, which it then ignores; hutch fails there too. */
static void bwrap_text(const char *option, int fd, const char *dest, char *err,
		       size_t errlen)
{
	const char *ebadf = strerror(EBADF);

	if (strcmp(option, "bind-fd") == 0 || strcmp(option, "ro-bind-fd") == 0)
		snprintf(err, errlen, "Can't find source path /proc/self/fd/%d: %s", fd,
			 strerror(ENOENT));
	else if (strcmp(option, "file") == 0 || strcmp(option, "bind-data") == 0 ||
		 strcmp(option, "ro-bind-data") == 0)
		snprintf(err, errlen, "Can't write data to file %s: %s", dest, ebadf);
	else if (strcmp(option, "seccomp") == 0 || strcmp(option, "add-seccomp-fd") == 0)
		snprintf(err, errlen, "Can't read seccomp data: %s", ebadf);
	else if (strcmp(option, "args") == 0)
		snprintf(err, errlen, "Can't read --args data: %s", ebadf);
	else if (strcmp(option, "info-fd") == 0 || strcmp(option, "json-status-fd") == 0)
		snprintf(err, errlen, "Write to info_fd: %s", ebadf);
	else if (strcmp(option, "userns") == 0)
		snprintf(err, errlen, "Joining specified user namespace failed: %s", ebadf);
	else if (strcmp(option, "userns2") == 0)
		snprintf(err, errlen, "Setting userns2 failed: %s", ebadf);
	else if (strcmp(option, "pidns") == 0)
		snprintf(err, errlen, "Setting pidns failed: %s", ebadf);
	else
		snprintf(err, errlen, "--%s %d: %s", option, fd, ebadf);
}

/* bwrap closes an --args fd once it has read it: to every option after
 * (and, since options are used after parsing, before) it is not open. */
static bool read_by_args(const struct plan *plan, int fd)
{
	for (size_t i = 0; i < plan->n_args_fds; i++)
		if (plan->args_fds[i] == fd)
			return true;
	return false;
}

int fds_check_open(const struct plan *plan, const char *option, int fd,
		   const char *dest, char *err, size_t errlen)
{
	bool read = read_by_args(plan, fd);

	if (!read && fds_is_open(fd))
		return 0;
	if (plan->mode == MODE_BWRAP)
		bwrap_text(option, fd, dest, err, errlen);
	else
		snprintf(err, errlen, "--%s %d: %s%s", option, fd, strerror(EBADF),
			 read ? " (--args read it; once read it counts as closed, as in bwrap)" : "");
	return -1;
}

void fds_read_by_args(struct plan *plan, int fd)
{
	plan->args_fds = xreallocarray(plan->args_fds, plan->n_args_fds + 1, sizeof(int));
	plan->args_fds[plan->n_args_fds++] = fd;
}

static const char *op_option(const struct fs_op *op)
{
	bool ro = op->flags & FS_READONLY;

	switch (op->kind) {
	case FS_BIND_FD: return ro ? "ro-bind-fd" : "bind-fd";
	case FS_FILE: return "file";
	case FS_BIND_DATA: return ro ? "ro-bind-data" : "bind-data";
	default: return NULL;
	}
}

void fds_each(const struct plan *plan, fds_fn fn, void *arg)
{
	const struct { const char *option; int fd; } single[] = {
		{ "json-status-fd", plan->json_status_fd }, { "info-fd", plan->info_fd },
		{ "sync-fd", plan->sync_fd }, { "block-fd", plan->block_fd },
		{ "userns-block-fd", plan->userns_block_fd }, { "userns", plan->userns_fd },
		{ "userns2", plan->userns2_fd }, { "pidns", plan->pidns_fd },
		{ "report-fd", plan->report_fd },
	};
	const char *seccomp = plan->seccomp_fd_given ? "seccomp" : "add-seccomp-fd";

	for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		if (single[i].fd >= 0)
			fn(single[i].option, single[i].fd, arg);
	for (size_t i = 0; i < plan->n_seccomp_fds; i++)
		fn(seccomp, plan->seccomp_fds[i], arg);
	for (size_t i = 0; i < plan->n_ops; i++)
		if (op_option(&plan->ops[i]))
			fn(op_option(&plan->ops[i]), plan->ops[i].fd, arg);
}

struct passed_search {
	int fd;
	const char *other;	/* the first other option naming it */
};

static void find_other(const char *option, int fd, void *arg)
{
	struct passed_search *s = arg;

	if (fd == s->fd && !s->other)
		s->other = option;
}

int fds_check_passed(const struct plan *plan, char *err, size_t errlen)
{
	for (size_t i = 0; i < plan->n_pass_fds; i++) {
		struct passed_search s = { plan->pass_fds[i], NULL };

		fds_each(plan, find_other, &s);
		if (s.other) {
			snprintf(err, errlen, "fd %d, passed to COMMAND, is also the fd of --%s: "
				 "an fd that hutch reads, writes or closes is never COMMAND's",
				 s.fd, s.other);
			return -1;
		}
	}
	return 0;
}

int fds_retire(int fd)
{
	int p[2], r;

	if (fd < 0)
		return 0;
	/* The write end of a pipe without a reader: reads fail with EBADF,
	 * as on a closed fd, writes with EPIPE, /proc/self/fd names no path,
	 * and nothing can come out of it. */
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	close(p[0]);
	r = dup3(p[1], fd, O_CLOEXEC);
	close(p[1]);
	return r < 0 ? -1 : 0;
}

int fds_free_run(int from, int count)
{
	int start = from;

	for (int fd = from; fd < start + count; fd++)
		if (fds_is_open(fd))
			start = fd + 1;
	return start;
}
