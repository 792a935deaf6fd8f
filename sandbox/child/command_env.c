/* COMMAND's environment and argv as execve gets them: the plan's, read
 * only, and on top what the stages learn at run time, kept on the
 * sandbox (sb->env_set). */
#include <stdlib.h>
#include <string.h>

#include "command_env.h"
#include "plan/plan.h"
#include "sandbox.h"
#include "lib/lib.h"

/* Whether ENTRY ("NAME=value") sets NAME (LEN bytes). */
static bool sets(const char *entry, const char *name, size_t len)
{
	return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

void command_env_set(struct sandbox *sb, const char *name, const char *value)
{
	char *entry = xasprintf("%s=%s", name, value);
	size_t len = strlen(name);

	for (size_t i = 0; i < sb->n_env_set; i++)
		if (sets(sb->env_set[i], name, len)) {
			free(sb->env_set[i]);
			sb->env_set[i] = entry;
			return;
		}
	sb->env_set = xreallocarray(sb->env_set, sb->n_env_set + 1, sizeof(char *));
	sb->env_set[sb->n_env_set++] = entry;
}

char **command_env(const struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	char **env = xreallocarray(NULL, plan->n_env + sb->n_env_set + 1, sizeof(char *));
	size_t n = 0;

	/* As setenv does: a variable set again keeps its place. */
	for (size_t i = 0; i < plan->n_env; i++)
		env[n++] = plan->env[i];
	for (size_t j = 0; j < sb->n_env_set; j++) {
		size_t len = strcspn(sb->env_set[j], "="), i = 0;

		while (i < n && !sets(env[i], sb->env_set[j], len))
			i++;
		env[i] = sb->env_set[j];
		n += i == n;
	}
	env[n] = NULL;
	return env;
}

char **command_argv(const struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	size_t n = 0;
	char **argv;

	while (plan->argv[n])
		n++;
	argv = xreallocarray(NULL, n + 1, sizeof(char *));
	memcpy(argv, plan->argv, (n + 1) * sizeof(char *));
	if (plan->argv0)
		argv[0] = plan->argv0;
	return argv;
}

void command_env_release(struct sandbox *sb)
{
	for (size_t i = 0; i < sb->n_env_set; i++)
		free(sb->env_set[i]);
	free(sb->env_set);
	sb->env_set = NULL;
	sb->n_env_set = 0;
}
