/* The supervision loop, shared by the namespace path (supervise.c) and
 * the Landlock fallback (landlock_run.c): pid 1's pidfd, the signals to
 * forward, the set-up log, the registered poll sources and one timer for
 * --timeout, the grace after SIGTERM and the teardown deadline. */
#ifndef HUTCH_SUPERVISE_LOOP_H
#define HUTCH_SUPERVISE_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sandbox;

struct run_state {
	int timerfd;
	double timeout_at;	/* CLOCK_MONOTONIC seconds; 0 = not armed */
	double kill_at;		/* end of the grace after SIGTERM */
	double deadline_at;	/* end of the teardown's deadline */
	bool timed_out;
	bool stuck;		/* the deadline passed with the tree alive */
	bool reaped;
	bool leftovers;		/* pid 1 reaped, its descendants being killed */
	bool command_ended;	/* init said COMMAND ended */
	bool log_eof;
	bool exec_seen;		/* the exec stage's marker came */
	pid_t command_host_pid;	/* who wrote it, as the supervisor names it */
	bool first_mount_told;	/* pid 1's word on its first mount came */
	int first_mount_err;	/* ... with this errno (0: it worked) */
	int code;		/* waitid si_code of pid 1 */
	int status;		/* waitid si_status of pid 1 */
	int command_signal;	/* init said: signal N ended COMMAND */
	char log[4096];		/* set-up failure messages */
	size_t log_len;
};

/* What differs between the namespace path and the fallback.  CTX is
 * the caller's, passed to each. */
struct supervise_ops {
	/* The grace is over: take the whole tree down (the teardown
	 * deadline runs from here). */
	void (*kill_tree)(struct sandbox *sb, void *ctx);
	/* pid 1 (or, with CHLD_FD, any child) may have ended: reap,
	 * setting sb->run's reaped, code and status when pid 1 is. */
	void (*reap)(struct sandbox *sb, void *ctx);
	/* pid 1 is reaped: SIGKILL what it left behind and say how many
	 * were left; NULL when nothing can be (its pid namespace died with
	 * it).  While some are, they have the teardown deadline, anew. */
	int (*kill_left)(struct sandbox *sb, void *ctx);
	/* The teardown deadline passed: say what is stuck, and SIGKILL it. */
	void (*report_stuck)(struct sandbox *sb, void *ctx);
	/* init's status pipe (sb->status_pipe[0]) is readable; NULL: not
	 * polled.  After the poll sources, before signals and reaping. */
	void (*on_status)(struct sandbox *sb);
	/* A signalfd for SIGCHLD of other children, or -1. */
	int chld_fd;
};

/* Run until pid 1 is reaped (and, with kill_left, nothing is left) or
 * the teardown deadline passes; then read what the log still holds.
 * 0, or -1 with sb->err set. */
int supervise_loop_run(struct sandbox *sb, const struct supervise_ops *ops, void *ctx);
/* COMMAND ended and init tears down the rest: the deadline starts now. */
void supervise_start_deadline(struct sandbox *sb);
/* Read what the set-up log holds now, never waiting for more; at its
 * end, with the exec marker and no message, COMMAND runs. */
void supervise_drain_log(struct sandbox *sb);

#endif
