/* Unit tests of userns_probe.c's words: the cause and fix that the
 * fallback's notice and --doctor's verdict both take from it. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/userns_probe.h"
#include "lib/lib.h"

/* Ubuntu's restriction seen by behaviour (the namespace made, its first
 * mount refused): named by the sysctl where it shows 1, otherwise as a
 * security module doing the same, with that module's fix, in the
 * verdict's words as in the notice's.  The stand-in run of the suite saw
 * the verdict name no cause (tests/standin, unregistered). */
START_TEST(test_powerless_words_follow_the_sysctl)
{
	const char *reason = userns_reason(REFUSED_APPARMOR);
	const char *fix = userns_fix(REFUSED_APPARMOR);

	ck_assert_ptr_nonnull(reason);
	ck_assert_ptr_nonnull(fix);
	if (proc_read_number(APPARMOR_SYSCTL) == 1) {
		ck_assert_msg(strstr(reason, "kernel.apparmor_restrict_unprivileged_userns=1 leaves"), "%s", reason);
		ck_assert_str_eq(fix, APPARMOR_FIX);
	} else {
		ck_assert_msg(strstr(reason, "a security module refuses capabilities in new user namespaces"),
			      "%s", reason);
		ck_assert_msg(strstr(fix, "security module") && strstr(fix, HUTCH_APPARMOR_PROFILE), "%s", fix);
	}
}
END_TEST

/* The other causes keep their own words. */
START_TEST(test_other_causes_unchanged)
{
	ck_assert_msg(strstr(userns_reason(REFUSED_SECCOMP), "seccomp filter"), "%s",
		      userns_reason(REFUSED_SECCOMP));
	ck_assert_str_eq(userns_fix(REFUSED_SYSCTL), "sysctl -w kernel.unprivileged_userns_clone=1");
	ck_assert_ptr_null(userns_reason(REFUSED_OTHER));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("userns_probe");
	TCase *tc = tcase_create("words");

	tcase_add_test(tc, test_powerless_words_follow_the_sysctl);
	tcase_add_test(tc, test_other_causes_unchanged);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
