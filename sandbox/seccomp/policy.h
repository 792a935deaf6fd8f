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
#include <stdint.h>

#include "plan/plan.h"
#include "seccomp.h"

struct policy_ready;
struct sandbox;
struct seccomp_policy;

/* In plan->caps_add (where --cap-add ALL sets all 64 bits): every
 * capability that can be kept, i.e. those in hutch's bounding set. */
#define POLICY_CAPS_ALL (1ULL << 63)


/* COMMAND's process, just before execve, in this order:
 *  - a fresh anonymous session keyring, unless the policy refuses keyctl;
 *  - capabilities (libcap): every set (effective, permitted, inheritable,
 *    ambient, bounding) holds exactly plan->caps_add minus plan->caps_drop,
 *    ambient included so that they survive execve as a non-root uid;
 *  - PR_SET_NO_NEW_PRIVS;
 *  - the seccomp filter, if the policy has one.
 * Returns 0, or -1 after writing one line "STAGE: OBJECT: reason" (STAGE is
 * "policy" or "seccomp") into ERR. */
/* (policy_apply: declared in seccomp.h, which --learn's observer uses.) */





/* The filters policy_apply_reporting loads (NULL and 0 when absent):
 * NOTIFY is the compiled filter with refusals turned into notifications,
 * behind a prefix letting the hand-over calls (sendmsg, seccomp) through;
 * LATE, loaded after the hand-over, refuses those calls as the policy does
 * and allows everything else.  For tests. */
struct policy_programs {
	const void *notify;
	size_t n_notify;
	const void *late;
	size_t n_late;
};
void policy_ready_programs(const struct policy_ready *ready,
			   struct policy_programs *out);

/* Does the effective policy let SYSCALL through for some arguments? */
bool policy_allows(const struct policy_ready *ready, const char *syscall);

/* "FILE:LINE" (or "command line") of the rule that decides SYSCALL, for a
 * report of a refused call; NULL without a filter. */
const char *policy_rule_source(const struct policy_ready *ready,
			       const char *syscall);


/* The plain filter (struct sock_filter instructions, refusals as
 * errors); NULL and 0 when there is none. */
const void *policy_ready_bpf(const struct policy_ready *ready, size_t *n_insns);




#endif
