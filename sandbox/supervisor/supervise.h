/* The namespace path's supervisor side: its teardown report. */
#ifndef HUTCH_SUPERVISE_H
#define HUTCH_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sandbox;

/* Print one line per process still in the sandbox's pid namespace and
 * SIGKILL pid 1; used when the teardown deadline has passed. */
void teardown_report_stuck(struct sandbox *sb);

#endif
