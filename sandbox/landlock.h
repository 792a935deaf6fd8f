/* The fallback where user namespaces are refused: COMMAND runs without
 * namespaces, confined by Landlock and the same seccomp policy, under a
 * subreaper supervisor that kills every descendant at exit. */
#ifndef HUTCH_LANDLOCK_H
#define HUTCH_LANDLOCK_H

#include <stdbool.h>

struct sandbox;

/* Did clone's failure (ERRNUM) come from a refused user namespace?  Sets
 * sb->err to one precise line naming what refused and the fix. */
bool landlock_userns_refused(struct sandbox *sb, int errnum);
/* Run the plan under the fallback; returns COMMAND's exit status (like
 * supervise_exit_status), or -1 with sb->err set when it cannot. */
int landlock_run(struct sandbox *sb);

#endif
