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

/* Run the plan under the fallback: the run stage's work, filling sb->run
 * for supervisor_exit_status.  Returns 0, or -1 with sb->err set when it
 * cannot (nothing ran unconfined); STAGE_NEW_ROLE in COMMAND's process. */
int fallback_stage_run(struct sandbox *sb);
/* --explain: the fallback plan (rights per path, per-run directories,
 * network, approximations), or why this plan cannot run under it. */
void fallback_explain(const struct plan *plan, FILE *out);
/* The same as one JSON object. */
struct json_writer;
void fallback_explain_json(const struct plan *plan, struct json_writer *w);

#endif
