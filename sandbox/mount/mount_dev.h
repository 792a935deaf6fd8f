/* --dev (mount_dev.c). */
#ifndef HUTCH_MOUNT_DEV_H
#define HUTCH_MOUNT_DEV_H

#include "plan/plan.h"

struct mount_state;

/* While the host tree is visible: clones of the device nodes. */
int mount_dev_prepare(struct mount_state *ms, const struct fs_op *op);
/* In the new root: the tmpfs with the nodes, links and devpts. */
int mount_dev_attach(struct mount_state *ms, struct fs_op *op);

#endif
