/* parse/: the command line, --args fds and profiles made into the plan
 * (plan_parse): the option table (cli.c, opt_*.c), profiles, the
 * current directory's binding.  Parsing has no side effects.
 *
 * The folder's public header: files outside parse/ include this one only. */
#ifndef HUTCH_PARSE_PUBLIC_H
#define HUTCH_PARSE_PUBLIC_H

#include "cli.h"
#include "cwd.h"
#include "options.h"

/* Parse ARGC/ARGV (ARGV[0] decides the mode) with ENVP as the caller's
 * environment into PLAN.  Returns 0, or -1 after writing one line to
 * ERR (of ERRLEN bytes).  Reads no file but profiles and --args fds. */
int plan_parse(struct plan *plan, int argc, char **argv, char **envp,
	       char *err, size_t errlen);

#endif
