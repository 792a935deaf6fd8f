/* loop/: the supervision loop and what it serves, for the namespace path
 * (supervise.c) and the Landlock fallback (landlock_run.c) alike.
 *
 * The loop (supervise_loop.c): pid 1's pidfd, the signals to forward,
 * the set-up log, the registered poll sources (poll_sources.c) and one
 * timer for --timeout, the grace after SIGTERM and the teardown
 * deadline.  The set-up log (setup_log.c): the channel on which set-up
 * processes report their failures (and the exec stage its marker) to
 * the supervisor.  --info-fd and --json-status-fd (status.c).  --pty
 * (pty.c): COMMAND on a new pseudo-terminal, relayed in the loop.
 *
 * The folder's public header: files outside loop/ include this one only. */
#ifndef HUTCH_LOOP_PUBLIC_H
#define HUTCH_LOOP_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sandbox;

/* ---- the loop (supervise_loop.c) ---- */

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

/* ---- poll sources (poll_sources.c) ---- */

/* Add an fd to the supervisor's poll loop; -1 when the table is full
 * (poll_sources.c). */
int loop_add_source(struct sandbox *sb, int fd, short events,
		    void (*on_ready)(struct sandbox *sb, short revents));
void loop_remove_source(struct sandbox *sb, int fd);

/* ---- the set-up log (setup_log.c) ---- */

/* The channel: [0] read (non-blocking), [1] write; both close-on-exec.
 * -1 with errno on failure. */
int setup_log_open(int fds[2]);
/* In a set-up process: report SB->err through the log and exit. */
void setup_log_fail(struct sandbox *sb, int status) __attribute__((noreturn));
/* In COMMAND's process just before execve: the marker that says every
 * failure from here on is COMMAND's; -1 when it cannot be written. */
int setup_log_mark_exec(struct sandbox *sb);
/* hutch mode: pid 1 tells the supervisor how its first mount in the new
 * namespaces went (0, or the errno that refused it) before it waits to
 * be released; the supervisor waits for that word (supervise.c), so that
 * a namespace made powerless by a security module falls back or fails
 * with its cause before anything of the sandbox is built. */
bool setup_log_tells_first_mount(const struct sandbox *sb);
/* In pid 1: the word, one line "first-mount ERRNO"; -1 if unwritten. */
int setup_log_first_mount(struct sandbox *sb, int err);
/* The supervisor: wait for the word; the errno it carries (0: the
 * mount worked), or -1 when pid 1 ended, or the log did, without it. */
int setup_log_wait_first_mount(struct sandbox *sb);

/* ---- --info-fd and --json-status-fd (status.c) ---- */

/* Supervisor, prepare: the clock the status objects count from. */
int status_prepare(struct sandbox *sb);
/* In the sandbox, first thing: let go of the info and status fds. */
void status_leave(struct sandbox *sb);
/* After the id maps: pid 1's host pid and the namespaces' ids. */
void status_started(struct sandbox *sb);
/* The final object, with the exit status. */
void status_exited(struct sandbox *sb, int status);

/* ---- --pty (pty.c) ---- */

/* Supervisor, prepare: decide (--pty, --no-pty, or in hutch mode when
 * stdin and stdout are terminals), open the pair, set sb->pty. */
int pty_prepare(struct sandbox *sb);
/* Supervisor, run stage start: raw mode, window size, relay sources. */
int pty_start(struct sandbox *sb);
/* COMMAND's process: the slave as controlling terminal of a new session,
 * on fds 0, 1 and 2. */
int pty_child(struct sandbox *sb);
/* Supervisor: init said COMMAND stopped; stop hutch too, until fg. */
void pty_on_command_stop(struct sandbox *sb);
/* Supervisor, every way out: flush the relay, restore the terminal. */
void pty_finish(struct sandbox *sb);

#endif
