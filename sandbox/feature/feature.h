/* feature/: a feature is a concern that several points of a launch
 * serve (the pty relay, limits, reports, the proxy...), written as one
 * row of the feature table (sandbox/features.c) instead of calls by
 * name from the stages.  The stages call the walkers below at fixed
 * points; each walker calls that hook of every feature, in the table's
 * order.  A hook may be NULL; it does nothing when the plan does not
 * ask for its feature.  A feature's name is the prefix of its own
 * failure messages, beside the stages' names (docs/architecture.md).
 *
 * The folder's public header: files outside feature/ include this one only. */
#ifndef HUTCH_FEATURE_PUBLIC_H
#define HUTCH_FEATURE_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>

struct sandbox;

struct feature {
	const char *name;
	/* supervisor, stage prepare: before any process of the sandbox
	 * exists (a helper forked here holds none of its pipes) */
	int (*prepare)(struct sandbox *sb);
	/* supervisor: the sandbox's first process exists (clone, or the
	 * fallback's fork), not yet released; sb->pid1 names it.  Runs
	 * again for the fallback's process if clone's was abandoned. */
	int (*attach)(struct sandbox *sb);
	/* supervisor: that process is about to be released, on the path
	 * that runs (the id maps written, or the fallback's process made) */
	void (*release_ready)(struct sandbox *sb);
	/* supervisor, stage run: the supervision loop is about to begin */
	int (*start)(struct sandbox *sb);
	/* supervisor, in the loop: COMMAND stopped (SIGSTOP, SIGTSTP) */
	void (*command_stopped)(struct sandbox *sb);
	/* supervisor, every way out, before the exit status is known */
	void (*finish)(struct sandbox *sb);
	/* supervisor, last: sb->exit_status is hutch's exit status */
	void (*release)(struct sandbox *sb);
};

struct feature_table {
	const struct feature *rows;
	int count;
};

/* The hooks that can fail, and the walker that calls one of them for
 * every feature of sb->features in order (none when NULL); it stops at
 * the first that fails, with sb->err set by it. */
enum feature_step {
	FEATURE_PREPARE,
	FEATURE_ATTACH,
	FEATURE_START,
};
int feature_run(struct sandbox *sb, enum feature_step step);

/* The hooks that cannot, and the walker that calls one of them for
 * every feature in order. */
enum feature_event {
	FEATURE_RELEASE_READY,
	FEATURE_COMMAND_STOPPED,
	FEATURE_FINISH,
	FEATURE_RELEASE,
};
void feature_notify(struct sandbox *sb, enum feature_event event);

/* Is NAME (LEN bytes) the name of a feature of TABLE? */
bool feature_is_name(const struct feature_table *table, const char *name, size_t len);

#endif
