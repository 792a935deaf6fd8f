/* --explain: the unix sockets COMMAND can reach (explain_sockets.c). */
#ifndef HUTCH_EXPLAIN_SOCKETS_H
#define HUTCH_EXPLAIN_SOCKETS_H

#include <stddef.h>
#include "plan/plan.h"

/* One sentence into BUF. */
void explain_unix_sockets(const struct plan *plan, char *buf, size_t len);

#endif
