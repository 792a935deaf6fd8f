/* Unit tests of json.c: each layout's commas, colons and white space as
 * the outputs that use it have always written them, values of each kind,
 * and the escaper's cut that never splits a character. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <stdio.h>
#include <stdlib.h>

#include "lib/json.h"

/* A writer on memory; done() closes it and returns the text. */
struct doc {
	char *text;
	size_t len;
	FILE *f;
	struct json_writer w;
};

static struct json_writer *start(struct doc *d, int indent)
{
	d->text = NULL;
	d->f = open_memstream(&d->text, &d->len);
	ck_assert_ptr_nonnull(d->f);
	json_init(&d->w, d->f, indent);
	return &d->w;
}

static const char *done(struct doc *d)
{
	fclose(d->f);
	return d->text;
}

/* {"a":1,"b":[true,null],"c":"x"} in LAYOUT for the object and the array. */
static void small_object(struct json_writer *w, enum json_layout layout)
{
	json_begin_object(w, layout);
	json_key(w, "a");
	json_int(w, 1);
	json_key(w, "b");
	json_begin_array(w, layout);
	json_bool(w, true);
	json_null(w);
	json_end_array(w);
	json_key(w, "c");
	json_string(w, "x");
	json_end_object(w);
}

START_TEST(test_compact)
{
	struct doc d;

	small_object(start(&d, 0), JSON_COMPACT);
	ck_assert_str_eq(done(&d), "{\"a\":1,\"b\":[true,null],\"c\":\"x\"}");
	free(d.text);
}
END_TEST

START_TEST(test_spaced_and_padded)
{
	struct doc d;

	small_object(start(&d, 0), JSON_SPACED);
	ck_assert_str_eq(done(&d), "{\"a\": 1, \"b\": [true, null], \"c\": \"x\"}");
	free(d.text);
	small_object(start(&d, 0), JSON_PADDED);
	ck_assert_str_eq(done(&d), "{ \"a\": 1, \"b\": [ true, null ], \"c\": \"x\" }");
	free(d.text);
}
END_TEST

START_TEST(test_lines_and_rows)
{
	struct doc d;
	struct json_writer *w = start(&d, 2);

	json_begin_object(w, JSON_LINES);
	json_key(w, "rows");
	json_begin_array(w, JSON_ROWS);
	json_int(w, 1);
	json_int(w, 2);
	json_end_array(w);
	json_key(w, "inline");
	json_begin_object(w, JSON_SPACED);
	json_key(w, "lines");
	json_begin_array(w, JSON_LINES);
	json_string(w, "l");
	json_end_array(w);
	json_key(w, "empty");
	json_begin_array(w, JSON_LINES);
	json_end_array(w);
	json_end_object(w);
	json_end_object(w);
	ck_assert_str_eq(done(&d), "{\n  \"rows\": [\n    1,\n    2],\n  \"inline\": "
			 "{\"lines\": [\n    \"l\"\n  ], \"empty\": []}\n}");
	free(d.text);
}
END_TEST

START_TEST(test_values)
{
	struct doc d;
	struct json_writer *w = start(&d, 0);

	json_begin_array(w, JSON_COMPACT);
	json_int(w, -5);
	json_uint(w, 18446744073709551615ull);
	json_number(w, "%.3f", 1.5);
	json_stringf(w, "0x%x", 255);
	json_string(w, NULL);
	json_string(w, "q\"\\\n\xff");
	json_bool(w, false);
	json_end_array(w);
	ck_assert_str_eq(done(&d), "[-5,18446744073709551615,1.500,\"0xff\",null,"
			 "\"q\\\"\\\\\\u000a\\u00ff\",false]");
	free(d.text);
}
END_TEST

/* An object another module writes after a key (the fallback's plan in
 * --explain=json), then the writer's commas go on. */
START_TEST(test_value_from_another_module)
{
	struct doc d;
	struct json_writer *w = start(&d, 0);

	json_begin_object(w, JSON_SPACED);
	json_key(w, "nested");
	json_begin_object(w, JSON_SPACED);
	json_key(w, "x");
	json_int(w, 1);
	json_end_object(w);
	json_key(w, "next");
	json_int(w, 2);
	json_end_object(w);
	ck_assert_str_eq(done(&d), "{\"nested\": {\"x\": 1}, \"next\": 2}");
	free(d.text);
}
END_TEST

START_TEST(test_cut_keeps_characters_whole)
{
	struct doc d;

	json_string_cut(start(&d, 0), "ab\xc3\xa9" "cd", 3);
	ck_assert_str_eq(done(&d), "\"ab\xc3\xa9\"");
	free(d.text);
	json_string_cut(start(&d, 0), "abc", 10);
	ck_assert_str_eq(done(&d), "\"abc\"");
	free(d.text);
}
END_TEST

/* Every byte from 1 to 255 alone: no raw control character, DEL, stray
 * byte, $ or ` in the output, only printable ASCII between the quotes. */
START_TEST(test_every_byte_escaped_or_printable)
{
	for (int c = 1; c < 256; c++) {
		char in[2] = { (char)c, '\0' };
		struct doc d;
		const char *out;

		json_string(start(&d, 0), in);
		out = done(&d);
		for (const char *o = out; *o; o++)
			ck_assert_msg(*o >= 0x20 && *o < 0x7f && *o != '$' && *o != '`',
				      "byte 0x%02x wrote 0x%02x", c, (unsigned char)*o);
		free(d.text);
	}
}
END_TEST

/* The report line the issue saw run in ~/.bashrc: a command name that
 * is a shell's command substitution, with a newline and an ESC. */
START_TEST(test_shell_expansions_escaped)
{
	struct doc d;

	json_string(start(&d, 0), "$(id>~/PWNED)`id`\n\x1b[2J");
	ck_assert_str_eq(done(&d), "\"\\u0024(id>~/PWNED)\\u0060id\\u0060\\u000a\\u001b[2J\"");
	free(d.text);
}
END_TEST

/* Valid UTF-8 stays as it is but for the C1 controls and the line and
 * paragraph separators; stray and overlong bytes are escaped. */
START_TEST(test_utf8_controls_escaped)
{
	struct doc d;

	json_string(start(&d, 0), "\xc3\xa9\xc2\x9b\xe2\x80\xa8\xe2\x80\xa9\xc0\xaf\xe2\x82\xac");
	ck_assert_str_eq(done(&d), "\"\xc3\xa9\\u009b\\u2028\\u2029\\u00c0\\u00af\xe2\x82\xac\"");
	free(d.text);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("writer");

	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_spaced_and_padded);
	tcase_add_test(tc, test_lines_and_rows);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_value_from_another_module);
	tcase_add_test(tc, test_cut_keeps_characters_whole);
	tcase_add_test(tc, test_every_byte_escaped_or_printable);
	tcase_add_test(tc, test_shell_expansions_escaped);
	tcase_add_test(tc, test_utf8_controls_escaped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(json_suite());
}
