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
/* The supervisor: read what the log holds now into sb->run, never
 * waiting for more; true when this read found its end (and closed it). */
bool setup_log_read(struct sandbox *sb);

#endif
