/* The run-time state of one launch, shared by the stages.  The plan says
 * what to build; this holds what has been built so far (fds, pids), so
 * that every stage can clean up after any other. */
#ifndef HUTCH_SANDBOX_H
#define HUTCH_SANDBOX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "mount/mount.h"
#include "plan/plan.h"
#include "bwrap/bwrap.h"
#include "landlock/landlock.h"
#include "loop/loop.h"
#include "lib/lib.h"

struct policy_ready;
struct fallback_run;
struct feature_table;
struct sandbox;

/* An fd that a module (pty relay, seccomp reports) adds to the
 * supervisor's poll loop, with what to do when it is ready. */
struct poll_source {
	int fd;
	short events;
	void (*on_ready)(struct sandbox *sb, short revents);
};

#define MAX_POLL_SOURCES 16

enum who {
	WHO_SUPERVISOR,	/* hutch, in the caller's namespaces */
	WHO_CHILD,	/* pid 1 of the sandbox during set-up */
	WHO_COMMAND,	/* the process that becomes COMMAND */
};

struct sandbox {
	const struct plan *plan;
	char err[4096];
	const char *stage;	/* the stage the walker runs (stage_fail.c) */
	/* What the stages learn at run time (the plan is read-only): */
	int clone_flags;	/* the namespaces pid 1 got: the plan's, less
				   what clone had to drop (--unshare-*-try) */
	int info_fd, json_status_fd;	/* the caller's fds the stages use up: */
	int block_fd, userns_block_fd;	/* the plan's, -1 once used */
	char **env_set;		/* NAME=value over the plan's environment */
	size_t n_env_set;	/* (command_env.c) */

	/* pipes: [0] read end, [1] write end; all close-on-exec */
	int log_pipe[2];	/* set-up failures, to the supervisor */
	int release_pipe[2];	/* supervisor -> child: maps written, go on */
	int control_pipe[2];	/* supervisor -> init: EOF means tear down */
	int status_pipe[2];	/* init -> supervisor: how COMMAND ended */
	int go_pipe[2];		/* init -> COMMAND: pid 1 is sealed, exec */
	int sigfd;		/* supervisor: signals to forward */
	sigset_t caller_mask;	/* the mask to restore before execve */
	struct sigaction caller_chld;	/* SIGCHLD's disposition, likewise */
	int init_image;		/* sealed memfd holding the static init */
	struct policy_ready *policy;

	pid_t pid1;		/* host pid of pid 1 (supervisor side) */
	int pid1_fd;		/* its pidfd */
	pid_t command_pid;	/* COMMAND's pid in the sandbox (child side) */
	int command_fd;		/* its pidfd, handed to init */
	int self_proc;		/* O_PATH /proc/self of pid 1, for nested maps */
	int old_mntns;		/* pid 1's first mount namespace, held across
				   the nested one's unshare (child.c), or -1 */
	bool has_init;		/* a hutch init runs as pid 1 */
	bool nested_userns;	/* a second user namespace gives the final ids */

	struct mount_state ms;
	struct run_state run;	/* supervisor */
	struct poll_source sources[MAX_POLL_SOURCES];
	int n_sources;
	double started_at;	/* CLOCK_MONOTONIC at prepare */
	int cgroup_fd;		/* the sandbox's cgroup (CLONE_INTO_CGROUP), or -1 */
	struct pty_state *pty;	/* the --pty relay, or NULL */
	struct limits_state *limits;	/* cgroup limits, or NULL */
	struct report_state *report;	/* seccomp reports, or NULL */
	struct learn_state *learn;	/* --learn, or NULL */
	struct connect_broker *broker;	/* COMMAND's connect()s, or NULL */
	struct netproxy_state *net;	/* the --allow-net proxy, or NULL */
	struct protect_state *protect;	/* --protect's placeholders, or NULL */
	int report_sock[2];	/* listener fd, COMMAND -> supervisor */
	bool fallback;		/* running under the Landlock fallback */
	struct fallback_facts found;	/* what the fallback found, for its notices */
	struct fallback_child *fallback_child;	/* what its COMMAND applies */
	enum who role;		/* the role this process has in the table */
	const struct stage_table *table;	/* the table walked: NULL, the namespace one */
	struct fallback_run *fallback_run;	/* the fallback's runner, or NULL */
	const struct feature_table *features;	/* the feature table (features.c) */
	int exit_status;	/* hutch's, once known: the status feature writes it */
	struct extra_filter *filters;	/* --seccomp, --add-seccomp-fd */
	int n_filters;
	int userns_limit_fd;	/* --disable-userns: user.max_user_namespaces */
	int hold_base;		/* the first fd pid 1 holds, HOLD_BASE or above */
	int hold_count;		/* how many it holds from there */
	int fault_supervisor_fd;	/* hutch-fault only */
	struct timing timing;	/* --timing, HUTCH_TIMING: the marks passed */
	int timing_fd;		/* HUTCH_TIMING's file, or -1 */
};


/* Stage functions return 0, or -1 with sb->err set to
 * "STAGE: OBJECT: reason", or STAGE_NEW_ROLE: this process is a new one
 * (a child made by clone or fork, or pid 1 going on as COMMAND) that
 * takes the role sb->role, and the walker goes on with that role's
 * stages in it; that process never returns from the walk.  Or
 * STAGE_FALLBACK (clone and idmap only): user namespaces are refused and
 * the plan has the Landlock fallback; the walker goes on with the
 * fallback's table, from its first row. */
#define STAGE_NEW_ROLE 1
#define STAGE_FALLBACK 2

typedef int (*stage_fn)(struct sandbox *sb);

struct stage {
	const char *name;
	enum who who;
	stage_fn run;
};

/* A table of stages, in the order they run. */
struct stage_table {
	const struct stage *rows;
	int count;
};

/* The two paths' tables (stages.c): with namespaces, and the Landlock
 * fallback's, which the namespace table hands over to. */
extern const struct stage_table stages_namespace;
extern const struct stage_table stages_fallback;

/* Run WHO's stages of sb->table (the namespace table when NULL) in
 * order.  Returns 0 or -1; a stage that returns STAGE_NEW_ROLE goes on
 * in its new process, which ends there; one that returns STAGE_FALLBACK
 * hands the walk to the fallback's table. */
int stages_run(struct sandbox *sb, enum who who);

/* Is NAME (LEN bytes) the name of a stage of either table? */
bool stages_is_name(const char *name, size_t len);

/* The feature table (features.c), which main hands to the stages in
 * sb->features. */
extern const struct feature_table features;

#endif
