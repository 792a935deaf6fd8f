/* The kernel's fd-based mount API as the mounts stage uses it (mount_api.c). */
#ifndef HUTCH_MOUNT_API_H
#define HUTCH_MOUNT_API_H

#include <stdbool.h>
#include <sys/types.h>
#include "messages/messages.h"

struct mount_state;

/* Fail (-1) with "mounts: WHAT OBJ: strerror(errno)"; mount_op_error says
 * it in bwrap mode in bwrap's words instead (ID with A and B). */
int mount_error(struct mount_state *ms, const char *what, const char *obj);
int mount_op_error(struct mount_state *ms, const char *what, const char *obj,
		   enum bwrap_text id, const char *a, const char *b);

/* Set the mount attributes SET on the tree FD (its submounts too with
 * RECURSIVE). */
int mount_set_attrs(int fd, unsigned long long set, bool recursive);
/* Whether FD is the root of a mount (statx's STATX_ATTR_MOUNT_ROOT). */
bool mount_is_root(int fd);
/* A new file system context of TYPE; -1 with errno. */
int mount_open_fs(const char *type);
/* A detached new file system of TYPE with NOPTS/2 string options (key,
 * value, ...) and mount attributes ATTRS (mount_make_fs: nosuid,nodev). */
int mount_make_fs_attrs(const char *type, const char *const *opts, int nopts,
			unsigned long long attrs);
int mount_make_fs(const char *type, const char *const *opts, int nopts);
/* A detached tmpfs with MODE at its root, of SIZE bytes (0: the default). */
int mount_make_tmpfs(mode_t mode, unsigned long long size);
/* The same, its files labelled LABEL (SELinux's "context" option, as
 * bwrap mounts a tmpfs under --file-label); LABEL NULL: none. */
int mount_make_labelled_tmpfs(mode_t mode, unsigned long long size, const char *label);
/* A tmpfs's options for fsconfig, key then value, N strings in KV (they
 * point into the struct and into LABEL). */
struct tmpfs_options {
	char mode[16], size[32];
	const char *kv[6];
	int n;
};
void mount_tmpfs_options(struct tmpfs_options *o, mode_t mode, unsigned long long size,
			 const char *label);
/* A host directory that a private tree can hang over for a moment, in
 * this private mount namespace only. */
const char *mount_attach_point(void);

#endif
