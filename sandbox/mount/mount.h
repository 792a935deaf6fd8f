/* mount/: the mounts stage: the plan's fs operations carried out with the
 * new mount API into a new root (mounts.c and mount_*.c), and --protect
 * (protect.c), which binds paths read-only after every other mount.
 *
 * The folder's public header: files outside mount/ include this one only. */
#ifndef HUTCH_MOUNT_PUBLIC_H
#define HUTCH_MOUNT_PUBLIC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan/plan.h"
#include "lib/lib.h"

struct sandbox;

/* The mounts stage (mounts.c). */
#define N_DEV_NODES 6

struct mount_state {
	const struct plan *plan;
	bool bwrap;
	int *trees;		/* per op: cloned source or new mount, or -1 */
	char **links;		/* per op: --mirror of a host symlink */
	int dev_nodes[N_DEV_NODES];
	int console;		/* bwrap mode: the caller's terminal, or -1 */
	char *console_src;	/* its path on the host */
	int root;		/* O_PATH fd of the new root */
	dev_t root_dev;		/* and its identity, for binds onto "/" */
	ino_t root_ino;
	const char *attach_point; /* where it hangs until pivot_root */
	int private_proc;	/* procfs mount for pid 1's teardown, or -1 */
	bool proc_substituted;	/* a fresh procfs was refused (see mounts.c) */
	bool proc_fenced;	/* /proc is the caller's: COMMAND needs a Landlock domain */
	char pwd[PATH_MAX];	/* the working directory as it was entered
				   (bwrap's PWD) */
	mode_t parent_mode;	/* of the parent directories the operation
				   being carried out creates */
	int protect_sock;	/* --protect: placeholders are named on it, or -1 */
	struct timing *timing;	/* where the phases are marked (timing.h) */
	char *err;
	size_t errlen;
};

void mounts_init(struct mount_state *ms, const struct plan *plan, char *err, size_t errlen);
/* hutch mode, in pid 1 before it is released: the first mount in its
 * new namespaces, / made private (recursively); -1 with errno. */
int mounts_first_private(void);
/* Build the whole tree, pivot into it and enter the working directory. */
int mounts_build(struct mount_state *ms);
void mounts_release(struct mount_state *ms);

/* --protect (protect.c). */
/* Parse stage: relative paths are taken against the bound current
 * directory.  0, or -1 with ERR set. */
int protect_resolve(struct plan *plan, char *err, size_t errlen);
/* Supervisor, prepare: the socket on which set-up names the placeholders
 * it makes.  Nothing without --protect. */
int protect_prepare(struct sandbox *sb);
/* pid 1, mounts stage: its end of that socket (-1 without --protect). */
int protect_take_socket(struct sandbox *sb);
/* Supervisor, at exit: remove each placeholder still as it was made
 * that no other run uses. */
void protect_finish(struct sandbox *sb);

#endif
