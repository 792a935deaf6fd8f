/* Where the sandbox's cgroup can go (cgroup_pick.c). */
#ifndef HUTCH_CGROUP_PICK_H
#define HUTCH_CGROUP_PICK_H

#include <limits.h>
#include <stdbool.h>

#define CGROUP_REASON_LEN (PATH_MAX + 512)

/* A candidate parent cgroup, and why the last one tried was unusable. */
struct cgroup_pick {
	int fd;
	char dir[PATH_MAX];
	const char *mnt;	/* the cgroup2 mount point */
	bool own;		/* the candidate is the supervisor's own cgroup */
	bool dry;		/* only tell: enable nothing, move nothing */
	unsigned have;		/* controllers the last candidate offers */
	unsigned enabled;	/* controllers this run enabled in it */
	char self_leaf[64];	/* the supervisor's leaf made in it, or "" */
	char reason[CGROUP_REASON_LEN];
};

/* From our own cgroup up to the hierarchy's root: the first where the
 * sandbox's cgroup can go, offering the controllers NEED and something
 * of WANT (CTL_* bits), kept open in P->fd.  False with P->reason the
 * topmost's failure.  P->dry: only tell, enable and move nothing. */
bool limits_cgroup_pick_parent(struct cgroup_pick *p, unsigned need, unsigned want);
/* Undo the step into a leaf of FD's cgroup: the controllers ENABLED for
 * this run off again, the supervisor back in FD's cgroup, LEAF removed. */
void limits_cgroup_leave_leaf(int fd, const char *leaf, unsigned enabled);

#endif
