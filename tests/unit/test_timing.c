/* Unit tests of timing.c: the sandbox's marks as "@t" lines and back,
 * what the supervisor refuses to take from them, and the table and the
 * JSON line made from fixed marks. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timing.h"

/* Every mark passed, 1 ms apart in table order from 1 s. */
static void every_mark(struct timing *t)
{
	timing_start(t, 1000000000u);
	for (int id = 1; id < TM_COUNT; id++)
		timing_set(t, (enum timing_mark)id, 1000000000u + (uint64_t)id * 1000000u);
}

static char *printed(const struct timing *t, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	if (json)
		timing_print_json(t, f);
	else
		timing_print_table(t, f);
	fclose(f);
	return text;
}

START_TEST(test_off_records_and_sends_nothing)
{
	struct timing t;
	char buf[TIMING_LINES_MAX];

	memset(&t, 0, sizeof(t));
	timing_mark(&t, TM_CLONED);
	timing_mark(NULL, TM_CLONED);
	ck_assert_uint_eq(t.at[TM_CLONED], 0);
	t.at[TM_GO] = 5;	/* even with a mark set, off sends nothing */
	ck_assert_uint_eq(timing_format_lines(&t, buf, sizeof(buf)), 0);
}
END_TEST

START_TEST(test_mark_is_set_once_and_monotonic)
{
	struct timing t;
	uint64_t first;

	timing_start(&t, timing_now());
	timing_mark(&t, TM_PARSED);
	first = t.at[TM_PARSED];
	timing_mark(&t, TM_PARSED);
	ck_assert_uint_eq(t.at[TM_PARSED], first);
	timing_mark(&t, TM_END);
	ck_assert_uint_ge(first, t.at[TM_START]);
	ck_assert_uint_ge(t.at[TM_END], first);
}
END_TEST

/* The sandbox sends its side's marks only; the supervisor takes them
 * back, out of the log, leaving the other lines as they were. */
START_TEST(test_lines_round_trip)
{
	struct timing child, sup;
	char log[TIMING_LINES_MAX + 64], want[32];
	size_t len;

	every_mark(&child);
	len = timing_format_lines(&child, log, sizeof(log));
	ck_assert_ptr_null(strstr(log, "@t 0 "));	/* start: the supervisor's */
	snprintf(want, sizeof(want), "@t %d ", TM_CHILD_START);
	ck_assert_ptr_nonnull(strstr(log, want));	/* pid1_start */
	memcpy(log + len, "exec\nmounts: x: y\n", 19);
	len += 18;
	timing_start(&sup, 1000000000u);
	len = timing_take_lines(&sup, log, len);
	log[len] = '\0';
	ck_assert_str_eq(log, "exec\nmounts: x: y\n");
	for (int id = 0; id < TM_COUNT; id++)
		if (timing_mark_side((enum timing_mark)id) != TS_SUPERVISOR)
			ck_assert_uint_eq(sup.at[id], child.at[id]);
		else if (id != TM_START)
			ck_assert_uint_eq(sup.at[id], 0);
}
END_TEST

/* A line that names the supervisor's mark, an unknown one, or is not a
 * number is never taken as a mark; an incomplete line waits. */
START_TEST(test_take_refuses_what_is_not_a_sandbox_mark)
{
	struct timing t;
	char log[256];
	size_t len;
	char expect[256];

	timing_start(&t, 1);
	const int c = TM_CHILD_START;

	snprintf(log, sizeof(log), "@t %d 77\n@t 999 5\n@t x 5\n@t %d -5\n@t %d 12\n@t %d 1",
		 TM_END, c, c, c + 1);
	len = timing_take_lines(&t, log, strlen(log));
	log[len] = '\0';
	ck_assert_uint_eq(t.at[TM_END], 0);
	ck_assert_uint_eq(t.at[TM_CHILD_START], 12);
	snprintf(expect, sizeof(expect), "@t 999 5\n@t x 5\n@t %d -5\n@t %d 1", c, c + 1);
	ck_assert_str_eq(log, expect);
	/* Taken once: a second mark of the same name changes nothing. */
	len = (size_t)snprintf(log, sizeof(log), "@t %d 99\n", c);
	ck_assert_uint_eq(timing_take_lines(&t, log, len), 0);
	ck_assert_uint_eq(t.at[TM_CHILD_START], 12);
}
END_TEST

START_TEST(test_table_rows)
{
	struct timing t;
	char *text;

	every_mark(&t);
	text = printed(&t, false);
	ck_assert_ptr_nonnull(strstr(text, "  parse     supervisor argv and profiles into the plan"));
	ck_assert_ptr_nonnull(strstr(text, "      0.000     1.000\n"));
	ck_assert_ptr_nonnull(strstr(text, "  total                main until exit"));
	for (size_t i = 0; i < timing_n_steps; i++)
		ck_assert_ptr_nonnull(strstr(text, timing_steps[i].name));
	free(text);
	/* A step without both its marks is left out. */
	t.at[TM_GO] = 0;
	text = printed(&t, false);
	ck_assert_ptr_null(strstr(text, "fork, init exec"));
	ck_assert_ptr_nonnull(strstr(text, "fork until COMMAND's process runs"));
	free(text);
}
END_TEST

START_TEST(test_json_line)
{
	struct timing t;
	char *text;
	char expect[128];

	every_mark(&t);
	text = printed(&t, true);
	snprintf(expect, sizeof(expect), "\"total_ns\":%d000000,", TM_END);
	ck_assert_ptr_nonnull(strstr(text, "{\"clock\":\"CLOCK_MONOTONIC\",\"start_ns\":1000000000,"));
	ck_assert_ptr_nonnull(strstr(text, expect));
	ck_assert_ptr_nonnull(strstr(text, "\"marks\":{\"start\":0,\"parsed\":1000000,"));
	ck_assert_ptr_nonnull(strstr(text, "{\"stage\":\"parse\",\"who\":\"supervisor\",\"step\":"
				     "\"argv and profiles into the plan\",\"from\":\"start\","
				     "\"to\":\"parsed\",\"ns\":1000000}"));
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
	free(text);
}
END_TEST

static Suite *timing_suite(void)
{
	Suite *s = suite_create("timing");
	TCase *tc = tcase_create("marks");

	tcase_add_test(tc, test_off_records_and_sends_nothing);
	tcase_add_test(tc, test_mark_is_set_once_and_monotonic);
	tcase_add_test(tc, test_lines_round_trip);
	tcase_add_test(tc, test_take_refuses_what_is_not_a_sandbox_mark);
	tcase_add_test(tc, test_table_rows);
	tcase_add_test(tc, test_json_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(timing_suite());
}
