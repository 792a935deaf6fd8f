/* fallback/: the fallback where user namespaces are refused: COMMAND
 * runs without namespaces, confined by Landlock and the same seccomp
 * policy, under a subreaper supervisor that kills every descendant at
 * exit.  The files: landlock_run.c (the runner), landlock_rundir.c
 * (per-run directories), landlock_explain.c (--explain); the plan as
 * Landlock rules, the ruleset and the network filter are landlock/'s.
 *
 * The folder's public header: files outside fallback/ include this one only. */
#ifndef HUTCH_FALLBACK_PUBLIC_H
#define HUTCH_FALLBACK_PUBLIC_H

#include <stdio.h>

struct plan;
struct sandbox;

/* The fallback's stages (stages.c's fallback table), where user
 * namespaces are refused: fallback (Landlock checked, the rules, the
 * per-run directories, the subreaper, the notice), fork (COMMAND's
 * process; STAGE_NEW_ROLE in it), confine (COMMAND's process: Landlock),
 * run (the supervision loop, filling sb->run for
 * supervisor_exit_status).  Each returns 0, or -1 with sb->err set
 * (nothing ran unconfined). */
int fallback_stage_enter(struct sandbox *sb);
int fallback_stage_fork(struct sandbox *sb);
int fallback_stage_confine(struct sandbox *sb);
int fallback_stage_run(struct sandbox *sb);
/* The fallback's feature hooks: finish (the per-run directories
 * removed, the rules freed) and release (COMMAND's environment). */
void fallback_finish(struct sandbox *sb);
void fallback_release(struct sandbox *sb);
/* --explain: the fallback plan (rights per path, per-run directories,
 * network, approximations), or why this plan cannot run under it. */
void fallback_explain(const struct plan *plan, FILE *out);
/* The same as one JSON object. */
struct json_writer;
void fallback_explain_json(const struct plan *plan, struct json_writer *w);

#endif
