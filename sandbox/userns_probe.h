/* Why are user namespaces refused here (see userns_probe.c)? */
#ifndef HUTCH_USERNS_PROBE_H
#define HUTCH_USERNS_PROBE_H

#include <stdbool.h>

struct sandbox;

/* Did clone's failure (ERRNUM) come from a refused user namespace?  Sets
 * sb->err to one precise line naming what refused and the fix, and
 * sb->found.reason to the cause alone. */
bool userns_refused_here(struct sandbox *sb, int errnum);
/* Clone succeeded: is the new user namespace powerless all the same
 * (Ubuntu's AppArmor restriction: its maps or first mount fail)?  Probes
 * only where that sysctl is on; sets sb->err like the above. */
bool userns_restricted_here(struct sandbox *sb);

#endif
