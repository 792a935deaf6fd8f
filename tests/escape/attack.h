/* Shared by the escape programs: every outcome is printed as one line
 * "WHAT:ok" or "WHAT:ERRNO-NAME", so a test can assert the exact result. */
#ifndef HUTCH_ESCAPE_ATTACK_H
#define HUTCH_ESCAPE_ATTACK_H
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Print "WHAT:ok" when RC is not negative, else "WHAT:" and errno's name. */
static inline void report(const char *what, long rc)
{
	printf("%s:%s\n", what, rc < 0 ? strerrorname_np(errno) : "ok");
	fflush(stdout);
}

static inline int usage(const char *text)
{
	fprintf(stderr, "usage: %s\n", text);
	return 2;
}
#endif
