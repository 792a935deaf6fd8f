/* The supervisor's loop state. */
#ifndef HUTCH_SUPERVISE_H
#define HUTCH_SUPERVISE_H

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
	bool stuck;		/* the deadline passed with pid 1 alive */
	bool reaped;
	bool command_ended;	/* init said COMMAND ended */
	bool log_eof;
	bool exec_seen;		/* the exec stage's marker came */
	pid_t command_host_pid;	/* who wrote it, as the supervisor names it */
	int code;		/* waitid si_code of pid 1 */
	int status;		/* waitid si_status of pid 1 */
	int command_signal;	/* init said: signal N ended COMMAND */
	char log[4096];		/* set-up failure messages */
	size_t log_len;
};

/* clone3 with CLONE_PIDFD (clone where clone3 is refused), into
 * CGROUP_FD unless it is -1. */
pid_t clone_with_pidfd(int flags, int *pidfd, int cgroup_fd);
/* The pid of PIDFD's process as this /proc names it (from its fdinfo),
 * or -1. */
pid_t pidfd_pid(int pidfd);

/* The set-up log channel: [0] read (non-blocking), [1] write; both
 * close-on-exec.  -1 with errno on failure. */
int supervise_log_channel(int fds[2]);

/* Print one line per process still in the sandbox's pid namespace and
 * SIGKILL pid 1; used when the teardown deadline has passed. */
void supervise_report_stuck(struct sandbox *sb);

#endif
