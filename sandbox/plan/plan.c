/* Building and freeing the plan. */
#include <stdlib.h>
#include <string.h>

#include "netrule.h"
#include "plan.h"
#include "lib/lib.h"

static const char *const op_names[] = {
	[FS_BIND] = "bind", [FS_REMOUNT_RO] = "remount-ro", [FS_PROC] = "proc",
	[FS_DEV] = "dev", [FS_TMPFS] = "tmpfs", [FS_MQUEUE] = "mqueue", [FS_DIR] = "dir",
	[FS_SYMLINK] = "symlink", [FS_CHMOD] = "chmod", [FS_FILE] = "file",
	[FS_BIND_DATA] = "bind-data", [FS_MIRROR] = "mirror", [FS_BIND_FD] = "bind-fd",
	[FS_OVERLAY] = "overlay", [FS_TMP_OVERLAY] = "tmp-overlay",
	[FS_RO_OVERLAY] = "ro-overlay",
};

const char *plan_op_name(enum fs_kind kind)
{
	return op_names[kind];
}

struct fs_op *plan_add_op(struct plan *plan, enum fs_kind kind)
{
	struct fs_op *op;

	plan->ops = xreallocarray(plan->ops, plan->n_ops + 1, sizeof(*plan->ops));
	op = &plan->ops[plan->n_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->fd = -1;
	return op;
}

bool plan_kind_takes_perms(enum fs_kind kind)
{
	return kind == FS_TMPFS || kind == FS_DIR || kind == FS_FILE || kind == FS_BIND_DATA;
}

static ssize_t env_index(const struct plan *plan, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < plan->n_env; i++)
		if (strncmp(plan->env[i], name, len) == 0 && plan->env[i][len] == '=')
			return (ssize_t)i;
	return -1;
}

const char *plan_getenv(const struct plan *plan, const char *name)
{
	ssize_t i = env_index(plan, name);

	return i < 0 ? NULL : plan->env[i] + strlen(name) + 1;
}

int plan_setenv(struct plan *plan, const char *name, const char *value)
{
	ssize_t i = env_index(plan, name);
	char *entry = xasprintf("%s=%s", name, value);

	if (i >= 0) {
		free(plan->env[i]);
		plan->env[i] = entry;
		return 0;
	}
	plan->env = xreallocarray(plan->env, plan->n_env + 2, sizeof(char *));
	plan->env[plan->n_env++] = entry;
	plan->env[plan->n_env] = NULL;
	return 0;
}

void plan_unsetenv(struct plan *plan, const char *name)
{
	ssize_t i = env_index(plan, name);

	if (i < 0)
		return;
	free(plan->env[i]);
	memmove(&plan->env[i], &plan->env[i + 1],
		(plan->n_env - (size_t)i) * sizeof(char *));
	plan->n_env--;
}

void plan_clearenv(struct plan *plan)
{
	for (size_t i = 0; i < plan->n_env; i++)
		free(plan->env[i]);
	plan->n_env = 0;
	if (plan->env)
		plan->env[0] = NULL;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Keep a warning for main to print once parsing is over. */
void plan_warn(struct plan *plan, const char *msg)
{
	plan->warnings = xreallocarray(plan->warnings, plan->n_warnings + 1,
				       sizeof(*plan->warnings));
	plan->warnings[plan->n_warnings++] = xstrdup(msg);
}

/* Keep a note for --explain and --doctor, once: what the parser made of
 * the caller's environment where it did not take it as it is. */
void plan_note(struct plan *plan, const char *msg)
{
	for (size_t i = 0; i < plan->n_notes; i++)
		if (strcmp(plan->notes[i], msg) == 0)
			return;
	plan->notes = xreallocarray(plan->notes, plan->n_notes + 1, sizeof(*plan->notes));
	plan->notes[plan->n_notes++] = xstrdup(msg);
}

void plan_free(struct plan *plan)
{
	free(plan->refused);
	free(plan->cwd_cover);
	free(plan->guard_home);
	for (size_t i = 0; i < plan->n_ops; i++) {
		free(plan->ops[i].src);
		free(plan->ops[i].dest);
		free(plan->ops[i].origin);
		free(plan->ops[i].workdir);
		free_strv(plan->ops[i].lower, plan->ops[i].n_lower);
	}
	free(plan->ops);
	plan_clearenv(plan);
	free(plan->env);
	for (size_t i = 0; i < plan->n_syscall_rules; i++)
		free(plan->syscall_rules[i].name);
	free(plan->syscall_rules);
	free_strv(plan->warnings, plan->n_warnings);
	free_strv(plan->notes, plan->n_notes);
	if (plan->argv)
		for (char **a = plan->argv; *a; a++)
			free(*a);
	free(plan->argv);
	free(plan->hostname);
	free(plan->chdir);
	free(plan->argv0);
	free(plan->seccomp_policy);
	free(plan->pass_fds);
	free(plan->args_fds);
	free_strv(plan->lock_files, plan->n_lock_files);
	free(plan->seccomp_fds);
	free(plan->exec_label);
	free(plan->file_label);
	free(plan->report_path);
	free(plan->learn_path);
	free_strv(plan->profiles_used, plan->n_profiles_used);
	free(plan->timing_file);
	free(plan->pids_origin);
	for (size_t i = 0; i < plan->n_rlimits; i++)
		free(plan->rlimits[i].origin);
	free(plan->rlimits);
	netrule_free_all(plan->net_rules, plan->n_net_rules);
	for (size_t i = 0; i < plan->n_protect; i++) {
		free(plan->protect[i].path);
		free(plan->protect[i].origin);
	}
	free(plan->protect);
	memset(plan, 0, sizeof(*plan));
}

int plan_failure_status(const struct plan *plan)
{
	return plan->mode == MODE_BWRAP ? 1 : 125;
}
