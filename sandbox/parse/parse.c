/* The parse stage: argv and profiles in, a plan or an error out.  No side
 * effects: nothing is opened but profiles. */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cwd.h"
#include "parse.h"
#include "plan/plan.h"
#include "seccomp/seccomp.h"
#include "profile.h"
#include "mount/mount.h"
#include "lib/lib.h"

static bool is_reexec_marker(const char *entry)
{
	size_t len = strlen(PLAN_REEXEC_ENV);

	return strncmp(entry, PLAN_REEXEC_ENV, len) == 0 && entry[len] == '=';
}

/* bwrap's own tests, and callers that nest bwrap, run it again inside
 * its sandbox as /proc/self/exe: that is bwrap mode again (see
 * PLAN_REEXEC_ENV).  Any other name but bwrap is hutch mode. */
static enum mode mode_from_argv0(const char *argv0, char **envp)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0 ? argv0 : "hutch";
	if (strcmp(base, "bwrap") == 0)
		return MODE_BWRAP;
	if (argv0 && strcmp(argv0, PLAN_SELF_EXE) == 0)
		for (char **e = envp; e && *e; e++)
			if (is_reexec_marker(*e))
				return MODE_BWRAP;
	return MODE_HUTCH;
}

static void init_plan(struct plan *plan, char **argv, char **envp)
{
	memset(plan, 0, sizeof(*plan));
	plan->mode = mode_from_argv0(argv[0], envp);
	plan->prog = plan->mode == MODE_BWRAP ? "bwrap" : "hutch";
	plan->invoked_as = argv[0] ? argv[0] : plan->prog;
	plan->caller_uid = getuid();
	plan->caller_gid = getgid();
	plan->uid = plan->caller_uid;
	plan->gid = plan->caller_gid;
	plan->kill_after = 5;
	plan->teardown_deadline = 10;
	plan->json_status_fd = plan->info_fd = plan->sync_fd = -1;
	plan->block_fd = plan->userns_block_fd = -1;
	plan->userns_fd = plan->userns2_fd = plan->pidns_fd = -1;
	plan->report_fd = -1;
	for (char **e = envp; e && *e; e++) {
		char *eq = strchr(*e, '=');
		char *name;

		if (!eq || is_reexec_marker(*e))
			continue;
		/* In both modes: bwrap has no such variable. */
		if (strncmp(*e, "HUTCH_TIMING=", 13) == 0 && eq[1] && !plan->timing_file)
			plan->timing_file = xstrdup(eq + 1);
		name = strndup(*e, (size_t)(eq - *e));
		if (name)
			plan_setenv(plan, name, eq + 1);
		free(name);
	}
}

/* In hutch mode an option that fails is named, and one from a profile
 * names the profile's FILE:LINE too, so that a bad line can be found
 * among composed and included ones.  (bwrap mode keeps bwrap's texts.) */
static int apply_record(struct parse_ctx *p, const struct option_record *rec,
			char *err, size_t errlen)
{
	struct plan *plan = p->plan;
	const char *name = cli_option_name(rec);
	char why[4096];

	if (cli_apply(p, rec, err, errlen) == 0)
		return 0;
	if (plan->mode != MODE_HUTCH)
		return -1;
	if (name && strncmp(err, "--", 2) != 0) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--%s: %s", name, why);
	}
	if (strcmp(rec->origin, "command line") != 0 &&
	    strncmp(err, rec->origin, strlen(rec->origin)) != 0) {
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", rec->origin, why);
	}
	return -1;
}

static int apply_records(struct parse_ctx *p, const struct record_list *list,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < list->n; i++)
		if (apply_record(p, &list->recs[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* bwrap acts on each option as it reads it, so the options before a bad
 * one still warn, or fail first with their own error. */
static void apply_before_bad_option(struct parse_ctx *p, const struct record_list *cl,
				    char *err, size_t errlen)
{
	char bad[4096];

	snprintf(bad, sizeof(bad), "%s", err);
	if (apply_records(p, cl, err, errlen) == 0)
		snprintf(err, errlen, "%s", bad);
}

/* NAME as an include in another directory names it: a name as it is,
 * a file by its absolute path (--learn's profile includes these). */
static void note_profile_used(struct plan *plan, const char *name)
{
	char *real = strchr(name, '/') ? realpath(name, NULL) : NULL;

	plan->profiles_used = xreallocarray(plan->profiles_used, plan->n_profiles_used + 1,
					    sizeof(char *));
	plan->profiles_used[plan->n_profiles_used++] = real ? real : xstrdup(name);
}

/* Profiles named on the command line apply first, in their order; in
 * hutch mode "default" applies when none is named. */
static int apply_profiles(struct parse_ctx *p, const struct record_list *cl,
			  char *err, size_t errlen)
{
	struct plan *plan = p->plan;
	char *const *envp = p->envp;
	struct record_list prof = { 0 };
	bool named = false;
	int r = 0;

	for (size_t i = 0; i < cl->n && r == 0; i++) {
		const struct option_record *rec = &cl->recs[i];

		if (strcmp(rec->origin, "command line") != 0 ||
		    !rec->args[0] || !cli_is_profile(rec))
			continue;
		named = true;
		if (strcmp(rec->args[0], "none") != 0)
			r = profile_record(plan, rec->args[0], envp, &prof, err, errlen);
		if (r == 0 && strcmp(rec->args[0], "none") != 0)
			note_profile_used(plan, rec->args[0]);
	}
	if (r == 0 && !named)
		r = profile_record(plan, "default", envp, &prof, err, errlen);
	if (r == 0 && !named)
		note_profile_used(plan, "default");
	if (r == 0)
		r = apply_records(p, &prof, err, errlen);
	cli_records_free(&prof);
	return r;
}

/* A guard's refusal (R < 0, ERR) fails the parse, except for --explain,
 * which shows the plan and the first refusal, so it can be read. */
static int refusal(struct plan *plan, int r, const char *err)
{
	if (r == 0 || !plan->explain)
		return r;
	if (!plan->refused)
		plan->refused = xstrdup(err);
	return 0;
}

/* The current directory is bound at its own path, unless it would expose
 * the home directory or host sockets (cwd.c). */
static int resolve_cwd_binds(struct plan *plan, char **envp, char *err, size_t errlen)
{
	char cwd[PATH_MAX];
	char *home = NULL;
	const struct fs_op *cover;
	int r = 0;

	for (size_t i = 0; i < plan->n_ops && r == 0; i++) {
		struct fs_op *op = &plan->ops[i];

		if (!(op->flags & FS_CWD))
			continue;
		if (cwd_name(cwd, sizeof(cwd), err, errlen) < 0) {
			r = -1;
			break;
		}
		if (!home)
			home = caller_home(envp);
		r = refusal(plan, cwd_check(plan, i, cwd, home, envp, err, errlen), err);
		if (r < 0)
			break;
		free(op->src);
		free(op->dest);
		op->src = xstrdup(cwd);
		op->dest = xstrdup(cwd);
		if (!plan->chdir && (cover = cwd_covered_by(plan, i)) && !plan->cwd_cover)
			plan->cwd_cover = xasprintf("--%s %s (%s)", plan_op_name(cover->kind),
						    cover->dest, cover->origin);
		if (!plan->chdir)
			plan->chdir = xstrdup(cwd);
	}
	free(home);
	return r;
}

static int check_persistence(struct plan *plan, char **envp, char *err,
			     size_t errlen)
{
	char *home = caller_home(envp);
	int r = refusal(plan, guard_check(plan, home, err, errlen), err);

	free(plan->guard_home);
	plan->guard_home = home;	/* for the second look at the bind */
	return r;
}

static int take_command(struct plan *plan, struct record_list *cl,
			char *err, size_t errlen)
{
	if (!cl->command) {
		if (plan->show_help || plan->show_version || plan->explain || plan->doctor)
			return 0;
		snprintf(err, errlen, "No command specified");
		return -1;
	}
	plan->argv = cl->command;
	cl->command = NULL;
	if (plan->mode == MODE_HUTCH && !plan->argv[0][0]) {
		snprintf(err, errlen, "parse: COMMAND is an empty word");
		return -1;
	}
	return 0;
}

/* hutch mode runs COMMAND in a second user namespace that owns only the
 * mount namespace locking the tree: a network capability would show in
 * COMMAND's sets and act on nothing (the sandbox's network namespace,
 * like the host's, belongs to a user namespace above), so asking for one
 * is an error rather than a silent no-op. */
static int check_hutch_caps(const struct plan *plan, char *err, size_t errlen)
{
	static const struct { int cap; const char *name; } net_caps[] = {
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN" }, { CAP_NET_RAW, "CAP_NET_RAW" },
		{ CAP_NET_BIND_SERVICE, "CAP_NET_BIND_SERVICE" },
		{ CAP_NET_BROADCAST, "CAP_NET_BROADCAST" },
	};

	/* ALL (every bit) asks for what there is, not for these. */
	if (plan->mode != MODE_HUTCH || plan->caps_add == ~0ULL)
		return 0;
	for (size_t i = 0; i < sizeof(net_caps) / sizeof(net_caps[0]); i++)
		if (plan->caps_add & (1ULL << net_caps[i].cap)) {
			snprintf(err, errlen, "parse: --cap-add %s: in hutch mode COMMAND runs in a user "
				 "namespace of its own that does not own the sandbox's network namespace, "
				 "so the capability would do nothing; use bwrap mode for it",
				 net_caps[i].name);
			return -1;
		}
	return 0;
}

static int finish_namespaces(const struct parse_ctx *p, char *err, size_t errlen)
{
	struct plan *plan = p->plan;

	if (plan->allow_nested && (plan->disable_userns || plan->assert_userns_disabled)) {
		snprintf(err, errlen, "parse: --allow-nested: a sandbox inside needs a user "
			 "namespace, which --%s refuses; drop one of them", plan->disable_userns ?
			 "disable-userns" : "assert-userns-disabled");
		return -1;
	}

	plan->clone_flags |= CLONE_NEWNS;
	if (plan->mode == MODE_HUTCH)
		plan->clone_flags |= CLONE_NEWUSER | CLONE_NEWPID;
	else if (plan->caller_uid != 0 && plan->userns_fd < 0)
		plan->clone_flags |= CLONE_NEWUSER;	/* bwrap without setuid */
	if (plan->share_net)
		plan->clone_flags &= ~CLONE_NEWNET;
	if ((p->uid_set || p->gid_set) && !(plan->clone_flags & CLONE_NEWUSER) &&
	    plan->userns_fd < 0) {
		snprintf(err, errlen, "Specifying --%s requires --unshare-user or --userns",
			 p->uid_set ? "uid" : "gid");
		return -1;
	}
	if (plan->hostname && !(plan->clone_flags & CLONE_NEWUTS)) {
		snprintf(err, errlen, "Specifying --hostname requires --unshare-uts");
		return -1;
	}
	return 0;
}

/* The parser's scratch ends with the parse; the prepare stage fails on
 * an --overlay-src left over, as bwrap's set-up does. */
static void end_parse_ctx(struct parse_ctx *p)
{
	p->plan->overlay_src_left = p->n_overlay_srcs > 0;
	for (size_t i = 0; i < p->n_overlay_srcs; i++)
		free(p->overlay_srcs[i]);
	free(p->overlay_srcs);
	memset(p, 0, sizeof(*p));
}

static const char *const proxy_variables[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
};

/* The plan's side of --allow-net, once every option is in: a network
 * namespace of its own (refused with --share-net) and the proxy's
 * variables for COMMAND.  0, or -1 with ERR set. */
static int finish_net(struct plan *plan, char *err, size_t errlen)
{
	char url[64];

	if (plan->n_net_rules == 0)
		return 0;
	if (plan->share_net) {
		snprintf(err, errlen, "--allow-net %s (%s): needs a network namespace of the "
			 "sandbox's own, and --share-net (or a profile such as net-client) shares "
			 "the host's; drop one of them", plan->net_rules[0].text,
			 plan->net_rules[0].origin);
		return -1;
	}
	plan->clone_flags |= CLONE_NEWNET;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", NET_PROXY_PORT);
	for (size_t i = 0; i < sizeof(proxy_variables) / sizeof(proxy_variables[0]); i++)
		plan_setenv(plan, proxy_variables[i], url);
	plan_setenv(plan, "NO_PROXY", "localhost,127.0.0.1,::1");
	plan_setenv(plan, "no_proxy", "localhost,127.0.0.1,::1");
	return 0;
}

int parse_plan(struct plan *plan, int argc, char **argv, char **envp,
	       char *err, size_t errlen)
{
	struct parse_ctx p = { .plan = plan, .envp = envp };
	struct record_list cl = { 0 };
	int r;

	init_plan(plan, argv, envp);
	r = cli_record(plan, argc, argv, "command line", false, &cl, err, errlen);
	if (r < 0 && plan->mode == MODE_BWRAP)
		apply_before_bad_option(&p, &cl, err, errlen);
	if (r == 0 && plan->mode == MODE_HUTCH && !cli_wants_info(&cl))
		r = apply_profiles(&p, &cl, err, errlen);
	if (r == 0)
		r = apply_records(&p, &cl, err, errlen);
	if (r == 0 && plan->mode == MODE_HUTCH)
		r = fds_check_passed(plan, err, errlen);
	if (r == 0 && !plan->show_help && !plan->show_version)
		r = take_command(plan, &cl, err, errlen);
	if (r == 0 && plan->argv)
		r = finish_namespaces(&p, err, errlen);
	if (r == 0)
		r = check_hutch_caps(plan, err, errlen);
	if (r == 0 && plan->argv)
		r = resolve_cwd_binds(plan, envp, err, errlen);
	if (r == 0 && plan->argv)
		r = protect_resolve(plan, err, errlen);
	if (r == 0)
		r = finish_net(plan, err, errlen);
	if (r == 0)
		r = check_persistence(plan, envp, err, errlen);
	if (r == 0 && plan->mode == MODE_HUTCH && !plan->seccomp_policy)
		plan->seccomp_policy = xstrdup("default");
	/* bwrap starts a root caller's sandbox from the capabilities the
	 * caller holds (--cap-add and --cap-drop change them; a COMMAND
	 * that is not uid 0 loses them at execve unless they are ambient);
	 * hutch mode never does. */
	if (r == 0 && plan->mode == MODE_BWRAP && plan->caller_uid == 0)
		plan->caps_add |= policy_effective_caps();
	cli_records_free(&cl);
	end_parse_ctx(&p);
	return r;
}
