/* Unit tests of profiles (profile.c): lines into option records with
 * their FILE:LINE, quoting, variables, includes and their loops, the
 * errors that name FILE:LINE and the word at fault, and a profile's
 * options applied to a plan through parse_plan.  The profiles are
 * written to a scratch directory under /tmp, one for the suite. */
#define _GNU_SOURCE
#include "parse/cli.h"
#include "parse/parse.h"
#include "plan/plan.h"
#include "parse/profile.h"

#include <check.h>

#include "run_suite.h"
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRLEN 4096

static char dir[64];
static char *test_env[] = { "HOME=/home/tester", "USER=tester", NULL };

/* One scratch directory for the suite, made and removed by the parent
 * (an unchecked fixture), so that a failed test leaves none behind. */
static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hutch-test-profile.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		abort();
}

/* Write profile NAME holding TEXT; returns its path (static). */
static const char *write_profile(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static int record(const char *path, struct record_list *out, char *err)
{
	struct plan plan = { .mode = MODE_HUTCH, .prog = "hutch" };

	err[0] = '\0';
	return profile_record(&plan, path, test_env, out, err, ERRLEN);
}

static void assert_origin(const struct option_record *rec, const char *file, int line)
{
	char want[256];

	snprintf(want, sizeof(want), "%s/%s:%d", dir, file, line);
	ck_assert_str_eq(rec->origin, want);
}

START_TEST(test_lines_into_records)
{
	struct record_list out = { 0 };
	char err[ERRLEN];

	ck_assert_int_eq(record(write_profile("p", "# a comment\n"
					      "ro-bind /usr /usr   # and one after\n"
					      "\n"
					      "  tmpfs '/a b'\n"
					      "setenv X \"q\\\"x\" \n"
					      "bind-cwd\n"), &out, err), 0);
	ck_assert_uint_eq(out.n, 4);
	ck_assert_str_eq(cli_option_name(&out.recs[0]), "ro-bind");
	ck_assert_str_eq(out.recs[0].args[0], "/usr");
	ck_assert_str_eq(out.recs[0].args[1], "/usr");
	assert_origin(&out.recs[0], "p", 2);
	ck_assert_str_eq(cli_option_name(&out.recs[1]), "tmpfs");
	ck_assert_str_eq(out.recs[1].args[0], "/a b");
	assert_origin(&out.recs[1], "p", 4);
	ck_assert_str_eq(out.recs[2].args[0], "X");
	ck_assert_str_eq(out.recs[2].args[1], "q\"x");
	ck_assert_str_eq(cli_option_name(&out.recs[3]), "bind-cwd");
	ck_assert_ptr_null(out.recs[3].args[0]);
	assert_origin(&out.recs[3], "p", 6);
	ck_assert_ptr_null(out.command);
	cli_records_free(&out);
}
END_TEST

START_TEST(test_variables)
{
	struct record_list out = { 0 };
	char err[ERRLEN];

	ck_assert_int_eq(record(write_profile("v", "bind ${HOME}/src \"${HOME}/d\"\n"
					      "tmpfs '${HOME}'\n"), &out, err), 0);
	ck_assert_uint_eq(out.n, 2);
	ck_assert_str_eq(out.recs[0].args[0], "/home/tester/src");
	ck_assert_str_eq(out.recs[0].args[1], "/home/tester/d");
	/* single quotes: no expansion */
	ck_assert_str_eq(out.recs[1].args[0], "${HOME}");
	cli_records_free(&out);
}
END_TEST

/* ${HOME} for a HOME that is no home (not absolute, with . or .., /,
 * or in a directory the sandbox takes from the host or mounts itself)
 * is /nonexistent, with a note for --explain; any other HOME is itself. */
static const struct { const char *home, *want, *why; } home_cases[] = {
	{ "HOME=/home/tester", "/home/tester", NULL },
	{ "HOME=/var/lib/postgresql", "/var/lib/postgresql", NULL },
	{ "HOME=/usrlocal", "/usrlocal", NULL },
	{ "HOME=/tmp", "/tmp", NULL },
	{ "HOME=/", "/nonexistent", "is /" },
	{ "HOME=//", "/nonexistent", "is /" },
	{ "HOME=foo", "/nonexistent", "is not an absolute path" },
	{ "HOME=/bin", "/nonexistent", "is in /bin" },
	{ "HOME=/usr/sbin", "/nonexistent", "is in /usr" },
	{ "HOME=//usr/", "/nonexistent", "is in /usr" },
	{ "HOME=/proc", "/nonexistent", "is in /proc" },
	{ "HOME=/etc", "/nonexistent", "is in /etc" },
	{ "HOME=/home/../bin", "/nonexistent", "has a . or .. component" },
	{ "HOME=/home/./x", "/nonexistent", "has a . or .. component" },
};

START_TEST(test_home_that_is_no_home)
{
	struct plan plan = { .mode = MODE_HUTCH, .prog = "hutch" };
	struct record_list out = { 0 };
	char *env[] = { (char *)home_cases[_i].home, "USER=tester", NULL };
	char err[ERRLEN];
	const char *path = write_profile("home", "tmpfs ${HOME}\nsetenv HOME ${HOME}\n");

	ck_assert_int_eq(profile_record(&plan, path, env, &out, err, ERRLEN), 0);
	ck_assert_uint_eq(out.n, 2);
	ck_assert_str_eq(out.recs[0].args[0], home_cases[_i].want);
	ck_assert_str_eq(out.recs[1].args[1], home_cases[_i].want);
	if (!home_cases[_i].why) {
		ck_assert_uint_eq(plan.n_notes, 0);
	} else {
		/* one note, however often ${HOME} is used */
		ck_assert_uint_eq(plan.n_notes, 1);
		ck_assert_ptr_nonnull(strstr(plan.notes[0], home_cases[_i].why));
		ck_assert_ptr_nonnull(strstr(plan.notes[0], "profiles see ${HOME} as /nonexistent"));
	}
	cli_records_free(&out);
	plan_free(&plan);
}
END_TEST

START_TEST(test_include)
{
	struct record_list out = { 0 };
	char err[ERRLEN], line[256];
	const char *inner;

	inner = write_profile("inner", "dir /from-inner\n");
	snprintf(line, sizeof(line), "dir /before\ninclude %s\ndir /after\n", inner);
	ck_assert_int_eq(record(write_profile("outer", line), &out, err), 0);
	ck_assert_uint_eq(out.n, 3);
	ck_assert_str_eq(out.recs[0].args[0], "/before");
	ck_assert_str_eq(out.recs[1].args[0], "/from-inner");
	assert_origin(&out.recs[1], "inner", 1);
	ck_assert_str_eq(out.recs[2].args[0], "/after");
	assert_origin(&out.recs[2], "outer", 3);
	cli_records_free(&out);
}
END_TEST

START_TEST(test_include_loop)
{
	struct record_list out = { 0 };
	char err[ERRLEN], text[256], want[256], a[128];

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(text, sizeof(text), "include %s/b\n", dir);
	write_profile("a", text);
	snprintf(text, sizeof(text), "include %s\n", a);
	write_profile("b", text);
	ck_assert_int_eq(record(a, &out, err), -1);
	snprintf(want, sizeof(want), "parse: profile %s: includes itself", a);
	ck_assert_str_eq(err, want);
	cli_records_free(&out);
}
END_TEST

/* "include ./base" and "include sub/base" are the including file's
 * neighbours, whatever the current directory holds (the project, which
 * the sandbox writes: issue 25). */
START_TEST(test_relative_include_beside_the_including_file)
{
	struct record_list out = { 0 };
	char err[ERRLEN], sub[128], decoy[] = "/tmp/hutch-test-cwd.XXXXXX", cwd[4096];
	FILE *f;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ck_assert_int_eq(mkdir(sub, 0755) == 0 || errno == EEXIST, 1);
	write_profile("base", "dir /beside\n");
	write_profile("sub/base", "dir /below\n");
	ck_assert_ptr_nonnull(mkdtemp(decoy));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(decoy), 0);
	f = fopen("base", "w");
	ck_assert_ptr_nonnull(f);
	fputs("dir /from-the-current-directory\n", f);
	fclose(f);
	ck_assert_int_eq(record(write_profile("top", "include ./base\ninclude sub/base\n"),
				&out, err), 0);
	unlink("base");
	ck_assert_int_eq(chdir(cwd), 0);
	rmdir(decoy);
	ck_assert_uint_eq(out.n, 2);
	ck_assert_str_eq(out.recs[0].args[0], "/beside");
	assert_origin(&out.recs[0], "base", 1);
	ck_assert_str_eq(out.recs[1].args[0], "/below");
	cli_records_free(&out);
}
END_TEST

/* A file included twice by different names is still a loop. */
START_TEST(test_include_loop_relative)
{
	struct record_list out = { 0 };
	char err[ERRLEN], want[256];

	ck_assert_int_eq(record(write_profile("self", "include ./././self\n"), &out, err), -1);
	snprintf(want, sizeof(want), "parse: profile ./././self: includes itself");
	ck_assert_str_eq(err, want);
	cli_records_free(&out);
}
END_TEST

/* Errors name FILE:LINE and the word at fault. */
static const struct { const char *text; int line; const char *why; } bad_lines[] = {
	{ "dir /ok\ntmpfs /a\\\n", 2, "/a: a backslash ends the line" },
	{ "tmpfs '/a\n", 1, "/a: unterminated quote" },
	{ "frobnicate /x\n", 1, "frobnicate: unknown option or not allowed in a profile" },
	{ "# ok\npass-fd 3\n", 2, "pass-fd: unknown option or not allowed in a profile" },
	{ "profile other\n", 1, "profile: unknown option or not allowed in a profile" },
	{ "tmpfs ${BOGUS}\n", 1, "BOGUS: unknown variable (HOME PWD USER UID GID XDG_RUNTIME_DIR)" },
	{ "tmpfs $HOME\n", 1, "$HOME: variables are written ${NAME}" },
	{ "bind /a\n", 1, "bind: --bind takes two arguments" },
	{ "include\n", 1, "include: takes one profile name" },
	{ "a b c d e f g h i\n", 1, "i: too many words" },
};

START_TEST(test_bad_lines)
{
	struct record_list out = { 0 };
	char err[ERRLEN], want[512];

	ck_assert_int_eq(record(write_profile("bad", bad_lines[_i].text), &out, err), -1);
	snprintf(want, sizeof(want), "parse: %s/bad:%d: %s", dir, bad_lines[_i].line,
		 bad_lines[_i].why);
	ck_assert_str_eq(err, want);
	cli_records_free(&out);
}
END_TEST

START_TEST(test_missing_profile)
{
	struct record_list out = { 0 };
	char err[ERRLEN], want[256], path[128];

	snprintf(path, sizeof(path), "%s/none-here", dir);
	ck_assert_int_eq(record(path, &out, err), -1);
	snprintf(want, sizeof(want), "parse: profile %s: No such file or directory", path);
	ck_assert_str_eq(err, want);
	cli_records_free(&out);
}
END_TEST

static int parse_with_profile(struct plan *plan, const char *path, char *err)
{
	char *argv[] = { "hutch", "--profile", (char *)path, "--explain", NULL };

	err[0] = '\0';
	return parse_plan(plan, 4, argv, test_env, err, ERRLEN);
}

/* Applied: the profile's options reach the plan with their origin, and
 * an option that fails names FILE:LINE before the option. */
START_TEST(test_applied_to_plan)
{
	struct plan plan;
	char err[ERRLEN], want[256];
	const char *path;

	path = write_profile("ok", "ro-bind /usr /usr\npids 9\n");
	ck_assert_int_eq(parse_with_profile(&plan, path, err), 0);
	ck_assert_uint_eq(plan.n_ops, 1);
	snprintf(want, sizeof(want), "%s:1", path);
	ck_assert_str_eq(plan.ops[0].origin, want);
	ck_assert_int_eq(plan.pids, 9);
	snprintf(want, sizeof(want), "%s:2", path);
	ck_assert_str_eq(plan.pids_origin, want);
	plan_free(&plan);

	path = write_profile("fails", "dir /x\ncap-add BOGUS\n");
	ck_assert_int_eq(parse_with_profile(&plan, path, err), -1);
	snprintf(want, sizeof(want), "%s:2: --cap-add: unknown cap: BOGUS", path);
	ck_assert_str_eq(err, want);
	plan_free(&plan);
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_unchecked_fixture(tc, make_dir, remove_dir);

	tcase_add_test(tc, test_lines_into_records);
	tcase_add_test(tc, test_variables);
	tcase_add_loop_test(tc, test_home_that_is_no_home, 0,
			    (int)(sizeof(home_cases) / sizeof(home_cases[0])));
	tcase_add_test(tc, test_include);
	tcase_add_test(tc, test_include_loop);
	tcase_add_test(tc, test_relative_include_beside_the_including_file);
	tcase_add_test(tc, test_include_loop_relative);
	tcase_add_loop_test(tc, test_bad_lines, 0, sizeof(bad_lines) / sizeof(bad_lines[0]));
	tcase_add_test(tc, test_missing_profile);
	tcase_add_test(tc, test_applied_to_plan);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(profile_suite());
}
