/* The persistence guard (see guard.c). */
#ifndef HUTCH_GUARD_H
#define HUTCH_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include "plan.h"

/* Refuse a hutch-mode plan that makes hutch's configuration, its binary
 * or the start-up files under HOME writable inside the sandbox. */
int guard_check(const struct plan *plan, const char *home, char *err, size_t errlen);

/* Why a writable PATH would break the guard (what runs from inside it,
 * or from what it is inside of), by name only, nothing looked up; NULL
 * when it would not.  HOME: the caller's, or NULL. */
const char *guard_path_reason(const char *path, const char *home);

/* Whether OP makes its host source writable inside the sandbox. */
bool guard_op_writable(const struct fs_op *op);

/* The same judgement at the bind (STAGE, for the message), of the
 * object about to be bound: REAL is its path as the kernel names the
 * opened source (the path judged while parsing may have been swapped
 * for a link since), and the home is the one parsing judged by
 * (plan->guard_home). */
int guard_check_bound(const struct plan *plan, const struct fs_op *op, const char *stage,
		      const char *real, char *err, size_t errlen);

#endif
