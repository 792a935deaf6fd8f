/* COMMAND's environment and argv as execve gets them (command_env.c). */
#ifndef HUTCH_COMMAND_ENV_H
#define HUTCH_COMMAND_ENV_H

#include "child.h"

struct sandbox;

/* The plan's environment with those set; NULL-terminated, for execve
 * (its strings are the plan's and the sandbox's; free only the array). */
char **command_env(const struct sandbox *sb);
/* The plan's argv with --argv0 in place of argv[0]; free only the array. */
char **command_argv(const struct sandbox *sb);

#endif
