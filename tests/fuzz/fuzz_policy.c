/* The seccomp policy grammar (sandbox/seccomp/seccomp_policy.c): the input is a
 * policy file's text, as --seccomp-policy FILE (or a profile's line) names it,
 * with `include` resolved through the shipped policies.  Parsing is pure
 * (fuzz.h's guards); an error is one line "seccomp: ..."; what parses
 * holds the grammar's promises, and what the decisions, the description
 * and the builder make of it agrees: a syscall the policy refuses whatever
 * its arguments is never allowed, one it always allows never refused. */
#include "fuzz.h"

#include <seccomp.h>

#include "seccomp/seccomp_policy.h"

#define MAX_INPUT (16 * 1024)
/* libseccomp's builder is slow next to the parser: it gets the smaller
 * policies (the shipped none and most that the fuzzer writes), and none
 * that names @newer (hundreds of syscalls, 0.2 s a build under ASan; the
 * unit tests and the build's own filters cover it). */
#define MAX_BUILT_RULES 48
#define MAX_ERRNO 4095

static void broken(const char *what)
{
	fprintf(stderr, "fuzz: the policy code broke its promise: %s\n", what);
	abort();
}

static void check_rule(const struct seccomp_rule *r)
{
	if (!r->syscall || !r->source || !seccomp_syscall_name_valid(r->syscall))
		broken("a rule without a valid syscall or source");
	if (!r->action.allow && (r->action.errnum < 1 || r->action.errnum > MAX_ERRNO))
		broken("a deny's errno out of 1..4095");
	if (r->cond.present && (r->cond.arg >= SECCOMP_ARGS || r->cond.mask == 0 ||
				(r->cond.value & ~r->cond.mask)))
		broken("a condition outside the grammar");
}

/* What the policy decides for the native syscall of rule R, with every
 * argument ARG, must agree with what it says of the syscall as a whole. */
static void check_decision(const struct seccomp_policy *pol, const struct seccomp_rule *r,
			   uint64_t arg)
{
	uint64_t args[SECCOMP_ARGS] = { arg, arg, arg, arg, arg, arg };
	const char *source = NULL;
	struct seccomp_action a;
	int nr = seccomp_syscall_resolve_name(r->syscall);

	if (nr < 0)
		return;
	a = seccomp_policy_decide(pol, nr, args, &source);
	if (!source)
		broken("a decision without the line that decides it");
	if (a.allow && seccomp_policy_refuses(pol, r->syscall))
		broken("a syscall refused whatever its arguments is allowed");
	if (!a.allow && seccomp_policy_always_allows(pol, r->syscall))
		broken("a syscall always allowed is refused");
	if (!seccomp_policy_source(pol, r->syscall))
		broken("a syscall the policy names has no deciding line");
}

static void check_summary(const struct seccomp_summary *sum, void *arg)
{
	(void)arg;
	if (!sum->syscall || !sum->note || !sum->source ||
	    (sum->n_exceptions && !sum->exceptions))
		broken("a summary with a field missing");
}

/* Build VARIANT of POL with libseccomp: it succeeds, or says why in one
 * line (e.g. exceptions with mixed actions). */
static void check_export(const struct seccomp_policy *pol, enum seccomp_variant variant)
{
	struct sock_filter *prog = NULL;
	size_t n = 0;
	char err[512];

	if (pol->n_rules > MAX_BUILT_RULES)
		return;
	for (size_t i = 0; i < pol->n_rules; i++)
		if (strcmp(pol->rules[i].syscall, SECCOMP_NEWER) == 0)
			return;
	err[0] = '\0';
	if (seccomp_policy_export(pol, variant, &prog, &n, err, sizeof(err)) < 0) {
		if (!err[0] || strchr(err, '\n'))
			broken("the builder failed without one line of error");
	} else if (!prog && (n != 0 || variant != SECCOMP_LATE)) {
		broken("the builder gave no program");
	}
	free(prog);
}

static void check_policy(struct seccomp_policy *pol, enum seccomp_variant variant)
{
	static const char *const pair[] = { "ioctl", "clone" };
	struct seccomp_policy *copy;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (!pol->default_source)
		broken("a policy without its default's line");
	for (size_t i = 0; i < pol->n_rules; i++) {
		check_rule(&pol->rules[i]);
		check_decision(pol, &pol->rules[i], 0);
		check_decision(pol, &pol->rules[i], pol->rules[i].cond.value);
	}
	out = open_memstream(&text, &len);
	if (out) {
		seccomp_policy_describe(pol, out);
		fclose(out);
	}
	free(text);
	seccomp_policy_summarize(pol, check_summary, NULL);
	(void)seccomp_policy_is_empty(pol);
	(void)seccomp_hand_over_allowed(pol);
	copy = seccomp_policy_copy(pol, true);
	if (copy && copy->n_rules != pol->n_rules)
		broken("a copy with another number of rules");
	seccomp_policy_free(copy);
	copy = seccomp_policy_only(pol, pair, 2);
	seccomp_policy_free(copy);
	check_export(pol, variant);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seccomp_policy *pol;
	char err[4096];

	if (size > MAX_INPUT)
		return -1;
	err[0] = '\0';
	fuzz_in_parse = 1;
	pol = seccomp_policy_parse("fuzz", (const char *)data, size, err, sizeof(err));
	fuzz_in_parse = 0;
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "seccomp_policy_parse: %s\n", pol ? "ok" : err);
	if (!pol) {
		if (strncmp(err, "seccomp: ", 9) != 0 || strchr(err, '\n'))
			broken("an error that is not one line \"seccomp: ...\"");
		return 0;
	}
	/* One variant an input: each build costs libseccomp milliseconds. */
	check_policy(pol, (enum seccomp_variant)(size % 3));
	seccomp_policy_free(pol);
	return 0;
}
