/* --protect PATH (and --protect-git DIR, a list of them): after every
 * other mount, PATH is bound read-only over itself, and where it is
 * missing a read-only placeholder stands there, so that nothing in the
 * sandbox can write or create what runs later outside it (.git/hooks,
 * .git/config, .git/commondir, .envrc).  The placeholders are made in
 * the directory that lacks PATH, which may be the host's, marked, shared
 * by concurrent runs under a shared lock, and removed by the last run
 * using them (or, after a SIGKILL, by the next). */
#ifndef HUTCH_PROTECT_H
#define HUTCH_PROTECT_H

#include <stddef.h>
#include "mount.h"

struct mount_state;
struct plan;
struct sandbox;

/* pid 1, in the new root after every other mount, before pivot_root.
 * Closes MS's socket.  0, or -1 with MS's error set. */
int protect_apply(struct mount_state *ms);

#endif
