/* Unit tests of COMMAND's environment and argv as execve gets them
 * (command_env.c): the plan's environment with what the stages set at
 * run time on top, a variable set again keeping its place, the plan left
 * as it was, and --argv0.  Pure: nothing runs. */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "child/command_env.h"
#include "run_suite.h"
#include "sandbox.h"

static char *plan_env[] = { "PATH=/usr/bin:/bin", "HOME=/home/u", "PWD=/old", NULL };
static char *plan_argv[] = { "/bin/sh", "-c", "echo hi", NULL };

/* A sandbox on a plan with plan_env and plan_argv. */
static void setup(struct plan *plan, struct sandbox *sb)
{
	memset(plan, 0, sizeof(*plan));
	memset(sb, 0, sizeof(*sb));
	plan->env = plan_env;
	plan->n_env = 3;
	plan->argv = plan_argv;
	sb->plan = plan;
}

/* ENV, NULL-terminated, joined with spaces, into BUF. */
static const char *joined(char **env, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; env[i]; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", env[i]);
	return buf;
}

START_TEST(test_plan_env_as_is)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)), "PATH=/usr/bin:/bin HOME=/home/u PWD=/old");
	free(env);
}
END_TEST

START_TEST(test_new_variable_comes_last)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	command_env_set(&sb, "LISTEN_PID", "2");
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)),
			 "PATH=/usr/bin:/bin HOME=/home/u PWD=/old LISTEN_PID=2");
	free(env);
	command_env_release(&sb);
}
END_TEST

/* As setenv does: a variable of the plan set again keeps its place, and
 * the plan's own string is left alone. */
START_TEST(test_plan_variable_replaced_in_place)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	command_env_set(&sb, "HOME", "/tmp/fallback-home");
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)),
			 "PATH=/usr/bin:/bin HOME=/tmp/fallback-home PWD=/old");
	ck_assert_str_eq(plan_env[1], "HOME=/home/u");
	free(env);
	command_env_release(&sb);
}
END_TEST

/* Set twice at run time: the last value, once. */
START_TEST(test_set_twice_keeps_last_value_once)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	command_env_set(&sb, "TMPDIR", "/a");
	command_env_set(&sb, "PWD", "/new");
	command_env_set(&sb, "TMPDIR", "/b");
	ck_assert_uint_eq(sb.n_env_set, 2);
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)),
			 "PATH=/usr/bin:/bin HOME=/home/u PWD=/new TMPDIR=/b");
	free(env);
	command_env_release(&sb);
}
END_TEST

/* A name that is a prefix of another's replaces nothing but its own. */
START_TEST(test_prefix_name_is_another_variable)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	command_env_set(&sb, "PAT", "x");
	command_env_set(&sb, "PWD_X", "y");
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)),
			 "PATH=/usr/bin:/bin HOME=/home/u PWD=/old PAT=x PWD_X=y");
	free(env);
	command_env_release(&sb);
}
END_TEST

START_TEST(test_release_forgets_what_was_set)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **env;

	setup(&plan, &sb);
	command_env_set(&sb, "PWD", "/new");
	command_env_release(&sb);
	ck_assert_uint_eq(sb.n_env_set, 0);
	ck_assert_ptr_null(sb.env_set);
	env = command_env(&sb);
	ck_assert_str_eq(joined(env, buf, sizeof(buf)), "PATH=/usr/bin:/bin HOME=/home/u PWD=/old");
	free(env);
}
END_TEST

START_TEST(test_argv_is_the_plan_argv)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **argv;

	setup(&plan, &sb);
	argv = command_argv(&sb);
	ck_assert_str_eq(joined(argv, buf, sizeof(buf)), "/bin/sh -c echo hi");
	ck_assert_ptr_null(argv[3]);
	free(argv);
}
END_TEST

/* --argv0 replaces argv[0] only, and not in the plan. */
START_TEST(test_argv0_replaces_the_first_word)
{
	struct plan plan;
	struct sandbox sb;
	char buf[512];
	char **argv;

	setup(&plan, &sb);
	plan.argv0 = "-sh";
	argv = command_argv(&sb);
	ck_assert_str_eq(joined(argv, buf, sizeof(buf)), "-sh -c echo hi");
	ck_assert_str_eq(plan_argv[0], "/bin/sh");
	free(argv);
}
END_TEST

static Suite *command_env_suite(void)
{
	Suite *s = suite_create("command_env");
	TCase *tc = tcase_create("env_and_argv");

	tcase_add_test(tc, test_plan_env_as_is);
	tcase_add_test(tc, test_new_variable_comes_last);
	tcase_add_test(tc, test_plan_variable_replaced_in_place);
	tcase_add_test(tc, test_set_twice_keeps_last_value_once);
	tcase_add_test(tc, test_prefix_name_is_another_variable);
	tcase_add_test(tc, test_release_forgets_what_was_set);
	tcase_add_test(tc, test_argv_is_the_plan_argv);
	tcase_add_test(tc, test_argv0_replaces_the_first_word);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(command_env_suite());
}
