/* --pty: COMMAND runs on a new pseudo-terminal; the supervisor relays
 * between its own stdin/stdout and the master in its poll loop, with the
 * caller's terminal in raw mode, restored on every way out. */
#ifndef HUTCH_PTY_H
#define HUTCH_PTY_H

struct sandbox;

/* Supervisor, prepare: decide (--pty, --no-pty, or in hutch mode when
 * stdin and stdout are terminals), open the pair, set sb->pty. */
int pty_prepare(struct sandbox *sb);
/* Supervisor, run stage start: raw mode, window size, relay sources. */
int pty_start(struct sandbox *sb);
/* COMMAND's process: the slave as controlling terminal of a new session,
 * on fds 0, 1 and 2. */
int pty_child(struct sandbox *sb);
/* Supervisor: init said COMMAND stopped; stop hutch too, until fg. */
void pty_on_command_stop(struct sandbox *sb);
/* Supervisor: the caller's window changed size. */
void pty_on_winch(struct sandbox *sb);
/* Supervisor, every way out: flush the relay, restore the terminal. */
void pty_finish(struct sandbox *sb);

#endif
