/* Unit tests of userns_probe.c's words: the cause and fix that the
 * fallback's notice and --doctor's verdict both take from it. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* In a child as uid 65534 under a seccomp filter (a sandbox around
 * hutch): a user namespace made whose map write is refused is powerless
 * (Ubuntu's profile gives what bwrap or hutch executes no capability: a
 * hutch nested there); a refused mount may be the filter's; a refused
 * unshare is the filter's.  The stand-in run saw a nested hutch blame
 * Docker's seccomp profile for the first. */
static int judge_under_filter(void)
{
	bool sysctl = proc_read_number(APPARMOR_SYSCTL) == 1;
	scmp_filter_ctx ctx;

	if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		return 10;
	if (!userns_powerless(&(struct userns_trial){ USERNS_MAP, EPERM }))
		return 11;
	/* (unless this process is under a filter already: a container's) */
	if (!userns_seccomp_filtered() &&
	    !userns_powerless(&(struct userns_trial){ USERNS_MOUNT, EACCES }))
		return 12;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
		return 13;
	if (!userns_seccomp_filtered())
		return 14;
	if (!userns_powerless(&(struct userns_trial){ USERNS_MAP, EPERM }))
		return 15;
	if (!sysctl && userns_powerless(&(struct userns_trial){ USERNS_MOUNT, EPERM }))
		return 16;
	if (userns_classify(&(struct userns_trial){ USERNS_MAP, EPERM }) != REFUSED_APPARMOR)
		return 17;
	if (userns_classify(&(struct userns_trial){ USERNS_UNSHARE, EPERM }) != REFUSED_SECCOMP &&
	    proc_read_number(USERNS_CLONE_SYSCTL) != 0)
		return 18;
	return 0;
}

START_TEST(test_powerless_told_from_a_filter)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return;	/* needs to become uid 65534 */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(judge_under_filter());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "step %d failed",
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("userns_probe");
	TCase *tc = tcase_create("words");

	tcase_add_test(tc, test_powerless_words_follow_the_sysctl);
	tcase_add_test(tc, test_other_causes_unchanged);
	tcase_add_test(tc, test_powerless_told_from_a_filter);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
