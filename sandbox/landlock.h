/* The fallback where user namespaces are refused: COMMAND runs without
 * namespaces, confined by Landlock and the same seccomp policy, under a
 * subreaper supervisor that kills every descendant at exit. */
#ifndef HUTCH_LANDLOCK_H
#define HUTCH_LANDLOCK_H

#include <stdbool.h>
#include <stdio.h>

struct plan;
struct sandbox;

/* Did clone's failure (ERRNUM) come from a refused user namespace?  Sets
 * sb->err to one precise line naming what refused and the fix. */
bool landlock_userns_refused(struct sandbox *sb, int errnum);
/* Clone succeeded: is the new user namespace powerless all the same
 * (Ubuntu's AppArmor restriction: its maps or first mount fail)?  Probes
 * only where that sysctl is on; sets sb->err like the above. */
bool landlock_userns_restricted(struct sandbox *sb);
/* Run the plan under the fallback: the run stage's work, filling sb->run
 * for supervise_exit_status.  Returns 0, or -1 with sb->err set when it
 * cannot (nothing ran unconfined). */
int landlock_run(struct sandbox *sb);
/* --explain: the fallback plan (rights per path, per-run directories,
 * network, approximations), or why this plan cannot run under it. */
void landlock_explain(const struct plan *plan, FILE *out);
/* The same as one JSON object. */
void landlock_explain_json(const struct plan *plan, FILE *out);
/* The I-th approximation of the fallback that ran, NULL past the last. */
const char *landlock_approximation(int i);

#endif
