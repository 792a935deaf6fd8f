/* Profiles: text files of options, one per line, read through the same
 * option table as the command line. */
#ifndef HUTCH_PROFILE_H
#define HUTCH_PROFILE_H

#include "cli.h"
#include "plan/plan.h"

/* Read profile NAME (a path if it has a slash) and append its options,
 * includes expanded, to OUT.  ENVP gives the caller's variables. */
int profile_record(struct plan *plan, const char *name, char *const *envp,
		   struct record_list *out, char *err, size_t errlen);

#endif
