/* bwrap's --info-fd and --json-status-fd, with hutch's own keys. */
#ifndef HUTCH_STATUS_H
#define HUTCH_STATUS_H

struct sandbox;

int status_prepare(struct sandbox *sb);
/* In the sandbox, first thing: let go of the info and status fds. */
void status_leave(struct sandbox *sb);
/* After the id maps: pid 1's host pid and the namespaces' ids. */
void status_started(struct sandbox *sb);
/* hutch mode: set-up finished and COMMAND was executed. */
void status_executed(struct sandbox *sb);
/* The final object, with the exit status. */
void status_exited(struct sandbox *sb, int status);

#endif
