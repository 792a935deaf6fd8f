/* Overlays (mount_overlay.c). */
#ifndef HUTCH_MOUNT_OVERLAY_H
#define HUTCH_MOUNT_OVERLAY_H

#include <stddef.h>
#include "plan/plan.h"

struct mount_state;

/* While the host tree is visible: operation I's overlay, detached, in
 * ms->trees[I]. */
int mount_overlay_prepare(struct mount_state *ms, struct fs_op *op, size_t i);

#endif
