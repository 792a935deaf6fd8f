/* Unit tests of the failure messages (log.c): log_fail's "STAGE: WHAT
 * OBJECT: reason", and log_line's one line on stderr with the control
 * characters of a message (C0, DEL, C1 in UTF-8) shown as \xNN, so that a
 * file name holding a terminal's escape sequence never reaches the
 * caller's terminal as one; log_warning's level under --level-prefix.
 * Pure: stderr is a pipe the test reads. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "messages/log.h"
#include "run_suite.h"

/* What one call of log_line (or log_warning, WARNING) writes to stderr,
 * into OUT. */
static const char *stderr_of(void (*print)(const char *, const char *), const char *prog,
			     const char *msg, char *out, size_t len)
{
	int fds[2], saved = dup(STDERR_FILENO);
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fds[1], STDERR_FILENO), STDERR_FILENO);
	close(fds[1]);
	print(prog, msg);
	ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	n = read(fds[0], out, len - 1);
	close(fds[0]);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
	return out;
}

START_TEST(test_fail_formats_stage_what_object_reason)
{
	char err[256] = "";

	ck_assert_int_eq(log_fail(err, sizeof(err), "mounts", "bind source", "/no/such", ENOENT), -1);
	ck_assert_str_eq(err, "mounts: bind source /no/such: No such file or directory");
}
END_TEST

START_TEST(test_fail_truncates_to_the_buffer)
{
	char err[16];

	memset(err, 'x', sizeof(err));
	log_fail(err, 12, "mounts", "bind source", "/no/such", ENOENT);
	ck_assert_str_eq(err, "mounts: bin");
	ck_assert_int_eq(err[12], 'x');
}
END_TEST

START_TEST(test_line_is_prog_message_newline)
{
	char out[512];

	ck_assert_str_eq(stderr_of(log_line, "hutch", "parse: --bind: missing argument", out,
				   sizeof(out)), "hutch: parse: --bind: missing argument\n");
}
END_TEST

/* An escape sequence (ESC, CSI as C1 in UTF-8), a newline, a tab and DEL
 * in a message are shown, not sent. */
START_TEST(test_line_escapes_control_characters)
{
	char out[512];

	ck_assert_str_eq(stderr_of(log_line, "hutch", "exec: /tmp/\x1b[31mred\n\t\x7f", out,
				   sizeof(out)), "hutch: exec: /tmp/\\x1b[31mred\\x0a\\x09\\x7f\n");
	ck_assert_str_eq(stderr_of(log_line, "hutch", "a\xc2\x9b" "2Jb", out, sizeof(out)),
			 "hutch: a\\xc2\\x9b2Jb\n");
}
END_TEST

/* UTF-8 outside the C1 range passes as it is: names in any language. */
START_TEST(test_line_keeps_printable_utf8)
{
	char out[512];

	ck_assert_str_eq(stderr_of(log_line, "hutch", "mounts: /home/zoë/\xc2\xa0x", out,
				   sizeof(out)), "hutch: mounts: /home/zoë/\xc2\xa0x\n");
}
END_TEST

/* A message too long for one line is cut, and still one line. */
START_TEST(test_long_line_is_cut_to_one_line)
{
	static char msg[10000];
	char out[8192];
	size_t len;

	memset(msg, 'm', sizeof(msg) - 1);
	stderr_of(log_line, "hutch", msg, out, sizeof(out));
	len = strlen(out);
	ck_assert_uint_gt(len, 4000);
	ck_assert_uint_le(len, 4200);
	ck_assert_int_eq(out[len - 1], '\n');
	ck_assert_ptr_eq(strchr(out, '\n'), out + len - 1);
	ck_assert_int_eq(strncmp(out, "hutch: mmm", 10), 0);
}
END_TEST

/* Escapes near the end of a long line are cut whole, not in the middle. */
START_TEST(test_long_line_of_escapes_cuts_whole_escapes)
{
	static char msg[3000];
	char out[16384];
	size_t len;

	memset(msg, '\x1b', sizeof(msg) - 1);
	stderr_of(log_line, "hutch", msg, out, sizeof(out));
	len = strlen(out);
	ck_assert_int_eq(out[len - 1], '\n');
	ck_assert_uint_eq((len - 1 - strlen("hutch: ")) % 4, 0);
	ck_assert_str_eq(out + len - 5, "\\x1b\n");
}
END_TEST

START_TEST(test_warning_takes_level_4_under_level_prefix)
{
	char out[512];

	ck_assert_str_eq(stderr_of(log_warning, "<3>hutch", "profile: x", out, sizeof(out)),
			 "<4>hutch: profile: x\n");
	ck_assert_str_eq(stderr_of(log_warning, "hutch", "profile: x", out, sizeof(out)),
			 "hutch: profile: x\n");
	ck_assert_str_eq(stderr_of(log_line, "<3>hutch", "profile: x", out, sizeof(out)),
			 "<3>hutch: profile: x\n");
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("messages");

	tcase_add_test(tc, test_fail_formats_stage_what_object_reason);
	tcase_add_test(tc, test_fail_truncates_to_the_buffer);
	tcase_add_test(tc, test_line_is_prog_message_newline);
	tcase_add_test(tc, test_line_escapes_control_characters);
	tcase_add_test(tc, test_line_keeps_printable_utf8);
	tcase_add_test(tc, test_long_line_is_cut_to_one_line);
	tcase_add_test(tc, test_long_line_of_escapes_cuts_whole_escapes);
	tcase_add_test(tc, test_warning_takes_level_4_under_level_prefix);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(log_suite());
}
