/* The stage table.  Every stage has a short name used in failure
 * messages ("hutch: STAGE: OBJECT: reason") and by the fault-injection
 * build, which walks this table, so a stage added here is covered by
 * those tests without further work.  The walker here is the only code
 * that goes on with the table in a new process (see STAGE_NEW_ROLE). */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include <unistd.h>

#include "lib/lib.h"
#include "sandbox.h"
#include "child/child.h"
#include "loop/loop.h"
#include "supervisor/supervisor.h"

static int stage_teardown(struct sandbox *sb)
{
	(void)sb;	/* the run loop tears down; this names the stage */
	return 0;
}

const struct stage stages[] = {
	{ "parse",    WHO_SUPERVISOR, NULL },	/* run by main, before all */
	{ "prepare",  WHO_SUPERVISOR, stage_prepare },
	{ "clone",    WHO_SUPERVISOR, stage_clone },
	{ "idmap",    WHO_SUPERVISOR, stage_idmap },
	{ "deathsig", WHO_CHILD,      stage_deathsig },
	{ "mounts",   WHO_CHILD,      stage_mounts },
	{ "seal",     WHO_CHILD,      stage_seal },
	{ "policy",   WHO_COMMAND,    stage_policy },
	{ "exec",     WHO_COMMAND,    stage_exec },
	{ "run",      WHO_SUPERVISOR, stage_run },
	{ "teardown", WHO_SUPERVISOR, stage_teardown },
};

const int stages_count = sizeof(stages) / sizeof(stages[0]);

static int stage_index(const char *name)
{
	for (int i = 0; name && i < stages_count; i++)
		if (strcmp(stages[i].name, name) == 0)
			return i;
	return -1;
}

static void go_on_as_new_role(struct sandbox *sb) __attribute__((noreturn));

int stages_run(struct sandbox *sb, enum who who, const char *after, const char *until)
{
	int first = after ? stage_index(after) + 1 : 0;
	int last = until ? stage_index(until) : stages_count - 1;

	for (int i = first; i <= last; i++) {
		if (stages[i].who != who || !stages[i].run)
			continue;
		sb->stage = stages[i].name;
		int r = fault_point(sb, &stages[i]);

		if (r == 0)
			r = stages[i].run(sb);
		if (r < 0)
			return -1;
		if (r == STAGE_NEW_ROLE)
			go_on_as_new_role(sb);
	}
	return 0;
}

/* The walker alone continues the table in a new process: the one a
 * stage just made (clone's pid 1, seal's COMMAND, the fallback's
 * COMMAND), or pid 1 going on as COMMAND.  It runs every stage of its
 * role, and ends there: exec, or a failure reported on the log. */
static void go_on_as_new_role(struct sandbox *sb)
{
	if (stages_run(sb, sb->role, NULL, NULL) < 0)
		setup_log_fail(sb, plan_failure_status(sb->plan));
	_exit(plan_failure_status(sb->plan));
}
