/* The stage tables: the order of execution, one for each path.  Every
 * stage has a short name used in failure messages ("hutch: STAGE:
 * OBJECT: reason") and by the fault-injection build, which walks these
 * tables, so a stage added here is covered by those tests without
 * further work.  The walker here is the only code that goes on with a
 * table in a new process (see STAGE_NEW_ROLE), and the only code that
 * hands one path over to the other (STAGE_FALLBACK). */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include <unistd.h>

#include "lib/lib.h"
#include "sandbox.h"
#include "child/child.h"
#include "fallback/fallback.h"
#include "loop/loop.h"
#include "supervisor/supervisor.h"

/* With namespaces: the supervisor makes pid 1 and writes its id maps;
 * pid 1 builds the sandbox and forks COMMAND's process, then becomes
 * the init; COMMAND's process applies the policy and executes COMMAND;
 * the supervisor watches the run. */
static const struct stage namespace_rows[] = {
	{ "prepare",  WHO_SUPERVISOR, stage_prepare },
	{ "clone",    WHO_SUPERVISOR, stage_clone },
	{ "idmap",    WHO_SUPERVISOR, stage_idmap },
	{ "deathsig", WHO_CHILD,      stage_deathsig },
	{ "network",  WHO_CHILD,      stage_network },
	{ "hostname", WHO_CHILD,      stage_hostname },
	{ "handles",  WHO_CHILD,      stage_handles },
	{ "mounts",   WHO_CHILD,      stage_mounts },
	{ "seal",     WHO_CHILD,      stage_seal },
	{ "policy",   WHO_COMMAND,    stage_policy },
	{ "exec",     WHO_COMMAND,    stage_exec },
	{ "run",      WHO_SUPERVISOR, stage_run },
};

/* Where clone or idmap found user namespaces refused and the plan has
 * the Landlock fallback: the supervisor forks COMMAND's process, which
 * confines itself with Landlock, applies the same policy and executes
 * COMMAND; the supervisor, a subreaper, watches the run. */
static const struct stage fallback_rows[] = {
	{ "fallback", WHO_SUPERVISOR, fallback_stage_enter },
	{ "fork",     WHO_SUPERVISOR, fallback_stage_fork },
	{ "deathsig", WHO_COMMAND,    stage_deathsig },
	{ "confine",  WHO_COMMAND,    fallback_stage_confine },
	{ "policy",   WHO_COMMAND,    stage_policy },
	{ "exec",     WHO_COMMAND,    stage_exec },
	{ "run",      WHO_SUPERVISOR, fallback_stage_run },
};

const struct stage_table stages_namespace = {
	namespace_rows, sizeof(namespace_rows) / sizeof(namespace_rows[0])
};
const struct stage_table stages_fallback = {
	fallback_rows, sizeof(fallback_rows) / sizeof(fallback_rows[0])
};

static const struct stage_table *table_of(const struct sandbox *sb)
{
	return sb->table ? sb->table : &stages_namespace;
}

static bool table_has_name(const struct stage_table *t, const char *name, size_t len)
{
	for (int i = 0; i < t->count; i++)
		if (strlen(t->rows[i].name) == len && strncmp(t->rows[i].name, name, len) == 0)
			return true;
	return false;
}

bool stages_is_name(const char *name, size_t len)
{
	return table_has_name(&stages_namespace, name, len) ||
	       table_has_name(&stages_fallback, name, len);
}

static void go_on_as_new_role(struct sandbox *sb) __attribute__((noreturn));

int stages_run(struct sandbox *sb, enum who who)
{
	const struct stage_table *t = table_of(sb);

	for (int i = 0; i < t->count; i++) {
		const struct stage *s = &t->rows[i];
		int r;

		if (s->who != who)
			continue;
		sb->stage = s->name;
		r = fault_point(sb, s);
		if (r == 0)
			r = s->run(sb);
		if (r < 0)
			return -1;
		if (r == STAGE_NEW_ROLE)
			go_on_as_new_role(sb);
		if (r == STAGE_FALLBACK) {
			/* The fallback's table, from its first row. */
			sb->table = t = &stages_fallback;
			i = -1;
		}
	}
	return 0;
}

/* The walker alone continues the table in a new process: the one a
 * stage just made (clone's pid 1, seal's COMMAND, the fallback's
 * COMMAND), or pid 1 going on as COMMAND.  It runs every stage of its
 * role, and ends there: exec, or a failure reported on the log. */
static void go_on_as_new_role(struct sandbox *sb)
{
	if (stages_run(sb, sb->role) < 0)
		setup_log_fail(sb, plan_failure_status(sb->plan));
	_exit(plan_failure_status(sb->plan));
}
