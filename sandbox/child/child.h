/* child/: pid 1 of the sandbox and COMMAND's process before execve: the
 * child stages (deathsig, mounts, seal, policy, exec), the sealed init
 * image (seal.c), COMMAND's environment (command_env.c).
 *
 * The folder's public header: files outside child/ include this one only. */
#ifndef HUTCH_CHILD_PUBLIC_H
#define HUTCH_CHILD_PUBLIC_H

#include "command_env.h"
#include "seal.h"

struct sandbox;

/* pid 1's and COMMAND's stages (stages.c's table). */
int stage_deathsig(struct sandbox *sb);
int stage_mounts(struct sandbox *sb);
int stage_seal(struct sandbox *sb);
int stage_policy(struct sandbox *sb);
int stage_exec(struct sandbox *sb);

#endif
