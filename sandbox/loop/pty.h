/* --pty: COMMAND runs on a new pseudo-terminal; the supervisor relays
 * between its own stdin/stdout and the master in its poll loop, with the
 * caller's terminal in raw mode, restored on every way out. */
#ifndef HUTCH_PTY_H
#define HUTCH_PTY_H

#include "loop.h"

struct sandbox;

/* Supervisor: the caller's window changed size. */
void pty_on_winch(struct sandbox *sb);

#endif
