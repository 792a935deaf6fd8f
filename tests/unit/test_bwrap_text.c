/* Unit tests of bwrap_text.c: bwrap's words for a failure, with its
 * /newroot and /oldroot paths, its mount error text and its escaping of
 * overlay options; hutch's words in hutch mode. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <errno.h>
#include <string.h>

#include "messages/bwrap_text.h"

START_TEST(test_paths_under_the_roots)
{
	char out[256];

	messages_bwrap_format(out, sizeof(out), BW_MOUNT_PROC, "/proc", NULL);
	ck_assert_str_eq(out, "Can't mount proc on /newroot/proc");
	messages_bwrap_format(out, sizeof(out), BW_MOUNT_PROC, "//a/b", NULL);
	ck_assert_str_eq(out, "Can't mount proc on /newroot/a/b");
	messages_bwrap_format(out, sizeof(out), BW_BIND, "/usr", "/mnt/u");
	ck_assert_str_eq(out, "Can't bind mount /oldroot/usr on /newroot/mnt/u: "
			 "Unable to mount source on destination");
	messages_bwrap_format(out, sizeof(out), BW_MKDIR_PARENTS, "/a/b", NULL);
	ck_assert_str_eq(out, "Can't mkdir parents for /a/b");
}
END_TEST

START_TEST(test_two_arguments)
{
	char out[256];

	messages_bwrap_format(out, sizeof(out), BW_SYMLINK_EXISTS, "/tmp/l", "a");
	ck_assert_str_eq(out, "Can't make symlink at /tmp/l: existing destination is a");
	messages_bwrap_format(out, sizeof(out), BW_CHMOD, "0755", "/x");
	ck_assert_str_eq(out, "Can't chmod 0755 /x");
}
END_TEST

START_TEST(test_truncated_not_overrun)
{
	char out[12];

	messages_bwrap_format(out, sizeof(out), BW_MOUNT_PROC, "/proc", NULL);
	ck_assert_str_eq(out, "Can't mount");
}
END_TEST

START_TEST(test_errno_parts)
{
	char err[512];
	struct failure f = { "mounts", "new procfs for", "/proc", BW_MOUNT_PROC, "/proc", NULL };

	ck_assert_int_eq(messages_bwrap_fail(err, sizeof(err), MODE_BWRAP, &f, EPERM), -1);
	ck_assert_str_eq(err, "mounts: Can't mount proc on /newroot/proc: Operation not permitted");
	messages_bwrap_fail(err, sizeof(err), MODE_BWRAP, &f, ENOSPC);
	ck_assert_str_eq(err, "mounts: Can't mount proc on /newroot/proc: Limit exceeded (ENOSPC). "
			 "(Hint: Check that /proc/sys/fs/mount-max is sufficient, typically 100000)");
	f.id = BW_SYMLINK_NOT_LINK;
	f.a = "/etc/x";
	messages_bwrap_fail(err, sizeof(err), MODE_BWRAP, &f, EEXIST);
	ck_assert_str_eq(err, "mounts: Can't make symlink at /etc/x: destination exists and "
			 "is not a symlink");
}
END_TEST

START_TEST(test_hutch_words_in_hutch_mode)
{
	char err[512];
	struct failure f = { "mounts", "new procfs for", "/proc", BW_MOUNT_PROC, "/proc", NULL };

	messages_bwrap_fail(err, sizeof(err), MODE_HUTCH, &f, EPERM);
	ck_assert_str_eq(err, "mounts: new procfs for /proc: Operation not permitted");
}
END_TEST

START_TEST(test_every_text_is_there)
{
	char out[1024];

	for (int id = 0; id < BW_N_TEXTS; id++) {
		messages_bwrap_format(out, sizeof(out), (enum bwrap_text)id, "a", "b");
		ck_assert_msg(out[0] != '\0', "text %d is missing", id);
	}
}
END_TEST

START_TEST(test_escape_option)
{
	char out[64];

	messages_bwrap_escape_option(out, sizeof(out), "/t/x \":,\\");
	ck_assert_str_eq(out, "/t/x \"\\:\\,\\\\");
}
END_TEST

START_TEST(test_overlay_options)
{
	char *lower[] = { "/etc", "/usr" };
	struct fs_op ops[] = {
		{ .kind = FS_TMP_OVERLAY, .lower = lower, .n_lower = 1 },
		{ .kind = FS_TMP_OVERLAY, .lower = lower, .n_lower = 2 },
		{ .kind = FS_RO_OVERLAY, .lower = lower, .n_lower = 2 },
		{ .kind = FS_OVERLAY, .src = "/tmp", .workdir = "/var/tmp", .lower = lower,
		  .n_lower = 1 },
	};
	struct plan plan = { .ops = ops, .n_ops = 4 };
	char out[512];

	messages_bwrap_overlay_options(&plan, 1, out, sizeof(out));
	ck_assert_str_eq(out, "upperdir=/tmp-overlay-upper-1,workdir=/tmp-overlay-work-1,"
			 "lowerdir=/oldroot/usr:/oldroot/etc,userxattr");
	messages_bwrap_overlay_options(&plan, 2, out, sizeof(out));
	ck_assert_str_eq(out, "lowerdir=/oldroot/usr:/oldroot/etc,userxattr");
	messages_bwrap_overlay_options(&plan, 3, out, sizeof(out));
	ck_assert_str_eq(out, "upperdir=/oldroot/tmp,workdir=/oldroot/var/tmp,"
			 "lowerdir=/oldroot/etc,userxattr");
}
END_TEST

static Suite *bwrap_text_suite(void)
{
	Suite *s = suite_create("bwrap_text");
	TCase *tc = tcase_create("bwrap_text");

	tcase_add_test(tc, test_paths_under_the_roots);
	tcase_add_test(tc, test_two_arguments);
	tcase_add_test(tc, test_truncated_not_overrun);
	tcase_add_test(tc, test_errno_parts);
	tcase_add_test(tc, test_hutch_words_in_hutch_mode);
	tcase_add_test(tc, test_every_text_is_there);
	tcase_add_test(tc, test_escape_option);
	tcase_add_test(tc, test_overlay_options);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(bwrap_text_suite());
}
