/* Unit tests of the option parser (cli.c, opt_*.c, parse.c): option
 * vectors in both modes into a plan, arity errors, options of one mode
 * only, bwrap's warnings for repeated options (in plan->warnings, not
 * printed), what --perms, --size and --overlay-src leave pending, and
 * --args fds.  Pure: nothing here runs a sandbox. */
#define _GNU_SOURCE
#include "parse/parse.h"
#include "plan/plan.h"
#include "lib/timing.h"

#include <check.h>

#include "run_suite.h"
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRLEN 4096
#define MAX_ARGV 32

static char *test_env[] = { "HOME=/nonexistent-home", "PATH=/usr/bin:/bin", "KEPT=yes", NULL };

/* parse_plan of the words given, NULL-terminated; the first is argv[0]. */
static int parse(struct plan *plan, char *err, const char *argv0, ...)
{
	char *argv[MAX_ARGV];
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)argv0;
	va_start(ap, argv0);
	for (char *w; (w = va_arg(ap, char *)) && argc < MAX_ARGV - 1;)
		argv[argc++] = w;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return parse_plan(plan, argc, argv, test_env, err, ERRLEN);
}

START_TEST(test_bwrap_fs_ops_in_order)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--ro-bind", "/usr", "/usr",
			       "--bind-try", "/a", "/b", "--dev-bind", "/dev", "/dev",
			       "--tmpfs", "/tmp", "--symlink", "usr/lib", "/lib",
			       "--chmod", "0750", "/tmp", "true", "arg", NULL), 0);
	ck_assert_int_eq(plan.mode, MODE_BWRAP);
	ck_assert_str_eq(plan.prog, "bwrap");
	ck_assert_uint_eq(plan.n_ops, 6);
	ck_assert_int_eq(plan.ops[0].kind, FS_BIND);
	ck_assert_uint_eq(plan.ops[0].flags, FS_READONLY);
	ck_assert_str_eq(plan.ops[0].src, "/usr");
	ck_assert_str_eq(plan.ops[0].dest, "/usr");
	ck_assert_str_eq(plan.ops[0].origin, "command line");
	ck_assert_uint_eq(plan.ops[1].flags, FS_TRY);
	ck_assert_str_eq(plan.ops[1].dest, "/b");
	ck_assert_uint_eq(plan.ops[2].flags, FS_DEVICES);
	ck_assert_int_eq(plan.ops[3].kind, FS_TMPFS);
	ck_assert_ptr_null(plan.ops[3].src);
	ck_assert_int_eq(plan.ops[4].kind, FS_SYMLINK);
	ck_assert_str_eq(plan.ops[4].src, "usr/lib");
	ck_assert_int_eq(plan.ops[5].kind, FS_CHMOD);
	ck_assert(plan.ops[5].has_perms);
	ck_assert_uint_eq(plan.ops[5].perms, 0750);
	ck_assert_str_eq(plan.argv[0], "true");
	ck_assert_str_eq(plan.argv[1], "arg");
	ck_assert_ptr_null(plan.argv[2]);
	ck_assert_uint_eq(plan.n_warnings, 0);
	plan_free(&plan);
}
END_TEST

START_TEST(test_namespaces_and_process)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--unshare-all", "--share-net",
			       "--unshare-uts", "--hostname", "box", "--chdir", "/tmp",
			       "--setenv", "A", "1", "--unsetenv", "PATH", "--die-with-parent",
			       "--new-session", "--cap-add", "CAP_CHOWN", "true", NULL), 0);
	ck_assert(plan.clone_flags & CLONE_NEWPID);
	ck_assert(plan.clone_flags & CLONE_NEWUTS);
	ck_assert(!(plan.clone_flags & CLONE_NEWNET));
	ck_assert(plan.userns_try);
	ck_assert(plan.share_net);
	ck_assert_str_eq(plan.hostname, "box");
	ck_assert_str_eq(plan.chdir, "/tmp");
	ck_assert_str_eq(plan_getenv(&plan, "A"), "1");
	ck_assert_ptr_null(plan_getenv(&plan, "PATH"));
	ck_assert_str_eq(plan_getenv(&plan, "HOME"), "/nonexistent-home");
	ck_assert(plan.die_with_parent);
	ck_assert(plan.new_session);
	ck_assert(plan.caps_given);
	ck_assert(plan.caps_add & (1ULL << 0));	/* CAP_CHOWN */
	plan_free(&plan);
}
END_TEST

static const struct { const char *mode, *opt, *arg1, *arg2, *err; } arity[] = {
	{ "bwrap", "--bind", "/a", NULL, "--bind takes two arguments" },
	{ "bwrap", "--overlay", "/a", "/b", "--overlay takes three arguments" },
	{ "bwrap", "--uid", NULL, NULL, "--uid takes an argument" },
	{ "bwrap", "--setenv", "X", NULL, "--setenv takes two arguments" },
	{ "hutch", "--bind", "/a", NULL, "--bind takes two arguments" },
	{ "hutch", "--timeout", NULL, NULL, "--timeout takes an argument" },
};

START_TEST(test_arity_errors)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, arity[_i].mode, arity[_i].opt, arity[_i].arg1,
			       arity[_i].arg1 ? arity[_i].arg2 : NULL, NULL), -1);
	ck_assert_str_eq(err, arity[_i].err);
	plan_free(&plan);
}
END_TEST

START_TEST(test_options_of_one_mode)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--timeout", "5", "true", NULL), -1);
	ck_assert_str_eq(err, "Unknown option --timeout");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "-h", NULL), -1);
	ck_assert_str_eq(err, "Unknown option -h");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "/usr/bin/bwrap", "--help", NULL), 0);
	ck_assert(plan.show_help);
	plan_free(&plan);

	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--timeout", "5m",
			       "--kill-after", "2", "--pids", "7", "true", NULL), 0);
	ck_assert_int_eq(plan.mode, MODE_HUTCH);
	ck_assert(plan.timeout == 300);
	ck_assert(plan.kill_after == 2);
	ck_assert_int_eq(plan.pids, 7);
	ck_assert_str_eq(plan.pids_origin, "command line");
	ck_assert_str_eq(plan.seccomp_policy, "default");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "-V", NULL), 0);
	ck_assert(plan.show_version);
	plan_free(&plan);
}
END_TEST

START_TEST(test_repeated_options_warn_in_bwrap_mode)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--unshare-user", "--unshare-uts",
			       "--hostname", "a", "--hostname", "b", "--uid", "1", "--uid", "2",
			       "true", NULL), 0);
	ck_assert_uint_eq(plan.n_warnings, 2);
	ck_assert_str_eq(plan.warnings[0], "Only the last --hostname option will take effect");
	ck_assert_str_eq(plan.warnings[1], "Only the last --uid option will take effect");
	ck_assert_str_eq(plan.hostname, "b");
	ck_assert_uint_eq(plan.uid, 2);
	plan_free(&plan);

	/* hutch mode takes the last one without a word. */
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--chdir", "/a",
			       "--chdir", "/b", "true", NULL), 0);
	ck_assert_uint_eq(plan.n_warnings, 0);
	ck_assert_str_eq(plan.chdir, "/b");
	plan_free(&plan);

	/* --argv0 twice is an error in bwrap mode. */
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--argv0", "a", "--argv0", "b", "true",
			       NULL), -1);
	ck_assert_str_eq(err, "--argv0 used multiple times");
	plan_free(&plan);
}
END_TEST

/* bwrap acts on options in order: those before a bad word still warn. */
START_TEST(test_options_before_bad_word_apply)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--chdir", "/a", "--chdir", "/b",
			       "--bogus", "true", NULL), -1);
	ck_assert_str_eq(err, "Unknown option --bogus");
	ck_assert_uint_eq(plan.n_warnings, 1);
	ck_assert_str_eq(plan.warnings[0], "Only the last --chdir option will take effect");
	plan_free(&plan);
}
END_TEST

START_TEST(test_pending_perms_and_size)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--perms", "0700", "--dir", "/d",
			       "--size", "4096", "--perms", "01777", "--tmpfs", "/t",
			       "--tmpfs", "/u", "true", NULL), 0);
	ck_assert_uint_eq(plan.n_ops, 3);
	ck_assert(plan.ops[0].has_perms);
	ck_assert_uint_eq(plan.ops[0].perms, 0700);
	ck_assert(plan.ops[1].has_perms);
	ck_assert_uint_eq(plan.ops[1].perms, 01777);
	ck_assert_uint_eq(plan.ops[1].size, 4096);
	/* taken: the next tmpfs has neither */
	ck_assert(!plan.ops[2].has_perms);
	ck_assert_uint_eq(plan.ops[2].size, 0);
	plan_free(&plan);

	/* hutch mode reads sizes as --memory does. */
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--size", "64M",
			       "--tmpfs", "/t", "true", NULL), 0);
	ck_assert_uint_eq(plan.ops[0].size, 64ULL << 20);
	plan_free(&plan);
}
END_TEST

static const struct { const char *a1, *a2, *a3, *a4, *err; } pending_errors[] = {
	{ "--perms", "0700", "--bind", "/", "--perms must be followed by an option that creates a file" },
	{ "--size", "10", "--dir", "/x", "--size must be followed by --tmpfs" },
	{ "--overlay-src", "/a", "--dir", "/x", "--overlay-src must be followed by another "
	  "--overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay" },
	{ "--perms", "0700", "--perms", "0600", "--perms given twice for the same action" },
	{ "--perms", "999", "--dir", "/x", "--perms takes an octal argument <= 07777" },
	{ "--size", "0", "--tmpfs", "/x", "--size takes a non-zero number of bytes" },
	{ "--overlay-src", "/a", "--ro-overlay", "/x", "--ro-overlay requires at least two --overlay-src" },
	{ "--tmp-overlay", "/x", "--dir", "/y", "--tmp-overlay requires at least one --overlay-src" },
};

START_TEST(test_pending_errors)
{
	struct plan plan;
	char err[ERRLEN];

	/* "--bind /" takes a second "/" */
	ck_assert_int_eq(parse(&plan, err, "bwrap", pending_errors[_i].a1, pending_errors[_i].a2,
			       pending_errors[_i].a3, pending_errors[_i].a4, "/", "true", NULL), -1);
	ck_assert_str_eq(err, pending_errors[_i].err);
	plan_free(&plan);
}
END_TEST

START_TEST(test_overlay_takes_its_sources)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--overlay-src", "/l1", "--overlay-src", "/l2",
			       "--ro-overlay", "/o", "--overlay-src", "/l3", "--overlay", "/rw", "/wd",
			       "/o2", "true", NULL), 0);
	ck_assert_uint_eq(plan.n_ops, 2);
	ck_assert_int_eq(plan.ops[0].kind, FS_RO_OVERLAY);
	ck_assert_uint_eq(plan.ops[0].n_lower, 2);
	ck_assert_str_eq(plan.ops[0].lower[1], "/l2");
	ck_assert_uint_eq(plan.ops[0].flags, FS_READONLY);
	ck_assert_int_eq(plan.ops[1].kind, FS_OVERLAY);
	ck_assert_uint_eq(plan.ops[1].n_lower, 1);
	ck_assert_str_eq(plan.ops[1].lower[0], "/l3");
	ck_assert_str_eq(plan.ops[1].src, "/rw");
	ck_assert_str_eq(plan.ops[1].workdir, "/wd");
	ck_assert_str_eq(plan.ops[1].dest, "/o2");
	ck_assert(!plan.overlay_src_left);
	plan_free(&plan);

	/* One left at the end is the prepare stage's error, as in bwrap. */
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--overlay-src", "/l1", "true", NULL), 0);
	ck_assert(plan.overlay_src_left);
	ck_assert_uint_eq(plan.n_ops, 0);
	plan_free(&plan);
}
END_TEST

/* A pipe holding DATA (LEN bytes), write end closed; returns the read end. */
static int args_pipe(const char *data, size_t len)
{
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], data, len), (ssize_t)len);
	close(fds[1]);
	return fds[0];
}

START_TEST(test_args_fd)
{
	static const char data[] = "--chdir\0/tmp\0--setenv\0A\0b c\0";
	struct plan plan;
	char err[ERRLEN], fd[16];
	int rfd = args_pipe(data, sizeof(data) - 1);

	snprintf(fd, sizeof(fd), "%d", rfd);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--args", fd, "--dir", "/d", "true", NULL), 0);
	ck_assert_str_eq(plan.chdir, "/tmp");
	ck_assert_str_eq(plan_getenv(&plan, "A"), "b c");
	ck_assert_uint_eq(plan.n_ops, 1);
	ck_assert_str_eq(plan.argv[0], "true");
	plan_free(&plan);
	close(rfd);
}
END_TEST

/* COMMAND may come from the --args data itself. */
START_TEST(test_args_fd_with_command)
{
	static const char data[] = "--dir\0/d\0echo\0--not-an-option\0";
	struct plan plan;
	char err[ERRLEN], fd[16];
	int rfd = args_pipe(data, sizeof(data) - 1);

	snprintf(fd, sizeof(fd), "%d", rfd);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--args", fd, NULL), 0);
	ck_assert_str_eq(plan.argv[0], "echo");
	ck_assert_str_eq(plan.argv[1], "--not-an-option");
	ck_assert_ptr_null(plan.argv[2]);
	ck_assert_uint_eq(plan.n_ops, 1);
	plan_free(&plan);
	close(rfd);
}
END_TEST

START_TEST(test_args_fd_errors)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "bwrap", "--args", "x", "true", NULL), -1);
	ck_assert_str_eq(err, "Invalid fd: x");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--args", "987", "true", NULL), -1);
	ck_assert_str_eq(err, "Can't read --args data: Bad file descriptor");
	plan_free(&plan);
}
END_TEST

/* hutch mode names the option that failed. */
START_TEST(test_hutch_errors_name_the_option)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--cap-add", "BOGUS",
			       "true", NULL), -1);
	ck_assert_str_eq(err, "--cap-add: unknown cap: BOGUS");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--cap-add", "BOGUS", "true", NULL), -1);
	ck_assert_str_eq(err, "unknown cap: BOGUS");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--rlimit", "nofile=9:8",
			       "true", NULL), -1);
	ck_assert(strncmp(err, "--rlimit nofile=9:8: expected NAME=SOFT[:HARD]", 46) == 0);
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--explain=yaml", NULL), -1);
	ck_assert_str_eq(err, "--explain: unknown format yaml (text or json)");
	plan_free(&plan);
}
END_TEST

/* --timing's formats; HUTCH_TIMING is read from the caller's
 * environment in both modes; bwrap has no --timing. */
START_TEST(test_timing_options)
{
	static char *env[] = { "PATH=/bin", "HUTCH_TIMING=/x/t.json", NULL };
	char *argv[] = { "bwrap", "--ro-bind", "/", "/", "true", NULL };
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--timing", "true", NULL), 0);
	ck_assert_uint_eq(plan.timing, TIMING_TEXT);
	ck_assert_ptr_null(plan.timing_file);
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--timing=json", "true",
			       NULL), 0);
	ck_assert_uint_eq(plan.timing, TIMING_JSON);
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--timing=csv", "true",
			       NULL), -1);
	ck_assert_str_eq(err, "--timing: unknown format csv (text or json)");
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "bwrap", "--timing", "true", NULL), -1);
	plan_free(&plan);
	ck_assert_int_eq(parse_plan(&plan, 5, argv, env, err, ERRLEN), 0);
	ck_assert_str_eq(plan.timing_file, "/x/t.json");
	ck_assert_uint_eq(plan.timing, 0);
	plan_free(&plan);
}
END_TEST

START_TEST(test_hutch_policy_options)
{
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--seccomp-deny",
			       "ptrace:EACCES", "--seccomp-allow", "mount", "--rlimit",
			       "nofile=64:128", "--memory", "1M", "--keep-env", "KEPT",
			       "--explain=json", NULL), 0);
	ck_assert_int_eq(plan.explain, EXPLAIN_JSON);
	ck_assert_uint_eq(plan.n_syscall_rules, 2);
	ck_assert_str_eq(plan.syscall_rules[0].name, "ptrace");
	ck_assert_int_eq(plan.syscall_rules[0].errnum, 13);	/* EACCES */
	ck_assert(!plan.syscall_rules[0].allow);
	ck_assert(plan.syscall_rules[1].allow);
	ck_assert_uint_eq(plan.n_rlimits, 1);
	ck_assert_uint_eq(plan.rlimits[0].soft, 64);
	ck_assert_uint_eq(plan.rlimits[0].hard, 128);
	ck_assert_uint_eq(plan.memory, 1ULL << 20);
	ck_assert_str_eq(plan_getenv(&plan, "KEPT"), "yes");
	ck_assert_ptr_null(plan.argv);
	plan_free(&plan);
}
END_TEST

/* --protect-git DIR: one --protect per path git is redirected by, the
 * commondir placeholder holding "."; relative to the bound cwd. */
START_TEST(test_protect_git_paths)
{
	static const char *const want[] = {
		"/work/.git/config", "/work/.git/config.worktree", "/work/.git/commondir",
		"/work/.git/hooks/", "/work/.git/worktrees/", "/work/.git/modules/",
	};
	struct plan plan;
	char err[ERRLEN];

	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--bind", "/work",
			       "/work", "--chdir", "/work", "--protect-git", ".git//", "true",
			       NULL), -1);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--profile", "none", "--protect-git",
			       "/work/.git/", "true", NULL), 0);
	ck_assert_uint_eq(plan.n_protect, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < plan.n_protect; i++) {
		ck_assert_str_eq(plan.protect[i].path, want[i]);
		ck_assert_str_eq(plan.protect[i].origin, "command line");
		if (i == 2)
			ck_assert_str_eq(plan.protect[i].text, ".\n");
		else
			ck_assert_ptr_null(plan.protect[i].text);
	}
	plan_free(&plan);
	ck_assert_int_eq(parse(&plan, err, "hutch", "--protect-git", "", "true", NULL), -1);
	ck_assert_str_eq(err, "--protect-git: an empty path");
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, test_bwrap_fs_ops_in_order);
	tcase_add_test(tc, test_namespaces_and_process);
	tcase_add_loop_test(tc, test_arity_errors, 0, sizeof(arity) / sizeof(arity[0]));
	tcase_add_test(tc, test_options_of_one_mode);
	tcase_add_test(tc, test_repeated_options_warn_in_bwrap_mode);
	tcase_add_test(tc, test_options_before_bad_word_apply);
	tcase_add_test(tc, test_pending_perms_and_size);
	tcase_add_loop_test(tc, test_pending_errors, 0,
			    sizeof(pending_errors) / sizeof(pending_errors[0]));
	tcase_add_test(tc, test_overlay_takes_its_sources);
	tcase_add_test(tc, test_args_fd);
	tcase_add_test(tc, test_args_fd_with_command);
	tcase_add_test(tc, test_args_fd_errors);
	tcase_add_test(tc, test_hutch_errors_name_the_option);
	tcase_add_test(tc, test_hutch_policy_options);
	tcase_add_test(tc, test_timing_options);
	tcase_add_test(tc, test_protect_git_paths);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(cli_suite());
}
