/* COMMAND's environment and argv as execve gets them (command_env.c). */
#ifndef HUTCH_COMMAND_ENV_H
#define HUTCH_COMMAND_ENV_H

struct sandbox;

/* Set NAME=VALUE in COMMAND's environment, over the plan's: what the
 * stages learn at run time (PWD, LISTEN_PID, the fallback's TMPDIR and
 * HOME), kept on the sandbox, not in the read-only plan. */
void command_env_set(struct sandbox *sb, const char *name, const char *value);
/* The plan's environment with those set; NULL-terminated, for execve
 * (its strings are the plan's and the sandbox's; free only the array). */
char **command_env(const struct sandbox *sb);
/* The plan's argv with --argv0 in place of argv[0]; free only the array. */
char **command_argv(const struct sandbox *sb);
void command_env_release(struct sandbox *sb);

#endif
