/* A text seccomp policy as a libseccomp filter (never hand-written BPF),
 * and exported as the kernel's BPF program with its variants (listener,
 * hand-over).  Whatever libseccomp cannot express exactly is refused
 * with the reason, never approximated: a filter looser than its policy
 * would let COMMAND through where the policy says no. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/filter.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "seccomp_decide.h"
#include "seccomp_policy.h"

/* The most rules one syscall's complement may take.  Exceptions that
 * test disjoint bits multiply the parts (k exceptions on two bits each
 * need 2^k rules): past this, the filter would pass the kernel's 4096
 * instructions anyway, and counting on would take libseccomp minutes. */
#define MAX_COMPLEMENT_RULES 1024

/* Rules with ACTION on syscall NR that match every value of argument ARG
 * that none of the CONDS (the exceptions) matches.  With CTX NULL, the
 * rules are only counted in RULES. */
struct cover {
	scmp_filter_ctx ctx;
	size_t rules;
	int nr;
	uint32_t action;
	unsigned arg;
	const struct seccomp_cond *conds[MAX_EXCEPTIONS];
	size_t n;
};

static uint32_t scmp_action(struct seccomp_action action)
{
	if (action.allow)
		return SCMP_ACT_ALLOW;
	if (action.errnum == SECCOMP_ERRNO_NOTIFY)
		return SCMP_ACT_NOTIFY;
	return SCMP_ACT_ERRNO((uint32_t)action.errnum);
}

static int add_masked(scmp_filter_ctx ctx, uint32_t action, int nr,
		      unsigned arg, uint64_t mask, uint64_t value)
{
	return seccomp_rule_add(ctx, action, nr, 1,
				SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value));
}

static uint64_t highest_bit(uint64_t bits)
{
	return 1ULL << (63 - __builtin_clzll(bits));
}

/* Of the exceptions in ACTIVE, those that allow BIT to be VALUE_BIT. */
static uint64_t still_matching(const struct cover *c, uint64_t active,
			       uint64_t bit, uint64_t value_bit)
{
	uint64_t next = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct seccomp_cond *cond = c->conds[i];

		if ((active & (1ULL << i)) &&
		    (!(cond->mask & bit) || (cond->value & bit) == value_bit))
			next |= 1ULL << i;
	}
	return next;
}

/* The values with (arg & MASK) == VALUE, of which the exceptions in ACTIVE
 * may match some: split them on the highest bit an exception still tests
 * until each part lies inside an exception (skip it) or outside all of
 * them (add a rule for it).  Exact, and at most 64 rules per exception. */
static int cover_rest(struct cover *c, uint64_t active, uint64_t mask,
		      uint64_t value)
{
	uint64_t untested = 0;
	uint64_t bit;
	int rc;

	if (active == 0) {
		if (++c->rules > MAX_COMPLEMENT_RULES)
			return -E2BIG;
		return c->ctx ? add_masked(c->ctx, c->action, c->nr, c->arg,
					   mask, value) : 0;
	}
	for (size_t i = 0; i < c->n; i++) {
		uint64_t left = c->conds[i]->mask & ~mask;

		if (!(active & (1ULL << i)))
			continue;
		if (left == 0)
			return 0;	/* exception i matches all of these */
		untested |= left;
	}
	bit = highest_bit(untested);
	rc = cover_rest(c, still_matching(c, active, bit, 0), mask | bit,
			value);
	if (rc == 0)
		rc = cover_rest(c, still_matching(c, active, bit, bit),
				mask | bit, value | bit);
	return rc;
}

/* With CTX NULL, only counts: -E2BIG if the complement is too long. */
static int add_complement(scmp_filter_ctx ctx, int nr,
			  const struct seccomp_decision *d)
{
	struct cover c = {
		.ctx = ctx,
		.nr = nr,
		.action = scmp_action(d->base),
		.arg = d->exceptions[0]->cond.arg,
		.n = d->n_exceptions,
	};

	for (size_t i = 0; i < d->n_exceptions; i++)
		c.conds[i] = &d->exceptions[i]->cond;
	return cover_rest(&c, UINT64_MAX >> (64 - c.n), 0, 0);
}

static int add_exceptions(scmp_filter_ctx ctx, int nr,
			  const struct seccomp_decision *d)
{
	uint32_t action = scmp_action(d->exceptions[0]->action);

	for (size_t i = 0; i < d->n_exceptions; i++) {
		const struct seccomp_cond *cond = &d->exceptions[i]->cond;
		int rc = add_masked(ctx, action, nr, cond->arg, cond->mask,
				    cond->value);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The rules for syscall NR; libseccomp accepts no rule whose action is the
 * default action, so those are left out (the default covers them). */
static int add_decision(scmp_filter_ctx ctx, int nr, const struct seccomp_decision *d,
			struct seccomp_action dflt)
{
	int rc = 0;

	if (!seccomp_exceptions_matter(d))
		return seccomp_same_action(d->base, dflt) ? 0 :
		       seccomp_rule_add(ctx, scmp_action(d->base), nr, 0);
	if (!seccomp_same_action(d->exceptions[0]->action, dflt))
		rc = add_exceptions(ctx, nr, d);
	if (rc == 0 && !seccomp_same_action(d->base, dflt))
		rc = add_complement(ctx, nr, d);
	return rc;
}

/* Can the decision be expressed: one action for all exceptions, and one
 * argument when the rest must be covered? NULL if so, else the reason. */
static const char *inexpressible(const struct seccomp_decision *d,
				 struct seccomp_action dflt,
				 const char **source)
{
	bool need_complement = seccomp_exceptions_matter(d) &&
			       !seccomp_same_action(d->base, dflt);

	*source = d->base_source;
	if (d->too_many)
		return "more than 64 conditional rules";
	for (size_t i = 1; i < d->n_exceptions; i++) {
		*source = d->exceptions[i]->source;
		if (!seccomp_same_action(d->exceptions[i]->action,
				 d->exceptions[0]->action))
			return "conditional rules with different actions";
		if (need_complement &&
		    d->exceptions[i]->cond.arg != d->exceptions[0]->cond.arg)
			return "conditional exceptions test different arguments";
	}
	*source = d->base_source;
	if (need_complement && add_complement(NULL, 0, d) == -E2BIG)
		return "conditional exceptions whose complement needs more "
		       "than 1024 rules";
	return NULL;
}

/* @newer: the same rules for every number from seccomp_newer_first() on. */
static int add_newer(scmp_filter_ctx ctx, const struct seccomp_decision *d,
		     struct seccomp_action dflt)
{
	int rc = 0;

	for (int nr = seccomp_newer_first();
	     nr <= SECCOMP_NEWER_LAST && rc == 0; nr++)
		rc = add_decision(ctx, nr, d, dflt);
	return rc;
}

static int add_syscall(scmp_filter_ctx ctx, const struct seccomp_policy *pol,
		       const char *syscall, char *err, size_t errlen)
{
	struct seccomp_decision d;
	const char *source;
	const char *reason;
	int rc;

	seccomp_decide(pol, syscall, &d);
	reason = inexpressible(&d, pol->default_action, &source);
	if (reason) {
		snprintf(err, errlen, "seccomp: %s: %s: %s", source, syscall,
			 reason);
		return -1;
	}
	if (strcmp(syscall, SECCOMP_NEWER) == 0)
		rc = add_newer(ctx, &d, pol->default_action);
	else
		rc = add_decision(ctx, seccomp_syscall_resolve_name(syscall),
				  &d, pol->default_action);
	if (rc < 0)
		snprintf(err, errlen, "seccomp: %s: %s: libseccomp: %s",
			 d.base_source, syscall, strerror(-rc));
	return rc < 0 ? -1 : 0;
}

/* Filter-wide settings. */
static int set_filter_attrs(scmp_filter_ctx ctx)
{
	/* Another ABI (i386 int 0x80, x32) would reach syscalls this filter
	 * never looked at: kill the process rather than let it through. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				  SCMP_ACT_KILL_PROCESS);

	/* A binary tree keeps long deny lists cheap; only speed is at stake. */
	if (rc == 0)
		(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	return rc;
}

int seccomp_policy_build(const struct seccomp_policy *pol,
			 scmp_filter_ctx *out, char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(scmp_action(pol->default_action));
	int rc;

	if (!ctx) {
		snprintf(err, errlen, "seccomp: %s: libseccomp: cannot start "
			 "a filter", pol->default_source);
		return -1;
	}
	rc = set_filter_attrs(ctx);
	if (rc < 0) {
		snprintf(err, errlen, "seccomp: filter: libseccomp: %s",
			 strerror(-rc));
		seccomp_release(ctx);
		return -1;
	}
	for (size_t i = 0; i < pol->n_rules; i++) {
		if (seccomp_first_for_syscall(pol, i) &&
		    add_syscall(ctx, pol, pol->rules[i].syscall, err,
				errlen) < 0) {
			seccomp_release(ctx);
			return -1;
		}
	}
	*out = ctx;
	return 0;
}

/* ---- the programs, as kernel BPF ---- */

/* CTX's program, generated by libseccomp: *PROG (malloc'd), *N
 * instructions. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **prog, size_t *n,
		      char *err, size_t errlen)
{
	const off_t insn = (off_t)sizeof(**prog);
	const char *problem = NULL;
	int fd = memfd_create("hutch-seccomp", MFD_CLOEXEC);
	off_t size = 0;
	int rc = 0;

	*prog = NULL;
	if (fd < 0)
		problem = strerror(errno);
	else if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		problem = strerror(-rc);
	else if ((size = lseek(fd, 0, SEEK_END)) <= 0 || size % insn != 0)
		problem = "libseccomp exported no program";
	else if (size > BPF_MAXINSNS * insn)
		problem = "longer than the kernel's 4096 instructions";
	else if (!(*prog = malloc((size_t)size)) ||
		 pread(fd, *prog, (size_t)size, 0) != size)
		problem = "cannot read the program back";
	if (fd >= 0)
		close(fd);
	if (problem) {
		free(*prog);
		*prog = NULL;
		snprintf(err, errlen, "seccomp: filter: %s", problem);
		return -1;
	}
	*n = (size_t)(size / insn);
	return 0;
}

static int export_policy(const struct seccomp_policy *pol, struct sock_filter **prog,
			 size_t *n, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if (seccomp_policy_build(pol, &ctx, err, errlen) < 0)
		return -1;
	rc = export_bpf(ctx, prog, n, err, errlen);
	seccomp_release(ctx);
	return rc;
}

const char *const seccomp_hand_over_calls[SECCOMP_N_HAND_OVER] = { "sendmsg", "seccomp" };

bool seccomp_hand_over_allowed(const struct seccomp_policy *pol)
{
	for (size_t i = 0; i < SECCOMP_N_HAND_OVER; i++)
		if (!seccomp_policy_always_allows(pol, seccomp_hand_over_calls[i]))
			return false;
	return true;
}

const char *const seccomp_brokered_calls[SECCOMP_N_BROKERED] = { "connect", "io_uring_setup" };
const int seccomp_unix_dgram_types[SECCOMP_N_UNIX_DGRAM_TYPES] = { SOCK_DGRAM, SOCK_RAW };
static const char *const socket_calls[] = { "socket", "socketpair" };

static int append_notify(struct seccomp_policy *copy, const char *syscall, const char *source,
			 char *err, size_t errlen)
{
	struct seccomp_action notify = { .errnum = SECCOMP_ERRNO_NOTIFY };

	return seccomp_policy_append(copy, syscall, notify, source, err, errlen);
}

/* The calls the connect broker takes: every connect and io_uring_setup
 * the policy does not refuse outright; socket and socketpair too when
 * the policy has conditions on them (their unix datagram rules are
 * added to the filter when it allows them outright: add_dgram_rules). */
static int add_brokered(struct seccomp_policy *copy, const struct seccomp_policy *pol,
			char *err, size_t errlen)
{
	const char *source = "the connect broker";

	for (size_t i = 0; i < SECCOMP_N_BROKERED; i++)
		if (!seccomp_policy_refuses(pol, seccomp_brokered_calls[i]) &&
		    append_notify(copy, seccomp_brokered_calls[i], source, err, errlen) < 0)
			return -1;
	for (size_t i = 0; i < sizeof(socket_calls) / sizeof(socket_calls[0]); i++)
		if (!seccomp_policy_refuses(pol, socket_calls[i]) &&
		    !seccomp_policy_always_allows(pol, socket_calls[i]) &&
		    append_notify(copy, socket_calls[i], source, err, errlen) < 0)
			return -1;
	return 0;
}

/* socket(AF_UNIX, a datagram type) and socketpair(AF_UNIX, ...), and
 * both of AF_VSOCK, as notifications, where the policy allows both calls
 * outright.  Only the
 * low 32 bits of the int arguments are compared: the kernel reads no
 * more. */
static int add_dgram_rules(scmp_filter_ctx ctx, const struct seccomp_policy *pol)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(socket_calls) / sizeof(socket_calls[0]); i++) {
		if (!seccomp_policy_always_allows(pol, socket_calls[i]))
			continue;
		for (size_t k = 0; rc == 0 && k < SECCOMP_N_UNIX_DGRAM_TYPES; k++)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
					      seccomp_syscall_resolve_name(socket_calls[i]), 2,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffff, AF_UNIX),
					      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
						      (uint64_t)seccomp_unix_dgram_types[k]));
		/* vsock is in no network namespace: the host's and the
		 * hypervisor's ports, whatever the sandbox's network. */
		if (rc == 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY,
					      seccomp_syscall_resolve_name(socket_calls[i]), 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffff, AF_VSOCK));
	}
	return rc;
}

const char *const seccomp_learn_calls[SECCOMP_N_LEARN] = {
	"open", "creat", "openat", "openat2", "stat", "lstat", "newfstatat", "statx",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat", "execve", "execveat",
	"mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2",
	"chdir", "exit_group",
};

/* --learn's calls, notified where the policy allows them (the supervisor
 * lets each continue at once: learn.c); a name this architecture lacks
 * (open on aarch64) is skipped. */
static int add_learn(struct seccomp_policy *copy, const struct seccomp_policy *pol,
		     char *err, size_t errlen)
{
	for (size_t i = 0; i < SECCOMP_N_LEARN; i++)
		if (seccomp_syscall_resolve_name(seccomp_learn_calls[i]) >= 0 &&
		    !seccomp_policy_refuses(pol, seccomp_learn_calls[i]) &&
		    append_notify(copy, seccomp_learn_calls[i], "--learn", err, errlen) < 0)
			return -1;
	return 0;
}

/* NOTIFY: every refusal a notification, the hand-over calls allowed,
 * the connect broker's calls notified; LEARN: --learn's calls too. */
static struct seccomp_policy *notify_variant(const struct seccomp_policy *pol, bool learn,
					     char *err, size_t errlen)
{
	struct seccomp_policy *copy = seccomp_policy_copy(pol, true);
	struct seccomp_action allow = { .allow = true };

	if (!copy) {
		snprintf(err, errlen, "seccomp: filter: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < SECCOMP_N_HAND_OVER; i++)
		if (seccomp_policy_append(copy, seccomp_hand_over_calls[i], allow,
					  "the listener's hand-over", err, errlen) < 0) {
			seccomp_policy_free(copy);
			return NULL;
		}
	if (add_brokered(copy, pol, err, errlen) < 0 ||
	    (learn && add_learn(copy, pol, err, errlen) < 0)) {
		seccomp_policy_free(copy);
		return NULL;
	}
	return copy;
}

static int export_notify(const struct seccomp_policy *pol, const struct seccomp_policy *var,
			 struct sock_filter **prog, size_t *n, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if (seccomp_policy_build(var, &ctx, err, errlen) < 0)
		return -1;
	rc = add_dgram_rules(ctx, pol);
	if (rc < 0)
		snprintf(err, errlen, "seccomp: filter: unix datagram rules: libseccomp: %s",
			 strerror(-rc));
	else
		rc = export_bpf(ctx, prog, n, err, errlen);
	seccomp_release(ctx);
	return rc;
}

int seccomp_policy_export(const struct seccomp_policy *pol, enum seccomp_variant variant,
			  struct sock_filter **prog, size_t *n, char *err, size_t errlen)
{
	struct seccomp_policy *var = NULL;
	int rc;

	*prog = NULL;
	*n = 0;
	if (variant == SECCOMP_PLAIN)
		return export_policy(pol, prog, n, err, errlen);
	if (variant == SECCOMP_LATE && seccomp_hand_over_allowed(pol))
		return 0;
	if (variant == SECCOMP_NOTIFY || variant == SECCOMP_NOTIFY_LEARN)
		var = notify_variant(pol, variant == SECCOMP_NOTIFY_LEARN, err, errlen);
	else if (!(var = seccomp_policy_only(pol, seccomp_hand_over_calls, SECCOMP_N_HAND_OVER)))
		snprintf(err, errlen, "seccomp: filter: out of memory");
	if (!var)
		return -1;
	if (variant == SECCOMP_NOTIFY || variant == SECCOMP_NOTIFY_LEARN)
		rc = export_notify(pol, var, prog, n, err, errlen);
	else
		rc = export_policy(var, prog, n, err, errlen);
	seccomp_policy_free(var);
	return rc;
}
