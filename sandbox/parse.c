/* The parse stage: argv and profiles in, a plan or an error out.  No side
 * effects: nothing is opened but profiles. */
#define _GNU_SOURCE
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "guard.h"
#include "netrule.h"
#include "plan.h"
#include "policy.h"
#include "profile.h"
#include "protect.h"
#include "util.h"

static enum mode mode_from_argv0(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0 ? argv0 : "hutch";
	return strcmp(base, "bwrap") == 0 ? MODE_BWRAP : MODE_HUTCH;
}

static void init_plan(struct plan *plan, char **argv, char **envp)
{
	memset(plan, 0, sizeof(*plan));
	plan->mode = mode_from_argv0(argv[0]);
	plan->prog = plan->mode == MODE_BWRAP ? "bwrap" : "hutch";
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

		if (!eq)
			continue;
		name = strndup(*e, (size_t)(eq - *e));
		if (name)
			plan_setenv(plan, name, eq + 1);
		free(name);
	}
}

static int apply_records(struct plan *plan, const struct record_list *list,
			 char **envp, char *err, size_t errlen)
{
	for (size_t i = 0; i < list->n; i++)
		if (cli_apply(plan, &list->recs[i], envp, err, errlen) < 0)
			return -1;
	return 0;
}

/* Profiles named on the command line apply first, in their order; in
 * hutch mode "default" applies when none is named. */
static int apply_profiles(struct plan *plan, const struct record_list *cl,
			  char **envp, char *err, size_t errlen)
{
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
	}
	if (r == 0 && !named)
		r = profile_record(plan, "default", envp, &prof, err, errlen);
	if (r == 0)
		r = apply_records(plan, &prof, envp, err, errlen);
	records_free(&prof);
	return r;
}

static char *caller_home(char **envp)
{
	struct passwd *pw;

	for (char **e = envp; e && *e; e++)
		if (strncmp(*e, "HOME=", 5) == 0 && (*e)[5])
			return xstrdup(*e + 5);
	pw = getpwuid(getuid());
	return xstrdup(pw && pw->pw_dir ? pw->pw_dir : "/");
}

/* Is DIR the directory HOME or one of its ancestors ("/" included)? */
static bool holds_home(const char *dir, const char *home)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(home, dir, len) == 0 && (home[len] == '\0' || home[len] == '/');
}

/* Exposing the current directory must never expose the home directory:
 * run from ~, a read-only cwd would hand ~/.ssh to the sandbox. */
static int resolve_cwd_binds(struct plan *plan, char **envp, char *err, size_t errlen)
{
	char cwd[PATH_MAX];
	char *home = NULL;
	int r = 0;

	for (size_t i = 0; i < plan->n_ops && r == 0; i++) {
		struct fs_op *op = &plan->ops[i];

		if (!(op->flags & FS_CWD))
			continue;
		if (!getcwd(cwd, sizeof(cwd))) {
			snprintf(err, errlen, "parse: current directory: cannot be named");
			r = -1;
			break;
		}
		if (!home)
			home = caller_home(envp);
		if (holds_home(cwd, home)) {
			snprintf(err, errlen,
				 "parse: current directory %s: %s %s, so exposing it would expose "
				 "your home directory (~/.ssh and the rest); run from a project "
				 "directory, or use --profile none", cwd,
				 strcmp(cwd, home) == 0 ? "is" : "holds", home);
			r = -1;
			break;
		}
		free(op->src);
		free(op->dest);
		op->src = xstrdup(cwd);
		op->dest = xstrdup(cwd);
		if (!plan->chdir)
			plan->chdir = xstrdup(cwd);
	}
	free(home);
	return r;
}

static int check_persistence(const struct plan *plan, char **envp, char *err,
			     size_t errlen)
{
	char *home = caller_home(envp);
	int r = guard_check(plan, home, err, errlen);

	free(home);
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
	return 0;
}

static int finish_namespaces(struct plan *plan, char *err, size_t errlen)
{
	plan->clone_flags |= CLONE_NEWNS;
	if (plan->mode == MODE_HUTCH)
		plan->clone_flags |= CLONE_NEWUSER | CLONE_NEWPID;
	else if (plan->caller_uid != 0 && plan->userns_fd < 0)
		plan->clone_flags |= CLONE_NEWUSER;	/* bwrap without setuid */
	if (plan->share_net)
		plan->clone_flags &= ~CLONE_NEWNET;
	if ((plan->uid_set || plan->gid_set) && !(plan->clone_flags & CLONE_NEWUSER) &&
	    plan->userns_fd < 0) {
		snprintf(err, errlen, "Specifying --%s requires --unshare-user or --userns",
			 plan->uid_set ? "uid" : "gid");
		return -1;
	}
	if (plan->hostname && !(plan->clone_flags & CLONE_NEWUTS)) {
		snprintf(err, errlen, "Specifying --hostname requires --unshare-uts");
		return -1;
	}
	return 0;
}

int plan_parse(struct plan *plan, int argc, char **argv, char **envp,
	       char *err, size_t errlen)
{
	struct record_list cl = { 0 };
	int r;

	init_plan(plan, argv, envp);
	r = cli_record(plan, argc, argv, "command line", false, &cl, err, errlen);
	if (r == 0 && plan->mode == MODE_HUTCH && !cli_wants_info(&cl))
		r = apply_profiles(plan, &cl, envp, err, errlen);
	if (r == 0)
		r = apply_records(plan, &cl, envp, err, errlen);
	if (r == 0 && !plan->show_help && !plan->show_version)
		r = take_command(plan, &cl, err, errlen);
	if (r == 0 && plan->argv)
		r = finish_namespaces(plan, err, errlen);
	if (r == 0 && plan->argv)
		r = resolve_cwd_binds(plan, envp, err, errlen);
	if (r == 0 && plan->argv)
		r = protect_resolve(plan, err, errlen);
	if (r == 0)
		r = net_plan_finish(plan, err, errlen);
	if (r == 0)
		r = check_persistence(plan, envp, err, errlen);
	if (r == 0 && plan->mode == MODE_HUTCH && !plan->seccomp_policy)
		plan->seccomp_policy = xstrdup("default");
	/* bwrap keeps a root sandbox the capabilities its caller holds,
	 * unless told otherwise; hutch mode never does. */
	if (r == 0 && plan->mode == MODE_BWRAP && plan->uid == 0 && plan->caller_uid == 0)
		plan->caps_add |= policy_permitted_caps();
	records_free(&cl);
	return r;
}
