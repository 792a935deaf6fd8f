/* The set-up log: both ends of the channel on which set-up processes
 * report their failures (and the exec stage its marker) to the
 * supervisor. */
#ifndef HUTCH_SETUP_LOG_H
#define HUTCH_SETUP_LOG_H

#include <stdbool.h>

struct sandbox;

/* The channel: [0] read (non-blocking), [1] write; both close-on-exec.
 * -1 with errno on failure. */
int setup_log_open(int fds[2]);
/* In a set-up process: report SB->err through the log and exit. */
void child_fail(struct sandbox *sb, int status) __attribute__((noreturn));
/* In COMMAND's process just before execve: the marker that says every
 * failure from here on is COMMAND's; -1 when it cannot be written. */
int setup_log_mark_exec(struct sandbox *sb);
/* hutch mode: pid 1 tells the supervisor how its first mount in the new
 * namespaces went (0, or the errno that refused it) before it waits to
 * be released; the supervisor waits for that word (supervise.c), so that
 * a namespace made powerless by a security module falls back or fails
 * with its cause before anything of the sandbox is built. */
bool setup_log_tells_first_mount(const struct sandbox *sb);
/* In pid 1: the word, one line "first-mount ERRNO"; -1 if unwritten. */
int setup_log_first_mount(struct sandbox *sb, int err);
/* The supervisor: wait for the word; the errno it carries (0: the
 * mount worked), or -1 when pid 1 ended, or the log did, without it. */
int setup_log_wait_first_mount(struct sandbox *sb);
/* The supervisor: read what the log holds now into sb->run, never
 * waiting for more; true when this read found its end (and closed it). */
bool setup_log_read(struct sandbox *sb);

#endif
