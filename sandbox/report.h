/* Violation reports: the default policy's refusals reach the supervisor
 * as seccomp user notifications; it answers each with the policy's errno
 * and records it (--report FILE, --report-fd FD), and says at exit how
 * many actions were refused. */
#ifndef HUTCH_REPORT_H
#define HUTCH_REPORT_H

struct sandbox;

/* Supervisor, prepare: the socketpair the listener fd comes back on. */
int report_prepare(struct sandbox *sb);
/* Supervisor, after clone: keep only its end, start polling it. */
void report_started(struct sandbox *sb);
/* COMMAND's process, after the filter is loaded: hand LISTENER to the
 * supervisor (SCM_RIGHTS) and close it.  LISTENER < 0: nothing to send. */
int report_send_listener(struct sandbox *sb, int listener);
/* Supervisor, after the run: the summary line, close the report. */
void report_finish(struct sandbox *sb);

#endif
