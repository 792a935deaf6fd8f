#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "resource_limits.h"
#include "cwd.h"
#include "explain.h"
#include "landlock.h"
#include "netrule.h"
#include "policy.h"
#include "seccomp_policy.h"
#include "util.h"


static const struct { int flag; const char *name; } namespaces[] = {
	{ CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mount" }, { CLONE_NEWPID, "pid" },
	{ CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" }, { CLONE_NEWNET, "net" },
	{ CLONE_NEWCGROUP, "cgroup" },
};

static void explain_namespaces(const struct plan *plan, FILE *out)
{
	fprintf(out, "namespaces:");
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++)
		if (plan->clone_flags & namespaces[i].flag)
			fprintf(out, " %s", namespaces[i].name);
	fprintf(out, "%s\n", plan->share_net ? " (network shared)" : "");
}

static void explain_op(const struct fs_op *op, FILE *out)
{
	fprintf(out, "  %-10s", plan_op_name(op->kind));
	if (op->src)
		fprintf(out, " %s ->", op->src);
	if (op->fd >= 0)
		fprintf(out, " fd %d ->", op->fd);
	fprintf(out, " %s", op->dest);
	if (op->flags & FS_READONLY)
		fprintf(out, " read-only");
	if (op->flags & FS_DEVICES)
		fprintf(out, " devices");
	if (op->flags & FS_TRY)
		fprintf(out, " if-present");
	if (op->has_perms)
		fprintf(out, " mode %04o", (unsigned)op->perms);
	if (op->size)
		fprintf(out, " size %llu", op->size);
	fprintf(out, "    (%s)\n", op->origin);
}

/* The current directory's bind, in words: it hides what lay at its path
 * on the mount it lands on, and nothing else (parse refuses a bind that
 * would cover a mount made before it, cwd.c). */
static void explain_cwd(const struct plan *plan, size_t i, FILE *out)
{
	const struct fs_op *on = cwd_lands_on(plan, i);

	fprintf(out, "             the current directory: covers %s ", plan->ops[i].dest);
	if (on)
		fprintf(out, "on the %s %s (%s), and nothing else\n", plan_op_name(on->kind),
			on->dest, on->origin);
	else
		fprintf(out, "on the sandbox's root tmpfs, and nothing else\n");
}

static void explain_process(const struct plan *plan, FILE *out)
{
	fprintf(out, "ids: uid %u gid %u\n", (unsigned)plan->uid, (unsigned)plan->gid);
	if (plan->hostname)
		fprintf(out, "hostname: %s\n", plan->hostname);
	fprintf(out, "working directory: %s\n", plan->chdir ? plan->chdir : "(the caller's, if present)");
	fprintf(out, "environment:\n");
	for (size_t i = 0; i < plan->n_env; i++)
		fprintf(out, "  %s\n", plan->env[i]);
	fprintf(out, "new session: %s; dies with parent: %s; pid 1: %s\n",
		plan->new_session ? "yes" : "no", plan->die_with_parent ? "yes" : "no",
		plan->as_pid_1 ? "COMMAND" : (plan->clone_flags & CLONE_NEWPID) ?
		"hutch init (sealed memfd)" : "none (no pid namespace)");
}

/* The seccomp policy, command-line rules included, in words. */
static void explain_seccomp(const struct plan *plan, FILE *out)
{
	struct seccomp_policy *pol = NULL;
	char err[1024];

	if (!plan->seccomp_policy) {
		fprintf(out, "seccomp policy: none\n");
		return;
	}
	fprintf(out, "seccomp policy: %s\n", plan->seccomp_policy);
	if (policy_load(plan, &pol, err, sizeof(err)) < 0) {
		fprintf(out, "  cannot be read: %s\n", err);
		return;
	}
	seccomp_policy_describe(pol, out);
	if (plan->mode == MODE_HUTCH && !seccomp_policy_is_empty(pol))
		fprintf(out, "  refused calls: answered by hutch, which counts them "
			"(--report FILE: one line each)%s\n", plan->seccomp_log ?
			"; also logged by the kernel" : "");
	seccomp_policy_free(pol);
}

static void explain_policy(const struct plan *plan, FILE *out)
{
	explain_seccomp(plan, out);
	fprintf(out, "capabilities: none");
	for (int cap = 0; cap < 64; cap++)
		if (plan->caps_add & (1ULL << cap))
			fprintf(out, " +%d", cap);
	fprintf(out, "; no_new_privs: yes\n");
	fprintf(out, "fds: 0 1 2");
	for (size_t i = 0; i < plan->n_pass_fds; i++)
		fprintf(out, " %d", plan->pass_fds[i]);
	fprintf(out, "%s\n", plan->mode == MODE_BWRAP ? " and every inherited fd" : "; all others closed");
	if (plan->timeout > 0)
		fprintf(out, "timeout: %gs, ", plan->timeout);
	fprintf(out, "kill after: %gs, teardown deadline: %gs\n", plan->kill_after,
		plan->teardown_deadline);
}

static void explain_rlimit(const struct rlimit_setting *r, FILE *out)
{
	char soft[32], hard[32];

	limits_format_rlimit(r->resource, r->soft, soft, sizeof(soft));
	limits_format_rlimit(r->resource, r->hard, hard, sizeof(hard));
	fprintf(out, "  rlimit %s %s", limits_rlimit_name(r->resource), soft);
	if (r->hard != r->soft)
		fprintf(out, ", hard %s", hard);
	fprintf(out, "    (%s)\n", r->origin);
}

static void explain_cgroup_limits(const struct plan *plan, FILE *out)
{
	char v[32];

	char how[4800];

	if (plan->pids > 0) {
		limits_pids_enforced(plan, how, sizeof(how));
		fprintf(out, "  pids %lld: %s    (%s)\n", plan->pids, how,
			plan->pids_origin ? plan->pids_origin : "?");
	}
	limits_format_bytes(plan->memory, v, sizeof(v));
	if (plan->memory)
		fprintf(out, "  memory %s: cgroup v2 memory.max (an error where none is usable)\n", v);
	limits_format_bytes(plan->memory_swap, v, sizeof(v));
	if (plan->memory_swap)
		fprintf(out, "  memory-swap %s: cgroup v2 memory.swap.max\n", v);
	limits_cpu_max(plan->cpu, v, sizeof(v));
	if (plan->cpu > 0)
		fprintf(out, "  cpu %g of one CPU: cgroup v2 cpu.max \"%s\"\n", plan->cpu, v);
}

/* Each limit, in force for COMMAND, and where it came from. */
static void explain_limits(const struct plan *plan, FILE *out)
{
	bool any = plan->n_rlimits || plan->pids || plan->memory || plan->memory_swap ||
		   plan->cpu > 0;

	fprintf(out, "limits:%s\n", any ? "" : " none (the caller's rlimits)");
	for (size_t i = 0; i < plan->n_rlimits; i++)
		explain_rlimit(&plan->rlimits[i], out);
	explain_cgroup_limits(plan, out);
}

static const char *const net_kind_names[] = {
	[NET_HOST_NAME] = "name", [NET_HOST_WILDCARD] = "wildcard", [NET_HOST_ADDR] = "address",
};

/* --allow-net: the proxy, and each rule with where it came from. */
static void explain_net(const struct plan *plan, FILE *out)
{
	if (plan->n_net_rules == 0)
		return;
	fprintf(out, "network: only through hutch's proxy at 127.0.0.1:%d and [::1]:%d "
		"(HTTP CONNECT, plain http://, SOCKS5; HTTP_PROXY, HTTPS_PROXY and their "
		"lowercase forms name it), to:\n", NET_PROXY_PORT, NET_PROXY_PORT);
	for (size_t i = 0; i < plan->n_net_rules; i++) {
		const struct net_rule *r = &plan->net_rules[i];

		fprintf(out, "  %-8s %s    (%s)\n", net_kind_names[r->kind], r->text, r->origin);
	}
	fprintf(out, "  names are resolved by hutch on the host; a name never reaches a loopback, "
		"link-local, metadata or this host's own address\n");
}

static void explain_protect(const struct plan *plan, FILE *out)
{
	if (plan->n_protect == 0)
		return;
	fprintf(out, "protected, read-only after every other mount (where missing: an empty "
		"read-only placeholder):\n");
	for (size_t i = 0; i < plan->n_protect; i++)
		fprintf(out, "  %s    (%s)\n", plan->protect[i].path, plan->protect[i].origin);
}

/* ---- --explain=json: the same plan as one JSON document ---- */

static void json_key(FILE *out, const char *key, bool first)
{
	fprintf(out, "%s\n  ", first ? "" : ",");
	json_fputs(out, key);
	fputs(": ", out);
}

static void json_strings(FILE *out, char *const *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n && v[i]; i++) {
		fputs(i ? ", " : "", out);
		json_fputs(out, v[i]);
	}
	fputc(']', out);
}

/* , "current-directory": {"covers": DEST, "on": DEST-or-null} */
static void json_cwd(const struct plan *plan, size_t i, FILE *out)
{
	const struct fs_op *on = cwd_lands_on(plan, i);

	fputs(", \"current-directory\": {\"covers\": ", out);
	json_fputs(out, plan->ops[i].dest);
	fputs(", \"on\": ", out);
	if (on)
		json_fputs(out, on->dest);
	else
		fputs("null", out);
	fputc('}', out);
}

static void json_op(const struct plan *plan, size_t i, FILE *out)
{
	const struct fs_op *op = &plan->ops[i];

	fputs("{\"op\": ", out);
	json_fputs(out, plan_op_name(op->kind));
	if (op->src) {
		fputs(", \"source\": ", out);
		json_fputs(out, op->src);
	}
	if (op->fd >= 0)
		fprintf(out, ", \"fd\": %d", op->fd);
	fputs(", \"dest\": ", out);
	json_fputs(out, op->dest);
	fprintf(out, ", \"read-only\": %s, \"devices\": %s, \"if-present\": %s",
		op->flags & FS_READONLY ? "true" : "false",
		op->flags & FS_DEVICES ? "true" : "false", op->flags & FS_TRY ? "true" : "false");
	if (op->has_perms)
		fprintf(out, ", \"mode\": \"%04o\"", (unsigned)op->perms);
	if (op->size)
		fprintf(out, ", \"size\": %llu", op->size);
	fputs(", \"origin\": ", out);
	json_fputs(out, op->origin);
	if (op->flags & FS_CWD)
		json_cwd(plan, i, out);
	fputc('}', out);
}

static void json_filesystem(const struct plan *plan, FILE *out)
{
	json_key(out, "filesystem", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_ops; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_op(plan, i, out);
	}
	fputs("]", out);
}

static void json_namespaces(const struct plan *plan, FILE *out)
{
	bool first = true;

	json_key(out, "namespaces", false);
	fputc('[', out);
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++)
		if (plan->clone_flags & namespaces[i].flag) {
			fputs(first ? "" : ", ", out);
			json_fputs(out, namespaces[i].name);
			first = false;
		}
	fputc(']', out);
}

static void json_action(struct seccomp_action action, FILE *out)
{
	const char *name = action.allow ? NULL : strerrorname_np(action.errnum);

	if (action.allow)
		fputs("\"action\": \"allow\"", out);
	else if (name)
		fprintf(out, "\"action\": \"deny\", \"errno\": \"%s\"", name);
	else
		fprintf(out, "\"action\": \"deny\", \"errno\": %d", action.errnum);
}

struct json_walk {
	FILE *out;
	bool first;
};

/* {"syscall": ..., "action": ..., "source": ..., "exceptions": [...]} */
static void json_syscall(const struct seccomp_summary *sum, void *arg)
{
	struct json_walk *w = arg;
	FILE *out = w->out;

	fputs(w->first ? "\n    {\"syscall\": " : ",\n    {\"syscall\": ", out);
	w->first = false;
	json_fputs(out, sum->syscall);
	fputs(", ", out);
	json_action(sum->action, out);
	fputs(", \"source\": ", out);
	json_fputs(out, sum->source);
	fputs(", \"exceptions\": [", out);
	for (size_t i = 0; i < sum->n_exceptions; i++) {
		const struct seccomp_rule *e = sum->exceptions[i];

		fprintf(out, "%s{", i ? ", " : "");
		json_action(e->action, out);
		fprintf(out, ", \"arg\": %u, \"mask\": \"0x%llx\", \"value\": \"0x%llx\", "
			"\"source\": ", e->cond.arg, (unsigned long long)e->cond.mask,
			(unsigned long long)e->cond.value);
		json_fputs(out, e->source);
		fputc('}', out);
	}
	fputs("]}", out);
}

/* The policy as the filter applies it: its default, and every syscall
 * it treats otherwise, as --explain says in words. */
static void json_seccomp(const struct plan *plan, FILE *out)
{
	struct seccomp_policy *pol = NULL;
	struct json_walk walk = { .out = out, .first = true };
	char err[1024];

	json_key(out, "seccomp", false);
	if (!plan->seccomp_policy) {
		fputs("null", out);
		return;
	}
	if (policy_load(plan, &pol, err, sizeof(err)) < 0) {
		fputs("{\"error\": ", out);
		json_fputs(out, err);
		fputc('}', out);
		return;
	}
	fprintf(out, "{\"filter\": %s, \"default\": {",
		seccomp_policy_is_empty(pol) ? "false" : "true");
	json_action(pol->default_action, out);
	fputs(", \"source\": ", out);
	json_fputs(out, pol->default_source);
	fputs("}, \"other-abis\": \"kill-process\", \"syscalls\": [", out);
	seccomp_policy_summarize(pol, json_syscall, &walk);
	fputs(walk.first ? "]}" : "\n  ]}", out);
	seccomp_policy_free(pol);
}

static void json_policy(const struct plan *plan, FILE *out)
{
	json_key(out, "seccomp-policy", false);
	json_fputs(out, plan->seccomp_policy ? plan->seccomp_policy : "none");
	json_seccomp(plan, out);
	json_key(out, "seccomp-rules", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_syscall_rules; i++)
		fprintf(out, "%s{\"syscall\": \"%s\", \"action\": \"%s\", \"errno\": %d}",
			i ? ", " : "", plan->syscall_rules[i].name,
			plan->syscall_rules[i].allow ? "allow" : "deny", plan->syscall_rules[i].errnum);
	fputc(']', out);
	json_key(out, "capabilities-added", false);
	fprintf(out, "\"0x%llx\"", plan->caps_add & ~plan->caps_drop);
	json_key(out, "no-new-privs", false);
	fputs("true", out);
}

static void json_limits(const struct plan *plan, FILE *out)
{
	char buf[64];

	json_key(out, "rlimits", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_rlimits; i++) {
		const struct rlimit_setting *r = &plan->rlimits[i];

		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		json_fputs(out, limits_rlimit_name(r->resource));
		limits_format_rlimit(r->resource, r->soft, buf, sizeof(buf));
		fputs(", \"soft\": ", out);
		json_fputs(out, buf);
		limits_format_rlimit(r->resource, r->hard, buf, sizeof(buf));
		fputs(", \"hard\": ", out);
		json_fputs(out, buf);
		fputs(", \"origin\": ", out);
		json_fputs(out, r->origin);
		fputc('}', out);
	}
	fputc(']', out);
	json_key(out, "pids", false);
	fprintf(out, "%lld", plan->pids);
	json_key(out, "memory", false);
	fprintf(out, "%llu", plan->memory);
	json_key(out, "memory-swap", false);
	fprintf(out, "%llu", plan->memory_swap);
	json_key(out, "cpu", false);
	fprintf(out, "%g", plan->cpu);
}

static void json_process(const struct plan *plan, FILE *out)
{
	json_key(out, "uid", false);
	fprintf(out, "%u", (unsigned)plan->uid);
	json_key(out, "gid", false);
	fprintf(out, "%u", (unsigned)plan->gid);
	json_key(out, "hostname", false);
	if (plan->hostname)
		json_fputs(out, plan->hostname);
	else
		fputs("null", out);
	json_key(out, "chdir", false);
	json_fputs(out, plan->chdir ? plan->chdir : "");
	json_key(out, "environment", false);
	json_strings(out, plan->env, plan->n_env);
	json_key(out, "new-session", false);
	fputs(plan->new_session ? "true" : "false", out);
	json_key(out, "die-with-parent", false);
	fputs(plan->die_with_parent ? "true" : "false", out);
	json_key(out, "as-pid-1", false);
	fputs(plan->as_pid_1 ? "true" : "false", out);
	json_key(out, "pass-fds", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_pass_fds; i++)
		fprintf(out, "%s%d", i ? ", " : "", plan->pass_fds[i]);
	fputc(']', out);
}

static void json_net(const struct plan *plan, FILE *out)
{
	json_key(out, "allow-net", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_net_rules; i++) {
		const struct net_rule *r = &plan->net_rules[i];

		fputs(i ? ", {\"rule\": " : "{\"rule\": ", out);
		json_fputs(out, r->text);
		fputs(", \"kind\": ", out);
		json_fputs(out, net_kind_names[r->kind]);
		fprintf(out, ", \"port\": %d, \"origin\": ", r->port);
		json_fputs(out, r->origin);
		fputc('}', out);
	}
	fputc(']', out);
	json_key(out, "proxy", false);
	if (plan->n_net_rules)
		fprintf(out, "{\"url\": \"http://127.0.0.1:%d\", \"listen\": [\"127.0.0.1:%d\", "
			"\"[::1]:%d\"], \"protocols\": [\"connect\", \"http\", \"socks5\"]}",
			NET_PROXY_PORT, NET_PROXY_PORT, NET_PROXY_PORT);
	else
		fputs("null", out);
	json_key(out, "protect", false);
	fputc('[', out);
	for (size_t i = 0; i < plan->n_protect; i++) {
		fputs(i ? ", {\"path\": " : "{\"path\": ", out);
		json_fputs(out, plan->protect[i].path);
		fputs(", \"origin\": ", out);
		json_fputs(out, plan->protect[i].origin);
		fputc('}', out);
	}
	fputc(']', out);
}

static int explain_json(const struct plan *plan, FILE *out)
{
	fputc('{', out);
	json_key(out, "mode", true);
	json_fputs(out, plan->mode == MODE_BWRAP ? "bwrap" : "hutch");
	json_namespaces(plan, out);
	json_key(out, "share-net", false);
	fputs(plan->share_net ? "true" : "false", out);
	json_filesystem(plan, out);
	json_net(plan, out);
	json_process(plan, out);
	json_policy(plan, out);
	json_limits(plan, out);
	json_key(out, "fallback", false);
	json_fputs(out, plan->fallback == FALLBACK_LANDLOCK ? "landlock" : "none");
	json_key(out, "fallback-plan", false);
	landlock_explain_json(plan, out);
	json_key(out, "timeout", false);
	fprintf(out, "%g", plan->timeout);
	json_key(out, "kill-after", false);
	fprintf(out, "%g", plan->kill_after);
	json_key(out, "teardown-deadline", false);
	fprintf(out, "%g", plan->teardown_deadline);
	json_key(out, "command", false);
	if (plan->argv)
		json_strings(out, plan->argv, (size_t)-1);
	else
		fputs("null", out);
	json_key(out, "refused", false);
	if (plan->refused)
		json_fputs(out, plan->refused);
	else
		fputs("null", out);
	fputs("\n}\n", out);
	return plan->refused ? failure_status(plan) : 0;
}

int explain_plan(const struct plan *plan, FILE *out)
{
	if (plan->explain == EXPLAIN_JSON)
		return explain_json(plan, out);
	fprintf(out, "mode: %s\n", plan->mode == MODE_BWRAP ? "bwrap" : "hutch");
	explain_namespaces(plan, out);
	fprintf(out, "filesystem, in order, on an empty tmpfs root:\n");
	for (size_t i = 0; i < plan->n_ops; i++) {
		explain_op(&plan->ops[i], out);
		if (plan->ops[i].flags & FS_CWD)
			explain_cwd(plan, i, out);
	}
	explain_protect(plan, out);
	explain_net(plan, out);
	explain_process(plan, out);
	explain_policy(plan, out);
	landlock_explain(plan, out);
	explain_limits(plan, out);
	if (plan->argv) {
		fprintf(out, "command:");
		for (char **a = plan->argv; *a; a++)
			fprintf(out, " %s", *a);
		fprintf(out, "\n");
	}
	if (plan->refused)
		fprintf(out, "refused: hutch would not run this plan: %s\n", plan->refused);
	return plan->refused ? failure_status(plan) : 0;
}
