/* The Landlock fallback's confinement (see landlock_confine.c). */
#ifndef HUTCH_LANDLOCK_CONFINE_H
#define HUTCH_LANDLOCK_CONFINE_H

#include <seccomp.h>

#include "landlock_rules.h"

struct sandbox;

/* What COMMAND's process enters: made by the supervisor, handed over in
 * the fork (sb->fallback_child). */
struct fallback_child {
	int ruleset;
	scmp_filter_ctx net_filter;	/* NULL: the plan has the network */
	const char *workdir;		/* where COMMAND starts; NULL: stay */
};

/* The supervisor: fb->ruleset from the rules (every right the kernel
 * knows handled); -1 with fb->err set. */
int landlock_build_ruleset(struct fallback *fb);
/* No network in the plan: fb->net_filter, socket() for AF_UNIX alone. */
int landlock_build_net_filter(struct fallback *fb);
/* In COMMAND's process (the policy stage): chdir, no_new_privs, then the
 * ruleset and the filter of sb->fallback_child, for good. */
int landlock_confine(struct sandbox *sb);

#endif
