/* mount/: the sandbox's mount tree: the plan's fs operations carried out with
 * the new mount API, the new root, /proc and /dev, overlays, --protect.
 *
 * The folder's public header: files outside mount/ include this one only. */
#ifndef HUTCH_MOUNT_PUBLIC_H
#define HUTCH_MOUNT_PUBLIC_H

#include "mounts.h"
#include "protect.h"

#endif
