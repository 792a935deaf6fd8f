/* Violation reports: the default policy's refusals reach the supervisor
 * as seccomp user notifications; it answers each with the policy's errno
 * and records it (--report FILE, --report-fd FD), and says at exit how
 * many actions were refused. */
#ifndef HUTCH_REPORT_H
#define HUTCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct sandbox;

/* Supervisor, prepare: the socketpair the listener fd comes back on. */
int report_prepare(struct sandbox *sb);
/* Supervisor, after clone: keep only its end, start polling it. */
void report_started(struct sandbox *sb);
/* COMMAND's process, after the filter is loaded: hand LISTENER to the
 * supervisor (SCM_RIGHTS) and close it.  LISTENER < 0: nothing to send. */
int report_send_listener(struct sandbox *sb, int listener);
/* Is a report written (--report, --report-fd)?  Its name for messages
 * ("FILE", "fd N"), or NULL. */
bool report_enabled(const struct sandbox *sb);
const char *report_destination(const struct sandbox *sb);
/* The time as report lines give it: "2025-01-31T12:00:00.123456Z". */
void report_time(char *buf, size_t len);
/* Write LINE (LEN bytes, a JSON object and its newline) to the report,
 * never waiting; LIMITED: under the same rate limit as refusals.  False
 * when there is no report or the line was not written. */
bool report_write_event(struct sandbox *sb, const char *line, size_t len, bool limited);
/* Supervisor, after the run: the summary line, close the report. */
void report_finish(struct sandbox *sb);

#endif
