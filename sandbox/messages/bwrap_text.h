/* bwrap's words for a failure.  In bwrap mode a failure a caller can
 * hit is reported with the text bubblewrap 0.11.1 prints for it
 * (callers match them: "Can't mount proc on /newroot/proc" makes a
 * caller retry without --proc); hutch mode keeps hutch's words.  The
 * table is in bwrap_text.c. */
#ifndef HUTCH_BWRAP_TEXT_H
#define HUTCH_BWRAP_TEXT_H

#include <stddef.h>
#include "plan/plan.h"

enum bwrap_text {
	/* mounts: the new root */
	BW_MAKE_SLAVE, BW_NEWROOT_TMPFS, BW_NEWROOT_BIND, BW_PIVOT_ROOT,
	BW_UNMOUNT_OLDROOT,
	/* mounts: each operation */
	BW_FIND_SOURCE, BW_MKDIR_PARENTS, BW_MKDIR, BW_CREATE_FILE_AT,
	BW_BIND, BW_BIND_FLAGS, BW_BIND_PROC, BW_REMOUNT_RO_MISSING, BW_REMOUNT_RO,
	BW_REMOUNT_RO_NOT_MOUNT,
	BW_MOUNT_PROC, BW_MOUNT_TMPFS, BW_MOUNT_DEVPTS, BW_MOUNT_MQUEUE,
	BW_OVERLAY, BW_OVERLAY_OVERLAP, BW_TMP_OVERLAY_UPPER, BW_TMP_OVERLAY_WORK,
	BW_COVER_PROC, BW_PROC_ACCESS,
	BW_DEV_FILE, BW_DEV_SYMLINK, BW_DEV_SHM, BW_DEV_PTS, BW_DEV_PTMX,
	BW_DEV_CONSOLE,
	BW_CHMOD, BW_CREATE_FILE, BW_WRITE_DATA, BW_CREATE_TMPFILE,
	BW_SYMLINK, BW_SYMLINK_EXISTS, BW_SYMLINK_NOT_LINK, BW_SYMLINK_UNREADABLE,
	BW_HOSTNAME, BW_CHDIR,
	/* the network namespace's loopback */
	BW_LOOPBACK_LOOKUP, BW_LOOPBACK_SOCKET, BW_LOOPBACK_UP,
	/* namespaces and id maps */
	BW_NEW_NAMESPACE, BW_NEW_NAMESPACE_EINVAL, BW_NEW_NAMESPACE_EPERM,
	BW_NEW_NAMESPACE_ENOSPC,
	BW_OPEN_PROC_PID, BW_UID_MAP, BW_SETGROUPS, BW_GID_MAP,
	BW_OPEN_MAX_USERNS, BW_WRITE_MAX_USERNS, BW_UNSHARE_USER,
	/* COMMAND's process */
	BW_ADD_AMBIENT, BW_DROP_BOUND, BW_CAPSET, BW_NO_NEW_PRIVS, BW_SETSID,
	BW_SECCOMP_READ, BW_SECCOMP_SIZE, BW_SECCOMP_EINVAL, BW_SECCOMP_LOAD,
	BW_LOCK_OPEN, BW_LOCK, BW_EXECVP, BW_FILE_LABEL, BW_EXEC_LABEL,
	BW_N_TEXTS
};

/* One failure, in hutch's words (WHAT OBJ) and in bwrap's (ID with the
 * arguments A and B). */
struct failure {
	const char *stage;	/* hutch's stage, which bwrap mode leaves out */
	const char *what;
	const char *obj;
	enum bwrap_text id;
	const char *a;
	const char *b;
};

/* Write into ERR "STAGE: " and MODE's words for F, then, where the
 * words call for it, ": " and ERRNUM's text; returns -1. */
int messages_bwrap_fail(char *err, size_t errlen, enum mode mode,
			const struct failure *f, int errnum);

/* bwrap's text for ID with A and B, without the errno part (tests). */
void messages_bwrap_format(char *out, size_t len, enum bwrap_text id,
			   const char *a, const char *b);

/* BUF gets PATH as bwrap writes it in overlay options: '\\', ',' and ':'
 * each behind a backslash. */
void messages_bwrap_escape_option(char *buf, size_t len, const char *path);

/* The options bwrap gives mount(2) for overlay operation I of PLAN, which
 * its failure message quotes: host paths resolved, under /oldroot and
 * escaped; the upper layer, then the lower ones, top first. */
void messages_bwrap_overlay_options(const struct plan *plan, size_t i, char *buf, size_t len);

#endif
