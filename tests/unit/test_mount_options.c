/* Unit tests of the options hutch gives a new tmpfs (mount_api.c): with
 * --file-label, SELinux's "context" option carries the label, as bwrap's
 * label_mount adds context="LABEL" to a tmpfs's options; without it,
 * none.  (An SELinux host is needed to see the label applied.) */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <string.h>

#include "mount/mount_api.h"

/* The value of KEY in O, or NULL. */
static const char *option(const struct tmpfs_options *o, const char *key)
{
	for (int i = 0; i + 1 < o->n; i += 2)
		if (strcmp(o->kv[i], key) == 0)
			return o->kv[i + 1];
	return NULL;
}

START_TEST(test_no_label_no_context)
{
	struct tmpfs_options o;

	mount_tmpfs_options(&o, 0755, 0, NULL);
	ck_assert_int_eq(o.n, 2);
	ck_assert_str_eq(option(&o, "mode"), "755");
	ck_assert_ptr_null(option(&o, "size"));
	ck_assert_ptr_null(option(&o, "context"));
}
END_TEST

START_TEST(test_label_is_the_context)
{
	struct tmpfs_options o;
	const char *label = "system_u:object_r:container_file_t:s0:c1,c2";

	mount_tmpfs_options(&o, 01777, 1048576, label);
	ck_assert_int_eq(o.n, 6);
	ck_assert_str_eq(option(&o, "mode"), "1777");
	ck_assert_str_eq(option(&o, "size"), "1048576");
	/* fsconfig takes the value as it is: no quotes, commas kept. */
	ck_assert_str_eq(option(&o, "context"), label);
}
END_TEST

static Suite *mount_options_suite(void)
{
	Suite *s = suite_create("mount_options");
	TCase *tc = tcase_create("mount_options");

	tcase_add_test(tc, test_no_label_no_context);
	tcase_add_test(tc, test_label_is_the_context);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(mount_options_suite());
}
