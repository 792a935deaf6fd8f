/* limits/: Resource limits: --rlimit, and the cgroup limits (--pids, --memory,
 * --cpu) in a cgroup hutch picks; their texts for messages.
 *
 * The folder's public header: files outside limits/ include this one only. */
#ifndef HUTCH_LIMITS_PUBLIC_H
#define HUTCH_LIMITS_PUBLIC_H

#include "resource_limits.h"

#endif
