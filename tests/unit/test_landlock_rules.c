/* Unit tests of the Landlock fallback's rule builder (landlock_rules.c):
 * a plan's fs operations as rules, per-run areas and makes, and the
 * refusals of what Landlock cannot express.  Nothing runs: the builder
 * only looks at the plan and at the host's paths (/, /usr, /etc). */
#define _GNU_SOURCE
#include "landlock/landlock_rules.h"

#include <check.h>

#include "run_suite.h"
#include <string.h>
#include <unistd.h>

#define MAX_OPS 8

struct fixture {
	struct plan plan;
	struct fs_op ops[MAX_OPS];
	struct fallback_facts found;
	struct fallback fb;
	char err[1024];
};

static void start(struct fixture *t)
{
	memset(t, 0, sizeof(*t));
	t->plan.ops = t->ops;
	t->plan.uid = t->plan.caller_uid = getuid();
	t->plan.gid = t->plan.caller_gid = getgid();
}

static void add(struct fixture *t, enum fs_kind kind, unsigned flags, const char *src,
		const char *dest)
{
	ck_assert_int_lt(t->plan.n_ops, MAX_OPS);
	t->ops[t->plan.n_ops++] = (struct fs_op){ .kind = kind, .flags = flags,
						   .src = (char *)src, .dest = (char *)dest,
						   .fd = -1, .origin = "command line" };
}

static int translate(struct fixture *t)
{
	landlock_rules_init(&t->fb, &t->plan, &t->found, t->err, sizeof(t->err));
	return landlock_translate(&t->fb);
}

/* The rule at PATH, or NULL. */
static const struct rule *rule_at(const struct fixture *t, const char *path)
{
	for (size_t i = 0; i < t->fb.n_rules; i++)
		if (strcmp(t->fb.rules[i].path, path) == 0)
			return &t->fb.rules[i];
	return NULL;
}

START_TEST(read_only_bind_is_read_and_execute)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/usr", "/usr");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert_uint_eq(t.fb.n_rules, 1);
	ck_assert_ptr_nonnull(rule_at(&t, "/usr"));
	ck_assert(rule_at(&t, "/usr")->access == R_RX);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(writable_bind_beneath_a_read_only_one_adds)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/", "/");
	add(&t, FS_BIND, 0, "/etc", "/etc");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert(rule_at(&t, "/")->access == R_RX);
	ck_assert(rule_at(&t, "/etc")->access == R_RW);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(less_beneath_more_is_refused)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, 0, "/", "/");
	add(&t, FS_BIND, FS_READONLY, "/usr", "/usr");
	ck_assert_int_eq(translate(&t), -1);
	ck_assert_msg(strstr(t.err, "Landlock cannot take away beneath"), "%s", t.err);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(a_later_bind_replaces_what_is_beneath)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/usr", "/usr");
	add(&t, FS_BIND, 0, "/", "/");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert_uint_eq(t.fb.n_rules, 1);
	ck_assert(rule_at(&t, "/")->access == R_RW);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(moved_bind_is_refused)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/usr", "/opt/usr");
	ck_assert_int_eq(translate(&t), -1);
	ck_assert_msg(strstr(t.err, "Landlock cannot move paths"), "%s", t.err);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(remount_ro_takes_writing_away)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, 0, "/etc", "/etc");
	add(&t, FS_REMOUNT_RO, 0, NULL, "/etc");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert(rule_at(&t, "/etc")->access == R_RX);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(tmpfs_on_tmp_is_a_per_run_area)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/usr", "/usr");
	add(&t, FS_TMPFS, 0, NULL, "/tmp");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert_str_eq(t.fb.areas[AREA_TMP].dest, "/tmp");
	ck_assert(t.fb.areas[AREA_TMP].access == R_RW);
	ck_assert(rule_at(&t, "/tmp")->access == 0);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(tmpfs_beneath_a_readable_bind_is_refused)
{
	struct fixture t;

	start(&t);
	add(&t, FS_BIND, FS_READONLY, "/", "/");
	add(&t, FS_TMPFS, 0, NULL, "/tmp");
	ck_assert_int_eq(translate(&t), -1);
	ck_assert_msg(strstr(t.err, "Landlock cannot take away beneath"), "%s", t.err);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(proc_is_the_hosts_read_only)
{
	struct fixture t;

	start(&t);
	add(&t, FS_PROC, 0, NULL, "/proc");
	ck_assert_int_eq(translate(&t), 0);
	ck_assert(rule_at(&t, "/proc")->access == R_READ);
	ck_assert(t.found.host_proc);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(other_ids_are_refused)
{
	struct fixture t;

	start(&t);
	t.plan.uid = t.plan.caller_uid + 1;
	ck_assert_int_eq(translate(&t), -1);
	ck_assert_msg(strstr(t.err, "ids other than the caller's need a user namespace"),
		      "%s", t.err);
	landlock_rules_free(&t.fb);
}
END_TEST

START_TEST(mount_only_operations_are_refused)
{
	struct fixture t;

	start(&t);
	add(&t, FS_MQUEUE, 0, NULL, "/dev/mqueue");
	ck_assert_int_eq(translate(&t), -1);
	ck_assert_msg(strstr(t.err, "needs a mount namespace"), "%s", t.err);
	landlock_rules_free(&t.fb);
}
END_TEST

static Suite *landlock_rules_suite(void)
{
	Suite *s = suite_create("landlock_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, read_only_bind_is_read_and_execute);
	tcase_add_test(tc, writable_bind_beneath_a_read_only_one_adds);
	tcase_add_test(tc, less_beneath_more_is_refused);
	tcase_add_test(tc, a_later_bind_replaces_what_is_beneath);
	tcase_add_test(tc, moved_bind_is_refused);
	tcase_add_test(tc, remount_ro_takes_writing_away);
	tcase_add_test(tc, tmpfs_on_tmp_is_a_per_run_area);
	tcase_add_test(tc, tmpfs_beneath_a_readable_bind_is_refused);
	tcase_add_test(tc, proc_is_the_hosts_read_only);
	tcase_add_test(tc, other_ids_are_refused);
	tcase_add_test(tc, mount_only_operations_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(landlock_rules_suite());
}
