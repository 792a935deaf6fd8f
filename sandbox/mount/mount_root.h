/* Paths and mounts inside the sandbox's new root (mount_root.c). */
#ifndef HUTCH_MOUNT_ROOT_H
#define HUTCH_MOUNT_ROOT_H

#include <stdbool.h>
#include <sys/types.h>
#include "messages/messages.h"

struct mount_state;

/* bwrap's text for a failed mount: ID with A and B. */
struct mount_text {
	enum bwrap_text id;
	const char *a, *b;
};

/* PATH opened with FLAGS (O_CLOEXEC added) inside the new root: no
 * symlink, absolute or magic, leads out of it. */
int mount_root_resolve(struct mount_state *ms, const char *path, int flags);
/* mkdir -p PATH with MODE, its missing parents with ms->parent_mode; an
 * O_PATH fd of PATH, or -1. */
int mount_root_make_dirs(struct mount_state *ms, const char *path, mode_t mode);
/* The parent directory of DEST, made if missing; *LEAF its last name. */
int mount_root_open_parent(struct mount_state *ms, const char *dest, const char **leaf);
/* The directory PATH with MODE, its parents first; *FAILED says which
 * step failed, in bwrap's terms. */
int mount_root_make_dir(struct mount_state *ms, const char *path, mode_t mode,
			enum bwrap_text *failed);
/* DEST as a mount point (a directory with DIR, else a file), made if
 * missing, or -1 with the failure in ms->err. */
int mount_root_open_mount_point(struct mount_state *ms, const char *dest, bool dir);
/* Open ms->root again: the topmost mount at the attach point. */
int mount_root_reopen(struct mount_state *ms);
/* Mount the tree TREE on DEST (made as mount_root_open_mount_point makes it). */
int mount_root_attach(struct mount_state *ms, int tree, const char *dest, bool dir,
		      const struct mount_text *mt);
/* A new file system TREE (or its failure, in WHAT's words) on the mount
 * point AT, which this closes, as TREE. */
int mount_root_attach_new(struct mount_state *ms, int at, int tree, const char *dest,
			  const char *what, const struct mount_text *mt);
/* A symlink DEST to TARGET, its parents first. */
int mount_root_make_symlink(struct mount_state *ms, const char *target, const char *dest);
/* A mount of the file NAME of the detached tmpfs TMP, or -1. */
int mount_root_clone_tmpfs_file(struct mount_state *ms, int tmp, const char *name);

#endif
