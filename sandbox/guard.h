/* The persistence guard (see guard.c). */
#ifndef HUTCH_GUARD_H
#define HUTCH_GUARD_H

#include <stddef.h>
#include "plan.h"

/* Refuse a hutch-mode plan that makes hutch's configuration, its binary
 * or the start-up files under HOME writable inside the sandbox. */
int guard_check(const struct plan *plan, const char *home, char *err, size_t errlen);

#endif
