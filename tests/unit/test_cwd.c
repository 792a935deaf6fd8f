/* Unit tests of the current directory's bind (cwd.c): the starting
 * directories refused (the home directory and what holds it, the places
 * of host sockets: /tmp, /var/tmp, /dev/shm, /run, $XDG_RUNTIME_DIR,
 * /tmp/tmux-UID, ~/.ssh, and what is inside the runtime ones), those
 * allowed (a project below /tmp, /var/tmp or $HOME), a bind that would
 * cover an earlier mount, which mount the bind lands on and which later
 * one covers it, and the current directory's name when it has none.
 * Pure but for a scratch directory under /tmp, for the name. */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse/cwd.h"
#include "run_suite.h"

#define ERRLEN 2048

/* The caller's home: nothing needs to exist for the rules but the
 * current directory's name, which uses a scratch directory. */
static const char home[] = "/nonexistent-hutch-home/u";
static char scratch[64];	/* /tmp/hutch-unit-cwd.XXXXXX */
static char *no_env[] = { NULL };

static void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/hutch-unit-cwd.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void remove_scratch(void)
{
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(rmdir(scratch), 0);
}

/* A plan whose only op is the bind of the current directory. */
static struct plan *cwd_plan(struct plan *plan, struct fs_op *op)
{
	memset(plan, 0, sizeof(*plan));
	memset(op, 0, sizeof(*op));
	op->kind = FS_BIND;
	op->flags = FS_CWD;
	op->dest = "/cwd";
	op->origin = "profile default";
	plan->ops = op;
	plan->n_ops = 1;
	plan->caller_uid = 1234;
	return plan;
}

/* cwd_check of CWD with ENVP, ERR its message. */
static int check(const char *cwd, char *const *envp, char *err)
{
	struct plan plan;
	struct fs_op op;

	err[0] = '\0';
	return cwd_check(cwd_plan(&plan, &op), 0, cwd, home, envp, err, ERRLEN);
}

/* Does ERR start with "parse: current directory CWD: REST"? */
static bool says(const char *err, const char *cwd, const char *rest)
{
	char want[ERRLEN];

	snprintf(want, sizeof(want), "parse: current directory %s: %s", cwd, rest);
	return strncmp(err, want, strlen(want)) == 0;
}

START_TEST(test_home_is_refused)
{
	char err[ERRLEN];

	ck_assert_int_eq(check(home, no_env, err), -1);
	ck_assert_msg(says(err, home, "is your home directory, so binding it would expose ~/.ssh"),
		      "%s", err);
}
END_TEST

START_TEST(test_what_holds_home_is_refused)
{
	char err[ERRLEN], rest[256];

	snprintf(rest, sizeof(rest), "holds your home directory %s, so binding", home);
	ck_assert_int_eq(check("/", no_env, err), -1);
	ck_assert_msg(says(err, "/", rest), "%s", err);
}
END_TEST

START_TEST(test_project_below_home_passes)
{
	char cwd[128], err[ERRLEN];

	snprintf(cwd, sizeof(cwd), "%s/src/project", home);
	ck_assert_int_eq(check(cwd, no_env, err), 0);
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_tmp_itself_is_refused_below_it_passes)
{
	char err[ERRLEN];

	ck_assert_int_eq(check("/tmp", no_env, err), -1);
	ck_assert_msg(says(err, "/tmp", "is /tmp, which holds the sockets of programs outside the "
			   "sandbox (tmux, X11, ssh-agent): bound, even read-only, they let COMMAND "
			   "connect() to those programs"), "%s", err);
	ck_assert_int_eq(check("/tmp/project", no_env, err), 0);
	ck_assert_int_eq(check("/var/tmp", no_env, err), -1);
	ck_assert_int_eq(check("/var/tmp/project", no_env, err), 0);
}
END_TEST

/* What holds a place of sockets is refused: /var holds /var/tmp. */
START_TEST(test_what_holds_a_socket_place_is_refused)
{
	char err[ERRLEN];

	ck_assert_int_eq(check("/var", no_env, err), -1);
	ck_assert_msg(says(err, "/var", "holds /var/tmp, which holds"), "%s", err);
}
END_TEST

/* Inside the runtime directories nothing but running programs' state. */
START_TEST(test_inside_a_runtime_directory_is_refused)
{
	char err[ERRLEN];

	ck_assert_int_eq(check("/run/user/1234", no_env, err), -1);
	ck_assert_msg(says(err, "/run/user/1234", "is inside /run, which holds the sockets of the "
			   "system's services"), "%s", err);
	ck_assert_int_eq(check("/dev/shm/x", no_env, err), -1);
	ck_assert_msg(says(err, "/dev/shm/x", "is inside /dev/shm"), "%s", err);
}
END_TEST

/* The caller's $XDG_RUNTIME_DIR, from the environment given. */
START_TEST(test_xdg_runtime_dir_is_refused)
{
	char env0[128], cwd[128], err[ERRLEN], rest[256];
	char *envp[] = { env0, NULL };

	snprintf(env0, sizeof(env0), "XDG_RUNTIME_DIR=%s/xdg", home);
	snprintf(cwd, sizeof(cwd), "%s/xdg/app", home);
	ck_assert_int_eq(check(cwd, no_env, err), 0);
	ck_assert_int_eq(check(cwd, envp, err), -1);
	snprintf(rest, sizeof(rest), "is inside your runtime directory %s/xdg, which holds the "
		 "sockets of your session", home);
	ck_assert_msg(says(err, cwd, rest), "%s", err);
}
END_TEST

/* Places of one uid and of the home: /tmp/tmux-UID, ~/.ssh, ~/.gnupg. */
START_TEST(test_per_uid_and_home_places_are_refused)
{
	char cwd[128], err[ERRLEN];

	ck_assert_int_eq(check("/tmp/tmux-1234", no_env, err), -1);
	ck_assert_msg(says(err, "/tmp/tmux-1234", "is /tmp/tmux-1234, which holds the sockets of "
			   "your tmux servers"), "%s", err);
	ck_assert_int_eq(check("/tmp/tmux-1234/default", no_env, err), -1);
	ck_assert_int_eq(check("/tmp/tmux-99", no_env, err), 0);
	snprintf(cwd, sizeof(cwd), "%s/.ssh", home);
	ck_assert_int_eq(check(cwd, no_env, err), -1);
	snprintf(cwd, sizeof(cwd), "%s/.gnupg/private", home);
	ck_assert_int_eq(check(cwd, no_env, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "the sockets of gpg-agent"));
}
END_TEST

/* The bind over a mount made before it: the mount would be covered. */
START_TEST(test_bind_over_an_earlier_mount_is_refused)
{
	struct fs_op ops[3] = {
		{ .kind = FS_TMPFS, .dest = "/srv/proj/build", .origin = "command line" },
		{ .kind = FS_DIR, .dest = "/srv/proj/x", .origin = "command line" },
		{ .kind = FS_BIND, .flags = FS_CWD, .dest = "/srv/proj", .origin = "profile" },
	};
	struct plan plan = { .ops = ops, .n_ops = 3, .caller_uid = 1234 };
	char err[ERRLEN];

	ck_assert_int_eq(cwd_check(&plan, 2, "/srv/proj", home, no_env, err, ERRLEN), -1);
	ck_assert_msg(says(err, "/srv/proj", "its bind would cover the tmpfs on /srv/proj/build "
			   "(command line) with the host's directory"), "%s", err);
	ops[0].kind = FS_SYMLINK;	/* makes no mount */
	ck_assert_int_eq(cwd_check(&plan, 2, "/srv/proj", home, no_env, err, ERRLEN), 0);
}
END_TEST

/* The mount the bind lands on: the last made before it that holds it. */
START_TEST(test_lands_on_the_last_mount_holding_it)
{
	struct fs_op ops[5] = {
		{ .kind = FS_TMPFS, .dest = "/" },
		{ .kind = FS_TMPFS, .dest = "/home" },
		{ .kind = FS_DIR, .dest = "/home/u" },
		{ .kind = FS_BIND, .flags = FS_CWD, .dest = "/home/u/proj" },
		{ .kind = FS_BIND, .flags = FS_CWD, .dest = "/srv/x" },
	};
	struct plan plan = { .ops = ops, .n_ops = 5 };

	ck_assert_ptr_eq(cwd_lands_on(&plan, 3), &ops[1]);
	ck_assert_ptr_eq(cwd_lands_on(&plan, 4), &ops[0]);
	ck_assert_ptr_null(cwd_lands_on(&plan, 0));
}
END_TEST

/* A later mount over the bound directory: the last such. */
START_TEST(test_covered_by_the_last_later_mount)
{
	struct fs_op ops[5] = {
		{ .kind = FS_BIND, .flags = FS_CWD, .dest = "/home/u/proj" },
		{ .kind = FS_TMPFS, .dest = "/home" },
		{ .kind = FS_TMPFS, .dest = "/home/u" },
		{ .kind = FS_CHMOD, .dest = "/home/u/proj" },
		{ .kind = FS_TMPFS, .dest = "/home/u/proj/sub" },
	};
	struct plan plan = { .ops = ops, .n_ops = 5 };

	ck_assert_ptr_eq(cwd_covered_by(&plan, 0), &ops[2]);
	plan.n_ops = 2;
	ck_assert_ptr_eq(cwd_covered_by(&plan, 0), &ops[1]);
	plan.n_ops = 1;
	ck_assert_ptr_null(cwd_covered_by(&plan, 0));
}
END_TEST

START_TEST(test_name_of_the_current_directory)
{
	char buf[PATH_MAX], err[ERRLEN] = "";

	ck_assert_int_eq(chdir(scratch), 0);
	ck_assert_int_eq(cwd_name(buf, sizeof(buf), err, ERRLEN), 0);
	ck_assert_str_eq(buf, scratch);
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_deleted_current_directory_has_no_name)
{
	char dir[128], buf[PATH_MAX], err[ERRLEN];

	snprintf(dir, sizeof(dir), "%s/gone", scratch);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_int_eq(cwd_name(buf, sizeof(buf), err, ERRLEN), -1);
	ck_assert_str_eq(err, "parse: current directory: it was deleted; cd into a directory that exists");
}
END_TEST

static Suite *cwd_suite(void)
{
	Suite *s = suite_create("cwd");
	TCase *tc = tcase_create("rules");
	TCase *name = tcase_create("name");

	tcase_add_checked_fixture(name, make_scratch, remove_scratch);
	tcase_add_test(tc, test_home_is_refused);
	tcase_add_test(tc, test_what_holds_home_is_refused);
	tcase_add_test(tc, test_project_below_home_passes);
	tcase_add_test(tc, test_tmp_itself_is_refused_below_it_passes);
	tcase_add_test(tc, test_what_holds_a_socket_place_is_refused);
	tcase_add_test(tc, test_inside_a_runtime_directory_is_refused);
	tcase_add_test(tc, test_xdg_runtime_dir_is_refused);
	tcase_add_test(tc, test_per_uid_and_home_places_are_refused);
	tcase_add_test(tc, test_bind_over_an_earlier_mount_is_refused);
	tcase_add_test(tc, test_lands_on_the_last_mount_holding_it);
	tcase_add_test(tc, test_covered_by_the_last_later_mount);
	tcase_add_test(name, test_name_of_the_current_directory);
	tcase_add_test(name, test_deleted_current_directory_has_no_name);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, name);
	return s;
}

int main(void)
{
	return run_suite(cwd_suite());
}
