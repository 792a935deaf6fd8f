/* The bind of the current directory (see cwd.c). */
#ifndef HUTCH_CWD_H
#define HUTCH_CWD_H

#include <stddef.h>
#include "parse.h"
#include "plan/plan.h"

/* 0 when the plan's op I may bind the current directory CWD: it exposes
 * neither HOME nor a place of host sockets ($XDG_RUNTIME_DIR from ENVP
 * among them), and covers no mount made before it (a private tmpfs);
 * else -1 and one line in ERR saying why and what to do. */
int cwd_check(const struct plan *plan, size_t i, const char *cwd, const char *home,
	      char *const *envp, char *err, size_t errlen);

/* The last mount made after op I whose destination holds I's (a later
 * --tmpfs over the bound directory), or NULL. */
const struct fs_op *cwd_covered_by(const struct plan *plan, size_t i);

/* The current directory's path into BUF (LEN bytes, PATH_MAX at least),
 * or -1 and one line in ERR saying why it has none: deleted, longer
 * than PATH_MAX, or out of the process's root. */
int cwd_name(char *buf, size_t len, char *err, size_t errlen);

#endif
