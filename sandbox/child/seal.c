#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/lib.h"
#include "messages/messages.h"
#include "sandbox.h"
#include "seal.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

size_t seal_image_size(void)
{
	size_t len;

	builtin_init_image(&len);
	return len;
}

static int memfd_failure(struct sandbox *sb)
{
	if (errno == EACCES) {
		snprintf(sb->err, sizeof(sb->err),
			 "seal: memfd: executable memfds are refused (sysctl vm.memfd_noexec = 2); "
			 "hutch will not run pid 1 from an unsealed binary: set vm.memfd_noexec to 0 or 1");
		return -1;
	}
	return log_fail(sb->err, sizeof(sb->err), "seal", "memfd_create", "hutch-init", errno);
}

static int create_exec_memfd(void)
{
	int fd = memfd_create("hutch-init", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);

	/* Kernels before 6.3 know no MFD_EXEC: every memfd is executable. */
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("hutch-init", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int seal_make_image(struct sandbox *sb)
{
	size_t len;
	const unsigned char *image = builtin_init_image(&len);
	int seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	int fd = create_exec_memfd();

	if (fd < 0)
		return memfd_failure(sb);
	if (write_all(fd, image, len) < 0 || fchmod(fd, 0555) < 0) {
		close(fd);
		return log_fail(sb->err, sizeof(sb->err), "seal", "write", "hutch-init", errno);
	}
	/* Sealed: no one, not even its owner, can change it again; the
	 * exec seal keeps its mode too where the kernel has it. */
	if (fcntl(fd, F_ADD_SEALS, seals | F_SEAL_EXEC) < 0 &&
	    fcntl(fd, F_ADD_SEALS, seals) < 0) {
		close(fd);
		return log_fail(sb->err, sizeof(sb->err), "seal", "seal", "hutch-init", errno);
	}
	sb->init_image = fd;
	return 0;
}

static int keep_across_exec(int fd)
{
	return fd < 0 ? 0 : fcntl(fd, F_SETFD, 0);
}

int seal_exec_init(struct sandbox *sb)
{
	char fds[8][16];
	char *const argv[] = {
		"hutch-init",
		"--command-pidfd", fds[0], "--command-pid", fds[1],
		"--go-fd", fds[2], "--control-fd", fds[3],
		"--proc-fd", fds[4], "--status-fd", fds[5],
		"--hold-first", fds[6], "--hold-count", fds[7],
		NULL,
	};
	char *const envp[] = { NULL };
	int vals[8] = { sb->command_fd, sb->command_pid, sb->go_pipe[1],
			sb->control_pipe[0], sb->ms.private_proc, sb->status_pipe[1],
			sb->hold_count ? sb->hold_base : -1, sb->hold_count };

	for (int i = 0; i < 8; i++) {
		snprintf(fds[i], sizeof(fds[i]), "%d", vals[i]);
		if (i != 1 && i != 7 && keep_across_exec(vals[i]) < 0)
			return log_fail(sb->err, sizeof(sb->err), "seal", "keep fd", fds[i], errno);
	}
	for (int i = 1; i < sb->hold_count; i++)
		if (keep_across_exec(sb->hold_base + i) < 0)
			return log_fail(sb->err, sizeof(sb->err), "seal", "keep fd", "held", errno);
	syscall(SYS_execveat, sb->init_image, "", argv, envp, AT_EMPTY_PATH);
	return log_fail(sb->err, sizeof(sb->err), "seal", "execveat", "hutch-init", errno);
}
