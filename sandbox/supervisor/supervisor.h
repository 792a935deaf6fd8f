/* supervisor/: hutch in the caller's namespaces: the supervisor's stages
 * (prepare, clone, idmap, run), the join of a nested user namespace,
 * the teardown report, and the exit status once the run is over.
 *
 * The folder's public header: files outside supervisor/ include this one only. */
#ifndef HUTCH_SUPERVISOR_PUBLIC_H
#define HUTCH_SUPERVISOR_PUBLIC_H

struct sandbox;

/* The supervisor's stages (stages.c's table). */
int stage_prepare(struct sandbox *sb);
int stage_clone(struct sandbox *sb);
int stage_idmap(struct sandbox *sb);
int stage_run(struct sandbox *sb);

/* The signals feature's prepare: the signals hutch forwards (and
 * SIGWINCH for the pty relay) taken through a signalfd, SIGPIPE
 * blocked, SIGCHLD's disposition the default while hutch runs. */
int supervise_take_signals(struct sandbox *sb);

/* The exit status the supervisor returns once the run is over. */
int supervisor_exit_status(struct sandbox *sb);

#endif
