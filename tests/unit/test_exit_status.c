/* Unit tests of the exit status rules (exit_status.c), as hutch(1)'s EXIT
 * STATUS gives them: COMMAND's own status, 128+N for signal N, 124 for
 * --timeout in hutch mode, 125 for hutch's own failures (set-up, pid 1
 * gone before the exec, a stuck teardown), 126 and 127 from the exec
 * stage; bwrap mode's own failure status is 1.  Pure: the run state is
 * set by hand, nothing runs. */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "run_suite.h"
#include "sandbox.h"
#include "supervisor/supervisor.h"

/* A sandbox of MODE whose COMMAND was executed and ended with CODE
 * (waitid's si_code) and STATUS. */
static struct sandbox *ended(struct plan *plan, enum mode mode, int code, int status)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));

	ck_assert_ptr_nonnull(sb);
	memset(plan, 0, sizeof(*plan));
	plan->mode = mode;
	sb->plan = plan;
	sb->run.exec_seen = true;
	sb->run.code = code;
	sb->run.status = status;
	return sb;
}

/* A set-up failure: the log holds the message. */
static void log_failure(struct sandbox *sb, const char *msg)
{
	sb->run.log_len = strlen(msg);
	memcpy(sb->run.log, msg, sb->run.log_len);
}

START_TEST(test_command_status_is_returned)
{
	static const int statuses[] = { 0, 1, 42, 124, 125, 126, 127, 255 };
	struct plan plan;

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_EXITED, statuses[i]);

		ck_assert_int_eq(supervisor_exit_status(sb), statuses[i]);
		free(sb);
	}
}
END_TEST

START_TEST(test_signal_is_128_plus_n)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_KILLED, SIGKILL);

	ck_assert_int_eq(supervisor_exit_status(sb), 137);
	sb->run.code = CLD_DUMPED;
	sb->run.status = SIGSEGV;
	ck_assert_int_eq(supervisor_exit_status(sb), 139);
	sb->run.code = CLD_KILLED;
	sb->run.status = SIGTERM;
	ck_assert_int_eq(supervisor_exit_status(sb), 143);
	free(sb);
}
END_TEST

START_TEST(test_bwrap_signal_is_128_plus_n)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_BWRAP, CLD_KILLED, SIGINT);

	ck_assert_int_eq(supervisor_exit_status(sb), 130);
	free(sb);
}
END_TEST

/* --timeout: 124 in hutch mode, whatever ended COMMAND (SIGTERM, the
 * SIGKILL after the grace, or its own exit on SIGTERM). */
START_TEST(test_timeout_is_124_in_hutch_mode)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_KILLED, SIGKILL);

	sb->run.timed_out = true;
	ck_assert_int_eq(supervisor_exit_status(sb), 124);
	sb->run.code = CLD_EXITED;
	sb->run.status = 3;
	ck_assert_int_eq(supervisor_exit_status(sb), 124);
	free(sb);
}
END_TEST

/* bwrap has no --timeout status: the way COMMAND ended is returned. */
START_TEST(test_timeout_in_bwrap_mode_is_the_command_status)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_BWRAP, CLD_KILLED, SIGTERM);

	sb->run.timed_out = true;
	ck_assert_int_eq(supervisor_exit_status(sb), 143);
	free(sb);
}
END_TEST

/* The exec stage's failures come with a message in the log and pid 1's
 * own status: 126 (found, not executable), 127 (not found). */
START_TEST(test_exec_failure_keeps_126_and_127)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_EXITED, 127);

	sb->run.exec_seen = false;
	log_failure(sb, "exec: /no/such: No such file or directory in the sandbox");
	ck_assert_int_eq(supervisor_exit_status(sb), 127);
	sb->run.status = 126;
	ck_assert_int_eq(supervisor_exit_status(sb), 126);
	free(sb);
}
END_TEST

/* A set-up failure with pid 1 killed, not exited: the mode's failure
 * status, 125 in hutch mode, 1 (bwrap's) in bwrap mode. */
START_TEST(test_setup_failure_is_the_mode_failure_status)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_KILLED, SIGKILL);

	sb->run.exec_seen = false;
	log_failure(sb, "mounts: bind source /no/such: No such file or directory");
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	plan.mode = MODE_BWRAP;
	ck_assert_int_eq(supervisor_exit_status(sb), 1);
	free(sb);
}
END_TEST

/* A set-up message outranks the timeout: the failure is told, not 124. */
START_TEST(test_setup_failure_outranks_timeout)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_EXITED, 125);

	sb->run.timed_out = true;
	log_failure(sb, "policy: seccomp: Invalid argument");
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	free(sb);
}
END_TEST

/* pid 1 gone before COMMAND was executed is hutch's failure in hutch
 * mode, even when it exited 0; bwrap mode returns what it saw. */
START_TEST(test_pid1_gone_before_exec)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_EXITED, 0);

	sb->run.exec_seen = false;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	sb->run.code = CLD_KILLED;
	sb->run.status = SIGKILL;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	plan.mode = MODE_BWRAP;
	sb->run.code = CLD_EXITED;
	sb->run.status = 0;
	ck_assert_int_eq(supervisor_exit_status(sb), 0);
	free(sb);
}
END_TEST

/* A teardown that passed its deadline with processes stuck is 125,
 * whatever else happened (a timeout, COMMAND's own status, a message). */
START_TEST(test_stuck_teardown_is_125)
{
	struct plan plan;
	struct sandbox *sb = ended(&plan, MODE_HUTCH, CLD_EXITED, 0);

	sb->run.stuck = true;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	sb->run.timed_out = true;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	log_failure(sb, "run: something");
	sb->run.status = 7;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	plan.mode = MODE_BWRAP;
	ck_assert_int_eq(supervisor_exit_status(sb), 125);
	free(sb);
}
END_TEST

static Suite *exit_status_suite(void)
{
	Suite *s = suite_create("exit_status");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_command_status_is_returned);
	tcase_add_test(tc, test_signal_is_128_plus_n);
	tcase_add_test(tc, test_bwrap_signal_is_128_plus_n);
	tcase_add_test(tc, test_timeout_is_124_in_hutch_mode);
	tcase_add_test(tc, test_timeout_in_bwrap_mode_is_the_command_status);
	tcase_add_test(tc, test_exec_failure_keeps_126_and_127);
	tcase_add_test(tc, test_setup_failure_is_the_mode_failure_status);
	tcase_add_test(tc, test_setup_failure_outranks_timeout);
	tcase_add_test(tc, test_pid1_gone_before_exec);
	tcase_add_test(tc, test_stuck_teardown_is_125);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(exit_status_suite());
}
