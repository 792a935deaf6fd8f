/* The stage table.  Every stage has a short name used in failure
 * messages ("hutch: STAGE: OBJECT: reason") and by the fault-injection
 * build, which walks this table, so a stage added here is covered by
 * those tests without further work. */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include "fault.h"
#include "sandbox.h"

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

const int n_stages = sizeof(stages) / sizeof(stages[0]);

static int stage_index(const char *name)
{
	for (int i = 0; name && i < n_stages; i++)
		if (strcmp(stages[i].name, name) == 0)
			return i;
	return -1;
}

int stages_run(struct sandbox *sb, enum who who, const char *after, const char *until)
{
	int first = after ? stage_index(after) + 1 : 0;
	int last = until ? stage_index(until) : n_stages - 1;

	for (int i = first; i <= last; i++) {
		if (stages[i].who != who || !stages[i].run)
			continue;
		if (fault_point(sb, &stages[i]) < 0 || stages[i].run(sb) < 0)
			return -1;
	}
	return 0;
}
