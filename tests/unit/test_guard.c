/* Unit tests of the persistence guard (guard.c): in hutch mode no plan
 * makes writable inside the sandbox hutch's configuration, its binary or
 * what runs from $HOME at login or every day, whether the bind is of
 * such a place, of a directory that holds one, or of one inside it, and
 * whatever path (a link) names it; read-only binds, bwrap mode and the
 * kinds that write nothing to the host pass.  Pure but for a scratch home
 * directory made under /tmp. */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/guard.h"
#include "run_suite.h"

#define ERRLEN 1024

static char home[64];	/* /tmp/hutch-unit-guard.XXXXXX */

static void make_home(void)
{
	snprintf(home, sizeof(home), "/tmp/hutch-unit-guard.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(home));
}

static void remove_home(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	ck_assert_int_eq(system(cmd), 0);
}

/* HOME/REL into BUF. */
static char *in_home(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s%s%s", home, rel[0] ? "/" : "", rel);
	return buf;
}

/* A plan of MODE with one op: KIND with FLAGS from SRC to /x. */
static void one_op(struct plan *plan, struct fs_op *op, enum mode mode, enum fs_kind kind,
		   unsigned flags, char *src)
{
	memset(plan, 0, sizeof(*plan));
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->flags = flags;
	op->src = src;
	op->dest = "/x";
	op->fd = -1;
	op->origin = "command line";
	plan->mode = mode;
	plan->ops = op;
	plan->n_ops = 1;
	plan->guard_home = home;
}

/* guard_check of a plan with a writable --bind of SRC, ERR its message. */
static int check_bind(const char *src, char *err)
{
	struct plan plan;
	struct fs_op op;

	err[0] = '\0';
	one_op(&plan, &op, MODE_HUTCH, FS_BIND, 0, (char *)src);
	return guard_check(&plan, home, err, ERRLEN);
}

START_TEST(test_bind_of_home_is_refused)
{
	char err[ERRLEN], want[ERRLEN + PATH_MAX * 2], prot[PATH_MAX];

	ck_assert_int_eq(check_bind(home, err), -1);
	snprintf(want, sizeof(want), "parse: --bind %s (command line): would make %s writable "
		 "inside the sandbox (hutch's configuration: it decides the next sandbox); a "
		 "sandboxed program could plant code there that runs outside it later",
		 home, in_home(prot, ".config/hutch"));
	ck_assert_str_eq(err, want);
}
END_TEST

/* The places themselves, files and directories alike. */
START_TEST(test_bind_of_a_protected_place_is_refused)
{
	static const char *const places[] = { ".bashrc", ".profile", ".ssh", ".local/bin",
					      ".config/systemd/user", ".gitconfig", "bin" };
	char src[PATH_MAX], err[ERRLEN];

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		ck_assert_int_eq(check_bind(in_home(src, places[i]), err), -1);
		ck_assert_msg(strstr(err, src) != NULL, "%s: %s", places[i], err);
	}
}
END_TEST

/* A directory holding a protected place (~/.local holds ~/.local/bin),
 * and one inside a protected directory (~/.ssh/keys). */
START_TEST(test_bind_above_or_inside_is_refused)
{
	char src[PATH_MAX], err[ERRLEN];

	ck_assert_int_eq(check_bind(in_home(src, ".local"), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "/.local/"));
	ck_assert_int_eq(check_bind(in_home(src, ".ssh/keys"), err), -1);
	ck_assert_ptr_nonnull(strstr(err, "authorized_keys"));
	ck_assert_int_eq(check_bind(in_home(src, ".config/git/hooks"), err), -1);
}
END_TEST

/* A project directory under HOME, or a name that only starts like a
 * protected one (~/.sshfoo, ~/binaries), exposes none of them. */
START_TEST(test_bind_of_a_project_passes)
{
	char src[PATH_MAX], err[ERRLEN];

	ck_assert_int_eq(check_bind(in_home(src, "src/project"), err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(check_bind(in_home(src, ".sshfoo"), err), 0);
	ck_assert_int_eq(check_bind(in_home(src, "binaries"), err), 0);
	ck_assert_int_eq(check_bind(in_home(src, ".local/share/project"), err), 0);
}
END_TEST

/* /etc/hutch is guarded with or without a home. */
START_TEST(test_etc_hutch_is_refused_without_home)
{
	struct plan plan;
	struct fs_op op;
	char err[ERRLEN] = "";

	one_op(&plan, &op, MODE_HUTCH, FS_BIND, 0, "/etc");
	ck_assert_int_eq(guard_check(&plan, NULL, err, ERRLEN), -1);
	ck_assert_ptr_nonnull(strstr(err, "would make /etc/hutch writable"));
	one_op(&plan, &op, MODE_HUTCH, FS_BIND, 0, "/tmp");
	ck_assert_int_eq(guard_check(&plan, NULL, err, ERRLEN), 0);
}
END_TEST

/* hutch's own binary (here: this test's), and the directory holding it. */
START_TEST(test_own_binary_is_refused)
{
	char self[PATH_MAX], err[ERRLEN];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	ck_assert_int_eq(check_bind(self, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "(hutch's own binary)"));
}
END_TEST

/* The source is judged by what it is, not how it is named: a link to the
 * home directory is the home directory. */
START_TEST(test_link_to_home_is_refused)
{
	char link[PATH_MAX + 8], err[ERRLEN];

	snprintf(link, sizeof(link), "%s.link", home);
	ck_assert_int_eq(symlink(home, link), 0);
	ck_assert_int_eq(check_bind(link, err), -1);
	unlink(link);
}
END_TEST

START_TEST(test_read_only_bind_passes)
{
	struct plan plan;
	struct fs_op op;
	char err[ERRLEN] = "";

	one_op(&plan, &op, MODE_HUTCH, FS_BIND, FS_READONLY, home);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), 0);
}
END_TEST

/* bwrap mode does what bwrap does. */
START_TEST(test_bwrap_mode_passes)
{
	struct plan plan;
	struct fs_op op;
	char err[ERRLEN] = "";

	one_op(&plan, &op, MODE_BWRAP, FS_BIND, 0, home);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), 0);
}
END_TEST

/* The option named in the message is the one given. */
START_TEST(test_message_names_the_option)
{
	struct plan plan;
	struct fs_op op;
	char err[ERRLEN];

	one_op(&plan, &op, MODE_HUTCH, FS_BIND, FS_DEVICES, home);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), -1);
	ck_assert_int_eq(strncmp(err, "parse: --dev-bind ", 18), 0);
	one_op(&plan, &op, MODE_HUTCH, FS_BIND, FS_CWD, home);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), -1);
	ck_assert_int_eq(strncmp(err, "parse: --bind-cwd ", 18), 0);
	one_op(&plan, &op, MODE_HUTCH, FS_OVERLAY, 0, home);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), -1);
	ck_assert_int_eq(strncmp(err, "parse: --overlay ", 17), 0);
}
END_TEST

START_TEST(test_which_kinds_write_to_the_host)
{
	struct fs_op op = { .kind = FS_BIND };

	ck_assert(guard_op_writable(&op));
	op.flags = FS_READONLY;
	ck_assert(!guard_op_writable(&op));
	op.kind = FS_BIND_FD;
	ck_assert(!guard_op_writable(&op));
	op.flags = 0;
	ck_assert(guard_op_writable(&op));
	op.kind = FS_OVERLAY;
	ck_assert(guard_op_writable(&op));
	op.kind = FS_TMPFS;
	ck_assert(!guard_op_writable(&op));
	op.kind = FS_TMP_OVERLAY;
	ck_assert(!guard_op_writable(&op));
	op.kind = FS_MIRROR;
	ck_assert(!guard_op_writable(&op));
}
END_TEST

/* At the bind: the object about to be bound, by its real path (an fd's
 * bind names none), judged against the home parsing used. */
START_TEST(test_bound_object_is_judged_by_its_real_path)
{
	struct plan plan;
	struct fs_op op;
	char err[ERRLEN], real[PATH_MAX];

	one_op(&plan, &op, MODE_HUTCH, FS_BIND_FD, 0, NULL);
	ck_assert_int_eq(guard_check(&plan, home, err, ERRLEN), 0);
	ck_assert_int_eq(guard_check_bound(&plan, &op, "mounts", in_home(real, ".ssh"), err,
					   ERRLEN), -1);
	ck_assert_int_eq(strncmp(err, "mounts: --bind-fd ", 18), 0);
	ck_assert_ptr_nonnull(strstr(err, real));
	ck_assert_int_eq(guard_check_bound(&plan, &op, "mounts", in_home(real, "work"), err,
					   ERRLEN), 0);
	op.flags = FS_READONLY;
	ck_assert_int_eq(guard_check_bound(&plan, &op, "mounts", in_home(real, ".ssh"), err,
					   ERRLEN), 0);
	plan.mode = MODE_BWRAP;
	op.flags = 0;
	ck_assert_int_eq(guard_check_bound(&plan, &op, "mounts", in_home(real, ".ssh"), err,
					   ERRLEN), 0);
}
END_TEST

static Suite *guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("persistence");

	tcase_add_checked_fixture(tc, make_home, remove_home);
	tcase_add_test(tc, test_bind_of_home_is_refused);
	tcase_add_test(tc, test_bind_of_a_protected_place_is_refused);
	tcase_add_test(tc, test_bind_above_or_inside_is_refused);
	tcase_add_test(tc, test_bind_of_a_project_passes);
	tcase_add_test(tc, test_etc_hutch_is_refused_without_home);
	tcase_add_test(tc, test_own_binary_is_refused);
	tcase_add_test(tc, test_link_to_home_is_refused);
	tcase_add_test(tc, test_read_only_bind_passes);
	tcase_add_test(tc, test_bwrap_mode_passes);
	tcase_add_test(tc, test_message_names_the_option);
	tcase_add_test(tc, test_which_kinds_write_to_the_host);
	tcase_add_test(tc, test_bound_object_is_judged_by_its_real_path);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(guard_suite());
}
