/* The texts bubblewrap 0.11.1 prints for the failures a caller can hit,
 * taken from its bubblewrap.c, utils.c, bind-mount.c and network.c (the
 * words only).  bwrap builds paths under its two roots, /newroot (the
 * sandbox being built) and /oldroot (the host): "%r1" is argument 1
 * without its leading slashes, "%1" argument 1 as it is; likewise 2.
 *
 * How the errno is added: as strerror() (ERRNO), as bwrap's mount error
 * text, which says more for ENOSPC (MOUNT), or not at all (NONE).
 *
 * Last, the mount options of an overlay, which bwrap's overlay failure
 * quotes. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwrap_text.h"

enum errno_part { ERRNO, MOUNT, NONE };

static const struct {
	const char *text;
	enum errno_part errno_part;
} texts[BW_N_TEXTS] = {
	[BW_MAKE_SLAVE] = { "Failed to make / slave", MOUNT },
	[BW_NEWROOT_TMPFS] = { "Failed to mount tmpfs", MOUNT },
	[BW_NEWROOT_BIND] = { "setting up newroot bind", MOUNT },
	[BW_PIVOT_ROOT] = { "pivot_root", ERRNO },
	[BW_UNMOUNT_OLDROOT] = { "unmount old root", ERRNO },

	[BW_FIND_SOURCE] = { "Can't find source path %1", ERRNO },
	[BW_MKDIR_PARENTS] = { "Can't mkdir parents for %1", ERRNO },
	[BW_MKDIR] = { "Can't mkdir %1", ERRNO },
	[BW_CREATE_FILE_AT] = { "Can't create file at %1", ERRNO },
	[BW_BIND] = { "Can't bind mount /oldroot/%r1 on /newroot/%r2: "
		      "Unable to mount source on destination", MOUNT },
	[BW_BIND_FLAGS] = { "Can't bind mount /oldroot/%r1 on /newroot/%r2: "
			    "Unable to remount destination \"/newroot/%r2\" with correct flags",
			    MOUNT },
	[BW_BIND_PROC] = { "Can't bind mount oldroot/proc on /newroot/%r1: "
			   "Unable to mount source on destination", MOUNT },
	[BW_REMOUNT_RO_MISSING] = { "Can't remount readonly on /newroot/%r1: "
				    "realpath(destination)", ERRNO },
	[BW_REMOUNT_RO] = { "Can't remount readonly on /newroot/%r1: "
			    "Unable to remount destination \"/newroot/%r1\" with correct flags",
			    MOUNT },
	[BW_REMOUNT_RO_NOT_MOUNT] = { "Can't remount readonly on /newroot/%r1: "
				      "Unable to find \"/newroot/%r1\" in mount table", NONE },
	[BW_MOUNT_PROC] = { "Can't mount proc on /newroot/%r1", MOUNT },
	[BW_MOUNT_TMPFS] = { "Can't mount tmpfs on /newroot/%r1", MOUNT },
	[BW_MOUNT_DEVPTS] = { "Can't mount devpts on /newroot/%r1/pts", MOUNT },
	[BW_MOUNT_MQUEUE] = { "Can't mount mqueue on /newroot/%r1", MOUNT },
	[BW_OVERLAY] = { "Can't make overlay mount on /newroot/%r1 with options %2", MOUNT },
	[BW_OVERLAY_OVERLAP] = { "Can't make overlay mount on /newroot/%r1 with options %2: "
				 "Overlay directories may not overlap", NONE },
	[BW_TMP_OVERLAY_UPPER] = { "Creating --tmp-overlay upperdir failed", ERRNO },
	[BW_TMP_OVERLAY_WORK] = { "Creating --tmp-overlay workdir failed", ERRNO },
	[BW_COVER_PROC] = { "Can't bind mount /newroot/%r1/%2 on /newroot/%r1/%2: "
			    "Unable to mount source on destination", MOUNT },
	[BW_PROC_ACCESS] = { "Can't access /newroot/%r1/%2", ERRNO },
	[BW_DEV_FILE] = { "Can't create file %1/%2", ERRNO },
	[BW_DEV_SYMLINK] = { "Can't create symlink %1/%2", ERRNO },
	[BW_DEV_SHM] = { "Can't create %1/shm", ERRNO },
	[BW_DEV_PTS] = { "Can't create %1/devpts", ERRNO },
	[BW_DEV_PTMX] = { "Can't make symlink at %1/ptmx", ERRNO },
	[BW_DEV_CONSOLE] = { "creating %1/console", ERRNO },
	[BW_CHMOD] = { "Can't chmod %1 %2", ERRNO },
	[BW_CREATE_FILE] = { "Can't create file %1", ERRNO },
	[BW_WRITE_DATA] = { "Can't write data to file %1", ERRNO },
	[BW_CREATE_TMPFILE] = { "Can't create tmpfile for %1", ERRNO },
	[BW_SYMLINK] = { "Can't make symlink at %1", ERRNO },
	[BW_SYMLINK_EXISTS] = { "Can't make symlink at %1: existing destination is %2", NONE },
	[BW_SYMLINK_NOT_LINK] = { "Can't make symlink at %1: destination exists and is "
				  "not a symlink", NONE },
	[BW_SYMLINK_UNREADABLE] = { "Can't make symlink at %1: destination exists, and "
				    "cannot read symlink target", ERRNO },
	[BW_HOSTNAME] = { "Can't set hostname to %1", ERRNO },
	[BW_CHDIR] = { "Can't chdir to %1", ERRNO },

	[BW_LOOPBACK_LOOKUP] = { "loopback: Failed to look up lo", ERRNO },
	[BW_LOOPBACK_SOCKET] = { "loopback: Failed to create NETLINK_ROUTE socket", ERRNO },
	[BW_LOOPBACK_UP] = { "loopback: Failed RTM_NEWLINK", ERRNO },

	[BW_NEW_NAMESPACE] = { "Creating new namespace failed", ERRNO },
	[BW_NEW_NAMESPACE_EINVAL] = { "Creating new namespace failed, likely because the kernel "
				      "does not support user namespaces.  bwrap must be "
				      "installed setuid on such systems.", NONE },
	[BW_NEW_NAMESPACE_EPERM] = { "No permissions to create a new namespace, likely because "
				     "the kernel does not allow non-privileged user "
				     "namespaces. On e.g. debian this can be enabled with "
				     "'sysctl kernel.unprivileged_userns_clone=1'.", NONE },
	[BW_NEW_NAMESPACE_ENOSPC] = { "Creating new namespace failed: nesting depth or "
				      "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)", NONE },
	[BW_OPEN_PROC_PID] = { "open /proc/%1 failed", ERRNO },
	[BW_UID_MAP] = { "setting up uid map", ERRNO },
	[BW_SETGROUPS] = { "error writing to setgroups", ERRNO },
	[BW_GID_MAP] = { "setting up gid map", ERRNO },
	[BW_OPEN_MAX_USERNS] = { "cannot open /proc/sys/user/max_user_namespaces", ERRNO },
	[BW_WRITE_MAX_USERNS] = { "sysctl user.max_user_namespaces = 1", ERRNO },
	[BW_UNSHARE_USER] = { "unshare user ns", ERRNO },

	[BW_ADD_AMBIENT] = { "Adding ambient capability %1", ERRNO },
	[BW_DROP_BOUND] = { "Dropping capability %1 from bounds", ERRNO },
	[BW_CAPSET] = { "capset failed", ERRNO },
	[BW_NO_NEW_PRIVS] = { "prctl(PR_SET_NO_NEW_PRIVS) failed", ERRNO },
	[BW_SETSID] = { "setsid", ERRNO },
	[BW_SECCOMP_READ] = { "Can't read seccomp data", ERRNO },
	[BW_SECCOMP_SIZE] = { "Invalid seccomp data, must be multiple of 8", NONE },
	[BW_SECCOMP_EINVAL] = { "Unable to set up system call filtering as requested: "
				"prctl(PR_SET_SECCOMP) reported EINVAL. (Hint: this requires "
				"a kernel configured with CONFIG_SECCOMP and "
				"CONFIG_SECCOMP_FILTER.)", NONE },
	[BW_SECCOMP_LOAD] = { "prctl(PR_SET_SECCOMP)", ERRNO },
	[BW_LOCK_OPEN] = { "Unable to open lock file %1", ERRNO },
	[BW_LOCK] = { "Unable to lock file %1", ERRNO },
	[BW_EXECVP] = { "execvp %1", ERRNO },
	[BW_FILE_LABEL] = { "--file-label setup failed", ERRNO },
	[BW_EXEC_LABEL] = { "label_exec %1", ERRNO },
};

/* The argument a placeholder at P names ("%1", "%r2"), and its length
 * in *SKIP; NULL when P is no placeholder. */
static const char *placeholder(const char *p, const char *a, const char *b, size_t *skip)
{
	bool strip = p[1] == 'r';
	char which = p[strip ? 2 : 1];
	const char *arg;

	if (p[0] != '%' || (which != '1' && which != '2'))
		return NULL;
	arg = which == '1' ? a : b;
	arg = arg ? arg : "";
	while (strip && *arg == '/')
		arg++;
	*skip = strip ? 3 : 2;
	return arg;
}

void messages_bwrap_format(char *out, size_t len, enum bwrap_text id,
			   const char *a, const char *b)
{
	const char *p = texts[id].text;
	size_t off = 0;

	while (*p && off + 1 < len) {
		size_t skip = 1;
		const char *arg = placeholder(p, a, b, &skip);
		int n = arg ? snprintf(out + off, len - off, "%s", arg) :
			      snprintf(out + off, len - off, "%c", *p);

		off += n < 0 ? 0 : (size_t)n;
		p += skip;
	}
	out[off < len ? off : len - 1] = '\0';
}

static const char *mount_strerror(int errnum)
{
	if (errnum == ENOSPC)
		return "Limit exceeded (ENOSPC). (Hint: Check that /proc/sys/fs/mount-max "
		       "is sufficient, typically 100000)";
	return strerror(errnum);
}

int messages_bwrap_fail(char *err, size_t errlen, enum mode mode,
			const struct failure *f, int errnum)
{
	char text[2048];
	enum errno_part part = texts[f->id].errno_part;

	if (mode != MODE_BWRAP) {
		snprintf(err, errlen, "%s: %s %s: %s", f->stage, f->what, f->obj,
			 strerror(errnum));
		return -1;
	}
	messages_bwrap_format(text, sizeof(text), f->id, f->a, f->b);
	if (part == NONE)
		snprintf(err, errlen, "%s: %s", f->stage, text);
	else
		snprintf(err, errlen, "%s: %s: %s", f->stage, text,
			 part == MOUNT ? mount_strerror(errnum) : strerror(errnum));
	return -1;
}

void messages_bwrap_escape_option(char *buf, size_t len, const char *path)
{
	size_t off = 0;

	for (const char *p = path; *p && off + 2 < len; p++) {
		if (*p == '\\' || *p == ',' || *p == ':')
			buf[off++] = '\\';
		buf[off++] = *p;
	}
	buf[off] = '\0';
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	if (off < len)
		vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* PATH as bwrap names a host path in mount options: resolved, under
 * /oldroot, escaped. */
static void append_oldroot(char *buf, size_t len, const char *path)
{
	char *real = realpath(path, NULL);
	char escaped[2 * PATH_MAX];

	messages_bwrap_escape_option(escaped, sizeof(escaped), real ? real : path);
	appendf(buf, len, "/oldroot%s", escaped);
	free(real);
}

static size_t tmp_overlays_before(const struct plan *plan, size_t i)
{
	size_t n = 0;

	for (size_t j = 0; j < i; j++)
		n += plan->ops[j].kind == FS_TMP_OVERLAY;
	return n;
}

void messages_bwrap_overlay_options(const struct plan *plan, size_t i, char *buf, size_t len)
{
	const struct fs_op *op = &plan->ops[i];

	buf[0] = '\0';
	if (op->kind == FS_OVERLAY) {
		appendf(buf, len, "upperdir=");
		append_oldroot(buf, len, op->src);
		appendf(buf, len, ",workdir=");
		append_oldroot(buf, len, op->workdir);
		appendf(buf, len, ",");
	} else if (op->kind == FS_TMP_OVERLAY) {
		size_t n = tmp_overlays_before(plan, i);

		appendf(buf, len, "upperdir=/tmp-overlay-upper-%zu,workdir=/tmp-overlay-work-%zu,",
			n, n);
	}
	appendf(buf, len, "lowerdir=");
	for (size_t l = op->n_lower; l > 0; l--) {
		appendf(buf, len, "%s", l < op->n_lower ? ":" : "");
		append_oldroot(buf, len, op->lower[l - 1]);
	}
	appendf(buf, len, ",userxattr");
}
