/* --userns and --pidns: pid 1 is cloned by an intermediate that joined
 * the given namespaces, as the supervisor's own child (see join.c). */
#ifndef HUTCH_JOIN_H
#define HUTCH_JOIN_H

#include <sys/types.h>

struct sandbox;

/* Like clone: 0 in pid 1, its pid in the supervisor (SB->pid1_fd set),
 * or -1 with errno, and SB->err set when joining failed. */
pid_t join_clone(struct sandbox *sb, int flags);

#endif
