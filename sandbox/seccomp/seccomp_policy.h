/* Text seccomp policies: parsing (pure), lookup, and building a libseccomp
 * filter from the result.
 *
 * Grammar, one statement a line; '#' starts a comment that runs to the end
 * of the line; blank lines are ignored; words are separated by blanks.
 *
 *   default allow                 what a syscall no rule names gets
 *   default deny ERRNO
 *   allow SYSCALL [if COND]
 *   deny SYSCALL ERRNO [if COND]
 *   include NAME                  the shipped policy NAME, read in place
 *
 *   COND  := argN == VALUE | argN & VALUE == VALUE      (N is 0 to 5)
 *   VALUE := TERM|TERM|...        (no blanks around '|')
 *   TERM  := a number (0x1f, 017, 31) or a constant: TIOCSTI, TIOCLINUX,
 *            TCGETS, CLONE_*, PER_LINUX, PER_LINUX32, ADDR_NO_RANDOMIZE,
 *            O_RDONLY, O_WRONLY, O_RDWR, O_ACCMODE, O_CREAT, O_TRUNC
 *   ERRNO := an errno name: EPERM, ENOSYS, EACCES, ...
 *   SYSCALL := a name libseccomp knows (a name that does not exist on this
 *            architecture, such as stime on x86_64, is accepted and has no
 *            effect), or @newer: every syscall number above the highest one
 *            libseccomp knows by name, up to 1023 (syscalls added to the
 *            kernel after this build).
 *
 * Statements take effect in order.  A later `default` replaces an earlier
 * one.  For each syscall, the last rule without a condition decides (it
 * overrides all earlier rules for that syscall); rules with a condition that
 * come after it are exceptions to it, tried first.  All exceptions of one
 * syscall must have the same action, and when that action is the one the
 * syscall would get anyway, their conditions must all test the same
 * argument.  "argN & M == V" compares (argument & M) with V, so a mask of
 * 0xffffffff looks only at the low 32 bits, which is all the kernel reads of
 * an int argument (ioctl requests, personality values).
 *
 * Errors are one line: "seccomp: FILE:LINE: WORD: reason". */
#ifndef HUTCH_SECCOMP_POLICY_H
#define HUTCH_SECCOMP_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <seccomp.h>
#include "seccomp.h"

/* Includes nest at most this deep. */
#define SECCOMP_INCLUDE_DEPTH 8

/* The syscall group standing for syscalls newer than this build. */
#define SECCOMP_NEWER "@newer"
#define SECCOMP_NEWER_LAST 1023

/* Where `include NAME` finds NAME's text: builtin_file's signature, called
 * with KIND "seccomp". */
typedef const char *(*seccomp_include_fn)(const char *kind, const char *name,
					  size_t *len);

/* Parse TEXT (LEN bytes) of the policy called NAME (used in sources and
 * messages).  `include` is resolved through builtin_file.  Returns the
 * policy, or NULL after writing one line into ERR. */
struct seccomp_policy *seccomp_policy_parse(const char *name, const char *text,
					    size_t len, char *err,
					    size_t errlen);

/* The same, with `include` resolved through FIND (for tests). */
struct seccomp_policy *seccomp_policy_parse_with(const char *name,
						 const char *text, size_t len,
						 seccomp_include_fn find,
						 char *err, size_t errlen);

/* NAME_OR_PATH is a shipped policy's name, or a file's path if it contains
 * a slash.  Reads the file (the only side effect) and parses it. */
int seccomp_policy_load(const char *name_or_path, struct seccomp_policy **out,
			char *err, size_t errlen);

/* Append an unconditional rule (e.g. from --seccomp-deny/--seccomp-allow),
 * which wins over every earlier rule for SYSCALL; a deny with
 * SECCOMP_ERRNO_NOTIFY (the filter variants' own rules) notifies.  Returns 0, or -1 after
 * writing "seccomp: SOURCE: SYSCALL: reason" into ERR. */
int seccomp_policy_append(struct seccomp_policy *pol, const char *syscall,
			  struct seccomp_action action, const char *source,
			  char *err, size_t errlen);


/* The errno of a deny that the filter turns into a user notification
 * (SCMP_ACT_NOTIFY) instead of an error: the supervisor answers it. */
#define SECCOMP_ERRNO_NOTIFY (-1)

/* A copy of POL; with NOTIFY, every deny is a notification.  NULL when
 * out of memory. */
struct seccomp_policy *seccomp_policy_copy(const struct seccomp_policy *pol, bool notify);
/* A policy that allows everything but the N syscalls NAMES, which it
 * treats as POL does.  NULL when out of memory. */
struct seccomp_policy *seccomp_policy_only(const struct seccomp_policy *pol,
					   const char *const *names, size_t n);

/* Is SYSCALL a name a policy may use (see SYSCALL in the grammar)? */
bool seccomp_syscall_name_valid(const char *syscall);


/* The first syscall number of @newer: one above the highest native syscall
 * number libseccomp knows by name.  @newer ends at SECCOMP_NEWER_LAST. */
int seccomp_newer_first(void);


/* "FILE:LINE" of the line that decides SYSCALL when no condition applies. */
const char *seccomp_policy_source(const struct seccomp_policy *pol,
				  const char *syscall);

/* Does the policy let SYSCALL through whatever its arguments? */
bool seccomp_policy_always_allows(const struct seccomp_policy *pol,
				  const char *syscall);

/* The syscalls COMMAND's process makes between loading the notifying
 * filter and handing its listener to the supervisor: a refusal notified
 * then would wait for an answer that cannot come. */
#define SECCOMP_N_HAND_OVER 2
extern const char *const seccomp_hand_over_calls[SECCOMP_N_HAND_OVER];
/* Does POL let both hand-over calls through, whatever their arguments? */
bool seccomp_hand_over_allowed(const struct seccomp_policy *pol);

/* The notifying filter hands every call of these to the supervisor's
 * connect broker (connect_broker.c) unless the policy refuses them all:
 * the supervisor applies the policy first, then connects on COMMAND's
 * behalf (connect) or refuses (io_uring_setup, which connects past it). */
#define SECCOMP_N_BROKERED 2
extern const char *const seccomp_brokered_calls[SECCOMP_N_BROKERED];


/* Arguments of a syscall. */
#define SECCOMP_ARGS 6

/* What the policy does with syscall NR of the native architecture called
 * with ARGS, as the filter built from it does; *SOURCE is the line that
 * decides (a condition's line when one matches). */
struct seccomp_action seccomp_policy_decide(const struct seccomp_policy *pol,
					    int nr,
					    const uint64_t args[SECCOMP_ARGS],
					    const char **source);




/* Build the native-architecture filter.  Syscalls of any other ABI (i386
 * through int 0x80, x32) kill the process.  Returns 0 and the context in
 * *OUT (release with seccomp_release), or -1 after writing into ERR. */
int seccomp_policy_build(const struct seccomp_policy *pol,
			 scmp_filter_ctx *out, char *err, size_t errlen);

#endif
