/* --timing and HUTCH_TIMING: where one launch spends its time.
 *
 * Each process of the launch (the supervisor, pid 1 during set-up,
 * COMMAND's process before execve) records marks, fixed points of the
 * launch named by a table, on CLOCK_MONOTONIC, which every process of the
 * machine reads alike (hutch makes no time namespace).  The sandbox's
 * processes send theirs to the supervisor on the set-up log, as lines
 * "@t ID NS"; the supervisor keeps them and, at the end, prints the
 * steps between marks as a table (text) or one JSON line.
 *
 * Without --timing or HUTCH_TIMING nothing here runs but one test of a
 * flag per mark: no clock read, no system call, no message. */
#ifndef HUTCH_TIMING_H
#define HUTCH_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The marks, in the order a launch with an init passes them. */
enum timing_mark {
	TM_START,		/* supervisor: main entered */
	TM_PARSED,		/* the plan is made */
	TM_PREP_FEATURES,	/* prepare: each feature's (seccomp program last) */
	TM_PREPARED,		/* prepare: the set-up pipes, the init image */
	TM_CLONED,		/* clone3 returned in the supervisor */
	TM_CHILD_START,		/* pid 1: its first stage begins */
	TM_MAPS,		/* supervisor: id maps written */
	TM_RELEASED,		/* supervisor: pid 1 released */
	TM_CHILD_RELEASED,	/* pid 1: released */
	TM_NETWORK,		/* pid 1: loopback up, the proxy's listener */
	TM_HOSTNAME,		/* pid 1: the host name set */
	TM_MNT_BEGIN,		/* pid 1: the handles taken, the tree begins */
	TM_MNT_PRIVATE,		/* propagation private */
	TM_MNT_SOURCES,		/* host sources cloned */
	TM_MNT_ROOT,		/* new root attached */
	TM_MNT_OPS,		/* the operations done */
	TM_MNT_PROTECT,		/* private /proc, --protect */
	TM_MNT_PIVOT,		/* pivot_root, old root detached */
	TM_MOUNTED,		/* working directory entered: mounts ends */
	TM_NESTED,		/* seal: locks, nested user namespace and its maps */
	TM_FORKING,		/* seal: COMMAND's process is forked next */
	TM_CMD_START,		/* COMMAND's process: its first stage begins */
	TM_PRE_FILTER,		/* policy: fds, limits done; caps and filter next */
	TM_POLICY,		/* policy: filter loaded */
	TM_GO,			/* exec: init said go */
	TM_EXEC,		/* exec: execve of COMMAND next */
	TM_LOOP,		/* supervisor: the loop begins */
	TM_WAKE,		/* supervisor: its first wake-up in the loop */
	TM_EXEC_SEEN,		/* supervisor: COMMAND's execve seen */
	TM_ENDED,		/* supervisor: init said COMMAND ended */
	TM_REAPED,		/* supervisor: pid 1 reaped */
	TM_END,			/* supervisor: about to exit */
	/* The Landlock fallback's, once clone or idmap gave up: */
	TM_FB_ENTER,		/* supervisor: its first stage begins */
	TM_FB_READY,		/* supervisor: rules, per-run directories, notice */
	TM_FB_RELEASED,		/* supervisor: COMMAND's process forked, released */
	TM_FB_CMD_START,	/* COMMAND's process: its first stage begins */
	TM_FB_CMD_RELEASED,	/* COMMAND's process: released */
	TM_FB_CONFINED,		/* COMMAND's process: the Landlock rules in force */
	TM_FB_REAPED,		/* supervisor: COMMAND's process reaped */
	TM_COUNT
};

enum timing_side { TS_SUPERVISOR, TS_PID1, TS_COMMAND };

/* What the launch was asked to report. */
#define TIMING_TEXT 1u		/* --timing: the table on stderr */
#define TIMING_JSON 2u		/* --timing=json: one JSON line on stderr */

struct timing {
	bool on;		/* marks are recorded */
	uint64_t at[TM_COUNT];	/* CLOCK_MONOTONIC ns; 0: not passed */
};

/* A step: the time from one mark to another, in a stage. */
struct timing_step {
	const char *stage;
	enum timing_side who;
	const char *name;
	enum timing_mark from, to;
};

extern const struct timing_step timing_steps[];
extern const size_t timing_n_steps;

/* The mark ID's name ("cloned"), and whose it is. */
const char *timing_mark_name(enum timing_mark id);
enum timing_side timing_mark_side(enum timing_mark id);
const char *timing_side_name(enum timing_side side);

/* CLOCK_MONOTONIC in ns (the vDSO: no system call). */
uint64_t timing_now(void);
/* Turn T on, with START as its first mark. */
void timing_start(struct timing *t, uint64_t start);
/* Record mark ID now, when T is on (one clock read, in the vDSO). */
void timing_mark(struct timing *t, enum timing_mark id);
/* Record mark ID at NS, unless it is recorded already. */
void timing_set(struct timing *t, enum timing_mark id, uint64_t ns);

/* In a sandbox process: the marks of the sandbox's side as "@t ID NS"
 * lines into BUF (of SIZE, TIMING_LINES_MAX is enough); their length, 0
 * when T is off.  They go to the supervisor in the write of the exec
 * marker (or of a failure): no message, no wake-up of their own. */
#define TIMING_LINES_MAX (TM_COUNT * 32)
size_t timing_format_lines(const struct timing *t, char *buf, size_t size);
/* In the supervisor: take the "@t" lines out of the LEN bytes of LOG
 * (a complete line only), keeping their marks in T; the new length.
 * Only a sandbox side's mark of the table is taken, and only once. */
size_t timing_take_lines(struct timing *t, char *log, size_t len);

/* The steps passed as a table (text) or one JSON line, on OUT. */
void timing_print_table(const struct timing *t, FILE *out);
void timing_print_json(const struct timing *t, FILE *out);
/* At the end of a launch: WANT's outputs on stderr (TIMING_TEXT,
 * TIMING_JSON), and the JSON line appended to FD in one write when FD
 * is not -1. */
void timing_report(const struct timing *t, unsigned want, int fd);

#endif
