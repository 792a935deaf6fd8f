/* Violation reports: the default policy's refusals reach the supervisor
 * as seccomp user notifications; it answers each with the policy's errno
 * and records it (--report FILE, --report-fd FD), and says at exit how
 * many actions were refused. */
#ifndef HUTCH_REPORT_H
#define HUTCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "net.h"

struct sandbox;

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

#endif
