/* What a text seccomp policy decides (seccomp_decide.c), shared with the
 * filter's builder (seccomp_build.c). */
#ifndef HUTCH_SECCOMP_DECIDE_H
#define HUTCH_SECCOMP_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include "seccomp_policy.h"

#define MAX_EXCEPTIONS 64	/* conditional rules per syscall (a bit mask) */

/* For one syscall: the action when no exception matches, and the
 * exceptions (conditional rules after the last unconditional one). */
struct seccomp_decision {
	struct seccomp_action base;
	const char *base_source;
	const struct seccomp_rule *exceptions[MAX_EXCEPTIONS];
	size_t n_exceptions;
	bool too_many;
};

/* The decision of POL for SYSCALL into D. */
void seccomp_decide(const struct seccomp_policy *pol, const char *syscall,
		    struct seccomp_decision *d);
bool seccomp_same_action(struct seccomp_action a, struct seccomp_action b);
/* Do D's exceptions change anything, i.e. is their action not the base's? */
bool seccomp_exceptions_matter(const struct seccomp_decision *d);
/* Is rule I of POL the first one naming its syscall? */
bool seccomp_first_for_syscall(const struct seccomp_policy *pol, size_t i);

#endif
