/* /proc in the sandbox (mount_proc.c). */
#ifndef HUTCH_MOUNT_PROC_H
#define HUTCH_MOUNT_PROC_H

#include <stddef.h>
#include "plan/plan.h"

struct mount_state;

/* While the host tree is visible: the procfs for operation I. */
int mount_proc_prepare(struct mount_state *ms, size_t i);
/* The private procfs pid 1 reads at teardown (ms->private_proc). */
void mount_proc_private(struct mount_state *ms);
/* In the new root: operation I's procfs on its destination, covered. */
int mount_proc_attach(struct mount_state *ms, struct fs_op *op, size_t i);

#endif
