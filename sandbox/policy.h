/* The policy stage: what COMMAND's process does last before execve.
 *
 * Split in two so that the child reads no file and parses nothing:
 * policy_prepare runs in the supervisor during the prepare stage (before
 * clone): it reads and parses the seccomp policy, applies the plan's
 * --seccomp-deny/--seccomp-allow rules and compiles the filter to BPF with
 * libseccomp.  policy_apply runs in COMMAND's process just before execve. */
#ifndef HUTCH_POLICY_H
#define HUTCH_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

struct policy_ready;

/* In plan->caps_add (where --cap-add ALL sets all 64 bits): every
 * capability that can be kept, i.e. those in hutch's bounding set. */
#define POLICY_CAPS_ALL (1ULL << 63)

/* Supervisor, before clone.  Returns 0 and *OUT (release with
 * policy_ready_free), or -1 after writing one line into ERR: "seccomp: ..."
 * or "policy: CAP_X: ..." for a capability outside the bounding set. */
int policy_prepare(const struct plan *plan, struct policy_ready **out,
		   char *err, size_t errlen);

/* COMMAND's process, just before execve, in this order:
 *  - a fresh anonymous session keyring, unless the policy refuses keyctl;
 *  - capabilities (libcap): every set (effective, permitted, inheritable,
 *    ambient, bounding) holds exactly plan->caps_add minus plan->caps_drop,
 *    ambient included so that they survive execve as a non-root uid;
 *  - PR_SET_NO_NEW_PRIVS;
 *  - the seccomp filter, if the policy has one.
 * Returns 0, or -1 after writing one line "STAGE: OBJECT: reason" (STAGE is
 * "policy" or "seccomp") into ERR. */
int policy_apply(const struct plan *plan, const struct policy_ready *ready,
		 char *err, size_t errlen);

void policy_ready_free(struct policy_ready *ready);

/* Does the effective policy let SYSCALL through for some arguments? */
bool policy_allows(const struct policy_ready *ready, const char *syscall);

/* "FILE:LINE" (or "command line") of the rule that decides SYSCALL, for a
 * report of a refused call; NULL without a filter. */
const char *policy_rule_source(const struct policy_ready *ready,
			       const char *syscall);

/* The compiled filter (struct sock_filter instructions), NULL and 0 when
 * there is none: for a process that cannot share hutch's memory. */
const void *policy_ready_bpf(const struct policy_ready *ready, size_t *n_insns);

/* Capability name -> number: "CAP_SYS_ADMIN", "sys_admin", any case;
 * "ALL" -> -2; -1 when unknown. */
int policy_cap_from_name(const char *name);

/* Can --seccomp-deny/--seccomp-allow name SYSCALL on this architecture?
 * (A syscall name this architecture has, or @newer.) */
bool policy_syscall_known(const char *name);

#endif
