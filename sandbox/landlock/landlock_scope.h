/* Landlock for COMMAND in the namespace path: scoping for a sandbox that
 * shares the host's network (its processes may neither connect to
 * abstract unix sockets created outside, X11, D-Bus, ..., nor signal
 * processes outside), and a domain of its own where /proc is the
 * caller's (no ptrace access to processes outside). */
#ifndef HUTCH_LANDLOCK_SCOPE_H
#define HUTCH_LANDLOCK_SCOPE_H

#include <stdbool.h>

struct sandbox;

/* COMMAND's process: scope it when the network is shared, fence it when
 * /proc is the caller's.  A kernel without scoping (Landlock ABI < 6) is not an error;
 * --doctor says so.  Returns 0 or -1 with sb->err set. */
int landlock_scope_apply(struct sandbox *sb);
/* The Landlock ABI version of the running kernel, or 0 without Landlock. */
int landlock_abi_version(void);

#endif
