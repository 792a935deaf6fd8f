/* What a text seccomp policy decides: for one syscall, the action when
 * no conditional rule matches and the exceptions; for a syscall number
 * and its arguments, the action (the supervisor's answer to a
 * notification); and the policy in words for --explain. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp_decide.h"
#include "seccomp_policy.h"

bool seccomp_same_action(struct seccomp_action a, struct seccomp_action b)
{
	return a.allow == b.allow && (a.allow || a.errnum == b.errnum);
}

void seccomp_decide(const struct seccomp_policy *pol, const char *syscall,
		   struct seccomp_decision *d)
{
	d->base = pol->default_action;
	d->base_source = pol->default_source;
	d->n_exceptions = 0;
	d->too_many = false;
	for (size_t i = 0; i < pol->n_rules; i++) {
		const struct seccomp_rule *rule = &pol->rules[i];

		if (strcmp(rule->syscall, syscall) != 0)
			continue;
		if (!rule->cond.present) {
			d->base = rule->action;
			d->base_source = rule->source;
			d->n_exceptions = 0;
		} else if (d->n_exceptions == MAX_EXCEPTIONS) {
			d->too_many = true;
		} else {
			d->exceptions[d->n_exceptions++] = rule;
		}
	}
}

/* Do the exceptions change anything, i.e. is their action not the base's? */
bool seccomp_exceptions_matter(const struct seccomp_decision *d)
{
	return d->n_exceptions > 0 &&
	       !seccomp_same_action(d->exceptions[0]->action, d->base);
}

bool seccomp_policy_refuses(const struct seccomp_policy *pol,
			    const char *syscall)
{
	struct seccomp_decision d;

	seccomp_decide(pol, syscall, &d);
	if (d.base.allow || d.too_many)
		return false;
	for (size_t i = 0; i < d.n_exceptions; i++)
		if (d.exceptions[i]->action.allow)
			return false;
	return true;
}

const char *seccomp_policy_source(const struct seccomp_policy *pol,
				  const char *syscall)
{
	struct seccomp_decision d;

	seccomp_decide(pol, syscall, &d);
	return d.base_source;
}

bool seccomp_policy_always_allows(const struct seccomp_policy *pol,
				  const char *syscall)
{
	struct seccomp_decision d;

	seccomp_decide(pol, syscall, &d);
	return d.base.allow && !seccomp_exceptions_matter(&d) && !d.too_many;
}

static bool cond_matches(const struct seccomp_cond *cond,
			 const uint64_t args[SECCOMP_ARGS])
{
	return (args[cond->arg] & cond->mask) == cond->value;
}

int seccomp_newer_first(void)
{
	static int first = -1;	/* libseccomp's table never changes */

	if (first >= 0)
		return first;
	first = 0;
	for (int nr = 0; nr <= SECCOMP_NEWER_LAST; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
							      nr);
		if (name)
			first = nr + 1;
		free(name);
	}
	return first;
}

/* The name rules use for native syscall NR: its own, @newer or NULL. */
static char *rule_name(int nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	if (!name && nr >= seccomp_newer_first() && nr <= SECCOMP_NEWER_LAST)
		name = strdup(SECCOMP_NEWER);
	return name;
}

struct seccomp_action seccomp_policy_decide(const struct seccomp_policy *pol,
					    int nr,
					    const uint64_t args[SECCOMP_ARGS],
					    const char **source)
{
	char *name = rule_name(nr);
	struct seccomp_decision d;

	if (!name) {
		*source = pol->default_source;
		return pol->default_action;
	}
	seccomp_decide(pol, name, &d);
	free(name);
	*source = d.base_source;
	if (!seccomp_exceptions_matter(&d))
		return d.base;
	for (size_t i = 0; i < d.n_exceptions; i++) {
		if (cond_matches(&d.exceptions[i]->cond, args)) {
			*source = d.exceptions[i]->source;
			return d.exceptions[i]->action;
		}
	}
	return d.base;
}

/* Is rule I the first one naming its syscall? */
bool seccomp_first_for_syscall(const struct seccomp_policy *pol, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(pol->rules[j].syscall, pol->rules[i].syscall) == 0)
			return false;
	return true;
}

/* Does the decision for SYSCALL add nothing to the default action? */
static bool decides_default(const struct seccomp_policy *pol, const char *syscall)
{
	struct seccomp_decision d;

	seccomp_decide(pol, syscall, &d);
	if (seccomp_exceptions_matter(&d) || d.too_many)
		return false;
	return seccomp_same_action(d.base, pol->default_action);
}

bool seccomp_policy_is_empty(const struct seccomp_policy *pol)
{
	if (!pol->default_action.allow)
		return false;
	for (size_t i = 0; i < pol->n_rules; i++)
		if (seccomp_first_for_syscall(pol, i) &&
		    !decides_default(pol, pol->rules[i].syscall))
			return false;
	return true;
}

/* ---- the policy in words, for --explain ---- */

static void describe_action(struct seccomp_action action, FILE *out)
{
	const char *name;

	if (action.allow) {
		fputs("allowed", out);
		return;
	}
	name = strerrorname_np(action.errnum);
	if (name)
		fprintf(out, "refused with %s (%s)", name,
			strerror(action.errnum));
	else
		fprintf(out, "refused with errno %d", action.errnum);
}

static void describe_cond(const struct seccomp_cond *cond, FILE *out)
{
	if (cond->mask == UINT64_MAX)
		fprintf(out, "arg%u == 0x%" PRIx64, cond->arg, cond->value);
	else
		fprintf(out, "arg%u & 0x%" PRIx64 " == 0x%" PRIx64, cond->arg,
			cond->mask, cond->value);
}

/* What the name stands for, when it is not a syscall of this machine. */
static const char *name_note(const char *syscall, char *buf, size_t len)
{
	if (strcmp(syscall, SECCOMP_NEWER) == 0) {
		snprintf(buf, len, " (syscalls %d to %d, newer than this "
			 "build)", seccomp_newer_first(), SECCOMP_NEWER_LAST);
		return buf;
	}
	if (seccomp_syscall_resolve_name(syscall) < 0)
		return " (not on this architecture: no effect)";
	return "";
}

void seccomp_policy_summarize(const struct seccomp_policy *pol, seccomp_summary_fn fn,
			      void *arg)
{
	struct seccomp_summary sum;
	char note[96];
	struct seccomp_decision d;

	for (size_t i = 0; i < pol->n_rules; i++) {
		const char *syscall = pol->rules[i].syscall;

		if (!seccomp_first_for_syscall(pol, i) || decides_default(pol, syscall))
			continue;
		seccomp_decide(pol, syscall, &d);
		sum = (struct seccomp_summary){
			.syscall = syscall,
			.note = name_note(syscall, note, sizeof note),
			.action = d.base,
			.source = d.base_source,
			.exceptions = seccomp_exceptions_matter(&d) ? d.exceptions : NULL,
			.n_exceptions = seccomp_exceptions_matter(&d) ? d.n_exceptions : 0,
		};
		fn(&sum, arg);
	}
}

/* "  NAME: ACTION (SOURCE), but ACTION when COND (SOURCE) or when ..." */
static void describe_syscall(const struct seccomp_summary *sum, void *arg)
{
	FILE *out = arg;

	fprintf(out, "  %s%s: ", sum->syscall, sum->note);
	describe_action(sum->action, out);
	fprintf(out, " (%s)", sum->source);
	for (size_t i = 0; i < sum->n_exceptions; i++) {
		if (i == 0) {
			fputs(", but ", out);
			describe_action(sum->exceptions[0]->action, out);
		}
		fputs(i == 0 ? " when " : " or when ", out);
		describe_cond(&sum->exceptions[i]->cond, out);
		fprintf(out, " (%s)", sum->exceptions[i]->source);
	}
	fputc('\n', out);
}

void seccomp_policy_describe(const struct seccomp_policy *pol, FILE *out)
{
	if (seccomp_policy_is_empty(pol)) {
		fprintf(out, "  every syscall: allowed, no filter is loaded "
			"(%s)\n", pol->default_source);
		return;
	}
	fputs("  any syscall not named below: ", out);
	describe_action(pol->default_action, out);
	fprintf(out, " (%s)\n", pol->default_source);
	seccomp_policy_summarize(pol, describe_syscall, out);
	fputs("  a syscall of another ABI (i386 int 0x80, x32): kills the "
	      "process\n", out);
}
