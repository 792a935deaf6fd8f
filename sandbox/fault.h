/* Fault injection for tests: built only into hutch-fault (make check),
 * never into the installed hutch.  HUTCH_FAULT=STAGE:MODE makes the
 * named stage fail (MODE fail), or SIGKILLs the supervisor (kill-supervisor)
 * or the sandbox's set-up process (kill-child) just before it runs;
 * leak-log forks a process outside the sandbox that holds the log
 * pipe's write end open. */
#ifndef HUTCH_FAULT_H
#define HUTCH_FAULT_H

struct sandbox;
struct stage;

#ifdef HUTCH_FAULT
int fault_point(struct sandbox *sb, const struct stage *stage);
#else
static inline int fault_point(struct sandbox *sb, const struct stage *stage)
{
	(void)sb;
	(void)stage;
	return 0;
}
#endif

#endif
