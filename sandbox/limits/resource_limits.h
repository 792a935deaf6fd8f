/* Resource limits: --rlimit, --pids, and cgroup v2 limits (--memory,
 * --memory-swap, --cpu, and --pids as pids.max). */
#ifndef HUTCH_RESOURCE_LIMITS_H
#define HUTCH_RESOURCE_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "limits_text.h"

struct plan;
struct sandbox;

/* Supervisor, prepare: make the sandbox's cgroup when a limit needs one
 * (sets sb->cgroup_fd for CLONE_INTO_CGROUP), or fail naming why none
 * is usable. */
int limits_prepare(struct sandbox *sb);
/* Supervisor, right after clone: with the clone fallback, move pid 1
 * into the cgroup before it is released. */
int limits_attach(struct sandbox *sb);
/* pid 1, in the sandbox's user namespace, before COMMAND is forked:
 * RLIMIT_NPROC for --pids, counted per user namespace. */
int limits_apply_nproc(struct sandbox *sb);
/* COMMAND's process, before execve: the --rlimit settings. */
int limits_apply(struct sandbox *sb);
/* Supervisor, after the run: say which limit ended COMMAND, remove the
 * cgroup. */
void limits_finish(struct sandbox *sb);
/* "memory", "pids", "cpu-time", "file-size", or NULL: what ended COMMAND
 * (valid after limits_finish, until limits_release). */
const char *limits_ended_by(const struct sandbox *sb);
void limits_release(struct sandbox *sb);
/* How this machine enforces the plan's --pids, in words for --explain
 * (nothing is changed); false when nothing would. */
bool limits_pids_enforced(const struct plan *plan, char *how, size_t len);
/* Where a run would make its cgroup (DIR, with its CONTROLLERS), as
 * limits_prepare would choose, without changing anything; false with
 * the REASON when no cgroup would do. */
bool limits_probe_cgroup(char *dir, size_t dirlen, char *controllers, size_t listlen,
			 char *reason, size_t reasonlen);

#endif
