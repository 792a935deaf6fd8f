/* What the Landlock fallback found for one run, and the approximations
 * of the namespace path that follow from it: for its stderr notice and
 * the --json-status-fd object. */
#ifndef HUTCH_LANDLOCK_APPROX_H
#define HUTCH_LANDLOCK_APPROX_H

#include <stdbool.h>
#include <stddef.h>

struct fallback_facts {
	char reason[512];	/* why user namespaces are refused */
	int abi;		/* Landlock's ABI version */
	bool deny_net;		/* the plan has no network */
	bool host_proc;		/* --proc: the host's /proc, read-only */
};

/* The I-th approximation that applies, NULL past the last. */
const char *landlock_approximation(const struct fallback_facts *found, int i);
/* All of them, "; "-separated, into BUF. */
void landlock_format_approximations(const struct fallback_facts *found, char *buf,
				    size_t len);

#endif
