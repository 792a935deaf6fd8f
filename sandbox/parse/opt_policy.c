/* The options that confine and watch COMMAND: capabilities, seccomp
 * (hutch's policies and rules, bwrap's BPF fds), SELinux labels,
 * resource limits, timeouts, reports, the network allow-list and the
 * Landlock fallback. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "host/host.h"
#include "plan/plan.h"
#include "options.h"
#include "seccomp/seccomp.h"
#include "lib/lib.h"

static int set_cap(struct apply_ctx *a, bool add)
{
	struct plan *plan = a->plan;
	int cap = policy_cap_from_name(a->rec->args[0]);
	unsigned long long bits;

	if (cap == -1)
		return opt_fail(a, "unknown cap: %s", a->rec->args[0]);
	bits = cap == -2 ? ~0ULL : 1ULL << cap;
	plan->caps_given = true;
	if (add) {
		plan->caps_add |= bits;
		plan->caps_drop &= ~bits;
	} else {
		plan->caps_drop |= bits;
		plan->caps_add &= ~bits;
	}
	return 0;
}

int opt_cap_add(struct apply_ctx *a) { return set_cap(a, true); }
int opt_cap_drop(struct apply_ctx *a) { return set_cap(a, false); }

int opt_seccomp_policy(struct apply_ctx *a)
{
	const char *policy = a->rec->args[0];

	/* A policy file that is not there fails here, where the line that
	 * named it is known. */
	if (strchr(policy, '/') && access(policy, R_OK) < 0)
		return opt_fail(a, "%s: %s", policy, strerror(errno));
	opt_replace_str(&a->plan->seccomp_policy, policy);
	return 0;
}

static int add_syscall_rule(struct apply_ctx *a, bool allow)
{
	struct plan *plan = a->plan;
	char *name = xstrdup(a->rec->args[0]);
	char *colon = strchr(name, ':');
	struct syscall_rule *r;
	int errnum = EPERM;

	if (colon) {
		*colon = '\0';
		errnum = allow ? -1 : seccomp_errno_from_name(colon + 1);
		if (errnum < 0) {
			free(name);
			return opt_fail(a, "--seccomp-deny: unknown errno %s", a->rec->args[0]);
		}
	}
	if (!policy_syscall_known(name)) {
		opt_fail(a, "unknown syscall %s", name);
		free(name);
		return -1;
	}
	plan->syscall_rules = xreallocarray(plan->syscall_rules, plan->n_syscall_rules + 1,
					    sizeof(*plan->syscall_rules));
	r = &plan->syscall_rules[plan->n_syscall_rules++];
	r->name = name;
	r->allow = allow;
	r->errnum = allow ? 0 : errnum;
	return 0;
}

int opt_seccomp_deny(struct apply_ctx *a) { return add_syscall_rule(a, false); }
int opt_seccomp_allow(struct apply_ctx *a) { return add_syscall_rule(a, true); }

/* --allow-nested: the policy's "Nesting" rules, as --seccomp-allow
 * would add them (those this architecture lacks are left out).  Safe
 * only because COMMAND holds no capability where its mounts are: a
 * mount succeeds only in a user namespace it makes, over mounts the
 * kernel keeps locked; what stays is the kernel's mount code as attack
 * surface, which is why no shipped profile says it. */
int opt_allow_nested(struct apply_ctx *a)
{
	struct plan *plan = a->plan;

	if (plan->allow_nested)
		return 0;
	plan->allow_nested = true;
	for (size_t i = 0; nested_syscalls[i]; i++) {
		struct syscall_rule *r;

		if (!policy_syscall_known(nested_syscalls[i]))
			continue;
		plan->syscall_rules = xreallocarray(plan->syscall_rules, plan->n_syscall_rules + 1,
						    sizeof(*plan->syscall_rules));
		r = &plan->syscall_rules[plan->n_syscall_rules++];
		*r = (struct syscall_rule){ .name = xstrdup(nested_syscalls[i]), .allow = true };
	}
	return 0;
}

/* bwrap's --seccomp (ONCE: a later one replaces it) and --add-seccomp-fd
 * (repeatable), which do not mix. */
static int add_seccomp_fd(struct apply_ctx *a, bool once)
{
	struct plan *plan = a->plan;
	int fd = -1;

	if (once && !plan->seccomp_fd_given && plan->n_seccomp_fds > 0)
		return opt_fail(a, "--seccomp cannot be combined with --add-seccomp-fd");
	if (!once && plan->seccomp_fd_given)
		return opt_fail(a, "--add-seccomp-fd cannot be combined with --seccomp");
	if (opt_parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	if (once && plan->seccomp_fd_given) {
		plan_warn(plan, "Only the last --seccomp option will take effect");
		plan->seccomp_fds[0] = fd;
		return 0;
	}
	plan->seccomp_fd_given |= once;
	plan->seccomp_fds = xreallocarray(plan->seccomp_fds, plan->n_seccomp_fds + 1,
					  sizeof(int));
	plan->seccomp_fds[plan->n_seccomp_fds++] = fd;
	return 0;
}

int opt_seccomp(struct apply_ctx *a) { return add_seccomp_fd(a, true); }
int opt_add_seccomp_fd(struct apply_ctx *a) { return add_seccomp_fd(a, false); }

int opt_seccomp_log(struct apply_ctx *a)
{
	a->plan->seccomp_log = true;
	return 0;
}

int opt_exec_label(struct apply_ctx *a) { return opt_set_once_str(a, &a->plan->exec_label); }
int opt_file_label(struct apply_ctx *a) { return opt_set_once_str(a, &a->plan->file_label); }

static const struct { const char *name; int resource; } rlimit_names[] = {
	{ "as", RLIMIT_AS }, { "core", RLIMIT_CORE }, { "cpu", RLIMIT_CPU },
	{ "data", RLIMIT_DATA }, { "fsize", RLIMIT_FSIZE },
	{ "locks", RLIMIT_LOCKS }, { "memlock", RLIMIT_MEMLOCK },
	{ "msgqueue", RLIMIT_MSGQUEUE }, { "nice", RLIMIT_NICE },
	{ "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC },
	{ "rss", RLIMIT_RSS }, { "rtprio", RLIMIT_RTPRIO },
	{ "rttime", RLIMIT_RTTIME }, { "sigpending", RLIMIT_SIGPENDING },
	{ "stack", RLIMIT_STACK },
};

static int rlimit_resource(const char *name)
{
	int resource = -1;

	for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
		if (strcasecmp(rlimit_names[i].name, name) == 0)
			resource = rlimit_names[i].resource;
	return resource;
}

/* NAME=SOFT[:HARD] into R; SPEC is cut up.  Returns 0 or -1. */
static int parse_rlimit(char *spec, struct rlimit_setting *r)
{
	char *eq = strchr(spec, '='), *colon;

	if (!eq)
		return -1;
	*eq = '\0';
	colon = strchr(eq + 1, ':');
	if (colon)
		*colon = '\0';
	r->resource = rlimit_resource(spec);
	if (r->resource >= 0 && parse_amount(eq + 1, &r->soft) == 0 &&
	    parse_amount(colon ? colon + 1 : eq + 1, &r->hard) == 0 && r->soft <= r->hard)
		return 0;
	return -1;
}

int opt_rlimit(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	char *spec = xstrdup(a->rec->args[0]);
	struct rlimit_setting r = { .resource = -1 };
	int ok = parse_rlimit(spec, &r);

	free(spec);
	if (ok < 0)
		return opt_fail(a, "--rlimit %s: expected NAME=SOFT[:HARD] with a known NAME "
				"(as core cpu data fsize locks memlock msgqueue nice nofile nproc rss "
				"rtprio rttime sigpending stack) and SOFT <= HARD", a->rec->args[0]);
	r.origin = xstrdup(a->rec->origin);
	plan->rlimits = xreallocarray(plan->rlimits, plan->n_rlimits + 1, sizeof(r));
	plan->rlimits[plan->n_rlimits++] = r;
	return 0;
}

int opt_pids(struct apply_ctx *a)
{
	struct plan *plan = a->plan;

	opt_replace_str(&plan->pids_origin, a->rec->origin);
	/* 0 is no limit, so that a later option can undo a profile's. */
	plan->pids = parse_uint(a->rec->args[0], 1 << 22);
	return plan->pids >= 0 ? 0 : opt_fail(a, "--pids: not a count: %s", a->rec->args[0]);
}

static int set_bytes(struct apply_ctx *a, unsigned long long *field)
{
	if (parse_amount(a->rec->args[0], field) < 0)
		return opt_fail(a, "--%s: not an amount of bytes: %s", a->rec->spec->name,
				a->rec->args[0]);
	return 0;
}

int opt_memory(struct apply_ctx *a) { return set_bytes(a, &a->plan->memory); }
int opt_memory_swap(struct apply_ctx *a) { return set_bytes(a, &a->plan->memory_swap); }

int opt_cpu(struct apply_ctx *a)
{
	double v = parse_seconds(a->rec->args[0]);

	if (v <= 0)
		return opt_fail(a, "--cpu: not a fraction of a CPU: %s", a->rec->args[0]);
	a->plan->cpu = v;
	return 0;
}

/* --timeout, --kill-after, --teardown-deadline (POSITIVE: more than 0). */
static int set_seconds(struct apply_ctx *a, bool positive, double *out)
{
	double v = parse_duration(a->rec->args[0]);

	if (v < 0 || (positive && v == 0))
		return opt_fail(a, "--%s: not a duration%s (seconds, or with s, m, h or d): %s",
				a->rec->spec->name, positive ? " above 0" : "", a->rec->args[0]);
	*out = v;
	return 0;
}

int opt_timeout(struct apply_ctx *a) { return set_seconds(a, false, &a->plan->timeout); }
int opt_kill_after(struct apply_ctx *a) { return set_seconds(a, false, &a->plan->kill_after); }

/* 0 would end every run in "did not exit" at once. */
int opt_teardown_deadline(struct apply_ctx *a)
{
	return set_seconds(a, true, &a->plan->teardown_deadline);
}

int opt_report(struct apply_ctx *a)
{
	opt_replace_str(&a->plan->report_path, a->rec->args[0]);
	return 0;
}

int opt_report_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->report_fd); }

int opt_learn(struct apply_ctx *a)
{
	opt_replace_str(&a->plan->learn_path, a->rec->args[0]);
	return 0;
}

int opt_fallback(struct apply_ctx *a)
{
	const char *arg = a->rec->args[0];

	if (strcmp(arg, "landlock") == 0)
		a->plan->fallback = FALLBACK_LANDLOCK;
	else if (strcmp(arg, "none") == 0)
		a->plan->fallback = FALLBACK_NONE;
	else
		return opt_fail(a, "--fallback: unknown mode %s (landlock or none)", arg);
	return 0;
}

int opt_allow_net(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	struct net_rule rule;
	char why[256];

	if (netrule_parse(a->rec->args[0], a->rec->origin, &rule, why, sizeof(why)) < 0)
		return opt_fail(a, "--allow-net %s: %s", a->rec->args[0], why);
	plan->net_rules = xreallocarray(plan->net_rules, plan->n_net_rules + 1, sizeof(rule));
	plan->net_rules[plan->n_net_rules++] = rule;
	return 0;
}
