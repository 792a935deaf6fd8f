/* The Landlock fallback's per-run directories (see landlock_rundir.c). */
#ifndef HUTCH_LANDLOCK_RUNDIR_H
#define HUTCH_LANDLOCK_RUNDIR_H

#include "landlock/landlock.h"

/* Make this run's directories and what the plan makes in them, after
 * removing stale ones; -1 with fb->err set. */
int fallback_make_run_dirs(struct fallback *fb);
/* Remove this run's directories; a warning when that fails. */
void fallback_remove_run_dirs(struct fallback *fb);
/* TMPDIR and HOME name the per-run directories; the working directory
 * follows its path into them (fb->workdir). */
struct sandbox;
void fallback_point_env(struct fallback *fb, struct sandbox *sb);

#endif
