/* seccomp/: the seccomp policy and the policy stage.  Text policies (their
 * grammar in seccomp_policy.h): parsed and loaded (seccomp_policy.c),
 * what they decide (seccomp_decide.c), built into BPF programs with
 * libseccomp (seccomp_build.c; the shipped policies' programs are built
 * with hutch, builtin_filters.c).  The policy stage (policy.c): the
 * supervisor prepares the filter before clone (policy_prepare), COMMAND's
 * process applies keyring, capabilities, no_new_privs and the filter
 * just before execve.
 *
 * The folder's public header: files outside seccomp/ include this one only. */
#ifndef HUTCH_SECCOMP_PUBLIC_H
#define HUTCH_SECCOMP_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan/plan.h"

struct policy_ready;
struct seccomp_policy;
struct sandbox;

/* ---- the policy stage (policy.c) ---- */

/* Supervisor, before clone.  Returns 0 and *OUT (release with
 * policy_ready_free), or -1 after writing one line into ERR: "seccomp: ..."
 * or "policy: CAP_X: ..." for a capability outside the bounding set. */
int policy_prepare(const struct plan *plan, struct policy_ready **out,
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

/* COMMAND's process, just before execve: keyring, capabilities,
 * no_new_privs and the plain filter (policy.h says more); also what
 * --learn's observer takes on, to be no stronger than COMMAND.  0, or
 * -1 after writing one line into ERR. */
int policy_apply(const struct plan *plan, const struct policy_ready *ready,
		 char *err, size_t errlen);

/* The named policy with the command line's rules on top (for --explain).
 * Returns 0 and *OUT (seccomp_policy_free), or -1 after writing into ERR. */
int policy_load(const struct plan *plan, struct seccomp_policy **out,
		char *err, size_t errlen);

/* The errno the policy refuses native syscall NR with, given its ARGS (as
 * a seccomp notification carries them), with *SOURCE the deciding line;
 * 0 (and *SOURCE NULL without a policy) when the policy allows it. */
int policy_refusal(const struct policy_ready *ready, int nr,
		   const uint64_t args[6], const char **source);

/* A filter that allows everything, built by libseccomp: for probes that
 * load it themselves (--doctor).  0, or -1 with ERR written. */
struct sock_filter;
int policy_allow_all_program(struct sock_filter **prog, size_t *n,
			     char *err, size_t errlen);

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

/* ---- text policies ---- */

struct seccomp_action {
	bool allow;
	int errnum;		/* for a deny: 1 to 4095 */
};

struct seccomp_cond {
	bool present;
	unsigned arg;		/* 0 to 5 */
	uint64_t mask;		/* all ones for "argN == VALUE" */
	uint64_t value;		/* no bit outside mask */
};

struct seccomp_rule {
	struct seccomp_action action;
	char *syscall;
	struct seccomp_cond cond;
	char *source;		/* "FILE:LINE" or "command line" */
};

struct seccomp_policy {
	struct seccomp_action default_action;
	char *default_source;
	struct seccomp_rule *rules;	/* in the order they take effect */
	size_t n_rules;
};

void seccomp_policy_free(struct seccomp_policy *pol);

/* Errno name ("EPERM") -> number; -1 when unknown. */
int seccomp_errno_from_name(const char *name);

/* Does the policy refuse SYSCALL whatever its arguments? */
bool seccomp_policy_refuses(const struct seccomp_policy *pol,
			    const char *syscall);

/* The notifying filter hands the connect broker socket() and
 * socketpair() of AF_UNIX with these types (of type & 0xf, all the
 * kernel reads), which the broker refuses: a unix
 * datagram reaches a pathname with sendto(), without connect(). */
#define SECCOMP_N_UNIX_DGRAM_TYPES 2
extern const int seccomp_unix_dgram_types[SECCOMP_N_UNIX_DGRAM_TYPES];

/* The programs built from one policy.  hutch mode loads NOTIFY (with a
 * listener) and, after handing the listener over, LATE. */
enum seccomp_variant {
	SECCOMP_PLAIN = 0,	/* refusals are errors */
	SECCOMP_NOTIFY = 1,	/* refusals and the brokered calls are notifications;
				   hand-over calls allowed */
	SECCOMP_LATE = 2,	/* the policy's verdict on the hand-over calls only */
	SECCOMP_NOTIFY_LEARN = 3,	/* NOTIFY, and the path calls --learn watches
					   (seccomp_learn_calls) notified too */
};

/* The calls --learn's filter notifies where the policy allows them: the
 * calls that look a path up, open, execute, create or remove it, and
 * exit_group (the observer catches up before a process ends). */
#define SECCOMP_N_LEARN 25
extern const char *const seccomp_learn_calls[SECCOMP_N_LEARN];

struct sock_filter;
/* VARIANT of POL as kernel BPF built by libseccomp: *PROG (malloc'd) of
 * *N instructions; NULL and 0 for a LATE that is not needed.  0, or -1
 * with ERR written. */
int seccomp_policy_export(const struct seccomp_policy *pol, enum seccomp_variant variant,
			  struct sock_filter **prog, size_t *n, char *err, size_t errlen);

/* The policy's effective rules in words, one syscall a line, to OUT. */
void seccomp_policy_describe(const struct seccomp_policy *pol, FILE *out);

/* What the policy does with one syscall it names: ACTION unless one of
 * the EXCEPTIONS (conditional rules, all with one action) matches. */
struct seccomp_summary {
	const char *syscall;
	const char *note;	/* "" or what the name stands for, e.g. @newer's range */
	struct seccomp_action action;
	const char *source;
	const struct seccomp_rule *const *exceptions;
	size_t n_exceptions;
};
typedef void (*seccomp_summary_fn)(const struct seccomp_summary *sum, void *arg);
/* FN for each syscall the policy treats otherwise than its default, in
 * the order the policy first names them. */
void seccomp_policy_summarize(const struct seccomp_policy *pol, seccomp_summary_fn fn,
			      void *arg);

/* Does the policy let every syscall through (no filter needed)? */
bool seccomp_policy_is_empty(const struct seccomp_policy *pol);

#endif
