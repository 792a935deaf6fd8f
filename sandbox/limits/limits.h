/* limits/: resource limits: --rlimit, --pids, and cgroup v2 limits (--memory,
 * --memory-swap, --cpu, and --pids as pids.max) in a cgroup hutch picks
 * (cgroup_pick.c); their pure part, texts and what cgroup files say
 * (limits_text.c).
 *
 * The folder's public header: files outside limits/ include this one only. */
#ifndef HUTCH_LIMITS_PUBLIC_H
#define HUTCH_LIMITS_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct plan;
struct sandbox;

/* ---- the limits (resource_limits.c) ---- */

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

/* ---- the limits in words, for --explain (limits_text.c): an rlimit's
 * name, a size in bytes, an rlimit's value, --cpu as cpu.max ---- */

const char *limits_rlimit_name(int resource);
void limits_format_bytes(unsigned long long v, char *buf, size_t len);
void limits_format_rlimit(int resource, unsigned long long v, char *buf, size_t len);
void limits_cpu_max(double fraction, char *buf, size_t len);

#endif
