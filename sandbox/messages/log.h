/* Failure messages: "PROG: STAGE: OBJECT: reason", one line. */
#ifndef HUTCH_LOG_H
#define HUTCH_LOG_H

#include <stddef.h>

/* Write "STAGE: WHAT OBJECT: strerror(ERRNUM)" into ERR; returns -1.
 * In bwrap mode the stage is not named (bwrap's messages). */
int log_fail(char *err, size_t errlen, const char *stage, const char *what,
	     const char *object, int errnum);
/* Print one message line to stderr: "PROG: MSG". */
void log_line(const char *prog, const char *msg);
/* The same for a warning: the level "<4>" under --level-prefix. */
void log_warning(const char *prog, const char *msg);

#endif
