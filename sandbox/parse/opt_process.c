/* The options about the process that runs COMMAND: its namespaces, ids,
 * host name, environment, directory, session, the fds it keeps, bwrap's
 * helper-protocol fds, and what the caller asks for instead of a run
 * (--help, --version, --explain, --doctor) or around it (--pty). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "options.h"
#include "lib/lib.h"

static int add_namespace(struct apply_ctx *a, int clone_flag)
{
	a->plan->clone_flags |= clone_flag;
	return 0;
}

int opt_unshare_pid(struct apply_ctx *a) { return add_namespace(a, CLONE_NEWPID); }
int opt_unshare_ipc(struct apply_ctx *a) { return add_namespace(a, CLONE_NEWIPC); }
int opt_unshare_uts(struct apply_ctx *a) { return add_namespace(a, CLONE_NEWUTS); }
int opt_unshare_net(struct apply_ctx *a) { return add_namespace(a, CLONE_NEWNET); }
int opt_unshare_cgroup(struct apply_ctx *a) { return add_namespace(a, CLONE_NEWCGROUP); }

int opt_unshare_user(struct apply_ctx *a)
{
	a->plan->unshare_user_given = true;
	return add_namespace(a, CLONE_NEWUSER);
}

int opt_unshare_user_try(struct apply_ctx *a)
{
	a->plan->userns_try = true;
	return add_namespace(a, CLONE_NEWUSER);
}

int opt_unshare_cgroup_try(struct apply_ctx *a)
{
	a->plan->cgroupns_try = true;
	return add_namespace(a, CLONE_NEWCGROUP);
}

/* bwrap's --unshare-all: user and cgroup only where possible. */
int opt_unshare_all(struct apply_ctx *a)
{
	struct plan *plan = a->plan;

	plan->clone_flags |= CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC |
		CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP;
	plan->userns_try = plan->cgroupns_try = true;
	plan->share_net = false;
	return 0;
}

int opt_share_net(struct apply_ctx *a)
{
	a->plan->share_net = true;
	return 0;
}

int opt_userns(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->userns_fd); }
int opt_userns2(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->userns2_fd); }
int opt_pidns(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->pidns_fd); }

int opt_disable_userns(struct apply_ctx *a)
{
	a->plan->disable_userns = true;
	return 0;
}

int opt_assert_userns_disabled(struct apply_ctx *a)
{
	a->plan->assert_userns_disabled = true;
	return 0;
}

/* --uid, --gid: bwrap warns when one comes again. */
static int set_id(struct apply_ctx *a, bool *given, unsigned *id)
{
	long long v;

	opt_warn_if_again(a, *given);
	*given = true;
	v = parse_uint(a->rec->args[0], 0xfffffffeLL);
	if (v < 0)
		return opt_fail(a, "Invalid %s: %s", a->rec->spec->name, a->rec->args[0]);
	*id = (unsigned)v;
	return 0;
}

int opt_uid(struct apply_ctx *a) { return set_id(a, &a->p->uid_set, &a->plan->uid); }
int opt_gid(struct apply_ctx *a) { return set_id(a, &a->p->gid_set, &a->plan->gid); }
int opt_hostname(struct apply_ctx *a) { return opt_set_once_str(a, &a->plan->hostname); }
int opt_chdir(struct apply_ctx *a) { return opt_set_once_str(a, &a->plan->chdir); }

int opt_clearenv(struct apply_ctx *a)
{
	plan_clearenv(a->plan);
	return 0;
}

/* setenv(3)'s rule, as bwrap applies it: no empty name, no '='. */
static bool is_variable_name(const char *name)
{
	return *name && !strchr(name, '=');
}

int opt_setenv(struct apply_ctx *a)
{
	char *const *args = a->rec->args;

	if (!is_variable_name(args[0]))
		return opt_fail(a, a->plan->mode == MODE_BWRAP ? "setenv failed" :
				"not a variable name: \"%s\"", args[0]);
	return plan_setenv(a->plan, args[0], args[1]);
}

int opt_unsetenv(struct apply_ctx *a)
{
	const char *name = a->rec->args[0];

	if (!is_variable_name(name))
		return opt_fail(a, a->plan->mode == MODE_BWRAP ? "unsetenv failed" :
				"not a variable name: \"%s\"", name);
	plan_unsetenv(a->plan, name);
	return 0;
}

int opt_keep_env(struct apply_ctx *a)
{
	const char *value = env_value(a->p->envp, a->rec->args[0]);

	return value ? plan_setenv(a->plan, a->rec->args[0], value) : 0;
}

int opt_argv0(struct apply_ctx *a)
{
	if (a->plan->argv0 && a->plan->mode == MODE_BWRAP)
		return opt_fail(a, "--argv0 used multiple times");
	opt_replace_str(&a->plan->argv0, a->rec->args[0]);
	return 0;
}

int opt_new_session(struct apply_ctx *a)
{
	a->plan->new_session = true;
	return 0;
}

int opt_die_with_parent(struct apply_ctx *a)
{
	a->plan->die_with_parent = true;
	return 0;
}

int opt_as_pid_1(struct apply_ctx *a)
{
	a->plan->as_pid_1 = true;
	return 0;
}

static void pass_fd(struct plan *plan, int fd)
{
	plan->pass_fds = xreallocarray(plan->pass_fds, plan->n_pass_fds + 1, sizeof(int));
	plan->pass_fds[plan->n_pass_fds++] = fd;
}

int opt_pass_fd(struct apply_ctx *a)
{
	int fd = -1;

	if (opt_parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	pass_fd(a->plan, fd);
	return 0;
}

/* systemd socket activation: LISTEN_FDS fds from 3 on, meant for hutch
 * (LISTEN_PID), are COMMAND's; LISTEN_PID is set again before execve. */
int opt_listen_fds(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	const char *fds = env_value(a->p->envp, "LISTEN_FDS");
	const char *pid = env_value(a->p->envp, "LISTEN_PID");
	const char *names = env_value(a->p->envp, "LISTEN_FDNAMES");
	long long n = parse_uint(fds, 4096);

	if (n < 0)
		return opt_fail(a, "--listen-fds: LISTEN_FDS is not set to a count of fds");
	if (pid && parse_uint(pid, 1 << 30) != (long long)getpid())
		return opt_fail(a, "--listen-fds: LISTEN_PID %s is not hutch's pid: "
				"the fds are not meant for it", pid);
	for (long long fd = 3; fd < 3 + n; fd++) {
		if (!fds_is_open((int)fd))
			return opt_fail(a, "--listen-fds: fd %lld of LISTEN_FDS=%s: %s", fd, fds,
					strerror(EBADF));
		pass_fd(plan, (int)fd);
	}
	plan->listen_fds = (int)n;
	plan_setenv(plan, "LISTEN_FDS", fds);
	if (names)
		plan_setenv(plan, "LISTEN_FDNAMES", names);
	return 0;
}

int opt_json_status_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->json_status_fd); }
int opt_info_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->info_fd); }
int opt_sync_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->sync_fd); }
int opt_block_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->block_fd); }
int opt_userns_block_fd(struct apply_ctx *a) { return opt_set_fd(a, &a->plan->userns_block_fd); }

int opt_level_prefix(struct apply_ctx *a)
{
	opt_take_level_prefix(a->plan);
	return 0;
}

int opt_help(struct apply_ctx *a)
{
	a->plan->show_help = true;
	return 0;
}

int opt_version(struct apply_ctx *a)
{
	a->plan->show_version = true;
	return 0;
}

/* Profiles are applied before the other options (parse.c). */
int opt_profile(struct apply_ctx *a)
{
	(void)a;
	return 0;
}

int opt_explain(struct apply_ctx *a)
{
	const char *arg = a->rec->args[0];

	if (arg && strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
		return opt_fail(a, "--explain: unknown format %s (text or json)", arg);
	a->plan->explain = arg && strcmp(arg, "json") == 0 ? EXPLAIN_JSON : EXPLAIN_TEXT;
	return 0;
}

int opt_timing(struct apply_ctx *a)
{
	const char *arg = a->rec->args[0];

	if (arg && strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
		return opt_fail(a, "--timing: unknown format %s (text or json)", arg);
	a->plan->timing = arg && strcmp(arg, "json") == 0 ? TIMING_JSON : TIMING_TEXT;
	return 0;
}

int opt_doctor(struct apply_ctx *a)
{
	a->plan->doctor = true;
	return 0;
}

int opt_pty(struct apply_ctx *a)
{
	a->plan->pty = PTY_ON;
	return 0;
}

int opt_no_pty(struct apply_ctx *a)
{
	a->plan->pty = PTY_OFF;
	return 0;
}
