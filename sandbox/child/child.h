/* child/: pid 1 of the sandbox and COMMAND's process before execve: the
 * child stages (deathsig, network, hostname, handles, mounts, seal,
 * policy, exec), the sealed init
 * image (seal.c), COMMAND's environment (command_env.c).
 *
 * The folder's public header: files outside child/ include this one only. */
#ifndef HUTCH_CHILD_PUBLIC_H
#define HUTCH_CHILD_PUBLIC_H

#include <stddef.h>

struct sandbox;

/* pid 1's and COMMAND's stages (stages.c's table). */
int stage_deathsig(struct sandbox *sb);
int stage_network(struct sandbox *sb);
int stage_hostname(struct sandbox *sb);
int stage_handles(struct sandbox *sb);
int stage_mounts(struct sandbox *sb);
int stage_seal(struct sandbox *sb);
int stage_policy(struct sandbox *sb);
int stage_exec(struct sandbox *sb);

/* Set NAME=VALUE in COMMAND's environment, over the plan's: what the
 * stages learn at run time (PWD, LISTEN_PID, the fallback's TMPDIR and
 * HOME), kept on the sandbox, not in the read-only plan. */
void command_env_set(struct sandbox *sb, const char *name, const char *value);
/* Free what command_env_set kept. */
void command_env_release(struct sandbox *sb);

/* Supervisor, prepare stage: the init image in a sealed memfd. */
int seal_make_image(struct sandbox *sb);
/* Size of the embedded init image, for --version. */
size_t seal_image_size(void);

#endif
