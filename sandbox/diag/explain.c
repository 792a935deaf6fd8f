#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "limits/limits.h"
#include "parse/parse.h"
#include "diag.h"
#include "explain_sockets.h"
#include "lib/lib.h"
#include "fallback/fallback.h"
#include "plan/plan.h"
#include "seccomp/seccomp.h"


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

/* A root caller's writable current directory that another uid owns:
 * COMMAND is root without capabilities in a user namespace that maps
 * uid 0 alone, so it has no CAP_DAC_OVERRIDE over that uid's files
 * (--cap-add cannot give one for an unmapped uid) and its writes there
 * fail with EACCES.  The failure is COMMAND's own, so this is said
 * here rather than at run time.  Into NOTE; false when there is none. */
static bool cwd_owner_note(const struct plan *plan, const struct fs_op *op, char *note,
			   size_t size)
{
	struct stat st;

	if (plan->mode != MODE_HUTCH || plan->caller_uid != 0 || (op->flags & FS_READONLY) ||
	    !op->src || stat(op->src, &st) < 0 || st.st_uid == 0)
		return false;
	snprintf(note, size, "belongs to uid %u; COMMAND is root without capabilities, so it "
		 "writes only where the modes let any user (CAP_DAC_OVERRIDE is not given over "
		 "a uid the sandbox does not map, --cap-add neither): run hutch as uid %u "
		 "(setpriv --reuid=%u --regid=%u --init-groups hutch ...) to write as the owner",
		 (unsigned)st.st_uid, (unsigned)st.st_uid, (unsigned)st.st_uid,
		 (unsigned)st.st_gid);
	return true;
}

/* The current directory's bind, in words: it hides what lay at its path
 * on the mount it lands on, and nothing else (parse refuses a bind that
 * would cover a mount made before it, cwd.c). */
static void explain_cwd(const struct plan *plan, size_t i, FILE *out)
{
	const struct fs_op *on = cwd_lands_on(plan, i);
	char note[512];

	fprintf(out, "             the current directory: covers %s ", plan->ops[i].dest);
	if (on)
		fprintf(out, "on the %s %s (%s), and nothing else\n", plan_op_name(on->kind),
			on->dest, on->origin);
	else
		fprintf(out, "on the sandbox's root tmpfs, and nothing else\n");
	if (cwd_owner_note(plan, &plan->ops[i], note, sizeof(note)))
		fprintf(out, "             the current directory %s\n", note);
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
	char sockets[4096];

	explain_seccomp(plan, out);
	explain_unix_sockets(plan, sockets, sizeof(sockets));
	fprintf(out, "unix sockets: %s\n", sockets);
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

/* How a rule is reached: through the proxy, and by a plain TCP
 * connect() too (connect_broker.c): for a name or wildcard, to the
 * addresses the sandbox's resolver gave for it (netdns.c). */
static const char *net_reach(const struct net_rule *r)
{
	if (r->kind == NET_HOST_ADDR)
		return "proxy, plain connect()";
	if (netrule_is_localhost(r))
		return "proxy, plain connect() to 127.0.0.1 and ::1";
	return "proxy, plain connect() to the addresses the sandbox's resolver gave";
}

/* --allow-net: the proxy, and each rule with where it came from. */
static void explain_net(const struct plan *plan, FILE *out)
{
	if (plan->n_net_rules == 0)
		return;
	fprintf(out, "network: only through hutch's proxy at 127.0.0.1:%d and [::1]:%d "
		"(HTTP CONNECT, plain http://, SOCKS5; HTTP_PROXY, HTTPS_PROXY and their "
		"lowercase forms name it), and by a plain TCP connect() to an address a rule "
		"names or the sandbox's resolver at 127.0.0.1:53 gave for a name, to:\n",
		NET_PROXY_PORT, NET_PROXY_PORT);
	for (size_t i = 0; i < plan->n_net_rules; i++) {
		const struct net_rule *r = &plan->net_rules[i];

		fprintf(out, "  %-8s %s    (%s; reached by: %s)\n", net_kind_names[r->kind], r->text,
			r->origin, net_reach(r));
	}
	fprintf(out, "  names are resolved by hutch on the host; a name never reaches a loopback, "
		"link-local, metadata or this host's own address; the sandbox resolves only the "
		"names a rule allows, each answer holding %ds\n", NET_DNS_TTL);
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

static void json_strings(struct json_writer *w, char *const *v, size_t n)
{
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < n && v[i]; i++)
		json_string(w, v[i]);
	json_end_array(w);
}

/* "current-directory": {"covers": DEST, "on": DEST-or-null[, "owner-note": TEXT]} */
static void json_cwd(const struct plan *plan, size_t i, struct json_writer *w)
{
	const struct fs_op *on = cwd_lands_on(plan, i);
	char note[512];

	json_key(w, "current-directory");
	json_begin_object(w, JSON_SPACED);
	json_key(w, "covers");
	json_string(w, plan->ops[i].dest);
	json_key(w, "on");
	json_string(w, on ? on->dest : NULL);
	if (cwd_owner_note(plan, &plan->ops[i], note, sizeof(note))) {
		json_key(w, "owner-note");
		json_string(w, note);
	}
	json_end_object(w);
}

static void json_op(const struct plan *plan, size_t i, struct json_writer *w)
{
	const struct fs_op *op = &plan->ops[i];

	json_begin_object(w, JSON_SPACED);
	json_key(w, "op");
	json_string(w, plan_op_name(op->kind));
	if (op->src) {
		json_key(w, "source");
		json_string(w, op->src);
	}
	if (op->fd >= 0) {
		json_key(w, "fd");
		json_int(w, op->fd);
	}
	json_key(w, "dest");
	json_string(w, op->dest);
	json_key(w, "read-only");
	json_bool(w, op->flags & FS_READONLY);
	json_key(w, "devices");
	json_bool(w, op->flags & FS_DEVICES);
	json_key(w, "if-present");
	json_bool(w, op->flags & FS_TRY);
	if (op->has_perms) {
		json_key(w, "mode");
		json_stringf(w, "%04o", (unsigned)op->perms);
	}
	if (op->size) {
		json_key(w, "size");
		json_uint(w, op->size);
	}
	json_key(w, "origin");
	json_string(w, op->origin);
	if (op->flags & FS_CWD)
		json_cwd(plan, i, w);
	json_end_object(w);
}

static void json_filesystem(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "filesystem");
	json_begin_array(w, JSON_ROWS);
	for (size_t i = 0; i < plan->n_ops; i++)
		json_op(plan, i, w);
	json_end_array(w);
}

static void json_namespaces(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "namespaces");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++)
		if (plan->clone_flags & namespaces[i].flag)
			json_string(w, namespaces[i].name);
	json_end_array(w);
}

/* "action": "allow", or "action": "deny", "errno": NAME-or-number */
static void json_action(struct seccomp_action action, struct json_writer *w)
{
	const char *name = action.allow ? NULL : strerrorname_np(action.errnum);

	json_key(w, "action");
	json_string(w, action.allow ? "allow" : "deny");
	if (action.allow)
		return;
	json_key(w, "errno");
	if (name)
		json_string(w, name);
	else
		json_int(w, action.errnum);
}

static void json_exception(const struct seccomp_rule *e, struct json_writer *w)
{
	json_begin_object(w, JSON_SPACED);
	json_action(e->action, w);
	json_key(w, "arg");
	json_uint(w, e->cond.arg);
	json_key(w, "mask");
	json_stringf(w, "0x%llx", (unsigned long long)e->cond.mask);
	json_key(w, "value");
	json_stringf(w, "0x%llx", (unsigned long long)e->cond.value);
	json_key(w, "source");
	json_string(w, e->source);
	json_end_object(w);
}

/* {"syscall": ..., "action": ..., "source": ..., "exceptions": [...]} */
static void json_syscall(const struct seccomp_summary *sum, void *arg)
{
	struct json_writer *w = arg;

	json_begin_object(w, JSON_SPACED);
	json_key(w, "syscall");
	json_string(w, sum->syscall);
	json_action(sum->action, w);
	json_key(w, "source");
	json_string(w, sum->source);
	json_key(w, "exceptions");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < sum->n_exceptions; i++)
		json_exception(sum->exceptions[i], w);
	json_end_array(w);
	json_end_object(w);
}

static void json_loaded_policy(struct seccomp_policy *pol, struct json_writer *w)
{
	json_begin_object(w, JSON_SPACED);
	json_key(w, "filter");
	json_bool(w, !seccomp_policy_is_empty(pol));
	json_key(w, "default");
	json_begin_object(w, JSON_SPACED);
	json_action(pol->default_action, w);
	json_key(w, "source");
	json_string(w, pol->default_source);
	json_end_object(w);
	json_key(w, "other-abis");
	json_string(w, "kill-process");
	json_key(w, "syscalls");
	json_begin_array(w, JSON_LINES);
	seccomp_policy_summarize(pol, json_syscall, w);
	json_end_array(w);
	json_end_object(w);
}

/* The policy as the filter applies it: its default, and every syscall
 * it treats otherwise, as --explain says in words. */
static void json_seccomp(const struct plan *plan, struct json_writer *w)
{
	struct seccomp_policy *pol = NULL;
	char err[1024];

	json_key(w, "seccomp");
	if (!plan->seccomp_policy) {
		json_null(w);
		return;
	}
	if (policy_load(plan, &pol, err, sizeof(err)) < 0) {
		json_begin_object(w, JSON_SPACED);
		json_key(w, "error");
		json_string(w, err);
		json_end_object(w);
		return;
	}
	json_loaded_policy(pol, w);
	seccomp_policy_free(pol);
}

static void json_syscall_rules(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "seccomp-rules");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < plan->n_syscall_rules; i++) {
		json_begin_object(w, JSON_SPACED);
		json_key(w, "syscall");
		json_string(w, plan->syscall_rules[i].name);
		json_key(w, "action");
		json_string(w, plan->syscall_rules[i].allow ? "allow" : "deny");
		json_key(w, "errno");
		json_int(w, plan->syscall_rules[i].errnum);
		json_end_object(w);
	}
	json_end_array(w);
}

static void json_policy(const struct plan *plan, struct json_writer *w)
{
	char sockets[4096];

	explain_unix_sockets(plan, sockets, sizeof(sockets));
	json_key(w, "unix-sockets");
	json_string(w, sockets);
	json_key(w, "seccomp-policy");
	json_string(w, plan->seccomp_policy ? plan->seccomp_policy : "none");
	json_seccomp(plan, w);
	json_syscall_rules(plan, w);
	json_key(w, "capabilities-added");
	json_stringf(w, "0x%llx", plan->caps_add & ~plan->caps_drop);
	json_key(w, "no-new-privs");
	json_bool(w, true);
}

static void json_rlimit(const struct rlimit_setting *r, struct json_writer *w)
{
	char buf[64];

	json_begin_object(w, JSON_SPACED);
	json_key(w, "name");
	json_string(w, limits_rlimit_name(r->resource));
	limits_format_rlimit(r->resource, r->soft, buf, sizeof(buf));
	json_key(w, "soft");
	json_string(w, buf);
	limits_format_rlimit(r->resource, r->hard, buf, sizeof(buf));
	json_key(w, "hard");
	json_string(w, buf);
	json_key(w, "origin");
	json_string(w, r->origin);
	json_end_object(w);
}

static void json_limits(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "rlimits");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < plan->n_rlimits; i++)
		json_rlimit(&plan->rlimits[i], w);
	json_end_array(w);
	json_key(w, "pids");
	json_int(w, plan->pids);
	json_key(w, "memory");
	json_uint(w, plan->memory);
	json_key(w, "memory-swap");
	json_uint(w, plan->memory_swap);
	json_key(w, "cpu");
	json_number(w, "%g", plan->cpu);
}

static void json_process(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "uid");
	json_uint(w, (unsigned)plan->uid);
	json_key(w, "gid");
	json_uint(w, (unsigned)plan->gid);
	json_key(w, "hostname");
	json_string(w, plan->hostname);
	json_key(w, "chdir");
	json_string(w, plan->chdir ? plan->chdir : "");
	json_key(w, "environment");
	json_strings(w, plan->env, plan->n_env);
	json_key(w, "new-session");
	json_bool(w, plan->new_session);
	json_key(w, "die-with-parent");
	json_bool(w, plan->die_with_parent);
	json_key(w, "as-pid-1");
	json_bool(w, plan->as_pid_1);
	json_key(w, "pass-fds");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < plan->n_pass_fds; i++)
		json_int(w, plan->pass_fds[i]);
	json_end_array(w);
}

static void json_net_rule(const struct net_rule *r, struct json_writer *w)
{
	json_begin_object(w, JSON_SPACED);
	json_key(w, "rule");
	json_string(w, r->text);
	json_key(w, "kind");
	json_string(w, net_kind_names[r->kind]);
	json_key(w, "port");
	json_int(w, r->port);
	json_key(w, "origin");
	json_string(w, r->origin);
	json_key(w, "reached");
	json_string(w, net_reach(r));
	json_end_object(w);
}

/* Where the proxy listens and what it speaks. */
static void json_proxy(struct json_writer *w)
{
	static const char *const protocols[] = { "connect", "http", "socks5" };

	json_begin_object(w, JSON_SPACED);
	json_key(w, "url");
	json_stringf(w, "http://127.0.0.1:%d", NET_PROXY_PORT);
	json_key(w, "listen");
	json_begin_array(w, JSON_SPACED);
	json_stringf(w, "127.0.0.1:%d", NET_PROXY_PORT);
	json_stringf(w, "[::1]:%d", NET_PROXY_PORT);
	json_end_array(w);
	json_key(w, "protocols");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		json_string(w, protocols[i]);
	json_end_array(w);
	json_end_object(w);
}

static void json_protect(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "protect");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < plan->n_protect; i++) {
		json_begin_object(w, JSON_SPACED);
		json_key(w, "path");
		json_string(w, plan->protect[i].path);
		json_key(w, "origin");
		json_string(w, plan->protect[i].origin);
		json_end_object(w);
	}
	json_end_array(w);
}

static void json_net(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "allow-net");
	json_begin_array(w, JSON_SPACED);
	for (size_t i = 0; i < plan->n_net_rules; i++)
		json_net_rule(&plan->net_rules[i], w);
	json_end_array(w);
	json_key(w, "proxy");
	if (plan->n_net_rules)
		json_proxy(w);
	else
		json_null(w);
	json_protect(plan, w);
}

static void json_fallback(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "fallback");
	json_string(w, plan->fallback == FALLBACK_LANDLOCK ? "landlock" : "none");
	json_key(w, "fallback-plan");
	fallback_explain_json(plan, w);
}

static void json_deadlines(const struct plan *plan, struct json_writer *w)
{
	json_key(w, "timeout");
	json_number(w, "%g", plan->timeout);
	json_key(w, "kill-after");
	json_number(w, "%g", plan->kill_after);
	json_key(w, "teardown-deadline");
	json_number(w, "%g", plan->teardown_deadline);
}

static int explain_json(const struct plan *plan, FILE *out)
{
	struct json_writer w;

	json_init(&w, out, 2);
	json_begin_object(&w, JSON_LINES);
	json_key(&w, "mode");
	json_string(&w, plan->mode == MODE_BWRAP ? "bwrap" : "hutch");
	json_namespaces(plan, &w);
	json_key(&w, "share-net");
	json_bool(&w, plan->share_net);
	json_filesystem(plan, &w);
	json_net(plan, &w);
	json_process(plan, &w);
	json_policy(plan, &w);
	json_limits(plan, &w);
	json_fallback(plan, &w);
	json_deadlines(plan, &w);
	json_key(&w, "command");
	if (plan->argv)
		json_strings(&w, plan->argv, (size_t)-1);
	else
		json_null(&w);
	json_key(&w, "notes");
	json_strings(&w, plan->notes, plan->n_notes);
	json_key(&w, "refused");
	json_string(&w, plan->refused);
	json_end_object(&w);
	fputc('\n', out);
	return plan->refused ? plan_failure_status(plan) : 0;
}

int explain_plan(const struct plan *plan, FILE *out)
{
	if (plan->explain == EXPLAIN_JSON)
		return explain_json(plan, out);
	fprintf(out, "mode: %s\n", plan->mode == MODE_BWRAP ? "bwrap" : "hutch");
	for (size_t i = 0; i < plan->n_notes; i++)
		fprintf(out, "note: %s\n", plan->notes[i]);
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
	fallback_explain(plan, out);
	explain_limits(plan, out);
	if (plan->argv) {
		fprintf(out, "command:");
		for (char **a = plan->argv; *a; a++)
			fprintf(out, " %s", *a);
		fprintf(out, "\n");
	}
	if (plan->refused)
		fprintf(out, "refused: hutch would not run this plan: %s\n", plan->refused);
	return plan->refused ? plan_failure_status(plan) : 0;
}
