/* parse/: stage parse, the command line, --args fds and profiles made
 * into the plan (parse_plan): the option table (cli.c, opt_*.c),
 * profiles, the current directory's bind.  Parsing has no side effects.
 *
 * The folder's public header: files outside parse/ include this one only. */
#ifndef HUTCH_PARSE_PUBLIC_H
#define HUTCH_PARSE_PUBLIC_H

#include <stddef.h>
#include <stdio.h>

#include "plan/plan.h"

/* Parse ARGC/ARGV (ARGV[0] decides the mode) with ENVP as the caller's
 * environment into PLAN.  Returns 0, or -1 after writing one line to
 * ERR (of ERRLEN bytes).  Reads no file but profiles and --args fds. */
int parse_plan(struct plan *plan, int argc, char **argv, char **envp,
	       char *err, size_t errlen);

/* Print the --help text. */
void cli_help(const struct plan *plan, FILE *out);
/* The mount made before op I that op I lands on (the last whose
 * destination holds I's), or NULL for the sandbox's root tmpfs. */
const struct fs_op *cwd_lands_on(const struct plan *plan, size_t i);

#endif
