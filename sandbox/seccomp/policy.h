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

struct policy_ready;
struct sandbox;
struct seccomp_policy;

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

/* policy_apply for hutch mode, where the supervisor answers every refusal
 * and records it: refusals become seccomp user notifications (the filter is
 * loaded with SECCOMP_FILTER_FLAG_NEW_LISTENER) and HAND_OVER(SB, fd) must
 * pass the listener to the supervisor and close it; nothing else happens in
 * between.  Under a filter that has a listener already (a nested sandbox),
 * HAND_OVER(SB, -EBUSY) is told so and the plain filter is loaded, logged
 * by the kernel with --report or --seccomp-log.  Without a filter, or with
 * a policy prepared outside hutch mode, the same as policy_apply. */
typedef int (*policy_hand_over_fn)(struct sandbox *sb, int listener);
int policy_apply_reporting(const struct plan *plan,
			   const struct policy_ready *ready,
			   policy_hand_over_fn hand_over, struct sandbox *sb,
			   char *err, size_t errlen);

void policy_ready_free(struct policy_ready *ready);

/* The named policy with the command line's rules on top (for --explain).
 * Returns 0 and *OUT (seccomp_policy_free), or -1 after writing into ERR. */
int policy_load(const struct plan *plan, struct seccomp_policy **out,
		char *err, size_t errlen);

/* The errno the policy refuses native syscall NR with, given its ARGS (as
 * a seccomp notification carries them), with *SOURCE the deciding line;
 * 0 (and *SOURCE NULL without a policy) when the policy allows it. */
int policy_refusal(const struct policy_ready *ready, int nr,
		   const uint64_t args[6], const char **source);

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

/* A filter that allows everything, built by libseccomp: for probes that
 * load it themselves (--doctor).  0, or -1 with ERR written. */
struct sock_filter;
int policy_allow_all_program(struct sock_filter **prog, size_t *n,
			     char *err, size_t errlen);

/* The plain filter (struct sock_filter instructions, refusals as
 * errors); NULL and 0 when there is none. */
const void *policy_ready_bpf(const struct policy_ready *ready, size_t *n_insns);

/* Capability name -> number: "CAP_SYS_ADMIN", "sys_admin", any case;
 * "ALL" -> -2; -1 when unknown. */
int policy_cap_from_name(const char *name);

/* Can --seccomp-deny/--seccomp-allow name SYSCALL on this architecture?
 * (A syscall name this architecture has, or @newer.) */
bool policy_syscall_known(const char *name);

/* The capabilities this process holds (its effective set): bwrap's
 * starting point for a root caller, which --cap-add and --cap-drop
 * change. */
unsigned long long policy_effective_caps(void);

#endif
